// OAuth error answers from the checks this Worker runs in front of the provider's endpoints, shaped like the
// provider's own (RFC 6749 §5.2 JSON, no-store, CORS for browser-based clients) so a client cannot tell them apart;
// and the provider's own answers for a token that no longer works, said with their cause and what to do.
import type { OAuthProviderOptions } from "@cloudflare/workers-oauth-provider";
import { SCOPES } from "./identity.js";

export function oauthError(request: Request, status: number, error: string, description: string, headers: Record<string, string> = {}): Response {
  const h = new Headers({ "cache-control": "no-store", pragma: "no-cache", ...headers });
  const origin = request.headers.get("origin");
  if (origin) {
    h.set("access-control-allow-origin", origin);
    h.set("access-control-expose-headers", "WWW-Authenticate, Retry-After");
    h.set("vary", "Origin");
  }
  return Response.json({ error, error_description: description }, { status, headers: h });
}

/** 401 invalid_token at /mcp, with the challenge that sends a client to sign in again (RFC 6750 §3, RFC 9728 §5.1),
 *  in the provider's form: the scopes to ask for included. */
export function invalidToken(request: Request, description: string): Response {
  const origin = new URL(request.url).origin;
  const challenge = `Bearer realm="OAuth", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", error="invalid_token", scope="${SCOPES.read} ${SCOPES.write}"`;
  return oauthError(request, 401, "invalid_token", description, { "www-authenticate": challenge });
}

/** The provider's bare words ("Grant not found", "Invalid refresh token", "Invalid access token") for the failures a
 *  person meets, by the provider's internal category/reason, which are stable where its wording is not. */
const CLEARER = new Map<string, string>([
  ["refresh-token-grant/grant_not_found", "This sign-in has ended (signed out, revoked, or expired): sign in again."],
  ["refresh-token-grant/refresh_token_expired", "This sign-in has expired: sign in again."],
  ["refresh-token-grant/refresh_token_mismatch", "This refresh token is not the sign-in's current one (a newer refresh token superseded it, or it was never issued): use the newest one you were given, or sign in again."],
  ["refresh-token-grant/refresh_token_malformed", "This refresh token is not in the form this server issues: use the one it gave you, or sign in again."],
  ["authorization-code-grant/grant_not_found", "This authorization code has expired or its sign-in has ended: sign in again."],
  ["protected-resource/token_not_found", "This access token has expired, or its sign-in has ended (signed out or revoked): get a new one with your refresh token, or sign in again if that fails."],
  ["protected-resource/token_expired", "This access token has expired: get a new one with your refresh token, or sign in again if that fails."],
]);

/** The provider's onError: a clearer description for the failures above, the error code, status and challenge kept;
 *  undefined (the provider's own answer) for the rest. Logs nothing: no token or secret in logs. */
export const explainProviderError: NonNullable<OAuthProviderOptions["onError"]> = ({ code, status, headers, internal }) => {
  const description = CLEARER.get(`${internal.category}/${internal.reason}`);
  return description ? Response.json({ error: code, error_description: description }, { status, headers }) : undefined;
};
