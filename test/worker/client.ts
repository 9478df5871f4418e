// A real SDK Client over Streamable HTTP, whose fetch goes to the Worker under test in workerd,
// signed in through the real OAuth flow (local consent page: the test host is loopback).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { exports } from "cloudflare:workers";
import { signIn, withBearer } from "../../scripts/oauth-client.js";

export const ORIGIN = "http://127.0.0.1:8787";

/** Calls the Worker's default export; sets Host the way a real client connection would. */
export function workerFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const headers = new Headers(request.headers);
  if (!headers.has("host")) headers.set("host", new URL(request.url).host);
  return exports.default.fetch(new Request(request, { headers, redirect: "manual" }));
}

const tokens = new Map<string, Promise<string>>();

/** An access token for the local user with the given scopes (one sign-in per scope set per test file). */
export function token(scope = "bmad:read bmad:write"): Promise<string> {
  let found = tokens.get(scope);
  if (!found) tokens.set(scope, (found = signIn(workerFetch, ORIGIN, { scope, approveScopes: scope.split(" ") }).then((t) => t.access_token)));
  return found;
}

export async function authedFetch(scope?: string): Promise<typeof workerFetch> {
  return withBearer(workerFetch, await token(scope));
}

export async function connect(query = "", scope?: string): Promise<Client> {
  const client = new Client({ name: "bmad-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp${query}`), { fetch: await authedFetch(scope) }));
  return client;
}

/** The text of a tool result's content blocks. */
export function text(result: unknown): string {
  return ((result as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? "").join("\n");
}
