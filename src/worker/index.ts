// Worker entry. In front of everything: the Host must be this server's (DNS rebinding). Then the OAuth
// provider: it serves discovery, registration and tokens, guards /mcp, and hands the rest to hono.
import { OAuthProvider } from "@cloudflare/workers-oauth-provider";
import { Hono } from "hono";
import { authConfig } from "./auth/config.js";
import { SCOPES, SCOPES_SUPPORTED } from "./auth/identity.js";
import { authPages } from "./auth/pages.js";
import type { Env } from "./env.js";
import { isLoopbackHost } from "../core/loopback.js";
import { forgetRevoked, recall } from "./auth/token-cache.js";
import { mcpApi } from "./mcp.js";

export { OwnerSessions } from "./owner-do.js";
export { WorkflowSession } from "./session-do.js";
export { WorkspaceProject } from "./workspace-do.js";
export { WorkspaceIndex } from "./workspace-index-do.js";

const app = new Hono<{ Bindings: Env }>();
app.get("/", (c) => c.text("BMAD MCP server. MCP endpoint: /mcp (Streamable HTTP, OAuth 2.1). Toolsets: /mcp?toolsets=...\n"));
app.route("/", authPages);

const providers = new Map<string, OAuthProvider<Env>>();

/** One provider per canonical origin and token lifetime (loopback dev servers differ by port). */
function providerFor(origin: string, accessTokenTTL: number): OAuthProvider<Env> {
  const key = `${origin}|${accessTokenTTL}`;
  let provider = providers.get(key);
  if (!provider) {
    provider = new OAuthProvider<Env>({
      apiRoute: "/mcp",
      apiHandler: mcpApi,
      defaultHandler: app,
      authorizeEndpoint: "/authorize",
      tokenEndpoint: "/oauth/token",
      clientRegistrationEndpoint: "/oauth/register",
      clientIdMetadataDocumentEnabled: true,
      scopesSupported: SCOPES_SUPPORTED,
      requiredScopes: [SCOPES.read],
      accessTokenTTL,
      resourceMetadata: { resource: `${origin}/mcp`, authorization_servers: [origin], resource_name: "BMAD MCP server" },
      onError: () => undefined, // no token or secret in logs
    });
    providers.set(key, provider);
  }
  return provider;
}

/** This server's origin for the request: the loopback origin it was reached at, or PUBLIC_URL. */
function canonicalOrigin(env: Env, url: URL): string | undefined {
  if (isLoopbackHost(url.hostname)) return url.origin;
  if (env.PUBLIC_URL && new URL(env.PUBLIC_URL).origin === url.origin) return url.origin;
  return undefined;
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    // The no-op floor for benchmarks: no provider, no storage.
    if (url.pathname === "/healthz") return new Response("ok");
    const origin = canonicalOrigin(env, url);
    if (!origin) return Response.json({ error: "unknown_host", error_description: `This server does not answer for ${url.host}; set PUBLIC_URL to its public origin.` }, { status: 403 });
    if (url.pathname === "/mcp") {
      const known = await recall(request, `${origin}/mcp`);
      if (known) return mcpApi.fetch(request, env, { waitUntil: (p: Promise<unknown>) => ctx.waitUntil(p), passThroughOnException: () => ctx.passThroughOnException(), props: known.props, auth: known.auth } as unknown as ExecutionContext);
    }
    if (url.pathname === "/oauth/token") await forgetRevoked(request);
    const config = authConfig(env, url.hostname);
    return providerFor(origin, config.ok ? config.config.accessTokenTTL : 3600).fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
