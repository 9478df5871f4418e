// /mcp behind the OAuth provider: the signed-in user owns sessions; everything needs bmad:read, writing tools
// bmad:write too. A token without them gets 403 insufficient_scope, naming the scopes to ask for (step-up).
import { insufficientScope, type OAuthResourceAuth } from "@cloudflare/workers-oauth-provider";
import { createMcpHandler } from "agents/mcp/server";
import type { SurfaceDeps } from "../core/surface/deps.js";
import type { Result } from "../core/result.js";
import type { BundleReader } from "../core/surface/reader.js";
import { buildServer } from "../core/surface/server.js";
import { STATIC_TOOLS } from "../core/surface/surface.js";
import { parseToolsets, type ToolsetName } from "../core/surface/toolsets.js";
import { authConfig, notAdmitted, ownerNoLongerAllowed } from "./auth/config.js";
import { hasAuth, PropsSchema, SCOPES } from "./auth/identity.js";
import { invalidToken } from "./auth/oauth-error.js";
import { BundleMissingError, currentBundle } from "./bundle-store.js";
import { readCapped } from "./read-capped.js";
import type { Env } from "./env.js";
import { canonicalOrigin } from "./origin.js";
import { DurableSessionStore } from "./session-store.js";
import { workspaceRuntimes } from "../core/workspace/project-runtime.js";
import { workspaceMemory } from "../core/memory/access.js";
import { DurableWorkspaceStore, workspaceCaller } from "./workspace-store.js";
import { bodyRefusal, codeOfStatus, errorAnswer } from "../core/request-checks.js";

/** Room for a 2 MiB submission from each engine plus JSON escaping. */
const MAX_REQUEST_BYTES = 6 * 1024 * 1024;
/** Read-only comes from the tools' own annotations: no second list; tools that read or write by action say which (`writes`). */
const WRITING_TOOLS = new Map(STATIC_TOOLS.filter((t) => !t.annotations.readOnlyHint).map((t) => [t.name, t]));

export const mcpApi = {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    if (!hasAuth(ctx)) return jsonRpcError(401, "This request carries no validated token; sign in again.");
    return serveMcp(request, env, ctx, ctx.auth, ctx.props);
  },
};

/** A path under /mcp, which the provider would take for the endpoint: only /mcp itself is (review 401: /mcp/ was a bare
 *  404 after sign-in; review 408: a long token there reached the provider's KV key and answered 500). */
export function noEndpointAt(url: URL): Response {
  return jsonRpcError(404, `No MCP endpoint at ${url.pathname.slice(0, 100)}: this server's is ${url.origin}/mcp.`);
}

/** /mcp for a validated token: `auth` and `props` as the provider (or the token cache) has them. */
export async function serveMcp(request: Request, env: Env, ctx: ExecutionContext, auth: OAuthResourceAuth, tokenProps: unknown): Promise<Response> {
  const props = propsOf(tokenProps);
  if (!props.success) return jsonRpcError(401, "This token carries no valid identity; sign in again.");
  // The access rules as configured now, on what the grant recorded at sign-in: after the token cache, so a cached
  // token is judged too (authConfig parses env once per isolate).
  const config = authConfig(env, new URL(request.url).hostname);
  if (!config.ok) return jsonRpcError(503, config.error);
  const refusal = notAdmitted(config.config, props.data);
  if (refusal) return invalidToken(request, refusal);
  if (!auth.scope.includes(SCOPES.read)) {
    return insufficientScope(auth, auth.scope.includes(SCOPES.write) ? [SCOPES.read, SCOPES.write] : [SCOPES.read], "This token does not carry bmad:read; sign in again and allow bmad:read.");
  }
  // The body is read here, once, capped (a read-only token's scope check read any size whole: review 15), and handed
  // to the SDK parsed, so that both protocol eras take the same limit (agents' legacy lane kept the SDK's 4 MiB).
  const body = await readBody(request);
  if (!body.ok) return jsonRpcError(body.status, body.error, { headers: body.headers, code: body.code });
  if (!auth.scope.includes(SCOPES.write) && callsWritingTool(body.parsed)) {
    // Said in words too (review 117: a bare 403 to a client that asked for the minimal scope and never stepped up).
    return insufficientScope(auth, [SCOPES.read, SCOPES.write], "This token carries bmad:read only: a tool that changes files, projects or sessions needs bmad:write. Sign in again and allow bmad:write.");
  }
  // Refused past the body: the answer carries the request's id (review 186: null where the body named one).
  const id = requestId(body.parsed);
  const selection = parseToolsets(new URL(request.url).searchParams.get("toolsets") ?? env.BMAD_TOOLSETS);
  if (!selection.ok) return jsonRpcError(400, selection.error, { id });
  let reader: BundleReader;
  try {
    reader = await currentBundle(env);
  } catch (error) {
    if (error instanceof BundleMissingError) return jsonRpcError(503, error.message, { id });
    throw error;
  }
  const rules = config.config;
  const readOnly = !auth.scope.includes(SCOPES.write);
  const workspaces = new DurableWorkspaceStore(env, workspaceCaller(props.data, readOnly), (owner) => ownerNoLongerAllowed(rules, owner));
  // Where the bridge pulls a workspace from, which renders name (review 265: the model does not know its connector's
  // URL). The Worker's entry answers only this server's own origin, checked again here as it was there.
  const origin = canonicalOrigin(env, new URL(request.url));
  // A workspace is {project-root} for skills: bmad-run and rendering work on it by name.
  const deps: SurfaceDeps = {
    reader, owner: props.data.userId, readOnly, sessions: new DurableSessionStore(env), workspaces, runtime: workspaceRuntimes(workspaces, () => reader, props.data.userId, origin && `${origin}/mcp`), memory: workspaceMemory(workspaces),
  };
  const handler = mcpHandler(selection.toolsets);
  if (body.bytes === undefined) {
    requestDeps.set(request, deps);
    return handler(request, env, ctx);
  }
  const forwarded = new Request(request.url, { method: request.method, headers: request.headers, body: body.bytes, signal: request.signal });
  requestDeps.set(forwarded, deps);
  return handler.fetch(forwarded, body.parsed === undefined ? undefined : { parsedBody: body.parsed });
}

// A cached token hands the same props object to every request it makes: parsed once (the parse is ~2% of a write).
const parsedProps = new WeakMap<object, ReturnType<typeof PropsSchema.safeParse>>();
function propsOf(tokenProps: unknown): ReturnType<typeof PropsSchema.safeParse> {
  if (typeof tokenProps !== "object" || tokenProps === null) return PropsSchema.safeParse(tokenProps);
  let parsed = parsedProps.get(tokenProps);
  if (!parsed) parsedProps.set(tokenProps, (parsed = PropsSchema.safeParse(tokenProps)));
  return parsed;
}

type Body = Result<{ bytes?: Uint8Array; parsed?: unknown }, { status: number; code?: number; headers?: HeadersInit }>;

/** A POST's bytes, read up to MAX_REQUEST_BYTES (past it: refused, the rest unread), and their JSON where they are
 *  JSON (else the SDK answers the parse error). Other methods carry none. */
async function readBody(request: Request): Promise<Body> {
  if (request.method !== "POST" || !request.body) return { ok: true };
  // A compressed body is refused unread: inflating it would undo the cap (and the SDK called its bytes bad JSON).
  const encoding = request.headers.get("content-encoding")?.trim().toLowerCase();
  if (encoding && encoding !== "identity") {
    return { ok: false, status: 415, headers: { "accept-encoding": "identity" }, error: `This server reads request bodies uncompressed, not as Content-Encoding ${encoding.slice(0, 50)}: send the body without compressing it.` };
  }
  const bytes = await readCapped(request, MAX_REQUEST_BYTES);
  if (!bytes) return { ok: false, status: 413, error: `This request is over ${MAX_REQUEST_BYTES / 1024 / 1024} MiB, the most one MCP request may be: send less at once (a file holds at most 1 MiB).` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return { ok: true, bytes };
  }
  const refused = bodyRefusal(parsed);
  if (refused) return { ok: false, status: refused.status, code: refused.code, error: refused.message };
  return { ok: true, bytes, parsed };
}

/** Whether a JSON-RPC POST's body (single or batch) calls a tool that changes state. */
function callsWritingTool(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => {
    const msg = m as { method?: unknown; params?: { name?: unknown; arguments?: unknown } } | null;
    const tool = msg?.method === "tools/call" && typeof msg.params?.name === "string" ? WRITING_TOOLS.get(msg.params.name) : undefined;
    return tool !== undefined && (tool.writes ? tool.writes(msg!.params!.arguments) : true);
  });
}

// One handler per toolset selection, built on first use: the handler is per-isolate work, the server it creates is per
// request, from that request's own deps. A handler that kept the deps of the request that built it served every later
// request of that user with them: their props, and their store's in-flight project listing, awaited across requests.
type McpHandler = ReturnType<typeof createMcpHandler>;
const handlers = new Map<string, McpHandler>();
/** A selection is the caller's to write (its order too): kept to a few hundred. */
const MAX_HANDLERS = 256;
const requestDeps = new WeakMap<Request, SurfaceDeps>();

function mcpHandler(toolsets: ToolsetName[]): McpHandler {
  const key = toolsets.join(",");
  let handler = handlers.get(key);
  if (!handler) {
    if (handlers.size >= MAX_HANDLERS) handlers.clear();
    handler = createMcpHandler(({ requestInfo }) => {
      const deps = requestInfo && requestDeps.get(requestInfo);
      if (!deps) throw new Error("No deps for this request: serveMcp hands each request's to its handler.");
      return buildServer(deps, toolsets);
    }, { route: "/mcp", maxRequestBodySize: MAX_REQUEST_BYTES });
    handlers.set(key, handler);
  }
  return handler;
}

/** The id of the one request a body holds; null for a batch, a notification or a body that is not JSON (JSON-RPC's rule). */
function requestId(body: unknown): string | number | null {
  const id = body && typeof body === "object" && !Array.isArray(body) ? (body as { id?: unknown }).id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

function jsonRpcError(status: number, message: string, { headers, id = null, code = codeOfStatus(status) }: { headers?: HeadersInit; id?: string | number | null; code?: number } = {}): Response {
  return Response.json(errorAnswer(id, code, message), { status, headers });
}
