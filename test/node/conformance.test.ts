// The official MCP conformance suite against the real Worker in workerd, for every scenario that
// needs no fixture tools of its own (the suite's other scenarios call tools like test_simple_text), and its
// Skills-extension scenarios (SEP-2640: skills/list and skills/get, SKILL.md resources, directory reads).
// The suite cannot sign in: a loopback proxy adds a token obtained through the real OAuth flow.
// The 2026-07-28 revision (stateless, per-request _meta) runs as the suite's own requirement set, with a baseline
// that excuses only the checks the suite can run against its fixture tools, prompts and resources alone.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { LocalWorker } from "../../scripts/local-worker.js";
import { localWorker } from "./helpers";
import { startBearerProxy, type BearerProxy } from "../support/bearer-proxy.js";
import { signIn } from "../../scripts/oauth-client.js";

const SCENARIOS = [
  "server-initialize", "ping", "tools-list", "resources-list", "prompts-list", "dns-rebinding-protection",
  "sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory",
];
const CLI = "node_modules/@modelcontextprotocol/conformance/dist/index.js";
const BASELINE_2026 = "test/fixtures/conformance/2026-07-28.yml";

let worker: LocalWorker;
let proxy: BearerProxy;
beforeAll(async () => {
  worker = await localWorker();
  proxy = await startBearerProxy(worker.url);
  proxy.setToken((await signIn(fetch, proxy.url)).access_token);
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  await worker?.dispose();
});

it("refuses the suite without the proxy's token", async () => {
  const res = await fetch(new URL("/mcp", worker.url), { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  expect(res.status).toBe(401);
});

it.each(SCENARIOS)("passes %s", async (scenario) => {
  // The suite needs Node 22; npm scripts put the `node` devDependency first on PATH.
  const run = await promisify(execFile)(process.execPath, [CLI, "server", "--url", `${proxy.url}/mcp`, "--scenario", scenario], { encoding: "utf8" }).catch((e) => e);
  expect(run.stdout, run.stderr).toMatch(/Passed: [1-9]\d*\/\d+, 0 failed/);
  // A scenario whose feature is not declared skips its checks and still "passes": none may be skipped.
  expect(run.stdout).not.toContain("SKIPPED");
  expect(run.code ?? 0).toBe(0);
}, 60_000);

it("meets the 2026-07-28 requirements, but for the checks that need the suite's own fixtures", async () => {
  const run = await promisify(execFile)(process.execPath, [CLI, "server", "--url", `${proxy.url}/mcp`, "--requirements", "2026-07-28", "--expected-failures", BASELINE_2026], { encoding: "utf8", maxBuffer: 64 << 20 }).catch((e) => e);
  expect(run.stdout.slice(-3000), run.stderr).toContain("Baseline check passed: all failures are expected.");
  expect(run.code ?? 0).toBe(0);
}, 120_000);
