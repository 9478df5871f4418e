/// <reference types="@cloudflare/vitest-plugin/types" />
// Project workspaces through a real SDK client in workerd, signed in through the real OAuth flow: the
// installer's files on create, versions, conflicts, odd paths, limits, and survival of a restart.
import { env } from "cloudflare:workers";
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { TOOL } from "../../src/core/surface/names.js";
import { MAX_FILE_BYTES } from "../../src/core/workspace/limits.js";
import type { WorkspaceProject } from "../../src/worker/workspace-do.js";
import { seed } from "./setup.js";
import { pastUndo, projectStub, shareAccepted, signInAs, unique, type Person } from "./workspace-users.js";

// Each test signs people in and runs many calls through workerd: on a busy 2-core machine that takes seconds.
vi.setConfig({ testTimeout: 30_000, hookTimeout: 60_000 });

let ada: Person;
let project: string;

beforeAll(async () => {
  await seed();
  ada = await signInAs(`${unique("ada")}@example.com`);
  project = unique("alpha");
  const created = await ada.project({ action: "create", name: project, answers: { core: { user_name: "Ada" } } });
  expect(created.isError, created.text).toBe(false);
});


describe("the default tools/list", () => {
  it("carries bmad-project and bmad-files and stays within 8 KB", async () => {
    const listed = await ada.client.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual(expect.arrayContaining([TOOL.bmadProject, TOOL.bmadFiles]));
    // Nor a tool that runs only where the project's files are (review 117), which still answers where it runs.
    expect(listed.tools.map((t) => t.name)).not.toContain(TOOL.runCompletionContract);
    // With the command that starts it, not a path in this repository, which a user of the remote has not got (review 213).
    expect((await ada.call(TOOL.runCompletionContract, {})).text).toBe("run_completion_contract needs your project's files: run it through the bmad-mcp bridge in your project (`node /path/to/bmad-mcp/dist/bridge.js --project /path/to/project` in the MCP client's config; built from this MCP server's source (its docs/bridge.md, not a file here)).");
    // As a client receives it: the JSON-RPC answer, envelope included (what the bench counts).
    expect(new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: 1, result: listed })).length).toBeLessThanOrEqual(8 * 1024);
  });
});

describe("a new project", () => {
  it("says when user_name is the installer's default, which BMAD's skills greet the user by", async () => {
    const bare = unique("bare");
    const created = await ada.project({ action: "create", name: bare });
    expect(created.text).toContain(`user_name is the installer's default ("BMad"), which BMAD's skills greet the user by: ask the user's name and set it with bmad-project {"action": "config", "name": "${bare}", "answers": {"core": {"user_name": "…"}}}.`);
    const named = await ada.project({ action: "create", name: unique("named"), answers: { core: { user_name: "Ada" } } });
    expect(named.text).not.toContain("user_name");
  });

  it("holds the installer's _bmad/ files and BMAD's scripts, and is listed", async () => {
    const listed = await ada.files({ action: "list", project, path: "_bmad/**" });
    for (const path of ["_bmad/config.toml", "_bmad/config.user.toml", "_bmad/core/config.yaml", "_bmad/bmm/config.yaml", "_bmad/_config/manifest.yaml", "_bmad/_config/bmad-help.csv", "_bmad/scripts/memlog.py"]) {
      expect(listed.text).toMatch(new RegExp(`^${path.replaceAll(".", "\\.")} v1( |$)`, "m")); // a config file without its size
    }
    expect((await ada.files({ action: "read", project, path: "_bmad/config.user.toml" })).text).toContain('user_name = "Ada"');
    expect((await ada.project({ action: "list" })).text).toContain(`${project} (yours)`);
  });

  it("shows its answers and rewrites only the config files they change", async () => {
    const shown = await ada.project({ action: "config", name: project });
    expect(shown.text).toContain('core.user_name = "Ada"');
    expect(shown.text).toMatch(/bmm\.planning_artifacts = default/);
    const set = await ada.project({ action: "config", name: project, answers: { core: { communication_language: "French" } } });
    expect(set.isError, set.text).toBe(false);
    expect(set.structured.changed).toContain("_bmad/config.user.toml");
    expect(set.structured.changed).not.toContain("_bmad/scripts/memlog.py");
    // The new answer is written, and the one given at create is kept.
    const config = (await ada.files({ action: "read", project, path: "_bmad/config.user.toml" })).text;
    expect(config).toContain('communication_language = "French"');
    expect(config).toContain('user_name = "Ada"');
    const again = await ada.project({ action: "config", name: project, answers: { core: { communication_language: "French" } } });
    expect(again.text).toContain("no file changed");
    const bad = await ada.project({ action: "config", name: project, answers: { core: { nope: "x" } } });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/Unknown question "core\.nope"/);
  });
});

describe("files", () => {
  it("keep every version with its author: history, read of an earlier version, restore", async () => {
    const path = "docs/prd.md";
    expect((await ada.files({ action: "write", project, path, content: "# PRD v1\n" })).structured.version).toBe(1);
    expect((await ada.files({ action: "append", project, path, content: "more\n" })).structured).toMatchObject({ version: 2, size: 14 });
    expect((await ada.files({ action: "write", project, path, content: "# PRD v3\n" })).structured.version).toBe(3);
    const history = await ada.files({ action: "history", project, path });
    expect(history.structured.versions.map((v: { version: number; op: string }) => `${v.version}:${v.op}`)).toEqual(["3:write", "2:append", "1:write"]);
    expect(history.structured.versions[0].author).toBe(ada.email);
    expect((await ada.files({ action: "read", project, path, version: 2 })).text).toContain("# PRD v1\nmore\n");
    // A whole number sent as a string, as some clients send them, is that number (review 117); nothing else is.
    expect((await ada.files({ action: "read", project, path, version: "2" })).text).toContain("# PRD v1\nmore\n");
    for (const version of ["2.0", "02", " 2", "two", ""]) expect((await ada.files({ action: "read", project, path, version })).text, version).toMatch(/^Invalid arguments for bmad-files: "version": Invalid input: expected number, received string \(restore, unpurge, read: that version; history: those before it\)\.$/);
    const restored = await ada.files({ action: "restore", project, path, version: 1 });
    expect(restored.structured).toMatchObject({ version: 4 });
    expect((await ada.files({ action: "read", project, path })).text).toMatch(/version 4[^\n]*\n# PRD v1\n$/);
    expect((await ada.files({ action: "history", project, path })).text).toContain("v4 restore of v1");
    const deleted = await ada.files({ action: "delete", project, path });
    expect(deleted.text).toContain("version 5");
    expect((await ada.files({ action: "read", project, path })).text).toMatch(/was deleted \(version 5\)/);
    expect((await ada.files({ action: "restore", project, path, version: 5 })).text).toMatch(/is its deletion/);
    expect((await ada.files({ action: "restore", project, path, version: 3 })).structured.version).toBe(6);
    expect((await ada.files({ action: "read", project, path, version: 99 })).text).toMatch(/newest version is 6; there is no version 99/);
  });

  it("refuse a change made against a version that is no longer current, naming the current one", async () => {
    const path = "docs/arch.md";
    expect((await ada.files({ action: "write", project, path, content: "a", if_version: 0 })).isError).toBe(false);
    const again = await ada.files({ action: "write", project, path, content: "b", if_version: 0 });
    expect(again.isError).toBe(true);
    expect(again.text).toMatch(/Conflict: docs\/arch\.md is at version 1 \(by .*\), not version 0\. .*if_version 1/);
    expect((await ada.files({ action: "append", project, path, content: "b", if_version: 1 })).structured.version).toBe(2);
    for (const args of [{ action: "write", content: "c" }, { action: "append", content: "c" }, { action: "delete" }, { action: "restore", version: 1 }]) {
      const stale = await ada.files({ project, path, if_version: 1, ...args });
      // A delete or a restore over newer work is not "merged": asked of the user (review 322: retried as advised, a
      // delete removed a member's newer version).
      const fix = args.action === "delete" || args.action === "restore" ? `Nothing was changed\\. Read it, and ask your user whether to ${args.action === "delete" ? "delete" : "restore over"} it still \\(if_version 2\\)\\.$` : "retry with if_version 2";
      expect(stale.text, args.action).toMatch(new RegExp(`Conflict: docs/arch\\.md is at version 2 \\(by you, .*${fix}`));
    }
    // An append starts on a line of its own where the file's last has no line break (review 275).
    expect((await ada.files({ action: "read", project, path })).text).toMatch(/\na\nb$/);
    expect((await ada.files({ action: "write", project, path: "docs/none.md", content: "x", if_version: 3 })).text).toMatch(/does not exist now \(version 0\), not version 3/);
  });

  it("edit the one place a text is, as a new version, and refuse an edit that names none or many", async () => {
    const path = "_bmad-output/edit.md";
    expect((await ada.files({ action: "write", project, path, content: "---\nstatus: draft\n---\n# Goals\n- one\n- one\n" })).isError).toBe(false);
    const edited = await ada.files({ action: "edit", project, path, old: "status: draft", content: "status: final" });
    expect(edited.text).toBe("Edited _bmad-output/edit.md: now version 2, 42 bytes.");
    // History names it an edit (review 315: a "write").
    expect((await ada.files({ action: "history", project, path })).structured.versions.map((v: { op: string }) => v.op)).toEqual(["edit", "write"]);
    expect((await ada.files({ action: "read", project, path })).text).toMatch(/\]\n---\nstatus: final\n---\n# Goals\n- one\n- one\n$/);
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      // Text an earlier version held: the version that changed it is named, to merge into (review 188).
      [{ old: "status: draft", content: "x" }, /^"old" is not in _bmad-output\/edit\.md \(version 2\): nothing was changed\. It was in version 1; version 2, by \S+, changed that text since: read version 2, merge your change into it, and edit again\.$/],
      [{ old: "status:  final", content: "x" }, /^"old" is not in _bmad-output\/edit\.md \(version 2\): nothing was changed\. Give the text exactly as the file has it/],
      [{ old: "- one", content: "- two" }, /^"old" is in _bmad-output\/edit\.md 2 times \(version 2\): nothing was changed\. Give more of the text around it/],
      [{ old: "# Goals", content: "# Aims", if_version: 1 }, /^_bmad-output\/edit\.md is at version 2 \(by you at [^)]+\), not 1: nothing was changed\. Read it again, and edit that version \(if_version 2\)\.$/],
      [{ old: "", content: "x" }, /^bmad-files "edit" needs "old" \(the text to replace, exactly as read\) and "content"/],
      [{ old: "# Goals" }, /needs "old" .* and "content"/],
    ];
    for (const [args, refusal] of refusals) {
      const out = await ada.files({ action: "edit", project, path, ...args });
      expect(out.isError, JSON.stringify(args)).toBe(true);
      expect(out.text).toMatch(refusal);
    }
    expect((await ada.files({ action: "edit", project, path: "docs/none.md", old: "a", content: "b" })).text).toBe('docs/none.md is not in this project: bmad-files "write" creates it.');
    // A path no tool changes is refused as a write's, before its text is looked at (review 350: told to "write" it).
    expect((await ada.files({ action: "edit", project, path: ".envrc", old: "a", content: "b" })).text).toMatch(/^Path "\.envrc" decides what code runs here/);
    // A new file refused for a leading dot alone is told the name to take instead (review 474).
    for (const dotted of ["notes/.draft.md", "skills/..%2f..%2fx/workflow.md"]) {
      expect((await ada.files({ action: "write", project, path: dotted, content: "x" })).text).toBe(`Path "${dotted}" decides what code runs here (an install record, or a tool's own settings: dot-files and dot-folders, many of which start programs by themselves): tools never change it. For a file of your own, choose a name that does not start with "." (the user edits dot-files themselves).`);
    }
    expect((await ada.files({ action: "write", project, path: "_bmad/_config/files-manifest.csv", content: "x" })).text).toMatch(/tools never change it\. The user edits it themselves\.$/);
    expect((await ada.files({ action: "edit", project, path: "tools/scripts/x.py", old: "a", content: "b" })).text).toMatch(/^Path "tools\/scripts\/x\.py" is in a scripts\/ folder/);
    // "" removes the text; the history holds each change.
    expect((await ada.files({ action: "edit", project, path, old: "- one\n- one\n", content: "", if_version: 2 })).structured.version).toBe(3);
    expect((await ada.files({ action: "read", project, path })).text).toMatch(/\]\n---\nstatus: final\n---\n# Goals\n$/);
    expect((await ada.files({ action: "history", project, path })).structured.versions).toHaveLength(3);
    // An edit that would change nothing makes no version (review 116).
    expect((await ada.files({ action: "edit", project, path, old: "# Goals", content: "# Goals" })).text).toBe('Nothing to change: "old" and "content" are the same; _bmad-output/edit.md stays at version 3.');
    // A file no pull brings says so where it is written (review 111: dev-story's code stayed on the remote unsaid), first
    // (review 213: after the version, it read as a footnote).
    expect((await ada.files({ action: "write", project, path: "src/app.ts", content: "export {};\n" })).text).toBe("Note: bmad-mcp pull leaves src/app.ts on the remote: outside _bmad/, _bmad-output/ and .claude/specs/, the folders pull writes: copy it by hand if you want it.\nWrote src/app.ts: now version 1, 11 bytes.");
    expect((await ada.files({ action: "write", project, path: "_bmad-output/run.sh", content: "echo\n" })).text).toMatch(/^Note: bmad-mcp pull leaves _bmad-output\/run\.sh on the remote: not a document.*\.\nWrote _bmad-output\/run\.sh: now version 1, 5 bytes\.$/);
  });

  it("take whole characters only: half of one is refused, naming where it is, and nothing is stored (review 197)", async () => {
    const path = "docs/half.md";
    expect((await ada.files({ action: "write", project, path, content: "# Goals 🙂 ship\n" })).structured.version).toBe(1);
    // Both were acknowledged, and the file held U+FFFD where the half character was sent.
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ action: "edit", old: "# Goals \ud83d", content: "# Aims " }, '"old" holds half a character (an unpaired UTF-16 surrogate) at position 8'],
      [{ action: "write", content: "ok \ud800 end" }, '"content" holds half a character (an unpaired UTF-16 surrogate) at position 3'],
      [{ action: "append", content: "\ude42 tail" }, '"content" holds half a character (an unpaired UTF-16 surrogate) at position 0'],
      [{ action: "write", content: "x", "n\ud800": 1 }, "arguments has a key holding half a character (an unpaired UTF-16 surrogate)"],
    ];
    for (const [args, why] of refusals) {
      const out = await ada.files({ project, path, ...args });
      expect(out.isError, JSON.stringify(args)).toBe(true);
      expect(out.text).toBe(`Invalid arguments for bmad-files: ${why}: send whole characters.`);
    }
    const read = await ada.files({ action: "read", project, path });
    expect([read.structured.version, read.text.endsWith("\n# Goals 🙂 ship\n")]).toEqual([1, true]);
    // Nested, too: an answer inside answers.core.
    const created = await ada.project({ action: "create", name: unique("half"), answers: { core: { user_name: "Ad\udc00a" } } });
    expect(created.text).toBe('Invalid arguments for bmad-project: "answers.core.user_name" holds half a character (an unpaired UTF-16 surrogate) at position 2: send whole characters.');
  });

  // Review 275: a Latin-1 file read as text with U+FFFD and written back replaced the user's bytes unsaid; a write of a
  // read dropped the BOM; an append ran into the file's last line or mixed line endings.
  it("read a file that is not UTF-8 saying so, change it only by its version, keep a BOM, and append and edit in a CRLF file's endings", async () => {
    const caller = ada.store().caller;
    const bytes = (path: string) => runInDurableObject(projectStub(ada.id, project), (instance: WorkspaceProject) => {
      const read = instance.read(caller, path);
      return read.ok ? [...read.value.data] : [];
    });
    const text = async (path: string) => new TextDecoder().decode(new Uint8Array(await bytes(path)));
    const latin1 = [...new TextEncoder().encode("caf"), 0xe9, 0x0a];
    const bom = [0xef, 0xbb, 0xbf, ...new TextEncoder().encode("# Title\nbody\n")];
    await runInDurableObject(projectStub(ada.id, project), (instance: WorkspaceProject) => {
      for (const [path, data] of [["bytes/latin.md", latin1], ["bytes/bom.md", bom]] as const) instance.write(caller, path, new Uint8Array(data), undefined, undefined, new Date().toISOString());
    });
    const read = await ada.files({ action: "read", project, path: "bytes/latin.md" });
    expect(read.structured).toMatchObject({ version: 1, not_utf8: true });
    expect(read.text).toContain("not UTF-8: its text here has U+FFFD for each byte that is not, and is not its bytes");
    const refused = await ada.files({ action: "write", project, path: "bytes/latin.md", content: "caf\ufffd\n" });
    expect(refused.text).toBe('bytes/latin.md is not UTF-8 text (version 1): a read shows U+FFFD for its bytes that are not. Nothing was changed: a write replaces its bytes. To do it knowingly, give "if_version": 1; to keep its text, the user saves it as UTF-8 first.');
    expect((await ada.files({ action: "append", project, path: "bytes/latin.md", content: "more\n" })).isError).toBe(true);
    expect(await bytes("bytes/latin.md")).toEqual(latin1);
    expect((await ada.files({ action: "write", project, path: "bytes/latin.md", content: "café\n", if_version: 1 })).isError).toBe(false);
    expect((await ada.files({ action: "restore", project, path: "bytes/latin.md", version: 1 })).isError).toBe(false);
    expect((await ada.files({ action: "restore", project, path: "bytes/latin.md", version: 2 })).text).toContain('a restore replaces its bytes. To do it knowingly, give "if_version": 3');
    expect(await bytes("bytes/latin.md")).toEqual(latin1);
    // A read shows no BOM; written back, the file keeps it.
    expect((await ada.files({ action: "read", project, path: "bytes/bom.md" })).text).toMatch(/\]\n?# Title\nbody\n$/);
    expect((await ada.files({ action: "write", project, path: "bytes/bom.md", content: "# Title\nBODY\n" })).isError).toBe(false);
    expect(await bytes("bytes/bom.md")).toEqual([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("# Title\nBODY\n")]);
    // Said in the read; a memlog's is dropped by a whole write, as BMAD's memlog.py reads no frontmatter after one
    // (review 280: a model's rewrite without it got it back, and every append failed).
    expect((await ada.files({ action: "read", project, path: "bytes/bom.md" })).text).toContain("starts with a byte order mark, which a whole write keeps");
    const memlog = "bytes/run/.memlog.md";
    await ada.files({ action: "write", project, path: memlog, content: "\ufeff---\ntopic: x\n---\n" });
    expect((await bytes(memlog)).slice(0, 3)).toEqual([0xef, 0xbb, 0xbf]);
    expect((await ada.files({ action: "write", project, path: memlog, content: "---\ntopic: x\n---\n" })).isError).toBe(false);
    expect(await text(memlog)).toBe("---\ntopic: x\n---\n");
    await ada.files({ action: "write", project, path: "bytes/crlf.md", content: "one\r\ntwo" });
    expect((await ada.files({ action: "append", project, path: "bytes/crlf.md", content: "three\nfour\n" })).isError).toBe(false);
    expect(await text("bytes/crlf.md")).toBe("one\r\ntwo\r\nthree\r\nfour\r\n");
    expect((await ada.files({ action: "edit", project, path: "bytes/crlf.md", old: "two\nthree", content: "2\n3" })).isError).toBe(false);
    expect(await text("bytes/crlf.md")).toBe("one\r\n2\r\n3\r\nfour\r\n");
  });

  it("list by glob in linear time over 1,000 files", async () => {
    // Real writes, made inside the object: one round trip instead of 1,000.
    const data = new TextEncoder().encode("x".repeat(100));
    const caller = ada.store().caller;
    const written = await runInDurableObject(projectStub(ada.id, project), (instance: WorkspaceProject) => {
      let ok = 0;
      for (let i = 0; i < 1000; i++) ok += instance.write(caller, `bulk/${i % 10}/f${i}.md`, data, undefined, undefined, new Date().toISOString()).ok ? 1 : 0;
      return ok;
    });
    expect(written).toBe(1000);
    const all = await ada.files({ action: "list", project, path: "bulk/**" });
    expect(all.structured.total).toBe(1000);
    expect((await ada.files({ action: "list", project, path: "bulk/3/*.md" })).structured.total).toBe(100);
    const started = Date.now();
    const hostile = await ada.files({ action: "list", project, path: `${"*".repeat(30)}Q` });
    expect(hostile.structured.total).toBe(0);
    expect(Date.now() - started).toBeLessThan(1000);
    expect((await ada.files({ action: "list", project, path: "*".repeat(600) })).text).toMatch(/at most 520/);
    // Linear is not small: a 246-character, 32-wildcard pattern over 300 paths of 500 characters would walk about
    // 36 million steps. It is refused whole, within its work budget, not answered in part.
    const tail = `a${"b".repeat(188)}.md`;
    await runInDurableObject(projectStub(ada.id, project), (instance: WorkspaceProject) => {
      // About 500 characters in 30 names (a path holds at most 32).
      for (let i = 0; i < 300; i++) instance.write(caller, `deep/${"ababababab/".repeat(27)}${i}/${tail}`, data, undefined, undefined, new Date().toISOString());
    });
    const costly = await ada.files({ action: "list", project, path: `${"*a".repeat(31)}${"b".repeat(180)}*.md` });
    expect(costly.isError).toBe(true);
    expect(costly.text).toMatch(/costs too much to match against .*'s files: give it a longer literal start/);
    expect((await ada.files({ action: "list", project, path: `deep/**/${tail}` })).structured.total).toBe(300);
    // Past the first 1,000, only the folders holding the rest are named: `_bmad/`, sorted first and shown whole, costs
    // a pull's walk no call (review 115: 250 small folders ran it out of calls).
    const listed = await ada.files({ action: "list", project, path: "**" });
    const everything = listed.structured;
    // And the text says where, in full paths, with the glob for each (review 477: docs/ went unsaid).
    expect(listed.text.split("\n").at(-1)).toMatch(/^The rest: deep\/ \(300\), bulk\/ \(\d+\)(, [a-z]+\/ \(\d+\))*(, \d+ directly in the top folder)?; list each with its own glob, e\.g\. "deep\/\*\*"\.$/);
    expect(everything.total).toBeGreaterThan(1300);
    expect(everything.folders).toContain("deep");
    expect(everything.folders).not.toContain("_bmad");
  });
});

describe("a data file served whole", () => {
  it("is changed as any file, however its keys are named (review 260: package.json with jsonwebtoken could never be)", async () => {
    const room = unique("manifests");
    expect((await ada.project({ action: "create", name: room })).isError).toBe(false);
    const pkg = (version: string) => `{\n  "version": "${version}",\n  "dependencies": {\n    "cookie-parser": "^1.4.6",\n    "jsonwebtoken": "^9.0.0"\n  }\n}\n`;
    const i18n = '{"login": {"password": "Password", "token": "Access token"}}\n';
    for (const [path, first, then] of [["package.json", pkg("1.0.0"), pkg("1.1.0")], ["i18n/en.json", i18n, i18n.replace("Password", "Your password")]] as const) {
      expect((await ada.files({ action: "write", project: room, path, content: first })).isError).toBe(false);
      expect((await ada.files({ action: "read", project: room, path })).text).toContain(first.slice(0, 30));
      const again = await ada.files({ action: "write", project: room, path, content: then });
      expect(again.isError, again.text).toBe(false);
      expect((await ada.files({ action: "read", project: room, path })).text).toContain(then.slice(0, 40));
    }
  });
});

describe("a secret under a dotted key, or a private key in a file not named as one", () => {
  it("is served to a reader of a share without it, and a private key is taken under no name (review 429)", async () => {
    const reader = await signInAs(`${unique("reader")}@example.com`);
    const room = unique("dotted");
    expect((await ada.project({ action: "create", name: room })).isError).toBe(false);
    await shareAccepted(ada, room, reader, "read");
    const files: Record<string, string> = {
      "src/main/resources/application.properties": "server.port=8080\nstripe.api.key=Zq9vR2xLm7Tt4Kp1DOTTEDA\napp.encryption.key=Zq9vR2xLm7Tt4Kp1DOTTEDB\n",
      "_bmad/custom/config.yaml": "user_name: Ada\nopenai.key: Zq9vR2xLm7Tt4Kp1DOTTEDC\nAPI.KEY: Zq9vR2xLm7Tt4Kp1DOTTEDD\n",
      "_bmad/config.user.toml": '[core]\nuser_name = "Ada"\njira_login = "ada@example.com:Zq9vR2xLm7Tt4Kp1DOTTEDE"\ndb_conn_b64 = "cG9zdGdyZXM6Ly9hZG1pbjpodW50ZXIyQGRiL3Byb2Q="\n',
    };
    for (const [path, content] of Object.entries(files)) {
      const wrote = await ada.files({ action: "write", project: room, path, content });
      expect(wrote.isError, wrote.text).toBe(false);
      const read = await reader.files({ action: "read", project: room, path });
      const resource = (await reader.client.readResource({ uri: `bmad://projects/${room}/${path}` })).contents[0] as { text: string };
      for (const body of [read.text, resource.text]) {
        expect(body, path).toContain("secret-looking keys removed by bmad-mcp");
        expect(body, path).not.toMatch(/DOTTED|cG9zdGdyZXM6/);
      }
      expect(read.text, path).toMatch(/server\.port=8080|user_name/);
    }
    // A private key is refused in a file whatever it is called: ssh-keygen's default name, a copy as text.
    const key = ["-----BEGIN OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", "-----END OPENSSH PRIVATE KEY-----", ""].join("\n");
    for (const path of ["deploy_key", "keys/deploy_key.txt"]) {
      const wrote = await ada.files({ action: "write", project: room, path, content: key });
      expect([wrote.isError, wrote.text], path).toEqual([true, expect.stringMatching(/secret/)]);
      expect((await reader.files({ action: "read", project: room, path })).text, path).not.toContain("PRIVATE KEY");
    }
  });
});

describe("a token-shaped secret", () => {
  // Assembled, so that this file holds no token of that shape itself.
  const token = ["ghp", "Zq9vR2mK7xT4wP1sL8nB3cD6fG0hJ5kY2aE7"].join("_");
  const refusal = (path: string, line: number, word: string) =>
    `${path} would hold what looks like a secret (line ${line}, "${word}…"): a project's files are shown to its members and pulled with it, so keep the secret out. Nothing was written: replace it with a placeholder such as <your-token> (and say where the secret is kept).`;

  it("is refused in a document for the owner and a writer alike, by write, append, edit, restore and a script's memlog append (review 250)", async () => {
    const writer = await signInAs(`${unique("writer")}@example.com`);
    const room = unique("tokens");
    expect((await ada.project({ action: "create", name: room })).isError).toBe(false);
    await shareAccepted(ada, room, writer, "write");
    const path = "docs/ops.md";
    // A placeholder is what the fix says to write: it is kept.
    const placeholder = "# Ops\nUse `export GITHUB_TOKEN=<your-token>`.\n";
    expect((await ada.files({ action: "write", project: room, path, content: placeholder })).structured.version).toBe(1);
    const memlog = "_bmad-output/ops-run/.memlog.md";
    const root = `bmad://projects/${room}`;
    const init = await ada.call(TOOL.bmadRun, { project: room, command: `uv run ${root}/_bmad/scripts/memlog.py init --workspace ${root}/_bmad-output/ops-run` });
    expect(init.structured.exit_code, init.text).toBe(0);
    const logged = (await ada.files({ action: "read", project: room, path: memlog })).text;
    for (const who of [ada, writer]) {
      const tries: Array<[Record<string, unknown>, number]> = [
        [{ action: "write", content: `# Ops\nUse \`export GITHUB_TOKEN=${token}\`.\n` }, 2],
        [{ action: "append", content: `GITHUB_TOKEN=${token}\n` }, 3],
        [{ action: "edit", old: "<your-token>", content: token }, 2],
      ];
      for (const [args, line] of tries) {
        const out = await who.files({ project: room, path, ...args });
        expect(out.isError, `${who.email} ${args.action}`).toBe(true);
        expect(out.text).toBe(refusal(path, line, "GITHUB_T"));
      }
      const appended = await who.call(TOOL.bmadRun, { project: room, command: `uv run ${root}/_bmad/scripts/memlog.py append --workspace ${root}/_bmad-output/ops-run --type event --text "token: ${token}"` });
      expect(appended.structured.exit_code, appended.text).not.toBe(0);
      expect(appended.text).toContain("would hold what looks like a secret");
      expect(appended.text).toContain("<your-token>");
    }
    // Nothing was written: both files are as they were.
    expect((await ada.files({ action: "read", project: room, path })).structured.version).toBe(1);
    expect((await ada.files({ action: "read", project: room, path: memlog })).text).toBe(logged);
    // A version kept from before the refusal does not come back by restore.
    const caller = ada.store().caller;
    await runInDurableObject(projectStub(ada.id, room), (instance: WorkspaceProject) => {
      instance.files.commit(path, new TextEncoder().encode(`token ${token}\n`), "write", { id: caller.id, label: caller.label }, new Date().toISOString());
      instance.files.commit(path, new TextEncoder().encode(placeholder), "write", { id: caller.id, label: caller.label }, new Date().toISOString());
    });
    expect((await writer.files({ action: "restore", project: room, path, version: 2 })).text).toBe(refusal(path, 1, "ghp_Zq9v"));
    // A config keeps its own rules: served without its secret-looking keys, the owner's to change.
    expect((await ada.files({ action: "write", project: room, path: "_bmad/custom/config.toml", content: `[core]\ngithub_token = "${token}"\n` })).isError).toBe(false);
  });

  it("is refused where what a change keeps makes what it adds a secret, or the reverse (review 306)", async () => {
    const room = unique("context");
    expect((await ada.project({ action: "create", name: room })).isError).toBe(false);
    const password = ["Xk9#", "mPq2vL!w"].join("");
    const step = async (path: string, first: Record<string, unknown>, then: Record<string, unknown>) => {
      expect((await ada.files({ project: room, path, ...first })).isError, `${path} first`).toBe(false);
      const out = await ada.files({ project: room, path, ...then });
      expect(out.isError, `${path}: ${out.text}`).toBe(true);
      expect(out.text).toContain("would hold what looks like a secret");
    };
    // A whole write is judged whole: a header renamed over kept rows, a settings fence put around a kept line.
    await step("docs/table.md", { action: "write", content: `| name | note |\n|---|---|\n| db | ${password} |\n` }, { action: "write", content: `| name | password |\n|---|---|\n| db | ${password} |\n` });
    await step("docs/fence.md", { action: "write", content: "Settings:\n\nPOSTGRES_PASSWORD: acmeprod2024\n" }, { action: "write", content: "Settings:\n\n```yaml\nPOSTGRES_PASSWORD: acmeprod2024\n```\n" });
    // An append is judged with what it joins: a row under a `password` column (a copy of a kept row too), a value in a
    // settings fence left open.
    await step("docs/rows.md", { action: "write", content: "| name | password |\n|---|---|\n" }, { action: "append", content: `| db | ${password} |\n` });
    await step("docs/copy.md", { action: "write", content: `| name | note |\n|---|---|\n| db | ${password} |\n\n` }, { action: "append", content: `| name | password |\n|---|---|\n| db | ${password} |\n` });
    await step("docs/open.md", { action: "write", content: "```yaml\nservice: db\n" }, { action: "append", content: "POSTGRES_PASSWORD: acmeprod2024\n" });
    // Nor where what it joins is far above or in another block (review 308): a header 70 rows up, a Gherkin block before
    // a blank line, a PuTTY key's second half, a settings fence after a closed one.
    const rows = Array.from({ length: 70 }, (_, i) => `| user${i} | n/a |`).join("\n");
    await step("docs/accounts.md", { action: "write", content: `## Accounts\nSeeded users:\n| user | password |\n|---|---|\n${rows}\n` }, { action: "append", content: `| admin | ${password} |\n` });
    await step("docs/qa.md", { action: "write", content: "# QA notes\n" }, { action: "append", content: `Scenario: login\nGiven a user\n\nThe admin password is ${password}\n` });
    await step("docs/key.md", { action: "write", content: "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: ops\nPublic-Lines: 1\nAAAAC3NzaC1lZDI1NTE5AAAAIDq9c1pX0k2mWq7zPr4mK2xLs8nB3cD6fG0hJ5kY2aE7\n" }, { action: "append", content: "\nPrivate-Lines: 1\nAAAAIDq9c1pX0k2mWq7zPr4mK2xLs8nB3cD6fG0hJ5kY2aE7Zq9vR2mK7xT4wP1s\nPrivate-MAC: 8f3a9c2b7e1d4f6a\n" });
    await step("docs/compose.md", { action: "write", content: `\`\`\`\nx\n\`\`\`\n\`\`\`yaml\n${"a: 1\n".repeat(70)}` }, { action: "append", content: "POSTGRES_PASSWORD: acmeprod2024\n```\n" });
    // Lines that only follow others are still taken: an entry after the header, with nothing secret.
    expect((await ada.files({ action: "append", project: room, path: "docs/rows.md", content: "| db | <your-password> |\n" })).isError).toBe(false);
  });

  it("names the line a secret read only in context is given on, and the open fence that makes it a setting (review 316-6)", async () => {
    const room = unique("placed");
    expect((await ada.project({ action: "create", name: room })).isError).toBe(false);
    const path = "_bmad-output/planning-artifacts/notes.md";
    expect((await ada.files({ action: "write", project: room, path, content: "# Team notes\n\n- kickoff done\n" })).isError).toBe(false);
    expect((await ada.files({ action: "append", project: room, path, content: "\nExample env:\n```env\nLOG_LEVEL=debug\n" })).isError).toBe(false);
    const fenced = await ada.files({ action: "append", project: room, path, content: "\n## Auth\ntoken: refreshed every 24h\n" });
    expect(fenced.isError, fenced.text).toBe(true);
    expect(fenced.text).toContain(`${path} would hold what looks like a secret (line 10, read as a setting: the fence opened on line 6 makes the lines in it read as settings, so close it where they end):`);
    // Closed, the same lines are taken.
    expect((await ada.files({ action: "append", project: room, path, content: "```\n\n## Auth\ntoken: refreshed every 24h\n" })).isError).toBe(false);
    // A row under a `password` column far above: the row's line, read with the lines above it.
    const rows = "| name | password |\n|---|---|\n" + "| user | n/a |\n".repeat(5);
    expect((await ada.files({ action: "write", project: room, path: "docs/rows.md", content: rows })).isError).toBe(false);
    const row = await ada.files({ action: "append", project: room, path: "docs/rows.md", content: `| admin | ${["Xk9#", "mPq2vL!w"].join("")} |\n` });
    expect(row.text).toContain("docs/rows.md would hold what looks like a secret (line 8, read with the lines above it):");
  });
});

describe("paths", () => {
  const refused: Array<[string, RegExp]> = [
    ["../escape.md", /'\.\.'|"\.\."/],
    ["docs/../../x", /"\.\."|'\.\.'/],
    ["a/./b", /"\." or empty segment/],
    ["././a", /"\." or empty segment/],
    ["a/", /empty segment/],
    ["/etc/passwd", /absolute/],
    ["C:/x", /absolute/],
    ["a\\b", /backslash/],
    ["a\u0000b", /control character/],
    ["a\nb", /control character/],
    ["x".repeat(10_000), /10000 characters; at most 512/],
    ["", /empty/],
  ];

  it("are refused through bmad-files before anything is stored, each with its reason", async () => {
    for (const [path, why] of refused) {
      for (const action of ["write", "read", "history", "delete"]) {
        const out = await ada.files({ action, project, path, content: "x" });
        expect(out.isError, `${action} ${JSON.stringify(path.slice(0, 20))}`).toBe(true);
        expect(out.text, `${action} ${JSON.stringify(path.slice(0, 20))}`).toMatch(why);
      }
    }
    const listed = (await ada.files({ action: "list", project, path: "**" })).structured.files.map((f: { path: string }) => f.path);
    expect(listed.filter((p: string) => !/^(_bmad|_bmad-output|src|docs|bulk)\//.test(p))).toEqual([]);
  });

  it("make no folder named ~, ~user or $HOME for a path a shell would expand, by bmad-files or a script, and read one already there (fix 414)", async () => {
    const cases: Array<[string, string, string]> = [
      ["~/x.md", "be in the home folder", "_bmad-output/x.md"],
      ["~root/m3.md", "be in the home folder of the user root", "_bmad-output/m3.md"],
      ["$HOME/notes.md", "use the value of HOME", "_bmad-output/notes.md"],
      ["${HOME}/notes.md", "use the value of HOME", "_bmad-output/notes.md"],
      ["docs/$USER/notes.md", "use the value of USER", "docs/notes.md"],
    ];
    for (const [path, meant, example] of cases) {
      const said = `Path "${path}" would ${meant} in a shell; no tool expands "${path.split("/").find((p) => /^[~$]/.test(p))}", and tools reach only the project: give a path in it, such as ${example}.`;
      for (const action of ["write", "append"]) {
        const out = await ada.files({ action, project, path, content: "x" });
        expect(out.isError, `${action} ${path}`).toBe(true);
        expect(out.text, `${action} ${path}`).toBe(said);
      }
    }
    // A script's own path is refused before it runs, named whole; and by the workspace's file system where no check sees it.
    for (const [command, path] of [
      ["uv run {project-root}/_bmad/scripts/memlog.py init --path ~root/m3.md", "~root/m3.md"],
      ["uv run {skill-root}/scripts/brain.py html --out ~/b.html", "~/b.html"],
      ["uv run {project-root}/_bmad/scripts/memlog.py init --workspace $HOME/run", "$HOME/run"],
    ]) {
      const out = await ada.call(TOOL.bmadRun, { command, project });
      expect(out.isError, command).toBe(true);
      expect(out.text, command).toContain(`Path "${path}" would`);
    }
    expect((await ada.files({ action: "list", project, path: "**" })).structured.files.map((f: { path: string }) => f.path).filter((p: string) => /(^|\/)[~$]/.test(p))).toEqual([]);
    // One made before the rule is read as it is: what exists is not hidden.
    const { id, label } = ada.store().caller;
    await runInDurableObject(projectStub(ada.id, project), (o: WorkspaceProject) => o.files.transaction(() => o.files.commit("~/old.md", new TextEncoder().encode("old\n"), "write", { id, label }, new Date().toISOString())));
    expect((await ada.files({ action: "read", project, path: "~/old.md" })).text).toContain("old");
    // And changed and deleted as it is (review 432: refused as every change, it could not be removed).
    expect((await ada.files({ action: "append", project, path: "~/old.md", content: "more\n" })).isError).toBe(false);
    expect((await ada.files({ action: "delete", project, path: "~/old.md" })).isError).toBe(false);
    expect((await ada.files({ action: "write", project, path: "~/old.md", content: "again\n" })).text).toContain('Path "~/old.md" would be in the home folder');
  });

  it("make no name a pull to Windows cannot write as itself (review 109), and take the names beside them", async () => {
    const names: Array<[string, RegExp]> = [
      ["_bmad-output/a:b.md", /has ":" in a name, which Windows cannot hold/], ["_bmad-output/q?.md", /"\?"/], ['_bmad-output/say".md', /"\""/],
      ["_bmad-output/p|x/y.md", /"\|"/], ["_bmad-output/st*r.md", /"\*"/], ["_bmad-output/lt<gt>.md", /"<"/],
      ["_bmad-output/trail.md.", /ending in a dot or a space/], ["_bmad-output/trail.md ", /ending in a dot or a space/],
      ["_bmad-output/CON.md", /"CON\.md", a device's name on Windows/], ["_bmad-output/nul", /device's name/], ["_bmad-output/Com1.tar.gz", /device's name/], ["_bmad-output/lpt9 .md", /device's name/], ["aux/x.md", /device's name/],
      ["_bmad-output/CONIN$", /device's name/], ["_bmad-output/conout$.md", /device's name/], ["_bmad-output/CLOCK$", /device's name/],
    ];
    for (const [path, why] of names) {
      for (const action of ["write", "append"]) expect((await ada.files({ action, project, path, content: "x" })).text, `${action} ${path}`).toMatch(why);
    }
    for (const path of ["_bmad-output/console.md", "_bmad-output/com10.md", "_bmad-output/nul-check.md", "_bmad-output/CONFIG.md", "_bmad-output/a b.md"]) {
      expect((await ada.files({ action: "write", project, path, content: "x" })).isError, path).toBe(false);
    }
    // One made before the rule is still changed, removed and brought back by its name (review 119: none could be deleted).
    const { id, label } = ada.store().caller;
    await runInDurableObject(projectStub(ada.id, project), (o: WorkspaceProject) => o.files.transaction(() => o.files.commit("_bmad-output/a:b.md", new TextEncoder().encode("old\n"), "write", { id, label }, new Date().toISOString())));
    expect((await ada.files({ action: "write", project, path: "_bmad-output/a:b.md", content: "new\n" })).isError).toBe(false);
    expect((await ada.files({ action: "delete", project, path: "_bmad-output/a:b.md" })).isError).toBe(false);
    expect((await ada.files({ action: "restore", project, path: "_bmad-output/a:b.md", version: 2 })).text).toMatch(/has ":" in a name/);
    // BMAD names files by the project's name: one no file name may hold is refused where it is given (review 119).
    const named = await ada.project({ action: "config", name: project, answers: { core: { project_name: "Acme: Phase 2." } } });
    expect(named.text).toBe('Answer core.project_name ("Acme: Phase 2.") goes into the names of files BMAD writes (prd-{project_name}-{date}), and it holds a character no file name may (/ \\ < > : " | ? *), ends in a dot or a space, or is a device\'s name on Windows: give it without them, e.g. "Acme- Phase 2".');
    expect((await ada.project({ action: "config", name: project, answers: { core: { project_name: "CON" } } })).text).toMatch(/e\.g\. "CON-app"\.$/);
  });

  it("take percent-escapes literally in tools and decode them once in bmad:// URIs", async () => {
    expect((await ada.files({ action: "write", project, path: "%2e%2e/literal.md", content: "kept as named" })).isError).toBe(false);
    expect((await ada.files({ action: "read", project, path: "%2e%2e/literal.md" })).text).toContain("kept as named");
    const read = (uri: string) => ada.client.readResource({ uri });
    expect((await read(`bmad://projects/${project}/docs/arch.md`)).contents[0]).toMatchObject({ mimeType: "text/markdown", text: "a\nb" });
    expect((await read(`bmad://projects/${project}/%252e%252e/literal.md`)).contents[0]).toMatchObject({ text: "kept as named" });
    for (const [uri, why] of [
      [`bmad://projects/${project}/%2e%2e/secret`, /"\.\."/],
      [`bmad://projects/${project}/..%2fsecret`, /"\.\."/],
      [`bmad://projects/${project}/a/./b`, /"\." or empty/],
      [`bmad://projects/${project}/a%00b`, /control character/],
      [`bmad://projects/${project}/${"x".repeat(10_000)}`, /at most 512/],
      [`bmad://projects/${project}/%E0%A4%A`, /malformed percent-escape/],
      [`bmad://projects/..%2f${project}/docs/arch.md`, /no percent-escapes/],
    ] as const) {
      await expect(read(uri), uri.slice(0, 80)).rejects.toThrow(why);
    }
  });
  it("serve a file whose extension names an object property as text/plain", async () => {
    for (const path of ["docs/x.__proto__", "docs/x.constructor"]) {
      expect((await ada.files({ action: "write", project, path, content: "odd" })).isError).toBe(false);
      expect((await ada.client.readResource({ uri: `bmad://projects/${project}/${path}` })).contents[0]).toMatchObject({ mimeType: "text/plain", text: "odd" });
    }
  });
});

describe("limits", () => {
  it("refuse a file over 1 MiB and take one of exactly 1 MiB", async () => {
    const big = await ada.files({ action: "write", project, path: "big.md", content: "x".repeat(MAX_FILE_BYTES + 1) });
    expect(big.isError).toBe(true);
    expect(big.text).toBe("big.md would be 1,048,577 bytes; a file holds at most 1 MiB (1,048,576 bytes). Split it into several files.");
    expect((await ada.files({ action: "write", project, path: "big.md", content: "é".repeat(MAX_FILE_BYTES / 2) })).structured.size).toBe(MAX_FILE_BYTES);
    // Its own line break first: the file's last line has none.
    const grown = await ada.files({ action: "append", project, path: "big.md", content: "\nx" });
    expect(grown.text).toMatch(/big\.md would be 1,048,578 bytes/);
    expect((await ada.files({ action: "read", project, path: "big.md" })).structured.version).toBe(1);
  });

  it("refuse the 5,001st file and bytes past 50 MiB, naming the limit", async () => {
    const other = unique("limits");
    expect((await ada.project({ action: "create", name: other })).isError).toBe(false);
    // Seeded straight into the object's table: the limit is what is under test, not 5,000 writes. The object
    // keeps its files in memory, so it restarts to read them again.
    const seedRows = async (count: number, size: number) => {
      await runInDurableObject(projectStub(ada.id, other), (_, state) => {
        for (let i = 0; i < count; i++) state.storage.sql.exec("INSERT INTO files (path, version, size, sha256, updated_at, author) VALUES (?, 1, ?, '', '', 'seed')", `seed/${size}/${i}`, size);
      });
      await evictDurableObject(projectStub(ada.id, other));
    };
    const { files } = (await ada.store().info(other) as { value: { files: number } }).value;
    await seedRows(5000 - files, 0);
    const full = await ada.files({ action: "write", project: other, path: "one-more.md", content: "x" });
    expect(full.text).toBe(`Project "${other}" has 5,000 files, the most a project holds; delete some before adding one-more.md.`);
    expect((await ada.files({ action: "write", project: other, path: "_bmad/config.toml", content: "# replaced\n" })).isError).toBe(false);

    const heavy = unique("heavy");
    expect((await ada.project({ action: "create", name: heavy })).isError).toBe(false);
    const { bytes } = (await ada.store().info(heavy) as { value: { bytes: number } }).value;
    await runInDurableObject(projectStub(ada.id, heavy), (_, state) => {
      state.storage.sql.exec("INSERT INTO files (path, version, size, sha256, updated_at, author) VALUES ('seed/heavy', 1, ?, '', '', 'seed')", 50 * 1024 * 1024 - bytes - 10);
    });
    await evictDurableObject(projectStub(ada.id, heavy));
    const over = await ada.files({ action: "write", project: heavy, path: "notes.md", content: "x".repeat(11) });
    expect(over.text).toBe(`Project "${heavy}" would hold 52,428,801 bytes; a project holds at most 50 MiB (52,428,800 bytes). Delete or shrink files first.`);
    expect((await ada.files({ action: "write", project: heavy, path: "notes.md", content: "x".repeat(10) })).isError).toBe(false);
  });

  it("refuse a 1,001st file directly in one folder, naming the limit and subfolders; a rewrite or a subfolder goes", async () => {
    // A member's 1,001 files in one folder stopped the owner's every pull and push: no listing shows them all.
    const other = unique("folder");
    expect((await ada.project({ action: "create", name: other })).isError).toBe(false);
    // Seeded straight into the object's table, as above: the limit is under test, not 1,000 writes.
    await runInDurableObject(projectStub(ada.id, other), (_, state) => {
      for (let i = 0; i < 999; i++) state.storage.sql.exec("INSERT INTO files (path, version, size, sha256, updated_at, author) VALUES (?, 1, 0, '', '', 'seed')", `junk/n${i}.md`);
    });
    await evictDurableObject(projectStub(ada.id, other));
    expect((await ada.files({ action: "write", project: other, path: "junk/n999.md", content: "x\n" })).isError).toBe(false);
    const full = await ada.files({ action: "write", project: other, path: "junk/n1000.md", content: "x\n" });
    expect(full.isError).toBe(true);
    expect(full.text).toBe("Cannot add junk/n1000.md: the folder junk/ holds 1,000 files directly, and a folder holds at most 1,000, the most one listing shows (so that a pull lists them all). Put it in a subfolder (junk/<name>/), or delete some there first (bmad-files \"delete\" takes a glob).");
    expect((await ada.files({ action: "write", project: other, path: "junk/n999.md", content: "rewritten\n" })).isError).toBe(false);
    expect((await ada.files({ action: "write", project: other, path: "junk/more/n1000.md", content: "x\n" })).isError).toBe(false);
    // One deleted makes room for one.
    expect((await ada.files({ action: "delete", project: other, path: "junk/n999.md" })).isError).toBe(false);
    expect((await ada.files({ action: "write", project: other, path: "junk/n1000.md", content: "x\n" })).isError).toBe(false);
    expect((await ada.files({ action: "write", project: other, path: "junk/n1001.md", content: "x\n" })).text).toMatch(/^Cannot add junk\/n1001\.md: the folder junk\/ holds 1,000 files directly/);
    // A glob deletes many as one call (review 177; n999.md went above): each a deletion in its history.
    expect((await ada.files({ action: "delete", project: other, path: "junk/n9??.md" })).text).toBe('Deleted 99 files matching "junk/n9??.md", each a version in its history (restore brings one back).');
    expect((await ada.files({ action: "write", project: other, path: "junk/n1001.md", content: "x\n" })).isError).toBe(false);
  });

  it("refuse a 101st project", async () => {
    const max = await signInAs(`${unique("max")}@example.com`);
    const index = env.WORKSPACE_INDEX.get(env.WORKSPACE_INDEX.idFromName(`user:${max.id}`));
    for (let i = 0; i < 99; i++) expect(await index.reserve(`p${i}`, new Date().toISOString(), 100)).toEqual({ ok: true });
    expect((await max.project({ action: "create", name: "the-100th" })).isError).toBe(false);
    const refused = await max.project({ action: "create", name: "the-101st" });
    expect(refused.text).toBe('You have 100 projects, the most one user may own (100). A project deleted (bmad-project action "delete") frees its place when it goes for good, 7 days later: ask the user which, if any, to delete.');
    // A deleted project counts while it is kept (else a loop of creates and deletes kept any number), except to its own
    // undelete; once it goes for good, it counts no more.
    expect((await max.project({ action: "delete", name: "the-100th", confirm: "the-100th" })).isError).toBe(false);
    expect((await max.project({ action: "create", name: "the-101st" })).text).toBe('You have 100 projects (1 of them deleted and kept 7 days, which count until they go), the most one user may own (100). A project deleted (bmad-project action "delete") frees its place when it goes for good, 7 days later: ask the user which, if any, to delete.');
    expect((await max.project({ action: "undelete", name: "the-100th" })).isError).toBe(false);
    expect((await max.project({ action: "delete", name: "the-100th", confirm: "the-100th" })).isError).toBe(false);
    await pastUndo(max.id, "the-100th");
    expect((await max.project({ action: "create", name: "the-101st" })).isError).toBe(false);
  });

  it("refuse bad project names and duplicates", async () => {
    expect((await ada.project({ action: "create", name: "../x" })).text).toMatch(/Project name "\.\.\/x" refused/);
    expect((await ada.project({ action: "create", name: "x".repeat(10_000) })).text).toMatch(/refused/);
    expect((await ada.project({ action: "create", name: project })).text).toMatch(/already have a project/);
    // The name it is most likely meant as, named (review 117).
    expect((await ada.project({ action: "create", name: "Todo App" })).text).toMatch(/refused\. .* Try "todo-app"\.$/);
    // Accents dropped, whichever Unicode form the name came in (review 313).
    for (const name of ["Caf\u00e9 app", "Cafe\u0301 app"]) expect((await ada.project({ action: "create", name })).text, name).toMatch(/ Try "cafe-app"\.$/);
    expect((await ada.files({ action: "list", project: project.toUpperCase() })).text).toMatch(new RegExp(`Try "${project}"\\.`));
  });
});

describe("a Durable Object restart", () => {
  it("keeps files, versions and the project list", async () => {
    await ada.files({ action: "write", project, path: "restart.md", content: "before" });
    await ada.files({ action: "write", project, path: "restart.md", content: "after" });
    await evictDurableObject(projectStub(ada.id, project));
    await evictDurableObject(env.WORKSPACE_INDEX.get(env.WORKSPACE_INDEX.idFromName(`user:${ada.id}`)));
    expect((await ada.files({ action: "read", project, path: "restart.md" })).text).toMatch(/version 2[^\n]*\nafter$/);
    expect((await ada.files({ action: "read", project, path: "restart.md", version: 1 })).text).toMatch(/\nbefore$/);
    expect((await ada.project({ action: "list" })).text).toContain(`${project} (yours)`);
    expect((await ada.files({ action: "write", project, path: "restart.md", content: "later", if_version: 2 })).structured.version).toBe(3);
  });
});
