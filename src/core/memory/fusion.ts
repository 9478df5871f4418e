// Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): each ranking adds 1 / (k + rank) for every id
// it ranks, so an id near the top of both lists wins, and neither list's scores need to be comparable.

export const RRF_K = 60;

/** The ids of all lists, best fused score first (ties: the order they were first seen). */
export function fuseRanks(lists: ReadonlyArray<readonly string[]>, k = RRF_K): Array<{ id: string; score: number }> {
  const scores = new Map<string, number>();
  for (const list of lists) list.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + i + 1)));
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}
