// Runs in Node: hands the real bundle (built by `npm run bundle` from bmad-method) to the workerd tests, and a
// classic one (bmad-method 6.0.4's source tree: tasks, knowledge, the seed's qa, sm and tech-writer) for the few
// tests about what 6.12 lacks.
import { existsSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { buildBundle } from "../../src/compiler/build.js";
import { loadBundleFromDir } from "../../src/compiler/read.js";
import { wholeNumber } from "../support/fuzz-tools.js";
import type { SeedBundle } from "./seed.js";

export default async function setup(project: TestProject): Promise<void> {
  const dir = "bmad-bundle";
  if (!existsSync(`${dir}/manifest.json`)) throw new Error("No bundle in bmad-bundle/: run `npm run bundle` first (npm test does).");
  const { manifest, blobs } = loadBundleFromDir(dir);
  const decoder = new TextDecoder();
  const seed: SeedBundle = { manifest, blobs: Object.fromEntries([...blobs].map(([sha, bytes]) => [sha, decoder.decode(bytes)])) };
  project.provide("bundle", seed);
  // Built in memory, about 0.4 s.
  const classic = await buildBundle({ sources: ["node_modules/bmad-v6-classic/src"], includeDefault: false });
  project.provide("classicBundle", { manifest: classic.manifest, blobs: Object.fromEntries([...classic.blobs].map(([sha, bytes]) => [sha, decoder.decode(bytes)])) });
  // The stateful fuzz's length and seed (fuzz.test.ts): workerd sees none of this shell's environment.
  project.provide("statefulFuzz", { steps: wholeNumber("BMAD_FUZZ_STEPS", 300), seed: wholeNumber("BMAD_FUZZ_SEED", 1) });
  // The schema fuzz's too, as the bridge's takes them (review 390: a new seed never reached the remote's schemas).
  project.provide("schemaFuzz", { runs: wholeNumber("BMAD_FUZZ_RUNS", 400), seed: wholeNumber("BMAD_FUZZ_SEED", 31) });
}

declare module "vitest" {
  export interface ProvidedContext {
    bundle: SeedBundle;
    classicBundle: SeedBundle;
    statefulFuzz: { steps: number; seed: number };
    schemaFuzz: { runs: number; seed: number };
  }
}
