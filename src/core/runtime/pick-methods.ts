// Port of BMAD 6.12 bmad-advanced-elicitation's scripts/pick_methods.py, for where its Python cannot run (the
// remote): the elicitation method catalog a slice at a time (categories, list, show, random with --spread).
import { addArgument, addSubparser, addSubparsers, createParser, parseArgs } from "./argparse.js";
import type { ScriptContext, ScriptResult } from "./context.js";
import { pyInt } from "./py-int.js";
import { dumps, loads, PyError, type PyValue } from "./py-json.js";
import { catalogFile, categoriesText, docstring, drawCount, filterCats, listRows, readRows, sample } from "./py-catalog.js";
import { decodeUtf8, isOsError, readBytes, readText } from "./py-io.js";
import { pyRepr, pyStr, truthy } from "./py-ops.js";
import { normPath, resolvePath } from "./py-path.js";
import { strip } from "./py-str.js";
import { runScript, terminalWidth } from "./process.js";

const FIELDS = ["num", "category", "method_name", "description", "output_pattern"] as const;
type Row = Record<(typeof FIELDS)[number], string>;

function parsers(description: string | undefined) {
  const p = createParser("pick_methods.py", description, true);
  addArgument(p, ["--file"], { help: "method CSV (default: sibling assets/methods.csv)" });
  addArgument(p, ["--extra"], { help: "additional methods: a JSON array literal or a path to a JSON file" });
  addArgument(p, ["--json"], { kind: "store_true", help: "emit structured JSON instead of lean text" });
  const sub = addSubparsers(p, "cmd", true);
  addSubparser(p, sub, "categories", "list category names + counts");
  const list = addSubparser(p, sub, "list", "the index for chosen categories (needs --category or --all)");
  addArgument(list, ["--category"], { kind: "append", help: "filter to a category (repeatable)" });
  addArgument(list, ["--all"], { kind: "store_true", help: "dump the entire catalog (deliberate; large)" });
  const show = addSubparser(p, sub, "show", "full row for each named method");
  addArgument(show, [], { dest: "names", oneOrMore: true, required: true, help: "method names or nums" });
  const random = addSubparser(p, sub, "random", "draw methods at random");
  addArgument(random, ["-n"], { help: "how many (default 1)" });
  addArgument(random, ["--category"], { kind: "append", help: "restrict to a category (repeatable)" });
  addArgument(random, ["--exclude"], { kind: "append", help: "method name to skip (repeatable) — e.g. already shown" });
  addArgument(random, ["--spread"], { kind: "store_true", help: "force category diversity across the draw" });
  return { p, random };
}

/** The --extra overlay: a JSON array literal, or a path to a JSON file. */
async function loadExtra(ctx: ScriptContext, spec: string): Promise<Row[]> {
  let text = spec;
  if (!strip(spec).startsWith("[")) {
    const at = await resolvePath(ctx.fs, spec, ctx.cwd);
    text = (await readText(ctx.fs, at, normPath(spec))).replace(/^\uFEFF/, "");
  }
  const data = loads(text);
  if (!Array.isArray(data)) throw new PyError("ValueError", "--extra must be a JSON array of objects");
  return data.map((item) => {
    if (!(item instanceof Map)) throw new PyError("ValueError", `each --extra entry must be a JSON object, got: ${pyRepr(item)}`);
    const field = (key: string) => strip(truthy(item.get(key)) ? pyStr(item.get(key)!) : "");
    return Object.fromEntries(FIELDS.map((k) => [k, field(k)])) as Row;
  });
}

/** Extras replace a row of the same method_name (any case) and keep its num, else they are appended; rows with
 *  no num get the next free ones. */
function mergeExtra(rows: Row[], extras: Row[]): Row[] {
  const merged = [...rows];
  const index = new Map(merged.map((r, i) => [r.method_name.toLowerCase(), i]));
  for (const e of extras) {
    const key = e.method_name.toLowerCase();
    const at = index.get(key);
    if (at !== undefined) merged[at] = { ...e, num: e.num || merged[at]!.num };
    else {
      index.set(key, merged.length);
      merged.push({ ...e });
    }
  }
  // Python's int: exact past 2^53 (review 137: 12345678901234567890 + 1 came out as …7000), of any decimal digits.
  // isdigit() also passes digits that are not decimal (², ①), on which Python's int() stops the script; this skips them.
  const nums = merged.filter((r) => /^\p{Nd}+$/u.test(r.num)).map((r) => pyInt(r.num));
  let next = nums.reduce((max, n) => (n > max ? n : max), 0n) + 1n;
  for (const r of merged) if (!r.num) r.num = String(next++);
  return merged;
}

/** By method_name (a later row wins) or by num (the first row with it), in any case. */
function find(rows: Row[], names: string[]): [Row[], string[]] {
  const byKey = new Map<string, Row>();
  for (const r of rows) {
    byKey.set(r.method_name.toLowerCase(), r);
    if (r.num && !byKey.has(r.num)) byKey.set(r.num, r);
  }
  const found: Row[] = [];
  const missing: string[] = [];
  for (const n of names) {
    const r = byKey.get(strip(n).toLowerCase());
    if (r) found.push(r);
    else missing.push(n);
  }
  return [found, missing];
}

/** n methods, one per category round-robin (categories and their methods shuffled) until they run out. */
function spreadSample(rows: Row[], n: number): Row[] {
  const byCat = new Map<string, Row[]>();
  for (const r of rows) {
    const bucket = byCat.get(r.category);
    if (bucket) bucket.push(r);
    else byCat.set(r.category, [r]);
  }
  let buckets = sample([...byCat.values()], byCat.size).map((b) => sample(b, b.length));
  const out: Row[] = [];
  while (buckets.length && out.length < n) {
    for (const b of buckets) {
      if (out.length >= n) break;
      out.push(b.pop()!);
    }
    buckets = buckets.filter((b) => b.length);
  }
  return out;
}

function fmtRows(rows: Row[], json: boolean): string {
  if (json) return dumps(rows.map((r) => new Map<string, PyValue>(FIELDS.map((k) => [k, r[k]]))));
  return rows.map((r) => FIELDS.map((k) => r[k]).join("\t")).join("\n");
}

export async function main(argv: string[], ctx: ScriptContext): Promise<ScriptResult> {
  const { p, random } = parsers(await docstring(ctx));
  return runScript(async (out) => {
    const env = terminalWidth(ctx);
    const args = parseArgs(p, argv, env);
    const count = drawCount(args, random, env);
    const { file, at: fileAt, found } = await catalogFile(ctx, args.file, "methods.csv");
    if (!found) {
      out.stderr += `error: method file not found: ${file}\n`;
      return 2;
    }
    let rows: Row[] = readRows(decodeUtf8(await readBytes(ctx.fs, fileAt, file)), FIELDS, ctx.budget);
    if (args.extra !== undefined) {
      try {
        rows = mergeExtra(rows, await loadExtra(ctx, args.extra as string));
      } catch (e) {
        // except (OSError, ValueError): JSON's and UTF-8's errors are ValueErrors, the file's OSErrors.
        if (!(e instanceof SyntaxError) && !isOsError(e) && !(e instanceof PyError && (e.pyType === "ValueError" || e.pyType === "UnicodeDecodeError"))) throw e;
        out.stderr += `error: could not read --extra: ${(e as Error).message}\n`;
        return 2;
      }
    }
    const json = args.json !== undefined;
    switch (args.cmd) {
      case "categories":
        out.stdout += `${categoriesText(rows, json)}\n`;
        return 0;
      case "list":
        return listRows(args, rows, out, (r) => fmtRows(r, json));
      case "show": {
        const [found, missing] = find(rows, args.names as string[]);
        for (const m of missing) out.stderr += `# not found: ${m}\n`;
        if (!found.length) return 1;
        out.stdout += `${fmtRows(found, json)}\n`;
        return 0;
      }
      default: {
        const skip = new Set(((args.exclude as string[] | undefined) ?? []).map((n) => strip(n).toLowerCase()));
        const pool = filterCats(rows, args.category as string[] | undefined).filter((r) => !skip.has(r.method_name.toLowerCase()));
        if (!pool.length) {
          out.stderr += "# no methods match\n";
          return 1;
        }
        const n = Math.max(0, Math.min(count, pool.length));
        out.stdout += `${fmtRows(args.spread !== undefined ? spreadSample(pool, n) : sample(pool, n), json)}\n`;
        return 0;
      }
    }
  });
}
