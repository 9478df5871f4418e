// What the skill scripts that serve a catalog (brain.py's techniques, pick_methods.py's methods) share: Python's
// csv.DictReader, the category map, the filter and the random draw, and the docstring --help prints.
import { error, type Namespace, type Parser } from "./argparse.js";
import type { RunBudget } from "./budget.js";
import type { ScriptContext } from "./context.js";
import { readText, statNamed } from "./py-io.js";
import { joinPath, normPath, parentPath, resolvePath } from "./py-path.js";
import { pyInt } from "./py-int.js";
import { dumps, PyError, type PyValue } from "./py-json.js";
import { compareCodePoints, isSpace, repr, strip } from "./py-str.js";

/** csv.reader's records of a file read with encoding="utf-8-sig", newline="" (the excel dialect, not strict), but for
 *  blank lines after the first, which DictReader skips. */
function csvRecords(text: string, budget?: RunBudget): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let state: "start" | "field" | "quoted" | "quote" = "start";
  const endField = () => {
    record.push(field);
    field = "";
  };
  const endRecord = () => {
    if (state !== "start" || record.length) endField();
    budget?.spend(record.length + 1);
    // A blank line is no row, but DictReader takes the first record as the header, blank or not (review 456).
    if (record.length || !records.length) records.push(record);
    record = [];
    state = "start";
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (state === "quoted") {
      if (c === '"') state = "quote";
      else field += c;
      continue;
    }
    if (state === "quote") {
      if (c === '"') {
        field += c; // a doubled quote
        state = "quoted";
        continue;
      }
      state = "field"; // the quote has closed: what follows is the field's, or ends it
    }
    if (c === ",") {
      endField();
      state = "start";
    } else if (c === "\n" || c === "\r") {
      endRecord();
      if (c === "\r" && text[i + 1] === "\n") i++;
    } else if (c === '"' && state === "start") state = "quoted";
    else {
      field += c;
      state = "field";
    }
  }
  if (state !== "start" || record.length) endRecord();
  return records;
}

/** Each row's `fields`, stripped, "" where the file has none: both catalogs' load() over csv.DictReader. Only those
 *  fields are taken: a Map of the whole header per row costs header × rows, the square of the file for one long
 *  header line over many short rows. A key the header repeats takes its last column, as dict(zip(...)) does. */
export function readRows<K extends string>(text: string, fields: readonly K[], budget?: RunBudget): Array<Record<K, string>> {
  const [header, ...rows] = csvRecords(text.replace(/^\uFEFF/, ""), budget);
  if (!header) return [];
  const columns = fields.map((k) => [k, header.lastIndexOf(k)] as const);
  return rows.map((row) => {
    const record = {} as Record<K, string>;
    for (const [k, at] of columns) record[k] = at < 0 ? "" : strip(row[at] ?? "");
    return record;
  });
}

export function categories<R extends { category: string }>(rows: R[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.category, (counts.get(r.category) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => compareCodePoints(a, b));
}

export function filterCats<R extends { category: string }>(rows: R[], cats: string[] | undefined): R[] {
  if (!cats?.length) return rows;
  const wanted = new Set(cats.map((c) => c.toLowerCase()));
  return rows.filter((r) => wanted.has(r.category.toLowerCase()));
}

/** The module docstring, which --help prints as it is (RawDescriptionHelpFormatter): read from the script itself. */
export async function docstring(ctx: ScriptContext): Promise<string | undefined> {
  if (ctx.scriptPath === undefined) return undefined;
  const text = await readText(ctx.fs, ctx.scriptPath).catch(() => "");
  return moduleDocstring(text);
}

/** What `^(?:#[^\n]*\n|\s*\n)*"""([\s\S]*?)"""` captures, by hand: the regex backtracks exponentially on blank
 *  lines (`\s*\n` repeated can split a run of them in every way). Comment lines and runs of whitespace that end a
 *  line are skipped; the text must then open with three quotes. */
export function moduleDocstring(text: string): string | undefined {
  let at = 0;
  for (;;) {
    if (text[at] === "#") {
      const eol = text.indexOf("\n", at);
      if (eol < 0) return undefined;
      at = eol + 1;
      continue;
    }
    let end = at;
    while (end < text.length && isSpace(text[end]!)) end++;
    if (end === at || text[end - 1] !== "\n") break;
    at = end;
  }
  if (!text.startsWith('"""', at)) return undefined;
  const close = text.indexOf('"""', at + 3);
  return close < 0 ? undefined : text.slice(at + 3, close);
}

/** random.sample: n distinct rows in random order. */
export function sample<R>(pool: R[], n: number): R[] {
  // Each pick swaps into place (Fisher-Yates): removing it from the middle of the rest was the square of the pool.
  const rest = [...pool];
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(Math.random() * (rest.length - i));
    [rest[i], rest[j]] = [rest[j]!, rest[i]!];
  }
  return rest.slice(0, n);
}

/** random's `-n` as argparse's type=int reads it (int()'s rules), else its error. */
export function drawCount(args: Namespace, random: Parser, env: { width: number }): number {
  if (args.cmd !== "random" || args.n === undefined) return 1;
  const n = args.n as string;
  try {
    return Number(pyInt(n));
  } catch (e) {
    // argparse turns int()'s ValueError into its own usage error.
    if (e instanceof PyError) error(random, `argument -n: invalid int value: ${repr(n)}`, env);
    throw e;
  }
}

/** The catalog file: --file as given, else the script's sibling assets/NAME; where it is, or nothing. */
export async function catalogFile(ctx: ScriptContext, given: unknown, name: string): Promise<{ file: string; at: string; found: boolean }> {
  const scriptDir = ctx.scriptPath === undefined ? ctx.cwd : parentPath(await resolvePath(ctx.fs, ctx.scriptPath, ctx.cwd));
  const file = given === undefined ? joinPath(parentPath(scriptDir), "assets", name) : normPath(given as string);
  const at = await resolvePath(ctx.fs, file, ctx.cwd);
  return { file, at, found: (await statNamed(ctx.fs, at, file)) === "file" };
}

/** `categories`: each category and its count, sorted, as tab-separated text or JSON. */
export function categoriesText(rows: Array<{ category: string }>, json: boolean): string {
  const cats = categories(rows);
  return json ? dumps(cats.map(([c, n]) => new Map<string, PyValue>([["category", c], ["count", BigInt(n)]]))) : cats.map(([c, n]) => `${c}\t${n}`).join("\n");
}

/** `list`: the rows of the categories asked for; the whole catalog only with --all, on purpose. */
export function listRows<R extends { category: string }>(args: Namespace, rows: R[], out: { stdout: string; stderr: string }, format: (rows: R[]) => string): number {
  if (!args.category && args.all === undefined) {
    out.stderr += "error: `list` needs --category (one or more) — or --all to dump the whole catalog on purpose. Use `categories` for the cheap map, or `random` to draw blind.\n";
    return 2;
  }
  out.stdout += `${format(filterCats(rows, args.category as string[] | undefined))}\n`;
  return 0;
}
