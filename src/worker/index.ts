// Worker entry: hono for the plain pages, createMcpHandler for /mcp (stateless, fresh server per request).
import { createMcpHandler } from "agents/mcp/server";
import { Hono } from "hono";
import { buildServer } from "../core/surface/server.js";
import type { SurfaceDeps } from "../core/surface/deps.js";
import type { BundleReader } from "../core/surface/reader.js";
import { parseToolsets, type ToolsetName } from "../core/surface/toolsets.js";
import { BundleMissingError, currentBundle } from "./bundle-store.js";
import type { Env } from "./env.js";
import { isLoopbackRequest } from "./loopback.js";
import { DurableSessionStore } from "./session-store.js";

export { OwnerSessions } from "./owner-do.js";
export { WorkflowSession } from "./session-do.js";

/** Until sign-in exists, every loopback caller is this one owner. */
const LOCAL_OWNER = "local";
/** Room for a 2 MiB submission from each engine plus JSON escaping. */
const MAX_REQUEST_BYTES = 6 * 1024 * 1024;

const app = new Hono<{ Bindings: Env }>();

app.get("/", (c) =>
  c.text("BMAD MCP server. MCP endpoint: /mcp (Streamable HTTP). Toolsets: /mcp?toolsets=manifest,proxy,contracts,agents\n"),
);

// The no-op floor for benchmarks: same router, no work.
app.get("/healthz", (c) => c.text("ok"));

app.all("/mcp", async (c) => {
  // Until sign-in lands, /mcp serves loopback clients only.
  if (!isLoopbackRequest(c.req.raw)) return jsonRpcError(c.req.raw, 403, "This endpoint answers loopback clients only until sign-in is configured.");
  const selection = parseToolsets(c.req.query("toolsets") ?? c.env.BMAD_TOOLSETS);
  if (!selection.ok) return jsonRpcError(c.req.raw, 400, selection.error);
  let reader;
  try {
    reader = await currentBundle(c.env);
  } catch (error) {
    if (error instanceof BundleMissingError) return jsonRpcError(c.req.raw, 503, error.message);
    throw error;
  }
  const deps: SurfaceDeps = { reader, owner: LOCAL_OWNER, sessions: new DurableSessionStore(c.env) };
  return mcpHandler(deps, selection.toolsets)(c.req.raw, c.env, c.executionCtx as ExecutionContext);
});

// One handler per bundle and toolset selection, built on first use: the handler is per-isolate work,
// the server it creates is per request.
type McpHandler = ReturnType<typeof createMcpHandler>;
const handlers = new Map<string, { reader: BundleReader; handler: McpHandler }>();

function mcpHandler(deps: SurfaceDeps, toolsets: ToolsetName[]): McpHandler {
  const key = `${deps.owner}|${toolsets.join(",")}`;
  const cached = handlers.get(key);
  if (cached?.reader === deps.reader) return cached.handler;
  const handler = createMcpHandler(() => buildServer(deps, toolsets), { route: "/mcp", maxRequestBodySize: MAX_REQUEST_BYTES });
  handlers.set(key, { reader: deps.reader, handler });
  return handler;
}

function jsonRpcError(_request: Request, status: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code: status === 400 ? -32602 : -32000, message } }, { status });
}

export default app;
