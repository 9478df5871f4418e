// The bundle in KV/R2: `bundle:current` -> id, `bundle:{id}:manifest`, `blob:{sha}` (KV) or `blobs/{sha}` (R2).
// The catalog is built once per isolate per bundle id; the pointer is re-read at most every POINTER_TTL_MS,
// so an upload's atomic switch reaches every isolate within that time.
import { blobKvKey, blobR2Key, manifestKey, POINTER_KEY, type BundleFile, type BundleManifest, type SearchIndex } from "../core/catalog/bundle.js";
import { Catalog } from "../core/catalog/catalog.js";
import type { BundleReader } from "../core/surface/reader.js";
import type { Env } from "./env.js";

const POINTER_TTL_MS = 10_000;
const TEXT_CACHE_BYTES = 32 * 1024 * 1024;

export class BundleMissingError extends Error {}

class KvBundleReader implements BundleReader {
  private readonly texts = new Map<string, string>();
  private cachedBytes = 0;
  /** Kept once read, never while being read (core/kept.ts). */
  private index?: SearchIndex;

  constructor(
    private readonly env: Env,
    readonly catalog: Catalog,
  ) {}

  async readText(file: BundleFile): Promise<string> {
    const hit = this.texts.get(file.sha256);
    if (hit !== undefined) return hit;
    const text = await this.blob(file.sha256);
    if (this.cachedBytes + text.length > TEXT_CACHE_BYTES) {
      this.texts.clear();
      this.cachedBytes = 0;
    }
    this.texts.set(file.sha256, text);
    this.cachedBytes += text.length;
    return text;
  }

  async searchIndex(): Promise<SearchIndex> {
    this.index ??= JSON.parse(await this.blob(this.catalog.manifest.searchIndex)) as SearchIndex;
    return this.index;
  }

  private async blob(sha: string): Promise<string> {
    const fromKv = await this.env.BUNDLE_KV.get(blobKvKey(sha), { cacheTtl: 3600 });
    if (fromKv !== null) return fromKv;
    const fromR2 = await this.env.BUNDLE_R2.get(blobR2Key(sha));
    if (fromR2) return fromR2.text();
    throw new Error(`Bundle blob ${sha.slice(0, 12)} is missing from KV and R2; re-run npm run bundle:upload.`);
  }
}

let current: { id: string; reader: KvBundleReader; checkedAt: number } | undefined;

export async function currentBundle(env: Env): Promise<BundleReader> {
  const now = Date.now();
  // A clock that went back (or a check stamped ahead of it) reads the pointer again rather than trust it longer.
  if (current && now >= current.checkedAt && now - current.checkedAt < POINTER_TTL_MS) return current.reader;
  const id = await env.BUNDLE_KV.get(POINTER_KEY);
  if (!id) throw new BundleMissingError("No BMAD bundle is uploaded. Run `npm run bundle && npm run bundle:upload -- --local` (npm run dev does both).");
  if (current?.id === id) {
    current.checkedAt = now;
    return current.reader;
  }
  current = { id, reader: new KvBundleReader(env, await catalogOf(env, id)), checkedAt: now };
  return current.reader;
}

/** The bundle's catalog; a manifest that is missing, not JSON or not a manifest is the operator's to upload again
 *  (review 154: a damaged one answered 500 with a stack). */
async function catalogOf(env: Env, id: string): Promise<Catalog> {
  const reupload = "re-run npm run bundle:upload.";
  let manifest: BundleManifest | null;
  try {
    manifest = await env.BUNDLE_KV.get<BundleManifest>(manifestKey(id), "json");
  } catch {
    throw new BundleMissingError(`Bundle ${id.slice(0, 12)}'s manifest in KV is not JSON; ${reupload}`);
  }
  if (!manifest) throw new BundleMissingError(`Bundle ${id.slice(0, 12)} has no manifest in KV; ${reupload}`);
  try {
    return new Catalog(manifest);
  } catch {
    throw new BundleMissingError(`Bundle ${id.slice(0, 12)}'s manifest in KV is not a bundle manifest; ${reupload}`);
  }
}
