// A short per-isolate memory of tokens the OAuth provider has already validated, so /mcp does not pay
// a KV read and a decryption on every call. Entries live at most CACHE_MS and never past the token's expiry.
// Revocation: every token-endpoint request that names a grant (a code, a refresh token, a token to revoke)
// forgets that grant's tokens here once the provider has answered, and a validation that was in flight
// while a grant was forgotten is not remembered. So revoking, a replayed code and a replayed refresh token
// take effect on this isolate's next request; other isolates keep a cached token for CACHE_MS at most.
// Code that revokes a grant any other way (OAuthHelpers.revokeGrant) must call forgetGrant too.
// A cached token is still judged by the access rules as deployed (serveMcp): the cache skips validation only.
import type { OAuthResourceAuth } from "@cloudflare/workers-oauth-provider";

/** How long another isolate may keep accepting a revoked token: stated in docs/security.md. */
export const CACHE_MS = 30_000;
const MAX_ENTRIES = 10_000;

// Keyed by the token itself: an entry holds the token anyway (auth.token), so a digest hid nothing and cost
// an async round through the runtime on every call. Synchronous, so no forget can land between remember's
// check and its set.
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

/** The grant an issued token or code belongs to: its `userId:grantId` prefix. */
export function grantOf(token: string): string | undefined {
  const parts = token.split(":");
  return parts.length === 3 && parts[0] && parts[1] ? `${parts[0]}:${parts[1]}` : undefined;
}

/** The longest token or code accepted, in UTF-8 bytes: this server's are a user id (at most 300 characters, PropsSchema),
 *  a 16-character grant id and a 32-character secret. The provider makes KV keys of a token's parts, at
 *  most 512 bytes: a longer token answered 500 (review 95), so it is refused first. */
export const MAX_TOKEN_BYTES = 400;

/** Why `token` (a code, a refresh or access token) is none this server issued by its length alone, or undefined. */
export function tokenTooLong(token: string, what: string): string | undefined {
  if (token.length <= MAX_TOKEN_BYTES && new TextEncoder().encode(token).length <= MAX_TOKEN_BYTES) return undefined;
  return `This ${what} is longer than any this server issues (at most ${MAX_TOKEN_BYTES} bytes): use the one it gave you, or sign in again.`;
}

/** Why `token`, sent as a bearer, is no access token this server issued, by its form alone, or undefined. The provider
 *  called any token it does not hold expired (review 332: `abc` was to get a new one with its refresh token). */
export function notAccessToken(token: string): string | undefined {
  return tokenTooLong(token, "access token") ?? (grantOf(token) ? undefined : "This is not an access token: send the access token from the token endpoint.");
}

export function bearer(request: Request): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "");
  return match?.[1];
}

/** A still-fresh validation of this request's token for `audience`, if this isolate has one. */
export function recall(request: Request, audience: string): Entry | undefined {
  const token = bearer(request);
  if (!token) return undefined;
  const entry = entries.get(token);
  if (!entry) return undefined;
  if (entry.until <= Date.now() || entry.auth.audience !== audience) {
    drop(token, entry);
    return undefined;
  }
  return entry;
}

/** Take before validating a token; hand to remember() afterwards. */
export function validationStarts(): number {
  return generation;
}

/** Remember a validation, unless its grant was forgotten while it ran. */
export function remember(auth: OAuthResourceAuth, props: unknown, startedAt: number): void {
  const grant = grantOf(auth.token);
  if (!grant || startedAt < floor || (forgottenAt.get(grant) ?? -1) >= startedAt) return;
  if (entries.size >= MAX_ENTRIES) {
    entries.clear();
    byGrant.clear();
  }
  const until = Math.min(Date.now() + CACHE_MS, auth.expiresAt ? auth.expiresAt * 1000 : Infinity);
  entries.set(auth.token, { auth, props, until, grant });
  let tokens = byGrant.get(grant);
  if (!tokens) byGrant.set(grant, (tokens = new Set()));
  tokens.add(auth.token);
}

/** Forget every cached token of a grant (`userId:grantId`): call once the grant or a token of it is revoked. */
export function forgetGrant(grant: string): void {
  forgottenAt.set(grant, generation);
  generation++;
  if (forgottenAt.size > MAX_ENTRIES) {
    forgottenAt.clear();
    floor = generation;
  }
  for (const token of byGrant.get(grant) ?? []) entries.delete(token);
  byGrant.delete(grant);
}

function drop(token: string, entry: Entry): void {
  entries.delete(token);
  const tokens = byGrant.get(entry.grant);
  tokens?.delete(token);
  if (tokens?.size === 0) byGrant.delete(entry.grant);
}
