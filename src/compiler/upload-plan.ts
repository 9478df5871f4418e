// Pure: where each piece of a bundle goes (KV or R2) and in which order. Readers never see half a bundle
// because the pointer `bundle:current` is written last, after every blob and the manifest.
import { blobKvKey, blobR2Key, KV_MAX_VALUE, manifestBlobs, manifestKey, POINTER_KEY, type BundleManifest } from "../core/catalog/bundle";

export interface UploadPlan {
  /** Bulk-put batches of KV blob keys (each batch under wrangler's 10,000 keys / 100 MB). */
  kvBatches: Array<Array<{ key: string; sha: string }>>;
  r2: Array<{ key: string; sha: string }>;
  manifestKey: string;
  pointer: { key: string; value: string };
}

export function blobPlacement(size: number): "kv" | "r2" {
  return size <= KV_MAX_VALUE ? "kv" : "r2";
}

/** `sizes`: byte size of every blob to upload, keyed by sha256. */
export function planUpload(manifest: BundleManifest, sizes: Map<string, number>, batchBytes = 64 * 1024 * 1024, batchKeys = 5000): UploadPlan {
  const shas = manifestBlobs(manifest);
  const kvBatches: UploadPlan["kvBatches"] = [];
  const r2: UploadPlan["r2"] = [];
  let batch: Array<{ key: string; sha: string }> = [];
  let bytes = 0;
  for (const sha of [...shas].sort()) {
    const size = sizes.get(sha);
    if (size === undefined) throw new Error(`Blob ${sha} is listed in the manifest but missing from the bundle dir`);
    if (blobPlacement(size) === "r2") {
      r2.push({ key: blobR2Key(sha), sha });
      continue;
    }
    const encoded = Math.ceil(size / 3) * 4; // bulk files carry base64
    if (batch.length && (batch.length >= batchKeys || bytes + encoded > batchBytes)) {
      kvBatches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push({ key: blobKvKey(sha), sha });
    bytes += encoded;
  }
  if (batch.length) kvBatches.push(batch);
  return { kvBatches, r2, manifestKey: manifestKey(manifest.id), pointer: { key: POINTER_KEY, value: manifest.id } };
}
