// Port of BMAD 6.12 _bmad/scripts/memlog.py: an append-only memory log with plain key: value frontmatter.
import { addArgument, addMutexGroup, addSubparser, addSubparsers, createParser, type Namespace, type Parser, parseArgs } from "./argparse.js";
import type { ScriptContext, ScriptResult } from "./context.js";
import { dumps, PyError } from "./py-json.js";
import { editTextThere, encodeUtf8, mkdirs, osError, RefusedOsError, replaceIfUnchanged, rewriteText, statPath } from "./py-io.js";
import { fsPath, joinPath, normPath, parentPath } from "./py-path.js";
import { repr, splitWhitespace, strip } from "./py-str.js";
import { type Output, runScript, terminalWidth } from "./process.js";
import { MEMLOG_DOC } from "./memlog-doc.js";
import { below, optionValues } from "./command-line.js";
import { wallTime } from "./time-zone.js";
import { editMemlog, MEMLOG_FILE, memlogStamp, NotAMemlog, renderMemlog, touchMemlog, type MemlogEdit } from "./memlog-text.js";

function parser(): Parser {
  const p = createParser("memlog.py", MEMLOG_DOC, true);
  const sub = addSubparsers(p, "cmd", true);
  const target = (sp: Parser) => {
    const group = addMutexGroup(sp, true);
    addArgument(sp, ["--workspace"], { group, help: "run folder; the memlog is {workspace}/.memlog.md" });
    addArgument(sp, ["--path"], { group, help: "explicit memlog file path (alternative to --workspace)" });
  };
  const init = addSubparser(p, sub, "init", "create the memlog");
  target(init);
  addArgument(init, ["--field"], { kind: "append", metavar: "KEY=VALUE", help: "frontmatter field (repeatable)" });
  const append = addSubparser(p, sub, "append", "append one entry at the end");
  target(append);
  addArgument(append, ["--text"], { required: true });
  addArgument(append, ["--type"], { help: "entry kind, rendered as an inline tag" });
  addArgument(append, ["--by"], { help: "who the entry came from (e.g. user, coach); rendered into the tag" });
  const set = addSubparser(p, sub, "set", "set a descriptive frontmatter field");
  target(set);
  addArgument(set, ["--key"], { required: true });
  addArgument(set, ["--value"], { required: true });
  return p;
}

/** datetime.now().strftime("%Y-%m-%dT%H:%M"), local time (the project's time zone where it has one: time-zone.ts). */
async function stamp(ctx: ScriptContext): Promise<string> {
  return memlogStamp(await wallTime(ctx));
}

/** The memlog an init names (--workspace or --path), as written: a hint for what to read before the run (append and
 *  set need none: where the file system can, the file's keeper applies them in the one call they make). */
export function memlogNamed(argv: string[]): string[] {
  if (argv[0] !== "init") return [];
  const path = [...optionValues(argv, ["--workspace"]).map((dir) => below(dir, MEMLOG_FILE)), ...optionValues(argv, ["--path"])][0];
  return path === undefined ? [] : [path];
}

/** The memlog file, as Python's str(Path) shows it: {workspace}/.memlog.md or --path. */
function target(args: Namespace): string {
  if (args.path) return normPath(args.path as string);
  if (typeof args.workspace !== "string") throw new PyError("TypeError", "expected str, bytes or os.PathLike object, not NoneType");
  return joinPath(args.workspace, MEMLOG_FILE);
}

function ack(out: Output, path: string, entries: number): void {
  out.stdout += `${dumps(new Map<string, boolean | string | bigint>([["ok", true], ["memlog", path], ["entries", BigInt(entries)]]))}\n`;
}

/** Where the file system finds Path(path); Python's FileNotFoundError when nothing can be there. */
async function located(ctx: ScriptContext, path: string): Promise<string> {
  const found = await fsPath(ctx.fs, path, ctx.cwd);
  if (found === undefined) throw osError("ENOENT", path);
  return found;
}

async function init(args: Namespace, ctx: ScriptContext, out: Output): Promise<number> {
  const path = target(args);
  // Asked beside the file calls below, not after them (a workspace asks its project for the zone).
  const stamped = stamp(ctx);
  stamped.catch(() => undefined); // an init refused first never reads it
  const where = await fsPath(ctx.fs, path, ctx.cwd);
  if (where !== undefined && (await statPath(ctx.fs, where)) !== "missing") {
    out.stderr += `error: ${path} already exists; use append/set to update it\n`;
    return 2;
  }
  // (A parent behind a ".." that leads nowhere is left to the write to report, as the OS would.)
  const parent = await fsPath(ctx.fs, parentPath(path), ctx.cwd);
  if (parent !== undefined) await mkdirs(ctx.fs, parent);
  const meta = new Map<string, string>();
  for (const pair of (args.field as string[] | undefined) ?? []) {
    const i = pair.indexOf("=");
    if (i < 0) {
      out.stderr += `error: --field expects key=value, got ${repr(pair)}\n`;
      return 2;
    }
    meta.set(strip(pair.slice(0, i)), strip(pair.slice(i + 1)));
  }
  touchMemlog(meta, await stamped);
  // Created only where none is, in the step that writes it: a second init at once must not replace a log an
  // append has already written to.
  if (!(await replaceIfUnchanged(ctx.fs, await located(ctx, path), undefined, encodeUtf8(renderMemlog(meta, ""))))) {
    out.stderr += `error: ${path} already exists; use append/set to update it\n`;
    return 2;
  }
  ack(out, path, 0);
  return 0;
}

// append and set change the memlog as one step: where the file is kept when the file system can (a workspace's
// object, one call), else read, changed and written under its lock or compare-and-set (rewriteText). Two sessions
// appending at once both land, where Python's read-then-write_atomic keeps only the last. The output is Python's.
async function change(ctx: ScriptContext, out: Output, path: string, edit: MemlogEdit): Promise<number> {
  const at = await located(ctx, path);
  const applied = await editTextThere(ctx.fs, at, edit, path);
  if (applied !== undefined) {
    ack(out, path, applied.entries);
    return 0;
  }
  // The zone (a workspace asks its project for it) is asked beside reading the file: one round trip, not two.
  const stamped = stamp(ctx);
  stamped.catch(() => undefined); // a file not found is said first
  let entries = 0;
  await rewriteText(ctx.fs, at, async (current) => {
    try {
      const next = editMemlog(current, edit, await stamped);
      entries = next.entries;
      return next.text;
    } catch (error) {
      if (error instanceof NotAMemlog) error.at = at;
      throw error;
    }
  }, path);
  ack(out, path, entries);
  return 0;
}

function append(args: Namespace, ctx: ScriptContext, out: Output): Promise<number> {
  const text = splitWhitespace(args.text as string).join(" ");
  let label = (args.type as string | undefined) || "";
  if (args.by) label = strip(`${label} by ${args.by}`);
  return change(ctx, out, target(args), { op: "append", entry: `- ${label ? `(${label}) ` : ""}${text}` });
}

function set(args: Namespace, ctx: ScriptContext, out: Output): Promise<number> {
  return change(ctx, out, target(args), { op: "set", key: args.key as string, value: args.value as string });
}

const COMMANDS = { init, append, set } as const;

export async function main(argv: string[], ctx: ScriptContext): Promise<ScriptResult> {
  let broken: NotAMemlog | undefined;
  let missing: string | undefined;
  const result = await runScript(async (out) => {
    const args = parseArgs(parser(), argv, terminalWidth(ctx));
    try {
      return await COMMANDS[args.cmd as keyof typeof COMMANDS](args, ctx, out);
    } catch (error) {
      if (error instanceof NotAMemlog) broken = error;
      // append or set before init (review 385): the traceback names no fix.
      if (error instanceof PyError && !(error instanceof RefusedOsError) && error.pyType === "FileNotFoundError" && args.cmd !== "init") missing = target(args);
      throw error; // Python's traceback, as it is
    }
  });
  return { ...result, ...(broken?.at ? { notAMemlog: { path: broken.at, reason: broken.reason } } : {}), ...(missing !== undefined ? { noMemlog: missing } : {}) };
}
