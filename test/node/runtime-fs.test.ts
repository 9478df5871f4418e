// NodeRuntimeFs: the bridge's file system for the ported scripts, confined to its roots.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { keptOf } from "../../src/bridge/kept-versions.js";
import { CHANGED_MEANWHILE, MAX_READ, NodeRuntimeFs } from "../../src/bridge/runtime-fs.js";
import { tempDir } from "./helpers.js";

const tmp = tempDir("runtime-fs");
const root = join(tmp.dir, "project");
const outside = join(tmp.dir, "outside");
let fs: NodeRuntimeFs;

beforeAll(async () => {
  mkdirSync(join(root, "docs/deep"), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(root, "docs/a.md"), "inside");
  writeFileSync(join(outside, "secret.txt"), "outside");
  symlinkSync(join(root, "docs"), join(root, "docs-link"));
  symlinkSync(outside, join(root, "escape"));
  symlinkSync(join(outside, "secret.txt"), join(root, "secret-link.txt"));
  fs = await NodeRuntimeFs.create([root]);
});
afterAll(() => tmp.cleanup());

it("reads regular files inside the roots, following symlinks that stay inside", async () => {
  expect(Buffer.from((await fs.readFile(join(root, "docs/a.md")))!).toString()).toBe("inside");
  expect(Buffer.from((await fs.readFile(join(root, "docs-link/a.md")))!).toString()).toBe("inside");
  expect(await fs.readFile(join(root, "docs/missing.md"))).toBeUndefined();
  expect(await fs.readFile(join(root, "docs"))).toBeUndefined();
  expect(await fs.stat(join(root, "docs-link"))).toBe("dir");
  expect((await fs.list(join(root, "docs"))).sort()).toEqual(["a.md", "deep"]);
});

it("refuses reads and writes that leave the roots, and sees nothing there", async () => {
  await expect(fs.readFile(join(root, "secret-link.txt"))).rejects.toThrow(/leads outside the project .* through a symlink, to .*; refused\. Replace the link/);
  await expect(fs.readFile(join(root, "escape/secret.txt"))).rejects.toThrow(/leads outside the project .* through a symlink, to .*; refused\. Replace the link/);
  await expect(fs.readFile(join(root, "../outside/secret.txt"))).rejects.toThrow(/outside the allowed roots/);
  await expect(fs.writeFile(join(root, "escape/new.txt"), new Uint8Array([1]))).rejects.toThrow(/leads outside the project .* through a symlink, to .*; refused\. Replace the link/);
  await expect(fs.mkdir(join(root, "escape/dir"))).rejects.toThrow(/leads outside the project .* through a symlink, to .*; refused\. Replace the link/);
  expect(await fs.stat(join(root, "escape/secret.txt"))).toBe("missing");
  expect(await fs.stat(tmp.dir)).toBe("missing");
  expect(await fs.list(outside)).toEqual([]);
  expect(readdirSync(outside)).toEqual(["secret.txt"]);
});

it("refuses files that are not regular or are larger than the cap", async () => {
  execFileSync("mkfifo", [join(root, "pipe.md")]);
  await expect(fs.readFile(join(root, "pipe.md"))).rejects.toThrow(/not a regular file/);
  writeFileSync(join(root, "big.md"), Buffer.alloc(MAX_READ + 1));
  await expect(fs.readFile(join(root, "big.md"))).rejects.toThrow(/larger than/);
  await expect(fs.writeFile(join(root, "docs"), new Uint8Array([1]))).rejects.toMatchObject({ code: "EISDIR" });
});

it("writes atomically through a temp file in the same directory, making parents", async () => {
  const target = join(root, "new/dir/file.md");
  await fs.writeFile(target, new TextEncoder().encode("one"));
  await fs.writeFile(target, new TextEncoder().encode("two"));
  expect(readFileSync(target, "utf8")).toBe("two");
  expect(readdirSync(join(root, "new/dir"))).toEqual(["file.md"]);
  await fs.mkdir(join(root, "empty/dir"));
  expect(await fs.stat(join(root, "empty/dir"))).toBe("dir");
});

it("changes a file only over what it read: the user's editor, which takes no lock, keeps its save (a sixteenth review)", async () => {
  const target = join(root, "docs/log.md");
  writeFileSync(target, "- one\n");
  await fs.update(target, async (old) => new TextEncoder().encode(`${new TextDecoder().decode(old)}- two\n`));
  expect(readFileSync(target, "utf8")).toBe("- one\n- two\n");
  // The editor saves while the bridge appends (between its read and its rename): the append is made again on its save
  // (review 226: BMAD's own Python saves as an editor does, and the bridge's append failed).
  const seen: string[] = [];
  await fs.update(target, async (old) => {
    seen.push(new TextDecoder().decode(old));
    if (seen.length === 1) writeFileSync(target, "- one\n- two\n- the user's line\n");
    return new TextEncoder().encode(`${new TextDecoder().decode(old)}- three\n`);
  });
  expect(seen).toEqual(["- one\n- two\n", "- one\n- two\n- the user's line\n"]);
  expect(readFileSync(target, "utf8")).toBe("- one\n- two\n- the user's line\n- three\n");
  // Saved again at every read: refused after a few, the path named once, and the last save stands.
  let saves = 0;
  const change = fs.update(target, async (old) => {
    writeFileSync(target, `- saved ${++saves}\n`);
    return new TextEncoder().encode(`${new TextDecoder().decode(old)}- four\n`);
  });
  await expect(change).rejects.toThrow(/^docs\/log\.md: was changed by another program \(an editor\?\) while this changed it, 5 times running, .*nothing was written/);
  await expect(change.catch((e: unknown) => e)).resolves.toMatchObject({ code: CHANGED_MEANWHILE, namesFile: true });
  expect([saves, readFileSync(target, "utf8")]).toEqual([5, "- saved 5\n"]);
});

/** Runs PYTHON_SAVES_IN_PLACE with `argv`: `said` once it has emptied the file, `done` once it ends. */
const python = (argv: string[]) => {
  const child = spawn("python3", ["-c", PYTHON_SAVES_IN_PLACE, ...argv], { stdio: ["ignore", "pipe", "inherit"] });
  const done = new Promise((exit) => child.on("close", exit));
  return { said: Promise.race([new Promise((ready) => child.stdout.once("data", ready)), done]), done };
};
/** argv: a file, seconds between emptying it and writing it again: an editor's save in place. */
const PYTHON_SAVES_IN_PLACE = `
import sys, time
path, gap = sys.argv[1], float(sys.argv[2])
with open(path, encoding="utf-8") as f: cur = f.read()
with open(path, "w", encoding="utf-8") as f:
    print("emptied", flush=True)
    time.sleep(gap)
    f.write(cur + "the user's edit\\n")
`;

it("changes a file an editor is saving in place only once it holds the save, never over it emptied (review 234)", async () => {
  const target = join(root, "docs/in-place.md");
  const user = Array.from({ length: 100 }, (_, i) => `user line ${i}\n`).join("");
  // Emptied, then written 70 ms later: an append that read it empty landed alone where it landed within those 70 ms, and
  // the save went to the file the append replaced (the user's 100 lines lost). A few rounds, as a landing takes its time.
  for (let round = 0; round < 4; round++) {
    writeFileSync(target, user);
    const editor = python([target, "0.07"]);
    await editor.said;
    await fs.update(target, async (old) => new TextEncoder().encode(`${new TextDecoder().decode(old)}- the model's note\n`));
    await editor.done;
    expect(readFileSync(target, "utf8"), `round ${round}`).toBe(`${user}the user's edit\n- the model's note\n`);
  }
});

/** argv: a file, the length of its first part. A save written in place in two parts: the second once a line comes on
 *  stdin. */
const PYTHON_SAVES_IN_TWO_PARTS = `
import sys
with open(sys.argv[1], "w", encoding="utf-8") as f:
    f.write("part 1 " + "a" * int(sys.argv[2]) + "\\n")
    f.flush()
    print("part 1", flush=True)
    sys.stdin.readline()
    f.write("part 2\\n")
`;

it("changes a file an editor saves in place in two parts only once it holds both (review 334)", async () => {
  const target = join(root, "docs/two-parts.md");
  // The first part is longer than the file was (a file shorter than the bridge last saw it was waited on already): an
  // append read it there, and the second part, 60 ms later (or as soon as the append landed, sooner), went to the file
  // the append replaced. The bridge changes the file first: one it has not changed is waited on only when empty (review
  // 337: a log or a file a watcher touches every 50 ms would never be changed).
  writeFileSync(target, "small\n");
  await fs.update(target, async (old) => old);
  for (let round = 0; round < 3; round++) {
    const length = 4000 * (round + 1);
    const child = spawn("python3", ["-c", PYTHON_SAVES_IN_TWO_PARTS, target, String(length)], { stdio: ["pipe", "pipe", "inherit"] });
    const done = new Promise((exit) => child.on("close", exit));
    await Promise.race([new Promise((ready) => child.stdout.once("data", ready)), done]);
    const append = fs.update(target, async (old) => new TextEncoder().encode(`${new TextDecoder().decode(old)}- the model's note\n`));
    await Promise.race([append, new Promise((r) => setTimeout(r, 60))]);
    child.stdin.end("go\n");
    await append;
    await done;
    expect(readFileSync(target, "utf8"), `round ${round}`).toBe(`part 1 ${"a".repeat(length)}\npart 2\n- the model's note\n`);
  }
});

it("changes a file it never changed while a watcher touches it every 60 ms (review 337: waited on as a save, never landed)", async () => {
  const target = join(root, "docs/touched.md");
  writeFileSync(target, "# log\n");
  const stop = join(tmp.dir, "touched-stop");
  const toucher = spawn("python3", ["-c", "import os, sys, time\nwhile not os.path.exists(sys.argv[2]):\n    os.utime(sys.argv[1]); time.sleep(0.06)", target, stop], { stdio: "ignore" });
  try {
    // Once the watcher is touching it: changed in the last 100 ms, and again before any 100 ms pass.
    const first = statSync(target).mtimeMs;
    while (statSync(target).mtimeMs === first) await new Promise((r) => setTimeout(r, 5));
    await fs.update(target, async (old) => new TextEncoder().encode(`${new TextDecoder().decode(old)}- the model's note\n`));
    expect(readFileSync(target, "utf8")).toBe("# log\n- the model's note\n");
  } finally {
    writeFileSync(stop, "");
    await new Promise((exit) => toucher.on("close", exit));
  }
});

it("keeps no copy for a change that did not land beside a program appending every few ms (review 234)", async () => {
  const rel = "docs/appended.md";
  const target = join(root, rel);
  writeFileSync(target, "# start\n");
  // Seen by a change first: a file no change has seen, changed in place just now, is waited on as a save in progress
  // (mid-save.ts), and one only appended to since a change saw it is read at once.
  await fs.update(target, async (old) => old);
  const stop = join(tmp.dir, "appended-stop");
  const appender = spawn("python3", ["-c", "import os, sys, time\nwhile not os.path.exists(sys.argv[2]):\n    open(sys.argv[1], 'a').write('py\\n'); time.sleep(0.002)", target, stop], { stdio: "ignore" });
  const before = (await keptOf(root, rel)).length;
  let tries = 0;
  let landed = 0;
  let refused = 0;
  for (let i = 0; i < 20; i++) {
    const append = async (old?: Uint8Array) => (tries++, new TextEncoder().encode(`${new TextDecoder().decode(old)}- bridge ${i}\n`));
    await fs.update(target, append).then(() => landed++, (e: { code?: string }) => {
      expect(e.code).toBe(CHANGED_MEANWHILE);
      refused++;
    });
  }
  writeFileSync(stop, "");
  await new Promise((exit) => appender.on("close", exit));
  // Tries lost to the appender (else this shows nothing); a copy (a row of history) for each change that landed alone.
  expect([refused + landed, tries > 20]).toEqual([20, true]);
  expect((await keptOf(root, rel)).length - before).toBe(landed);
});

it("resolves paths like Python's Path.resolve: symlinks first, then '..', a missing tail as written", async () => {
  const real = realpathSync(root);
  // Plain strings: path.join would collapse the ".." before the symlink is seen.
  expect(await fs.realpath(`${root}/docs-link/deep/../a.md`)).toBe(join(real, "docs/a.md"));
  expect(await fs.realpath(`${root}/escape/../project/docs`)).toBe(join(real, "docs"));
  expect(await fs.realpath(`${root}/escape/../outside/secret.txt`)).toBe(join(realpathSync(outside), "secret.txt"));
  expect(await fs.realpath(`${root}/nope/x/../y`)).toBe(join(real, "nope/y"));
  expect(await fs.realpath("/")).toBe("/");
});

it("neither reads nor writes machinery, under any name, nor writes a script, also inside a folder it creates whole", async () => {
  mkdirSync(join(root, ".git"), { recursive: true });
  writeFileSync(join(root, ".git/config"), "[core]\n");
  await expect(fs.readFile(join(root, ".git/config"))).rejects.toThrow(/inside \.git\//);
  expect(await fs.list(join(root, ".git"))).toEqual([]);
  expect(await fs.stat(join(root, ".git"))).toBe("dir"); // a project root is still found by its .git
  for (const path of [".GIT/config", "GIT~1/x", ".bmad-mcp/x", "docs/scripts/x.py", "_bmad/_config/files-manifest.csv"]) {
    await expect(fs.writeFile(join(root, path), new Uint8Array([1])), path).rejects.toThrow(/machinery|never create or change|never change it/);
  }
  for (const inside of [".git/config", "scripts/x.sh"]) {
    await expect(fs.createTree(join(root, "tree"), new Map([["ok.md", new Uint8Array([1])], [inside, new Uint8Array([1])]])), inside).rejects.toThrow(/machinery|never create or change/);
  }
  expect(readdirSync(root)).not.toContain("tree");
});

it("changes a config by its own name in a project opened through a symlinked path, and by no link to it (reviews 39, 42)", async () => {
  mkdirSync(join(root, "_bmad/custom"), { recursive: true });
  writeFileSync(join(root, "_bmad/custom/team.toml"), '[workflow]\nname = "t"\n');
  const alias = join(tmp.dir, "project-alias");
  symlinkSync(root, alias);
  const opened = await NodeRuntimeFs.create([alias]);
  await opened.writeFile(join(alias, "_bmad/custom/team.toml"), new TextEncoder().encode('[workflow]\nname = "u"\n'));
  expect(readFileSync(join(root, "_bmad/custom/team.toml"), "utf8")).toBe('[workflow]\nname = "u"\n');
  symlinkSync("../_bmad/custom/team.toml", join(root, "docs/team-notes.md"));
  await expect(opened.writeFile(join(alias, "docs/team-notes.md"), new TextEncoder().encode("x"))).rejects.toThrow(/a config or data file is changed by its own name alone/);
});
