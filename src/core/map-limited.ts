// Many calls, a few at a time: what reads a listing's files (pull, push, runs) uses, so that a long list neither waits on
// each call in turn nor starts them all at once.

/** `run` on each of `items`, up to `limit` at once; results in order. */
export async function mapLimited<T, R>(items: T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await run(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
