// Runs once per `vitest run`, before any node test file: the bridge (dist/) and the Worker (as wrangler deploy
// bundles it) are built here, together, so that test files running side by side share one build and never
// rebuild what another is running.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { TestProject } from "vitest/node";
import { buildBridge } from "../../scripts/build-bridge.js";
import { buildWorker } from "../../scripts/local-worker.js";

const ROOT = resolve(import.meta.dirname, "../..");

export default async function setup(project: TestProject): Promise<void> {
  if (!existsSync(join(ROOT, "bmad-bundle/manifest.json"))) throw new Error("No bundle in bmad-bundle/: run `npm run bundle` first (npm test does).");
  // npm test runs this for each node project (see vitest.config.ts): build once per run.
  const builds = ((globalThis as { bmadTestBuilds?: Promise<[string, string]> }).bmadTestBuilds ??= Promise.all([buildBridge(), buildWorker(join(ROOT, ".wrangler/test-worker"))]));
  const [bridge, workerScript] = await builds;
  project.provide("bridge", bridge);
  project.provide("workerScript", workerScript);
}

declare module "vitest" {
  export interface ProvidedContext {
    /** dist/bridge.js, built for this run. */
    bridge: string;
    /** The Worker, bundled by wrangler for this run. */
    workerScript: string;
  }
}
