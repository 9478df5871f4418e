// A request's body read whole up to a cap, and no further: past it the rest is left unread (a body of any size must
// not be buffered before it is refused).

/** The body's bytes (empty without one), or undefined when it says or turns out to be over `max` bytes. */
export async function readCapped(request: Request, max: number): Promise<Uint8Array | undefined> {
  const length = request.headers.get("content-length");
  if (Number(length ?? 0) > max) return undefined;
  // A body of a stated length is exactly that long (HTTP frames it so): read at once, not chunk by chunk.
  if (length !== null && /^\d+$/.test(length.trim())) {
    const bytes = request.body ? new Uint8Array(await request.arrayBuffer()) : new Uint8Array(0);
    return bytes.byteLength > max ? undefined : bytes;
  }
  const reader = request.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return bytes;
}

/** A form body read up to `max` bytes: its bytes and, where they parse as the form its content type names, its
 *  fields (a body of another type, or one that does not parse, has none). Undefined when it is over `max`. */
export async function readCappedForm(request: Request, max: number): Promise<{ bytes: Uint8Array; form?: FormData } | undefined> {
  const bytes = await readCapped(request, max);
  if (!bytes) return undefined;
  const type = request.headers.get("content-type");
  const form = type ? await new Request("http://form.invalid/", { method: "POST", headers: { "content-type": type }, body: bytes }).formData().catch(() => undefined) : undefined;
  return { bytes, ...(form ? { form } : {}) };
}
