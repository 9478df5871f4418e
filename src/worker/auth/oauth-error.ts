// OAuth error answers from the checks this Worker runs in front of the provider's endpoints, shaped like the
// provider's own (RFC 6749 §5.2 JSON, no-store, CORS for browser-based clients) so a client cannot tell them apart.

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

/** 401 invalid_token at /mcp, with the challenge that sends a client to sign in again (RFC 6750 §3, RFC 9728 §5.1). */
export function invalidToken(request: Request, description: string): Response {
  const origin = new URL(request.url).origin;
  return oauthError(request, 401, "invalid_token", description, { "www-authenticate": `Bearer realm="OAuth", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", error="invalid_token"` });
}
