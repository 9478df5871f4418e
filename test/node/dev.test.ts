// The README's `npm run dev` (bundle, upload to local KV/R2, wrangler dev), driven by a real SDK client;
// then wrangler dev stopped mid-session and started again (`npm run dev:serve`) continues the session
// (and the sign-in, both kept in wrangler's local state).
import { spawn, type ChildProcess } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, expect, it } from "vitest";
import { signIn, withBearer } from "../../scripts/oauth-client.js";

const PORT = 18787;
const BASE = `http://127.0.0.1:${PORT}`;
let dev: ChildProcess | undefined;
let log = "";

function startDev(script: "dev" | "dev:serve"): void {
  log = "";
  dev = spawn("npm", ["run", script], { env: { ...process.env, BMAD_DEV_PORT: String(PORT) }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  dev.stdout!.on("data", (d) => (log += d));
  dev.stderr!.on("data", (d) => (log += d));
}

async function stopDev(): Promise<void> {
  const child = dev;
  if (!child?.pid || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  process.kill(-child.pid, "SIGTERM");
  await exited;
  // The port is free once nothing answers on it.
  while (await fetch(`${BASE}/healthz`).then(() => true, () => false)) await new Promise((r) => setTimeout(r, 100));
}

afterAll(stopDev);

async function waitForReady(ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (dev?.exitCode !== null && dev?.exitCode !== undefined) throw new Error(`npm run dev exited ${dev.exitCode}:\n${log.slice(-2000)}`);
    if (await fetch(`${BASE}/healthz`).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`npm run dev did not answer in ${ms} ms:\n${log.slice(-2000)}`);
}

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: "dev-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), { fetch: withBearer(fetch, token) }));
  return client;
}

const view = (r: unknown) => (r as { structuredContent?: unknown }).structuredContent as { session_id: string; current_state: string; current_stage: string; artifacts: string[] };

it("npm run dev serves the bundled BMAD content, and a session survives a restart", async () => {
  startDev("dev");
  await waitForReady(90_000);
  const { access_token } = await signIn(fetch, BASE);
  let client = await connect(access_token);
  expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain("bmad-analyst");
  const read = await client.readResource({ uri: "bmad://bmm/bmad-agent-analyst/SKILL.md" });
  expect((read.contents[0] as { text: string }).text).toContain("name: bmad-agent-analyst");

  const started = view(await client.callTool({ name: "bmad-task", arguments: { action: "start", objective: "Survive a restart" } }));
  const submit = { action: "submit", session_id: started.session_id, claude_result: JSON.stringify({ prd_draft: "# PRD kept across restarts", quality_score: 95 }) };
  await client.callTool({ name: "bmad-task", arguments: submit });
  const confirmed = view(await client.callTool({ name: "bmad-task", arguments: { action: "confirm", session_id: started.session_id } }));
  expect(confirmed.current_stage).toBe("architect");
  await client.close();

  await stopDev();
  startDev("dev:serve");
  await waitForReady(60_000);
  client = await connect(access_token); // grants live in local KV too: the token survives the restart
  const after = view(await client.callTool({ name: "bmad-task", arguments: { action: "status", session_id: started.session_id } }));
  expect(after).toMatchObject({ current_stage: "architect", current_state: "generating" });
  const prd = await client.readResource({ uri: after.artifacts[0]! });
  expect((prd.contents[0] as { text: string }).text).toBe("# PRD kept across restarts");
  await client.close();
}, 180_000);
