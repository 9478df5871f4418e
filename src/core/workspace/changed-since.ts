// What others changed in a file since the reader's own last version of it: a removal credits no line to anyone, so
// "written by others" alone hid a collaborator's deleted line (review 368). Counted from the later version the reader
// was shown it with, where there is one: told once, not every turn (review 385).
import { matchLines, splitLines, type ByOthers } from "./line-authors.js";
import type { Displaced } from "./store.js";

/** Versions others made after `yours`, who made them, and where both texts were cheap to compare, the lines added and
 *  removed between `yours` and the head. */
export interface ChangedSince {
  /** The reader's own last version, or (`read`) the later one they were last shown with others' changes, or the one a
   *  displaced note told them of (review 415). */
  yours: number;
  read?: true;
  /** Their versions: each, up to SHOWN_VERSIONS; past that the first and the last of `count`. */
  versions: number[];
  count: number;
  /** Who made them, in the order of their first version since, as the versions are (at most SHOWN_AUTHORS), and how
   *  many others did past those (review 477: "v49, v50 by carol, bob" read v49 as carol's). */
  by: string[];
  moreBy?: number;
  /** Who made each of `versions`, where they are listed one by one and more than one person made them. */
  madeBy?: string[];
  added?: number;
  removed?: number;
  /** Every line others wrote in the head came with these versions: the line authors' note tells the same change. */
  allOthers?: true;
}

/** Past this many bytes either side, no lines are counted: a status line is not worth a large diff. */
export const COUNTED_BYTES = 256 * 1024;

/** The bytes one answer compares for line counts, both sides of all its files together: a read of one file counts up
 *  to COUNTED_BYTES a side, a status or a history page no more (review 391: fifty rewritten 255 KB files took 1.5 s a
 *  call, and held up every other call to the project meanwhile). */
export const CALL_COUNTED_BYTES = 2 * COUNTED_BYTES;

/** What one answer has left of CALL_COUNTED_BYTES; a file past it is told without counted lines. */
export class CountBudget {
  private left = CALL_COUNTED_BYTES;

  /** Whether two texts of these sizes may be compared, taking their bytes where they may. */
  take(before: number, after: number): boolean {
    if (before > COUNTED_BYTES || after > COUNTED_BYTES || before + after > this.left) return false;
    this.left -= before + after;
    return true;
  }
}

/** The last version `c` names: what others changed up to it counts as seen once the caller is shown it (SeenVersions). */
export const toldUpTo = (c: ChangedSince): number => c.versions.at(-1)!;

/** Lines of `after` not matched in `before` (added) and of `before` not matched in `after` (removed). */
export function linesChanged(before: string, after: string): { added: number; removed: number } {
  const a = splitLines(before);
  const b = splitLines(after);
  const kept = matchLines(a, b).reduce((n, i) => (i >= 0 ? n + 1 : n), 0);
  return { added: b.length - kept, removed: a.length - kept };
}

/** Authors named; past this many, how many more (review 415: seven writers read as five). */
export const SHOWN_AUTHORS = 5;

/** Versions listed one by one; past this many, the first, the last and how many. */
export const SHOWN_VERSIONS = 3;

/** Version numbers as a short list: `v3, v4`, or `v3 to v40 (12 versions)` past three. */
const shownVersions = (c: ChangedSince): string =>
  c.count <= SHOWN_VERSIONS ? c.versions.map((v) => `v${v}`).join(", ") : `v${c.versions[0]} to v${c.versions.at(-1)} (${c.count} versions)`;

/** `+1 −2 lines`. */
export const countedLines = (added: number, removed: number): string => `+${added} −${removed} lines`;

/** The lines counted: `+1 −2 lines`, or that the text is the same again (review 372: "+0 −0" beside a delete and a
 *  recreate read as nothing done). */
const linesNote = (c: ChangedSince): string => (c.added === 0 && c.removed === 0 ? `the same text as ${c.read ? `the v${c.yours} you saw` : `your v${c.yours}`}` : countedLines(c.added ?? 0, c.removed ?? 0));

/** What the changes are counted from: `your v2` (the reader's own), or `you saw v2` (shown it since). */
const sinceWhat = (c: ChangedSince): string => (c.read ? `you saw v${c.yours}` : `your v${c.yours}`);

/** `bob, carol` (`bob, carol and 2 others` past SHOWN_AUTHORS), each as `name` says it. */
const shownAuthors = (c: ChangedSince, name: (author: string) => string): string =>
  `${c.by.map(name).join(", ")}${c.moreBy ? ` and ${c.moreBy} other${c.moreBy === 1 ? "" : "s"}` : ""}`;

/** `v3 by bob, v4 by carol` where the versions listed are several people's, else `v3, v4 by bob` or `v3 to v40 (12
 *  versions) by bob, carol`: never a list of names to pair with a list of versions. */
const shownChanges = (c: ChangedSince, name: (author: string) => string): string =>
  c.madeBy ? c.versions.map((v, i) => `v${v} by ${name(c.madeBy![i]!)}`).join(", ") : `${shownVersions(c)} by ${shownAuthors(c, name)}`;

/** `changed by others since your v2: v3, v4 by bob (+1 −1 lines)` (`since you saw v2`); `name`: how an author is said
 *  (quoted among a skill's steps). */
export const changedSinceNote = (c: ChangedSince, name = (author: string) => author): string =>
  `changed by others since ${sinceWhat(c)}: ${shownChanges(c, name)}${c.added === undefined ? "" : ` (${linesNote(c)})`}`;

/** `; changed by others since your v2: …` after a file's header (bmad-files read, bmad-doc), or nothing. */
export const changedSinceClause = (c: ChangedSince | undefined): string => (c ? `; ${changedSinceNote(c)}` : "");

/** `+1 −1 lines since your v2` (`changed by others since your v2` where the lines were not counted): a list's line. */
export const changedSinceShort = (c: ChangedSince): string =>
  c.added === undefined ? `changed by others since ${sinceWhat(c)}` : c.added === 0 && c.removed === 0 ? `changed by others since ${sinceWhat(c)}, the same text again` : `${countedLines(c.added, c.removed ?? 0)} since ${sinceWhat(c)}`;

/** `others` to name beside `since`: none where every line of theirs came with the changes it names (review 385: "written
 *  with others too" and "changed by others since" told one change twice in one line). */
export const othersBeside = (others: ByOthers | undefined, since: ChangedSince | undefined): ByOthers | undefined => (since?.allOthers ? undefined : others);

/** The reader's own version another's change replaced without naming it (FileContent.displaced), said after a read's
 *  or bmad-doc's header line (the text that follows it is the file's, which pull reads back as bytes) and in the
 *  document view: told once, so that their change, undone unsaid, can be put back (review 339). */
export const displacedNote = (path: string, d: Displaced): string =>
  `Your version ${d.version} of ${path} was replaced at v${d.at} by ${d.by}, in a change that named no version it built on: read version ${d.version} to see yours and ${d.readOnly ? "ask someone who can write here to put it back" : "put it back"} if it should stay.`;
