// "Did you mean" suggestions: unknown names always answer with the closest known ones.

/** How much of a name or path is compared, and how many candidates get the exact (quadratic) comparison: a missing
 *  path in a 5,000-file project costs a bounded amount, not seconds. */
const MAX_LENGTH = 200;
const MAX_COMPARED = 128;

export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = new Uint16Array(b.length + 1).map((_, i) => i);
  let row = new Uint16Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    [prev, row] = [row, prev];
  }
  return prev[b.length]!;
}

/** Pairs of adjacent characters, as numbers, with how often each occurs. */
function bigrams(s: string): Map<number, number> {
  const counts = new Map<number, number>();
  for (let i = 1; i < s.length; i++) {
    const key = s.charCodeAt(i - 1) * 65_536 + s.charCodeAt(i);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** How many of the needle's character pairs the candidate has: linear, a first cut before the exact comparison. */
function sharedBigrams(needle: Map<number, number>, hay: string): number {
  const left = new Map(needle);
  let shared = 0;
  for (let i = 1; i < hay.length; i++) {
    const key = hay.charCodeAt(i - 1) * 65_536 + hay.charCodeAt(i);
    const n = left.get(key);
    if (n) {
      shared++;
      left.set(key, n - 1);
    }
  }
  return shared;
}

/** Up to `limit` candidates ranked by containment first, then edit distance. Past MAX_COMPARED candidates, those
 *  sharing the most character pairs with the input are the ones compared. */
export function closest(input: string, candidates: Iterable<string>, limit = 5): string[] {
  const needle = input.toLowerCase().slice(0, MAX_LENGTH);
  let pool = [...new Set(candidates)].map((c) => {
    const hay = c.toLowerCase().slice(0, MAX_LENGTH);
    return { c, hay, contains: needle.length > 1 && (hay.includes(needle) || needle.includes(hay)) };
  });
  if (pool.length > MAX_COMPARED) {
    const pairs = bigrams(needle);
    pool = pool
      .map((p) => ({ ...p, shared: sharedBigrams(pairs, p.hay) }))
      .sort((x, y) => Number(y.contains) - Number(x.contains) || y.shared - x.shared || Math.abs(x.hay.length - needle.length) - Math.abs(y.hay.length - needle.length))
      .slice(0, MAX_COMPARED);
  }
  const scored = pool.map(({ c, hay, contains }): [string, number] => [c, (contains ? 0 : 100) + editDistance(needle, hay)]);
  scored.sort((x, y) => x[1] - y[1] || x[0].localeCompare(y[0]));
  return scored.slice(0, limit).map(([c]) => c);
}

/** Paths for a missing file `path`, from `candidates` (files of its name anywhere, then below its folder): first those
 *  whose file name holds the name asked for (without its extension, in any case: `prds/…/prd.md` for `prd.md`,
 *  `ARCHITECTURE-SPINE.md` for `architecture.md`), the ones of its very name first (review 477), then the shortest,
 *  then the closest paths (review 315-3: `epics.md` came first for `architecture.md`, and the architecture's memlog
 *  before its spine). */
export function closestFiles(path: string, candidates: string[], limit: number): string[] {
  const name = (p: string) => p.slice(p.lastIndexOf("/") + 1).toLowerCase();
  const stem = (p: string) => name(p).replace(/\.[^.]*$/, "");
  const [asked, askedName] = [stem(path), name(path)];
  const other = (p: string) => Number(name(p) !== askedName);
  const near = nearestFirst(path);
  const named = asked.length > 1 ? candidates.filter((c) => stem(c).includes(asked)).sort((a, b) => other(a) - other(b) || near(a, b)) : [];
  return [...new Set([...named.slice(0, limit), ...closest(path, candidates, limit)])].slice(0, limit);
}

/** Whether a name is near enough to another to be suggested for it: one holds the other, or they differ in at most a
 *  third of the longer one's characters. */
export function isNear(name: string, asked: string): boolean {
  const [a, b] = [name.toLowerCase().slice(0, MAX_LENGTH), asked.toLowerCase().slice(0, MAX_LENGTH)];
  if (Math.min(a.length, b.length) > 1 && (a.includes(b) || b.includes(a))) return true;
  return editDistance(a, b) <= Math.floor(Math.max(a.length, b.length) / 3);
}

export function suggestion(names: string[]): string {
  return names.length ? ` Closest: ${names.join(", ")}.` : "";
}

/** The order of files named as `path`'s file is: those below its folder first, then those of its very name in case
 *  too, then the shortest (review 482: `deep/a/b/PRD.md` came before `_bmad-output/planning/prd.md` for
 *  `_bmad-output/prd.md`). */
export function nearestFirst(path: string): (a: string, b: string) => number {
  const at = path.lastIndexOf("/") + 1;
  const [folder, name] = [path.slice(0, at), path.slice(at)];
  const rank = (p: string) => (p.startsWith(folder) ? 0 : 2) + (p.slice(p.lastIndexOf("/") + 1) === name ? 0 : 1);
  return (a, b) => rank(a) - rank(b) || a.length - b.length || (a < b ? -1 : 1);
}
