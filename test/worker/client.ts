// A real SDK Client over Streamable HTTP, whose fetch goes to the Worker under test in workerd.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { exports } from "cloudflare:workers";

export const ORIGIN = "http://127.0.0.1:8787";

/** Calls the Worker's default export; sets Host the way a real client connection would. */
export function workerFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const headers = new Headers(request.headers);
  if (!headers.has("host")) headers.set("host", new URL(request.url).host);
  return exports.default.fetch(new Request(request, { headers }));
}

export async function connect(query = ""): Promise<Client> {
  const client = new Client({ name: "bmad-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp${query}`), { fetch: workerFetch }));
  return client;
}

/** The text of a tool result's content blocks. */
export function text(result: unknown): string {
  return ((result as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? "").join("\n");
}
