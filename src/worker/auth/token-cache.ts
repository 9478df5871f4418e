// A short per-isolate memory of tokens the OAuth provider has already validated, so /mcp does not pay
// a KV read and a decryption on every call. Entries live at most CACHE_MS (KV itself takes up to 60 s
// to spread a revocation) and never past the token's expiry; a revocation seen here evicts at once.
import type { OAuthResourceAuth } from "@cloudflare/workers-oauth-provider";

const CACHE_MS = 30_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  auth: OAuthResourceAuth;
  props: unknown;
  until: number;
}

const entries = new Map<string, Entry>();

async function key(token: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)));
  return btoa(String.fromCharCode(...digest));
}

function bearer(request: Request): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "");
  return match?.[1];
}

/** A still-fresh validation of this request's token for `audience`, if this isolate has one. */
export async function recall(request: Request, audience: string): Promise<Entry | undefined> {
  const token = bearer(request);
  if (!token) return undefined;
  const k = await key(token);
  const entry = entries.get(k);
  if (!entry) return undefined;
  if (entry.until <= Date.now() || entry.auth.audience !== audience) {
    entries.delete(k);
    return undefined;
  }
  return entry;
}

export async function remember(auth: OAuthResourceAuth, props: unknown): Promise<void> {
  if (entries.size >= MAX_ENTRIES) entries.clear();
  const until = Math.min(Date.now() + CACHE_MS, auth.expiresAt ? auth.expiresAt * 1000 : Infinity);
  entries.set(await key(auth.token), { auth, props, until });
}

/** RFC 7009 revocation goes through the token endpoint as a form with `token`: forget it here too. */
export async function forgetRevoked(request: Request): Promise<void> {
  if (request.method !== "POST") return;
  const form = await request.clone().formData().catch(() => undefined);
  const token = form?.get("token");
  if (typeof token === "string" && !form?.get("grant_type")) entries.delete(await key(token));
}
