// In front of the provider's token endpoint (/oauth/token: codes, refresh, RFC 7009 revocation):
// - a client_id that is a metadata document URL on a non-public host is refused before anything fetches it, and a
//   client_id, code or token too long for a KV key before the provider makes one of it (review 95);
// - refresh-token reuse detection (OAuth 2.1 §4.3.1): a refresh token used a second time revokes its whole grant.
//   The provider alone accepts the previous refresh token again and forgets older ones, so a thief and the client
//   could take turns. Each token is claimed before it is forwarded, in one step of the Durable Object of the user it
//   names, and the claim is kept for the token's life (a grant's newest MAX_CLAIMS_PER_GRANT; a revoked sign-in's go
//   with it): a mark in KV read before and written after the exchange let refreshes sent at once all through (review 230).
//   Except: the same client sending it again within REFRESH_REUSE_WINDOW_MS of its first use (two tabs at once, a retry
//   after a lost answer) is given the first exchange's answer, with the same credentials (reviews 285, 417);
//   Only a token of a grant the provider holds reaches the user's object: any other, forged with any user id, made one,
//   with storage of its own, per request (review 416); one in no shape this server issues is refused first;
// - a refresh asking for a scope the grant lacks is refused (RFC 6749 §6), not narrowed: see scopesBeyondGrant;
// - revoking an access token ends its whole sign-in, as revoking the refresh token does (RFC 7009 §2.1 leaves that to
//   the server): the provider alone deletes that one token, and a client that signs out so left its refresh token
//   minting new ones for 30 days (review 154);
// - every grant the request names is forgotten by the token cache once the provider has answered.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Env } from "../env.js";
import { MALFORMED_REFRESH_TOKEN, oauthError, oauthJson, tokenRequest } from "./oauth-error.js";
import { openAnswer, sealAnswer } from "./refresh-answer.js";
import { sha256Hex } from "../../core/workspace/installer-manifests.js";
import { readCappedForm } from "../read-capped.js";
import { isUserId } from "./identity.js";
import { checkClientId } from "./public-host.js";
import { forgetGrant, grantOf, tokenTooLong } from "./token-cache.js";
import { REFRESH_REUSE_WINDOW_MS } from "../owner-do.js";

/** The grant lifetime the provider is given (refreshTokenTTL): a refresh token's claim never needs to outlive it. */
export const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;

/** A token request is a few short fields; a client assertion (a signed JWT) the longest of them. */
const MAX_BODY_BYTES = 64 * 1024;
const MAX_FIELDS = 32;
/** The fields that name a grant: an authorization code, a refresh token, a token to revoke. */
const TOKEN_FIELDS = ["code", "refresh_token", "token"];

export interface TokenEndpointDeps {
  env: Env;
  /** The provider's own revocation of a grant and all its tokens. */
  revokeGrant(userId: string, grantId: string): Promise<void>;
  /** The provider's token endpoint. */
  next(request: Request): Promise<Response>;
  /** The sign-in a live access token belongs to, or null (the provider's unwrapToken). */
  signInOf(accessToken: string): Promise<{ userId: string; grantId: string; clientId: string } | null>;
}

export async function tokenEndpoint(request: Request, deps: TokenEndpointDeps): Promise<Response> {
  if (request.method !== "POST") return deps.next(request);
  // Read once, capped (a clone read whole buffered any size, with no sign-in: review 19), and handed on as read.
  const body = await readCappedForm(request, MAX_BODY_BYTES);
  if (!body) return oauthError(request, 413, "invalid_request", `A token request is at most ${MAX_BODY_BYTES / 1024} KB; send only its fields.`);
  const forward = () => deps.next(new Request(request, { body: body.bytes }));
  const { form } = body;
  if (!form) return forward(); // the provider names what is wrong with the body
  // A token request has a handful of fields: counted in one pass (per name, form.getAll was quadratic: 13,000 keys
  // cost 1.2 s before any sign-in, review 21), and at most MAX_FIELDS reach the provider, whose own loop is too.
  // Each parameter once (RFC 6749 §3.2): the provider and this check must read the same value, and with two
  // (an empty first one) this would judge one and the provider use the other.
  const seen = new Set<string>();
  let fields = 0;
  for (const name of form.keys()) {
    if (++fields > MAX_FIELDS) return oauthError(request, 400, "invalid_request", `A token request has at most ${MAX_FIELDS} fields; send only the ones OAuth defines.`);
    if (seen.has(name)) return oauthError(request, 400, "invalid_request", `The parameter ${name.slice(0, 100)} is given more than once; give each once.`);
    seen.add(name);
  }
  const field = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" ? value : undefined;
  };

  for (const clientId of clientIds(request, field)) {
    const check = checkClientId(clientId);
    if (!check.ok) return oauthError(request, 401, "invalid_client", check.error);
  }

  for (const name of TOKEN_FIELDS) {
    const tooLong = tokenTooLong(field(name) ?? "", name);
    if (tooLong) return oauthError(request, 400, name === "token" ? "invalid_request" : "invalid_grant", tooLong);
  }

  // The provider's refusals are said with the values they are about (oauth-error.ts CLEARER_FOR).
  const asked = { clientId: oneClientId(clientIds(request, field)), resource: field("resource") };
  const next = () => tokenRequest.run(asked, forward);
  const grants = TOKEN_FIELDS.map((name) => grantOf(field(name) ?? "")).filter((g): g is string => !!g);
  const presented = field("grant_type") === "refresh_token" ? field("refresh_token") : undefined;
  if (presented && !issuedShape(presented)) return oauthError(request, 400, "invalid_grant", MALFORMED_REFRESH_TOKEN);
  const presentedGrant = presented ? grantOf(presented) : undefined;
  let response: Response;
  if (presented && presentedGrant) {
    const scopes = (field("scope") ?? "").split(" ").filter(Boolean);
    const credentials = [request.headers.get("authorization") ?? "", field("client_secret") ?? "", field("client_assertion") ?? ""];
    response = await refreshOnce(request, { token: presented, grant: presentedGrant, clientId: asked.clientId, credentials }, deps, () => askedScopes.run(scopes, next));
  } else {
    // A revocation (a token, no grant_type): read before the provider deletes it, whose sign-in the token is.
    const revoking = field("grant_type") === undefined ? field("token") : undefined;
    const signIn = revoking ? await deps.signInOf(revoking) : null;
    const named = revoking ? grantOf(revoking) : undefined;
    const wasHeld = named !== undefined && (await heldGrant(deps.env, named)) !== null;
    response = await next();
    // Only a sign-in of the client the provider authenticated: another's token is answered 200 and left alone.
    const ids = clientIds(request, field);
    if (signIn && response.status === 200 && ids.length && ids.every((id) => id === signIn.clientId)) await deps.revokeGrant(signIn.userId, signIn.grantId);
    // A sign-in this revocation ended (through either token) keeps no refresh claims. Only one: a token naming no
    // grant, forged with any user id, reaches no user's object.
    if (named && wasHeld && (await heldGrant(deps.env, named)) === null) {
      const [userId, grantId] = named.split(":") as [string, string];
      await dropRefreshClaims(deps.env, userId, grantId);
    }
  }
  for (const grant of grants) forgetGrant(grant);
  return response;
}

/** Whether `token` has the shape of a refresh token this server issues: `userId:grantId:secret`, a user id an upstream
 *  makes, the provider's 16-character grant id and 32-character secret. */
function issuedShape(token: string): boolean {
  const [userId = "", grantId = "", secret = "", ...rest] = token.split(":");
  return rest.length === 0 && isUserId(userId) && /^[A-Za-z0-9_-]{16}$/.test(grantId) && /^[A-Za-z0-9_-]{32}$/.test(secret);
}

/** The scopes the refresh being forwarded asks for. The provider's tokenExchangeCallback sees only the grant's scopes
 *  and their overlap with these, and would narrow a wider request silently. */
const askedScopes = new AsyncLocalStorage<string[]>();

/** Why the refresh under way may not have its token (it asks for scopes `granted` lacks), or undefined: called by the
 *  tokenExchangeCallback, which runs before the provider rotates the refresh token. */
export function scopesBeyondGrant(granted: readonly string[]): string | undefined {
  const extra = (askedScopes.getStore() ?? []).filter((scope) => !granted.includes(scope));
  if (!extra.length) return undefined;
  return `This sign-in was not granted ${extra.join(" ")}, and a refresh cannot add scopes: ask for at most ${granted.join(" ")}, or sign in again and approve ${extra.join(" ")}.`;
}

/** The Durable Object that claims a user's refresh tokens (owner-do.ts). */
const refreshClaims = (env: Env, userId: string) => env.OWNER_SESSIONS.get(env.OWNER_SESSIONS.idFromName(userId));

/** What the provider keeps of a grant (`userId:grantId`): the ids (SHA-256) of its current and previous refresh tokens. */
type HeldGrant = { refreshTokenId?: string; previousRefreshTokenId?: string };
const heldGrant = (env: Env, grant: string) => env.OAUTH_KV.get<HeldGrant>(`grant:${grant}`, "json");

/** Marks that a refresh token's reuse ended its sign-in (by the token's hash), kept for the token's life: a later use of
 *  it is told why from here, its grant gone and its user's object not reached. */
const reusedKey = (tokenHash: string) => `bmad:refresh-reused:${tokenHash}`;

/** A sign-in its user or client ended: its grant's refresh claims go too (a sign-in ended for a reused token keeps
 *  them until they expire: an exchange of the token still under way learns of the reuse from them). Claims that
 *  cannot be dropped now expire with the token's lifetime: the revocation stands either way. */
export async function dropRefreshClaims(env: Env, userId: string, grantId: string): Promise<void> {
  await refreshClaims(env, userId).dropRefreshClaims(grantId).catch(() => undefined);
}

/** When each of the user's sign-ins last refreshed (ms), by grant id; empty where the object cannot be reached (the
 *  connections page then shows the rest). */
export async function lastRefreshes(env: Env, userId: string): Promise<Map<string, number>> {
  const last = await refreshClaims(env, userId).lastRefreshes().catch(() => []);
  return new Map(last.map((r) => [r.grantId, r.at]));
}

/** How long a retry waits for the answer of its token's first exchange, still under way, and how often it looks. */
const FIRST_ANSWER_WAIT_MS = 5_000;
const FIRST_ANSWER_POLL_MS = 100;

/** A refresh as refreshOnce judges it: its token, the token's grant (`userId:grantId`), the client the request names
 *  ("" for none, or several that differ) and the credentials it is proved with. */
type Refresh = { token: string; grant: string; clientId: string; credentials: string[] };

/** Forwards a refresh only once its token is claimed, so exactly one exchange of a token goes ahead; any other use of
 *  it ends the sign-in, but the same client's within REFRESH_REUSE_WINDOW_MS of the first, which is given that
 *  exchange's answer. */
async function refreshOnce(request: Request, { token, grant, clientId, credentials }: Refresh, deps: TokenEndpointDeps, next: () => Promise<Response>): Promise<Response> {
  const [userId, grantId] = grant.split(":") as [string, string];
  // The provider's id of a refresh token is its SHA-256, kept on the grant for the current and the previous one.
  const tokenHash = await sha256Hex(token);
  const reused = () => oauthError(request, 400, "invalid_grant", "This refresh token was used twice (refreshed twice at once, or a copy of it is in other hands), so the sign-in it belongs to was ended. Sign in again.");
  const held = await heldGrant(deps.env, grant);
  // A grant the provider does not hold (ended, expired, never issued): the provider says so, and no object is reached.
  if (held === null) return (await deps.env.OAUTH_KV.get(reusedKey(tokenHash))) === null ? next() : reused();
  const claims = refreshClaims(deps.env, userId);
  const endForReuse = async () => {
    await deps.revokeGrant(userId, grantId);
    await deps.env.OAUTH_KV.put(reusedKey(tokenHash), "1", { expirationTtl: REFRESH_TOKEN_TTL_S }).catch(() => undefined);
    return reused();
  };
  const issued = held.refreshTokenId === tokenHash ? "current" : held.previousRefreshTokenId === tokenHash ? "previous" : undefined;
  const claimNow = () => claims.claimRefresh(tokenHash, grantId, clientId, Date.now() + REFRESH_TOKEN_TTL_S * 1000, issued);
  let claim: Awaited<ReturnType<typeof claimNow>>;
  try {
    claim = await claimNow();
    // Sent at once with its first exchange: that answer, due in a moment, is waited for (an exchange that fails
    // frees the token, and this one goes ahead instead).
    for (let waited = 0; typeof claim === "object" && claim.retried === "" && waited < FIRST_ANSWER_WAIT_MS; waited += FIRST_ANSWER_POLL_MS) {
      await new Promise((resolve) => setTimeout(resolve, FIRST_ANSWER_POLL_MS));
      claim = await claimNow();
    }
  } catch {
    return oauthError(request, 503, "temporarily_unavailable", "The server could not record this refresh token's use, so it did not exchange it: try again in a moment with the same refresh token.", { "retry-after": "5" });
  }
  // A token the provider never issued: it answers that itself.
  if (claim === "unknown") return next();
  if (claim === "reused") return endForReuse();
  if (typeof claim === "object") {
    if (claim.retried === "") {
      return oauthError(request, 503, "temporarily_unavailable", "This refresh token's first exchange, a moment ago, has not answered yet: send the same request again in a few seconds, and you are given that exchange's tokens.", { "retry-after": "2" });
    }
    const answer = await openAnswer(claim.retried, token, credentials);
    if (answer) return oauthJson(request, 200, answer);
    return oauthError(request, 400, "invalid_grant", `This refresh token was exchanged a moment ago (under ${REFRESH_REUSE_WINDOW_MS / 1000} s) by this client with other credentials than this request's, and only those are given that answer again: use the tokens it gave. The sign-in was not ended; if no answer reached the app, sign in again.`);
  }
  // An exchange that fails, or throws, frees the token to be tried again.
  const response = await next().catch(async (error: unknown) => {
    await claims.settleRefresh(tokenHash, false).catch(() => false);
    throw error;
  });
  // A use of the token while this exchange ran revoked the grant, perhaps before the provider saved this exchange's
  // tokens: revoked again here. A settle that cannot reach the object keeps the answer (the exchange is done).
  if (response.status !== 200) {
    await claims.settleRefresh(tokenHash, false).catch(() => false);
    return response;
  }
  const text = await response.text();
  const usedMeanwhile = await claims.settleRefresh(tokenHash, true, await sealAnswer(token, credentials, JSON.parse(text) as Record<string, unknown>)).catch(() => false);
  return usedMeanwhile ? endForReuse() : new Response(text, response);
}

/** The one client `ids` name, or "" where they name none or differ. */
const oneClientId = (ids: string[]): string => (ids.length > 0 && ids.every((id) => id === ids[0]) ? ids[0]! : "");

/** Every place the provider may read a client_id from: the form, HTTP Basic, or a client assertion's iss. */
function clientIds(request: Request, field: (name: string) => string | undefined): string[] {
  const ids: string[] = [];
  const fromForm = field("client_id");
  if (fromForm) ids.push(fromForm);
  const basic = /^Basic\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  if (basic) {
    try {
      const decoded = atob(basic);
      const colon = decoded.indexOf(":");
      const user = colon < 0 ? decoded : decoded.slice(0, colon);
      ids.push(decodeURIComponent(user.replace(/\+/g, " ")));
    } catch {
      // malformed: the provider refuses it
    }
  }
  const assertion = field("client_assertion")?.split(".")[1];
  if (assertion) {
    try {
      const claims: unknown = JSON.parse(atob(assertion.replace(/-/g, "+").replace(/_/g, "/")));
      const iss = (claims as { iss?: unknown } | null)?.iss;
      if (typeof iss === "string") ids.push(iss);
    } catch {
      // unreadable: the provider refuses it
    }
  }
  return ids;
}

