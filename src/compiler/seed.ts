// Writes a bundle into KV/R2 binding objects in upload order (blobs, manifest, pointer last).
// Used where the bindings are in reach directly: Miniflare (bench, conformance) and workerd tests.
import { manifestBlobs, type BundleManifest } from "../core/catalog/bundle";
import { planUpload } from "./upload-plan";

interface KvLike {
  put(key: string, value: string): Promise<unknown>;
}

export async function seedBindings(kv: KvLike, r2: KvLike, manifest: BundleManifest, blobText: (sha: string) => string): Promise<void> {
  const sizes = new Map([...manifestBlobs(manifest)].map((sha) => [sha, blobText(sha).length]));
  const plan = planUpload(manifest, sizes);
  for (const batch of plan.kvBatches) await Promise.all(batch.map(({ key, sha }) => kv.put(key, blobText(sha))));
  await Promise.all(plan.r2.map(({ key, sha }) => r2.put(key, blobText(sha))));
  await kv.put(plan.manifestKey, JSON.stringify(manifest));
  await kv.put(plan.pointer.key, plan.pointer.value);
}
