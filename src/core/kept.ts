// Values an isolate keeps between requests, kept once made and never while being made: on Workers, a pending promise
// holds I/O of the request that started it, and a later request that awaits it hangs once that one has ended
// (workerd: "Cannot perform I/O on behalf of a different request", then the request cancelled as hung). Requests that
// ask at the same moment each make it.

/** `kept`'s value for `key`, or the one `make` gives, kept when `keep` says so (by default: always). */
export async function keptWhenMade<K, V>(kept: { get(key: K): V | undefined; set(key: K, value: V): unknown }, key: K, make: () => Promise<V>, keep: (value: V) => boolean = () => true): Promise<V> {
  const hit = kept.get(key);
  if (hit !== undefined) return hit;
  const value = await make();
  if (keep(value)) kept.set(key, value);
  return value;
}
