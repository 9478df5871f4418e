// Port of BMAD 6.12 bmad-retrospective's scripts/git_evidence.py: commit and per-file churn over a REV..REV range,
// as JSON only (errors too: 2 for arguments, 1 for git). It asks the door's read-only git (ScriptContext.git) for
// the same `git log` passes the Python runs, the range after `--end-of-options`; where the door has no git (the
// remote) it answers as the Python does when git is not installed, so the skill's own fallback applies.
import { ArgparseExit, addArgument, createParser, parseArgs } from "./argparse.js";
import type { GitRun, ScriptContext, ScriptResult } from "./context.js";
import { dumps, PyError, type PyDict, type PyValue } from "./py-json.js";
import { statPath } from "./py-io.js";
import { fsPath, resolvePath } from "./py-path.js";
import { pyInt } from "./py-int.js";
import { repr, splitlines, splitWhitespace, strip } from "./py-str.js";
import { runScript, terminalWidth } from "./process.js";

const UNIT_SEP = "\x1f";
const LOG_FORMAT = `--format=%H${UNIT_SEP}%P${UNIT_SEP}%s`;
/** Python's `\w` in a str pattern. */
const WORD = /[\p{L}\p{N}_]/u;
/** subprocess.run(["git", ...]) where there is no git: FileNotFoundError. */
const NO_GIT = "[Errno 2] No such file or directory: 'git'";

class Emit {
  constructor(
    readonly value: PyDict,
    readonly code: number,
  ) {}
}

const emit = (value: PyDict, code = 0): never => {
  throw new Emit(value, code);
};
const failure = (error: string, code: number): never => emit(new Map<string, PyValue>([["ok", false], ["error", error]]), code);

function parser() {
  // add_help=False: -h is an unrecognized argument, answered as JSON like every other argument error.
  const p = createParser("git_evidence.py", "Measure commit and per-file change evidence over a git revision range. Measures only; does not judge.", false, false);
  addArgument(p, ["--repo"], { help: "Path to the git repo (default: .)" });
  addArgument(p, ["--range"], { help: "Revision range REV..REV" });
  addArgument(p, ["--stories"], { help: "Comma-separated story ids to match against commit subjects." });
  return p;
}

/** bytes.decode("utf-8", errors="surrogateescape"): each byte of an invalid sequence becomes U+DC80..U+DCFF, so two
 *  different non-UTF-8 paths stay two keys. */
export function decodeSurrogateEscape(b: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(b);
  } catch {
    // decoded by hand below
  }
  const out: string[] = [];
  let i = 0;
  const escape = (end: number) => {
    for (; i < end; i++) out.push(String.fromCharCode(0xdc00 + b[i]!));
  };
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      out.push(String.fromCharCode(c));
      i++;
      continue;
    }
    const need = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (need < 0) {
      escape(i + 1);
      continue;
    }
    // As CPython: the second byte's range narrows for E0, ED, F0 and F4; the error covers the bytes before the bad one.
    const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
    let j = 1;
    for (; j <= need && i + j < b.length; j++) {
      const d = b[i + j]!;
      if (!(j === 1 ? d >= lo && d <= hi : d >= 0x80 && d <= 0xbf)) break;
    }
    if (j <= need) {
      escape(i + j);
      continue;
    }
    let cp = c & (need === 1 ? 0x1f : need === 2 ? 0x0f : 0x07);
    for (let k = 1; k <= need; k++) cp = (cp << 6) | (b[i + k]! & 0x3f);
    out.push(String.fromCodePoint(cp));
    i += need + 1;
  }
  return out.join("");
}

const isWord = (ch: string | undefined) => ch !== undefined && WORD.test(ch);
/** The code point ending just before `i` (a surrogate pair whole). */
function before(s: string, i: number): string | undefined {
  if (i <= 0) return undefined;
  const low = s.charCodeAt(i - 1);
  return low >= 0xdc00 && low <= 0xdfff && i >= 2 && s.charCodeAt(i - 2) >= 0xd800 && s.charCodeAt(i - 2) <= 0xdbff ? s.slice(i - 2, i) : s[i - 1];
}
const at = (s: string, i: number) => (i < s.length ? String.fromCodePoint(s.codePointAt(i)!) : undefined);

/** re.search(rf"\b{re.escape(sid)}\b", subject) is not None, by plain search: each place sid occurs is checked for a
 *  word boundary at both ends. */
export function namesStory(subject: string, sid: string): boolean {
  for (let i = subject.indexOf(sid); i >= 0; i = subject.indexOf(sid, i + 1)) {
    const end = i + sid.length;
    if (isWord(before(subject, i)) !== isWord(at(subject, i)) && isWord(before(subject, end)) !== isWord(at(subject, end))) return true;
  }
  return false;
}

interface FileEntry {
  path: string;
  added: bigint;
  deleted: bigint;
  binary: bigint;
  commits: bigint;
}

/** _parse_log: one pass's commits (a merge's repeated header counted once) and per-path churn. */
function parseLog(output: string, stories: string[]): [PyValue[], Map<string, FileEntry>] {
  const commits: PyValue[] = [];
  const files = new Map<string, FileEntry>();
  const seen = new Set<string>();
  let counting = true;
  for (const raw of splitlines(output)) {
    if (raw.includes(UNIT_SEP)) {
      const first = raw.indexOf(UNIT_SEP);
      const second = raw.indexOf(UNIT_SEP, first + 1);
      if (second < 0) throw new PyError("ValueError", "not enough values to unpack (expected 3, got 2)");
      const [sha, parents, subject] = [raw.slice(0, first), raw.slice(first + 1, second), raw.slice(second + 1)];
      counting = !seen.has(sha);
      if (!counting) continue;
      seen.add(sha);
      commits.push(
        new Map<string, PyValue>([
          ["sha", sha],
          ["subject", subject],
          ["stories", stories.filter((sid) => namesStory(subject, sid))],
          ["is_merge", splitWhitespace(parents).length > 1],
        ]),
      );
      continue;
    }
    if (!counting || !strip(raw)) continue;
    // "<added>\t<deleted>\t<path>"; a binary file's counts are "-".
    const parts = raw.split("\t");
    if (parts.length < 3) continue;
    const added = parts[0] === "-" ? undefined : pyInt(parts[0]!);
    const deleted = parts[1] === "-" ? undefined : pyInt(parts[1]!);
    const path = parts.slice(2).join("\t");
    let entry = files.get(path);
    if (!entry) files.set(path, (entry = { path, added: 0n, deleted: 0n, binary: 0n, commits: 0n }));
    entry.commits++;
    if (added === undefined || deleted === undefined) entry.binary++;
    else {
      entry.added += added;
      entry.deleted += deleted;
    }
  }
  return [commits, files];
}

function fileList(files: Map<string, FileEntry>): PyValue[] {
  return [...files.values()].map(
    (e) =>
      new Map<string, PyValue>([
        ["path", e.path],
        ["added", e.added],
        ["deleted", e.deleted],
        ["net", e.added - e.deleted],
        ["commit_count", e.commits],
        ["binary_revisions", e.binary],
      ]),
  );
}

/** One `git log --numstat` pass over the range, its stdout; a failure is emitted as the Python emits it. */
async function gitLog(ctx: ScriptContext, repo: string, extra: string[], range: string): Promise<string> {
  if (!ctx.git) return failure(NO_GIT, 1);
  const at = await fsPath(ctx.fs, repo, ctx.cwd);
  const kind = at === undefined ? "missing" : await statPath(ctx.fs, at);
  // Asked even for no folder (the door refuses it unrun): where git is missing, that is what Python says first.
  const run: GitRun | undefined = await ctx.git({
    dir: await resolvePath(ctx.fs, repo, ctx.cwd),
    // Non-ASCII paths as UTF-8, not octal escapes; `-m` as separate diffs whatever the repository's config says.
    config: ["core.quotePath=false", "log.diffMerges=separate"],
    // A rename as a delete and an add; `--` so the range can never be a pathspec.
    args: ["log", "--numstat", "--no-renames", ...extra, LOG_FORMAT, "--end-of-options", range, "--"],
  });
  if (!run) return failure(NO_GIT, 1);
  // A folder the door may not show (outside the project) is said as such, not as one that does not exist.
  if (run.refused) return failure(strip(decodeSurrogateEscape(run.stderr)), 1);
  // `git -C repo` where repo is no folder (or none this door may show), in git's words.
  if (kind !== "dir") return failure(`fatal: cannot change to ${gitQuote(repo)}: ${kind === "file" ? "Not a directory" : "No such file or directory"}`, 1);
  if (run.exitCode !== 0) return failure(strip(decodeSurrogateEscape(run.stderr)) || `git exited ${run.exitCode}`, 1);
  return decodeSurrogateEscape(run.stdout);
}

/** '%s' in git's messages. */
function gitQuote(path: string): string {
  return `'${path}'`;
}

async function measure(argv: string[], ctx: ScriptContext): Promise<number> {
  let args;
  try {
    args = parseArgs(parser(), argv, terminalWidth(ctx));
  } catch (error) {
    if (error instanceof ArgparseExit && error.reason !== undefined) return failure(`argument error: ${error.reason}`, 2);
    throw error;
  }
  const stories = [...new Set(((args.stories as string | undefined) ?? "").split(",").map(strip).filter(Boolean))];
  const range = args.range as string | undefined;
  if (!range) return emit(new Map<string, PyValue>([["range", null], ["note", "no range supplied"], ["commits", []], ["files", []]]));
  // Only an explicit REV..REV: no option, no single rev or pathspec, no empty side, no A...B.
  const split = range.indexOf("..");
  const [left, right] = split < 0 ? [range, ""] : [range.slice(0, split), range.slice(split + 2)];
  if (range !== strip(range) || range.startsWith("-") || !left || !right || right.startsWith(".")) {
    return failure(`invalid --range ${repr(range)}: expected a revision range like REV..REV`, 2);
  }
  const repo = (args.repo as string | undefined) ?? ".";
  // Pass 1: every commit in the range, merges included; the churn of the others.
  const [commits, files] = parseLog(await gitLog(ctx, repo, [], range), stories);
  const mergeCount = commits.filter((c) => (c as PyDict).get("is_merge") === true).length;
  // Pass 2, only when there are merges: each merge on the head's first-parent spine against its first parent.
  const [mergeCommits, mergeFiles] = mergeCount ? parseLog(await gitLog(ctx, repo, ["-m", "--first-parent", "--min-parents=2"], range), stories) : [[], new Map<string, FileEntry>()];
  return emit(
    new Map<string, PyValue>([
      ["range", range],
      ["commit_count", BigInt(commits.length)],
      ["merge_count", BigInt(mergeCount)],
      ["merges_measured", BigInt(mergeCommits.length)],
      ["commits", commits],
      ["files", fileList(files)],
      ["merge_files", fileList(mergeFiles)],
      ["stories_supplied", stories],
    ]),
  );
}

export function main(argv: string[], ctx: ScriptContext): Promise<ScriptResult> {
  return runScript(async (out) => {
    try {
      return await measure(argv, ctx);
    } catch (error) {
      if (!(error instanceof Emit)) throw error;
      out.stdout += dumps(error.value);
      return error.code;
    }
  });
}
