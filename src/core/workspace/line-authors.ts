// Who wrote each line of a shared file. A change carries the authors of the lines it kept and gives the lines it
// added to whoever made it, so a collaborator's text stays theirs after the owner's next append or edit (reviews
// 40, 43, 45, 46: "last changed by" named only the last writer, and an owner's append made a planted line the
// owner's). Nothing a change does launders a line: a new line that takes an old one's place is also that line's
// authors' (an edit, a rewrite), and of any removed line anywhere that had its text or words (a move, a sort, a
// rewrap, a split), so a rewrite stays theirs too (review 49: half-kept words, a moved or split line and a rewrapped
// one lost their author). Lines a change adds beyond those it replaced are its author's alone (review 322: a rewrite's
// new sections were credited to whoever wrote the one heading they replaced). Lines are split as BMAD's Python splits
// them, and matched by patience anchors: near linear in any input; a removed line's words are read only where they
// could name someone more, and at most WORDS_READ of them (review 185).

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
 *  where the numbers are not told); `with_you`: lines the reader is among the authors of too (a person can be named
 *  twice, once for each). */
export type ByOthers = Array<{ by: string; lines: string; with_you?: true }>;

export const samePerson = (a: Person, b: Person): boolean => (a.id !== undefined && b.id !== undefined ? a.id === b.id : a.label === b.label);

/** Runs kept at most (fewer in a small file: joined()): past it, neighbouring runs are joined, each line then named by
 *  both runs' authors (stored authorship stays small whatever the file: review 49 stored 1.36 MB for one version of a
 *  1 MiB file). */
export const MAX_RUNS = 1000;

/** The file's lines, split where Python's str.splitlines splits (what BMAD's scripts see: `\r`, `\v`, U+2028 ...),
 *  without their endings; a last line ending in one makes no empty line after it. */
export function splitLines(text: string): string[] {
  if (!text) return [];
  const lines = text.split(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/);
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

/** A line with something on it: a blank one carries no one's words (circled letters and symbols are words to a
 *  model, review 49). */
const hasText = (line: string) => /\S/u.test(line);

/** How a change made by the server itself (a merge of remembered memories) tells its lines: `key`, the entry a stored
 *  line (at `\n`) holds (a memory's id), whose line keeps the authors of the old line of that entry, however it was
 *  rewritten; and `newBy`, who remembered an entry (by its key). The server is then no one's author. */
export interface EntryLines {
  key: (line: string) => string | undefined;
  newBy: (key: string) => Person | undefined;
  /** Who else wrote a part of a new line: a config line another answer's value was filled into (review 63). */
  alsoBy?: (line: string) => Person[];
}

/** Each stored line of `text` (at `\n`) with everyone who wrote a part of it. */
export function authorsByStoredLine(text: string, authors: LineAuthors): Array<{ line: string; people: Person[] }> {
  const { stored, storedAt } = storedLines(text);
  const who = stored.map(() => new Set<number>());
  let line = 0;
  for (const [count, people] of authors.runs) {
    for (let k = 0; k < count; k++, line++) for (const i of people) who[storedAt(line)]?.add(i);
  }
  return stored.map((text, i) => ({ line: text, people: [...who[i]!].map((p) => authors.people[p]!) }));
}

/** `text`'s stored lines (at `\n`), and for each line as splitLines counts them, the stored line it is part of. */
function storedLines(text: string): { stored: string[]; storedAt: (line: number) => number } {
  const on = shownNumbers(text);
  return { stored: text.split(/\r?\n/), storedAt: (line) => (on ? on[line]! : line + 1) - 1 };
}

/** For each line of `text` as splitLines counts them (`count`), the key of the stored line (at `\n`) it is part of. */
function keysOf(text: string, count: number, key: (line: string) => string | undefined): Array<string | undefined> {
  const { stored, storedAt } = storedLines(text);
  // Each stored line's key found once, however many pieces it splits into (review 52: a line of 128 KiB of U+2028
  // was parsed once a piece, 7.9 s).
  const keys = new Map<number, string | undefined>();
  return Array.from({ length: count }, (_, i) => {
    const at = storedAt(i);
    if (!keys.has(at)) keys.set(at, key(stored[at] ?? ""));
    return keys.get(at);
  });
}

/** Lines of a change's `before` that its author never read: another's, in the version the change replaced without
 *  naming it (line indices); `read`, the version before that one, which the change was likely made from. */
export type UnreadLines = { by: Person; lines: ReadonlySet<number>; read: { text: string; authors: LineAuthors } };

/** The authors of `after`, `by`'s change of a file that was `before` with `authors`. `unseen`: a line that puts one of
 *  those back as the version read said it is not their author's too (review 355: a write from an older read, which
 *  undid a member's edit of a line, named the member as its co-author, beside the note that their version was replaced). */
export function carryAuthors(before: string, authors: LineAuthors, after: string, by: Person, entries?: EntryLines, alsoBy: Person[] = [], unseen?: UnreadLines): LineAuthors {
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
  // Unions of two sets made by `set`, remembered: a file of many small changes asks for the same few again and again.
  const unions = new Map<number[], Map<number[], number[]>>();
  const union = (a: number[], b: number[]): number[] => {
    if (a === b) return a;
    const row = unions.get(a) ?? unions.set(a, new Map()).get(a)!;
    return row.get(b) ?? row.set(b, set([...a, ...b])).get(b)!;
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
  const nobody = set([]);
  const unseenBy = unseen ? people.findIndex((p) => samePerson(p, unseen.by)) : -1;
  // Who wrote each line of the version the change was likely made from, by its text.
  const readWho = new Map<string, Set<Person>>();
  if (unseen) {
    const { text, authors: was } = unseen.read;
    const lines = splitLines(text);
    let at = 0;
    for (const [count, who] of was.runs) {
      for (let k = 0; k < count && at < lines.length; k++, at++) {
        if (!hasText(lines[at]!)) continue;
        const named = readWho.get(lines[at]!) ?? readWho.set(lines[at]!, new Set()).get(lines[at]!)!;
        for (const i of who) named.add(was.people[i]!);
      }
    }
  }
  // What the change adds is also theirs whose text it came from (a script that read their lines).
  const meAlone = set([me, ...alsoBy.map(index)]);
  const kept = matchLines(old, now);
  const keptOld = new Uint8Array(old.length);
  for (const i of kept) if (i >= 0) keptOld[i] = 1;
  // Each entry's authors: an entry the server rewrote is still its authors'. And who wrote each removed line: a line
  // the change adds may say one again (movedFrom).
  const byKey = new Map<string, number[]>();
  // An entry's key is read from the whole line a file stores it on (at `\n`): a memory's JSON holding U+2028 is one
  // entry in two lines here (review 51).
  const oldKeys = entries ? keysOf(before, old.length, entries.key) : undefined;
  const nowKeys = entries ? keysOf(after, now.length, entries.key) : undefined;
  let everyone = nobody;
  let removed = nobody;
  const removedAt: number[] = [];
  let removedCost = 0;
  old.forEach((line, i) => {
    if (!hasText(line)) return;
    everyone = union(everyone, oldWho[i]!);
    const key = oldKeys?.[i];
    if (key !== undefined) byKey.set(key, union(byKey.get(key) ?? nobody, oldWho[i]!));
    // Only removed lines count as moved: a kept `|---|` or fence is no one's text that went elsewhere (review 51).
    if (keptOld[i]) return;
    removed = union(removed, oldWho[i]!);
    removedAt.push(i);
    removedCost += readCost(line);
  });
  // Where each removed line's text went, and what it said, by runs of its words: a line that says it again elsewhere,
  // respaced, cut, merged or lightly edited (review 50: memlog moved a writer's key onto the owner's, respaced), is
  // theirs too. The words are read only for a line whose authors so far leave out someone who wrote a removed line,
  // and at most WORDS_READ in all, the removed lines' first: past it, such a line is named with everyone who wrote one
  // (review 185: a writer's rewrite of the owner's 100,000 lines held the project for 1.6 s a write). More than the
  // truth, never less.
  const byText = new Map<string, number[]>();
  const bySaying = new Map<string, number[]>();
  let unread: number | undefined;
  const movedFrom = (line: string, who: number[]): number[] => {
    if (union(who, removed) === who) return who;
    if (unread === undefined) {
      unread = WORDS_READ - removedCost;
      if (unread >= 0) {
        for (const i of removedAt) {
          byText.set(old[i]!, union(byText.get(old[i]!) ?? nobody, oldWho[i]!));
          for (const saying of sayings(old[i]!)) bySaying.set(saying, union(bySaying.get(saying) ?? nobody, oldWho[i]!));
        }
      }
    }
    if ((unread -= readCost(line)) < 0) return union(who, removed);
    who = union(who, byText.get(line) ?? nobody);
    for (const saying of sayings(line)) who = union(who, bySaying.get(saying) ?? nobody);
    return who;
  };
  const runs: LineAuthors["runs"] = [];
  const push = (who: number[]) => {
    const last = runs[runs.length - 1];
    if (last && last[1] === who) last[0]++;
    else runs.push([1, who]);
  };
  /** New lines that put back what the unread head changed: named as below, and by no removed line's words. */
  const putBack = new Set<number>();
  let j = 0;
  let lastOld = -1;
  let texts: { old: Set<string>; now: Set<string> } | undefined;
  while (j < now.length) {
    if (kept[j]! >= 0) {
      lastOld = kept[j]!;
      push(oldWho[lastOld]!);
      j++;
      continue;
    }
    // New lines up to the next kept one replace the old lines between the kept ones around them: theirs stay named.
    let end = j;
    while (end < now.length && kept[end]! < 0) end++;
    const nextOld = end < now.length ? kept[end]! : old.length;
    let mineAt: (at: number) => number[];
    if (entries) {
      // The server's merge is no one's author: what it adds that is no entry it knows is theirs who wrote what it
      // replaced, or else everyone who wrote the file (review 51: an escaped line read as the server's alone).
      let replaced = nobody;
      for (let i = lastOld + 1; i < nextOld; i++) if (hasText(old[i]!)) replaced = union(replaced, oldWho[i]!);
      const merged = replaced !== nobody ? replaced : everyone !== nobody ? everyone : meAlone;
      mineAt = () => merged;
    } else {
      // A person's change: each new line is theirs, and the authors' of the old line whose place it takes, if any.
      texts ??= { old: new Set(old), now: new Set(now) };
      const places = placesTaken(old, lastOld + 1, nextOld, now, j, end, texts);
      mineAt = (at) => {
        const place = places.get(at);
        if (place === undefined) return meAlone;
        // A line the unread head changed, put back as the version before it said it word for word: theirs who wrote
        // it there, not the head's author's (review 355). A line written anew stays theirs too: a rewrite never launders.
        const said = unseen?.lines.has(place) ? readWho.get(now[at]!) : undefined;
        if (!said) return union(meAlone, oldWho[place]!);
        putBack.add(at);
        return union(union(meAlone, set(oldWho[place]!.filter((w) => w !== unseenBy))), set([...said].map(index)));
      };
    }
    for (; j < end; j++) {
      const line = now[j]!;
      const key = nowKeys?.[j];
      const entry = key === undefined ? undefined : byKey.get(key);
      const writer = key === undefined ? undefined : entries?.newBy(key);
      // The server's rewrite of an entry: its old authors, and whoever remembered it anew; an entry it adds: whoever
      // remembered it. Anything else: the change's author and those of the line whose place it took.
      let who = entry ? (writer ? union(entry, set([index(writer)])) : entry) : writer ? set([index(writer)]) : mineAt(j);
      const also = entries?.alsoBy?.(line) ?? [];
      if (also.length) who = union(who, set(also.map(index)));
      push(putBack.has(j) ? who : movedFrom(line, who));
    }
  }
  return { people, runs: joined(runs, set, Math.max(MIN_RUNS, Math.min(MAX_RUNS, Math.floor(after.length / BYTES_PER_RUN)))) };
}

/** For each line of `now` from `from` to `to`, the line of `old` from `lo` to `hi` whose place it takes: paired in
 *  order from both ends of the run (an edit at either end of a rewritten passage keeps its place), of the lines with
 *  text that the other side does not hold word for word (`texts`: those moved, which movedFrom names). Lines left over
 *  on either side are new or dropped (review 322: one heading that replaced a document made every section after it its
 *  authors'); a merge or rewrap that keeps their words is theirs by movedFrom too. */
function placesTaken(old: string[], lo: number, hi: number, now: string[], from: number, to: number, texts: { old: Set<string>; now: Set<string> }): Map<number, number> {
  const olds: number[] = [];
  for (let i = lo; i < hi; i++) if (hasText(old[i]!) && !texts.now.has(old[i]!)) olds.push(i);
  const news: number[] = [];
  for (let j = from; j < to; j++) if (hasText(now[j]!) && !texts.old.has(now[j]!)) news.push(j);
  const places = new Map<number, number>();
  const paired = Math.min(olds.length, news.length);
  const front = Math.ceil(paired / 2);
  for (let k = 0; k < front; k++) places.set(news[k]!, olds[k]!);
  for (let k = 1; k <= paired - front; k++) places.set(news[news.length - k]!, olds[olds.length - k]!);
  return places;
}

/** Characters of lines movedFrom reads the words of, at most, in one change (a 1 MiB rewrite of 100,000 lines took
 *  3 s to read whole, review 185), each line counted LINE_READ more for its own cost (a short line costs about as
 *  much as its words). */
export const WORDS_READ = 512 * 1024;
const LINE_READ = 32;
const readCost = (line: string) => line.length + LINE_READ;

/** What a line says, as runs of SAYING_WORDS words that hold a letter (lower-cased; numbers, times and punctuation
 *  are not words here: a memlog's new `updated:` time says nothing of the entry it shares a time with), or all of
 *  them where it has fewer. */
const SAYING_WORDS = 4;
function sayings(line: string): string[] {
  // Split, then kept where a word holds a letter (or is symbols, as circled letters are): linear on any line (review
  // 51: a match that looked for a letter in each run of digits took 20 s on a 48 KiB line).
  const words = line.toLowerCase().split(/[\s\p{P}\p{Sm}\p{Sc}\p{Sk}]+/u).flatMap((w) => w.split(/(\p{So}+)/u)).filter((w) => w && (/\p{L}/u.test(w) || /^\p{So}+$/u.test(w)));
  if (!words.length) return [];
  if (words.length < SAYING_WORDS) return [words.join(" ")];
  return words.slice(0, words.length - SAYING_WORDS + 1).map((_, k) => words.slice(k, k + SAYING_WORDS).join(" "));
}

/** Runs kept for a file of `n` characters, at most one per BYTES_PER_RUN of them (and MIN_RUNS in any file): what is
 *  stored of who wrote it stays about as small as the file (review 53: 1,000 alternating short lines stored 2.6 times
 *  their bytes, uncounted by the history's cap). */
const BYTES_PER_RUN = 8;
const MIN_RUNS = 64;

/** `runs`, joined pairwise until at most `most` remain. */
function joined(runs: LineAuthors["runs"], set: (who: Iterable<number>) => number[], most: number): LineAuthors["runs"] {
  while (runs.length > most) {
    const next: LineAuthors["runs"] = [];
    for (let k = 0; k < runs.length; k += 2) {
      const [a, b] = [runs[k]!, runs[k + 1]];
      const run: [number, number[]] = b ? [a[0] + b[0], set([...a[1], ...b[1]])] : a;
      const last = next[next.length - 1];
      if (last && last[1] === run[1]) last[0] += run[0];
      else next.push(run);
    }
    runs = next;
  }
  return runs;
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
  // Each line's index in `a`, or -1 where it is there twice or more; then, for each line `a` has once, where `b` has
  // it (its index + 1; -1: twice or more), kept in arrays: one lookup by text for each line of `b`, not five (review
  // 185: they were most of what a rewrite of 100,000 lines cost once their words were read only where needed).
  const inA = new Map<string, number>();
  for (let i = start; i < endA; i++) inA.set(a[i]!, inA.has(a[i]!) ? -1 : i);
  const inB = new Int32Array(a.length);
  const onceInA = new Int32Array(b.length).fill(-1);
  for (let j = start; j < endB; j++) {
    const i = inA.get(b[j]!);
    if (i === undefined || i < 0) continue;
    onceInA[j] = i;
    inB[i] = inB[i] ? -1 : j + 1;
  }
  const pairs: Array<[number, number]> = [];
  for (let j = start; j < endB; j++) if (onceInA[j]! >= 0 && inB[onceInA[j]!] === j + 1) pairs.push([onceInA[j]!, j]);
  const anchors = increasing(pairs);
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

/** Everyone other than `reader` who wrote a part of a line of `before` (with `authors`) that `after` (null: the file
 *  deleted) no longer holds: whose work a change drops, whoever made the version it replaces. */
export function droppedBy(before: string, authors: LineAuthors, after: string | null, reader: Person): Person[] {
  const old = splitLines(before);
  const kept = new Uint8Array(old.length);
  if (after !== null) for (const i of matchLines(old, splitLines(after))) if (i >= 0) kept[i] = 1;
  const who = new Set<number>();
  let line = 0;
  for (const [count, people] of authors.runs) {
    for (let k = 0; k < count; k++, line++) if (line < old.length && !kept[line] && hasText(old[line]!)) for (const i of people) who.add(i);
  }
  return [...who].map((i) => authors.people[i]!).filter((p) => !samePerson(p, reader));
}

/** The lines each person other than `reader` wrote, or took part in: those the reader took part in too apart (review
 *  305: Alice's rewrite of a file Bob seeded, credited to both, was told to her as "not you"). Given `text`, blank
 *  lines are left out: they carry no one's words (review 305: Bob was named for blank lines 20 and 23). */
export function byOthers(authors: LineAuthors, reader: Person, text?: string): ByOthers {
  // Numbered as a reader counts lines (at `\n`), where the text breaks lines elsewhere too (review 50: five `\x1e`
  // in a writer's line moved every number after it).
  const shown = text === undefined ? undefined : shownNumbers(text);
  const split = text === undefined ? undefined : splitLines(text);
  const isReader = authors.people.map((p) => samePerson(p, reader));
  // Keyed by person and whether the reader took part: `${index}` or `${index}+`.
  const ranges = new Map<string, { i: number; withYou: boolean; list: Array<[number, number]> }>();
  const written: Array<[number, number]> = [];
  const add = (list: Array<[number, number]>, n: number) => {
    const last = list[list.length - 1];
    if (last && last[1] >= n - 1) last[1] = Math.max(last[1], n);
    else list.push([n, n]);
  };
  let line = 0;
  for (const [count, who] of authors.runs) {
    const withYou = who.some((i) => isReader[i]);
    for (let k = 0; k < count; k++, line++) {
      if (split && !hasText(split[line] ?? "")) continue;
      const n = shown?.[line] ?? line + 1;
      add(written, n);
      for (const i of who) {
        if (isReader[i]) continue;
        const key = withYou ? `${i}+` : `${i}`;
        add((ranges.get(key) ?? ranges.set(key, { i, withYou, list: [] }).get(key)!).list, n);
      }
    }
  }
  const isAll = (list: Array<[number, number]>) => list.length === written.length && list.every(([from, to], j) => from === written[j]![0] && to === written[j]![1]);
  return [...ranges.values()].map(({ i, withYou, list }) => ({ by: authors.people[i]!.label, lines: isAll(list) ? "all" : shownRanges(list), ...(withYou ? { with_you: true as const } : {}) }));
}

/** Breaks a reader does not count as lines (all but `\n` and `\r\n`). */
const UNCOUNTED_BREAK = /\r(?!\n)|[\v\f\x1c-\x1e\x85\u2028\u2029]/;

/** For each line as splitLines counts them, the line a reader counts it on (1-based); undefined where they agree. */
function shownNumbers(text: string): Int32Array | undefined {
  return UNCOUNTED_BREAK.test(text) ? numbersWhere(text, (brk) => brk === "\n" || brk === "\r\n") : undefined;
}

/** For each line as splitLines counts them, the line (1-based) it is on where only the breaks `counts` takes count. */
function numbersWhere(text: string, counts: (brk: string) => boolean): Int32Array {
  const out: number[] = [];
  let line = 1;
  let at = 0;
  const breaks = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/g;
  for (let m = breaks.exec(text); m; m = breaks.exec(text)) {
    out.push(line);
    if (counts(m[0])) line++;
    at = breaks.lastIndex;
  }
  if (at < text.length) out.push(line);
  return Int32Array.from(out);
}

/** JavaScript's line breaks, where lines() in core/lines.ts splits (what the memory files' parsers number). */
const JS_BREAK = new Set(["\r\n", "\n", "\r", "\u2028", "\u2029"]);

/** Everyone who wrote a part of each line of `text` as lines() numbers them (index 0 is line 1). */
export function authorsByLine(text: string, authors: LineAuthors): Person[][] {
  const on = numbersWhere(text, (brk) => JS_BREAK.has(brk));
  const who: Array<Set<number>> = [];
  let line = 0;
  for (const [count, people] of authors.runs) {
    for (let k = 0; k < count; k++, line++) {
      const at = (on[line] ?? line + 1) - 1;
      for (const i of people) (who[at] ??= new Set()).add(i);
    }
  }
  return Array.from({ length: (on[on.length - 1] ?? 0) }, (_, i) => [...(who[i] ?? [])].map((p) => authors.people[p]!));
}

/** At most SHOWN_RANGES ranges, so that an answer's header stays a line: past it, neighbours are joined across the
 *  smallest gaps, so that every line stays named with some of the reader's own between (review 53: "and 2 more
 *  ranges" hid where a writer's line 90 was behind 20 commas they added). */
const SHOWN_RANGES = 20;
function shownRanges(list: Array<[number, number]>): string {
  const show = (ranges: Array<[number, number]>) => ranges.map(([from, to]) => (from === to ? `${from}` : `${from}-${to}`)).join(", ");
  if (list.length <= SHOWN_RANGES) return show(list);
  const gaps = list.slice(1).map((r, i): [number, number] => [r[0] - list[i]![1], i]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const joinAfter = new Set(gaps.slice(0, list.length - SHOWN_RANGES).map(([, i]) => i));
  const joined: Array<[number, number]> = [];
  list.forEach((r, i) => (i > 0 && joinAfter.has(i - 1) ? (joined[joined.length - 1]![1] = r[1]) : joined.push([r[0], r[1]])));
  return `${show(joined)} (ranges joined)`;
}

/** Who of `others` wrote any of lines `from` to `to` (counted from 1), each named once, or undefined: "some" and
 *  joined ranges name more than the truth, never less. */
export function othersOn(others: ByOthers, from: number, to: number): string | undefined {
  const on = others.filter((o) => o.lines === "all" || o.lines === "some" || [...o.lines.matchAll(/(\d+)(?:-(\d+))?/g)].some((m) => Number(m[1]) <= to && from <= Number(m[2] ?? m[1])));
  return on.length ? [...new Set(on.map((o) => o.by))].join(", ") : undefined;
}

/** Whether `others` wrote every line with text of `text` (numbered as byOthers numbers them, at `\n`) and the reader
 *  none: false where it cannot tell (lines said as "some", ranges joined). */
export function othersWroteAll(others: ByOthers, text: string): boolean {
  if (others.some((o) => o.with_you || o.lines === "some" || o.lines.endsWith("(ranges joined)"))) return false;
  if (others.some((o) => o.lines === "all")) return true;
  const ranges = others.flatMap((o) => [...o.lines.matchAll(/(\d+)(?:-(\d+))?/g)].map((m) => [Number(m[1]), Number(m[2] ?? m[1])] as const));
  return text.split(/\r?\n/).every((line, i) => !hasText(line) || ranges.some(([from, to]) => from <= i + 1 && i + 1 <= to));
}

/** Each of `others` with their lines: `bob (lines 3-5), carol (all lines, with you)`. */
export const othersNamed = (others: ByOthers): string =>
  others.map((o) => `${o.by} (${o.lines === "all" && o.with_you ? "all lines" : o.lines === "all" || o.lines === "some" ? o.lines : `lines ${o.lines}`}${o.with_you ? ", with you" : ""})`).join(", ");

/** The longest list of one person's lines a short note keeps; a longer one is said as "some". */
const BRIEF_LINES = 40;

/** `others` for a note where room is short (a status line, a render's warning): every person named, a long list of
 *  lines said as "some" (review 377: a note cut at 120 characters dropped a co-author and stopped mid-range, "65-"). */
export const inBrief = (others: ByOthers): ByOthers => others.map((o) => (o.lines.length > BRIEF_LINES ? { ...o, lines: "some" } : o));

/** How every answer says who else wrote a file: the lines only others wrote apart from those the reader wrote with
 *  them (review 305). `show` prints each list of names: quoted where the note is read among a skill's steps. */
export function othersNote(others: ByOthers, show = (names: string) => names): string {
  const alone = others.filter((o) => !o.with_you);
  const withYou = others.filter((o) => o.with_you);
  return [alone.length && `written by others, not you: ${show(othersNamed(alone))}`, withYou.length && `written with others too: ${show(othersNamed(withYou))}`].filter(Boolean).join("; ");
}

/** The clause a file's answer header ends with where others wrote some of it; none where the header's "by" (the last
 *  author) already says it all. */
export const othersClause = (others: ByOthers | undefined, lastAuthor: string | undefined): string => othersSuffix(othersBeyond(others, lastAuthor));

/** othersNote, or none where the last author (named already) wrote it all, the reader none of it. */
export function othersBeyond(others: ByOthers | undefined, lastAuthor: string | undefined): string | undefined {
  return !others?.length || (others.length === 1 && others[0]!.by === lastAuthor && others[0]!.lines === "all" && !others[0]!.with_you) ? undefined : othersNote(others);
}

/** Who wrote a file where others wrote all of it and the reader none (their labels, "bob, carol"); undefined where the
 *  reader wrote any of it. A document so written is named as theirs wherever a step's state is said. */
export function writtenOnlyBy(others: ByOthers | undefined): string | undefined {
  return others?.some((o) => o.lines === "all" && !o.with_you) ? others.filter((o) => !o.with_you).map((o) => o.by).join(", ") : undefined;
}

/** The clause for a note made already (othersNote), or none. */
export const othersSuffix = (note: string | undefined): string => (note ? `; ${note}` : "");
