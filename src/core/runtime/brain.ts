// Port of BMAD 6.12 bmad-brainstorming's scripts/brain.py, for where its Python cannot run (the remote): the
// technique library's read-only commands (categories, list, show, random), so a model reaches the library the way
// the skill says, a slice at a time. `html` writes the composer page for the user's own machine: the bridge runs it.
import { addArgument, addSubparser, addSubparsers, createParser, error, type Namespace, parseArgs } from "./argparse.js";
import type { ScriptContext, ScriptResult } from "./context.js";
import { dumps, loads, PyError, type PyValue } from "./py-json.js";
import { decodeUtf8, readBytes, readText, statPath } from "./py-io.js";
import { joinPath, normPath, parentPath, resolvePath } from "./py-path.js";
import { compareCodePoints, repr, strip } from "./py-str.js";
import { runScript, terminalWidth } from "./process.js";

const FIELDS = ["category", "technique_name", "description", "detail", "provenance", "good_for", "audience"] as const;
type Row = Record<(typeof FIELDS)[number], string>;

/** The module docstring, which --help prints as it is (RawDescriptionHelpFormatter): read from the script itself. */
async function docstring(ctx: ScriptContext): Promise<string | undefined> {
  if (ctx.scriptPath === undefined) return undefined;
  const text = await readText(ctx.fs, ctx.scriptPath).catch(() => "");
  return /^(?:#[^\n]*\n|\s*\n)*"""([\s\S]*?)"""/.exec(text)?.[1];
}

function parsers(description: string | undefined) {
  const p = createParser("brain.py", description, true);
  addArgument(p, ["--file"], { help: "technique CSV (default: sibling assets/brain-methods.csv)" });
  addArgument(p, ["--extra"], { help: "JSON overlay of additional techniques (customize.toml additional_techniques), merged into every command" });
  addArgument(p, ["--json"], { kind: "store_true", help: "emit structured JSON instead of lean text" });
  const sub = addSubparsers(p, "cmd", true);
  addSubparser(p, sub, "categories", "list category names + counts");
  const list = addSubparser(p, sub, "list", "the index: category/name/gist (needs --category or --all)");
  addArgument(list, ["--category"], { kind: "append", help: "filter to a category (repeatable)" });
  addArgument(list, ["--all"], { kind: "store_true", help: "dump the entire catalog (deliberate; large)" });
  const show = addSubparser(p, sub, "show", "full gist + detail file for named techniques");
  addArgument(show, [], { dest: "names", oneOrMore: true, required: true });
  const random = addSubparser(p, sub, "random", "pick techniques at random");
  addArgument(random, ["--category"], { kind: "append", help: "restrict to a category (repeatable)" });
  addArgument(random, ["-n"], { help: "how many (default 1)" });
  const html = addSubparser(p, sub, "html", "write the offline 'browse all' selection page");
  addArgument(html, ["--out"], { help: "file to write the page to (required; never prints the catalog)" });
  return { p, random };
}

/** csv.DictReader over a file read with encoding="utf-8-sig", newline="" (the excel dialect, not strict). */
function readCsv(text: string): Array<Map<string, string>> {
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
    if (record.length) records.push(record);
    record = [];
    state = "start";
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (state === "quoted") {
      if (c === '"') state = "quote";
      else field += c;
    } else if (state === "quote") {
      if (c === '"') {
        field += c;
        state = "quoted";
      } else if (c === ",") {
        endField();
        state = "start";
      } else if (c === "\n" || c === "\r") {
        endRecord();
        if (c === "\r" && text[i + 1] === "\n") i++;
      } else {
        field += c;
        state = "field";
      }
    } else if (c === ",") {
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
  const [header, ...rows] = records;
  if (!header) return [];
  return rows.map((row) => new Map(header.map((key, i) => [key, row[i] ?? ""])));
}

function load(text: string): Row[] {
  return readCsv(text.replace(/^\uFEFF/, "")).map((r) => Object.fromEntries(FIELDS.map((k) => [k, strip(r.get(k) ?? "")])) as Row);
}

function loadExtra(text: string): Row[] {
  const data = loads(text.replace(/^\uFEFF/, ""));
  if (!Array.isArray(data)) throw new PyError("ValueError", "--extra must be a JSON array of objects");
  return data.map((item) => {
    if (!(item instanceof Map)) throw new PyError("ValueError", `each --extra entry must be a JSON object, got: ${pyRepr(item)}`);
    const text = (key: string, orEmpty: boolean) => {
      const v = item.get(key);
      return strip(v === undefined || (orEmpty && !v) ? "" : pyStr(v));
    };
    return {
      category: text("category", false),
      technique_name: text("technique_name", false),
      description: text("description", false),
      detail: text("detail", true),
      provenance: text("provenance", true),
      good_for: text("good_for", true),
      audience: text("audience", true),
    };
  });
}

/** str(v) of a JSON value, as far as a technique's fields need it. */
function pyStr(v: PyValue): string {
  if (typeof v === "string") return v;
  if (v === null) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  return typeof v === "bigint" || typeof v === "number" ? String(v) : dumps(v);
}

function pyRepr(v: PyValue): string {
  return typeof v === "string" ? repr(v) : pyStr(v);
}

/** Extras replace a row of the same technique_name (any case), else they are appended. */
function mergeExtra(rows: Row[], extras: Row[]): Row[] {
  const merged = [...rows];
  const index = new Map(merged.map((r, i) => [r.technique_name.toLowerCase(), i]));
  for (const e of extras) {
    const key = e.technique_name.toLowerCase();
    const at = index.get(key);
    if (at !== undefined) merged[at] = e;
    else {
      index.set(key, merged.length);
      merged.push(e);
    }
  }
  return merged;
}

function categories(rows: Row[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.category, (counts.get(r.category) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => compareCodePoints(a, b));
}

function filterCats(rows: Row[], cats: string[] | undefined): Row[] {
  if (!cats?.length) return rows;
  const wanted = new Set(cats.map((c) => c.toLowerCase()));
  return rows.filter((r) => wanted.has(r.category.toLowerCase()));
}

const entry = (r: Row, keys: ReadonlyArray<keyof Row> = ["category", "technique_name", "description"]) => new Map<string, PyValue>(keys.map((k) => [k, r[k]]));

function fmtList(rows: Row[], json: boolean): string {
  if (json) return dumps(rows.map((r) => entry(r)));
  return rows.map((r) => `${r.category}\t${r.technique_name}\t${r.description}`).join("\n");
}

export async function main(argv: string[], ctx: ScriptContext): Promise<ScriptResult> {
  const { p, random } = parsers(await docstring(ctx));
  return runScript(async (out) => {
    const env = terminalWidth(ctx);
    const args: Namespace = parseArgs(p, argv, env);
    let count = 1;
    if (args.cmd === "random" && args.n !== undefined) {
      const n = args.n as string;
      // int(): surrounding whitespace, a sign and digit-group underscores are allowed.
      if (!/^\s*[+-]?\d+(?:_\d+)*\s*$/.test(n)) error(random, `argument -n: invalid int value: ${repr(n)}`, env);
      count = Number(n.replace(/_/g, ""));
    }
    const scriptDir = ctx.scriptPath === undefined ? ctx.cwd : parentPath(await resolvePath(ctx.fs, ctx.scriptPath, ctx.cwd));
    const file = args.file === undefined ? joinPath(parentPath(scriptDir), "assets", "brain-methods.csv") : normPath(args.file as string);
    const fileAt = await resolvePath(ctx.fs, file, ctx.cwd);
    if ((await statPath(ctx.fs, fileAt)) !== "file") {
      out.stderr += `error: technique file not found: ${file}\n`;
      return 2;
    }
    // open(newline=""): line ends inside a quoted field stay as they are.
    let rows = load(decodeUtf8(await readBytes(ctx.fs, fileAt, file)));
    if (args.extra !== undefined) {
      const extra = normPath(args.extra as string);
      const extraAt = await resolvePath(ctx.fs, extra, ctx.cwd);
      if ((await statPath(ctx.fs, extraAt)) !== "file") {
        out.stderr += `error: --extra file not found: ${extra}\n`;
        return 2;
      }
      try {
        rows = mergeExtra(rows, loadExtra(await readText(ctx.fs, extraAt, extra)));
      } catch (e) {
        // Python's JSONDecodeError is a ValueError; its message names the place as JSON.parse's does, in other words.
        if (!(e instanceof SyntaxError) && !(e instanceof PyError && e.pyType === "ValueError")) throw e;
        out.stderr += `error: could not read --extra: ${e.message}\n`;
        return 2;
      }
    }
    const json = args.json !== undefined;
    const csvDir = parentPath(fileAt);
    switch (args.cmd) {
      case "categories": {
        const cats = categories(rows);
        out.stdout += `${json ? dumps(cats.map(([c, n]) => new Map<string, PyValue>([["category", c], ["count", BigInt(n)]]))) : cats.map(([c, n]) => `${c}\t${n}`).join("\n")}\n`;
        return 0;
      }
      case "list":
        if (!args.category && args.all === undefined) {
          out.stderr += "error: `list` needs --category (one or more) — or --all to dump the whole catalog on purpose. Use `categories` for the cheap map, or `random` to draw blind.\n";
          return 2;
        }
        out.stdout += `${fmtList(filterCats(rows, args.category as string[] | undefined), json)}\n`;
        return 0;
      case "show": {
        const byName = new Map(rows.map((r) => [r.technique_name.toLowerCase(), r]));
        const found: Row[] = [];
        for (const name of args.names as string[]) {
          const row = byName.get(strip(name).toLowerCase());
          if (row) found.push(row);
          else out.stderr += `# not found: ${name}\n`;
        }
        if (!found.length) return 1;
        const shown: Array<[Row, string | undefined]> = [];
        for (const r of found) shown.push([r, await detail(ctx, r, csvDir, out)]);
        out.stdout += `${
          json
            ? dumps(shown.map(([r, d]) => (d ? new Map([...entry(r), ["detail", d]]) : entry(r))))
            : shown.map(([r, d]) => `## ${r.technique_name}  [${r.category}]\n${r.description}${d ? `\n\n${d}` : ""}`).join("\n\n")
        }\n`;
        return 0;
      }
      case "random": {
        const pool = filterCats(rows, args.category as string[] | undefined);
        if (!pool.length) {
          out.stderr += "# no techniques match\n";
          return 1;
        }
        out.stdout += `${fmtList(sample(pool, Math.max(0, Math.min(count, pool.length))), json)}\n`;
        return 0;
      }
      default:
        out.stderr += "error: `html` writes the composer page, a file the user opens on their own machine: run this line on the bmad-mcp bridge. Here, pick techniques in chat with categories, list --category, show or random.\n";
        return 2;
    }
  });
}

/** A row's detail file (relative to the CSV's folder), or nothing; a missing one is said on stderr. */
async function detail(ctx: ScriptContext, row: Row, csvDir: string, out: { stderr: string }): Promise<string | undefined> {
  if (!row.detail) return undefined;
  const path = await resolvePath(ctx.fs, joinPath(csvDir, row.detail), ctx.cwd);
  if ((await statPath(ctx.fs, path)) !== "file") {
    out.stderr += `# detail file not found for ${row.technique_name}: ${row.detail}\n`;
    return undefined;
  }
  return strip(await readText(ctx.fs, path));
}

/** random.sample: n distinct rows in random order. */
function sample(pool: Row[], n: number): Row[] {
  const rest = [...pool];
  const picked: Row[] = [];
  while (picked.length < n) picked.push(rest.splice(Math.floor(Math.random() * rest.length), 1)[0]!);
  return picked;
}
