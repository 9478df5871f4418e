// The bridge's confined reader and writer on a real directory: what it refuses (paths and links that leave
// the root, devices, FIFOs, sockets, files over the cap), what it follows (links that stay inside), and
// writes that are atomic and never land outside, whatever the parent folders are.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, win32 } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConfinedTree, ensureConfinedDir, isInside, listConfined, posixRelative, readConfined, readConfinedText, removeConfined, resolveConfined, writeConfined } from "../../src/bridge/confined-fs.js";
import { writerTag } from "../../src/bridge/process-identity.js";
import { tempDir, waitFor, whileSwapped } from "./helpers.js";

const tmp = tempDir("confined-fs");
/** `step(i)` for each i below `count`, four at a time, as four callers racing another program: work for whileSwapped. */
const fourAtATime = (count: number, step: (i: number) => Promise<void>) => async () => {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) await step(i);
  };
  await Promise.all(Array.from({ length: 4 }, worker));
};

/** Whether a refusal says what to do, not only what the system said (review 202: a bare "cannot be written (ENOENT)."). */
const namesAFix = (error: string) => !/\(E[A-Z]+\)\.?$/.test(error) && /(try again|remove|replace|move|give|make)/i.test(error);

/** Another program that, until `stop` exists, moves every folder writers stage in `parent` (.bmad-mcp-staging-*) to
 *  `away` and puts a link to `out` at its name. */
const STAGING_SWAPPER = `
const { existsSync, lstatSync, readdirSync, renameSync, symlinkSync } = require("node:fs");
const { join } = require("node:path");
const [, parent, away, out, stop] = process.argv;
for (let n = 0; !existsSync(stop); ) {
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(".bmad-mcp-staging-")) continue;
    try {
      if (lstatSync(join(parent, name)).isSymbolicLink()) continue;
      renameSync(join(parent, name), join(away, name + "-" + n++));
      symlinkSync(out, join(parent, name));
    } catch {}
  }
}
`;
const root = join(tmp.dir, "project");
const outside = join(tmp.dir, "outside");

beforeAll(() => {
  mkdirSync(join(root, "docs"), { recursive: true });
  mkdirSync(join(root, "..dots"));
  mkdirSync(outside);
  writeFileSync(join(root, "docs/a.md"), "inside");
  writeFileSync(join(root, "..dots/b.md"), "dots");
  writeFileSync(join(outside, "secret.md"), "outside-marker");
  symlinkSync("docs", join(root, "docs-link"));
  symlinkSync("../docs/a.md", join(root, "..dots/a-link.md"));
  symlinkSync(join(outside, "secret.md"), join(root, "secret-link.md"));
  symlinkSync(outside, join(root, "out-dir"));
  symlinkSync("/proc/self/environ", join(root, "environ.md"));
  symlinkSync("loop-b", join(root, "loop-a"));
  symlinkSync("loop-a", join(root, "loop-b"));
  execFileSync("mkfifo", [join(root, "fifo.md")]);
});
afterAll(() => tmp.cleanup());

describe("reading", () => {
  it("reads regular files, following links that stay inside, folders named ..dots included", async () => {
    expect(await readConfinedText(root, "docs/a.md")).toMatchObject({ ok: true, text: "inside", path: join(realpathSync(root), "docs/a.md") });
    expect(await readConfinedText(root, "docs-link/a.md")).toMatchObject({ ok: true, text: "inside" });
    expect(await readConfinedText(root, "..dots/b.md")).toMatchObject({ ok: true, text: "dots" });
    expect(await readConfinedText(root, "..dots/a-link.md")).toMatchObject({ ok: true, text: "inside" });
    expect(await readConfinedText(root, "docs/../docs/a.md")).toMatchObject({ ok: true, text: "inside" });
    expect(await readConfinedText(root, "docs/none.md")).toMatchObject({ ok: false, code: "missing", error: "docs/none.md: does not exist in the project." });
  });

  it("refuses paths and links that leave the root, naming the path, never reading the target", async () => {
    for (const rel of ["../outside/secret.md", "docs/../../outside/secret.md", join(outside, "secret.md"), "secret-link.md", "out-dir/secret.md", "environ.md"]) {
      const read = await readConfinedText(root, rel);
      expect(read, rel).toMatchObject({ ok: false, code: "outside" });
      expect(JSON.stringify(read)).not.toContain("outside-marker");
      expect(!read.ok && read.error.startsWith(`${rel}: `)).toBe(true);
      expect(!read.ok && read.error).toMatch(/leads outside the project/);
    }
    expect(await readConfinedText(root, "loop-a")).toMatchObject({ ok: false, code: "outside", error: "loop-a: a symlink loop; remove the link." });
  });

  it("refuses devices, FIFOs, sockets and folders without blocking", async () => {
    mkdirSync(join(tmp.dir, "devices"));
    symlinkSync("/dev/zero", join(tmp.dir, "devices/zero"));
    expect(await readConfinedText(join(tmp.dir, "devices"), "zero")).toMatchObject({ ok: false, code: "outside" }); // /dev is outside too
    expect(await readConfinedText("/dev", "zero")).toMatchObject({ ok: false, code: "not-file", error: "zero: not a regular file (a device); refused. Remove or rename it: bmad-mcp reads and writes regular files only." });
    expect(await readConfinedText(root, "fifo.md")).toMatchObject({ ok: false, code: "not-file", error: "fifo.md: not a regular file (a FIFO); refused. Remove or rename it: bmad-mcp reads and writes regular files only." });
    const server = createServer();
    await new Promise<void>((ok) => server.listen(join(root, "sock"), ok));
    try {
      expect(await readConfinedText(root, "sock")).toMatchObject({ ok: false, code: "not-file", error: "sock: not a regular file (a socket); refused. Remove or rename it: bmad-mcp reads and writes regular files only." });
    } finally {
      server.close();
    }
    expect(await readConfinedText(root, "docs")).toMatchObject({ ok: false, code: "is-dir" });
  });

  it("refuses a file over the cap from its size, and reads one at the cap", async () => {
    writeFileSync(join(root, "big.md"), "");
    truncateSync(join(root, "big.md"), 1025);
    expect(await readConfinedText(root, "big.md", { maxBytes: 1024 })).toMatchObject({ ok: false, code: "too-large", error: expect.stringMatching(/^big\.md: larger than 1 KiB; refused/) });
    truncateSync(join(root, "big.md"), 1024);
    expect((await readConfinedText(root, "big.md", { maxBytes: 1024 })).ok).toBe(true);
    truncateSync(join(root, "big.md"), 8 * 1024 * 1024 + 1);
    expect(await readConfinedText(root, "big.md")).toMatchObject({ ok: false, error: expect.stringMatching(/larger than 8 MiB/) });
  });

  // Review 33: the project map read 40 planted documents of 7.9 MiB whole, at once, for their frontmatter (407 MB).
  it("reads only a file's first or last bytes when asked for part of it, whatever its size, by the same rules", async () => {
    writeFileSync(join(root, "part.md"), `---\nstatus: final\n---\n${"x".repeat(9 * 1024 * 1024)}\n- the last entry\n`);
    const head = await readConfined(root, "part.md", { part: { head: 4096 } });
    expect(head.ok && head.bytes.toString()).toBe(`---\nstatus: final\n---\n${"x".repeat(4096 - 22)}`);
    const tail = await readConfined(root, "part.md", { part: { tail: 18 } });
    expect(tail.ok && tail.bytes.toString()).toBe("\n- the last entry\n");
    expect(await readConfined(root, "secret-link.md", { part: { head: 10 } })).toMatchObject({ ok: false, code: "outside" });
    writeFileSync(join(root, ".env"), "API_KEY=sk-live-1234567890");
    expect((await readConfined(root, ".env", { part: { head: 10 } })).ok).toBe(false);
  });

  it("resolves and lists folders inside the root only", async () => {
    expect(await resolveConfined(root, "docs-link")).toMatchObject({ ok: true, isDir: true, path: join(realpathSync(root), "docs") });
    expect(await resolveConfined(root, "..")).toMatchObject({ ok: false, code: "outside" });
    expect(await listConfined(root, "out-dir")).toMatchObject({ ok: false, code: "outside" });
    expect(await listConfined(root, "..dots")).toMatchObject({ ok: true, names: expect.arrayContaining(["b.md", "a-link.md"]) });
    expect(isInside("/p", "/p/..dots")).toBe(true);
    expect(isInside("/p", "/p/../q")).toBe(false);
    expect(isInside("/p", "/pq")).toBe(false);
    // Windows' paths (review 19: "..\\q" was taken for a name inside, and machinery was looked for in "a\\.git" whole).
    expect(isInside("C:\\p", "C:\\q\\x", win32)).toBe(false);
    expect(isInside("C:\\p", "D:\\p\\x", win32)).toBe(false);
    expect(isInside("C:\\p", "C:\\p\\..dots", win32)).toBe(true);
    expect(posixRelative("C:\\p", "C:\\p\\a\\.git\\config", win32)).toBe("a/.git/config");
  });
});

describe("writing", () => {
  it("writes atomically, making parent folders, leaving no temp file", async () => {
    expect(await writeConfined(root, "new/deep/file.md", "one")).toMatchObject({ ok: true });
    expect(await writeConfined(root, "new/deep/file.md", "two")).toMatchObject({ ok: true });
    expect(readFileSync(join(root, "new/deep/file.md"), "utf8")).toBe("two");
    expect(readdirSync(join(root, "new/deep"))).toEqual(["file.md"]);
    // A name near the 255 bytes a file system holds still has room for its temp beside it (review 89: ENAMETOOLONG).
    for (const name of [`${"a".repeat(252)}.md`, `${"é".repeat(126)}.md`, `${"😀".repeat(63)}.md`]) {
      expect(await writeConfined(root, `long/${name}`, "long"), name).toMatchObject({ ok: true });
      expect(readFileSync(join(root, "long", name), "utf8")).toBe("long");
    }
    expect(readdirSync(join(root, "long"))).toHaveLength(3);
  });

  it("keeps a replaced file's permissions, never executable, and clears the temp files a killed writer left (a sixteenth review)", async () => {
    mkdirSync(join(root, "private"));
    writeFileSync(join(root, "private/notes.md"), "mine", { mode: 0o600 });
    writeFileSync(join(root, "private/run.md"), "x", { mode: 0o755 });
    const left = join(root, "private/.notes.md.bmad-mcp-0123456789ab.tmp");
    writeFileSync(left, "a whole copy");
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(left, old, old);
    const fresh = join(root, "private/.run.md.bmad-mcp-ba9876543210.tmp");
    writeFileSync(fresh, "a live writer's");
    // A user's own file of a like name, as old, is theirs (a seventeenth review).
    const draft = join(root, "private/.draft.0123456789ab.tmp");
    writeFileSync(draft, "mine");
    utimesSync(draft, old, old);
    expect(await writeConfined(root, "private/notes.md", "changed")).toMatchObject({ ok: true });
    expect(await writeConfined(root, "private/run.md", "changed")).toMatchObject({ ok: true });
    expect(statSync(join(root, "private/notes.md")).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, "private/run.md")).mode & 0o777).toBe(0o644);
    await new Promise((r) => setTimeout(r, 100));
    expect(readdirSync(join(root, "private")).sort()).toEqual([".draft.0123456789ab.tmp", ".run.md.bmad-mcp-ba9876543210.tmp", "notes.md", "run.md"]);
  });

  it("makes no folder for a write it refuses (review 75: a pull's refused conda-meta/ stayed, and made its parent a Python environment)", async () => {
    expect(await writeConfined(root, "refused-here/deep/x.md", "x", { refuse: () => "not here" })).toMatchObject({ ok: false, error: expect.stringContaining("not here") });
    expect(existsSync(join(root, "refused-here"))).toBe(false);
    expect(await writeConfined(root, "out/conda-meta/history.json", "{}")).toMatchObject({ ok: false, error: expect.stringContaining("makes its folder a Python environment") });
    expect(existsSync(join(root, "out/conda-meta"))).toBe(false);
  });

  it("clears at once the temp file of a writer that has ended, and leaves a live writer's (review 74)", async () => {
    mkdirSync(join(root, "tagged"));
    const [, start, place] = writerTag!.split("-");
    const dead = spawnSync(process.execPath, ["-e", ""]).pid!;
    const names = {
      ended: `.prd.md.bmad-mcp-${dead}-${start}-${place}-0123456789ab.tmp`,
      live: `.prd.md.bmad-mcp-${writerTag}-ba9876543210.tmp`,
      // Another pid namespace's or boot's: its writer cannot be looked at here, and it is fresh.
      elsewhere: `.prd.md.bmad-mcp-${dead}-${start}-00000000-0123456789ab.tmp`,
    };
    for (const name of Object.values(names)) writeFileSync(join(root, "tagged", name), "a whole copy");
    expect(await writeConfined(root, "tagged/prd.md", "new")).toMatchObject({ ok: true });
    await waitFor("the sweep", () => (existsSync(join(root, "tagged", names.ended)) ? undefined : true), 2000);
    expect(readdirSync(join(root, "tagged")).sort()).toEqual([names.elsewhere, names.live, "prd.md"].sort());
  });

  it("clears the staging folders a killed folder writer left, and nothing of a like name that is not one", async () => {
    mkdirSync(join(root, "runs"));
    const old = new Date(Date.now() - 3_600_000);
    const aged = (rel: string) => utimesSync(join(root, rel), old, old);
    mkdirSync(join(root, "runs/.bmad-mcp-staging-Ab12Cd"));
    writeFileSync(join(root, "runs/.bmad-mcp-staging-Ab12Cd/epics.md"), "half a folder");
    aged("runs/.bmad-mcp-staging-Ab12Cd");
    mkdirSync(join(root, "runs/.bmad-mcp-staging-Fresh1")); // a live writer's
    mkdirSync(join(root, "runs/.staging-Ab12Cd")); // a user's, or an earlier bridge's: not told apart, so kept
    aged("runs/.staging-Ab12Cd");
    symlinkSync(outside, join(root, "runs/.bmad-mcp-staging-Link01"));
    expect(await createConfinedTree(root, "runs/r1", new Map([["state.md", new TextEncoder().encode("x")]]))).toMatchObject({ ok: true });
    await new Promise((r) => setTimeout(r, 100));
    expect(readdirSync(join(root, "runs")).sort()).toEqual([".bmad-mcp-staging-Fresh1", ".bmad-mcp-staging-Link01", ".staging-Ab12Cd", "r1"]);
    expect(readdirSync(outside).length).toBeGreaterThan(0);
  });

  it("lands no folder, file or staging copy outside while another program swaps a folder on its way for a link and back (review 192)", async () => {
    // A folder made by path, then filled and renamed by path, went where the link led (the bridge's writes: bridge-safety).
    const folder = join(root, "swapped/d");
    const away = join(tmp.dir, "swapped-away");
    mkdirSync(folder, { recursive: true });
    mkdirSync(away);
    const files = new Map([["a.md", new TextEncoder().encode("a")], ["sub/b.md", new TextEncoder().encode("b")]]);
    const made: string[] = [];
    const creates = fourAtATime(200, async (i) => {
      if ((await createConfinedTree(root, `swapped/d/t${i}`, files)).ok) made.push(`t${i}`);
    });
    expect(await whileSwapped(folder, away, creates)).toBe(0);
    expect(readdirSync(away)).toEqual([]);
    // Each acknowledged tree is there; one refused as its folder moved at the rename may be there too, whole (under load
    // a swap put back just after it), never in part.
    const there = readdirSync(folder);
    expect(made.filter((name) => !there.includes(name))).toEqual([]);
    for (const name of there) expect([readFileSync(join(folder, name, "a.md"), "utf8"), readFileSync(join(folder, name, "sub/b.md"), "utf8")], name).toEqual(["a", "b"]);
  });

  it("makes no folder outside while another program swaps a folder on its way for a link and back (review 202)", async () => {
    // Each new folder made by its path after a look by path: 25 empty folders outside in 300 writes into new folders.
    const folder = join(root, "swapped-new/d");
    const away = join(tmp.dir, "swapped-new-away");
    mkdirSync(folder, { recursive: true });
    mkdirSync(away);
    const made: string[] = [];
    const refusals: string[] = [];
    const writes = fourAtATime(200, async (i) => {
      const written = await writeConfined(root, `swapped-new/d/n${i}/deep/x.md`, `n${i}`);
      if (written.ok) made.push(`n${i}`);
      else refusals.push(written.error);
    });
    expect(await whileSwapped(folder, away, writes)).toBe(0);
    expect(readdirSync(away)).toEqual([]);
    for (const name of made) expect(readFileSync(join(folder, name, "deep/x.md"), "utf8")).toBe(name);
    expect(refusals.filter((error) => !namesAFix(error))).toEqual([]);
  });

  it("makes no folder in .git/ while another program swaps a folder on its way for a link into it and back (review 206)", async () => {
    // Folders made through the held parent were judged inside the project, never as machinery: 68 empty folders in
    // .git/hooks/ in 300 writes, and an empty folder .git/hooks/pre-commit stops every commit.
    const folder = join(root, "swapped-git/d");
    const hooks = join(root, ".git/hooks");
    mkdirSync(folder, { recursive: true });
    mkdirSync(hooks, { recursive: true });
    const refusals: string[] = [];
    const writes = fourAtATime(200, async (i) => {
      const written = await writeConfined(root, `swapped-git/d/pre-commit${i}/x.md`, `n${i}`);
      if (!written.ok) refusals.push(written.error);
    });
    expect(await whileSwapped(folder, hooks, writes)).toBe(0);
    expect(readdirSync(hooks)).toEqual([]);
    expect(refusals.filter((error) => !namesAFix(error) && !/tools' machinery/.test(error))).toEqual([]);
  });

  it("publishes a folder's staging copy only as it made it, while another program moves it away and puts a link to a folder outside at its name (review 202)", async () => {
    // Its entries made and its rename done by its name: folders made outside, links published at targets' names.
    const parent = join(root, "staged");
    const away = join(tmp.dir, "staged-away");
    const out = join(tmp.dir, "staged-out");
    for (const dir of [parent, away, out]) mkdirSync(dir);
    const files = new Map([["sub/deeper/a.md", new TextEncoder().encode("a")], ["b.md", new TextEncoder().encode("b")]]);
    const made: string[] = [];
    const refusals: string[] = [];
    const stop = `${out}.stop`;
    const swapper = spawn(process.execPath, ["-e", STAGING_SWAPPER, parent, away, out, stop], { stdio: "inherit" });
    const ended = new Promise((done) => swapper.on("exit", done));
    try {
      for (let i = 0; i < 200; i++) {
        const created = await createConfinedTree(root, `staged/t${i}`, files);
        if (created.ok) made.push(`t${i}`);
        else refusals.push(created.error);
      }
    } finally {
      writeFileSync(stop, "");
    }
    expect(await ended).toBe(0);
    expect(readdirSync(out)).toEqual([]);
    // At a target's name only a tree as written; at a staging copy's, none of ours (the links there are the mover's own).
    const entries = readdirSync(parent, { withFileTypes: true });
    expect(entries.filter((entry) => !entry.name.startsWith(".bmad-mcp-staging-")).map((entry) => entry.name).sort()).toEqual(made.sort());
    expect(entries.filter((entry) => !entry.isSymbolicLink() && !made.includes(entry.name))).toEqual([]);
    for (const name of made) expect([readFileSync(join(parent, name, "b.md"), "utf8"), readFileSync(join(parent, name, "sub/deeper/a.md"), "utf8")]).toEqual(["b", "a"]);
    expect(refusals.filter((error) => !namesAFix(error))).toEqual([]);
  });

  it("writes a file whose path is just under PATH_MAX, and refuses one at it naming the limit (review 202: its temp file's path was over it)", async () => {
    let deep = join(tmp.dir, "deep");
    while (deep.length < 3900) deep = join(deep, "r".repeat(200));
    mkdirSync(deep, { recursive: true });
    const rel = (length: number) => `docs/${"n".repeat(length - deep.length - "/docs/".length - ".md".length)}.md`;
    expect(await writeConfined(deep, rel(4095), "deep")).toMatchObject({ ok: true });
    expect(readFileSync(join(deep, rel(4095)), "utf8")).toBe("deep");
    expect(await writeConfined(deep, rel(4096), "deeper")).toMatchObject({ ok: false, error: expect.stringContaining("cannot be written (ENAMETOOLONG): the path is too long (a name holds at most 255 bytes, a whole path fewer than 4096)") });
    expect(readdirSync(join(deep, "docs"))).toEqual([rel(4095).slice("docs/".length)]);
  });

  it("refuses a parent folder, or the target, that links out of the root, writing nothing there", async () => {
    symlinkSync(outside, join(root, "docs/out"));
    for (const rel of ["out-dir/new.md", "out-dir/deeper/new.md", "docs/out/new.md", "secret-link.md", "../outside/new.md"]) {
      const written = await writeConfined(root, rel, "x");
      expect(written, rel).toMatchObject({ ok: false, code: "outside" });
      expect(!written.ok && written.error.startsWith(`${rel}: `)).toBe(true);
    }
    expect(readdirSync(outside)).toEqual(["secret.md"]);
    expect(readFileSync(join(outside, "secret.md"), "utf8")).toBe("outside-marker");
    expect(await ensureConfinedDir(root, "out-dir/sub", { label: "out-dir/sub/file.md" })).toMatchObject({ ok: false, error: expect.stringMatching(/^out-dir\/sub\/file\.md: out-dir leads outside the project/) });
  });

  it("writes through a link that stays inside, and refuses to replace a folder or a FIFO", async () => {
    expect(await writeConfined(root, "docs-link/c.md", "via link")).toMatchObject({ ok: true, path: join(realpathSync(root), "docs/c.md") });
    expect(readFileSync(join(root, "docs/c.md"), "utf8")).toBe("via link");
    expect(await writeConfined(root, "docs", "x")).toMatchObject({ ok: false, code: "is-dir" });
    expect(await writeConfined(root, "fifo.md", "x")).toMatchObject({ ok: false, code: "not-file" });
    expect(await writeConfined(root, "docs/a.md/x.md", "x")).toMatchObject({ ok: false, code: "not-dir" });
  });

  it("creates a file exclusively (lock files), never through a link, and removes it", async () => {
    expect(await writeConfined(root, "locks/a.lock", "1", { exclusive: true })).toMatchObject({ ok: true });
    expect(await writeConfined(root, "locks/a.lock", "2", { exclusive: true })).toMatchObject({ ok: false, code: "exists" });
    symlinkSync(join(outside, "planted.lock"), join(root, "locks/b.lock"));
    expect(await writeConfined(root, "locks/b.lock", "1", { exclusive: true })).toMatchObject({ ok: false, code: "exists" });
    expect(readdirSync(outside)).toEqual(["secret.md"]);
    expect(await removeConfined(root, "locks/a.lock")).toEqual({ ok: true });
    expect(await removeConfined(root, "locks/a.lock")).toEqual({ ok: true });
    expect(readdirSync(join(root, "locks"))).toEqual(["b.lock"]);
  });

  it("removes the folders a removal empties on the path as named, never through a link, and never the root", async () => {
    mkdirSync(join(root, "emptied/real/deep"), { recursive: true });
    mkdirSync(join(root, "emptied/named/sub"), { recursive: true });
    for (const file of ["real/deep/x.md", "real/deep/y.md", "named/sub/z.md"]) writeFileSync(join(root, "emptied", file), "x");
    symlinkSync("real/deep", join(root, "emptied/at-parent"));
    symlinkSync("real", join(root, "emptied/above"));
    const emptied = () => true;
    // A link at the file's folder, or above it: its target's folders stay, and the link leads somewhere still.
    expect(await removeConfined(root, "emptied/at-parent/x.md", { emptied })).toEqual({ ok: true });
    expect(await removeConfined(root, "emptied/above/deep/y.md", { emptied })).toEqual({ ok: true });
    expect(readdirSync(join(root, "emptied/real/deep"))).toEqual([]);
    expect(statSync(join(root, "emptied/at-parent")).isDirectory()).toBe(true);
    // Where the caller's name leads to the real one (a bridge's `named`), the real path's folders stay too.
    writeFileSync(join(root, "emptied/real/deep/w.md"), "x");
    expect(await removeConfined(root, "emptied/real/deep/w.md", { emptied, named: "emptied/at-parent/w.md" })).toEqual({ ok: true });
    expect(readdirSync(join(root, "emptied/real/deep"))).toEqual([]);
    // With no link on the way, every folder it empties goes, up to (not) the root.
    rmSync(join(root, "emptied/real"), { recursive: true });
    rmSync(join(root, "emptied/at-parent"));
    rmSync(join(root, "emptied/above"));
    expect(await removeConfined(root, "emptied/named/sub/z.md", { emptied })).toEqual({ ok: true });
    expect(existsSync(join(root, "emptied"))).toBe(false);
    expect(existsSync(root)).toBe(true);
  });

  it("makes a write's folder again when a delete beside it takes it, emptied, meanwhile (once in ~450 a raw ENOENT)", async () => {
    // The delete's folder climb and the write's folder making race in the same folders, and no seam orders them: each
    // round starts 8 pairs, each write a few event-loop turns later than the one before, so some land in the window.
    const turn = () => new Promise((done) => setImmediate(done));
    const pair = async (dir: string, turns: number) => {
      mkdirSync(join(root, dir), { recursive: true });
      writeFileSync(join(root, dir, "a.md"), "a");
      const removed = removeConfined(root, `${dir}/a.md`, { emptied: () => true });
      for (let i = 0; i < turns; i++) await turn();
      const written = await writeConfined(root, `${dir}/b.md`, "b").catch((e: Error) => ({ ok: false, error: e.message }));
      return { dir, removed: await removed, written };
    };
    for (let round = 0; round < 25; round++) {
      for (const { dir, removed, written } of await Promise.all(Array.from({ length: 8 }, (_, turns) => pair(`race/t${round}-${turns}/sub`, turns)))) {
        expect(removed).toEqual({ ok: true });
        expect(written, dir).toMatchObject({ ok: true });
        expect(readFileSync(join(root, dir, "b.md"), "utf8")).toBe("b");
      }
    }
  });

  it("judges a change by where it really lands: never machinery but the state folder its writer owns, nor a file that runs", async () => {
    mkdirSync(join(root, ".git/hooks"), { recursive: true });
    mkdirSync(join(root, "tools/scripts"), { recursive: true });
    symlinkSync(".git", join(root, "git-link"));
    symlinkSync("tools/scripts", join(root, "scripts-link"));
    expect(await writeConfined(root, "git-link/hooks/pre-commit", "x")).toMatchObject({ ok: false, error: expect.stringContaining("lands inside .git/ (it is .git/hooks/pre-commit once symlinks are followed)") });
    expect(await writeConfined(root, "git-link/config", "x", { exclusive: true })).toMatchObject({ ok: false, code: "outside" });
    expect(await removeConfined(root, "git-link/HEAD")).toMatchObject({ ok: false, code: "outside" });
    expect(await writeConfined(root, "scripts-link/evil.py", "x")).toMatchObject({ ok: false, error: expect.stringContaining("is in a scripts/ folder") });
    expect(readdirSync(join(root, ".git/hooks"))).toEqual([]);
    expect(readdirSync(join(root, "tools/scripts"))).toEqual([]);
    // The bridge's own state: in the folder its writer names, and only there.
    expect(await writeConfined(root, ".bmad-mcp/sync.json", "{}")).toMatchObject({ ok: false, code: "outside" });
    expect(await writeConfined(root, ".bmad-mcp/sync.json", "{}", { own: ".bmad-mcp" })).toMatchObject({ ok: true });
    expect(await writeConfined(root, ".bmad-task/x.json", "{}", { own: ".bmad-mcp" })).toMatchObject({ ok: false, code: "outside" });
  });
});
