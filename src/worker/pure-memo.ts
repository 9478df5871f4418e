// Results of a pure computation kept by the inputs that decide them (a text's sha256, its line authors, the reader), so
// a repeated answer reuses them instead of reading and comparing texts again (review 418: a history by glob re-read and
// re-diffed sixty files on every call, and the map re-matched twelve files' line authors after all was seen).

/** At most `max` results, the oldest dropped first; a key past `maxKey` characters is not kept (its result is simply
 *  computed each time), so the memo holds at most `max × maxKey` characters of keys. */
export class PureMemo<V> {
  private readonly kept = new Map<string, V>();

  constructor(private readonly max: number, private readonly maxKey: number) {}

  /** The result kept for `key`, or `compute()`'s, kept for next time. */
  of(key: string, compute: () => V): V {
    const hit = this.kept.get(key);
    if (hit !== undefined) return hit;
    const value = compute();
    if (key.length > this.maxKey) return value;
    if (this.kept.size >= this.max) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(key, value);
    return value;
  }
}
