// The README's `npm run dev` as a user runs it, with wrangler's own flags (--port, --persist-to: a port the OS
// says is free, so two checkouts test at once) and a temporary state folder (the developer's .wrangler/state is
// never touched): it prints the MCP URL, the token command and the client lines for that port, `npm run token`
// signs in, the Inspector CLI line it printed lists the tools as printed, a real SDK client works a
// session; stopped, nothing it started is left; started again, it uploads nothing and the session goes on.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, expect, it } from "vitest";
import { signIn, withBearer } from "../../scripts/oauth-client.js";
import { ROOT, tempDir } from "./helpers";

const run = promisify(execFile);
/** A port nothing listens on now, as the OS picks one. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const { port } = server.address() as AddressInfo;
  await new Promise((closed) => server.close(closed));
  return port;
}
const PORT = await freePort();
const BASE = `http://127.0.0.1:${PORT}`;
const tmp = tempDir("dev");
const STATE = join(tmp.dir, "state");
/** PATH without the project's node_modules/.bin, as in a fresh shell: npm runs on the system's Node. */
const PATH = (process.env.PATH ?? "").split(delimiter).filter((dir) => !dir.startsWith(join(ROOT, "node_modules"))).join(delimiter);
const env = { ...process.env, PATH };
let dev: ChildProcess | undefined;
let log = "";

/** The developer's own wrangler state: names, sizes and times of everything in it. */
function snapshot(dir = join(ROOT, ".wrangler/state")): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort().map((p) => {
    const s = statSync(join(dir, p));
    return `${p} ${s.size} ${s.mtimeMs}`;
  });
}
const before = snapshot();

function startDev(): void {
  log = "";
  dev = spawn("npm", ["run", "dev", "--", "--port", String(PORT), "--persist-to", STATE], { cwd: ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  dev.stdout!.on("data", (d) => (log += d));
  dev.stderr!.on("data", (d) => (log += d));
}

/** Processes whose command line names the test's state folder (wrangler and workerd). */
function startedByDev(): number[] {
  return readdirSync("/proc").filter((e) => /^\d+$/.test(e)).flatMap((pid) => {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "latin1");
      const state = readFileSync(`/proc/${pid}/stat`, "latin1");
      return cmd.includes(STATE) && state[state.lastIndexOf(")") + 2] !== "Z" ? [Number(pid)] : [];
    } catch {
      return [];
    }
  });
}

async function until(what: string, check: () => Promise<boolean> | boolean, ms: number): Promise<void> {
  for (const end = Date.now() + ms; !(await check()); await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}:\n${log.slice(-2000)}`);
  }
}

async function stopDev(): Promise<void> {
  const child = dev;
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  process.kill(-child.pid, "SIGTERM"); // Ctrl+C's SIGINT reaches the same handler
  await exited;
  await until("everything npm run dev started to stop", () => startedByDev().length === 0, 10_000);
  await until(`port ${PORT} to close`, () => fetch(`${BASE}/healthz`).then(() => false, () => true), 10_000);
}

afterAll(async () => {
  await stopDev();
  tmp.cleanup();
});

async function waitForReady(ms: number): Promise<void> {
  await until("npm run dev to print its URL", () => {
    if (dev?.exitCode !== null) throw new Error(`npm run dev exited ${dev?.exitCode}:\n${log.slice(-2000)}`);
    return log.includes(`${BASE}/mcp`);
  }, ms);
}

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: "dev-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), { fetch: withBearer(fetch, token) }));
  return client;
}

const view = (r: unknown) => (r as { structuredContent?: unknown }).structuredContent as { session_id: string; current_state: string; current_stage: string; artifacts: string[] };
let token = "";
let sessionId = "";

it("serves on the port given as wrangler's own flag, and says where and how to sign in", async () => {
  startDev();
  await waitForReady(90_000);
  expect(log).toMatch(/new blobs, pointer flipped/);
  expect(log).toContain(`bmad-mcp is ready in`);
  expect(log).toContain(`npm run token -- --port ${PORT}`);
  expect(log).toContain(`  Claude Code:    claude mcp add --transport http bmad ${BASE}/mcp\n`);
  // The client below signs in as npm run token does, in this process: the Inspector line runs npm run token itself.
  token = (await signIn(fetch, BASE)).access_token;
  expect(token).toMatch(/^\S{20,}$/);
}, 120_000);

it("answers the Inspector CLI line it printed, run as printed in a shell on the system's Node", async () => {
  const line = /^ {2}Inspector CLI: {2}(.+)$/m.exec(log)?.[1];
  expect(line).toBe(`npm run -s inspector -- --cli ${BASE}/mcp --transport http --method tools/list --header "Authorization: Bearer $(npm run -s token -- --port ${PORT})"`);
  const { stdout } = await run("sh", ["-c", line!], { cwd: ROOT, env, maxBuffer: 16 << 20 });
  expect((JSON.parse(stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toContain("bmad-task");
}, 60_000);

it("serves the bundled BMAD content and keeps a session's work", async () => {
  const client = await connect(token);
  expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain("bmad-analyst");
  const read = await client.readResource({ uri: "bmad://bmm/bmad-agent-analyst/SKILL.md" });
  expect((read.contents[0] as { text: string }).text).toContain("name: bmad-agent-analyst");
  const started = view(await client.callTool({ name: "bmad-task", arguments: { action: "start", objective: "Survive a restart" } }));
  sessionId = started.session_id;
  const submit = { action: "submit", session_id: sessionId, claude_result: JSON.stringify({ prd_draft: "# PRD kept across restarts", quality_score: 95 }) };
  await client.callTool({ name: "bmad-task", arguments: submit });
  const confirmed = view(await client.callTool({ name: "bmad-task", arguments: { action: "confirm", session_id: sessionId } }));
  expect(confirmed.current_stage).toBe("architect");
  await client.close();
}, 60_000);

it("stops everything it started, and starts again without uploading the bundle twice", async () => {
  await stopDev();
  startDev();
  await waitForReady(60_000);
  expect(log).toMatch(/already there, nothing to upload/);
  const client = await connect(token); // grants live in local KV too: the token survives the restart
  const after = view(await client.callTool({ name: "bmad-task", arguments: { action: "status", session_id: sessionId } }));
  expect(after).toMatchObject({ current_stage: "architect", current_state: "generating" });
  const prd = await client.readResource({ uri: after.artifacts[0]! });
  expect((prd.contents[0] as { text: string }).text).toBe("# PRD kept across restarts");
  await client.close();
  await stopDev();
}, 90_000);

it("leaves the developer's own .wrangler/state alone", () => {
  expect(existsSync(join(STATE, "v3"))).toBe(true);
  expect(snapshot()).toEqual(before);
});
