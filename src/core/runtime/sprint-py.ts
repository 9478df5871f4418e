// What sprint_plan.py and sprint_status.py share, ported once: the JSON-only stdout contract (argparse errors
// included), Python's view of a loaded sprint-status document (dict.get, ==, type names, str()), the slug of a
// title, the timestamps, and reading and writing the file through RuntimeFs.
import { ArgparseExit, type Namespace, type Parser, parseArgs } from "./argparse.js";
import type { ScriptContext, ScriptResult } from "./context.js";
import { dumps, PyError, type PyDict, type PyValue } from "./py-json.js";
import { pyInt } from "./py-int.js";
import { pyRepr } from "./py-ops.js";
import { PY_SPACE, repr, stripChars } from "./py-str.js";
import { runScript, terminalWidth } from "./process.js";
import { sha256 } from "./render-skill.js";
import { decodeUtf8, encodeUtf8, osError, readBytes, replaceIfUnchanged, statPath } from "./py-io.js";
import { fsPath, joinPath } from "./py-path.js";
import { universalNewlines } from "./py-str.js";
import { stampOf, stampRepr, stampStr } from "./sprint-yaml-time.js";
import { floatValue, intValue, loadYaml, type YDoc, type YMapNode, type YScalar, type YValue } from "./sprint-yaml.js";

/** print(json.dumps(value)) and sys.exit(code), thrown from anywhere in a command. */
export class Emit {
  constructor(
    readonly value: PyDict,
    readonly code: number,
    readonly newline: boolean,
  ) {}
}

/** An action item's statuses, as sprint_plan.py and sprint_status.py read them. */
export const ACTION_STATUSES = ["open", "in-progress", "done"];

export const dict = (...entries: Array<[string, PyValue]>): PyDict => new Map(entries);

/** Runs a command on the JSON-only contract: argparse's errors become {"ok": false, "error": "argument error: ..."}
 *  with exit 2; an Emit ends the run with its JSON. `newline`: print() (sprint_plan) or sys.stdout.write. */
export function runJson(argv: string[], ctx: ScriptContext, parser: Parser, newline: boolean, body: (args: Namespace) => Promise<void>): Promise<ScriptResult> {
  return runScript(async (out) => {
    let emit: Emit;
    try {
      await body(parseArgs(parser, argv, terminalWidth(ctx)));
      return 0;
    } catch (error) {
      // An argument error (argparse's own, or type=int's checked after it) is JSON too.
      if (error instanceof ArgparseExit && error.reason !== undefined) emit = new Emit(dict(["ok", false], ["error", `argument error: ${error.reason}`]), 2, newline);
      else if (error instanceof Emit) emit = error;
      else throw error;
    }
    out.stdout += dumps(emit.value) + (emit.newline ? "\n" : "");
    return emit.code;
  });
}

/** Drops the -h action createParser adds (add_help=False): -h is then an unrecognized argument. */
export function withoutHelp(parser: Parser): Parser {
  parser.actions = parser.actions.filter((a) => a.kind !== "help");
  return parser;
}

/** argparse's type=int: int(text) (blanks around, a sign, single underscores between digits), or its error. */
export function intArg(name: string, text: string | undefined): bigint | undefined {
  if (text === undefined) return undefined;
  try {
    return pyInt(text);
  } catch {
    throw new ArgparseExit(2, "", "", `argument ${name}: invalid int value: ${repr(text)}`);
  }
}

// Python's view of loaded values.

export const isMap = (v: YValue | undefined): v is YMapNode => deref(v)?.kind === "map";
export const isSeq = (v: YValue | undefined): boolean => deref(v)?.kind === "seq";
export const isStr = (v: YValue | undefined): v is YScalar => v?.kind === "scalar" && v.tag === "str";

export function deref(v: YValue | undefined): YValue | undefined {
  return v?.kind === "alias" ? v.target : v;
}

/** dict.get(key) for a str key: the value, or undefined when no str key equals it. */
export function getItem(map: YMapNode, key: string): YValue | undefined {
  return map.items.find((i) => i.key.tag === "str" && i.key.text === key)?.value;
}

/** `value is None` */
export const isNone = (v: YValue | undefined): boolean => v === undefined || (deref(v)?.kind === "scalar" && (deref(v) as YScalar).tag === "null");

/** Python truth of a loaded value. */
export function truthy(v: YValue | undefined): boolean {
  const d = deref(v);
  if (!d) return false;
  if (d.kind !== "scalar") return (d as YMapNode).items.length > 0;
  if (d.tag === "null") return false;
  if (d.tag === "str") return d.text !== "";
  if (d.tag === "bool") return /^t/i.test(d.text);
  if (d.tag === "int" || d.tag === "float") return Number(toPy(d)) !== 0;
  return true;
}

/** `value == text` for a str on the other side. */
export const equalsStr = (v: YValue | undefined, text: string): boolean => isStr(deref(v)) && (deref(v) as YScalar).text === text;

/** The value as json.dumps(..., default=str) sees it (a timestamp as its str()). */
export function toPy(v: YValue): PyValue {
  const d = deref(v)!;
  if (d.kind === "map") return new Map(d.items.map((i) => [keyText(i.key), toPy(i.value)]));
  if (d.kind === "seq") return d.items.map((i) => toPy(i.value));
  if (d.kind === "alias") return toPy(d.target);
  switch (d.tag) {
    case "str":
    case "tagged": // str(TaggedScalar), as json.dumps(default=str) writes it
      return d.text;
    case "null":
      return null;
    case "bool":
      return /^t/i.test(d.text);
    case "int":
      return intValue(d.text);
    case "float":
      return floatValue(d.text);
    default:
      return stampStr(stampOf(d.text));
  }
}

/** A dict key as json.dumps writes it. */
function keyText(k: YScalar): string {
  const v = toPy(k);
  return typeof v === "string" ? v : v === null ? "null" : typeof v === "boolean" ? String(v) : pyRepr(v);
}

/** str(value) */
export const pyStrOf = (v: YValue): string => {
  const p = toPy(v);
  return typeof p === "string" ? p : pyReprOf(v);
};

/** repr(value) */
export function pyReprOf(v: YValue): string {
  const p = toPy(v);
  const d = deref(v)!;
  if (d.kind === "scalar" && d.tag === "timestamp") return stampRepr(stampOf(d.text));
  if (d.kind === "scalar" && d.tag === "tagged") return `TaggedScalar(value=${repr(d.text)}, style=${d.style ? repr(d.style) : "None"}, tag=Tag(${repr(d.explicitTag!)}))`;
  return pyRepr(p);
}

const SCALAR_TYPES: Record<string, string> = { "'": "SingleQuotedScalarString", '"': "DoubleQuotedScalarString", "|": "LiteralScalarString", ">": "FoldedScalarString" };

/** type(value).__name__ as ruamel's round-trip constructor makes it. */
export function typeNameOf(v: YValue): string {
  const d = deref(v)!;
  if (d.kind === "map") return "CommentedMap";
  if (d.kind === "seq") return "CommentedSeq";
  if (d.kind === "alias") return typeNameOf(d.target);
  if (d.tag === "str") return SCALAR_TYPES[d.style] ?? "str";
  if (d.tag === "tagged") return "TaggedScalar";
  if (d.tag === "null") return "NoneType";
  if (d.tag === "bool") return "bool";
  if (d.tag === "float") return "ScalarFloat";
  if (d.tag === "timestamp") return stampOf(d.text).type;
  const body = d.text.replace(/^[-+]/, "");
  return /^0[xX]/.test(body) ? "HexInt" : /^0[bB]/.test(body) ? "BinaryInt" : /^0o/.test(body) ? "OctalInt" : body.includes("_") || /^0\d/.test(body) ? "ScalarInt" : "int";
}

/** A dict lookup with this value as the key: lists and dicts cannot be one. */
export function hashable(v: YValue): YValue {
  const d = deref(v)!;
  if (d.kind === "map" || d.kind === "seq") throw new PyError("TypeError", `unhashable type: '${typeNameOf(d)}'`);
  return d;
}

/** A title as a key or id part: \w runs kept (lowercased), the rest one "-", cut to maxlen; a hash when nothing is left.
 *  Python's re and str.lower use the Unicode of its release (14 in Python 3.11), V8 its own (17 in 2026): a letter or
 *  digit assigned since is kept here and dropped there. Not pinned to Python's tables, which would age the same way. */
export async function slugify(text: string, maxlen: number): Promise<string> {
  const strip = (s: string) => stripChars(s, "-");
  let slug = strip(text.toLowerCase().replace(/[^\p{L}\p{N}_]+/gu, "-"));
  slug = strip([...slug].slice(0, maxlen).join(""));
  return slug || (await sha256(text)).slice(0, 8);
}

/** datetime.strptime(text, fmt) for the formats these scripts use, as [year, month, day, hour, minute] or undefined. */
export function strptime(text: string, fmt: "%m-%d-%Y %H:%M" | "%Y-%m-%d %H:%M" | "%Y-%m-%d"): number[] | undefined {
  const m2 = "(1[0-2]|0[1-9]|[1-9])";
  const d2 = "(3[01]|[12][0-9]|0[1-9]|[1-9]| [1-9])";
  const y4 = "([0-9]{4})";
  const hm = `${PY_SPACE}+(2[0-3]|[01][0-9]|[0-9]):([0-5][0-9]|[0-9])`;
  const source = fmt === "%m-%d-%Y %H:%M" ? `${m2}-${d2}-${y4}${hm}` : fmt === "%Y-%m-%d %H:%M" ? `${y4}-${m2}-${d2}${hm}` : `${y4}-${m2}-${d2}`;
  const m = new RegExp(`^(?:${source})$`, "i").exec(text);
  if (!m) return undefined;
  const n = m.slice(1).map((x) => Number(x!.trim()));
  const [year, month, day] = fmt.startsWith("%m") ? [n[2]!, n[0]!, n[1]!] : [n[0]!, n[1]!, n[2]!];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  if (year < 1 || day > days) return undefined;
  return [year, month, day, n[3] ?? 0, n[4] ?? 0];
}

/** strftime("%m-%d-%Y %H:%M") */
export function formatStamp([y, mo, d, h, mi]: number[]): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${p(mo!)}-${p(d!)}-${y} ${p(h!)}:${p(mi!)}`;
}

/** Minutes since the epoch of a stamp from strptime, for datetime subtraction (years below 100 too). */
export function stampMinutes([y, mo, d, h, mi]: number[]): number {
  const at = new Date(0);
  at.setUTCFullYear(y!, mo! - 1, d!);
  at.setUTCHours(h!, mi!, 0, 0);
  return at.getTime() / 60000;
}

/** Sets map[key] = value as CommentedMap.__setitem__ does: a plain str given to a key whose old value is a quoted or
 *  block string takes that style; a new key goes last. The item keeps its comments. */
export function setItem(map: YMapNode, key: string, value: YValue): void {
  const item = map.items.find((i) => i.key.tag === "str" && i.key.text === key);
  if (!item) {
    map.items.push({ key: { kind: "scalar", tag: "str", text: key, style: "" }, value });
    return;
  }
  delete item.merged; // set, a merged key is the map's own (ruamel adds it to _ok)
  const old = item.value;
  if (value.kind === "scalar" && value.tag === "str" && value.style === "" && old.kind === "scalar" && old.tag === "str" && old.style !== "") item.value = { ...value, style: old.style };
  else item.value = value;
}

/** Reads and loads a YAML file as `with open(path) as fh: yaml.load(fh)` does: the document, or what was raised
 *  (an OSError, a decode error or a YAML error) as its str(). */
export async function loadFile(ctx: ScriptContext, path: string): Promise<{ doc: YDoc } | { error: string }> {
  let text: string;
  try {
    const at = await fsPath(ctx.fs, path, ctx.cwd);
    if (at === undefined) throw osError("ENOENT", path);
    text = universalNewlines(decodeUtf8(await readBytes(ctx.fs, at, path)));
  } catch (error) {
    if (error instanceof PyError) return { error: error.message };
    throw error;
  }
  return loadYaml(text);
}

/** What a run answers when its file changed between its read and its write (not Python's: its write would lose it). */
export const CHANGED_MEANWHILE = "the file changed while this ran (another writer's change, which stands): nothing was written; run it again";

/** Writes a dump (null: removes the file) where the path resolves (through symlinks, as os.path.realpath), only if
 *  the file still holds `expected` (undefined: none), in one step: false when another writer changed it since this
 *  run read it, whose change then stands (Python's read-change-write would lose it). */
export async function writeFileIf(ctx: ScriptContext, path: string, expected: Uint8Array | undefined, data: string | Uint8Array | null): Promise<boolean> {
  return replaceIfUnchanged(ctx.fs, await target(ctx, path), expected, typeof data === "string" ? encodeUtf8(data) : data);
}

async function target(ctx: ScriptContext, path: string): Promise<string> {
  const abs = joinPath(ctx.cwd, path);
  const at = ctx.fs.realpath ? await ctx.fs.realpath(abs) : await fsPath(ctx.fs, path, ctx.cwd);
  if (at === undefined) throw osError("ENOENT", path);
  return at;
}

/** Whether something is at the path (Path.exists()). */
export async function exists(ctx: ScriptContext, path: string): Promise<boolean> {
  const at = await fsPath(ctx.fs, path, ctx.cwd);
  return at !== undefined && (await statPath(ctx.fs, at)) !== "missing";
}
