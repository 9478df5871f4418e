// bmad-retrospective's git_evidence.py beside its port, on real git repositories: the trees BMAD's own tests build
// (attribution, word boundaries, merges measured and not, renames, non-ASCII and non-UTF-8 paths, binary revisions,
// a hostile log.diffMerges), every shape of range it refuses, argument errors as JSON, a folder that is no
// repository, and no git at all (the remote). The port runs git through the bridge's read-only runner, which runs
// nothing a repository's config names; and it measures a 1 MiB hostile subject, and a story list longer than any command line, in linear time.
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, inject, it } from "vitest";
import { readonlyGit } from "../../src/bridge/git-readonly.js";
import { NodeRuntimeFs } from "../../src/bridge/runtime-fs.js";
import { MAX_COMMAND_LENGTH } from "../../src/core/runtime/command-line.js";
import { main, namesStory } from "../../src/core/runtime/git-evidence.js";
import { pyInt } from "../../src/core/runtime/py-int.js";
import { SKILL_SCRIPTS } from "../../src/core/runtime/scripts.js";
import { comparable, expectSameAsPython, PYTHON, runPython } from "../fixtures/runtime/harness.js";
import { MemoryFs } from "../fixtures/runtime/memory-fs.js";
import { connectBridge, ROOT, tempDir, toolText } from "./helpers.js";
import { withStreams } from "../shared/run-output.js";

const tmp = tempDir("runtime-git-evidence");
afterAll(() => tmp.cleanup());
const skill = join(tmp.dir, "bmad-retrospective");
cpSync(join(ROOT, "node_modules/bmad-method/src/bmm-skills/ship/bmad-retrospective"), skill, { recursive: true });
const script = join(skill, "scripts/git_evidence.py");
const git = readonlyGit(tmp.dir, { timeoutMs: 60_000, find: () => ({ path: "git" }) });
const compare = (cases: string[][]) => expectSameAsPython(script, main, cases, { cwd: tmp.dir, git });

/** The fixtures' git: a fixed identity and clock, and no config from this machine (as BMAD's _git_env). */
const ENV: Record<string, string> = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k, v]) => !k.startsWith("GIT_") && v !== undefined) as Array<[string, string]>),
  ...{ GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@t" },
  ...{ GIT_AUTHOR_DATE: "2026-01-02T03:04:05Z", GIT_COMMITTER_DATE: "2026-01-02T03:04:05Z" },
  ...{ GIT_CONFIG_NOSYSTEM: "1", GIT_ATTR_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", LC_ALL: "C", LANG: "C" },
};
const run = (repo: string, ...args: string[]) => execFileSync("git", ["-C", repo, ...args], { env: ENV, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
const runUnchecked = (repo: string, ...args: string[]) => {
  try {
    return run(repo, ...args);
  } catch {
    return undefined;
  }
};
const write = (repo: string, rel: string | Buffer, data: string | Buffer) => writeFileSync(typeof rel === "string" ? join(repo, rel) : Buffer.concat([Buffer.from(`${repo}/`), rel]), data);

function repo(name: string): string {
  const dir = join(tmp.dir, name);
  mkdirSync(join(dir, "src"), { recursive: true });
  run(dir, "init", "-q", "--template=", "-b", "main"); // no sample hooks: fewer files for each case's snapshot to walk
  return dir;
}

/** _make_repo: two commits, a.py grown and b.py added by the second. */
function linearRepo(name: string): string {
  const dir = repo(name);
  write(dir, "a.py", "one\ntwo\n");
  run(dir, "add", "-A");
  run(dir, "commit", "-qm", "epic-1-1 initial a");
  write(dir, "a.py", "one\ntwo\nthree\nfour\n");
  write(dir, "b.py", "x\n");
  run(dir, "add", "-A");
  run(dir, "commit", "-qm", "epic-1-2 grow a, add b");
  return dir;
}

/** _merge_repo: two story branches merged into main, the second by hand after a conflict. Returns the base. */
function mergeRepo(dir: string): string {
  write(dir, "s.py", "l1\nl2\nl3\n");
  run(dir, "add", "-A");
  run(dir, "commit", "-qm", "base");
  const base = run(dir, "rev-parse", "HEAD");
  run(dir, "checkout", "-q", "-b", "s1");
  write(dir, "s.py", "l1\nA\nl3\n");
  run(dir, "commit", "-qam", "epic-1-2 story one");
  run(dir, "checkout", "-q", "main");
  run(dir, "merge", "-q", "--no-ff", "s1", "-m", "merge story 1-2");
  run(dir, "checkout", "-q", "-b", "s2", base);
  write(dir, "s.py", "l1\nB\nl3\n");
  run(dir, "commit", "-qam", "epic-1-3 story two");
  run(dir, "checkout", "-q", "main");
  expect(runUnchecked(dir, "merge", "--no-ff", "s2", "-m", "merge story 1-3")).toBeUndefined();
  write(dir, "s.py", "l1\nAB\nl3\nl4\n");
  run(dir, "add", "-A");
  run(dir, "commit", "-qm", "merge story 1-3");
  return base;
}

/** A commit of whatever `change` writes, with this message. */
function commit(dir: string, message: string, change: () => void): string {
  change();
  run(dir, "add", "-A");
  run(dir, "commit", "-q", "--allow-empty", "-m", message);
  return run(dir, "rev-parse", "HEAD");
}

it("is the port bmad-run runs for the skill's script", () => {
  expect(SKILL_SCRIPTS.get("bmad-retrospective/git_evidence.py")).toBe(main);
});

it("measures BMAD's test repositories as git_evidence.py does", async () => {
  const linear = linearRepo("linear");
  mkdirSync(join(linear, "sub"));
  const boundary = repo("boundary");
  commit(boundary, "base", () => write(boundary, "f.py", "a\n"));
  commit(boundary, "epic-11-2 unrelated story", () => write(boundary, "f.py", "a\nb\n"));
  const decoy = linearRepo("decoy");
  commit(decoy, "add decoy file named like a range", () => write(decoy, "a..b", "decoy\n"));

  const merged = repo("merged");
  const mergeBase = mergeRepo(merged);
  const hostile = repo("diffmerges-off");
  const hostileBase = mergeRepo(hostile);
  run(hostile, "config", "log.diffMerges", "off");

  const offSpine = repo("off-spine");
  const offBase = commit(offSpine, "base", () => write(offSpine, "f.txt", "base\n"));
  commit(offSpine, "mainline work", () => write(offSpine, "f.txt", "base\nmain1\n"));
  run(offSpine, "checkout", "-q", "-b", "s1", offBase);
  commit(offSpine, "epic-1-2 story one", () => write(offSpine, "s1.txt", "s1\n"));
  run(offSpine, "merge", "-q", "--no-ff", "main", "-m", "back-merge main into s1");
  run(offSpine, "checkout", "-q", "main");
  run(offSpine, "merge", "-q", "--no-ff", "s1", "-m", "merge story 1-2");

  const renamed = repo("renamed");
  const renameBase = commit(renamed, "base", () => write(renamed, "src/mod.py", "l1\nl2\nl3\nl4\nl5\nl6\n"));
  run(renamed, "mv", "src/mod.py", "src/renamed.py");
  run(renamed, "commit", "-qm", "rename mod");
  commit(renamed, "add a line after the rename", () => write(renamed, "src/renamed.py", "l1\nl2\nl3\nl4\nl5\nl6\nl7\n"));

  const binary = repo("binary");
  const binaryBase = commit(binary, "base", () => write(binary, "keep.txt", "keep\n"));
  commit(binary, "add binary content", () => (write(binary, "src/x.py", Buffer.from([0, 1, 0x62, 0x69, 0x6e, 10])), write(binary, "blob.bin", Buffer.from([0, 1, 0x62, 10]))));
  commit(binary, "x.py becomes text", () => write(binary, "src/x.py", "one\ntwo\n"));
  commit(binary, "grow x.py", () => write(binary, "src/x.py", "one\ntwo\nthree\n"));
  commit(binary, "churn the blob", () => write(binary, "blob.bin", Buffer.from([0, 2, 0x62, 10])));

  const names = repo("names");
  const namesBase = commit(names, "base", () => write(names, "src/café.py", "ca\n"));
  commit(names, "touch the accented file, naïve ✓ 1-2", () => write(names, "src/café.py", "ca\ncb\n"));
  // Two paths that are not UTF-8: surrogateescape keeps them two keys.
  commit(names, "epic-1-3 latin-1 names", () => (write(names, Buffer.from("src/caf\xe9.py", "latin1"), "1\n"), write(names, Buffer.from("src/caf\xff.py", "latin1"), "1\n2\n")));
  commit(names, "fix seam between 1-2 and 1-3 (x) 1.2 é1-2", () => write(names, "tab\there.txt", "t\n"));
  commit(names, "a unit\x1fseparator in the subject", () => write(names, "sep.txt", "s\n"));
  const split = repo("split-subject");
  commit(split, "base", () => write(split, "f", "1\n"));
  // str.splitlines() also breaks at U+2028: the subject's tail is read as a numstat line, and int() refuses it.
  commit(split, "head\u2028a\tb\tc", () => write(split, "f", "1\n2\n"));
  const empty = repo("empty");
  mkdirSync(join(tmp.dir, "not-a-repo"));

  const range = (dir: string, r: string, ...rest: string[]) => ["--repo", dir, "--range", r, ...rest];
  await compare([
    ["--repo", linear],
    range(linear, ""),
    range(linear, "HEAD~1..HEAD", "--stories", "1-2,1-1"),
    range(linear, "HEAD~1..HEAD", "--stories", " 1-2 , ,1-2,1-1, é,1-2"),
    range(linear, "HEAD..HEAD"),
    range(linear, "nope..alsonope"),
    // A `:/text` revision, resolved before it is checked as a commit; a side naming nothing in git's error as written;
    // a work tree's .git folder read as git reads it there (review 456).
    range(linear, "HEAD~1..:/grow"),
    range(linear, "HEAD~5..HEAD"),
    range(join(linear, ".git"), "HEAD~1..HEAD"),
    range("linear", "HEAD~1..HEAD"),
    range(join(linear, "sub"), "HEAD~1..HEAD"),
    range(join(linear, "a.py"), "HEAD~1..HEAD"),
    range(join(tmp.dir, "missing"), "HEAD~1..HEAD"),
    range(empty, "HEAD~1..HEAD"),
    range(boundary, "HEAD~1..HEAD", "--stories", "1-2"),
    range(decoy, "a..b"),
    range(merged, `${mergeBase}..HEAD`, "--stories", "1-2,1-3"),
    range(hostile, `${hostileBase}..HEAD`),
    range(offSpine, `${offBase}..HEAD`),
    range(renamed, `${renameBase}..HEAD`),
    range(binary, `${binaryBase}..HEAD`),
    range(names, `${namesBase}..HEAD`, "--stories", "1-3,1-2,(x),1.2,1-3"),
    range(split, "HEAD~1..HEAD"),
  ]);
  // Not equal failures: what BMAD's own tests assert of these repositories holds for the port.
  const fs = await NodeRuntimeFs.create([tmp.dir]);
  const measure = async (dir: string, r: string) => JSON.parse((await main(["--repo", dir, "--range", r], { fs, cwd: tmp.dir, git })).stdout);
  const merges = await measure(merged, `${mergeBase}..HEAD`);
  expect([merges.commit_count, merges.merge_count, merges.merges_measured, merges.merge_files[0]]).toEqual([4, 2, 2, { path: "s.py", added: 3, deleted: 2, net: 1, commit_count: 2, binary_revisions: 0 }]);
  expect((await measure(hostile, `${hostileBase}..HEAD`)).merge_files).toEqual(merges.merge_files);
  expect((await measure(offSpine, `${offBase}..HEAD`)).merge_files.map((f: { path: string }) => f.path)).toEqual(["s1.txt"]);
  expect((await measure(binary, `${binaryBase}..HEAD`)).files.find((f: { path: string }) => f.path === "src/x.py")).toMatchObject({ added: 1, binary_revisions: 2, commit_count: 3 });
  // Newest first; a tab makes git quote the path; two paths that are not UTF-8 stay two.
  expect((await measure(names, `${namesBase}..HEAD`)).files.map((f: { path: string }) => f.path)).toEqual(["sep.txt", '"tab\\there.txt"', "src/caf\udce9.py", "src/caf\udcff.py", "src/café.py"]);
});

it("answers for a folder that is no repository as git does, finding none above the project", async () => {
  const fs = await NodeRuntimeFs.create([tmp.dir]);
  for (const args of [["--repo", join(tmp.dir, "not-a-repo"), "--range", "HEAD~1..HEAD"], ["--range", "HEAD~1..HEAD"]]) {
    const theirs = await runPython(script, args, { cwd: tmp.dir });
    const ours = await main(args, { fs, cwd: tmp.dir, git });
    // The one difference: git looks no higher than the project, so it never reaches a mount point to name.
    expect(JSON.parse(theirs.stdout).error).toMatch(/^fatal: not a git repository \(or any (of the parent directories|parent up to mount point)/);
    expect(ours).toEqual({ ...theirs, stdout: `{"ok": false, "error": "fatal: not a git repository (or any of the parent directories): .git"}` });
  }
});

it("takes no folder the model filled with HEAD and a commondir for a repository: another one's history stays unread (an eighth review)", async () => {
  const elsewhere = linearRepo("elsewhere-secret");
  run(elsewhere, "commit", "-q", "--allow-empty", "-m", "SECRET: rotate the prod password");
  // What a model can write with bmad-files: plain files in a content folder, naming the other repository's store.
  const fake = join(tmp.dir, "_bmad-output/r");
  mkdirSync(join(fake, "objects"), { recursive: true });
  mkdirSync(join(fake, "refs"), { recursive: true });
  writeFileSync(join(fake, "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(fake, "commondir"), `${join(elsewhere, ".git")}\n`);
  const fs = await NodeRuntimeFs.create([tmp.dir]);
  const ours = await main(["--repo", fake, "--range", "HEAD~1..HEAD"], { fs, cwd: tmp.dir, git });
  expect(ours.stdout).not.toContain("SECRET");
  expect(JSON.parse(ours.stdout)).toMatchObject({ ok: false });
});

it("reads no repository a .git file, link, commondir or alternates leads to outside the project, and reads an honest worktree's and submodule's", async () => {
  const secret = linearRepo("outside-secret");
  commit(secret, "OUTSIDESECRET: confidential acquisition of Globex", () => write(secret, "acquisition-plan-OUTSIDESECRET.md", "s3cret plan\n"));
  /** git_evidence in a bridge whose project is `project`. */
  const measureIn = async (project: string) =>
    main(["--repo", project, "--range", "HEAD~2..HEAD"], { fs: await NodeRuntimeFs.create([project]), cwd: project, git: readonlyGit(project, { timeoutMs: 60_000, find: () => ({ path: "git" }) }) });
  const project = (name: string, dotGit?: string) => {
    const dir = join(tmp.dir, name);
    mkdirSync(dir);
    if (dotGit !== undefined) writeFileSync(join(dir, ".git"), dotGit);
    return dir;
  };
  const subjects = ["OUTSIDESECRET: confidential acquisition of Globex", "epic-1-2 grow a, add b"];

  // An honest linked worktree (its store in the main repository's .git/worktrees, naming this .git back) and
  // submodule (in the superproject's .git/modules, its core.worktree here) read their repository's history.
  const worktree = join(tmp.dir, "honest-worktree");
  run(secret, "worktree", "add", "-q", worktree);
  const superproject = repo("superproject");
  commit(superproject, "super", () => write(superproject, "s.txt", "s\n"));
  run(superproject, "-c", "protocol.file.allow=always", "submodule", "add", "-q", secret, "sub");
  for (const honest of [worktree, join(superproject, "sub")]) {
    const ours = await measureIn(honest);
    expect(JSON.parse(ours.stdout).commits.map((c: { subject: string }) => c.subject), ours.stdout).toEqual(subjects);
  }

  // What a project can arrive with: a .git file naming a sibling's .git, or a worktree's or submodule's store that
  // names another work tree back; a .git link; a .git folder whose commondir or alternates lead out.
  const store = join(secret, ".git");
  const shared = join(tmp.dir, "shared-clone");
  execFileSync("git", ["clone", "-q", "--shared", secret, shared], { env: ENV });
  const commondir = repo("commondir-out");
  writeFileSync(join(commondir, ".git/commondir"), `${store}\n`);
  const linked = project("git-link");
  symlinkSync(store, join(linked, ".git"));
  const leading: Array<[string, string]> = [
    [project("gitdir-file", "gitdir: ../outside-secret/.git\n"), store],
    [project("worktree-impostor", `gitdir: ${join(store, "worktrees/honest-worktree")}\n`), join(store, "worktrees/honest-worktree")],
    [project("submodule-impostor", "gitdir: ../superproject/.git/modules/sub\n"), join(superproject, ".git/modules/sub")],
    [linked, store],
    [commondir, store],
    [shared, join(store, "objects")],
  ];
  for (const [dir, where] of leading) {
    const ours = await measureIn(dir);
    expect(ours.stdout, dir).not.toMatch(/OUTSIDESECRET|epic-1-2/);
    expect(JSON.parse(ours.stdout), dir).toEqual({ ok: false, error: expect.stringContaining(`fatal: the project's .git leads outside it, to ${realpathSync(where)}: git reads only a repository of the project's own.`) });
  }

  // A store of its own whose packs are links out, directly or through a folder of the project (review 119: git read
  // another repository's commits and files through a linked objects/pack).
  run(secret, "repack", "-a", "-d", "-q");
  const packs = join(store, "objects/pack");
  const direct = linearRepo("pack-linked");
  rmSync(join(direct, ".git/objects/pack"), { recursive: true, force: true });
  symlinkSync(packs, join(direct, ".git/objects/pack"));
  const viaFolder = linearRepo("pack-via-folder");
  mkdirSync(join(viaFolder, "packs"));
  for (const name of readdirSync(packs)) symlinkSync(join(packs, name), join(viaFolder, "packs", name));
  rmSync(join(viaFolder, ".git/objects/pack"), { recursive: true, force: true });
  symlinkSync("../../packs", join(viaFolder, ".git/objects/pack"));
  for (const [dir, link] of [[direct, `${realpathSync(direct)}/.git/objects/pack, a link to ${realpathSync(packs)}`], [viaFolder, `${realpathSync(join(viaFolder, "packs"))}/pack-`]] as const) {
    writeFileSync(join(dir, ".git/refs/heads/main"), `${run(secret, "rev-parse", "HEAD")}\n`);
    const ours = await measureIn(dir);
    expect(ours.stdout, dir).not.toMatch(/OUTSIDESECRET/);
    expect(JSON.parse(ours.stdout).error, dir).toContain(`fatal: the project's .git leads outside it, to ${link}`);
  }
  // A link git reads no data through (a shared hooks folder, LFS's store) is the user's setup: read as before (review 123).
  const sharedHooks = linearRepo("shared-hooks");
  commit(sharedHooks, "epic-1-3 c", () => write(sharedHooks, "c.py", "c\n"));
  rmSync(join(sharedHooks, ".git/hooks"), { recursive: true, force: true });
  mkdirSync(join(tmp.dir, "team-hooks"));
  symlinkSync(join(tmp.dir, "team-hooks"), join(sharedHooks, ".git/hooks"));
  mkdirSync(join(sharedHooks, ".git/lfs"));
  symlinkSync(join(tmp.dir, "team-hooks"), join(sharedHooks, ".git/lfs/objects"));
  const honest = (await measureIn(sharedHooks)).stdout;
  expect(JSON.parse(honest).commits, honest).toHaveLength(2);
});

it("refuses what is no REV..REV range, and argument errors, as JSON with exit 2", async () => {
  const linear = join(tmp.dir, "linear");
  const bad = ["HEAD", "a.py", "..", "a..", "..HEAD", "-3..HEAD", " HEAD~1..HEAD", "HEAD~1..HEAD\n", "HEAD~1...HEAD", "a...b", "--output=evil.txt"];
  await compare(bad.map((r) => ["--repo", linear, `--range=${r}`]));
  expect(existsSync(join(linear, "evil.txt"))).toBe(false);
  await compare([["--bogus-flag"], ["-h"], ["--help"], ["--r", "x"], ["--range"], ["--repo", linear, "--range", "HEAD~1..HEAD", "extra"], ["--stories"]]);
});

it("answers as the Python does where there is no git (the remote), whatever the folder", async () => {
  const cases = [
    ["--repo", join(tmp.dir, "linear"), "--range", "HEAD~1..HEAD"],
    ["--repo", join(tmp.dir, "missing"), "--range", "HEAD~1..HEAD", "--stories", "1-2"],
    ["--range", "a..b"],
  ];
  const fs = await NodeRuntimeFs.create([tmp.dir]);
  for (const args of cases) {
    const theirs = comparable(await runPython(script, args, { cwd: tmp.dir, env: { PATH: join(tmp.dir, "no-bin") } }));
    expect(theirs.stdout).toBe(`{"ok": false, "error": "[Errno 2] No such file or directory: 'git'"}`);
    expect(await main(args, { fs, cwd: tmp.dir })).toEqual(theirs);
    expect(await main(args, { fs: new MemoryFs(), cwd: "/" })).toEqual(theirs);
    // A bridge on a machine with no git on PATH.
    expect(await main(args, { fs, cwd: tmp.dir, git: readonlyGit(tmp.dir, { timeoutMs: 60_000, find: () => undefined }) })).toEqual(theirs);
  }
  // Without a range nothing needs git.
  expect((await main([], { fs: new MemoryFs(), cwd: "/" })).stdout).toBe('{"range": null, "note": "no range supplied", "commits": [], "files": []}');
});

it("runs nothing a repository's config names when git_evidence and bmad-run's git lines run through the bridge, and writes nothing in .git", async () => {
  const dir = repo("hostile-config");
  const markers = ["fsmonitor", "gpg", "textconv", "external", "clean", "hook", "pager"].map((name) => join(tmp.dir, `marker-${name}`));
  const program = (name: string, marker: string, path = join(tmp.dir, `${name}.sh`)) => {
    // A filter gets the file on stdin and must give it back; the others are given a file.
    writeFileSync(path, `#!/bin/sh\ntouch '${marker}'\n${name === "clean" ? "cat" : `cat "$1" 2>/dev/null`}\n`);
    chmodSync(path, 0o755);
    return path;
  };
  commit(dir, "base", () => write(dir, "f.txt", "a\n"));
  commit(dir, "epic-1-1 grow", () => (write(dir, "f.txt", "a\nb\n"), write(dir, ".gitattributes", "* diff=evil filter=evil\n")));
  // A signed-looking commit on top: with log.showSignature, git log hands it to gpg.program.
  const tree = run(dir, "rev-parse", "HEAD^{tree}");
  const signed = `tree ${tree}\nparent ${run(dir, "rev-parse", "HEAD")}\nauthor T <t@t> 1767323045 +0000\ncommitter T <t@t> 1767323045 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nepic-1-2 signed\n`;
  const sha = execFileSync("git", ["-C", dir, "hash-object", "-t", "commit", "-w", "--stdin"], { input: signed, env: ENV, encoding: "utf8" }).trim();
  run(dir, "update-ref", "HEAD", sha);
  run(dir, "config", "core.fsmonitor", program("fsmonitor", markers[0]!));
  run(dir, "config", "log.showSignature", "true");
  run(dir, "config", "gpg.program", program("gpg", markers[1]!));
  run(dir, "config", "diff.evil.textconv", program("textconv", markers[2]!));
  run(dir, "config", "diff.external", program("external", markers[3]!));
  run(dir, "config", "filter.evil.clean", program("clean", markers[4]!));
  run(dir, "config", "filter.evil.required", "true");
  mkdirSync(join(dir, ".git/hooks"));
  program("hook", markers[5]!, join(dir, ".git/hooks/post-index-change"));
  run(dir, "config", "core.pager", program("pager", markers[6]!));
  run(dir, "config", "format.pretty", "%H %G?");
  // A change to show, and a file whose time changed but not its bytes: git hashes it (through the clean filter).
  write(dir, "f.txt", "a\nb\nc\n");
  const touched = () => utimesSync(join(dir, ".gitattributes"), new Date(), new Date(Date.now() + Math.random() * 1e9));
  touched();
  // The fixture is live: git status runs the fsmonitor, the clean filter and (writing the index) the hook, and the
  // Python's own git log runs gpg.program.
  run(dir, "status");
  const python = await runPython(script, ["--repo", dir, "--range", "HEAD~2..HEAD", "--stories", "1-1,1-2"], { cwd: dir });
  expect([[0, 1, 4, 5].map((i) => existsSync(markers[i]!)), python.exitCode]).toEqual([[true, true, true, true], 0]);
  for (const marker of markers) execFileSync("rm", ["-f", marker]);
  touched();
  const head = run(dir, "rev-parse", "HEAD");
  /** Every file in .git, with its bytes. */
  const store = () => (readdirSync(join(dir, ".git"), { recursive: true, encoding: "utf8" }) as string[]).sort().map((rel) => [rel, statSync(join(dir, ".git", rel)).isFile() ? readFileSync(join(dir, ".git", rel)).toString("base64") : "dir"]);
  const before = store();

  const bridge = await connectBridge(inject("bridge"), dir, { home: join(tmp.dir, "home") });
  const bmadRun = async (command: string) => {
    const result = await bridge.client.callTool({ name: "bmad-run", arguments: { command } });
    return { text: toolText(result), isError: result.isError === true, out: withStreams(toolText(result), result.structuredContent as { exit_code: number } | undefined) };
  };
  try {
    // bmad-run's read-only git lines (review 161: the user was asked four times for one story), argv with no shell.
    expect((await bmadRun("git rev-parse HEAD")).out).toMatchObject({ exit_code: 0, stdout: `${head}\n` });
    expect((await bmadRun("git status --porcelain")).out).toMatchObject({ exit_code: 0, stdout: " M f.txt\n" });
    expect((await bmadRun("git branch --show-current")).out).toMatchObject({ exit_code: 0, stdout: "main\n" });
    expect((await bmadRun("git log --oneline -5")).out?.stdout).toMatch(new RegExp(`^${head.slice(0, 7)} epic-1-2 signed\\n\\w+ epic-1-1 grow\\n\\w+ base\\n$`));
    // The repository's format.pretty (%G? verifies signatures) is not the default here.
    expect((await bmadRun("git log -n 1")).out?.stdout).toMatch(new RegExp(`^commit ${head}\\nAuthor: T <t@t>\\n`));
    expect((await bmadRun("git diff")).out?.stdout).toMatch(/^diff --git a\/f\.txt b\/f\.txt\n[^]*\n b\n\+c\n$/);
    expect((await bmadRun("git diff HEAD~2...HEAD --stat")).out?.stdout).toMatch(/^ \.gitattributes \| 1 \+\n f\.txt +\| 1 \+\n 2 files changed, 2 insertions\(\+\)\n$/);
    // Any other git line is the user's to run, as before; a `> file` is sent without it, its output kept in the conversation.
    for (const line of ["git commit -am x", "git stash", "git -c core.pager=sh log -n 1", "git -C .. status", "git --git-dir=/tmp/x log -n 1", "git diff --ext-diff", "git diff --output=evil", "git diff --textconv", "git log --oneline", "git diff -- .git/config", "git diff -- ../elsewhere", "git status && rm -rf x"]) {
      const answer = await bmadRun(line);
      expect([answer.isError, answer.text], line).toEqual([true, expect.stringMatching(/; [^;]+\. Ask the user to run the git command and give you its output/)]);
    }
    // code-review's `git diff HEAD > {diff_file}` runs without its redirect, which is not done: one answer, the diff in
    // it, no file written anywhere (review 373: refused, sent again, and advised to write the diff into the project).
    for (const target of [join(tmp.dir, "cr.diff"), "review.diff"]) {
      const redirected = await bmadRun(`git diff HEAD > ${target}`);
      expect([redirected.isError, redirected.text]).toEqual([false, expect.stringMatching(/^Note: ran as "git diff HEAD": bmad-run writes no file for git, so the redirect was not done and no file was written\. Its output is the text after "stdout:" below; keep it in the conversation, where a later step that reads the file \(code-review's \{diff_file\}\) reads it instead\.\n/)]);
      expect(redirected.out?.stdout).toMatch(/^diff --git a\/f\.txt b\/f\.txt\n/);
      expect(existsSync(target.startsWith("/") ? target : join(dir, target)), target).toBe(false);
    }
    expect((await bmadRun("git status --porcelain")).out?.stdout).not.toContain("review.diff");
    // `2>`, `2>&1` and `1>` are redirects, their fd no revision of git's (review 380: "bad revision '2'").
    expect((await bmadRun("git status --porcelain 2>/dev/null")).out).toMatchObject({ exit_code: 0, stdout: " M f.txt\n" });
    expect((await bmadRun("git log --oneline -n 1 2>/dev/null")).out).toMatchObject({ exit_code: 0, stdout: `${head.slice(0, 7)} epic-1-2 signed\n` });
    expect((await bmadRun("git rev-parse HEAD 1>out.txt 2>&1")).out).toMatchObject({ exit_code: 0, stdout: `${head}\n` });
    // A redirect with more after it is refused whole: no answer reads as if the rest ran (review 380: "ran as …").
    for (const [line, operator] of [["git diff > x; touch MARK1", ";"], ["git diff HEAD > x && git add -A && git commit -m wip", "&&"]] as const) {
      const answer = await bmadRun(line);
      expect([answer.isError, answer.text], line).toEqual([true, expect.stringContaining(`; "${operator}" needs a shell. Ask the user to run the git command`)]);
    }
    expect(["x", "MARK1", "out.txt"].filter((f) => existsSync(join(dir, f)))).toEqual([]);
    // git_evidence.py given a folder outside the project: said as such (review 161: "No such file or directory").
    const outside = await bmadRun(`uv run {skill-root}/scripts/git_evidence.py --repo ${tmp.dir} --range HEAD~1..HEAD`);
    expect(JSON.parse(outside.out!.stdout).error).toBe(`fatal: ${tmp.dir} is outside the project (${dir}): git runs here only in the project's own folders; give one inside it.`);
    const command = "uv run {skill-root}/scripts/git_evidence.py --repo {project-root} --range HEAD~2..HEAD --stories 1-1,1-2";
    const result = await bridge.client.callTool({ name: "bmad-run", arguments: { command } }).catch((e: Error) => {
      throw new Error(`${e.message}\n${bridge.stderr()}`);
    });
    const out = withStreams(toolText(result), result.structuredContent as { exit_code: number })!;
    expect(out.exit_code, toolText(result)).toBe(0);
    expect(out.stdout).toBe(python.stdout);
    expect(JSON.parse(out.stdout)).toMatchObject({ commit_count: 2, files: [{ path: ".gitattributes", added: 1 }, { path: "f.txt", added: 1 }] });
  } finally {
    await bridge.close();
  }
  expect(markers.filter((m) => existsSync(m))).toEqual([]);
  expect(store()).toEqual(before);
  // The runner itself: a patch log would run textconv and the external diff; a subcommand that writes is refused.
  const patch = await git({ dir, args: ["log", "-p", "-2"] });
  expect([patch?.exitCode, markers.filter((m) => existsSync(m))]).toEqual([0, []]);
  const refused = await git({ dir, args: ["log", "--output=evil", "-1"] });
  expect([refused?.exitCode, existsSync(join(dir, "evil"))]).toEqual([128, false]);
  expect((await git({ dir, args: ["gc"] }))?.exitCode).toBe(128);
  expect((await git({ dir: "/", args: ["log", "-1"] }))?.exitCode).toBe(128);
});

it("measures a 1 MiB hostile subject, and a story list four times the longest command line, in linear time", async () => {
  const dir = repo("hostile-subject");
  commit(dir, "base", () => write(dir, "f", "1\n"));
  // Story ids everywhere, none at a word boundary; and a story list of 10,000 ids, longer than any bmad-run can pass.
  const subjectFile = join(tmp.dir, "subject.txt");
  writeFileSync(subjectFile, `${"x1-2".repeat(1 << 18)}\n`);
  execFileSync("git", ["-C", dir, "commit", "-q", "--allow-empty", "-F", subjectFile], { env: ENV });
  commit(dir, "short s-7", () => write(dir, "f", "1\n2\n"));
  const stories = Array.from({ length: 10_000 }, (_, i) => `s-${i}`).join(",");
  expect(stories.length).toBeGreaterThan(4 * MAX_COMMAND_LENGTH);
  const fs = await NodeRuntimeFs.create([tmp.dir]);
  const started = performance.now();
  const long = await main(["--repo", dir, "--range", "HEAD~2..HEAD~1", "--stories", "1-2,1-2x,é"], { fs, cwd: tmp.dir, git });
  const many = await main(["--repo", dir, "--range", "HEAD~1..HEAD", "--stories", stories], { fs, cwd: tmp.dir, git });
  expect(performance.now() - started).toBeLessThan(5000);
  expect(JSON.parse(long.stdout).commits[0].stories).toEqual([]);
  expect(JSON.parse(long.stdout).commits[0].subject).toHaveLength(1 << 20);
  expect(JSON.parse(many.stdout).stories_supplied).toHaveLength(10_000);
  expect(JSON.parse(many.stdout).commits[0].stories).toEqual(["s-7"]);
  expect(namesStory(`${"é1-2".repeat(1 << 18)} 1-2.`, "1-2")).toBe(true);
});

/** Python's answers for each input of `expr` (a lambda over one JSON value): the value, or the exception's text. */
function python(expr: string, inputs: unknown[]): unknown[] {
  const code = `import json, re, sys\nf = ${expr}\ndef one(x):\n    try:\n        return f(x)\n    except Exception as e:\n        return "error: " + str(e)\nprint(json.dumps([one(x) for x in json.load(sys.stdin)]))`;
  return JSON.parse(execFileSync(PYTHON, ["-c", code], { input: JSON.stringify(inputs), encoding: "utf8", maxBuffer: 64 << 20 })) as unknown[];
}

it("reads numbers as int() does and story ids as re.search(rf'\\b…\\b') does", () => {
  const numbers = ["12", " 7\t", "+3", "-0", "1_000", "1__0", "_1", "1_", "٣٤", "𝟗𝟘", "x", "", "1 2", "1".repeat(4300), "1".repeat(4301), `${"1".repeat(5000)}x`, `${"1".repeat(4301)}_`, "é".repeat(300), "0x10"];
  const ours = numbers.map((n) => {
    try {
      return Number(pyInt(n) % 1000n);
    } catch (e) {
      return `error: ${(e as Error).message}`;
    }
  });
  expect(ours).toEqual(python("lambda x: int(x) % 1000", numbers));
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = (parts: string[], n: number) => Array.from({ length: n }, () => parts[Math.floor(next() * parts.length)]).join("");
  const parts = ["1", "-", "2", "a", " ", "é", "_", ".", "(", ")", "😀", "٣"];
  const pairs = Array.from({ length: 3000 }, () => [pick(parts, Math.floor(next() * 12)), pick(parts, 1 + Math.floor(next() * 3))] as [string, string]);
  expect(pairs.map(([subject, sid]) => namesStory(subject, sid))).toEqual(python('lambda p: re.search(rf"\\b{re.escape(p[1])}\\b", p[0]) is not None', pairs));
});

it("reads no work tree outside the project that a repository's core.worktree names (review 164: git status listed /etc)", async () => {
  const dir = repo("worktree-out");
  commit(dir, "base", () => write(dir, "plan.md", "ours\n"));
  const elsewhere = join(tmp.dir, "elsewhere-tree");
  mkdirSync(elsewhere, { recursive: true });
  writeFileSync(join(elsewhere, "plan.md"), "OUTSIDE-SECRET\n");
  run(dir, "config", "core.worktree", elsewhere);
  // The repository's folder is the project: the other tree is beside it.
  const inProject = readonlyGit(dir, { timeoutMs: 60_000, find: () => ({ path: "git" }) });
  for (const args of [["status", "--porcelain"], ["diff"], ["diff", "--stat", "--end-of-options", "HEAD", "--"]]) {
    const ran = (await inProject({ dir, args }))!;
    const said = `${new TextDecoder().decode(ran.stdout)}${new TextDecoder().decode(ran.stderr)}`;
    expect([ran.exitCode, said], args.join(" ")).toEqual([128, "fatal: this repository's work tree (core.worktree) is outside the project: git reads the working tree here only inside the project."]);
  }
  // History alone is read as before.
  expect((await inProject({ dir, args: ["log", "-n1", "--oneline"] }))?.exitCode).toBe(0);
});

it("shows through bmad-run's git lines no file that bmad-files withholds, and names the untracked files a diff leaves out (review 213)", async () => {
  const dir = repo("secrets");
  // The diffs below start from an empty commit: every file new.
  commit(dir, "empty", () => {});
  mkdirSync(join(dir, "keys dir"));
  // An edit in the same second as the last `git add`, of the same size: git compares such a file's bytes, since its
  // time is not after the index's.
  const then = new Date("2020-01-02T03:04:05Z");
  commit(dir, "base", () => {
    write(dir, ".env", "API_KEY=SECRET-ENV-1\n");
    write(dir, "id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\nSECRET-KEY-1\n-----END OPENSSH PRIVATE KEY-----\n");
    write(dir, "config.yaml", "password: SECRET-CONFIG-1\nname: app\n");
    write(dir, "keys dir/deploy key.pem", "SECRET-PEM-1\n");
    write(dir, "clé.env", "TOKEN=SECRET-QUOTED-1\n");
    write(dir, "notes.txt", "one\ntwo\nthree\nfour\nSECRET-RENAMED-1\n");
    write(dir, "src/app.js", "let a = 1;\n");
    utimesSync(join(dir, "src/app.js"), then, then);
  });
  // A repository's config that would hide each file's header from the filter: colour, no or other prefixes.
  for (const [key, value] of [["color.diff", "always"], ["diff.noprefix", "true"], ["diff.mnemonicPrefix", "true"], ["diff.renames", "true"]]) run(dir, "config", key!, value!);
  run(dir, "mv", "notes.txt", "prod.env");
  write(dir, ".env", "API_KEY=SECRET-ENV-2\n");
  write(dir, "config.yaml", "password: SECRET-CONFIG-2\nname: app\n");
  write(dir, "clé.env", "TOKEN=SECRET-QUOTED-2\n");
  write(dir, "src/app.js", "let a = 2;\n");
  run(dir, "config", "core.trustctime", "false");
  utimesSync(join(dir, "src/app.js"), then, then);
  utimesSync(join(dir, ".git/index"), then, then);
  // What dev-story made, git not told: a file, one in a new folder, and a secret one.
  write(dir, "src/new.js", "export const made = true;\n");
  mkdirSync(join(dir, "src/feature"));
  write(dir, "src/feature/part.js", "export const part = 1;\n");
  write(dir, ".env.local", "API_KEY=SECRET-UNTRACKED-1\n");

  const bridge = await connectBridge(inject("bridge"), dir, { home: join(tmp.dir, "home-secrets") });
  const bmadRun = async (command: string) => {
    const result = await bridge.client.callTool({ name: "bmad-run", arguments: { command } });
    return { text: toolText(result), out: withStreams(toolText(result), result.structuredContent as { exit_code: number } | undefined)! };
  };
  try {
    const all = await bmadRun("git diff HEAD~1 -- .env id_ed25519 config.yaml");
    expect(all.text).not.toMatch(/SECRET/);
    expect(all.out.stdout).toBe(
      "[bmad-mcp withheld the diff of .env: it holds secrets, which no tool reads]\n" +
        "diff --git a/config.yaml b/config.yaml\nnew file mode 100644\n--- /dev/null\n+++ b/config.yaml\n" +
        "[bmad-mcp withheld the changed lines of config.yaml: a config's lines can hold secrets; bmad-files read serves it without its secret-looking keys]\n" +
        "[bmad-mcp withheld the diff of id_ed25519: it holds secrets, which no tool reads]\n",
    );
    expect(all.text).toMatch(/^Note: withheld: \.env, id_ed25519, which hold secrets; no tool reads them\. Ask the user for what you need from them\.\nNote: the changed lines of config\.yaml are withheld \(a config's lines can hold secrets\): read the file with bmad-files, which serves it without its secret-looking keys\.\ngit exited 0\n/);
    // code-review's own line: every secret withheld (a rename into one, a quoted name, a name with a space), the code
    // shown, and what git does not track named, a secret one as withheld only.
    const review = await bmadRun("git diff HEAD");
    expect(review.text).not.toMatch(/SECRET/);
    expect(review.out.stdout).toContain("diff --git a/src/app.js b/src/app.js\nindex ");
    expect(review.out.stdout).toContain("-let a = 1;\n+let a = 2;\n");
    expect(review.text.split("\n").slice(0, 3)).toEqual([
      "Note: withheld: .env, clé.env, notes.txt and prod.env, .env.local, which hold secrets; no tool reads them. Ask the user for what you need from them.",
      "Note: the changed lines of config.yaml are withheld (a config's lines can hold secrets): read the file with bmad-files, which serves it without its secret-looking keys.",
      "Note: untracked, not in this diff: src/feature/part.js, src/new.js; read them with bmad-files.",
    ]);
    const everything = await bmadRun("git diff HEAD~1");
    expect(everything.text).not.toMatch(/SECRET/);
    expect(everything.out.stdout).toContain("\n[bmad-mcp withheld the diff of keys dir/deploy key.pem: it holds secrets, which no tool reads]\n");
    // An untracked file asked for by name is said to be untracked, not answered with an empty diff.
    const made = await bmadRun("git diff HEAD -- src/new.js");
    expect([made.out.stdout, made.text.split("\n")[0]]).toEqual(["", "Note: untracked, not in this diff: src/new.js; read them with bmad-files."]);
    // A diff between commits leaves the working tree out: no untracked files to name.
    expect((await bmadRun("git diff HEAD~0..HEAD")).text).toBe("git exited 0");
    expect((await bmadRun("git diff HEAD --stat")).text).toMatch(/^Note: withheld: \.env\.local, which hold secrets; [^\n]*\nNote: untracked, not in this diff: src\/feature\/part\.js, src\/new\.js; read them with bmad-files\.\ngit exited 0\nstdout:\n/);
  } finally {
    await bridge.close();
  }
  // git's ls-files runs at the door in one form only.
  expect((await git({ dir, args: ["ls-files", "--stage"] }))?.refused).toBe("git ls-files runs here only as git ls-files --others --exclude-standard -z -- [PATH…].");
});

it("shows through bmad-run's git lines no private key and no token a file's lines hold, whatever the file is called (review 429)", async () => {
  const dir = repo("shaped");
  mkdirSync(join(dir, "docs"));
  const token = ["ghp", "Zq9vR2mK7xT4wP1sL8nB3cD6fG0hJ5kY2aE7"].join("_");
  commit(dir, "base", () => (write(dir, "docs/notes.md", "# Notes\n"), write(dir, "src/app.js", "let a = 1;\n")));
  commit(dir, "second", () => {
    write(dir, "docs/notes.md", `# Notes\n\nCI uses ${token}\n`);
    write(dir, "deploy_key.txt", "-----BEGIN OPENSSH PRIVATE KEY-----\nSECRET-KEY-BODY\n-----END OPENSSH PRIVATE KEY-----\n");
    write(dir, "src/app.js", "let a = 2;\n");
  });
  const bridge = await connectBridge(inject("bridge"), dir, { home: join(tmp.dir, "home-shaped") });
  try {
    // Between commits, where no working tree's read refuses them, and against the working tree.
    for (const line of ["git diff HEAD~1 HEAD", "git diff HEAD~1"]) {
      const result = await bridge.client.callTool({ name: "bmad-run", arguments: { command: line } });
      const out = toolText(result);
      expect(out, line).not.toMatch(/SECRET|ghp_/);
      expect(out, line).toContain("+let a = 2;");
      expect(out, line).toMatch(/\[bmad-mcp withheld the diff of deploy_key\.txt: (it holds secrets, which no tool reads|bmad-files read refuses it: [^\]]*holds secrets)/);
      expect(out, line).toContain("[bmad-mcp withheld the changed lines of docs/notes.md: they hold what looks like a secret (a token, a password given), which push sends to no remote either]");
      expect(out, line).toContain("Note: the changed lines of docs/notes.md are withheld: they hold what looks like a secret. Ask the user to take it out of the file.");
    }
  } finally {
    await bridge.close();
  }
});

it("diffs through bmad-run's git lines commits only, and shows no working-tree file bmad-files refuses, no machinery and no colour (review 216)", async () => {
  const dir = repo("refused");
  const key = join(tmp.dir, "outside-id_rsa");
  writeFileSync(key, "-----BEGIN OPENSSH PRIVATE KEY-----\nSECRET-OUTSIDE\n");
  mkdirSync(join(dir, ".bmad-mcp"));
  commit(dir, "base", () => (write(dir, "config.yaml", "name: app\n"), write(dir, "notes.txt", "hello\n"), write(dir, ".bmad-mcp/state.json", '{"a":1}\n'), write(dir, "llm.yaml", "model: a\n"), write(dir, "plan.yaml", "step: 1\n")));
  commit(dir, "second", () => (write(dir, "config.yaml", "name: app\ndb_password: SECRET-CONFIG\n"), write(dir, ".bmad-mcp/state.json", '{"token":"SECRET-MACHINERY"}\n'), write(dir, "llm.yaml", "model: a\napi_key: sk-proj-SECRETxk9pL2mQ7vR4tW8zY3nBq1Lm\n"), write(dir, "plan.yaml", "step: 2\n")));
  const [before, after] = [run(dir, "rev-parse", "HEAD~1:config.yaml"), run(dir, "rev-parse", "HEAD:config.yaml")];
  run(dir, "tag", "blob-tag", after);
  run(dir, "tag", "tree-tag", "HEAD^{tree}");
  for (const setting of ["color.ui", "color.status", "color.diff", "color.branch"]) run(dir, "config", setting, "always");
  // A tracked file made another name of a key outside the project: bmad-files refuses to read it.
  rmSync(join(dir, "notes.txt"));
  linkSync(key, join(dir, "notes.txt"));

  const bridge = await connectBridge(inject("bridge"), dir, { home: join(tmp.dir, "home-refused") });
  const bmadRun = async (command: string) => {
    const result = await bridge.client.callTool({ name: "bmad-run", arguments: { command } });
    return { text: toolText(result), out: withStreams(toolText(result), result.structuredContent as { exit_code: number } | undefined)! };
  };
  try {
    // A blob's id, or a tag of one, is no commit: refused unrun, whatever form names it.
    for (const line of [`git diff ${before.slice(0, 7)} ${after.slice(0, 7)}`, `git diff ${after}`, "git diff blob-tag", "git diff HEAD..blob-tag --stat", "git log -n 1 blob-tag", "git diff tree-tag HEAD"]) {
      const { text } = await bmadRun(line);
      expect(text, line).not.toMatch(/SECRET/);
      // No git ran: the refusal itself, not git's "fatal" and exit 128 (review 364).
      expect(text, line).toMatch(/^Not run: "[\w-]+" names no commit: git (diff|log) here compares commits only/);
    }
    // A config's kept header gives no blob ids to ask for.
    const config = await bmadRun("git diff HEAD~1 HEAD -- config.yaml");
    expect(config.out.stdout).toBe("diff --git a/config.yaml b/config.yaml\n--- a/config.yaml\n+++ b/config.yaml\n[bmad-mcp withheld the changed lines of config.yaml: a config's lines can hold secrets; bmad-files read serves it without its secret-looking keys]\n");
    // A data file not named config is one where its lines hold secrets (review 250); without, its lines are shown.
    const data = await bmadRun("git diff HEAD~1 HEAD -- llm.yaml plan.yaml");
    expect(data.text).not.toMatch(/SECRET/);
    expect(data.out.stdout).toContain("[bmad-mcp withheld the changed lines of llm.yaml: a config's lines can hold secrets; bmad-files read serves it without its secret-looking keys]\n");
    expect(data.out.stdout).toContain("-step: 1\n+step: 2\n");
    // The bridge's own state, committed, is no content.
    const history = await bmadRun("git diff HEAD~1 HEAD");
    expect(history.text).not.toMatch(/SECRET/);
    expect(history.out.stdout).toContain("[bmad-mcp withheld the diff of .bmad-mcp/state.json: bmad-files read refuses it: it is tools' machinery rather than the project's content]\n");
    expect(history.text).toContain("Note: withheld: .bmad-mcp/state.json, which bmad-files read refuses (the output says why in each one's place).\n");
    // The working tree's file read as bmad-files reads it: a hard link is no file of the project's.
    for (const line of ["git diff", "git diff HEAD -- notes.txt"]) {
      const { text, out } = await bmadRun(line);
      expect(text, line).not.toMatch(/SECRET/);
      expect(out.stdout, line).toMatch(/^\[bmad-mcp withheld the diff of notes\.txt: bmad-files read refuses it: [^\n]*is a hard link[^\n]*\]\n$/);
      expect(text, line).toMatch(/^Note: withheld: notes\.txt, which bmad-files read refuses/);
    }
    // No escape codes, whatever the repository's colour settings.
    const status = await bmadRun("git status --short");
    expect(status.out.stdout).toBe(" M notes.txt\n");
  } finally {
    await bridge.close();
  }
});

it("judges a data file in bmad-run's git diff by its whole text at each side, not the hunk's lines, and no other git line prints one (review 260)", async () => {
  const dir = repo("data-sides");
  // The changed line is a value below `password:`, more than a hunk's context above it: the hunk shows no secret key.
  // (A data file holds secrets by their shape: a token, review 259.)
  const llm = (replica: string) => `database:\n  password:\n    primary: sk-proj-SECRETxk9pL2mQ7vR4tW8zY3nBq1Lm\n    a: 1\n    b: 2\n    c: 3\n    d: 4\n    replica: ${replica}\n`;
  commit(dir, "base", () => (write(dir, "llm.yaml", llm("SECRET-OLD")), write(dir, "plan.yaml", "step: 1\n")));
  commit(dir, "second", () => (write(dir, "llm.yaml", llm("SECRET-NEW")), write(dir, "plan.yaml", "step: 2\n")));
  // The working tree's side is hashed by git and stored nowhere: read from the file itself.
  write(dir, "llm.yaml", llm("SECRET-WORKTREE"));

  const bridge = await connectBridge(inject("bridge"), dir, { home: join(tmp.dir, "home-data-sides") });
  const bmadRun = async (command: string) => {
    const result = await bridge.client.callTool({ name: "bmad-run", arguments: { command } });
    return { text: toolText(result), isError: result.isError === true, out: withStreams(toolText(result), result.structuredContent as { exit_code: number } | undefined)! };
  };
  const withheldLlm = "diff --git a/llm.yaml b/llm.yaml\n--- a/llm.yaml\n+++ b/llm.yaml\n[bmad-mcp withheld the changed lines of llm.yaml: a config's lines can hold secrets; bmad-files read serves it without its secret-looking keys]\n";
  try {
    // Between commits (both sides blobs), and the working tree against a commit: all its hunks withheld, and the
    // `index` line too (its blob ids are digests of the secret-holding text).
    for (const line of ["git diff HEAD~1 HEAD -- llm.yaml", "git diff -- llm.yaml", "git diff HEAD~1 -- llm.yaml"]) {
      const { text, out } = await bmadRun(line);
      expect(text, line).not.toMatch(/SECRET/);
      expect(out.stdout, line).toBe(withheldLlm);
      expect(text, line).toContain("Note: the changed lines of llm.yaml are withheld (a config's lines can hold secrets): read the file with bmad-files, which serves it without its secret-looking keys.");
    }
    // A data file that holds none at either side is shown as it is.
    const plan = await bmadRun("git diff HEAD~1 HEAD -- plan.yaml");
    expect(plan.out.stdout).toMatch(/^diff --git a\/plan\.yaml b\/plan\.yaml\nindex \w+\.\.\w+ 100644\n[^]*-step: 1\n\+step: 2\n$/);
    // No other line bmad-run runs prints a file's text: `git show` and a patch log are the user's to run.
    for (const line of ["git show HEAD:llm.yaml", "git show HEAD -- llm.yaml", "git log -p -n 1", "git log -n 2 -p -- llm.yaml", "git diff HEAD~1:llm.yaml HEAD:llm.yaml"]) {
      const answer = await bmadRun(line);
      expect([answer.isError, answer.text], line).toEqual([true, expect.stringMatching(/Ask the user to run the git command and give you its output/)]);
    }
    // What they do print of it is names and counts.
    for (const line of ["git log --stat -n 2 -- llm.yaml", "git diff --numstat HEAD~1 HEAD", "git log --name-status -n 2"]) {
      const { text, out } = await bmadRun(line);
      expect([out.exit_code, text], line).toEqual([0, expect.not.stringMatching(/SECRET/)]);
    }
  } finally {
    await bridge.close();
  }
});
