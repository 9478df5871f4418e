// BMAD_TOOLSETS chooses the deployment's default toolsets; ?toolsets= still wins per connection.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { LocalWorker } from "../../scripts/local-worker.js";
import { localWorker } from "./helpers";
import { signIn } from "../../scripts/oauth-client.js";

let worker: LocalWorker;
let token: string;
beforeAll(async () => {
  worker = await localWorker({ bindings: { BMAD_TOOLSETS: "manifest,agents" } });
  token = (await signIn(fetch, worker.url.origin)).access_token;
}, 120_000);
afterAll(() => worker?.dispose());

async function toolNames(query = ""): Promise<string[]> {
  const res = await fetch(new URL(`/mcp${query}`, worker.url), {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25", authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  const body = (await res.text()).replace(/^event: message\ndata: /, "");
  return (JSON.parse(body) as { result: { tools: Array<{ name: string }> } }).result.tools.map((t) => t.name);
}

it("serves the toolsets BMAD_TOOLSETS names", async () => {
  const names = await toolNames();
  expect(names[0]).toBe("bmad");
  expect(names).toContain("bmad-architect");
  expect(names).not.toContain("list_workflows");
});

it("lets ?toolsets= override it per connection", async () => {
  expect(await toolNames("?toolsets=contracts")).toEqual(["bmad-workflow", "bmad-resources"]);
});
