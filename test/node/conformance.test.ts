// The official MCP conformance suite against the real Worker in workerd, for every scenario that
// needs no fixture tools of its own (the suite's other scenarios call tools like test_simple_text).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startLocalWorker, type LocalWorker } from "../../scripts/local-worker.js";

const SCENARIOS = ["server-initialize", "ping", "tools-list", "resources-list", "prompts-list", "dns-rebinding-protection"];
const CLI = "node_modules/@modelcontextprotocol/conformance/dist/index.js";

let worker: LocalWorker;
beforeAll(async () => {
  worker = await startLocalWorker();
}, 120_000);
afterAll(() => worker?.dispose());

it.each(SCENARIOS)("passes %s", async (scenario) => {
  const url = new URL("/mcp", worker.url).href;
  // The suite needs Node 22; npm scripts put the `node` devDependency first on PATH.
  const run = await promisify(execFile)(process.execPath, [CLI, "server", "--url", url, "--scenario", scenario], { encoding: "utf8" }).catch((e) => e);
  expect(run.stdout, run.stderr).toMatch(/Passed: \d+\/\d+, 0 failed/);
  expect(run.code ?? 0).toBe(0);
}, 60_000);
