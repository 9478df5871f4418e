// Worker entry: hono for the plain pages, createMcpHandler for /mcp (stateless, fresh server per request).
import { createMcpHandler } from "agents/mcp/server";
import { Hono } from "hono";
import { buildServer } from "../core/surface/server.js";
import type { BundleReader } from "../core/surface/reader.js";
import { parseToolsets, type ToolsetName } from "../core/surface/toolsets.js";
import { BundleMissingError, currentBundle } from "./bundle-store.js";
import type { Env } from "./env.js";
import { isLoopbackRequest } from "./loopback.js";

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
  return mcpHandler(reader, selection.toolsets)(c.req.raw, c.env, c.executionCtx as ExecutionContext);
});

// One handler per bundle and toolset selection, built on first use: the handler is per-isolate work,
// the server it creates is per request.
type McpHandler = ReturnType<typeof createMcpHandler>;
const handlers = new Map<string, { reader: BundleReader; handler: McpHandler }>();

function mcpHandler(reader: BundleReader, toolsets: ToolsetName[]): McpHandler {
  const key = toolsets.join(",");
  const cached = handlers.get(key);
  if (cached?.reader === reader) return cached.handler;
  const handler = createMcpHandler(() => buildServer(reader, toolsets), { route: "/mcp" });
  handlers.set(key, { reader, handler });
  return handler;
}

function jsonRpcError(_request: Request, status: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code: status === 400 ? -32602 : -32000, message } }, { status });
}

export default app;
