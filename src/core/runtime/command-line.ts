// A command line as a skill writes it (`uv run {project-root}/_bmad/scripts/memlog.py append ...`), split
// into argv with POSIX quoting and no shell, and sorted into what can run here: a ported shared script,
// or a skill's own script. Nothing is expanded: `$(...)`, `>` and `&&` stay literal text or are refused.
import { split } from "shlex";
import type { Result } from "../result.js";
import { machineryName, WORKSPACE_FILE_UNOPENED } from "../workspace/paths.js";
import { DEFAULT_TIME_ZONE, stampOf, todayIn } from "./time-zone.js";

export const MAX_COMMAND_LENGTH = 16 * 1024;

/** Characters that chain, pipe or redirect commands when a shell sees them unquoted. Without a shell
 *  they would be passed on inside arguments, which is never what the skill meant. */
const SHELL_OPERATORS = new Set(["&", "|", ";", "<", ">"]);
/** A word that is all template: `<…>` or an ellipsis, where the skill's text leaves a value for the model to choose
 *  (`--type <decision|change>`, `--text "<one-line gist>"`, `--field scope="…"`). */
const TEMPLATE_WORD = /^(?:-{0,2}[\w.-]+=)?(?:<[^<>]+>|…|\.\.\.)$/;
/** The first word of an optional group as usage lines write one (`[--epic-file <path> ...]`, `[-v]`): an option's name
 *  (never `[-]` or `[-1, 2]`, which are values), unquoted in the line (opensUnquoted). */
const OPTIONAL_OPENS = /^\[--?[A-Za-z]/;
/** What split() takes for space between words. */
const SHLEX_SPACE = new Set([" ", "\t", "\r", "\n"]);

/** uv options that take no value and change nothing here. */
const UV_FLAGS = new Set(["--no-cache", "--quiet", "-q", "--no-project", "--script", "--offline", "--frozen", "--isolated"]);
/** uv options that move where the line runs: every line runs at the project root already. */
const UV_FOLDERS = new Set(["--directory", "--project"]);
/** One of them with its value, as written (`--directory /p`, `--project="/My P"`). */
const UV_FOLDER_WORDS = /\s+--(?:directory|project)(?:=|\s+)(?:"[^"]*"|'[^']*'|\S+)/;
/** A Python interpreter, by its file name (`python3`, `/usr/bin/python3.12`, `C:/Python311/python.exe`): all run a script alike. */
const PYTHON = /^(?:python3?(?:\.\d+)?|py)(?:\.exe)?$/i;
const isPython = (word: string | undefined) => word !== undefined && PYTHON.test(word.slice(word.lastIndexOf("/") + 1));
/** A backslash before a path's part (`_bmad\scripts`, `C:\Python311`), not one escaping a space or a quote. */
const WINDOWS_SEPARATOR = /(?<!\\)\\+(?=[\w.{-])/;
const AT_ROOT = "bmad-run runs every line at the project root already";

export type CommandLine = Result<{ script: string; args: string[] }>;

/** Programs that skills name for version control, and for the project's code (tests, builds, linters, packages). */
const VCS = new Set(["git", "gh"]);
const CODE_RUNNERS = /^(npm|npx|pnpm|pnpx|yarn|bun|bunx|node|deno|tsc|jest|vitest|playwright|eslint|prettier|biome|pytest|tox|nox|ruff|mypy|pip|pip3|poetry|make|cmake|cargo|rustc|go|mvn|gradle|gradlew|dotnet|swift|xcodebuild|flutter|dart|composer|php|phpunit|bundle|rake|rspec|mix|docker|docker-compose|kubectl|terraform)$/;

/** Whether a line runs git or the project's code rather than one of BMAD's scripts: what a skill's dev and review
 *  steps name (`git rev-parse HEAD`, `npm test`, `uv run pytest`, `python -m pytest`), told apart so the answer can
 *  say where they run. */
export function otherProgram(line: string): "git" | "code" | undefined {
  const words = line.trim().split(/\s+/);
  let i = 0;
  if (words[0] === "uv" && words[1] === "run") for (i = 2; words[i]?.startsWith("-"); i++);
  // A module run by its name (`python3 -m unittest discover`) is the project's code, whatever files it is given.
  if (isPython(words[i]) && words[i + 1] === "-m") return "code";
  // A line naming a script is judged as one (`uv run --with x …/memlog.py`: its option refused for what it is).
  if (words.some((w) => w.endsWith(".py"))) return undefined;
  return programKind(words[i] ?? "");
}

/** The git lines bmad-run runs on the bridge, read-only, as its answers name them. */
export const READ_ONLY_GIT_LINES = "git status --porcelain, git rev-parse HEAD, git branch --show-current, git log --oneline -n N, git diff [REV | REV...REV] [--stat] [-- PATH…]";

/** A git line bmad-run may run (as argv, without `git`), or why not: `alone` is the line without its `> file`, which
 *  runs, its output coming back in the answer. */
export type GitLine = { ok: true; args: string[] } | { ok: false; why: string; alone?: string };

/** A revision as skills and reviews name one (`HEAD`, `HEAD~3`, `main^2`, `origin/main`, `v1.2`, `@{u}`): no `-` to
 *  start an option, no `:` to name a file, no `..` inside (ranges are split before). */
const GIT_REV = /^\w[\w/+-]*(?:\.[\w/+-]+)*(?:@\{(?:-?\d+|u|upstream)\})?(?:[~^]\d*)*$/;
/** A pathspec after `--`: a plain relative path (no `:` magic, no leading `/` or `-`); `..` and machinery parts are refused below. */
const GIT_PATH = /^[\w.@+][\w./@+-]*$/;
const MAX_LOG_COUNT = 1000;
/** Per subcommand, the options it takes, how many revision words, and whether pathspecs after `--`. */
const GIT_LINES = new Map<string, { options: RegExp; revs: number; paths: boolean }>([
  ["status", { options: /^(?:--porcelain(?:=v[12])?|--short|-s|--branch|-b|--untracked-files=(?:no|normal|all)|-u(?:no|normal|all))$/, revs: 0, paths: true }],
  ["rev-parse", { options: /^(?:--short(?:=\d{1,2})?|--abbrev-ref|--verify|--quiet|-q)$/, revs: 4, paths: false }],
  ["branch", { options: /^--show-current$/, revs: 0, paths: false }],
  ["log", { options: /^(?:--oneline|--stat|--name-only|--name-status|--no-merges|--max-count=\d+|-n\d+|-\d+)$/, revs: 2, paths: true }],
  ["diff", { options: /^(?:--stat|--shortstat|--numstat|--name-only|--name-status|--cached|--staged)$/, revs: 2, paths: true }],
]);

/** Whether `line` is one of the read-only git lines (READ_ONLY_GIT_LINES), split as argv with no shell. Anything else
 *  (a subcommand that writes, `-c`, `-C`, `--git-dir`, `--output`, `--ext-diff`, a pathspec out of the project or into
 *  .git, a log with no count) is not. Words are echoed in `why` only when they are plain option or command names. */
export function readOnlyGitLine(line: string): GitLine {
  const operator = unquotedOperator(line);
  // The shell's part starts at the operator, or at the fd number glued to it (`2>/dev/null`), which is no word of git's.
  const fd = operator?.operator.startsWith(">") ? /(?:^|\s)(\d+)$/.exec(line.slice(0, operator.at))?.[1] : undefined;
  const shellAt = operator ? operator.at - (fd?.length ?? 0) : line.length;
  let words: string[];
  try {
    words = split(line.slice(0, shellAt));
  } catch {
    return { ok: false, why: "its quotes do not close" };
  }
  if (words[0] !== "git") return { ok: false, why: `bmad-run runs git only as "git …"` };
  const rest = words.slice(words[1] === "--no-pager" ? 2 : 1);
  const why = gitLineRefusal(rest);
  if (why) return { ok: false, why };
  if (!operator) return { ok: true, args: canonicalGit(rest) };
  // Only redirects of output (`> FILE`, `2>/dev/null`, `2>&1`) and nothing after them: the line runs without them.
  // Anything else (`> x && git commit …`) is refused whole, so no answer reads as if the rest ran (review 380).
  const shellPart = line.slice(shellAt);
  const redirects = OUTPUT_REDIRECTS.exec(shellPart)?.[0] ?? "";
  // The words as sent: each passed the rules above, so none is free text.
  const after = shellPart.slice(redirects.length);
  if (redirects && !after.trim()) return { ok: false, why: "bmad-run writes no file", alone: words.join(" ") };
  // What a shell refuses too is named as itself, not as needing one (review 390: `git status 2>` "needs a shell").
  if (!closesQuotes(shellPart)) return { ok: false, why: "a quote after the git command does not close: close it (a shell refuses the line too)" };
  const bare = /^\s*(\d*>>?)\s*$/.exec(after)?.[1];
  if (bare) return { ok: false, why: `"${bare}" names no file (a shell refuses the line too): drop it, and the output comes back in the answer` };
  return { ok: false, why: `"${unquotedOperator(after)?.operator ?? operator.operator}" needs a shell` };
}

/** Whether every quote in `text` closes, as split() reads quotes. */
function closesQuotes(text: string): boolean {
  try {
    split(text);
    return true;
  } catch {
    return false;
  }
}

/** Redirects of a command's output at the start of a text, one or more: `> FILE`, `>> FILE`, `2>/dev/null`, `2>&1`, the
 *  file's name plain or quoted. */
const OUTPUT_REDIRECTS = /^(?:\s*\d*>>?(?:&\d+|\s*(?:"[^"]*"|'[^']*'|[^\s&|;<>'"]+)))+/;

/** Why git's words (after `git`) are no read-only line, undefined when they are one. */
function gitLineRefusal(words: string[]): string | undefined {
  const [subcommand = "", ...rest] = words;
  const spec = GIT_LINES.get(subcommand);
  if (!spec) return `${shown(subcommand, "that word")} is not one of them`;
  const dash = rest.indexOf("--");
  const paths = dash < 0 ? [] : rest.slice(dash + 1);
  let revs = 0;
  let count: number | undefined;
  for (let i = 0; i < (dash < 0 ? rest.length : dash); i++) {
    const word = rest[i]!;
    if (word === "-n" && subcommand === "log" && /^\d+$/.test(rest[i + 1] ?? "")) count = Number(rest[++i]);
    else if (spec.options.test(word)) {
      const given = /^(?:--max-count=|-n|-)(\d+)$/.exec(word)?.[1];
      if (given !== undefined) count = Number(given);
    }
    else if (word.startsWith("-")) return `${shown(word, "that option")} is not one of git ${subcommand}'s here`;
    else if (++revs > spec.revs || !isRevisions(word, subcommand !== "rev-parse" && revs === 1)) return `${shown(word, "that word")} is no revision (or one too many) for git ${subcommand} here`;
  }
  if (subcommand === "branch" && rest[0] !== "--show-current") return "git branch runs here only as git branch --show-current";
  if (subcommand === "log" && (count === undefined || count > MAX_LOG_COUNT)) return `git log needs a count of at most ${MAX_LOG_COUNT} (-n 20)`;
  if (paths.length && !spec.paths) return `git ${subcommand} takes no paths here`;
  const bad = paths.find((p) => !GIT_PATH.test(p) || p.split("/").some((part) => part === ".." || machineryName(part) !== undefined));
  return bad === undefined ? undefined : `${shown(bad, "a path")} is no plain path in the project (relative, no "..", not into .git)`;
}

/** The words as they run: options, then revisions after `--end-of-options`, where the door finds each and runs it as
 *  the commit it names (git-readonly.ts), ended by `--` (git never takes one for a path), pathspecs after it. */
function canonicalGit(words: string[]): string[] {
  const [subcommand = "", ...rest] = words;
  if (subcommand === "rev-parse" || subcommand === "branch") return words;
  const dash = rest.indexOf("--");
  const before = dash < 0 ? rest : rest.slice(0, dash);
  const options: string[] = [];
  const revisions: string[] = [];
  for (let i = 0; i < before.length; i++) {
    // `-n 20` as one word: the door takes no word before `--end-of-options` that is no option.
    if (before[i] === "-n") options.push(`-n${before[++i]}`);
    else (before[i]!.startsWith("-") ? options : revisions).push(before[i]!);
  }
  return [subcommand, ...options, ...(revisions.length ? ["--end-of-options", ...revisions] : []), "--", ...(dash < 0 ? [] : rest.slice(dash + 1))];
}

/** git's listing of the files it does not track (and does not ignore), NUL-separated, the pathspecs after it: what a
 *  diff of the working tree leaves out. The only form the bridge's git runs ls-files in (git-readonly.ts). */
export const UNTRACKED_FILES = ["ls-files", "--others", "--exclude-standard", "-z", "--"] as const;

/** The pathspecs of a read-only git line (as readOnlyGitLine gives it) that diffs the working tree (`git diff`, `git
 *  diff HEAD -- src`), where files git does not track are left out unsaid; undefined for any other line. */
export function workTreeDiffPaths(args: readonly string[]): string[] | undefined {
  const dash = args.indexOf("--");
  if (args[0] !== "diff" || dash < 0) return undefined;
  const before = args.slice(1, dash);
  const revs = before.filter((word) => !word.startsWith("-"));
  if (before.includes("--cached") || before.includes("--staged") || revs.length > 1 || revs.some((rev) => rev.includes(".."))) return undefined;
  return args.slice(dash + 1);
}

/** A revision, or (`range`) two joined by `..` or `...`. */
function isRevisions(word: string, range: boolean): boolean {
  const parts = word.split(/\.{3}|\.{2}/);
  return parts.length <= (range ? 2 : 1) && parts.every((part) => GIT_REV.test(part));
}

/** A word of the line, in an answer only when it is a plain name (review 142: no answer repeats the caller's text). */
const shown = (word: string, otherwise: string) => (/^-{0,2}[\w][\w.=-]{0,39}$/.test(word) ? `"${word}"` : otherwise);

const programKind = (word: string) => {
  const program = word.replace(/^.*\//, "");
  return VCS.has(program) ? "git" : CODE_RUNNERS.test(program) ? "code" : undefined;
};

/** Splits a command line and strips the interpreter (`uv run [flags]`, `python3`, or none). */
export function parseCommandLine(line: string): CommandLine {
  const parsed = splitCommandLine(line);
  if (parsed.ok && parsed.templates.length) return { ok: false, error: fillInFirst([], parsed.templates) };
  return parsed.ok ? { ok: true, script: parsed.script, args: parsed.args } : parsed;
}

/** Where a refusal of a line that runs no script sends the project's files: a folder's the user opens by its path; a
 *  workspace's they cannot open (review 481: Claude.ai's user was to be given a path to open). */
const FILES_ELSEWHERE = {
  folder: "For the project's files (ls, cat, open) use bmad-files, and give the user a file's path to open.",
  workspace: `For the project's files (ls, cat) use bmad-files. ${WORKSPACE_FILE_UNOPENED}`,
};

/** As parseCommandLine, with the `<…>` template words and `[…]` groups left for the caller to name beside the other
 *  placeholders. `files`: where the project's files are, for the refusal of a line that runs no script. */
export function splitCommandLine(line: string, files: keyof typeof FILES_ELSEWHERE = "folder"): Result<{ script: string; args: string[]; templates: string[] }> {
  if (line.length > MAX_COMMAND_LENGTH) return { ok: false, error: `The command is ${line.length} characters; at most ${MAX_COMMAND_LENGTH} are allowed.` };
  const backslashed = backslashedPath(line);
  if (backslashed) return { ok: false, error: backslashed };
  let words: string[];
  try {
    words = split(line);
  } catch (error) {
    return { ok: false, error: `Cannot split the command line: ${(error as Error).message}. Close every quote.` };
  }
  const templates = templateWords(words, opensUnquoted(line));
  // `<a|b>` is a template, not a pipe: it is refused as one (by the caller, with the line's other placeholders).
  if (words[0] === "cd") return { ok: false, error: withoutCd(line) };
  const operator = templates.length ? undefined : unquotedOperator(line)?.operator;
  if (operator) return { ok: false, error: `"${operator}" needs a shell, and bmad-run runs one command without one: send each command as its own bmad-run call, and quote text that holds "${operator}".` };
  let i = 0;
  if (words[0] === "uv" && words[1] === "run") {
    i = 2;
    while (words[i]?.startsWith("-")) {
      const option = words[i]!.split("=")[0]!;
      if (UV_FOLDERS.has(option)) {
        const rest = line.trim().replace(UV_FOLDER_WORDS, "");
        return { ok: false, error: `uv option "${option}" is not needed: ${AT_ROOT}. Send the line without it${runsAsIs(rest) ? `: ${rest}` : "."}` };
      }
      if (!UV_FLAGS.has(words[i]!)) return { ok: false, error: `uv option "${words[i]}" is not supported here; known: ${[...UV_FLAGS].join(", ")}.` };
      i++;
    }
    // `uv run python3 x.py` runs x.py as `uv run x.py` does.
    if (isPython(words[i])) i++;
  } else if (isPython(words[0])) {
    i = 1;
  }
  if (i && isPython(words[i - 1]) && words[i]?.startsWith("-")) return { ok: false, error: `Python option "${words[i]}" is not supported: give the script path right after ${words[i - 1]}.` };
  const script = words[i];
  if (!script) return { ok: false, error: 'No script in the command: give it as the skill writes it, e.g. "uv run {project-root}/_bmad/scripts/memlog.py init --workspace DIR".' };
  if (!script.endsWith(".py")) {
    const expected = `a .py path was expected after ${i ? words.slice(0, i).join(" ") : "the start of the line"}`;
    // A path cut at a space leaves its first part (`/Users/a/My`) where the script was expected, and its end later.
    const cut = script.includes("/") && !programKind(script) && words.slice(i + 1).some((w) => w.endsWith(".py"));
    const spaced = cut ? ` If the script's path holds a space, quote it ("…/My Project/_bmad/scripts/x.py").` : "";
    return { ok: false, error: `bmad-run runs BMAD's Python scripts; "${script.slice(0, 200)}" is not one (${expected}).${spaced} ${FILES_ELSEWHERE[files]}` };
  }
  return { ok: true, script, args: words.slice(i + 1), templates };
}

/** The words the skill's text leaves to the model: `<…>` ones, and each optional group (`[--epic-file <path> ...]`)
 *  whole, as one, since it is dropped or filled as one (review 183: a filled group's `[…]` failed at argparse). One
 *  pass: a group whose brackets do not balance at a word's end is no group, its `<…>` words named alone. */
function templateWords(words: string[], unquoted: boolean[]): string[] {
  const found: string[] = [];
  let group: string[] = [];
  let depth = 0;
  for (const [i, word] of words.entries()) {
    if (!group.length && !(unquoted[i] && OPTIONAL_OPENS.test(word))) {
      if (TEMPLATE_WORD.test(word)) found.push(word);
      continue;
    }
    group.push(word);
    for (const c of word) depth += c === "[" ? 1 : c === "]" ? -1 : 0;
    if (depth > 0) continue;
    found.push(...(depth === 0 && word.endsWith("]") ? [group.join(" ")] : group.filter((w) => TEMPLATE_WORD.test(w))));
    group = [];
    depth = 0;
  }
  return [...found, ...group.filter((w) => TEMPLATE_WORD.test(w))];
}

/** For each word of `line`, as split() reads them, whether it begins with an unquoted `[`: only such a word opens an
 *  optional group, a quoted one being the value's own text (review 189: `--text "[-] dropped the retry [skip ci]"` was
 *  refused as a group). One pass, quoting read as split() reads it. */
function opensUnquoted(line: string): boolean[] {
  const opens: boolean[] = [];
  let quote = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = "";
      continue;
    }
    if (SHLEX_SPACE.has(c)) {
      inWord = false;
      continue;
    }
    // A line's continuation (`generate \` and a line break, as a reference writes a long line) is no character.
    if (c === "\\" && line[i + 1] === "\n") {
      i++;
      continue;
    }
    if (!inWord) opens.push(c === "[");
    inWord = true;
    if (c === "\\") i++;
    else if (c === "'" || c === '"') quote = c;
  }
  return opens;
}

/** A Windows path in the words up to the script (`python {project-root}\_bmad\scripts\x.py`, `C:\Python311\python.exe`):
 *  POSIX quoting reads its backslashes as escapes, and `_bmad\scripts\x.py` would be `_bmadscriptsx.py`. */
function backslashedPath(line: string): string | undefined {
  const parts = line.trim().split(/(\s+)/);
  const script = parts.findIndex((w, at) => at % 2 === 0 && /\.py["']?$/i.test(w));
  const lead = parts.slice(0, script < 0 ? 1 : script + 1);
  const paths = lead.filter((w, at) => at % 2 === 0 && WINDOWS_SEPARATOR.test(w));
  if (!paths.length) return undefined;
  // Every path of the line fixed, not only the script's (`--project-root C:\proj` would be `C:proj`).
  const fixed = parts.map((w) => w.split(WINDOWS_SEPARATOR).join("/")).join("");
  return `${paths.join(" and ")} ${paths.length > 1 ? "hold" : "holds"} backslashes, which bmad-run reads as escapes (POSIX quoting, as a shell's): use forward slashes.${runsAsIs(fixed) ? ` The line with them: ${fixed}` : ""}`;
}

/** Whether a line this module would offer back runs as it is: one script, nothing for a shell. Only such a line is
 *  shown, so that no answer repeats a command or a sentence the caller sent for the model to act on (review 142:
 *  "send the rest: curl … | sh"). */
function runsAsIs(line: string): boolean {
  const parsed = line.length <= 400 && splitCommandLine(line);
  return parsed !== false && parsed.ok && !parsed.templates.length && !unquotedOperator(line) && !/#/.test(line);
}

/** A line that changes folder first (`cd /p && uv run …`): every line runs at the project root, so the rest alone. */
function withoutCd(line: string): string {
  const found = unquotedOperator(line);
  const rest = found && (found.operator === "&&" || found.operator === ";") ? line.slice(found.at + found.operator.length).trim() : "";
  if (!rest || !runsAsIs(rest)) return `${AT_ROOT}: drop "cd" and send the script's line alone.`;
  return `${AT_ROOT}: drop "${line.slice(0, found!.at + found!.operator.length).trim()}" and send the rest: ${rest}`;
}

/** The first shell operator outside quotes (`&&`, `|`, `>`, also inside a word), as a shell would read the line. */
function unquotedOperator(line: string): { operator: string; at: number } | undefined {
  let quote = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = "";
    } else if (c === "\\") {
      i++; // escapes the next character (in double quotes too, for what matters here: the quote)
    } else if (quote === '"') {
      if (c === '"') quote = "";
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (SHELL_OPERATORS.has(c)) {
      return { operator: SHELL_OPERATORS.has(line[i + 1] ?? "") ? c + line[i + 1] : c, at: i };
    }
  }
  return undefined;
}

/** `{name}` placeholders left in a word, e.g. `{doc_workspace}` that the workflow binds while it runs. Not a shell's
 *  `${HOME}`: no skill fills that, and a path holding one is refused for what a shell makes of it (shellWordRefusal). */
export function unfilledPlaceholders(words: string[]): string[] {
  const found = new Set<string>();
  for (const w of words) for (const m of w.matchAll(/(?<!\$)\{([a-z][a-z0-9_.-]*)\}/gi)) found.add(`{${m[1]}}`);
  return [...found];
}

/** What to say of placeholders a path still holds: the workflow binds them while it runs, or, for `{workflow.*}`
 *  and `{agent.*}` left in a file loaded later, resolve_customization.py prints them; and of `templates`, the
 *  `<…>` words and `[…]` optional groups where the skill's text leaves the value to the model. All in one answer, so
 *  one call fixes all. */
/** `today`: the date and time where the project's scripts write time (its time zone), as todayWhere says it;
 *  `stamped`: the line's --date takes "MM-DD-YYYY HH:MM" (takesStamp). */
export function fillInFirst(unfilled: string[], templates: string[] = [], today = todayIn(DEFAULT_TIME_ZONE, new Date()), stamped = false): string {
  const custom = unfilled.filter((p) => /^\{(workflow|agent)\./.test(p));
  const bound = unfilled.filter((p) => !custom.includes(p));
  const parts: string[] = [];
  const optional = templates.filter((w) => w.startsWith("["));
  const values = templates.filter((w) => !w.startsWith("["));
  if (values.length) {
    const choice = values.some((w) => /^[^<]*<[^>]*\|/.test(w)) ? " (for a|b, one of the values between the bars)" : "";
    parts.push(`${unfilled.length || optional.length ? `${values.join(", ")}: ` : ""}the skill's text marks where your own value goes${choice}`);
  }
  if (optional.length) parts.push(`${optional.join(", ")} ${optional.length > 1 ? "are optional groups: drop each" : "is an optional group: drop it"}, or fill it in with real values and without its brackets`);
  if (bound.length) {
    const hints = bound.map((p) => (p === "{date}" ? todayHint(today, stamped ? "--date" : undefined) : BOUND_AT_RUN_TIME.get(p))).filter(Boolean);
    const them = templates.length ? bound.join(", ") : bound.length > 1 ? "them" : "it";
    parts.push(`the workflow binds ${them} while it runs${hints.length ? ` (${hints.join("; ")})` : ", as its steps say"}`);
  }
  if (custom.length) {
    const keys = custom.map((p) => `--key ${p.slice(1, -1)}`).join(" ");
    parts.push(`${custom.join(", ")} ${custom.length > 1 ? "are customization values" : "is a customization value"}, which "uv run {project-root}/_bmad/scripts/resolve_customization.py --skill {skill-root} ${keys}" prints`);
  }
  return `Fill in ${[...templates, ...unfilled].join(", ")} first: ${parts.join("; ")}.`;
}

/** The run-time placeholder a word holds (`--date {date}`, `--date={date}`, `{{date}}T00:00`, `{DATE}`), which the
 *  model fills: never meant literally (review 79: sprint_plan.py wrote `generated: '{date}'`, which BMAD's validator
 *  refuses and a later run kept; review 81: the spellings around it). Only a script that fills its own (recon_kit.py's
 *  `--pattern "{topic_slug}-{date}"`) takes one, so its caller leaves that script's words be. */
export function runTimePlaceholderIn(word: string): string | undefined {
  const found = RUN_TIME_PLACEHOLDER.exec(word)?.[1];
  return found && `{${found.toLowerCase()}}`;
}

const RUN_TIME_PLACEHOLDER = /\{\{?(date|doc_workspace)\}?\}/i;
const RUN_TIME_ALONE = new RegExp(`^${RUN_TIME_PLACEHOLDER.source}$`, "i");
/** Whether `value` is a run-time placeholder and nothing else. */
export const isRunTimePlaceholder = (value: string): boolean => RUN_TIME_ALONE.test(value);

/** What `{date}` stands for, `today` as todayWhere says it: the refusal's words, which a runtime block gives up front;
 *  `stamped`: with the form the line's --date takes (takesStamp), or where the skill's text has the model write
 *  sprint-status.yaml's last_updated itself, with that field's (review 373: create-story's "Update last_updated field
 *  to current date" was written 2026-11-30, which sprint_plan.py's staleness check does not recognize). */
export function todayHint(today: string, stamped?: Stamped): string {
  const hint = BOUND_AT_RUN_TIME.get("{date}")!.replace("TODAY", today);
  const stamp = stamped ? stampOf(today) : undefined;
  if (!stamp) return hint;
  return stamped === "--date" ? `${hint}; ${DATE_OPTION}: ${stamp}` : `${hint}; ${SPRINT_LAST_UPDATED} takes the form ${SPRINT_STAMP}: ${stamp}`;
}

/** What todayHint gives the stamp's form for: a script's --date, or sprint-status.yaml's last_updated. */
export type Stamped = "--date" | "last_updated";

/** The form of sprint-status.yaml's times: sprint_status.py's --date, and the last_updated it and bmad-board write. */
const SPRINT_STAMP = "MM-DD-YYYY HH:MM";
/** How todayHint names what the stamp is for, by which a kept render's line is made again (stampedIn). */
const SPRINT_LAST_UPDATED = "sprint-status.yaml's last_updated";
const DATE_OPTION = `for --date "${SPRINT_STAMP}"`;

/** What a line todayHint wrote gives the stamp for (withToday). */
export const stampedIn = (line: string): Stamped | undefined => (line.includes(SPRINT_LAST_UPDATED) ? "last_updated" : line.includes(DATE_OPTION) ? "--date" : undefined);

/** Scripts whose `--date` takes "MM-DD-YYYY HH:MM" and nothing else (their skills' texts say so; sprint_status.py's
 *  update exits 1 on another form). */
const STAMP_DATE_SCRIPTS = new Set(["sprint_plan.py", "sprint_status.py"]);

/** Whether a skill's text runs one of those scripts with --date (sprint-planning's references: `sprint_plan.py status …
 *  --date "{date}"`, the retrospective's `sprint_status.py update`), a line that may span lines: the render gives the
 *  stamp up front (review 435: the sprint's status cost a refused call). */
export const runsStampDate = (text: string): boolean => text.includes("--date") && [...STAMP_DATE_SCRIPTS].some((script) => text.includes(script));

/** Whether `script`'s --date in `args` holds `{date}` and takes "MM-DD-YYYY HH:MM" (review 231: the retrospective's
 *  update line, filled with the --ref's YYYY-MM-DD, exited 1). */
export function takesStamp(script: string, args: string[]): boolean {
  if (!STAMP_DATE_SCRIPTS.has(script.slice(script.lastIndexOf("/") + 1))) return false;
  return optionValues(args, ["--date"]).some((value) => runTimePlaceholderIn(value) === "{date}");
}

/** What the common run-time placeholders stand for, as BMAD's skills bind them. */
const BOUND_AT_RUN_TIME = new Map([
  ["{doc_workspace}", "{doc_workspace} is the run folder the skill's activation binds"],
  ["{date}", "{date} is today's date (TODAY), in the form the skill's text gives, if it gives one"],
]);

const UV_SCRIPT = /uv run (?:--[a-z-]+ )*"?([^\s"`]+\.py)/g;

/** The script file names a text runs with `uv run` (one entry per line that does). */
export function uvRunScripts(text: string): string[] {
  return [...text.matchAll(UV_SCRIPT)].map((m) => m[1]!.slice(m[1]!.lastIndexOf("/") + 1));
}

/** The values `options` take in argv (`--opt v`, `--opt=v`), as written: for hints of what a script will read, where
 *  a wrong guess costs only the call it would have saved. */
export function optionValues(argv: string[], options: string[]): string[] {
  return argv.flatMap((word, i) => {
    const [option, glued] = word.startsWith("--") ? word.split(/=(.*)/s) : [word];
    const value = options.includes(option!) ? (glued ?? argv[i + 1]) : undefined;
    return value === undefined ? [] : [value];
  });
}

/** `file` below the folder `dir` as written (a URI's "//" kept, which joinPath would fold into one slash). */
export function below(dir: string, file: string): string {
  return `${dir.replace(/\/+$/, "")}/${file}`;
}
