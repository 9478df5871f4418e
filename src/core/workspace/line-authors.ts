// Who wrote each line of a shared file. A change carries the authors of the lines it kept and gives the lines it
// added to whoever made it, so a collaborator's text stays theirs after the owner's next append or edit (reviews
// 40, 43, 45, 46: "last changed by" named only the last writer, and an owner's append made a planted line the
// owner's). A line that replaced someone's line is also still theirs: an edit never launders what it rewrote.
// Lines are matched by patience anchors (lines found once on each side), so the cost is near linear in any input.

/** A person as versions name them: `id` where the store knows it (labels, emails, can be shared by two sign-ins). */
export interface Person {
  id?: string;
  label: string;
}

/** Each run is a count of consecutive lines and who wrote them: indices into `people`, several where one person's
 *  line replaced another's. */
export interface LineAuthors {
  people: Person[];
  runs: Array<[number, number[]]>;
}

/** Lines written by someone other than the reader: each such person and the lines ("all", "3-5, 9", or "some"
 *  where the numbers are not told). */
export type ByOthers = Array<{ by: string; lines: string }>;

export const samePerson = (a: Person, b: Person): boolean => (a.id !== undefined && b.id !== undefined ? a.id === b.id : a.label === b.label);

/** The file's lines, without their endings; a last line ending in a newline makes no empty line after it. */
export function splitLines(text: string): string[] {
  if (!text) return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Every line by one person. */
export const allBy = (person: Person, count: number): LineAuthors => ({ people: [person], runs: count ? [[count, [0]]] : [] });

/** The one person who wrote every line (undefined: several did). */
export function soleAuthor(authors: LineAuthors): Person | undefined {
  const used = new Set(authors.runs.flatMap(([, who]) => who));
  return used.size === 1 ? authors.people[[...used][0]!] : used.size === 0 ? authors.people[0] : undefined;
}

/** The authors of `after`, `by`'s change of a file that was `before` with `authors`. */
export function carryAuthors(before: string, authors: LineAuthors, after: string, by: Person): LineAuthors {
  const old = splitLines(before);
  const now = splitLines(after);
  const people: Person[] = [];
  const sets = new Map<string, number[]>();
  const index = (p: Person) => {
    const at = people.findIndex((q) => samePerson(p, q));
    return at >= 0 ? at : people.push(p) - 1;
  };
  const set = (who: Iterable<number>) => {
    const sorted = [...new Set(who)].sort((a, b) => a - b);
    const key = sorted.join(",");
    if (!sets.has(key)) sets.set(key, sorted);
    return sets.get(key)!;
  };
  // The old lines' authors, as indices into the new people.
  const oldWho: number[][] = [];
  for (const [count, who] of authors.runs) {
    const mapped = set(who.map((i) => index(authors.people[i]!)));
    for (let k = 0; k < count && oldWho.length < old.length; k++) oldWho.push(mapped);
  }
  const me = index(by);
  // Lines the runs do not reach (not expected: a file's runs cover it) stay with its first author, never the changer.
  while (oldWho.length < old.length) oldWho.push(set([authors.people.length ? index(authors.people[0]!) : me]));
  const kept = matchLines(old, now);
  const runs: LineAuthors["runs"] = [];
  const push = (who: number[]) => {
    const last = runs[runs.length - 1];
    if (last && last[1] === who) last[0]++;
    else runs.push([1, who]);
  };
  let j = 0;
  let lastOld = -1;
  while (j < now.length) {
    if (kept[j]! >= 0) {
      lastOld = kept[j]!;
      push(oldWho[lastOld]!);
      j++;
      continue;
    }
    // New lines up to the next kept one replace the old lines between the kept ones around them. One that keeps
    // much of a replaced line (an edit, not a rewrite) is still that line's authors' too.
    let end = j;
    while (end < now.length && kept[end]! < 0) end++;
    const nextOld = end < now.length ? kept[end]! : old.length;
    const replaced = old.slice(lastOld + 1, nextOld).map((text, k) => ({ words: words(text), who: oldWho[lastOld + 1 + k]! })).filter((r) => r.words.size);
    // Past this many pairs to compare, every new line counts as an edit of all it replaced (bounded work, and never
    // less than the truth).
    if (replaced.length * (end - j) > MAX_PAIRS) {
      const who = set([me, ...replaced.flatMap((r) => r.who)]);
      for (; j < end; j++) push(who);
      continue;
    }
    for (; j < end; j++) {
      const mine = words(now[j]!);
      push(set([me, ...replaced.filter((r) => keepsHalf(mine, r.words)).flatMap((r) => r.who)]));
    }
  }
  return { people, runs };
}

const MAX_PAIRS = 4096;

/** A line's words (runs of letters and digits), lower-cased. */
const words = (line: string): Set<string> => new Set(line.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/** Whether `line` keeps at least half the words of `was`. */
function keepsHalf(line: Set<string>, was: Set<string>): boolean {
  let shared = 0;
  for (const w of was) if (line.has(w)) shared++;
  return shared * 2 >= was.size;
}

/** For each line of `b`, the line of `a` it is kept from (-1: new). Common ends first; then, between them, lines
 *  found once on each side, in an order both sides share (a longest increasing run), each grown to its equal
 *  neighbours. O(n log n); an edit both ends of a file (a memlog's `updated:` line and its new entry) still keeps
 *  everything between. */
export function matchLines(a: string[], b: string[]): Int32Array {
  const kept = new Int32Array(b.length).fill(-1);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) kept[start] = start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) kept[--endB] = --endA;
  if (start === endA || start === endB) return kept;
  const seen = new Map<string, { inA: number; inB: number; at: number }>();
  for (let i = start; i < endA; i++) {
    const s = seen.get(a[i]!);
    if (s) s.inA++;
    else seen.set(a[i]!, { inA: 1, inB: 0, at: i });
  }
  const pairs: Array<[number, number]> = [];
  for (let j = start; j < endB; j++) {
    const s = seen.get(b[j]!);
    if (s && ++s.inB === 1) pairs.push([s.at, j]);
  }
  const anchors = increasing(pairs.filter(([i]) => seen.get(a[i]!)!.inA === 1 && seen.get(a[i]!)!.inB === 1));
  const taken = new Uint8Array(a.length);
  const keep = (i: number, j: number) => {
    kept[j] = i;
    taken[i] = 1;
  };
  for (const [i, j] of anchors) keep(i, j);
  // Grow each anchor to the equal lines around it that no other anchor took, the common ends included.
  const around: Array<[number, number]> = [[start - 1, start - 1], ...anchors, [endA, endB]];
  for (let k = 1; k < around.length; k++) {
    const [prevA, prevB] = around[k - 1]!;
    const [i, j] = around[k]!;
    const free = (x: number, y: number) => x > prevA && x < i && y > prevB && y < j && !taken[x] && kept[y]! < 0 && a[x] === b[y];
    for (let d = 1; free(prevA + d, prevB + d); d++) keep(prevA + d, prevB + d);
    for (let d = 1; free(i - d, j - d); d++) keep(i - d, j - d);
  }
  return kept;
}

/** The longest run of `pairs` (in order of their second) whose firsts increase: patience sorting. */
function increasing(pairs: Array<[number, number]>): Array<[number, number]> {
  const tails: number[] = [];
  const back = new Int32Array(pairs.length).fill(-1);
  for (let k = 0; k < pairs.length; k++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tails[mid]!]![0] < pairs[k]![0]) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) back[k] = tails[lo - 1]!;
    tails[lo] = k;
  }
  const out: Array<[number, number]> = [];
  for (let k = tails.length ? tails[tails.length - 1]! : -1; k >= 0; k = back[k]!) out.push(pairs[k]!);
  return out.reverse();
}

/** The lines each person other than `reader` wrote, or took part in. */
export function byOthers(authors: LineAuthors, reader: Person): ByOthers {
  const ranges = new Map<number, Array<[number, number]>>();
  let line = 1;
  let total = 0;
  for (const [count, who] of authors.runs) {
    for (const i of who) {
      if (samePerson(authors.people[i]!, reader)) continue;
      const list = ranges.get(i) ?? ranges.set(i, []).get(i)!;
      const last = list[list.length - 1];
      if (last && last[1] === line - 1) last[1] = line + count - 1;
      else list.push([line, line + count - 1]);
    }
    line += count;
    total += count;
  }
  return [...ranges].map(([i, list]) => ({
    by: authors.people[i]!.label,
    lines: list.length === 1 && list[0]![0] === 1 && list[0]![1] === total ? "all" : list.map(([from, to]) => (from === to ? `${from}` : `${from}-${to}`)).join(", "),
  }));
}

/** `others` as a short note: `writer@example.com (lines 3-5), bob (all)`. */
export const othersNote = (others: ByOthers): string => others.map((o) => `${o.by} (${o.lines === "all" || o.lines === "some" ? o.lines : `lines ${o.lines}`})`).join(", ");

/** The clause a file's answer header ends with where others wrote some of it; none where the header's "by" (the last
 *  author) already says it all. */
export function othersClause(others: ByOthers | undefined, lastAuthor: string): string {
  if (!others?.length || (others.length === 1 && others[0]!.by === lastAuthor && others[0]!.lines === "all")) return "";
  return `; written by others, not you: ${othersNote(others)}`;
}
