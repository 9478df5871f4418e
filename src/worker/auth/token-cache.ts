// A short per-isolate memory of tokens the OAuth provider has already validated, so /mcp does not pay
// a KV read and a decryption on every call. Entries live at most CACHE_MS and never past the token's expiry.
// Revocation: every token-endpoint request that names a grant (a code, a refresh token, a token to revoke)
// forgets that grant's tokens here once the provider has answered, and a validation that was in flight
// while a grant was forgotten is not remembered. So revoking, a replayed code and a replayed refresh token
// take effect on this isolate's next request; other isolates keep a cached token for CACHE_MS at most.
// Code that revokes a grant any other way (OAuthHelpers.revokeGrant) must call forgetGrant too.
import type { OAuthResourceAuth } from "@cloudflare/workers-oauth-provider";

/** How long another isolate may keep accepting a revoked token: stated in docs/security.md. */
export const CACHE_MS = 30_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  auth: OAuthResourceAuth;
  props: unknown;
  until: number;
  grant: string;
}

const entries = new Map<string, Entry>();
const byGrant = new Map<string, Set<string>>();
/** Bumped on every forget; a validation that started before a forget of its grant is not remembered. */
let generation = 0;
const forgottenAt = new Map<string, number>();
/** Validations that started before this generation are never remembered (set when forgottenAt is trimmed). */
let floor = 0;

async function key(token: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)));
  return btoa(String.fromCharCode(...digest));
}

/** The grant an issued token or code belongs to: its `userId:grantId` prefix. */
export function grantOf(token: string): string | undefined {
  const parts = token.split(":");
  return parts.length === 3 && parts[0] && parts[1] ? `${parts[0]}:${parts[1]}` : undefined;
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
    drop(k, entry);
    return undefined;
  }
  return entry;
}

/** Take before validating a token; hand to remember() afterwards. */
export function validationStarts(): number {
  return generation;
}

/** Remember a validation, unless its grant was forgotten while it ran. */
export async function remember(auth: OAuthResourceAuth, props: unknown, startedAt: number): Promise<void> {
  const grant = grantOf(auth.token);
  if (!grant || startedAt < floor || (forgottenAt.get(grant) ?? -1) >= startedAt) return;
  if (entries.size >= MAX_ENTRIES) {
    entries.clear();
    byGrant.clear();
  }
  const until = Math.min(Date.now() + CACHE_MS, auth.expiresAt ? auth.expiresAt * 1000 : Infinity);
  const k = await key(auth.token);
  entries.set(k, { auth, props, until, grant });
  let keys = byGrant.get(grant);
  if (!keys) byGrant.set(grant, (keys = new Set()));
  keys.add(k);
}

/** Forget every cached token of a grant (`userId:grantId`): call once the grant or a token of it is revoked. */
export function forgetGrant(grant: string): void {
  forgottenAt.set(grant, generation);
  generation++;
  if (forgottenAt.size > MAX_ENTRIES) {
    forgottenAt.clear();
    floor = generation;
  }
  for (const k of byGrant.get(grant) ?? []) entries.delete(k);
  byGrant.delete(grant);
}

function drop(k: string, entry: Entry): void {
  entries.delete(k);
  const keys = byGrant.get(entry.grant);
  keys?.delete(k);
  if (keys?.size === 0) byGrant.delete(entry.grant);
}
