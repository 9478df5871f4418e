// Shared by worker tests: seed the real bundle once per test file and expose it for expectations
// that come from the bundle itself, never typed in.
import { env } from "cloudflare:workers";
import { inject } from "vitest";
import { Catalog } from "../../src/core/catalog/catalog.js";
import { seedBundle, type SeedBundle } from "./seed.js";

export const bundle: SeedBundle = inject("bundle");
export const catalog = new Catalog(bundle.manifest);

export async function seed(): Promise<void> {
  await seedBundle(env, bundle);
}

/** The text of a bundle file, as uploaded. */
export function fileText(path: string): string {
  const file = catalog.file(path);
  if (!file) throw new Error(`fixture: ${path} is not in the bundle`);
  return bundle.blobs[file.sha256]!;
}
