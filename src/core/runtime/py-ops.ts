// Python's built-ins on JSON-shaped values, as the ported scripts meet them: truth, dict.get, iteration, str.lower,
// len, str and repr, each failing with the exception Python would raise.
import { floatRepr, isDict, PyError, type PyValue, typeName } from "./py-json.js";
import { repr } from "./py-str.js";

/** Python's truth value of a JSON value. */
export function truthy(v: PyValue | undefined): boolean {
  if (v === undefined || v === null || v === false || v === "" || v === 0 || v === 0n) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  return true;
}

/** d.get(key, default), where d must be a dict. */
export function get(d: PyValue, key: string, fallback?: PyValue): PyValue | undefined {
  if (!isDict(d)) throw new PyError("AttributeError", `'${typeName(d)}' object has no attribute 'get'`);
  return d.has(key) ? d.get(key) : fallback;
}

/** `for item in v`: a list's items, a dict's keys, a string's characters. */
export function iterate(v: PyValue): PyValue[] {
  if (Array.isArray(v)) return v;
  if (v instanceof Map) return [...v.keys()];
  if (typeof v === "string") return [...v];
  throw new PyError("TypeError", `'${typeName(v)}' object is not iterable`);
}

export function lower(v: PyValue): string {
  if (typeof v !== "string") throw new PyError("AttributeError", `'${typeName(v)}' object has no attribute 'lower'`);
  return v.toLowerCase();
}

export function len(v: PyValue): bigint {
  if (Array.isArray(v) || typeof v === "string") return BigInt(Array.isArray(v) ? v.length : [...v].length);
  if (v instanceof Map) return BigInt(v.size);
  throw new PyError("TypeError", `object of type '${typeName(v)}' has no len()`);
}

/** repr(v) of a JSON value: ['a', 1, 2.0, None, {'k': True}]. */
export function pyRepr(v: PyValue): string {
  if (typeof v === "string") return repr(v);
  if (v === null) return "None";
  if (v === true || v === false) return v ? "True" : "False";
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return floatRepr(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  if (v instanceof Map) return `{${[...v].map(([k, item]) => `${repr(k)}: ${pyRepr(item)}`).join(", ")}}`;
  return String(v);
}

/** str(v) of a JSON value: a string as it is, anything else as its repr. */
export function pyStr(v: PyValue): string {
  return typeof v === "string" ? v : pyRepr(v);
}
