// The README's `npm run dev`: bundle, upload to local KV/R2, wrangler dev; then a real SDK client over HTTP.
import { spawn, type ChildProcess } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, expect, it } from "vitest";

const PORT = 18787;
let dev: ChildProcess | undefined;
let log = "";

afterAll(() => {
  if (dev?.pid) process.kill(-dev.pid, "SIGTERM");
});

async function waitForReady(url: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (dev?.exitCode !== null && dev?.exitCode !== undefined) throw new Error(`npm run dev exited ${dev.exitCode}:\n${log.slice(-2000)}`);
    const ok = await fetch(url).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`npm run dev did not answer in ${ms} ms:\n${log.slice(-2000)}`);
}

it("npm run dev serves the bundled BMAD content at /mcp", async () => {
  dev = spawn("npm", ["run", "dev"], { env: { ...process.env, BMAD_DEV_PORT: String(PORT) }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  dev.stdout!.on("data", (d) => (log += d));
  dev.stderr!.on("data", (d) => (log += d));
  await waitForReady(`http://127.0.0.1:${PORT}/healthz`, 90_000);
  const client = new Client({ name: "dev-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${PORT}/mcp`)));
  const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
  expect(prompts).toContain("bmad-analyst");
  const read = await client.readResource({ uri: "bmad://bmm/bmad-agent-analyst/SKILL.md" });
  expect((read.contents[0] as { text: string }).text).toContain("name: bmad-agent-analyst");
  await client.close();
}, 120_000);
