// A new installer answer applied to a config file someone edited by hand since the installer wrote it: only the lines
// the answer changes are changed, the rest of the file stays as they left it (review 295-2: a member's answer threw
// the owner's comments, keys and values away).
import { matchLines } from "./line-authors.js";

export type Merged = { ok: true; text: string } | { ok: false; line: string; repeated?: true };

/** `head` with the lines that differ between `before` (what the old answers made) and `after` (what the new ones make)
 *  changed as they do. Each run of changed lines of `before` must be in `head` whole and in order, found by a line of
 *  it `head` has exactly once (a blank line, had several times, is placed by its neighbours), and is replaced there;
 *  lines `after` only adds go after the line they follow, which `head` must have once. A run `head` already has as
 *  `after` does is left. Else the line that cannot be placed, and nothing is merged. Lines at `\n`, so the rest of
 *  `head` stays byte for byte; O(n log n) in the lines (matchLines), each run looked at once. */
export function mergeConfigEdits(head: string, before: string, after: string): Merged {
  const theirs = head.split("\n");
  const made = before.split("\n");
  const next = after.split("\n");
  // Where each of head's lines is, or -1 where it is there twice or more.
  const at = new Map<string, number>();
  theirs.forEach((line, i) => at.set(line, at.has(line) ? -1 : i));
  const once = (line: string) => at.get(line) ?? -1;
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
      else if (!come.length || !("start" in find(come))) return { ok: false, line: found.line };
    } else if (come.length) {
      const following = lastMade < 0 ? -1 : once(made[lastMade]!);
      if (lastMade >= 0 && following < 0) return { ok: false, line: made[lastMade]! };
      added.set(following, [...(added.get(following) ?? []), ...come]);
    }
    lastMade = nextMade;
    j = end;
  }
  const out = [...(added.get(-1) ?? [])];
  theirs.forEach((line, i) => out.push(...(instead.get(i) ?? [line]), ...(added.get(i) ?? [])));
  // A key the answer sets, there more often than the answers make it (a hand edit repeated it further down): a parser
  // reads the last one, so the answer would not take effect (review 306: the owner's French, a member's Klingon below).
  const keyed = (lines: string[], line: string) => {
    const key = KEY.exec(line)?.[0];
    return key === undefined ? 0 : lines.filter((l) => l.startsWith(key) && KEY.exec(l)?.[0] === key).length;
  };
  const repeated = next.filter((line, j) => kept[j]! < 0).find((line) => keyed(out, line) > keyed(next, line));
  if (repeated !== undefined) return { ok: false, line: repeated, repeated: true };
  return { ok: true, text: out.join("\n") };
}

/** A config line's key as written, with its indentation and what separates it from its value (`  user_name:`,
 *  `user_name =`). */
const KEY = /^\s*["']?[A-Za-z_][\w.-]*["']?\s*[:=]/;
