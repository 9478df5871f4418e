// Port of BMAD 6.12 bmad-review's scripts/word_metrics.py, for where its Python cannot run (the remote): a
// document's word count, in all and per heading section, as JSON.
import { addArgument, createParser, parseArgs } from "./argparse.js";
import type { RunBudget } from "./budget.js";
import type { ScriptContext, ScriptResult } from "./context.js";
import { dumps, type PyValue } from "./py-json.js";
import { readBytes, statNamed } from "./py-io.js";
import { fsPath, normPath, writeOutput } from "./py-path.js";
import { PY_NON_SPACE, PY_SPACE, splitlines, splitWhitespace, strip, universalNewlines } from "./py-str.js";
import { runScript, terminalWidth } from "./process.js";

const HEADING = new RegExp(`^(#{1,6})${PY_SPACE}+(${PY_NON_SPACE}.*)$`, "u");
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\uff66-\uff9f]/g;
/** bytes.decode("utf-8", errors="replace"), the BOM kept. */
const LENIENT = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

function parser() {
  const p = createParser("word_metrics.py", "Exact word counts for a document, as JSON.");
  addArgument(p, [], { dest: "path", required: true, help: "document to measure" });
  addArgument(p, ["-o", "--output"], { help: "write JSON here (default: stdout)" });
  return p;
}

/** Whitespace-separated tokens, plus one word per CJK character (those scripts do not space words). */
function wordCount(text: string): bigint {
  const cjk = text.match(CJK)?.length ?? 0;
  return BigInt(cjk + splitWhitespace(text.replace(CJK, " ")).length);
}

function sectionMetrics(text: string, budget?: RunBudget): PyValue[] {
  type Section = { heading: string; level: number; body: string[] };
  const sections: Section[] = [];
  let current: Section = { heading: "(preamble)", level: 0, body: [] };
  let open: [string, number] | undefined; // the fence being inside: its character and length
  for (const line of splitlines(text)) {
    budget?.spend(line.length + 1);
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1]!;
      if (!open) open = [marker[0]!, marker.length];
      else if (marker[0] === open[0] && marker.length >= open[1] && strip(line) === marker) open = undefined;
      current.body.push(line);
      continue;
    }
    const heading = open ? null : HEADING.exec(line);
    if (heading) {
      sections.push(current);
      current = { heading: strip(heading[2]!), level: heading[1]!.length, body: [] };
    } else current.body.push(line);
  }
  sections.push(current);
  const out: PyValue[] = [];
  for (const s of sections) {
    const words = wordCount(s.body.join("\n"));
    if (s.heading === "(preamble)" && words === 0n) continue;
    out.push(new Map<string, PyValue>([["heading", s.heading], ["level", BigInt(s.level)], ["words", words]]));
  }
  return out;
}

/** The document a command line names (its one positional word), as written: a hint for what to read before the run. */
export function wordMetricsReads(argv: string[]): string[] {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === "-o" || word === "--output") i++;
    else if (word === "--") return argv.slice(i + 1, i + 2);
    else if (!word.startsWith("-")) return [word];
  }
  return [];
}

export function main(argv: string[], ctx: ScriptContext): Promise<ScriptResult> {
  return runScript(async (out) => {
    const args = parseArgs(parser(), argv, terminalWidth(ctx));
    const path = normPath(args.path as string);
    const at = await fsPath(ctx.fs, path, ctx.cwd);
    if (at === undefined || (await statNamed(ctx.fs, at, path)) !== "file") {
      out.stderr += `error: not a readable file: ${path}\n`;
      return 2;
    }
    const text = universalNewlines(LENIENT.decode(await readBytes(ctx.fs, at, path)));
    const json = dumps(new Map<string, PyValue>([["file", path], ["total_words", wordCount(text)], ["sections", sectionMetrics(text, ctx.budget)]]), { indent: 2, ensureAscii: false });
    // An empty -o is "not given", as `if args.output:` reads it.
    if (!args.output) {
      out.stdout += `${json}\n`;
      return 0;
    }
    await writeOutput(ctx.fs, args.output as string, ctx.cwd, `${json}\n`);
    return 0;
  });
}
