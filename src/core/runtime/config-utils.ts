// Port of BMAD 6.12 _bmad/scripts/config_utils.py: strict TOML layers and their structural merge.
import { parse, TomlError } from "smol-toml";
import type { RuntimeFs } from "./fs.js";
import { type PyDict, type PyValue, isDict, PyError, typeName } from "./py-json.js";
import { decodeUtf8, readBytes, statNamed, statPath } from "./py-io.js";
import { baseName, joinPath } from "./py-path.js";
import { tomlKeyOrder, tomlPathKey, type TomlKeyOrder, type TomlPath } from "./toml-key-order.js";
import { parseBoundedToml, TooHeavy } from "../yaml.js";

/** A present configuration layer cannot be used safely (Python: ConfigError(ValueError)). */
export class ConfigError extends Error {}

const KEYED_MERGE_FIELDS = ["code", "id"] as const;
const LONE_CR = /\r(?!\n)/;

/** TOML as Python's tomllib returns it: tables as Maps (keys in `order`, where given), integers as bigint, floats
 *  as number. */
export function toPy(value: unknown, order?: TomlKeyOrder, path: TomlPath = []): PyValue {
  if (Array.isArray(value)) return value.map((item, index) => toPy(item, order, [...path, index]));
  if (value instanceof Date || value === null || typeof value !== "object") return value as PyValue;
  const table = value as Record<string, unknown>;
  const named = [...(order?.get(tomlPathKey(path)) ?? [])].filter((k) => Object.hasOwn(table, k));
  const keys = new Set([...named, ...Object.keys(table)]);
  return new Map([...keys].map((k) => [k, toPy(table[k], order, [...path, k])]));
}

/** tomllib.loads(text); a syntax error is a PyError("TOMLDecodeError"). */
export function parseToml(text: string): PyDict {
  // tomllib reads no byte-order mark; smol-toml would skip it.
  if (text.startsWith("\ufeff")) throw new PyError("TOMLDecodeError", "Invalid statement (at line 1, column 1)");
  try {
    // tomllib reads CRLF as LF (inside multi-line strings too); smol-toml keeps the CR. A lone CR is refused by both,
    // where it stands: read as it is, `\r\r\n` would not become a CRLF that both accept.
    const lf = LONE_CR.test(text) ? text : text.replaceAll("\r\n", "\n");
    // tomlKeyOrder also refuses what TOML 1.1 (smol-toml) allows and tomllib (TOML 1.0) does not.
    return toPy(parseBoundedToml(text, () => parse(lf, { integersAsBigInt: true })), tomlKeyOrder(lf)) as PyDict;
  } catch (error) {
    if (error instanceof TooHeavy) throw new PyError("TOMLDecodeError", `The file ${error.message} (at line 1, column 1)`);
    if (!(error instanceof TomlError)) throw error;
    const reason = error.message.split("\n")[0]!.replace(/^Invalid TOML document: /, "");
    throw new PyError("TOMLDecodeError", `${reason.charAt(0).toUpperCase()}${reason.slice(1)} (at line ${error.line}, column ${error.column})`);
  }
}

/** load_toml(path, required=...): absent optional layers are {}. */
export async function loadToml(fs: RuntimeFs, path: string, required = false): Promise<PyDict> {
  // A required layer is one a command line names (a skill's customize.toml): refused, not "not found", where it is outside.
  const kind = await (required ? statNamed : statPath)(fs, path);
  if (kind === "missing") {
    if (required) throw new ConfigError(`required TOML file not found: ${path}`);
    return new Map();
  }
  if (kind !== "file") throw new ConfigError(`TOML layer is not a file: ${path}`);
  let bytes: Uint8Array;
  try {
    bytes = await readBytes(fs, path);
  } catch (error) {
    throw new ConfigError(`failed to read ${path}: ${(error as Error).message}`);
  }
  try {
    // A decoding error is no TOMLDecodeError: it escapes load_toml, as in Python.
    return parseToml(decodeUtf8(bytes));
  } catch (error) {
    if (error instanceof PyError && error.pyType === "TOMLDecodeError") throw new ConfigError(`failed to parse ${path}: ${error.message}`);
    throw error;
  }
}

function detectKeyedMergeField(items: PyValue[]): string | undefined {
  if (!items.length || !items.every(isDict)) return undefined;
  const tables = items as PyDict[];
  for (const candidate of KEYED_MERGE_FIELDS) {
    if (!tables.every((item) => item.has(candidate))) continue;
    for (const item of tables) {
      const value = item.get(candidate)!;
      if (typeof value !== "string") throw new ConfigError(`keyed array identifier \`${candidate}\` must be a string, got ${typeName(value)}`);
      if (!value) throw new ConfigError(`keyed array identifier \`${candidate}\` must not be empty`);
    }
    return candidate;
  }
  return undefined;
}

function mergeArrays(base: PyValue[], override: PyValue[]): PyValue[] {
  const field = detectKeyedMergeField([...base, ...override]);
  if (field === undefined) return [...base, ...override];
  const result: PyValue[] = [];
  const indexByKey = new Map<string, number>();
  for (const item of base as PyDict[]) {
    indexByKey.set(item.get(field) as string, result.length);
    result.push(new Map(item));
  }
  for (const item of override as PyDict[]) {
    const key = item.get(field) as string;
    const index = indexByKey.get(key);
    if (index !== undefined) result[index] = new Map(item);
    else {
      indexByKey.set(key, result.length);
      result.push(new Map(item));
    }
  }
  return result;
}

/** Tables merge recursively, keyed table arrays by identity, other arrays append; else override wins. */
export function structuralMerge(base: PyValue, override: PyValue): PyValue {
  if (isDict(base) && isDict(override)) {
    const result: PyDict = new Map(base);
    for (const [key, value] of override) result.set(key, result.has(key) ? structuralMerge(result.get(key)!, value) : value);
    return result;
  }
  if (Array.isArray(base) && Array.isArray(override)) return mergeArrays(base, override);
  return override;
}

export function mergeLayers(layers: PyDict[]): PyDict {
  let merged: PyDict = new Map();
  for (const layer of layers) merged = structuralMerge(merged, layer) as PyDict;
  return merged;
}

/** The four central layers, the first required. */
export const CENTRAL_LAYERS = ["_bmad/config.toml", "_bmad/config.user.toml", "_bmad/custom/config.toml", "_bmad/custom/config.user.toml"];

export async function loadCentralConfig(fs: RuntimeFs, projectRoot: string): Promise<PyDict> {
  const layers: PyDict[] = [];
  for (const rel of CENTRAL_LAYERS) layers.push(await loadToml(fs, joinPath(projectRoot, rel), rel === CENTRAL_LAYERS[0]));
  return mergeLayers(layers);
}

/** A skill's customize.toml (required), then _bmad/custom/{skill}.toml and {skill}.user.toml. */
export async function loadCustomization(fs: RuntimeFs, projectRoot: string | undefined, skillDir: string): Promise<PyDict> {
  return mergeLayers((await customizationLayers(fs, projectRoot, skillDir)).map(([, layer]) => layer));
}

/** The layers loadCustomization merges, in its order, each with its path (where a value shown cut is read whole). */
export async function customizationLayers(fs: RuntimeFs, projectRoot: string | undefined, skillDir: string): Promise<Array<[string, PyDict]>> {
  const name = baseName(skillDir);
  const custom = projectRoot === undefined ? undefined : joinPath(projectRoot, "_bmad", "custom");
  const paths = custom === undefined ? [] : [joinPath(custom, `${name}.toml`), joinPath(custom, `${name}.user.toml`)];
  const layers: Array<[string, PyDict]> = [[joinPath(skillDir, "customize.toml"), await loadToml(fs, joinPath(skillDir, "customize.toml"), true)]];
  for (const path of paths) layers.push([path, await loadToml(fs, path)]);
  return layers;
}

/** extract_key: a dotted path through tables, or undefined (Python's _MISSING). */
export function extractKey(data: PyValue, dottedKey: string): PyValue | undefined {
  let current: PyValue = data;
  for (const part of dottedKey.split(".")) {
    if (!isDict(current) || !current.has(part)) return undefined;
    current = current.get(part)!;
  }
  return current;
}
