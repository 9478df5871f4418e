// Port of BMAD 6.12 bmad-deep-recon's scripts/recon_kit.py, for where its Python cannot run (the remote): the
// research workflow's deterministic helpers (citations, tally, staleness, slug, escape-sources), one JSON object each.
// Python's `\w` and `\d` are Unicode-aware; the patterns here use the `u` flag, \p{Nd} and letter classes for them.
import { pyInt } from "./py-int.js";
import { addArgument, addSubparser, addSubparsers, createParser, parseArgs } from "./argparse.js";
import type { RunBudget } from "./budget.js";
import type { ScriptContext, ScriptResult } from "./context.js";
import { docstring } from "./py-catalog.js";
import { dumps, isDict, loads, PyError, type PyDict, type PyValue, typeName } from "./py-json.js";
import { readText } from "./py-io.js";
import { get, iterate, lower, pyRepr, pyStr } from "./py-ops.js";
import { normPath, resolvePath } from "./py-path.js";
import { compareCodePoints, isSpace, PY_SPACE, PY_SPACE_CHARS, repr, splitlines, strip, stripChars } from "./py-str.js";
import { runScript, terminalWidth } from "./process.js";
import { wallTime } from "./time-zone.js";

const MARKER = /\[(\p{Nd}+)\](?!\()/gu; // [3] but not a [3](url) link
const BARE_URL = new RegExp(`https?://[^${PY_SPACE_CHARS}|)\\]]+`, "u");
const ROW_ID = /^\[?(\p{Nd}+)\]?$/u;
const ENTRY = new RegExp(`^- (?:\\(([\\p{L}\\p{N}_-]+)(?: by [^)]*)?\\)${PY_SPACE}*)?(.*)$`, "u");

function parser(description: string | undefined) {
  const p = createParser("recon_kit.py", description, true);
  const sub = addSubparsers(p, "cmd", true);
  const citations = addSubparser(p, sub, "citations", "cross-check [n] markers vs the source appendix");
  addArgument(citations, [], { dest: "file", required: true, help: "path to research.md (or - for stdin)" });
  const tally = addSubparser(p, sub, "tally", "count memlog entries by type and claims by status");
  addArgument(tally, [], { dest: "file", required: true, help: "path to .memlog.md (or - for stdin)" });
  const staleness = addSubparser(p, sub, "staleness", "compute re-check dates from freshness windows");
  addArgument(staleness, [], { dest: "file", required: true, help: "claims JSON: [{claim, class, pub_date}] (or - for stdin)" });
  addArgument(staleness, ["--windows"], { required: true, help: `JSON months-per-class map, e.g. '{"pricing": 3}'` });
  addArgument(staleness, ["--today"], { help: "override today's date (YYYY-MM-DD)" });
  const slug = addSubparser(p, sub, "slug", "expand the run-folder pattern deterministically");
  addArgument(slug, [], { dest: "topic", required: true, help: "research topic text" });
  addArgument(slug, ["--type"], { required: true, help: "research type code (e.g. market)" });
  addArgument(slug, ["--pattern"], { help: "folder pattern (default: {research_type}-{topic_slug}-{date})" });
  addArgument(slug, ["--date"], { help: "override date (YYYY-MM-DD; default today)" });
  const escape = addSubparser(p, sub, "escape-sources", "source appendix as escaped HTML with validated links");
  addArgument(escape, [], { dest: "file", required: true, help: "path to research.md (or - for stdin)" });
  return p;
}

/** The file's text; `-` is standard input, which bmad-run does not give: empty. */
async function readArg(ctx: ScriptContext, path: string): Promise<string> {
  return path === "-" ? "" : readText(ctx.fs, await resolvePath(ctx.fs, path, ctx.cwd), normPath(path));
}

const emit = (out: { stdout: string }, payload: PyDict, code: number): number => {
  out.stdout += `${dumps(payload, { indent: 2, ensureAscii: false })}\n`;
  return code;
};

/** Fenced blocks blanked, so their markers and rows never count. */
function stripFences(text: string, budget?: RunBudget): string {
  let fenced = false;
  return splitlines(text)
    .map((line) => {
      budget?.spend(line.length + 1);
      if (strip(line).startsWith("```")) {
        fenced = !fenced;
        return "";
      }
      return fenced ? "" : line;
    })
    .join("\n");
}

const tableCells = (line: string) => stripChars(strip(line), "|").split("|").map(strip);

/** Source-appendix rows: table rows whose first cell is a bare [n] or n (a later one wins). */
function appendixRows(text: string, budget?: RunBudget): Map<bigint, string[]> {
  const rows = new Map<bigint, string[]>();
  for (const line of splitlines(text)) {
    budget?.spend(line.length + 1);
    const stripped = strip(line);
    if (!stripped.startsWith("|")) continue;
    const cells = tableCells(stripped);
    const id = cells.length >= 2 ? ROW_ID.exec(cells[0]!) : null;
    if (id) rows.set(pyInt(id[1]!), cells);
  }
  return rows;
}

const sortedInts = (values: Iterable<bigint>) => [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

function citations(text: string, budget?: RunBudget): [PyDict, number] {
  const scanned = stripFences(text, budget);
  const rows = appendixRows(scanned, budget);
  const markers = new Set<bigint>();
  for (const line of splitlines(scanned)) {
    budget?.spend(line.length + 1);
    const stripped = strip(line);
    if (stripped.startsWith("|") && ROW_ID.test(tableCells(stripped)[0] ?? "")) continue; // a row does not cite itself
    for (const m of line.matchAll(MARKER)) markers.add(pyInt(m[1]!));
  }
  const dangling = sortedInts([...markers].filter((n) => !rows.has(n)));
  const orphaned = sortedInts([...rows.keys()].filter((n) => !markers.has(n)));
  const ok = !dangling.length && !orphaned.length;
  const result = new Map<string, PyValue>([["markers", sortedInts(markers)], ["appendix_rows", sortedInts(rows.keys())], ["dangling_markers", dangling], ["orphaned_rows", orphaned], ["ok", ok]]);
  return [result, ok ? 0 : 1];
}

/** text.split("---", 2)[-1]: what follows the second `---`, else the first. */
function afterFrontmatter(text: string): string {
  if (!text.startsWith("---")) return text;
  const second = text.indexOf("---", 3);
  return second < 0 ? text.slice(3) : text.slice(second + 3);
}

const sortedDict = (counts: Map<string, bigint>): PyDict => new Map([...counts].sort(([a], [b]) => compareCodePoints(a, b)));

function tally(text: string, budget?: RunBudget): PyDict {
  const byType = new Map<string, bigint>();
  const byRef = new Map<bigint, string>();
  const unref = new Map<string, bigint>();
  let entries = 0n;
  for (const line of splitlines(afterFrontmatter(text))) {
    budget?.spend(line.length + 1);
    const m = ENTRY.exec(line);
    if (!m) continue;
    entries++;
    const type = m[1] || "note";
    byType.set(type, (byType.get(type) ?? 0n) + 1n);
    if (type !== "claim") continue;
    const status = /status=([\p{L}\p{N}_-]+)/u.exec(m[2]!)?.[1] ?? "unknown";
    const ref = /ref=\[?(\p{Nd}+)\]?/u.exec(m[2]!);
    if (ref) byRef.set(pyInt(ref[1]!), status); // the last status wins per ref
    else unref.set(status, (unref.get(status) ?? 0n) + 1n);
  }
  const claims = new Map(unref);
  for (const status of byRef.values()) claims.set(status, (claims.get(status) ?? 0n) + 1n);
  return new Map<string, PyValue>([["entries", entries], ["by_type", sortedDict(byType)], ["claims", sortedDict(claims)], ["claims_total", [...claims.values()].reduce((a, b) => a + b, 0n)]]);
}

interface Day {
  y: number;
  m: number;
  d: number;
}
const iso = (day: Day) => `${String(day.y).padStart(4, "0")}-${String(day.m).padStart(2, "0")}-${String(day.d).padStart(2, "0")}`;
const daysIn = (y: number, m: number) => [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
const before = (a: Day, b: Day) => a.y - b.y || a.m - b.m || a.d - b.d;

/** strptime with %Y-%m-%d, %Y-%m or %Y, the first that reads it as a real date. */
function parseDate(raw: string): Day {
  const text = strip(raw);
  const m = /^(\d{4})(?:-(1[0-2]|0[1-9]|[1-9])(?:-(3[01]|[12]\d|0[1-9]|[1-9]| [1-9]))?)?$/.exec(text);
  if (m) {
    const day = { y: Number(m[1]), m: Number(m[2] ?? 1), d: Number(strip(m[3] ?? "1")) };
    if (day.y >= 1 && day.d <= daysIn(day.y, day.m)) return day;
  }
  throw new PyError("ValueError", `unparseable date: ${repr(text)} (want YYYY[-MM[-DD]])`);
}

function addMonths(day: Day, months: number): Day {
  const total = day.m - 1 + months;
  const y = day.y + Math.floor(total / 12);
  const m = (((total % 12) + 12) % 12) + 1;
  if (y < 1 || y > 9999) throw new PyError("ValueError", `year ${y} is out of range`);
  return { y, m, d: Math.min(day.d, daysIn(y, m)) };
}

/** int(v) of a JSON value, as a window's months. */
function toInt(v: PyValue): number {
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "number") {
    if (Number.isNaN(v)) throw new PyError("ValueError", "cannot convert float NaN to integer");
    if (!Number.isFinite(v)) throw new PyError("OverflowError", "cannot convert float infinity to integer");
    return Math.trunc(v);
  }
  if (typeof v === "boolean") return v ? 1 : 0;
  // int() of text reads any decimal digits (review 136: "٣" refused).
  if (typeof v === "string") return Number(pyInt(v));
  throw new PyError("TypeError", `int() argument must be a string, a bytes-like object or a real number, not '${typeName(v)}'`);
}

/** date.today(): the real clock (Python's tests fix datetime.now, not this), in the project's zone where it has one. */
async function today(ctx: ScriptContext): Promise<Day> {
  const now = await wallTime({ timeZone: ctx.timeZone });
  return { y: now.year, m: now.month, d: now.day };
}

async function staleness(ctx: ScriptContext, args: Record<string, unknown>, out: { stdout: string; stderr: string }): Promise<number> {
  let payload: PyValue;
  const windows = new Map<string, number>();
  let now: Day;
  try {
    payload = loads(await readArg(ctx, args.file as string));
    const given = loads(args.windows as string);
    if (!isDict(given)) throw new PyError("AttributeError", `'${typeName(given)}' object has no attribute 'items'`);
    for (const [k, v] of given) windows.set(k.toLowerCase(), toInt(v));
    now = args.today !== undefined ? parseDate(args.today as string) : await today(ctx);
  } catch (e) {
    // except (ValueError, json.JSONDecodeError): a bad UTF-8 file is a ValueError too.
    if (!(e instanceof SyntaxError) && !(e instanceof PyError && (e.pyType === "ValueError" || e.pyType === "UnicodeDecodeError"))) throw e;
    out.stderr += `error: ${e.message}\n`;
    return 2;
  }
  const claims = isDict(payload) ? get(payload, "claims") : payload;
  if (claims === undefined) throw new PyError("KeyError", "'claims'");
  const results: PyValue[] = [];
  const noWindow = new Set<string>();
  let stale = 0n;
  let earliest: Day | undefined;
  for (const c of iterate(claims)) {
    const cls = lower(pyStr(get(c, "class", "")!));
    let published: Day;
    try {
      const date = get(c, "pub_date");
      if (date === undefined) throw new PyError("KeyError", "'pub_date'");
      published = parseDate(pyStr(date));
    } catch (e) {
      if (!(e instanceof PyError) || (e.pyType !== "KeyError" && e.pyType !== "ValueError")) throw e;
      out.stderr += `error in claim ${pyRepr(c)}: ${e.message}\n`;
      return 2;
    }
    const months = windows.get(cls);
    const entry: PyDict = new Map(c as PyDict);
    if (months === undefined) {
      noWindow.add(cls);
      results.push(entry.set("recheck", null).set("stale", null));
      continue;
    }
    const recheck = addMonths(published, months);
    const isStale = before(recheck, now) <= 0;
    if (isStale) stale++;
    if (!earliest || before(recheck, earliest) < 0) earliest = recheck;
    results.push(entry.set("recheck", iso(recheck)).set("stale", isStale));
  }
  const result = new Map<string, PyValue>([
    ["today", iso(now)],
    ["claims", results],
    ["stale_count", stale],
    ["earliest_recheck", earliest ? iso(earliest) : null],
    ["no_window_classes", [...noWindow].sort(compareCodePoints)],
  ]);
  return emit(out, result, stale ? 1 : 0);
}

/** NFKD, ASCII only, lowercase runs of [a-z0-9] joined by "-", at most 40. */
function slugify(text: string): string {
  const ascii = text.normalize("NFKD").replace(/[^\x00-\x7f]/g, "");
  const slug = stripChars(ascii.toLowerCase().replace(/[^a-z0-9]+/g, "-"), "-").replace(/-{2,}/g, "-");
  return stripChars(slug.slice(0, 40), "-", "right");
}

/** html.escape(s, quote=True) */
const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#x27;");

/** urlparse(raw): http(s) with a host, or nothing. */
function safeUrl(raw: string): string | undefined {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)/.exec(raw);
  return m && ["http", "https"].includes(m[1]!.toLowerCase()) && m[2] ? raw : undefined;
}

/** The first match of `\[([^\]]*)\]\((\S+?)\)` (a Markdown link), by hand: tried at every `[`, the regex scans to
 *  the next `]` and on, quadratic in brackets. A `[` before the same `]` ends the same way, and a failed target
 *  scan fails for every start inside it, so each part of the cell is scanned once. */
export function markdownLink(cell: string): { index: number; whole: string; label: string; target: string } | undefined {
  let failedUntil = -1; // a target scan from before here runs into the same whitespace or end
  for (let open = cell.indexOf("["); open >= 0; ) {
    const close = cell.indexOf("]", open + 1);
    if (close < 0) return undefined;
    const from = close + 2;
    if (cell[close + 1] === "(" && from >= failedUntil && from < cell.length && !isSpace(cell[from]!)) {
      let end = from + 1;
      while (end < cell.length && cell[end] !== ")" && !isSpace(cell[end]!)) end++;
      if (cell[end] === ")") return { index: open, whole: cell.slice(open, end + 1), label: cell.slice(open + 1, close), target: cell.slice(from, end) };
      failedUntil = end;
    }
    // Every `[` before `close` finds this same `]`.
    open = cell.indexOf("[", close + 1);
  }
  return undefined;
}

function cellHtml(cell: string, invalid: string[]): string {
  const link = markdownLink(cell);
  if (link) {
    const url = safeUrl(link.target);
    const label = escapeHtml(link.label || link.target);
    if (url) return `${escapeHtml(cell.slice(0, link.index))}<a href="${escapeHtml(url)}" target="_blank" rel="noopener">${label}</a>${escapeHtml(cell.slice(link.index + link.whole.length))}`;
    invalid.push(link.target);
    return escapeHtml(cell.split(link.whole).join(link.label || link.target));
  }
  const bare = BARE_URL.exec(cell);
  if (bare) {
    const url = safeUrl(bare[0]);
    if (url) {
      const escaped = escapeHtml(url);
      return `${escapeHtml(cell.slice(0, bare.index))}<a href="${escaped}" target="_blank" rel="noopener">${escaped}</a>${escapeHtml(cell.slice(bare.index + bare[0].length))}`;
    }
    invalid.push(bare[0]);
  }
  return escapeHtml(cell);
}

export async function main(argv: string[], ctx: ScriptContext): Promise<ScriptResult> {
  const p = parser(await docstring(ctx));
  return runScript(async (out) => {
    const args = parseArgs(p, argv, terminalWidth(ctx));
    try {
      switch (args.cmd) {
        case "citations": {
          const [result, code] = citations(await readArg(ctx, args.file as string), ctx.budget);
          return emit(out, result, code);
        }
        case "tally":
          return emit(out, tally(await readArg(ctx, args.file as string), ctx.budget), 0);
        case "staleness":
          return await staleness(ctx, args, out);
        case "slug": {
          const slug = slugify(args.topic as string);
          if (!slug) {
            out.stderr += "error: topic slugified to an empty string\n";
            return 2;
          }
          const pattern = (args.pattern as string | undefined) ?? "{research_type}-{topic_slug}-{date}";
          const folder = pattern
            .split("{research_type}")
            .join(args.type as string)
            .split("{topic_slug}")
            .join(slug)
            .split("{date}")
            .join((args.date as string | undefined) || iso(await today(ctx)));
          return emit(out, new Map([["topic_slug", slug], ["folder", folder]]), 0);
        }
        default: {
          const rows = appendixRows(stripFences(await readArg(ctx, args.file as string), ctx.budget), ctx.budget);
          if (!rows.size) {
            out.stderr += "error: no source-appendix table rows found\n";
            return 2;
          }
          const invalid: string[] = [];
          const body = sortedInts(rows.keys()).map((n) => `<tr id="src-${n}"><td>[${n}]</td>${rows.get(n)!.slice(1).map((c) => `<td>${cellHtml(c, invalid)}</td>`).join("")}</tr>`);
          const result = new Map<string, PyValue>([["rows", BigInt(rows.size)], ["invalid_urls", invalid], ["html", `<table class="sources"><tbody>${body.join("")}</tbody></table>`]]);
          return emit(out, result, invalid.length ? 1 : 0);
        }
      }
    } catch (e) {
      if (!(e instanceof PyError) || e.pyType !== "FileNotFoundError") throw e;
      out.stderr += `error: ${e.message}\n`;
      return 2;
    }
  });
}
