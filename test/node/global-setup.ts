// Runs once per `vitest run`, before any node test file: the bridge and the Worker (as wrangler deploy bundles it)
// are built here, together, so that test files running side by side share one build. The bridge goes into a folder
// of its own, not dist/: the npm package and .mcpb tests rebuild dist/ while the others run theirs. Both go in a
// folder of this run's own, so two runs at once on one checkout (two terminals, an editor's) never rebuild the other's.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { TestProject } from "vitest/node";
import { buildBridge } from "../../scripts/build-bridge.js";
import { buildWorker, seedState } from "../../scripts/local-worker.js";
import { ensurePythonDeps } from "../fixtures/runtime/python-deps.js";

const ROOT = resolve(import.meta.dirname, "../..");
const RUN = join(ROOT, ".wrangler", `test-run-${process.pid}`);

export default async function setup(project: TestProject): Promise<void> {
  if (!existsSync(join(ROOT, "bmad-bundle/manifest.json"))) throw new Error("No bundle in bmad-bundle/: run `npm run bundle` first (npm test does).");
  // ruamel.yaml for the sprint scripts' Python, before any interpreter starts (it reads PYTHONPATH once).
  ensurePythonDeps();
  // npm test runs this for each node project (see vitest.config.ts): build once per run.
  process.once("exit", () => rmSync(RUN, { recursive: true, force: true }));
  const builds = ((globalThis as { bmadTestBuilds?: Promise<[string, string, string]> }).bmadTestBuilds ??= Promise.all([buildBridge(join(RUN, "bridge")), seededWorker()]).then(([bridge, worker]) => [bridge, ...worker]));
  const [bridge, workerScript, workerState] = await builds;
  project.provide("bridge", bridge);
  project.provide("workerScript", workerScript);
  project.provide("workerState", workerState);
}

/** The Worker, and its storage with the bundle seeded once (side by side): each file's Worker starts from a copy. */
async function seededWorker(): Promise<[string, string]> {
  const state = mkdtempSync(join(tmpdir(), "bmad-test-worker-state-"));
  process.on("exit", () => rmSync(state, { recursive: true, force: true }));
  const [script] = await Promise.all([buildWorker(join(RUN, "worker")), seedState(state)]);
  return [script, state];
}

declare module "vitest" {
  export interface ProvidedContext {
    /** .wrangler/test-run-{pid}/bridge/bridge.js, built for this run (as dist/ has it). */
    bridge: string;
    /** The Worker, bundled by wrangler for this run. */
    workerScript: string;
    /** Worker storage with bmad-bundle/ seeded (KV and R2), for startLocalWorker({ seeded }). */
    workerState: string;
  }
}
