import type { BundleManifest } from "../../src/core/catalog/bundle.js";
import { seedBindings } from "../../src/compiler/seed.js";
import type { Env } from "../../src/worker/env.js";

export interface SeedBundle {
  manifest: BundleManifest;
  blobs: Record<string, string>;
}

/** Puts the bundle into the real KV/R2 bindings the way bundle:upload does. */
export function seedBundle(env: Env, bundle: SeedBundle): Promise<void> {
  return seedBindings(env.BUNDLE_KV, env.BUNDLE_R2, bundle.manifest, (sha) => bundle.blobs[sha]!);
}
