// What others changed in a file since the reader's own last version of it: a removal credits no line to anyone, so
// "written by others" alone hid a collaborator's deleted line (review 368).
import { matchLines, splitLines } from "./line-authors.js";

/** Versions others made after `yours` (the reader's own last), who made them, and where both texts were cheap to
 *  compare, the lines added and removed between `yours` and the head. */
export interface ChangedSince {
  yours: number;
  versions: number[];
  by: string[];
  added?: number;
  removed?: number;
}

/** Past this many bytes either side, no lines are counted: a status line is not worth a large diff. */
export const COUNTED_BYTES = 256 * 1024;

/** Lines of `after` not matched in `before` (added) and of `before` not matched in `after` (removed). */
export function linesChanged(before: string, after: string): { added: number; removed: number } {
  const a = splitLines(before);
  const b = splitLines(after);
  const kept = matchLines(a, b).reduce((n, i) => (i >= 0 ? n + 1 : n), 0);
  return { added: b.length - kept, removed: a.length - kept };
}

/** Version numbers as a short list: `v3, v4`, or `v3 to v40 (12 versions)` past three. */
const shownVersions = (versions: number[]): string =>
  versions.length <= 3 ? versions.map((v) => `v${v}`).join(", ") : `v${versions[0]} to v${versions.at(-1)} (${versions.length} versions)`;

/** `changed by others since your v2: v3, v4 by bob (+1 −1 lines)`. */
export const changedSinceNote = (c: ChangedSince): string =>
  `changed by others since your v${c.yours}: ${shownVersions(c.versions)} by ${c.by.join(", ")}${c.added === undefined ? "" : ` (+${c.added} −${c.removed} lines)`}`;

/** `+1 −1 lines since your v2` (`changed by others since your v2` where the lines were not counted): a list's line. */
export const changedSinceShort = (c: ChangedSince): string =>
  c.added === undefined ? `changed by others since your v${c.yours}` : `+${c.added} −${c.removed} lines since your v${c.yours}`;
