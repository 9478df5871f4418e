// Loads a built bundle directory back into memory (Node side: bridge, tests, upload).
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { BundleManifest } from "../core/catalog/bundle";
import { MemoryBundleReader } from "../core/surface/memory-reader";

export interface LoadedBundle {
  manifest: BundleManifest;
  blobs: Map<string, Uint8Array>;
}

export function loadBundleFromDir(dir: string): LoadedBundle {
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as BundleManifest;
  if (manifest.format !== 1) throw new Error(`Unsupported bundle format ${String(manifest.format)} in ${dir}`);
  const blobs = new Map<string, Uint8Array>();
  for (const name of readdirSync(join(dir, "blobs")).sort()) {
    if (/^[0-9a-f]{64}$/.test(name)) blobs.set(name, new Uint8Array(readFileSync(join(dir, "blobs", name))));
  }
  return { manifest, blobs };
}

/** A reader over the bundle in `dir` (the README's tables, the .mcpb manifest). */
export function bundleReaderFromDir(dir: string): MemoryBundleReader {
  const { manifest, blobs } = loadBundleFromDir(dir);
  const decoder = new TextDecoder();
  return new MemoryBundleReader(manifest, (sha) => (blobs.has(sha) ? decoder.decode(blobs.get(sha)) : undefined));
}
