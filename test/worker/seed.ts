// Puts a bundle into the real KV/R2 bindings the way bundle:upload does (blobs first, pointer last).
import type { BundleManifest } from "../../src/core/catalog/bundle.js";
import { blobKvKey, blobR2Key, manifestKey, POINTER_KEY } from "../../src/worker/bundle-store.js";
import type { Env } from "../../src/worker/env.js";

export interface SeedBundle {
  manifest: BundleManifest;
  blobs: Record<string, string>;
}

export const KV_BLOB_LIMIT = 1024 * 1024;

export async function seedBundle(env: Env, bundle: SeedBundle): Promise<void> {
  await Promise.all(
    Object.entries(bundle.blobs).map(([sha, text]) =>
      text.length > KV_BLOB_LIMIT ? env.BUNDLE_R2.put(blobR2Key(sha), text) : env.BUNDLE_KV.put(blobKvKey(sha), text),
    ),
  );
  await env.BUNDLE_KV.put(manifestKey(bundle.manifest.id), JSON.stringify(bundle.manifest));
  await env.BUNDLE_KV.put(POINTER_KEY, bundle.manifest.id);
}
