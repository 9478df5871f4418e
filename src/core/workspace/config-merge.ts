// A new installer answer applied to a config file someone edited by hand since the installer wrote it: only the lines
// the answer changes are changed, the rest of the file stays as they left it (review 295-2: a member's answer threw
// the owner's comments, keys and values away).
import { parseConfig } from "../catalog/config.js";
import { matchLines } from "./line-authors.js";

/** Not merged: the line that cannot be placed, and `times` head has it where it is not there once (0: taken out or
 *  changed; 2 or more: which to change cannot be told); `repeated`, its key is read again after it (the value a parser
 *  takes); `table`, it would sit outside its TOML table (a hand edit moved it). Or, where the merged file parsed reads an answer
 *  otherwise: its key (not what it reads: a value is the file's, maybe hidden from the caller), or why it does not parse. */
export type Merged =
  | { ok: true; text: string }
  | { ok: false; line: string; times?: number; repeated?: true; table?: string }
  | { ok: false; key: string }
  | { ok: false; unparsed: string };

/** `head` with the lines that differ between `before` (what the old answers made) and `after` (what the new ones make)
 *  changed as they do. Each run of changed lines of `before` must be in `head` whole and in order, found by a line of
 *  it `head` has exactly once (a blank line, had several times, is placed by its neighbours), and is replaced there
 *  (or, where a hand edit split it, each of its lines by the new line of its key, where `head` has it once);
 *  lines `after` only adds go after the line they follow, which `head` must have once. A run `head` already has as
 *  `after` does is left. Else the line that cannot be placed, and nothing is merged. Lines at `\n`, so the rest of
 *  `head` stays byte for byte; O(n log n) in the lines (matchLines), each run looked at once. */
export function mergeConfigEdits(path: string, head: string, before: string, after: string): Merged {
  // Lines at `\n`; a file saved with CRLF is merged as LF and written back with its own line ends (review 314).
  const crlf = head.includes("\r\n");
  const theirs = (crlf ? head.replace(/\r\n/g, "\n") : head).split("\n");
  const made = before.split("\n");
  const next = after.split("\n");
  // Where each of head's lines is, or -1 where it is there twice or more.
  const at = new Map<string, number>();
  theirs.forEach((line, i) => at.set(line, at.has(line) ? -1 : i));
  const once = (line: string) => at.get(line) ?? -1;
  const unplaced = (line: string): Merged => ({ ok: false, line, times: theirs.filter((l) => l === line).length });
  // What goes in place of a line of head ([] takes it out), and what goes after one (-1: before the first).
  const instead = new Map<number, string[]>();
  const added = new Map<number, string[]>();
  /** Where `run` starts in head, or the line of it that is not where it should be. */
  const find = (run: string[]): { start: number } | { line: string } => {
    const k = run.findIndex((line) => once(line) >= 0);
    if (k < 0) return { line: run.find((line) => line.trim()) ?? run[0]! };
    const start = once(run[k]!) - k;
    const off = run.findIndex((line, t) => theirs[start + t] !== line || instead.has(start + t));
    return off < 0 ? { start } : { line: run[off]! };
  };
  /** A run of answers' lines split by a hand edit (a comment put between two of them, review 314-4): each line
   *  replaced by the one of the same key where head has it once, when every line of the run is such a pair. */
  const paired = (gone: string[], come: string[]): boolean => {
    const where = gone.map((line, t) => {
      const key = KEY.exec(line)?.[1];
      const i = once(line);
      return key !== undefined && key === KEY.exec(come[t] ?? "")?.[1] && i >= 0 && !instead.has(i) ? i : -1;
    });
    if (gone.length !== come.length || where.includes(-1)) return false;
    where.forEach((i, t) => instead.set(i, [come[t]!]));
    return true;
  };
  const kept = matchLines(made, next);
  let lastMade = -1;
  for (let j = 0; j <= next.length; j++) {
    let end = j;
    while (end < next.length && kept[end]! < 0) end++;
    const nextMade = end < next.length ? kept[end]! : made.length;
    const gone = made.slice(lastMade + 1, nextMade);
    const come = next.slice(j, end);
    if (gone.length) {
      const found = find(gone);
      if ("start" in found) gone.forEach((_, t) => instead.set(found.start + t, t ? [] : come));
      else if (!paired(gone, come) && (!come.length || !("start" in find(come)))) return unplaced(found.line);
    } else if (come.length) {
      const following = lastMade < 0 ? -1 : once(made[lastMade]!);
      if (lastMade >= 0 && following < 0) return unplaced(made[lastMade]!);
      added.set(following, [...(added.get(following) ?? []), ...come]);
    }
    lastMade = nextMade;
    j = end;
  }
  const out = [...(added.get(-1) ?? [])];
  theirs.forEach((line, i) => out.push(...(instead.get(i) ?? [line]), ...(added.get(i) ?? [])));
  // Each line the answers change must read in the file as in what they make: under the same TOML table, and the last of
  // its key there (the value a parser takes): else the answer would not take effect (review 306: the owner's French, a
  // member's Klingon below; review 314: ` user_name :` spelled otherwise, a line moved into another table).
  const placed = readings(out);
  const meant = readings(next);
  for (const [j, line] of next.entries()) {
    const key = meant[j]!.key;
    if (kept[j]! >= 0 || key === undefined) continue;
    const table = meant[j]!.table;
    const here = out.findIndex((l, i) => l === line && placed[i]!.table === table);
    if (here < 0) return { ok: false, line, ...(table ? { table } : {}) };
    if (placed.some((r, i) => i > here && r.key === key && r.table === table)) return { ok: false, line, repeated: true };
  }
  const text = out.join(crlf ? "\r\n" : "\n");
  return answersNotRead(path, text, before, after) ?? { ok: true, text };
}

/** Where `text` (the merged file), parsed as BMAD's Python parses it (parseConfig: YAML as PyYAML's safe_load, the
 *  last of a repeated key winning; TOML as tomllib), does not read an answer `after` sets as `after` reads it: the
 *  first such key (a TOML table's key with its table's name: `core.user_name`), or why the file does
 *  not parse. The backstop of the line checks above, which a key spelled another way gets past (review 316-7: a
 *  member's `"communication_languag\x65": Klingon`, a YAML escape, is the same key, and it won). */
function answersNotRead(path: string, text: string, before: string, after: string): Merged | undefined {
  const meant = parseConfig(path, after);
  // What the installer's own rendering makes always parses; were it not to, there would be nothing to compare with.
  if (!("data" in meant)) return undefined;
  const read = parseConfig(path, text);
  if (!("data" in read)) return { ok: false, unparsed: read.error };
  const made = parseConfig(path, before);
  const was = "data" in made ? leaves(made.data) : new Map<string, string>();
  const now = leaves(read.data);
  for (const [key, value] of leaves(meant.data)) {
    if (was.get(key) !== value && now.get(key) !== value) return { ok: false, key: nameOf(key) };
  }
  return undefined;
}

/** Each value under a parsed config's tables, as JSON, by the path of keys to it (as JSON: a TOML key may hold a dot). */
function leaves(data: unknown): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (value: unknown, keys: string[]) => {
    if (value && typeof value === "object" && !Array.isArray(value) && !(value instanceof Date)) {
      for (const [key, child] of Object.entries(value)) walk(child, [...keys, key]);
    } else if (keys.length) found.set(JSON.stringify(keys), JSON.stringify(value));
  };
  walk(data, []);
  return found;
}
const nameOf = (key: string) => (JSON.parse(key) as string[]).join(".");

/** Each line's key (unquoted, without the spaces around it: `"user_name" :` is `user_name`) and the TOML table it is
 *  under (`[core]`: "core"; none: ""). */
function readings(lines: string[]): Array<{ key?: string; table: string }> {
  let table = "";
  return lines.map((line) => {
    const header = TABLE.exec(line);
    if (header) table = header[1]!.replace(/\s+/g, "");
    const key = header ? undefined : KEY.exec(line)?.[1];
    return { table, ...(key ? { key } : {}) };
  });
}

/** A TOML table header, `[core]`, `[modules.bmm]`, `[[agents]]`. */
const TABLE = /^\s*\[\[?([^[\]]+)\]\]?\s*(#.*)?$/;
/** A config line's key, quoted or not, before its `:` or `=`. */
const KEY = /^\s*["']?([A-Za-z_][\w.-]*)["']?\s*[:=]/;
