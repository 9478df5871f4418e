// `bmad-mcp --http`: the same MCP surface over Streamable HTTP on 127.0.0.1, for several local clients at once.
// Stateless, as the Worker is: each request is answered by a fresh server from the same factory (the SDK's
// createMcpHandler serves 2026-07-28 and 2025-era clients). In front of it, the loopback checks of
// core/loopback.ts: a foreign Host (DNS rebinding) or a foreign Origin (another site's page) gets 403, and so does
// another user's program on this machine (peer-user.ts, on Linux).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createMcpHandler, type McpHttpHandler, type McpServerFactory } from "@modelcontextprotocol/server";
import { loopbackRefusal } from "../core/loopback.js";
import { otherUsersClient } from "./peer-user.js";

/** As the Worker: room for a 2 MiB submission plus JSON escaping. */
const MAX_REQUEST_BYTES = 6 * 1024 * 1024;
/** What the MCP handler answers (others that it would not take are its 405s). */
const METHODS = new Set(["POST", "GET", "DELETE", "HEAD", "OPTIONS", "PUT", "PATCH"]);

/** Listens on 127.0.0.1:`port` (0: a free port); resolves to the endpoint's URL once it listens. */
export async function serveHttp(factory: McpServerFactory, port: number): Promise<{ url: string; close: () => void }> {
  const handler = createMcpHandler(factory, { maxRequestBodySize: MAX_REQUEST_BYTES });
  const server = createServer((req, res) => {
    answer(req, res, handler).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { error: "internal_error", error_description: error instanceof Error ? error.message : String(error) });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${address.port}/mcp`, close: () => server.close() };
}

async function answer(req: IncomingMessage, res: ServerResponse, handler: McpHttpHandler): Promise<void> {
  const refused = loopbackRefusal(req.headers.host, req.headers.origin) ?? (await otherUsersClient(req.socket));
  if (refused) return send(res, 403, { error: "forbidden", error_description: refused });
  // Turned away as the client's mistakes they are, not as the server's (review 121: TRACE and a malformed target were 500s).
  if (!METHODS.has(req.method ?? "")) return send(res, 405, { error: "method_not_allowed", error_description: `${String(req.method).slice(0, 20)} is not an MCP request: POST, GET or DELETE /mcp.` });
  const url = URL.parse(req.url ?? "/", `http://${req.headers.host}`);
  if (!url) return send(res, 400, { error: "bad_request", error_description: "The request's target is not a URL." });
  if (url.pathname !== "/mcp") return send(res, 404, { error: "not_found", error_description: "The MCP endpoint is /mcp." });
  const body = req.method === "GET" || req.method === "HEAD" || req.method === "DELETE" ? undefined : await readBody(req);
  if (body === null) return send(res, 413, { error: "too_large", error_description: `A request body may hold ${MAX_REQUEST_BYTES / 1024 / 1024} MiB at most.` });
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  // The client going away cancels its request (a tool call's signal, an SSE stream).
  const abort = new AbortController();
  res.once("close", () => abort.abort());
  const response = await handler.fetch(new Request(url, { method: req.method, headers, body, signal: abort.signal }));
  res.writeHead(response.status, [...response.headers].flat());
  if (!response.body) return void res.end();
  await pipeline(Readable.fromWeb(response.body as import("node:stream/web").ReadableStream), res).catch(() => undefined); // a client that left
}

/** The whole body, or null past the limit (what is over it is not read). */
async function readBody(req: IncomingMessage): Promise<Uint8Array | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", connection: "close" }).end(JSON.stringify(body));
}
