// The completion contract on the real CLI over stdio: bounded in time, and everything it started is killed
// (a setsid child too) at the timeout, when the client cancels the call, when the bridge's input closes and
// when the contract exits. working_dir stays inside the project, real folders named `..dots` included.
import { spawn } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { connectBridge, install, madeOnce, processRuns, tempDir, toolText, waitFor } from "./helpers.js";

const tmp = tempDir("bridge-contract");
let bridge: string;
let dir: string;
const closers: Array<() => Promise<void>> = [];
const pidFile = (name: string) => join(tmp.dir, `${name}.pid`);

// SCRIPT_PID and SLEEPER_PID name files for the pids; ESCAPE starts a sleeper in its own session that keeps
// the output pipes; EXIT leaves it behind and exits at once.
const CONTRACT = `echo "started $1 in $(basename "$PWD")"
echo $$ > "$SCRIPT_PID"
if [ -f "$PROJECT/SHOW_ENV" ]; then echo "token=\${BMAD_MCP_TOKEN-unset} project=$PROJECT"; fi
if [ -f "$PROJECT/ESCAPE" ]; then
  setsid sleep 300 &
  echo $! > "$SLEEPER_PID"
  if [ -f "$PROJECT/EXIT" ]; then exit 0; fi
  wait
fi
`;

beforeAll(async () => {
  bridge = inject("bridge");
  dir = join(tmp.dir, "project");
  await install("v6.12", join(tmp.dir, "pristine"));
  cpSync(join(tmp.dir, "pristine"), dir, { recursive: true });
  mkdirSync(join(dir, "_bmad/_config/custom"), { recursive: true });
  writeFileSync(join(dir, "_bmad/_config/custom/cc-verify.sh"), CONTRACT);
  chmodSync(join(dir, "_bmad/_config/custom/cc-verify.sh"), 0o755);
  mkdirSync(join(dir, "..dots"));
  mkdirSync(join(dir, "sub"));
}, 120_000);
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  for (const name of ["script", "sleeper"]) if (existsSync(pidFile(name))) killIfRunning(Number(readFileSync(pidFile(name), "utf8")));
  tmp.cleanup();
});

function killIfRunning(pid: number): void {
  if (processRuns(pid)) process.kill(pid, "SIGKILL");
}

function env(timeoutMs: number): Record<string, string> {
  // The bridge's own token (--remote, pull and push take it from here) beside the user's ordinary variables.
  return { BMAD_CONTRACT_TIMEOUT_MS: String(timeoutMs), PROJECT: dir, SCRIPT_PID: pidFile("script"), SLEEPER_PID: pidFile("sleeper"), BMAD_MCP_TOKEN: "SECRET-BRIDGE-TOKEN" };
}

async function start(timeoutMs: number): Promise<Client> {
  const { client, close } = await connectBridge(bridge, dir, { args: ["--allow-project-scripts"], env: env(timeoutMs) });
  closers.push(close);
  return client;
}

/** One bridge for every test whose contract ends well before its timeout: what one does there (a contract run,
 *  a cancelled call) leaves nothing another asserts on, and each bridge start costs ~0.3 s of CPU. */
const served = madeOnce(() => start(60_000));

/** Sets the contract up to leave a sleeper in its own session; returns a reader of the two pids once written. */
function escaping(exit = false): () => Promise<{ script: number; sleeper: number }> {
  for (const name of ["script", "sleeper"]) rmSync(pidFile(name), { force: true });
  writeFileSync(join(dir, "ESCAPE"), "");
  if (exit) writeFileSync(join(dir, "EXIT"), "");
  else rmSync(join(dir, "EXIT"), { force: true });
  const read = (name: string) => (existsSync(pidFile(name)) ? Number(readFileSync(pidFile(name), "utf8")) || undefined : undefined);
  return async () => ({
    script: await waitFor("the contract's pid", () => read("script"), 5000),
    sleeper: await waitFor("the sleeper's pid", () => read("sleeper"), 5000),
  });
}

const gone = (pid: number, ms: number) => waitFor(`process ${pid} to end`, () => (processRuns(pid) ? undefined : true), ms);

describe("the completion contract's processes", () => {
  it("answers at the timeout plus a short grace and kills a child that left its session", async () => {
    const client = await start(1500);
    const pids = escaping();
    const started = performance.now();
    const run = await client.callTool({ name: "run_completion_contract", arguments: { stack: "go" } }, undefined, { timeout: 10_000 });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(1500);
    // The grace is 0.5 s; the rest is room for a loaded machine (CI once took 3.09 s). Its child sleeps 300 s.
    expect(elapsed).toBeLessThan(1500 + 3000);
    expect(run.structuredContent).toMatchObject({ status: "FAIL" });
    expect(toolText(run)).toContain("started go in project");
    expect(toolText(run)).toContain("[killed after 1.5 s]");
    const { script, sleeper } = await pids();
    await gone(script, 500);
    await gone(sleeper, 500);
  });

  it("kills what a contract left running when it exits", async () => {
    const client = await served();
    const pids = escaping(true);
    const started = performance.now();
    const run = await client.callTool({ name: "run_completion_contract", arguments: {} }, undefined, { timeout: 10_000 });
    expect(performance.now() - started).toBeLessThan(3000);
    expect(run.structuredContent).toMatchObject({ status: "PASS" });
    await gone((await pids()).sleeper, 2000); // a sleep of 300 s: gone within 2 s is killed, on a loaded machine too
  });

  it("kills the contract and its escaped child when the client cancels the call, and keeps serving", async () => {
    const client = await served();
    const pids = escaping();
    const cancel = new AbortController();
    const call = client.callTool({ name: "run_completion_contract", arguments: {} }, undefined, { signal: cancel.signal, timeout: 60_000 });
    const { script, sleeper } = await pids();
    cancel.abort();
    await expect(call).rejects.toThrow();
    await gone(script, 2000);
    await gone(sleeper, 2000);
    await client.ping({ timeout: 2000 });
  });

  it("kills a running contract when the bridge's input closes, and the bridge exits", async () => {
    const pids = escaping();
    const child = spawn(process.execPath, [bridge, "--allow-project-scripts"], { cwd: dir, env: { PATH: process.env.PATH!, HOME: join(tmp.dir, "home"), ...env(60_000) }, stdio: ["pipe", "pipe", "ignore"] });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    try {
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
      send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "stdin-close", version: "1" } } });
      expect(JSON.parse((await lines.next()).value as string)).toMatchObject({ id: 1, result: {} });
      send({ method: "notifications/initialized" });
      send({ id: 2, method: "tools/call", params: { name: "run_completion_contract", arguments: {} } });
      const { script, sleeper } = await pids();
      child.stdin.end();
      await gone(script, 2000);
      await gone(sleeper, 2000);
      await Promise.race([exited, new Promise((_, fail) => setTimeout(() => fail(new Error("the bridge did not exit within 3 s of its input closing")), 3000))]);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});

// Review 82: a cloned repository may have committed a contract, and a model its README steers would run it.
describe("the completion contract, the project's own script", () => {
  it("runs only where the user started the bridge with --allow-project-scripts, running nothing otherwise", async () => {
    rmSync(join(dir, "ESCAPE"), { force: true });
    for (const name of ["script", "sleeper"]) rmSync(pidFile(name), { force: true });
    const { client, close } = await connectBridge(bridge, dir, { env: env(60_000) });
    try {
      const run = await client.callTool({ name: "run_completion_contract", arguments: {} });
      expect(run.isError).toBe(true);
      expect(toolText(run)).toContain("_bmad/_config/custom/cc-verify.sh is the project's own script, which runs only where the user started the bridge with --allow-project-scripts");
      expect(existsSync(pidFile("script"))).toBe(false);
    } finally {
      await close();
    }
  });

  it("with none yet, says at once what works: the user creates it, and allows the project's scripts where not yet (review 160)", async () => {
    const contract = join(dir, "_bmad/_config/custom/cc-verify.sh");
    renameSync(contract, `${contract}.away`);
    const { client, close } = await connectBridge(bridge, dir, { env: env(60_000) });
    try {
      const run = async (c: Client) => toolText(await c.callTool({ name: "run_completion_contract", arguments: {} }));
      expect(await run(client)).toBe("No completion contract in this project: ask the user to create _bmad/_config/custom/cc-verify.sh themselves (a script that exits 0 when the work is complete; tools never write one) and to start the bridge with --allow-project-scripts (in the MCP client's config), without which it does not run.");
      expect(await run(await served())).toBe("No completion contract in this project: ask the user to create _bmad/_config/custom/cc-verify.sh themselves (a script that exits 0 when the work is complete; tools never write one).");
    } finally {
      await close();
      renameSync(`${contract}.away`, contract);
    }
  });
});

// Review 213: a literal model ran `npm test` through bmad-run, then the contract, which the project did not have.
describe("where a code skill's tests and builds run", () => {
  const blockOf = async (c: Client) => /## Running this skill here\n[\s\S]*?\n\n/.exec(toolText(await c.callTool({ name: "bmad", arguments: { command: "*code-review" } })))![0];
  const npmTest = async (c: Client) => toolText(await c.callTool({ name: "bmad-run", arguments: { command: "npm test" } }));
  const created = "created _bmad/_config/custom/cc-verify.sh (a script that exits 0 when the work is complete; no tool writes one)";
  const allowed = "started the bridge with --allow-project-scripts (in the MCP client's config)";
  // What the user does to set the contract up is said where a test line is refused, not in every render.
  const checks = "; tests and builds: ask the user to run them and paste the output.\n";
  const userRuns = (toDo: string) => `bmad-run runs BMAD's Python scripts, not the project's code. Ask the user to run \`npm test\` and paste its output. (run_completion_contract runs the project's checks once the user has ${toDo}.)`;
  // A git line the bridge does not run says the contract's state in the same words (review 455: it said the contract
  // runs the checks where it had no script or was not allowed, and named a baseline commit for a `git commit`).
  const gitCommit = async (c: Client) => {
    const refused = toolText(await c.callTool({ name: "bmad-run", arguments: { command: "git commit -m wip" } }));
    expect(refused).toMatch(/^bmad-run runs BMAD's Python scripts and, of git, read-only lines only \(git status .*\); "commit" is not one of them\. /);
    return refused.slice(refused.indexOf("Ask the user"));
  };
  const gitEnds = (toDo?: string) => `Ask the user to run the git command and give you its output: the project is their clone. run_completion_contract runs the project's checks ${toDo ? `once the user has ${toDo}` : "(tests, build: its _bmad/_config/custom/cc-verify.sh)"}.`;

  // A bridge keeps its renders until its bundle is rebuilt, once its watcher sees _bmad/ change: the block follows the file.
  const blockOnce = async (c: Client, says: string) => {
    for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
      const block = await blockOf(c);
      if (block.includes(says)) return block;
    }
    return blockOf(c);
  };

  it("is the contract where it is set up, else the user, with what the contract still needs, for a test line and a git line alike", async () => {
    const client = await served();
    expect(await blockOf(client)).toContain("; tests and builds: run_completion_contract runs this project's checks (its _bmad/_config/custom/cc-verify.sh).\n");
    expect(await npmTest(client)).toMatch(/^bmad-run runs BMAD's Python scripts, not the project's code\. run_completion_contract runs the project's checks/);
    expect(await gitCommit(client)).toBe(gitEnds());
    // A project not found is said, and no contract promised for it (review 461: "runs the project's checks" for "nope").
    for (const command of ["git commit -m wip", "npm test"]) {
      const elsewhere = toolText(await client.callTool({ name: "bmad-run", arguments: { command, project: "nope" } }));
      expect(elsewhere).toMatch(/^"nope" is not this project/);
      expect(elsewhere).toContain("run_completion_contract runs a project's checks where the user has set it up");
      expect(elsewhere).not.toContain("runs the project's checks (tests, build");
    }
    const unallowed = await connectBridge(bridge, dir, { env: env(60_000) });
    const contract = join(dir, "_bmad/_config/custom/cc-verify.sh");
    try {
      expect(await blockOf(unallowed.client)).toContain(checks);
      expect(await npmTest(unallowed.client)).toBe(userRuns(allowed));
      expect(await gitCommit(unallowed.client)).toBe(gitEnds(allowed));
      renameSync(contract, `${contract}.away`);
      expect(await npmTest(unallowed.client)).toBe(userRuns(`${created} and ${allowed}`));
      expect(await gitCommit(unallowed.client)).toBe(gitEnds(`${created} and ${allowed}`));
      expect(await blockOnce(client, checks)).toContain(checks);
      expect(await npmTest(client)).toBe(userRuns(created));
      expect(await gitCommit(client)).toBe(gitEnds(created));
    } finally {
      await unallowed.close();
      if (existsSync(`${contract}.away`)) renameSync(`${contract}.away`, contract);
    }
  });
});

// Review 27: the contract runs code the model may have changed (tests/run.sh, through bmad-files), and printed the
// bridge's BMAD_MCP_TOKEN. The user's own environment it keeps: it is the user's own test command.
describe("the completion contract's environment", () => {
  it("holds the user's variables but not the bridge's own token", async () => {
    rmSync(join(dir, "ESCAPE"), { force: true });
    writeFileSync(join(dir, "SHOW_ENV"), "");
    try {
      const run = await (await served()).callTool({ name: "run_completion_contract", arguments: {} });
      const output = `started auto in project\ntoken=unset project=${dir}\n`;
      expect(toolText(run).replace(/^PASS in \d+ ms\n/, "")).toBe(output);
      // The output goes out once, in the text (review 455: it was sent twice); structuredContent says its size.
      expect(run.structuredContent).toEqual({ status: "PASS", duration_ms: expect.any(Number), output_bytes: Buffer.byteLength(output) });
    } finally {
      rmSync(join(dir, "SHOW_ENV"));
    }
  });
});

describe("working_dir", () => {
  it("runs in a real folder whose name starts with two dots", async () => {
    rmSync(join(dir, "ESCAPE"), { force: true });
    const client = await served();
    const run = await client.callTool({ name: "run_completion_contract", arguments: { stack: "go", working_dir: "..dots" } });
    expect(run.structuredContent).toMatchObject({ status: "PASS" });
    expect(toolText(run)).toMatch(/^PASS in \d+ ms\nstarted go in \.\.dots\n$/);
    expect((await client.callTool({ name: "run_completion_contract", arguments: { working_dir: "sub/../..dots" } })).structuredContent).toMatchObject({ status: "PASS" });
  });

  it("still refuses every way out of the project", async () => {
    rmSync(join(dir, "ESCAPE"), { force: true });
    const client = await served();
    for (const working_dir of ["..", "../..", "../pristine", "sub/../..", "/etc", "/"]) {
      const run = await client.callTool({ name: "run_completion_contract", arguments: { working_dir } });
      expect(run.isError, working_dir).toBe(true);
      expect(toolText(run)).toMatch(/must stay inside the project|does not exist/);
    }
  });
});
