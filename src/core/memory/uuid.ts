// UUIDv5 (RFC 9562: SHA-1 of a namespace and a name) with Web Crypto, which both front doors have.

/** uuid5(NAMESPACE_URL, "urn:bmad-mcp:memory"): the namespace of every memory id. */
export const MEMORY_NAMESPACE = "7d854368-26a7-54ae-8ac2-b9ce3cc6974b";

function uuidBytes(uuid: string): Uint8Array {
  const hex = uuid.replace(/-/g, "");
  return Uint8Array.from({ length: 16 }, (_, i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16));
}

export async function uuidV5(name: string, namespace = MEMORY_NAMESPACE): Promise<string> {
  const nameBytes = new TextEncoder().encode(name);
  const input = new Uint8Array(16 + nameBytes.byteLength);
  input.set(uuidBytes(namespace));
  input.set(nameBytes, 16);
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-1", input)).slice(0, 16);
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = [...hash].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
