// Runs in Node: hands the real bundle (built by `npm run bundle` from bmad-method) to the workerd tests.
import { existsSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { loadBundleFromDir } from "../../src/compiler/read.js";
import type { SeedBundle } from "./seed.js";

export default function setup(project: TestProject): void {
  const dir = "bmad-bundle";
  if (!existsSync(`${dir}/manifest.json`)) throw new Error("No bundle in bmad-bundle/: run `npm run bundle` first (npm test does).");
  const { manifest, blobs } = loadBundleFromDir(dir);
  const decoder = new TextDecoder();
  const seed: SeedBundle = { manifest, blobs: Object.fromEntries([...blobs].map(([sha, bytes]) => [sha, decoder.decode(bytes)])) };
  project.provide("bundle", seed);
}

declare module "vitest" {
  export interface ProvidedContext {
    bundle: SeedBundle;
  }
}
