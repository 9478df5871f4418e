// A refresh's answer kept for the same client's retry within the reuse window (owner-do.ts REFRESH_REUSE_WINDOW_MS),
// sealed with what that exchange was proved with: the refresh token and the client's credentials. The object that
// keeps it stores only the token's SHA-256, from which the key cannot be made; a retry that cannot present the same
// credentials (a thief of a confidential client's token, without its secret) cannot open it.

/** A token answer as the provider gave it, and when (ms). */
type Kept = { at: number; body: Record<string, unknown> };

/** The AES-GCM key of the answer to a refresh of `token` proved with `credentials` (its Authorization header, its
 *  client_secret or client_assertion, each as sent: "" for a public client). */
async function answerKey(token: string, credentials: string[]): Promise<CryptoKey> {
  const material = new TextEncoder().encode(["bmad refresh answer", token, ...credentials].join("\0"));
  return crypto.subtle.importKey("raw", await crypto.subtle.digest("SHA-256", material), "AES-GCM", false, ["encrypt", "decrypt"]);
}

export async function sealAnswer(token: string, credentials: string[], body: Record<string, unknown>): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const plain = new TextEncoder().encode(JSON.stringify({ at: Date.now(), body } satisfies Kept));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await answerKey(token, credentials), plain));
  return btoa(String.fromCharCode(...iv, ...sealed));
}

/** The answer as it stands now (expires_in counted from its first giving), or undefined where these credentials do
 *  not open it. */
export async function openAnswer(sealed: string, token: string, credentials: string[]): Promise<Record<string, unknown> | undefined> {
  const bytes = Uint8Array.from(atob(sealed), (c) => c.charCodeAt(0));
  let kept: Kept;
  try {
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes.slice(0, 12) }, await answerKey(token, credentials), bytes.slice(12));
    kept = JSON.parse(new TextDecoder().decode(plain)) as Kept;
  } catch {
    return undefined;
  }
  const { expires_in } = kept.body;
  if (typeof expires_in !== "number") return kept.body;
  return { ...kept.body, expires_in: Math.max(1, expires_in - Math.floor((Date.now() - kept.at) / 1000)) };
}
