// "Did you mean" suggestions: unknown names always answer with the closest known ones.

function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

/** Up to `limit` candidates ranked by containment first, then edit distance. */
export function closest(input: string, candidates: Iterable<string>, limit = 5): string[] {
  const needle = input.toLowerCase().slice(0, 200);
  const scored: Array<[string, number]> = [];
  for (const c of new Set(candidates)) {
    const hay = c.toLowerCase();
    const contains = needle.length > 1 && (hay.includes(needle) || needle.includes(hay));
    scored.push([c, (contains ? 0 : 100) + editDistance(needle, hay)]);
  }
  scored.sort((x, y) => x[1] - y[1] || x[0].localeCompare(y[0]));
  return scored.slice(0, limit).map(([c]) => c);
}

export function suggestion(names: string[]): string {
  return names.length ? ` Closest: ${names.join(", ")}.` : "";
}
