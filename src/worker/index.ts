// Worker entry. In front of everything: the Host must be this server's (DNS rebinding). Then the OAuth
// provider: it serves discovery, registration and tokens, guards /mcp, and hands the rest to hono.
// Registration and the token endpoint pass through this Worker's own checks first (auth/registration.ts,
// auth/token-endpoint.ts); /mcp validations are cached briefly per isolate (auth/token-cache.ts).
import { getOAuthApi, OAuthError, OAuthProvider, type OAuthProviderOptions } from "@cloudflare/workers-oauth-provider";
import { Hono } from "hono";
import { authConfig, notAdmitted } from "./auth/config.js";
import { hasAuth, PropsSchema, SCOPES, SCOPES_SUPPORTED } from "./auth/identity.js";
import { authPages } from "./auth/pages.js";
import { connectionsPages } from "./auth/connections.js";
import type { Env } from "./env.js";
import { canonicalOrigin } from "./origin.js";
import { registration, REGISTRATION_TTL_DAYS } from "./auth/registration.js";
import { bearer, notAccessToken, recall, remember, validationStarts } from "./auth/token-cache.js";
import { explainProviderError, invalidToken } from "./auth/oauth-error.js";
import { REFRESH_TOKEN_TTL_S, scopesBeyondGrant, tokenEndpoint } from "./auth/token-endpoint.js";

/** The MCP surface (the SDK and every tool's schemas) loads on the first /mcp request, not at startup; kept once loaded,
 *  so no request awaits an import another request started (under vitest's module runner each import() is a round trip,
 *  and concurrent ones share one pending promise: a request went on in the other's I/O context and was cancelled as hung). */
let mcpModule: typeof import("./mcp.js") | undefined;
const mcp = async () => (mcpModule ??= await import("./mcp.js"));
const mcpApi = {
  fetch: async (request: Request, env: Env, ctx: ExecutionContext) => (await mcp()).mcpApi.fetch(request, env, ctx),
};

export { RegistrationLimit } from "./auth/registration-limit.js";
export { OwnerSessions } from "./owner-do.js";
export { WorkflowSession } from "./session-do.js";
export { WorkspaceProject } from "./workspace-do.js";
export { WorkspaceIndex } from "./workspace-index-do.js";

const app = new Hono<{ Bindings: Env }>();
app.get("/", (c) => c.text("BMAD MCP server. MCP endpoint: /mcp (Streamable HTTP, OAuth 2.1). Toolsets: /mcp?toolsets=...\n"));
// First: it answers the identity provider's /callback for its own sign-ins, and hands on the rest.
app.route("/", connectionsPages);
app.route("/", authPages);

const providers = new Map<string, OAuthProvider<Env>>();

function providerOptions(origin: string, accessTokenTTL: number): OAuthProviderOptions<Env> {
  return {
    apiRoute: "/mcp",
    apiHandler: mcpApi,
    defaultHandler: app,
    authorizeEndpoint: "/authorize",
    tokenEndpoint: "/oauth/token",
    clientRegistrationEndpoint: "/oauth/register",
    clientRegistrationTTL: REGISTRATION_TTL_DAYS * 24 * 3600,
    clientIdMetadataDocumentEnabled: true,
    // RFC 8252's app schemes (Cursor's cursor://): PKCE binds the code to the app that asked, as on loopback.
    allowPrivateUseRedirectUris: true,
    scopesSupported: SCOPES_SUPPORTED,
    // Named in the 401's challenge and the resource metadata, which clients ask for as they are (MCP's scope
    // selection): with bmad:read alone, an SDK client never got a token that writes (review 203). The consent page
    // offers each, to untick.
    requiredScopes: [SCOPES.read, SCOPES.write],
    accessTokenTTL,
    refreshTokenTTL: REFRESH_TOKEN_TTL_S,
    tokenExchangeCallback: ({ grantType, props, scope, env }) => {
      // Every token issued is for someone the access rules admit now: a refresh for someone no longer allowed
      // fails, and invalid_grant makes the provider revoke the whole grant.
      const config = authConfig(env, new URL(origin).hostname);
      if (!config.ok) throw new OAuthError("temporarily_unavailable", { description: config.error, statusCode: 503 });
      const signedIn = PropsSchema.safeParse(props);
      const refusal = signedIn.success ? notAdmitted(config.config, signedIn.data) : "This sign-in carries no valid identity: sign in again.";
      if (refusal || !signedIn.success) throw new OAuthError("invalid_grant", { description: `${refusal} The sign-in is revoked.` });
      // Thrown before the provider rotates the refresh token, so the client keeps the one it sent.
      const beyond = grantType === "refresh_token" ? scopesBeyondGrant(scope) : undefined;
      if (beyond) throw new OAuthError("invalid_scope", { description: beyond });
      // A sign-in whose person unticked "stay signed in" (offline_access) gets no refresh token.
      return grantType === "authorization_code" && signedIn.data.noRefresh ? { refreshTokenTTL: 0 } : undefined;
    },
    resourceMetadata: { resource: `${origin}/mcp`, authorization_servers: [origin], resource_name: "BMAD MCP server" },
    onError: explainProviderError(origin),
  };
}

/** One provider per canonical origin and token lifetime (loopback dev servers differ by port). */
function providerFor(origin: string, accessTokenTTL: number): OAuthProvider<Env> {
  const key = `${origin}|${accessTokenTTL}`;
  let provider = providers.get(key);
  if (!provider) providers.set(key, (provider = new OAuthProvider<Env>(providerOptions(origin, accessTokenTTL))));
  return provider;
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    // The no-op floor for benchmarks: no provider, no storage.
    if (url.pathname === "/healthz") return new Response("ok");
    const origin = canonicalOrigin(env, url);
    if (!origin) return Response.json({ error: "unknown_host", error_description: `This server does not answer for ${url.host}; set PUBLIC_URL to its public origin.` }, { status: 403 });
    if (url.pathname.startsWith("/mcp/")) return (await mcp()).noEndpointAt(url);
    // A token this isolate validated lately needs no provider: most /mcp calls end here.
    const known = url.pathname === "/mcp" ? recall(request, `${origin}/mcp`) : undefined;
    if (known) return (await mcp()).serveMcp(request, env, ctx, known.auth, known.props);
    const config = authConfig(env, url.hostname);
    const accessTokenTTL = config.ok ? config.config.accessTokenTTL : 3600;
    const provider = providerFor(origin, accessTokenTTL);
    const next = (r: Request) => provider.fetch(r, env, ctx);
    switch (url.pathname) {
      case "/mcp": {
        // The provider makes a KV key of the token's parts (review 95: a 600-character one answered 500).
        const token = bearer(request);
        const refusal = token === undefined ? undefined : notAccessToken(token);
        if (refusal) return invalidToken(request, refusal);
        const startedAt = validationStarts();
        const response = await next(request);
        // The provider puts what it validated on ctx before calling mcpApi.
        if (hasAuth(ctx)) remember(ctx.auth, ctx.props, startedAt);
        return response;
      }
      case "/oauth/token":
        return tokenEndpoint(request, {
          env, next,
          revokeGrant: (userId, grantId) => getOAuthApi(providerOptions(origin, accessTokenTTL), env).revokeGrant(grantId, userId),
          signInOf: async (token) => {
            const found = await getOAuthApi(providerOptions(origin, accessTokenTTL), env).unwrapToken(token).catch(() => null);
            return found ? { userId: found.userId, grantId: found.grantId, clientId: found.grant.clientId } : null;
          },
        });
      case "/oauth/register":
        return registration(request, env, url.hostname, next);
      default:
        return next(request);
    }
  },
} satisfies ExportedHandler<Env>;
