// Python values as the ported scripts hold them, and json.dumps byte for byte.
// Tables are Maps (insertion order, like dict); TOML integers are bigint (int), floats number (float).
import type { TomlDate } from "smol-toml";
import { compareCodePoints } from "./py-str.js";

export type PyDict = Map<string, PyValue>;
export type PyValue = string | bigint | number | boolean | null | TomlDate | PyValue[] | PyDict;

/** A Python exception the script would not catch: the port answers like a traceback's last line. */
export class PyError extends Error {
  constructor(
    readonly pyType: string,
    message: string,
  ) {
    super(message);
  }
}

export function isDict(value: unknown): value is PyDict {
  return value instanceof Map;
}

/** type(value).__name__ */
export function typeName(value: PyValue | undefined): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "string") return "str";
  if (typeof value === "bigint") return "int";
  if (typeof value === "number") return "float";
  if (typeof value === "boolean") return "bool";
  if (Array.isArray(value)) return "list";
  if (value instanceof Map) return "dict";
  return value.isDate() ? "date" : value.isTime() ? "time" : "datetime";
}

/** repr(float): shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  const [mantissa, exp] = Math.abs(x).toExponential().split("e") as [string, string];
  const digits = mantissa.replace(".", "");
  const e = Number(exp);
  if (e < -4 || e >= 16) {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : "";
    return `${sign}${digits[0]}${frac}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  if (e < 0) return `${sign}0.${"0".repeat(-e - 1)}${digits}`;
  const int = digits.slice(0, e + 1).padEnd(e + 1, "0");
  const frac = digits.slice(e + 1);
  return `${sign}${int}.${frac || "0"}`;
}

export interface DumpOptions {
  indent?: number;
  sortKeys?: boolean;
  /** Python's default is true: everything past ASCII becomes \uXXXX. */
  ensureAscii?: boolean;
  separators?: [string, string];
}

/** Strings JSON writes as they are, between quotes. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function encodeString(s: string, ensureAscii: boolean): string {
  if (PLAIN.test(s)) return `"${s}"`;
  const json = JSON.stringify(s);
  if (!ensureAscii) return json;
  // ensure_ascii escapes everything outside space to tilde: JSON.stringify has done the controls, DEL is left.
  return json.replace(/[^\x00-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** json.dumps(value, ...). Pieces go into one list joined at the end: nested joins of a large result (lint_spine's
 *  findings) made garbage that cost more than the writing. */
export function dumps(value: PyValue, options: DumpOptions = {}): string {
  const { indent, sortKeys = false, ensureAscii = true } = options;
  const [itemSep, keySep] = options.separators ?? (indent === undefined ? [", ", ": "] : [",", ": "]);
  const out: string[] = [];
  const pads: string[] = [];
  const pad = (level: number) => (pads[level] ??= "\n" + " ".repeat((indent ?? 0) * level));
  const encode = (v: PyValue, level: number): void => {
    if (v === null) out.push("null");
    else if (v === true) out.push("true");
    else if (v === false) out.push("false");
    else if (typeof v === "string") out.push(encodeString(v, ensureAscii));
    else if (typeof v === "bigint") out.push(v.toString());
    else if (typeof v === "number") out.push(Number.isNaN(v) ? "NaN" : !Number.isFinite(v) ? (v > 0 ? "Infinity" : "-Infinity") : floatRepr(v));
    else if (Array.isArray(v)) {
      if (!v.length) return void out.push("[]");
      out.push("[");
      for (let i = 0; i < v.length; i++) {
        if (i) out.push(itemSep);
        if (indent !== undefined) out.push(pad(level + 1));
        encode(v[i]!, level + 1);
      }
      out.push(indent === undefined ? "]" : `${pad(level)}]`);
    } else if (v instanceof Map) {
      if (!v.size) return void out.push("{}");
      const entries = sortKeys ? [...v.entries()].sort(([a], [b]) => compareCodePoints(a, b)) : v.entries();
      out.push("{");
      let first = true;
      for (const [k, item] of entries) {
        if (!first) out.push(itemSep);
        first = false;
        if (indent !== undefined) out.push(pad(level + 1));
        out.push(encodeString(k, ensureAscii), keySep);
        encode(item, level + 1);
      }
      out.push(indent === undefined ? "}" : `${pad(level)}}`);
    } else {
      throw new PyError("TypeError", `Object of type ${typeName(v)} is not JSON serializable`);
    }
  };
  encode(value, 0);
  return out.join("");
}

/** Python's == on JSON-like values (1 == 1.0 == True; dict order ignored). */
export function pyEquals(a: PyValue | undefined, b: PyValue | undefined): boolean {
  const num = (v: unknown) => (typeof v === "boolean" ? Number(v) : typeof v === "bigint" || typeof v === "number" ? v : undefined);
  const x = num(a);
  const y = num(b);
  if (x !== undefined && y !== undefined) {
    if (typeof x === "bigint" && typeof y === "bigint") return x === y;
    if (typeof x === "number" && !Number.isInteger(x)) return typeof y === "number" && x === y;
    if (typeof y === "number" && !Number.isInteger(y)) return false;
    return BigInt(x as number | bigint) === BigInt(y as number | bigint);
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => pyEquals(item, b[i]));
  if (a instanceof Map && b instanceof Map) return a.size === b.size && [...a].every(([k, v]) => b.has(k) && pyEquals(v, b.get(k)));
  return a === b;
}

/** json.loads: objects become Maps (keys in document order), integers bigints and other numbers floats, as
 *  Python reads them (the number's own text decides, so a big integer keeps every digit). */
export function loads(text: string): PyValue {
  JSON.parse(checkable(text)); // the syntax check, and its error
  return loadsNested(text);
}

/** Python's decoder recurses once per level and stops near its recursion limit (1,000 frames, a few taken), valid
 *  document or not. */
const MAX_JSON_DEPTH = 990;

/** The value of `text`, once JSON.parse has found it valid (Python's constants aside): read token by token, so that
 *  an integer keeps every digit (a bigint) and an object its keys in document order, a repeated key at its first place
 *  with its last value, as Python's dict. (JSON.parse's reviver gives a number's source text only from Node 21, and puts integer-like keys
 *  first: review 129 found every integer read as a float on Node 20.) */
function loadsNested(text: string): PyValue {
  let at = 0;
  const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;
  const blank = () => {
    while (text[at] === " " || text[at] === "\t" || text[at] === "\n" || text[at] === "\r") at++;
  };
  const string = (): string => {
    const start = at++;
    while (text[at] !== '"') at += text[at] === "\\" ? 2 : 1;
    return JSON.parse(text.slice(start, ++at)) as string;
  };
  const value = (): PyValue => {
    blank();
    const c = text[at];
    if (c === "{" || c === "[") {
      at++;
      const items: PyValue[] = [];
      const map: PyDict = new Map();
      const done = () => (c === "{" ? map : items);
      blank();
      if (text[at] === (c === "{" ? "}" : "]")) {
        at++;
        return done();
      }
      for (;;) {
        if (c === "{") {
          blank();
          const key = string();
          blank();
          at++; // the colon
          map.set(key, value());
        } else items.push(value());
        blank();
        if (text[at++] !== ",") return done();
      }
    }
    if (c === '"') return string();
    for (const [word, literal] of WORDS) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return literal;
      }
    }
    NUMBER.lastIndex = at;
    const [token, fraction, exponent] = NUMBER.exec(text)!;
    at = NUMBER.lastIndex;
    if (fraction !== undefined || exponent !== undefined) return Number(token);
    checkIntDigits(token.length - (token.startsWith("-") ? 1 : 0));
    return BigInt(token);
  };
  return value();
}

/** JSON's words, then what json.loads reads beyond JSON (its parse_constant): `-Infinity` before the numbers that start
 *  with "-". */
const WORDS: ReadonlyArray<[string, PyValue]> = [["true", true], ["false", false], ["null", null], ["NaN", NaN], ["Infinity", Infinity], ["-Infinity", -Infinity]];

/** Python's guard against quadratic conversion (int() and json.loads alike): an integer of more digits is its
 *  ValueError, not a value. */
export function checkIntDigits(digits: number): void {
  if (digits > 4300) throw new PyError("ValueError", `Exceeds the limit (4300 digits) for integer string conversion: value has ${digits} digits; use sys.set_int_max_str_digits() to increase the limit`);
}
const CONSTANT = /-?Infinity|NaN/y;

/** `text` for JSON.parse's check, in one pass: each of Python's constants outside a string written as a 0, padded to its
 *  length; nesting deeper than Python's decoder goes is its RecursionError (brackets in strings not counted). */
function checkable(text: string): string {
  let out = "";
  let from = 0;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "[" || c === "{") {
      if (++depth > MAX_JSON_DEPTH) throw new PyError("RecursionError", `maximum recursion depth exceeded while decoding a JSON ${c === "[" ? "array" : "object"} from a unicode string`);
    } else if (c === "]" || c === "}") depth--;
    else if (c === "N" || c === "I" || c === "-") {
      CONSTANT.lastIndex = i;
      const m = CONSTANT.exec(text);
      // Only where a value starts: `1Infinity` stays the error it is.
      let before = i - 1;
      while (before >= 0 && " \t\n\r".includes(text[before]!)) before--;
      if (!m || (before >= 0 && !"[,:".includes(text[before]!))) continue;
      out += `${text.slice(from, i)}0${" ".repeat(m[0].length - 1)}`;
      i += m[0].length - 1;
      from = i + 1;
    }
  }
  return from ? out + text.slice(from) : text;
}
