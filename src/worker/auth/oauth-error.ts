// OAuth error answers from the checks this Worker runs in front of the provider's endpoints, shaped like the
// provider's own (RFC 6749 §5.2 JSON, no-store, CORS for browser-based clients) so a client cannot tell them apart;
// and the provider's own answers for a token that no longer works, said with their cause and what to do.
import { AsyncLocalStorage } from "node:async_hooks";
import type { OAuthProviderOptions } from "@cloudflare/workers-oauth-provider";
import * as z from "zod";
import { asOneLine, cutAt } from "../../core/lines.js";
import { SCOPES } from "./identity.js";

export function oauthError(request: Request, status: number, error: string, description: string, headers: Record<string, string> = {}): Response {
  return oauthJson(request, status, { error, error_description: description }, headers);
}

/** A token endpoint's JSON answer: no-store, and CORS for browser-based clients. */
export function oauthJson(request: Request, status: number, body: unknown, headers: Record<string, string> = {}): Response {
  const h = new Headers({ "cache-control": "no-store", pragma: "no-cache", ...headers });
  const origin = request.headers.get("origin");
  if (origin) {
    h.set("access-control-allow-origin", origin);
    h.set("access-control-expose-headers", "WWW-Authenticate, Retry-After");
    h.set("vary", "Origin");
  }
  return Response.json(body, { status, headers: h });
}

/** 401 invalid_token at /mcp, with the challenge that sends a client to sign in again (RFC 6750 §3, RFC 9728 §5.1),
 *  in the provider's form: the scopes to ask for included. */
export function invalidToken(request: Request, description: string): Response {
  const origin = new URL(request.url).origin;
  const challenge = `Bearer realm="OAuth", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", error="invalid_token", scope="${SCOPES.read} ${SCOPES.write}"`;
  return oauthError(request, 401, "invalid_token", description, { "www-authenticate": challenge });
}

/** A refresh token in no shape this server issues: said the same whether this Worker or the provider finds it. */
export const MALFORMED_REFRESH_TOKEN = "This refresh token is not in the form this server issues: use the one it gave you, or sign in again.";

/** The provider's bare words ("Grant not found", "Invalid refresh token", "Invalid access token") for the failures a
 *  person meets, by the provider's internal category/reason, which are stable where its wording is not. */
const CLEARER = new Map<string, string>([
  ["refresh-token-grant/grant_not_found", "This sign-in has ended (signed out, revoked, or expired): sign in again."],
  ["refresh-token-grant/refresh_token_expired", "This sign-in has expired: sign in again."],
  ["refresh-token-grant/refresh_token_mismatch", "This refresh token is not the sign-in's current one (a newer refresh token superseded it, or it was never issued): use the newest one you were given, or sign in again."],
  ["refresh-token-grant/refresh_token_malformed", MALFORMED_REFRESH_TOKEN],
  // Review 417: the provider revokes the sign-in the code began, and said only "Authorization code already used".
  ["authorization-code-grant/code_replayed", "This authorization code was already exchanged, and a code works once: a second use means a copy may be in other hands, so the sign-in it began was ended. Sign in again."],
  ["authorization-code-grant/grant_not_found", "This authorization code has expired or its sign-in has ended: sign in again."],
  ["protected-resource/token_not_found", "This access token has expired, or its sign-in has ended (signed out or revoked), or it is a refresh token (send the access token instead): get a new one with your refresh token, or sign in again if that fails."],
  ["protected-resource/token_expired", "This access token has expired: get a new one with your refresh token, or sign in again if that fails."],
  // Review 401: a token for http://127.0.0.1:PORT/mcp sent to http://localhost:PORT/mcp was told only that it was unbound.
  ["protected-resource/token_audience_unbound", "This access token was issued for another address of this server (another host name, port or path): sign in again at the address you use here, ending in /mcp."],
]);

/** The provider's words for a resource that is not this server's /mcp, at /authorize and the token endpoint alike. */
export const RESOURCE_NOT_CONFIGURED = "The resource parameter must name exactly one configured protected resource";

/** Why `resource` is refused, naming the one this server protects (review 417: the provider named neither). */
export const wrongResource = (resource: string, origin: string) =>
  `The resource parameter, ${resource ? shown(resource, 200) : "(empty)"}, is not this server's MCP endpoint: send resource=${origin}/mcp, exactly (the address you use for this server, ending in /mcp), or leave it out.`;

/** What the token request under way names (token-endpoint.ts), for refusals the provider makes without its values. */
export const tokenRequest = new AsyncLocalStorage<{ clientId: string; resource: string | undefined }>();

/** The provider's refusals said with the request's values, which it does not give onError, by category/reason. */
const CLEARER_FOR = new Map<string, (origin: string, asked: { clientId: string; resource: string | undefined }) => string>([
  ["resource-indicator/resource_not_configured", (origin, asked) => wrongResource(asked.resource ?? "", origin)],
  // Review 417: "Client not found", which /authorize says with the cause and the fix.
  ["client-authentication/client_not_found", (_, asked) => `This app's client_id${asked.clientId ? `, ${shown(asked.clientId, 100)},` : ""} is not registered on this server: it never registered here, or its registration has lapsed (unused too long). Remove this server from the app and add it again, so that the app registers anew, then sign in.`],
]);

/** How long a client is asked to wait when an app's client metadata document could not be read. */
export const METADATA_RETRY_SECONDS = 60;

/** `text` on one line, at most `max` characters: a value from outside, shown inside a sentence. */
export const shown = (text: string, max: number) => {
  const line = asOneLine(text).trim();
  return line.length > max ? `${cutAt(line, max)}…` : line;
};

/** Why an app whose client_id is its metadata document's URL (CIMD) cannot be checked now, naming the URL and the
 *  failure the provider met (an HTTP status, a network error, a timeout or an invalid document). */
export function metadataUnreadable(metadataUrl: string, failure: string): string {
  return `This app's client metadata document ${shown(metadataUrl, 300)} could not be read (${shown(failure, 200)}). Its host may be down for a moment: try again in a minute. If this goes on, the app's makers must fix the document.`;
}

/** What the provider tells onError of a metadata document it could not resolve. */
const MetadataFailure = z.object({ metadataUrl: z.string(), message: z.string() });

/** The provider's onError for the server at `origin`: a clearer description for the failures above, the error code,
 *  status and challenge kept; undefined (the provider's own answer) for the rest. Logs nothing: no token or secret in
 *  logs. */
export const explainProviderError = (origin: string): NonNullable<OAuthProviderOptions["onError"]> => ({ code, status, headers, internal }) => {
  // The provider says "Client not found" (401 invalid_client, which makes most clients drop the sign-in) when the app
  // exists but its metadata host failed: a short outage of claude.ai's would disconnect every connector (review 285).
  if (internal.category === "client-id-metadata-document") {
    const failure = MetadataFailure.safeParse(internal.detail);
    const why = failure.success ? metadataUnreadable(failure.data.metadataUrl, failure.data.message) : "This app's client metadata document could not be read: try again in a minute.";
    const h = new Headers(headers);
    h.delete("www-authenticate");
    h.set("retry-after", String(METADATA_RETRY_SECONDS));
    return Response.json({ error: "temporarily_unavailable", error_description: `${why} Nothing was used up: send the same request again.` }, { status: 503, headers: h });
  }
  const key = `${internal.category}/${internal.reason}`;
  const description = CLEARER.get(key) ?? CLEARER_FOR.get(key)?.(origin, tokenRequest.getStore() ?? { clientId: "", resource: undefined });
  return description ? Response.json({ error: code, error_description: description }, { status, headers }) : undefined;
};
