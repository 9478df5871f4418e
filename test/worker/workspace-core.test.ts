/// <reference types="@cloudflare/vitest-plugin/types" />
// The runtime-free parts of workspaces (path and name checks, limits), the tools where there is no
// workspace store (the bridge), history pruning, and BMAD's ported scripts running on a workspace.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { SHARED_SCRIPTS } from "../../src/core/runtime/scripts.js";
import { bmadFilesTool, bmadProjectTool } from "../../src/core/surface/tools/workspace.tools.js";
import { readBmadUri } from "../../src/core/surface/resources.js";
import { checkProjectCount, checkWrite, checkWriteAll, MAX_FILE_BYTES, MAX_FILES, MAX_PROJECT_BYTES } from "../../src/core/workspace/limits.js";
import { checkProjectName, checkWorkspacePath, parseProjectRef, parseProjectUri } from "../../src/core/workspace/paths.js";
import { workspaceRuntimeFs } from "../../src/core/workspace/runtime-fs.js";
import type { WorkspaceProject } from "../../src/worker/workspace-do.js";
import { batchClash } from "../../src/worker/workspace-versions.js";
import { env } from "cloudflare:workers";
import { seed } from "./setup.js";
import { projectStub, signInAs, unique, type Person } from "./workspace-users.js";
import { mayServeAsConfig } from "../../src/core/catalog/config.js";

// Each test signs people in and runs many calls through workerd: on a busy 2-core machine that takes seconds.
vi.setConfig({ testTimeout: 30_000, hookTimeout: 60_000 });

describe("paths", () => {
  it("take plain relative paths as written, percent signs included", () => {
    for (const ok of ["docs/prd.md", "_bmad/config.toml", ".claude/specs/x/01.md", "%2e%2e/x", "a b/ü.md", `${"x".repeat(255)}/${"é".repeat(127)}`, "...", "a..b", "😀.md"]) {
      expect(checkWorkspacePath(ok), ok.slice(0, 20)).toEqual({ ok: true, value: ok });
    }
  });

  it("refuse every path that could leave the project or read differently elsewhere", () => {
    const bad = ["", "/abs", "C:/x", "c:x", "../x", "a/../b", "a/..", "./a", "a/./b", "a/.", "a//b", "a/", "a\\b", "a\u0000b", "a\tb", "a\u007fb", "a\u0085b", "\ud800.md", "x".repeat(513), "x".repeat(256), `docs/${"é".repeat(128)}.md`, "runs/a\u2028b/state.json", "docs/x\u202eyz.md", "docs/\ufeffa.md"];
    for (const path of bad) expect(checkWorkspacePath(path).ok, JSON.stringify(path.slice(0, 20))).toBe(false);
    const long = checkWorkspacePath("x".repeat(10_000));
    expect(!long.ok && long.error).toBe("Path is 10000 characters; at most 512 are allowed.");
    const nul = checkWorkspacePath("a\u0000b");
    expect(!nul.ok && nul.error).toContain("a\\u0000b");
  });

  it("decode bmad://projects/ URIs once and check the result again", () => {
    expect(parseProjectUri("bmad://projects/app/docs/a%20b.md")).toEqual({ ok: true, value: { project: "app", path: "docs/a b.md" } });
    expect(parseProjectUri("bmad://projects/app/%252e%252e/x")).toEqual({ ok: true, value: { project: "app", path: "%2e%2e/x" } });
    for (const uri of ["bmad://projects/app/%2e%2e/x", "bmad://projects/app/..%2Fx", "bmad://projects/app/a%2F%2Fb", "bmad://projects/app/%00", "bmad://projects/app", "bmad://projects/%2e%2e/x", "bmad://projects/app/%E0%A4%A"]) {
      expect(parseProjectUri(uri).ok, uri).toBe(false);
    }
  });

  it("name projects plainly, and shared ones as name@tag", () => {
    expect(checkProjectName("my-app.v2").ok).toBe(true);
    for (const bad of ["", "-x", ".x", "a/b", "a b", "a..b", "x".repeat(65), "app@1234abcd"]) expect(checkProjectName(bad).ok, bad).toBe(false);
    expect(parseProjectRef("app@0123abcd")).toEqual({ ok: true, value: { name: "app", tag: "0123abcd" } });
    expect(parseProjectRef("app@xyz").ok).toBe(false);
  });
});

describe("limits", () => {
  const base = { project: "p", path: "a.md", files: 10, bytes: 1000 };
  it("name each limit and the way out", () => {
    expect(checkWrite({ ...base, oldSize: undefined, newSize: MAX_FILE_BYTES }).ok).toBe(true);
    expect(checkWrite({ ...base, oldSize: undefined, newSize: MAX_FILE_BYTES + 1 })).toEqual({ ok: false, error: "a.md would be 1,048,577 bytes; a file holds at most 1 MiB (1,048,576 bytes). Split it into several files." });
    expect(checkWrite({ ...base, files: MAX_FILES, oldSize: undefined, newSize: 1 })).toEqual({ ok: false, error: 'Project "p" has 5,000 files, the most a project holds; delete some before adding a.md.' });
    expect(checkWrite({ ...base, files: MAX_FILES, oldSize: 5, newSize: 1 }).ok).toBe(true);
    expect(checkWrite({ ...base, bytes: MAX_PROJECT_BYTES, oldSize: 10, newSize: 10 }).ok).toBe(true);
    expect(checkWrite({ ...base, bytes: MAX_PROJECT_BYTES, oldSize: 10, newSize: 11 })).toMatchObject({ ok: false, error: expect.stringMatching(/would hold 52,428,801 bytes; a project holds at most 50 MiB/) });
    expect(checkProjectCount(99).ok).toBe(true);
    expect(checkProjectCount(100)).toMatchObject({ ok: false, error: expect.stringMatching(/You have 100 projects/) });
  });

  it("add up many files before any is stored", () => {
    const writes = Array.from({ length: 3 }, (_, i) => ({ path: `f${i}`, size: 1 }));
    expect(checkWriteAll("p", { files: MAX_FILES - 3, bytes: 0, sizes: new Map() }, writes).ok).toBe(true);
    expect(checkWriteAll("p", { files: MAX_FILES - 2, bytes: 0, sizes: new Map() }, writes)).toMatchObject({ ok: false, error: 'Project "p" has 4,998 files and this change adds 3; a project holds at most 5,000. Delete some first.' });
    expect(checkWriteAll("p", { files: MAX_FILES, bytes: 0, sizes: new Map([["f0", 1], ["f1", 1], ["f2", 1]]) }, writes).ok).toBe(true);
  });

  it("hold at most 1,000 files directly in a folder written at once (a script's new tree)", () => {
    const inOne = (count: number) => Array.from({ length: count }, (_, i) => `tree/d/f${i}.md`);
    expect(batchClash(inOne(1000))).toBeUndefined();
    expect(batchClash(inOne(1001))).toMatch(/^Cannot add tree\/d\/f1000\.md: the folder tree\/d\/ holds 1,000 files directly.*Put it in a subfolder/);
  });

  it("hold no two names a folding file system reads as one, or as one folder (review 333)", () => {
    expect(batchClash(["run/A.md", "run/a.md"])).toBe("Cannot put both run/A.md and run/a.md: macOS and Windows read both names as one, or they print alike (they differ only in case, Unicode form, a trailing dot or a character that shows as nothing: a pull could not write both). Choose another name for one of them.");
    expect(batchClash(["run/X/a.md", "run/x/b.md"])).toMatch(/^Cannot put both run\/X\/a\.md and run\/x\/b\.md: macOS and Windows read run\/x and run\/X as one folder/);
    expect(batchClash(["run/X/a.md", "run/X/b.md", "run/y.md"])).toBeUndefined();
  });
});

describe("without a workspace store (the bridge)", () => {
  it("the tools and resources say to use the project directory", async () => {
    const deps = { reader: {} as never, owner: "local" };
    for (const [tool, args] of [[bmadProjectTool, { action: "list" }], [bmadFilesTool, { action: "read", project: "p", path: "a.md" }]] as const) {
      const out = await tool.run(tool.input.parse(args), deps);
      expect(out).toMatchObject({ ok: false, error: expect.stringMatching(/your project is a directory/) });
    }
    expect(await readBmadUri(deps, "bmad://projects/p/a.md")).toMatchObject({ ok: false, error: expect.stringMatching(/project is a directory/) });
  });
});

describe("on the Durable Object", () => {
  let ada: Person;
  let project: string;
  const stub = () => projectStub(ada.id, project);

  beforeAll(async () => {
    await seed();
    ada = await signInAs(`${unique("core")}@example.com`);
    project = unique("core");
    expect((await ada.project({ action: "create", name: project })).isError).toBe(false);
  });

  it("refuses a config written back as served, which would delete its secret-looking keys (review 14, R1)", async () => {
    const path = "_bmad/bmm/config.yaml";
    expect((await ada.files({ action: "write", project, path, content: "user_name: Ada\nopenai_api_key: sk-live-abcdefghijklmnop\n" })).isError).toBe(false);
    const read = await ada.files({ action: "read", project, path });
    expect(read.text).toContain("# secret-looking keys removed by bmad-mcp");
    const versions2 = async (file: string) => ((await ada.files({ action: "history", project, path: file })).structured.versions as unknown[]).length;
    const versions = () => versions2(path);
    const before = await versions();
    const served = read.text.slice(read.text.indexOf("# secret-looking"));
    const back = await ada.files({ action: "write", project, path, content: `\n${served.replace("Ada", "Ada L.")}` });
    expect(back.isError).toBe(true);
    expect(back.text).toMatch(/as served, without its secret-looking keys \(or the notice that it is not served\): written back, it would delete them from the file\. Nothing was written\./);
    // Pointed to the one tool that changes it only where the file holds the installer's answers.
    expect(back.text).toContain('Installer answers change with bmad-project "config".');
    expect(await versions()).toBe(before);
    // Nor the notice served for a config that does not parse (review 16: the document view's restore wrote it as the file).
    // (Text that does not parse is judged to keep none of them: written over this file, refused too.)
    expect((await ada.files({ action: "write", project, path, content: "user_name: [Ada\nopenai_api_key: sk-live-abcdefghijklmnop\n" })).text).toMatch(/holds secret-looking entries, which the file as served leaves out: only you, its owner, change it, not a model \(a delete takes it out of the project\)\. Nothing was written\./);
    const unparsed = "_bmad/other/config.yaml";
    expect((await ada.files({ action: "write", project, path: unparsed, content: "user_name: [Ada\nopenai_api_key: sk-live-abcdefghijklmnop\n" })).isError).toBe(false);
    const notice = await ada.files({ action: "read", project, path: unparsed });
    expect(notice.text).toMatch(/is not served: it does not parse/);
    const broken = await versions2(unparsed);
    expect((await ada.files({ action: "write", project, path: unparsed, content: notice.text.slice(notice.text.indexOf("# ")) })).isError).toBe(true);
    expect(await versions2(unparsed)).toBe(broken);
    // However the served text is edited: judged by what it would delete (review 19: only the exact first line was refused).
    const toml = "_bmad/custom/config.toml";
    expect((await ada.files({ action: "write", project, path: toml, content: '[core]\nuser_name = "Ada"\napi_key = "sk-live-abcdefghijklmnop"\n[db]\npassword = "hunter2"\n' })).isError).toBe(false);
    const asServed = (await ada.files({ action: "read", project, path: toml })).text;
    const stripped = asServed.slice(asServed.indexOf("# secret-looking"));
    const body = stripped.slice(stripped.indexOf("\n") + 1);
    const tomlVersions = await versions2(toml);
    for (const variant of [body, `# my edit\n${stripped}`, stripped.replace(/\n/g, "\r\n"), stripped.replace("bmad-mcp", "bmad-mcp "), `#${stripped.slice(2)}`, body.replace("Ada", "Ada L.")]) {
      const out = await ada.files({ action: "write", project, path: toml, content: variant });
      expect(out.isError, variant).toBe(true);
      expect(out.text).toMatch(/holds secret-looking entries, which the file as served leaves out: only you, its owner, change it, not a model \(a delete takes it out of the project\)\. Nothing was written\.$/);
    }
    expect(await versions2(toml)).toBe(tomlVersions);
    // Nor with placeholders where the values were (review 21), nor by an append that leaves the file unparseable.
    for (const [action, content] of [["write", '[core]\nuser_name = "Ada"\napi_key = "<kept>"\n[db]\npassword = "***"\n'], ["append", "\n[[[\n"]] as const) {
      const out = await ada.files({ action, project, path: toml, content });
      expect(out.isError, `${action} ${content}`).toBe(true);
      expect(out.text).toMatch(/holds secret-looking entries, which the file as served leaves out: only you, its owner, change it, not a model \(a delete takes it out of the project\)\. Nothing was written\./);
    }
    expect(await versions2(toml)).toBe(tomlVersions);
    // A refusal names nothing: a key can be the secret (review 22).
    const routes = "_bmad/custom/routes.toml";
    expect((await ada.files({ action: "write", project, path: routes, content: '[routes]\n"postgres://app:Hunter2-OWNER@db/prod" = "main"\nother = "x"\n' })).isError).toBe(false);
    const named = await ada.files({ action: "write", project, path: routes, content: '[routes]\nother = "y"\n' });
    expect(named.text).toMatch(/holds secret-looking entries, which the file as served leaves out: only you, its owner, change it, not a model \(a delete takes it out of the project\)\. Nothing was written\./);
    expect(named.text).not.toContain("Hunter2");
    // Nor restored over (review 45: delete, write a guess, restore told a right guess by a restore that made no version).
    const first = Number(/^v(\d+) /m.exec([...(await ada.files({ action: "history", project, path: toml })).text.matchAll(/^v\d+ .*$/gm)].map((m) => m[0]).at(-1)!)![1]);
    for (const args of [{ action: "restore", version: first }]) {
      expect((await ada.files({ project, path: toml, ...args })).text, JSON.stringify(args)).toMatch(/holds secret-looking entries, which the file as served leaves out: only you, its owner, change it, not a model \(a delete takes it out of the project\)\. Nothing was written\./);
    }
    expect(await versions2(toml)).toBe(tomlVersions);
    // Nor with them all kept, a rotated key too: refused alike, so that no answer tells a right guess from a wrong one
    // (review 42). Into a config with none, a write lands.
    expect((await ada.files({ action: "write", project, path: toml, content: '[core]\nuser_name = "Ada L."\napi_key = "sk-live-rotatedrotated1234"\n[db]\npassword = "hunter3"\n' })).text).toMatch(/holds secret-looking entries, which the file as served leaves out: only you, its owner, change it, not a model \(a delete takes it out of the project\)\. Nothing was written\./);
    expect((await ada.files({ action: "write", project, path: "_bmad/custom/plain.toml", content: '[core]\nuser_name = "Ada"\n' })).isError).toBe(false);
    expect((await ada.files({ action: "write", project, path: "_bmad/custom/plain.toml", content: '[core]\nuser_name = "Bo"\n' })).isError).toBe(false);
  });

  it("peeks at the first or last bytes of many files in one call, reading no more (review 20: the map read whole documents)", async () => {
    const big = `---\nstatus: final\n---\n${"x".repeat(900 * 1024)}\n- the last entry\n`;
    expect((await ada.files({ action: "write", project, path: "docs/big.md", content: big })).isError).toBe(false);
    const files = ada.store().files(project);
    const heads = await files.peek(["docs/big.md", "docs/missing.md"], { head: 4096 });
    expect(heads.ok && heads.value.map((f) => [f.path, f.data.byteLength, f.size])).toEqual([["docs/big.md", 4096, big.length]]);
    expect(heads.ok && new TextDecoder().decode(heads.value[0]!.data)).toMatch(/^---\nstatus: final\n---\n/);
    const tails = await files.peek(["docs/big.md"], { tail: 64 });
    expect(tails.ok && new TextDecoder().decode(tails.value[0]!.data)).toMatch(/\n- the last entry\n$/);
    expect(await files.peek(["docs/big.md"], { head: 10 * 1024 * 1024 })).toMatchObject({ ok: false, error: "A peek reads 1 to 65536 bytes of each file." });
  });

  it("prunes the oldest earlier versions past the history cap, never a current file", async () => {
    const caller = ada.store().caller;
    const kb = (c: string) => new TextEncoder().encode(c.repeat(1024));
    const pruned = await runInDurableObject(stub(), (instance: WorkspaceProject, state) => {
      const stored = state.storage.sql.exec<{ b: number }>("SELECT history_bytes AS b FROM meta").one().b;
      const cap = instance.files.historyCap;
      const retention = instance.files.retentionMs;
      instance.files.historyCap = stored + 3 * 1024;
      // Replaced content is kept for the retention period: with none, what was replaced a second ago may go.
      instance.files.retentionMs = 0;
      const at = (i: number) => new Date(Date.now() + i * 1000).toISOString();
      [..."abcde"].forEach((c, i) => instance.write(caller, "churn.md", kb(c), undefined, undefined, at(i)));
      [instance.files.historyCap, instance.files.retentionMs] = [cap, retention];
      return state.storage.sql.exec<{ version: number }>("SELECT version FROM versions WHERE path = 'churn.md' AND pruned = 1 ORDER BY version").toArray().map((r) => r.version);
    });
    expect(pruned.length).toBeGreaterThan(0);
    expect(pruned).not.toContain(5);
    expect((await ada.files({ action: "read", project, path: "churn.md" })).text).toContain("e".repeat(1024));
    expect((await ada.files({ action: "read", project, path: "churn.md", version: pruned[0] })).text).toMatch(/too old: its content was dropped/);
    expect((await ada.files({ action: "history", project, path: "churn.md" })).text).toContain("(content pruned)");
    expect((await ada.files({ action: "read", project, path: "churn.md", version: 4 })).text).toContain("d".repeat(1024));
  });

  it("changes a file's row in place on each new version: no row deleted and stored anew, pages more for every write", async () => {
    const row = () =>
      runInDurableObject(stub(), (_: WorkspaceProject, state) =>
        state.storage.sql.exec<{ rowid: number; version: number; size: number }>("SELECT rowid, version, size FROM files WHERE path = 'inplace.md'").one());
    await ada.files({ action: "write", project, path: "inplace.md", content: "one" });
    const first = await row();
    await ada.files({ action: "write", project, path: "inplace.md", content: "two, longer" });
    await ada.files({ action: "append", project, path: "inplace.md", content: "three" });
    expect(await row()).toEqual({ rowid: first.rowid, version: first.version + 2, size: "two, longer\nthree".length });
    expect((await ada.files({ action: "read", project, path: "inplace.md" })).text).toContain("two, longer\nthree");
  });

  it("lists and counts exactly the files its table holds after writes, deletes, restores, refusals and a restart", async () => {
    const table = () =>
      runInDurableObject(stub(), (_: WorkspaceProject, state) => {
        const rows = state.storage.sql.exec<{ path: string; version: number; size: number }>("SELECT path, version, size FROM files").toArray();
        // A config or data file is listed without its size, which would tell a removed secret's length (an eighth review, 263).
        return [...rows.map((r) => `${r.path} v${r.version}${mayServeAsConfig(r.path) ? "" : ` ${r.size} B`}`).sort(), `${rows.length} files, ${rows.reduce((n, r) => n + r.size, 0)} bytes`];
      });
    const listed = async () => {
      const files = (await ada.files({ action: "list", project })).structured.files as Array<{ path: string; version: number; size?: number }>;
      const info = (await ada.project({ action: "config", name: project })).structured;
      return [...files.map((f) => `${f.path} v${f.version}${f.size === undefined ? "" : ` ${f.size} B`}`).sort(), `${info.files} files, ${info.bytes} bytes`];
    };
    expect(await listed()).toEqual(await table()); // the first listing reads the table
    const steps: Array<Record<string, unknown>> = [
      { action: "write", path: "keep/b.md", content: "bb" },
      { action: "write", path: "keep/a.md", content: "a" },
      { action: "append", path: "keep/a.md", content: "aa" }, // after a line break: "a" has none (review 275)
      { action: "delete", path: "keep/b.md" },
      { action: "restore", path: "keep/b.md", version: 1 },
      { action: "write", path: "keep/a.md", content: "x", if_version: 1 }, // refused: a conflict
      { action: "write", path: "keep/c.md", content: "x".repeat(MAX_FILE_BYTES + 1) }, // refused: too large
    ];
    for (const step of steps) {
      await ada.files({ project, ...step });
      expect(await listed(), JSON.stringify(step).slice(0, 80)).toEqual(await table());
    }
    expect((await ada.files({ action: "list", project, path: "keep/*" })).text).toMatch(/keep\/a\.md v2 4 B\nkeep\/b\.md v3 2 B$/);
    await evictDurableObject(stub());
    expect(await listed()).toEqual(await table());
  });

  it("serves BMAD's ported scripts as a RuntimeFs: memlog and resolve_config write and read the workspace", async () => {
    const fs = workspaceRuntimeFs(ada.store().files(project), `/projects/${project}`);
    const root = `/projects/${project}`;
    const run = (script: string, args: string[]) => SHARED_SCRIPTS.get(script)!(args, { fs, cwd: root, scriptPath: `${root}/_bmad/scripts/${script}` });
    const ws = `${root}/_bmad-output/brainstorming/run-1`;
    expect(await run("memlog.py", ["init", "--workspace", ws, "--field", "topic=Budgeting"])).toMatchObject({ exitCode: 0 });
    expect(await run("memlog.py", ["append", "--workspace", ws, "--type", "idea", "--by", "user", "--text", "sample data first"])).toMatchObject({ exitCode: 0 });
    const memlog = await ada.files({ action: "read", project, path: "_bmad-output/brainstorming/run-1/.memlog.md" });
    expect(memlog.text).toContain("sample data first");
    expect(memlog.structured).toMatchObject({ version: 2, author: ada.email });
    const config = await run("resolve_config.py", ["--project-root", root, "-k", "core.project_name"]);
    expect(config).toMatchObject({ exitCode: 0 });
    expect(config.stdout).toContain(project);
    expect(await fs.stat(root)).toBe("dir");
    expect(await fs.stat("/projects")).toBe("dir");
    expect(await fs.stat(`${root}/_bmad`)).toBe("dir");
    expect(await fs.stat(`${root}/_bmad/config.toml`)).toBe("file");
    expect(await fs.stat(`${root}/nope`)).toBe("missing");
    expect(await fs.list("/")).toEqual(["projects"]);
    expect(await fs.list(`${root}/_bmad-output/brainstorming`)).toEqual(["run-1"]);
    expect(await fs.readFile(`${root}/nope.md`)).toBeUndefined();
    await expect(fs.writeFile("/etc/passwd", new Uint8Array(1))).rejects.toThrow(/outside the project/);
    await expect(fs.writeFile(`${root}/big.md`, new Uint8Array(MAX_FILE_BYTES + 1))).rejects.toThrow(/at most 1 MiB/);
  });
});

describe("the per-user index, when a create or delete is cut short between it and the project", () => {
  const indexOf = (person: Person) => env.WORKSPACE_INDEX.get(env.WORKSPACE_INDEX.idFromName(`user:${person.id}`));
  const listed = async (person: Person) => ((await person.project({ action: "list" })).structured.projects as Array<{ project: string }>).map((p) => p.project);

  it("never lists a project that is not there, nor hides one that is", async () => {
    await seed();
    const bea = await signInAs(`${unique("index")}@example.com`);
    const [made, lost, kept, gone] = ["made", "lost", "kept", "gone"].map((n) => unique(n)) as [string, string, string, string];
    // A create cut after the project was made, before the index heard: listed, and the name stays taken.
    expect((await bea.project({ action: "create", name: made })).isError).toBe(false);
    await indexOf(bea).mark(made, "pending");
    // A create cut before the project was made, a minute ago: not listed, and the name is free again.
    await indexOf(bea).reserve(lost, new Date(Date.now() - 120_000).toISOString(), 100);
    // A delete cut before the project went: listed. One cut after it went: not listed.
    for (const name of [kept, gone]) expect((await bea.project({ action: "create", name })).isError).toBe(false);
    await indexOf(bea).mark(kept, "deleting");
    await indexOf(bea).mark(gone, "deleting");
    await runInDurableObject(projectStub(bea.id, gone), (_, state) => state.storage.deleteAll());
    await evictDurableObject(projectStub(bea.id, gone));
    const names = await listed(bea);
    expect(names).toEqual(expect.arrayContaining([made, kept]));
    expect(names).not.toContain(lost);
    expect(names).not.toContain(gone);
    expect((await indexOf(bea).owned()).map((r) => [r.name, r.state]).sort()).toEqual([[kept, "live"], [made, "live"]].sort());
    expect((await bea.project({ action: "create", name: lost })).isError).toBe(false);
    // A create still running (pending for less than a minute, no project yet) is neither listed nor given up.
    const running = unique("running");
    await indexOf(bea).reserve(running, new Date().toISOString(), 100);
    expect(await listed(bea)).not.toContain(running);
    expect((await indexOf(bea).owned()).some((r) => r.name === running)).toBe(true);
  });

  it("lists the project a create made while a delete of its name finished (review 15: it was live and never listed)", async () => {
    await seed();
    const cy = await signInAs(`${unique("race")}@example.com`);
    // The order that lost it: the delete marks the name and destroys the project; a create, seeing no project, makes
    // it anew; then the delete's release came, and forgot the name the create had just made.
    const name = unique("race");
    expect((await cy.project({ action: "create", name })).isError).toBe(false);
    await indexOf(cy).mark(name, "deleting");
    await runInDurableObject(projectStub(cy.id, name), (_, state) => state.storage.deleteAll());
    await evictDurableObject(projectStub(cy.id, name));
    expect((await cy.project({ action: "create", name })).isError).toBe(false);
    // The delete's word comes last, older than the create's: the project's later change decides.
    await indexOf(cy).settle(name, { state: "deleted", seq: 1, until: new Date(Date.now() + 86_400_000).toISOString() });
    expect(await listed(cy)).toContain(name);
    // And at once, many times over: every project there is listed, and none that is not.
    const names = Array.from({ length: 6 }, () => unique("race"));
    for (const n of names) expect((await cy.project({ action: "create", name: n })).isError).toBe(false);
    await Promise.all(names.flatMap((n) => [cy.project({ action: "delete", name: n, confirm: n }), cy.project({ action: "create", name: n })]));
    const there = await Promise.all(names.map(async (n) => ((await cy.files({ action: "list", project: n })).isError ? undefined : n)));
    expect((await listed(cy)).filter((n) => names.includes(n)).sort()).toEqual(there.filter(Boolean).sort());
  });

  it("lists every live project and only those after creates, deletes and undeletes of one name at once (review 73)", async () => {
    await seed();
    const di = await signInAs(`${unique("race3")}@example.com`);
    const names = Array.from({ length: 6 }, () => unique("race3"));
    for (let round = 0; round < 3; round++) {
      await Promise.all(names.flatMap((n) => [
        di.project({ action: "create", name: n }),
        di.project({ action: "delete", name: n, confirm: n }),
        di.project({ action: "undelete", name: n }),
      ]));
      const live = await Promise.all(names.map(async (n) => ((await di.files({ action: "list", project: n })).isError ? undefined : n)));
      // The index's own rows, not only the listing (which asks projects about rows it doubts): a live project always has one.
      const rows = new Map((await indexOf(di).owned()).map((r) => [r.name, r.state]));
      expect(names.filter((n) => rows.get(n) === "live").sort(), `round ${round}`).toEqual(live.filter(Boolean).sort());
      expect((await listed(di)).filter((n) => names.includes(n)).sort(), `round ${round}`).toEqual(live.filter(Boolean).sort());
    }
  });
});
