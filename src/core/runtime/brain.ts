// Port of BMAD 6.12 bmad-brainstorming's scripts/brain.py, for where its Python cannot run (the remote): the
// technique library's read-only commands (categories, list, show, random), so a model reaches the library the way
// the skill says, a slice at a time. `html` writes the composer page for the user's own machine: the bridge runs the
// real script for that page (BMAD's own HTML) and writes it where --out says, through the confined fs.
import { addArgument, addSubparser, addSubparsers, createParser, type Namespace, parseArgs } from "./argparse.js";
import { OUTPUT_FILE, type ScriptContext, type ScriptResult } from "./context.js";
import { dumps, loads, PyError, type PyValue } from "./py-json.js";
import { decodeUtf8, mkdirs, readBytes, readText, statNamed, statPath, writeBytes } from "./py-io.js";
import { joinPath, normPath, parentPath, resolvePath } from "./py-path.js";
import { strip } from "./py-str.js";
import { catalogFile, categoriesText, docstring, drawCount, filterCats, listRows, readRows, sample } from "./py-catalog.js";
import { pyRepr, pyStr, truthy } from "./py-ops.js";
import { runScript, terminalWidth } from "./process.js";

const FIELDS = ["category", "technique_name", "description", "detail", "provenance", "good_for", "audience"] as const;
type Row = Record<(typeof FIELDS)[number], string>;

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

function loadExtra(text: string): Row[] {
  const data = loads(text.replace(/^\uFEFF/, ""));
  if (!Array.isArray(data)) throw new PyError("ValueError", "--extra must be a JSON array of objects");
  return data.map((item) => {
    if (!(item instanceof Map)) throw new PyError("ValueError", `each --extra entry must be a JSON object, got: ${pyRepr(item)}`);
    const text = (key: string, orEmpty: boolean) => {
      const v = item.get(key);
      return strip(v === undefined || (orEmpty && !truthy(v)) ? "" : pyStr(v));
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
    const count = drawCount(args, random, env);
    const { file, at: fileAt, found } = await catalogFile(ctx, args.file, "brain-methods.csv");
    if (!found) {
      out.stderr += `error: technique file not found: ${file}\n`;
      return 2;
    }
    // open(newline=""): line ends inside a quoted field stay as they are.
    let rows: Row[] = readRows(decodeUtf8(await readBytes(ctx.fs, fileAt, file)), FIELDS, ctx.budget);
    let extraAt: string | undefined;
    if (args.extra !== undefined) {
      const extra = normPath(args.extra as string);
      extraAt = await resolvePath(ctx.fs, extra, ctx.cwd);
      if ((await statNamed(ctx.fs, extraAt, extra)) !== "file") {
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
      case "categories":
        out.stdout += `${categoriesText(rows, json)}\n`;
        return 0;
      case "list":
        return listRows(args, rows, out, (r) => fmtList(r, json));
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
      default: {
        if (!ctx.runOriginal && ctx.composerShown) {
          const shipped = extraAt === undefined && fileAt === (await catalogFile(ctx, undefined, "brain-methods.csv")).at;
          out.stdout += `${ctx.composerShown(shipped)}\n`;
          return 0;
        }
        if (!ctx.runOriginal) {
          out.stderr += "error: `html` writes the composer page, a file the user opens on their own machine: run this line on the bmad-mcp bridge. Here, pick techniques in chat with categories, list --category, show or random.\n";
          return 2;
        }
        // BMAD's own page, drawn by the real script from the files read above into a private file, then written here
        // through fs: where it lands is confined like every other write, whatever --out says.
        const outArg = args.out as string | undefined;
        const run = await ctx.runOriginal(["--file", fileAt, ...(extraAt ? ["--extra", extraAt] : []), "html", ...(outArg ? ["--out", OUTPUT_FILE] : [])]);
        if (run.exitCode !== 0 || !run.output || !outArg) {
          out.stdout += run.stdout;
          out.stderr += run.stderr;
          return run.exitCode;
        }
        const target = await resolvePath(ctx.fs, outArg, ctx.cwd);
        await mkdirs(ctx.fs, parentPath(target));
        await writeBytes(ctx.fs, target, run.output.data);
        out.stdout += run.stdout.split(run.output.path).join(normPath(outArg));
        out.stderr += run.stderr;
        return 0;
      }
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
