// Read-only git for the ported scripts on the bridge (git_evidence.py's `git log` passes) and bmad-run's read-only
// git lines (`git status --porcelain`, `git diff HEAD`: command-line.ts). The caller fixes the arguments; this runs
// them with nothing a repository's config can make git execute: no fsmonitor, hooks, pager, external diff, textconv,
// filter, signature check or transport, no system config, no prompt, no optional locks, and on a copy of the index
// where git reads the working tree, so the project's .git is never written. It runs
// in a folder of the project (after `..` and symlinks), finds no repository above the project, and is bounded in
// time and output and killed with its children (run-bounded.ts). An argv array, never a shell. And it reads only a
// repository of the project's own: a `.git` file or link, a commondir or alternates leading elsewhere is refused.
import { copyFile, lstat, mkdtemp, readdir, readFile, realpath, rm, stat, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { gitEnvironment } from "../compiler/git-env.js";
import { UNTRACKED_FILES } from "../core/runtime/command-line.js";
import type { GitRequest, GitRun, GitRunner } from "../core/runtime/context.js";
import { isInside, resolveConfined } from "./confined-fs.js";
import { findProgram, type FoundProgram } from "./find-program.js";
import { runBounded } from "./run-bounded.js";

/** Subcommands that read history only (never the working tree, where filters run), and those bmad-run's read-only
 *  lines add (command-line.ts), which read the working tree too (WORKTREE): `branch` only as `branch --show-current`,
 *  `ls-files` only as UNTRACKED_FILES (the files a diff leaves out: run.tools.ts). */
const SUBCOMMANDS = new Set(["log", "rev-list", "rev-parse", "show", "cat-file", "status", "diff", "branch", "ls-files"]);
/** Those that read the working tree: git runs a filter driver's clean command on a file there, looks into submodules
 *  (running git in each, with its own config: SUBMODULES), and `git diff` writes the index even with optional locks off. */
const WORKTREE = new Set(["status", "diff", "ls-files"]);
const SUBMODULES = new Set(["status", "diff"]);
/** Those that take the diff options below, and whose revisions must name commits (asCommits): a blob's id diffed
 *  printed a config's password under `diff --git a/<id> b/<id>`, a header no file's name is in (review 216). */
const DIFFING = new Set(["log", "show", "diff"]);
/** Options no one passes here: they write a file, run a program (cat-file's --filters: a filter driver) or read files
 *  outside the repository. */
const REFUSED = /^--(?:output|ext-diff|textconv|filters|show-signature|exec|no-index)(?:=|$)/;
const CONFIG_NAME = /^[A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)+$/;
/** After the port's settings, so these win. */
// safe.bareRepository: a folder the model filled with HEAD, objects and a commondir naming another repository is
// not taken for a repository (git reads the setting only from the command line and the system and user configs).
// format.pretty: a default format of `%G?` would have git log verify signatures with the repository's gpg.program.
// diff.*Prefix: each file's name after git's own a/ and b/, as the answer's filter reads it (git-output.ts).
// color.*: no escape codes in any line's output (a repository's `color.diff=always` would hide each file's `diff --git`
// line from the filter; `color.status=always` coloured git status: review 216); a command's own setting beats color.ui.
const SAFE = ["core.fsmonitor=false", "core.hooksPath=/dev/null", "diff.external=", "core.pager=cat", "log.showSignature=false", "format.pretty=medium", "protocol.allow=never", "safe.bareRepository=explicit", "diff.noprefix=false", "diff.mnemonicPrefix=false", "diff.srcPrefix=a/", "diff.dstPrefix=b/", "color.ui=never", "color.diff=never", "color.status=never", "color.branch=never"];
const MAX_OUTPUT = 32 * 1024 * 1024;

export interface ReadonlyGitOptions {
  timeoutMs: number;
  /** How git is found (default: on PATH, never from the project's folders: find-program.ts). */
  find?: () => FoundProgram | undefined;
}

/** git for `root`'s ported scripts; undefined from a run means git is not installed. */
export function readonlyGit(root: string, opts: ReadonlyGitOptions): GitRunner {
  return async (request) => {
    const program = (opts.find ?? (() => findProgram("git", root)))();
    if (!program) return undefined;
    if ("inside" in program) return refused(`${program.inside} is inside the project: git runs here only from outside the project's own folders (files there may be the model's). Put a git from outside it first on PATH.`);
    const git = program.path;
    const refusal = refusalOf(request);
    if (refusal) return refused(refusal);
    const top = await resolveConfined(root, "");
    // Said as such: the port reads a folder outside as one it cannot find (git_evidence.py --repo /tmp/elsewhere).
    if (!isInside(resolve(root), resolve(root, request.dir))) return refused(`${request.dir} is outside the project (${root}): git runs here only in the project's own folders; give one inside it.`);
    const found = await resolveConfined(root, relative(root, request.dir));
    if (!top.ok || !found.ok || !found.isDir) {
      const why = !top.ok ? top.error : !found.ok ? found.error : "Not a directory";
      return failed(`fatal: cannot change to '${request.dir}': ${why}`, 128);
    }
    // `--repo r/.git`: git run in a .git folder takes it for a bare repository, which safe.bareRepository=explicit
    // refuses; it is the store of the work tree above it, and read from there (review 456: Python's git reads it).
    const cwd = basename(found.path) === ".git" && found.path !== top.path ? dirname(found.path) : found.path;
    const env = gitEnvironment({
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_TERMINAL_PROMPT: "0",
      GIT_OPTIONAL_LOCKS: "0",
      GIT_NO_LAZY_FETCH: "1",
      // A path is that path: `docs/story-1[draft].md` matched `docs/story-1d.md` as a wildcard, and its history listed
      // that file's commits (review 188). bmad-run's lines take no wildcard (command-line.ts's GIT_PATH).
      GIT_LITERAL_PATHSPECS: "1",
      // The repository is the project's: git looks no higher than the project folder for one.
      GIT_CEILING_DIRECTORIES: dirname(top.path),
    });
    const run: Probe = async (args, config = [], index) => {
      const ran = await runBounded([git, "--no-pager", ...[...config, ...SAFE].flatMap((c) => ["-c", c]), ...args], { cwd, timeoutMs: opts.timeoutMs, env: index ? { ...env, GIT_INDEX_FILE: index } : env, maxOutputBytes: MAX_OUTPUT });
      const stderr = ran.stderrBytes ?? Buffer.from(ran.stderr);
      if (ran.timedOut) return failed(`${stderr}\nfatal: git was killed after ${opts.timeoutMs / 1000} s (BMAD_RUN_TIMEOUT_MS sets the limit).`, -9);
      if (ran.truncated) return failed(`fatal: git printed more than ${MAX_OUTPUT / 1024 / 1024} MiB; measure a shorter range.`, 1);
      // No exit code: killed by a signal (Python's returncode is then negative).
      return { stdout: ran.stdoutBytes ?? new Uint8Array(), stderr, exitCode: ran.exitCode ?? -9 };
    };
    const foreign = await foreignStore(run, cwd, top.path);
    if (foreign) return foreign;
    const given = DIFFING.has(request.args[0]!) ? await asCommits(run, request.args, request.config ?? []) : [...request.args];
    if (!Array.isArray(given)) return given;
    const [subcommand, ...rest] = given;
    const args = [subcommand!, ...(DIFFING.has(subcommand!) ? ["--no-ext-diff", "--no-textconv"] : []), ...(SUBMODULES.has(subcommand!) ? ["--ignore-submodules=all"] : []), ...rest];
    if (!WORKTREE.has(subcommand!)) return run(args, request.config ?? []);
    // The work tree git reads is the project's: a repository's core.worktree (a stranger's clone may set one) made
    // git status list /etc, and git diff would show a tracked file's bytes from there (review 164).
    // One probe for both: the work tree and the index file git reads.
    const where = await run(["rev-parse", "--show-toplevel", "--git-path", "index"], request.config ?? []);
    if (where.exitCode !== 0) return where;
    const [tree = "", index = ""] = lines(where.stdout);
    if (!isInside(await real(top.path), await real(resolve(cwd, tree)))) return refused(`this repository's work tree (core.worktree) is outside the project: git reads the working tree here only inside the project.`);
    const filters = await noFilters(run);
    if ("exitCode" in filters) return filters;
    return onIndexCopy(resolve(cwd, index), index, (copy) => run(args, [...(request.config ?? []), ...filters.config], copy));
  };
}

/** git in the request's folder with the door's settings after `config`; `index`: the index file it reads (a copy). */
type Probe = (args: string[], config?: readonly string[], index?: string) => Promise<GitRun>;

/** `args` (a DIFFING subcommand's) with each revision, the words between `--end-of-options` and `--` (each side of
 *  a range, after a `^`), as the full id of the commit it names, so git diffs and logs commits only, the ones checked;
 *  refused where one names another object (a blob, a tree, a tag of one). A word naming nothing goes to git as
 *  written, for git's own error. No revision comes before `--end-of-options` (refusalOf). */
async function asCommits(git: Probe, args: readonly string[], config: readonly string[]): Promise<string[] | GitRun> {
  const start = args.indexOf("--end-of-options");
  const dash = args.indexOf("--");
  if (start < 0 || (dash >= 0 && dash < start)) return [...args];
  const end = dash < 0 ? args.length : dash;
  const revisions: string[] = [];
  const verify = async (name: string) => {
    const found = await git(["rev-parse", "--verify", "--quiet", "--end-of-options", name], config);
    return found.exitCode === 0 ? lines(found.stdout)[0] : undefined;
  };
  for (const word of args.slice(start + 1, end)) {
    const parts = word.split(/(\.{2,3})/);
    let namesNothing = false;
    for (let i = 0; i < parts.length; i += 2) {
      const [, not = "", rev = ""] = /^(\^?)(.*)$/s.exec(parts[i]!)!;
      if (!rev) continue; // `A..` is A..HEAD
      // The object first, then whether it is a commit: `:/story^{commit}` searches for that text (review 456).
      const id = await verify(rev);
      if (id === undefined) namesNothing = true;
      else {
        const commit = await verify(`${id}^{commit}`);
        if (commit === undefined) return refused(`${JSON.stringify(rev).slice(0, 80)} names no commit: git ${args[0] ?? ""} here compares commits only (a blob's or a tree's text would show under no file's name). Name a commit: HEAD, HEAD~1, a branch, a commit's id.`);
        parts[i] = `${not}${commit}`;
      }
    }
    // A word with a side naming nothing goes to git whole, as written: git's error then shows the user's words.
    revisions.push(namesNothing ? word : parts.join(""));
  }
  return [...args.slice(0, start + 1), ...revisions, ...args.slice(end)];
}

/** Settings that empty every filter driver the repository's config (or the user's) names, so that reading the working
 *  tree runs none (an empty command is no filter; `required` would then fail the file). A driver whose name a `-c`
 *  setting cannot carry is refused. */
async function noFilters(git: Probe): Promise<{ config: string[] } | GitRun> {
  const listed = await git(["config", "--null", "--name-only", "--get-regexp", "^filter\\."]);
  // Exit 1: no such setting.
  if (listed.exitCode !== 0 && listed.exitCode !== 1) return listed;
  // filter.<driver>.<key>; a key with no driver (filter.clean) names no filter.
  const keys = new TextDecoder().decode(listed.stdout).split("\0").filter((key) => key.lastIndexOf(".") > "filter".length);
  const drivers = new Set(keys.map((key) => key.slice("filter.".length, key.lastIndexOf("."))));
  const odd = [...drivers].find((name) => /[=\n]/.test(name));
  if (odd !== undefined) return refused(`a filter driver's name (${JSON.stringify(odd).slice(0, 80)}) cannot be switched off for the run; git reads the working tree here only with every filter off.`);
  return { config: ["core.splitIndex=false", ...[...drivers].flatMap((name) => ["clean=", "smudge=", "process=", "required=false"].map((s) => `filter.${name}.${s}`))] };
}

/** `run` with git reading (and, if it writes, writing) a private copy of the repository's index (`source`, as git
 *  names it: `named`), removed after: `git diff` refreshes the index it reads whatever GIT_OPTIONAL_LOCKS says, and the
 *  project's .git stays as it was. */
async function onIndexCopy(source: string, named: string, run: (index: string) => Promise<GitRun>): Promise<GitRun> {
  const dir = await mkdtemp(join(tmpdir(), "bmad-mcp-git-"));
  try {
    const index = join(dir, "index");
    // The repository's own file, not a link the model made to one elsewhere (read, it would be taken for an index).
    const kind = await lstat(source).catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? undefined : Promise.reject(e)));
    if (kind && !kind.isFile()) return refused(`the repository's index (${named}) is not a plain file; git reads it here only as one.`);
    // None yet (no commit staged): git starts from an empty one.
    // With its time: git takes an entry whose file changed no earlier than the index was written as maybe changed, and
    // a copy made now hid an edit of the same size in the same second as the last `git add` (review 213).
    if (kind) await copyFile(source, index).then(() => utimes(index, kind.atime, kind.mtime));
    return await run(index);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The repository git finds from `cwd` when it is not the project's to read (answered as refused, naming where it
 *  leads), or git's own answer when it finds none; undefined when git may read it. git follows a `.git` file's
 *  `gitdir:`, a `.git` link, a commondir and objects/info/alternates wherever they lead: asked first where its store,
 *  objects and borrowed objects are, the door runs nothing unless all are in the project (after symlinks), or the
 *  store is a worktree's or a submodule's that names this work tree back (linkedHere). Where they are is asked of
 *  git, not parsed from the files, so it is git's own reading of them, with the settings the command runs with. */
async function foreignStore(git: Probe, cwd: string, realRoot: string): Promise<GitRun | undefined> {
  const found = await git(["rev-parse", "--absolute-git-dir", "--git-common-dir", "--git-path", "objects"]);
  if (found.exitCode !== 0) return found; // no repository (or a broken one), in git's words
  const [gitDir = "", commonDir = "", objects = ""] = await Promise.all(lines(found.stdout).map((path) => real(resolve(cwd, path))));
  if (!isInside(realRoot, gitDir) || !isInside(realRoot, commonDir)) {
    if (await linkedHere(git, realRoot, gitDir, commonDir)) return undefined;
    return leadsOut(isInside(realRoot, gitDir) ? commonDir : gitDir, "Open the bridge on the folder that holds that repository, or make this folder a repository of its own (git init).");
  }
  const fix = "`git repack -a -d` copies the borrowed objects in; then remove .git/objects/info/alternates.";
  if (!isInside(realRoot, objects)) return leadsOut(objects, fix);
  const linked = await linkOut(gitDir, commonDir, objects, realRoot);
  if (linked === TOO_MANY) return refused(`the project's .git holds more than ${MAX_STORE_ENTRIES.toLocaleString("en-US")} entries, too many to check that none leads outside it: \`git gc\` packs loose objects.`);
  if (linked) return leadsOut(linked, "Put the file itself there instead of the link (for objects: `git repack -a -d`), or remove the link.");
  if (!(await stat(join(objects, "info/alternates")).catch(() => undefined))) return undefined;
  // Alternates of alternates too, resolved as git resolves them; a name git had to quote is not taken apart.
  const borrowed = await git(["count-objects", "-v"]);
  if (borrowed.exitCode !== 0) return borrowed;
  for (const line of lines(borrowed.stdout)) {
    if (!line.startsWith("alternate: ")) continue;
    const store = line.slice("alternate: ".length);
    if (store.startsWith('"') || !isInside(realRoot, await real(resolve(cwd, store)))) return leadsOut(store, fix);
  }
  return undefined;
}

/** Entries a store's walk looks at before it gives up (a store of loose objects packs at 6,700 by itself). */
const MAX_STORE_ENTRIES = 200_000;
const TOO_MANY = Symbol("too many entries");

/** What git reads as the repository's data in a store: its objects and refs (folders, walked), and the files beside
 *  them. Not hooks (never run here), logs, LFS's store or info/ (review 123: a linked shared hooks folder refused an
 *  honest repository, and LFS objects counted toward the walk's bound). */
const STORE_FOLDERS = ["objects", "refs"];
const SKIPPED = new Set(["hooks", "logs", "lfs", "info", "modules", "worktrees"]);

/** A link in a store (in the project) that leads outside the project, TOO_MANY where it is too large to check;
 *  undefined when none does. git follows a linked pack, loose object or ref wherever it points (review 119: a linked
 *  objects/pack read another repository's commits and files). Links that stay in the project are followed, each
 *  folder once, so a link to a folder of links out is found too. Reads folder entries only, never a file. */
async function linkOut(gitDir: string, commonDir: string, objects: string, realRoot: string): Promise<string | typeof TOO_MANY | undefined> {
  const seen = new Set<string>();
  const stack = [objects, ...[gitDir, commonDir].flatMap((store) => STORE_FOLDERS.map((f) => join(store, f)))];
  // The files beside them (HEAD, packed-refs, config, commondir, shallow): each store's top, not its other folders.
  for (const store of new Set([gitDir, commonDir])) {
    for (const entry of await readdir(store, { withFileTypes: true }).catch(() => [])) {
      if (!entry.isSymbolicLink() || SKIPPED.has(entry.name)) continue;
      const target = await real(join(store, entry.name));
      if (!isInside(realRoot, target)) return `${join(store, entry.name)}, a link to ${target}`;
    }
  }
  let entries = 0;
  for (let dir = stack.pop(); dir !== undefined; dir = stack.pop()) {
    if (seen.has(dir)) continue;
    seen.add(dir);
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (++entries > MAX_STORE_ENTRIES) return TOO_MANY;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) stack.push(path);
      else if (entry.isSymbolicLink()) {
        const target = await real(path);
        if (!isInside(realRoot, target)) return `${path}, a link to ${target}`;
        if ((await stat(target).catch(() => undefined))?.isDirectory()) stack.push(target);
      }
    }
  }
  return undefined;
}

/** An honest store outside the project: a linked worktree's (`<main>/.git/worktrees/<name>`, `git worktree add`) or a
 *  submodule's (`<superproject>/.git/modules/<name>`), for a work tree in the project. Accepted where the work tree's
 *  `.git` is a file (a link could be another work tree's) naming the store, and the store names that work tree back:
 *  the worktree's `gitdir` file holds the path of this `.git` (and the store sits in its common dir's worktrees/),
 *  the submodule's own config has core.worktree here. Git writes those back-pointers when it makes the work tree; a
 *  `.git` file, link or commondir that merely points at another repository has none naming the project, and the
 *  project cannot write one outside itself. The history read is then that repository's, as git in this folder reads it. */
async function linkedHere(git: Probe, realRoot: string, gitDir: string, commonDir: string): Promise<boolean> {
  const top = await git(["rev-parse", "--show-toplevel"]);
  const tree = top.exitCode === 0 ? await real(lines(top.stdout)[0] ?? "") : "";
  if (!tree || !isInside(realRoot, tree)) return false;
  const dotGit = join(tree, ".git");
  if (!(await lstat(dotGit).catch(() => undefined))?.isFile()) return false;
  const named = /^gitdir: (.+)/.exec(await readFile(dotGit, "utf8").catch(() => ""));
  if (!named || (await real(resolve(tree, named[1]!.trimEnd()))) !== gitDir) return false;
  if (commonDir !== gitDir) {
    if (dirname(gitDir) !== join(commonDir, "worktrees")) return false;
    const back = (await readFile(join(gitDir, "gitdir"), "utf8").catch(() => "")).trim();
    return back !== "" && (await real(resolve(gitDir, back))) === dotGit;
  }
  // --file reads that one file, with no include.path followed.
  const worktree = await git(["config", "--file", join(gitDir, "config"), "--get", "core.worktree"]);
  return worktree.exitCode === 0 && (await real(resolve(gitDir, lines(worktree.stdout)[0] ?? ""))) === tree;
}

function leadsOut(where: string, fix: string): GitRun {
  return refused(`the project's .git leads outside it, to ${where}: git reads only a repository of the project's own. ${fix}`);
}

const lines = (bytes: Uint8Array): string[] => new TextDecoder().decode(bytes).split("\n").filter(Boolean);
/** After symlinks, where the path exists. */
const real = (path: string): Promise<string> => realpath(path).catch(() => path);

/** Why a request is not run: a subcommand that is not read-only, an option that writes or runs, a malformed setting. */
function refusalOf(request: GitRequest): string | undefined {
  const [subcommand, ...rest] = request.args;
  if (!subcommand || !SUBCOMMANDS.has(subcommand)) return `git ${subcommand ?? ""} is not one of the read-only commands (${[...SUBCOMMANDS].join(", ")}).`;
  if (subcommand === "branch" && rest.join(" ") !== "--show-current") return "git branch runs here only as git branch --show-current.";
  if (subcommand === "ls-files" && UNTRACKED_FILES.some((word, i) => request.args[i] !== word)) return `git ls-files runs here only as git ${UNTRACKED_FILES.join(" ")} [PATH…].`;
  const options = rest.slice(0, [rest.indexOf("--end-of-options"), rest.indexOf("--")].filter((i) => i >= 0).sort((a, b) => a - b)[0] ?? rest.length);
  const bad = options.find((arg) => REFUSED.test(arg));
  if (bad) return `${bad} writes a file, runs a program or reads outside the repository; refused.`;
  // Each revision is checked where asCommits finds it.
  if (DIFFING.has(subcommand) && options.some((arg) => !arg.startsWith("-"))) return `git ${subcommand} takes its revisions here after --end-of-options, and paths after --.`;
  const setting = (request.config ?? []).find((c) => c.indexOf("=") <= 0 || c.includes("\n") || !CONFIG_NAME.test(c.slice(0, c.indexOf("="))));
  return setting === undefined ? undefined : `${JSON.stringify(setting)} is not a name=value setting.`;
}

function refused(why: string): GitRun {
  return { ...failed(`fatal: ${why}`, 128), refused: why };
}

function failed(stderr: string, exitCode: number): GitRun {
  return { stdout: new Uint8Array(), stderr: new TextEncoder().encode(stderr), exitCode };
}
