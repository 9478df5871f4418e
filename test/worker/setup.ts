// Shared by worker tests: seed the real bundle once per worker and expose it for expectations
// that come from the bundle itself, never typed in.
import { env } from "cloudflare:workers";
import { inject } from "vitest";
import { POINTER_KEY } from "../../src/core/catalog/bundle.js";
import { Catalog } from "../../src/core/catalog/catalog.js";
import { seedBundle, type SeedBundle } from "./seed.js";

export const bundle: SeedBundle = inject("bundle");
export const catalog = new Catalog(bundle.manifest);

/** Seeds the bundle, unless the storage holds it already: it outlives a test file in this worker, and the
 *  pointer, written last, names this bundle only once every blob and the manifest are in (0.4 s a seed). */
export async function seed(): Promise<void> {
  if ((await env.BUNDLE_KV.get(POINTER_KEY)) === bundle.manifest.id) return;
  await seedBundle(env, bundle);
}

/** The text of a bundle file, as uploaded. */
export function fileText(path: string): string {
  const file = catalog.file(path);
  if (!file) throw new Error(`fixture: ${path} is not in the bundle`);
  return bundle.blobs[file.sha256]!;
}
