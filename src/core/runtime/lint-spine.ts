// Port of BMAD 6.12 bmad-architecture's scripts/lint_spine.py, for where its Python cannot run (the remote): the
// mechanical checks of ARCHITECTURE-SPINE.md (placeholders, AD ids and fields, unpinned Stack versions) as JSON.
// Python's `\b`, `\w` and case folding are Unicode-aware: the patterns here say so with the `u` flag and letter classes.
import { digitsValue } from "./py-int.js";
import { addArgument, createParser, parseArgs } from "./argparse.js";
import type { RunBudget } from "./budget.js";
import type { ScriptContext, ScriptResult } from "./context.js";
import { dumps, PyError, type PyDict, type PyValue } from "./py-json.js";
import { isOsError, readText, statNamed } from "./py-io.js";
import { fsPath, joinPath, normPath, writeOutput } from "./py-path.js";
import { PY_SPACE, repr, splitlines, strip } from "./py-str.js";
import { runScript, terminalWidth } from "./process.js";

const SPINE = "ARCHITECTURE-SPINE.md";
/** A finding's work in budget units: about the bytes of its JSON. */
const FINDING_UNITS = 256;
const W = "[\\p{L}\\p{N}_]"; // Python's \w
const AD_HEADING = new RegExp(`^#{2,4}${PY_SPACE}*AD-(\\p{Nd}+)(?!${W})(.*)$`, "gmu"); // \d is any decimal digit in a str pattern
const HEADING = new RegExp(`^#{1,6}${PY_SPACE}`, "gmu");
const FENCE = /```[^]*?```/g; // DOTALL's `.*?`
const PLACEHOLDER_WORD = new RegExp(`(?<!${W})(TBD|TODO|FIXME|XXX)(?!${W})`, "gu");
const SIMILAR_TO = /similar to AD-\p{Nd}+/giu;
const TEMPLATE_TOKEN = /\{[a-z_][a-z0-9_ /.-]*\}/g;
const HAS_TOKEN = new RegExp(TEMPLATE_TOKEN.source);
const LINE_HEADING = new RegExp(HEADING.source, "u");
const STACK_HEADING = new RegExp(`^##${PY_SPACE}+Stack(?!${W})`, "u");

function parser() {
  const p = createParser("lint_spine.py", "Lint an architecture spine for mechanical integrity.");
  addArgument(p, ["--workspace"], { required: true, help: "run folder containing ARCHITECTURE-SPINE.md" });
  addArgument(p, ["-o", "--output"], { help: "write JSON here instead of stdout" });
  return p;
}

/** (frontmatter, body, offset): between the first two lines that are exactly `---`. */
function splitFrontmatter(text: string): [string, string, number] {
  const lines = text.split("\n");
  if (lines[0] === "---") {
    const end = lines.indexOf("---", 1);
    if (end > 0) return [lines.slice(1, end).join("\n"), lines.slice(end + 1).join("\n"), end + 1];
  }
  return ["", text, 0];
}

/** Each fenced block as as many newlines, so line numbers outside stay put. */
function blankFences(text: string): string {
  return text.replace(FENCE, (block) => "\n".repeat(block.split("\n").length - 1));
}

/** Positions of every `\n` in text, once: a line number is then a binary search, not a scan from the start per
 *  finding (quadratic on a spine full of findings). */
function newlines(text: string): number[] {
  const at: number[] = [];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) at.push(i);
  return at;
}

/** 1 + the number of newlines before `index`. */
function lineOf(breaks: number[], index: number): number {
  return 1 + firstAtOrAfter(breaks, index);
}

/** How many of the sorted `values` are below `x`: the index of the first at or after it. */
function firstAtOrAfter(values: number[], x: number): number {
  let [lo, hi] = [0, values.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

type Finding = PyDict;
const finding = (category: string, severity: string, detail: string, location: string): Finding =>
  new Map<string, PyValue>([["category", category], ["severity", severity], ["detail", detail], ["location", location]]);

function placeholders(text: string, where: (index: number) => string, prefix: string, patterns: Array<[RegExp, string, string]>, budget?: RunBudget): Finding[] {
  const out: Finding[] = [];
  for (const [rx, label, severity] of patterns) {
    for (const m of text.matchAll(rx)) {
      budget?.spend(FINDING_UNITS);
      out.push(finding("placeholder", severity, `${prefix}${label}: ${repr(m[0])}`, where(m.index)));
    }
  }
  return out;
}

const MARKER: [RegExp, string, string] = [PLACEHOLDER_WORD, "placeholder marker", "high"];
const TOKEN: [RegExp, string, string] = [TEMPLATE_TOKEN, "possible unfilled template token (verify)", "low"];

/** Where each word starts in text, compared in lower case as `block.lower()` would (the words are ASCII letters, which
 *  only ASCII letters lower to, bar the Kelvin sign's k, in none of them). */
function wordStarts(lower: string, word: string): number[] {
  const at: number[] = [];
  for (let i = lower.indexOf(word); i >= 0; i = lower.indexOf(word, i + 1)) at.push(i);
  return at;
}

/** The text in lower case, each character where it was: toLowerCase() only ever lengthens (İ), so an equal length
 *  means one for one; else ASCII letters only, which is all the words can match. */
function lowerInPlace(text: string): string {
  const lower = text.toLowerCase();
  return lower.length === text.length ? lower : text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

function adIssues(scan: string, offset: number, breaks: number[], budget?: RunBudget): Finding[] {
  const out: Finding[] = [];
  const seen = new Map<bigint, number>();
  let prev: bigint | undefined;
  // Each block runs from its heading to the next heading of any level; blocks of headings that are no HEADING
  // ("##AD-1") overlap, so headings and the fields' places are found once and looked up.
  const headings = [...scan.matchAll(HEADING)].map((m) => m.index);
  const lower = lowerInPlace(scan);
  const fields = ["binds", "prevents", "rule"].map((f) => [f, wordStarts(lower, f)] as const);
  for (const m of scan.matchAll(AD_HEADING)) {
    budget?.spend(FINDING_UNITS);
    const num = digitsValue(m[1]!);
    const line = offset + lineOf(breaks, m.index);
    const loc = `${SPINE} AD-${num} (line ${line})`;
    if (seen.has(num)) out.push(finding("ad_id", "high", `AD-${num} id reused (also at line ${seen.get(num)})`, loc));
    else seen.set(num, line);
    if (prev !== undefined && num <= prev) out.push(finding("ad_id", "high", `AD-${num} is non-monotonic (follows AD-${prev}); ids must ascend and never renumber`, loc));
    prev = prev === undefined || num > prev ? num : prev;
    // The block: from this heading to the next heading of any level.
    const start = m.index + m[0].length;
    const end = headings[firstAtOrAfter(headings, start)] ?? scan.length;
    const missing = fields.filter(([f, at]) => (at[firstAtOrAfter(at, start)] ?? Infinity) + f.length > end).map(([f]) => f);
    if (missing.length) out.push(finding("ad_fields", "high", `AD-${num} missing required field(s): ${missing.join(", ")}`, loc));
  }
  return out;
}

function tableCells(row: string): string[] {
  let s = strip(row);
  if (s.startsWith("|")) s = s.slice(1);
  if (s.endsWith("|")) s = s.slice(0, -1);
  return s.split("|").map(strip);
}

function unpinnedStack(scan: string, offset: number, budget?: RunBudget): Finding[] {
  const out: Finding[] = [];
  let inStack = false;
  let headerSeen = false;
  let [nameAt, versionAt] = [0, 1];
  for (const [i, raw] of splitlines(scan).entries()) {
    budget?.spend(raw.length + 1);
    if (LINE_HEADING.test(raw)) {
      inStack = STACK_HEADING.test(raw);
      headerSeen = false;
      [nameAt, versionAt] = [0, 1];
      continue;
    }
    if (!inStack || !strip(raw).startsWith("|")) continue;
    if ([...strip(raw)].every((c) => "|-: ".includes(c))) continue; // the separator row
    const cells = tableCells(raw);
    if (!headerSeen) {
      headerSeen = true;
      cells.forEach((c, j) => {
        if (c.toLowerCase() === "name") nameAt = j;
        else if (c.toLowerCase() === "version") versionAt = j;
      });
      continue;
    }
    const name = cells[nameAt] ?? "";
    const version = cells[versionAt] ?? "";
    if (!name || HAS_TOKEN.test(name)) continue;
    if (!version || HAS_TOKEN.test(version)) out.push(finding("version_pin", "medium", `Stack entry ${repr(name)} has no version`, `${SPINE} (line ${offset + i + 1})`));
  }
  return out;
}

function lint(text: string, budget?: RunBudget): PyDict {
  const [frontmatter, body, offset] = splitFrontmatter(text);
  const scan = blankFences(body);
  const [frontBreaks, breaks] = [newlines(frontmatter), newlines(scan)];
  const findings = [
    ...placeholders(frontmatter, (at) => `${SPINE} frontmatter (line ${1 + lineOf(frontBreaks, at)})`, "frontmatter ", [MARKER, TOKEN], budget),
    ...placeholders(scan, (at) => `${SPINE} (line ${offset + lineOf(breaks, at)})`, "", [MARKER, [SIMILAR_TO, "unresolved cross-reference", "high"], TOKEN], budget),
    ...adIssues(scan, offset, breaks, budget),
    ...unpinnedStack(scan, offset, budget),
  ];
  const counts: PyDict = new Map();
  for (const f of findings) counts.set(f.get("severity") as string, ((counts.get(f.get("severity") as string) as bigint | undefined) ?? 0n) + 1n);
  return new Map<string, PyValue>([["ok", !findings.length], ["spine", SPINE], ["total_findings", BigInt(findings.length)], ["by_severity", counts], ["findings", findings]]);
}

export function main(argv: string[], ctx: ScriptContext): Promise<ScriptResult> {
  return runScript(async (out) => {
    const args = parseArgs(parser(), argv, terminalWidth(ctx));
    const spine = joinPath(normPath(args.workspace as string), SPINE);
    const at = await fsPath(ctx.fs, spine, ctx.cwd);
    const failed = (error: string) => new Map<string, PyValue>([["ok", false], ["error", error], ["findings", []], ["total_findings", 0n]]);
    let result: PyDict;
    if (at === undefined || (await statNamed(ctx.fs, at, spine)) === "missing") result = failed(`${spine} not found`);
    else {
      try {
        result = lint(await readText(ctx.fs, at, spine), ctx.budget);
      } catch (e) {
        // The "exit code is always 0" contract: a read or decode failure travels in the JSON.
        if (!isOsError(e) && !(e instanceof PyError && e.pyType === "UnicodeDecodeError")) throw e;
        result = failed(`could not read ${spine}: ${e.message}`);
      }
    }
    const json = dumps(result, { indent: 2 });
    // An empty -o is "not given", as `if args.output:` reads it.
    if (args.output) {
      await writeOutput(ctx.fs, args.output as string, ctx.cwd, `${json}\n`);
    } else out.stdout += `${json}\n`;
    return 0;
  });
}
