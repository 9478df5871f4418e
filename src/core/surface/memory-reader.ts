// A BundleReader over blobs already in reach (a bundle directory, an embedded bundle, a test).
import type { BundleFile, BundleManifest, SearchIndex } from "../catalog/bundle.js";
import { Catalog } from "../catalog/catalog.js";
import type { BundleReader } from "./reader.js";

export class MemoryBundleReader implements BundleReader {
  readonly catalog: Catalog;
  private index?: SearchIndex;

  constructor(
    manifest: BundleManifest,
    private readonly blobText: (sha: string) => string | undefined,
  ) {
    this.catalog = new Catalog(manifest);
  }

  async readText(file: BundleFile): Promise<string> {
    return this.blob(file.sha256);
  }

  async searchIndex(): Promise<SearchIndex> {
    this.index ??= JSON.parse(this.blob(this.catalog.manifest.searchIndex)) as SearchIndex;
    return this.index;
  }

  private blob(sha: string): string {
    const text = this.blobText(sha);
    if (text === undefined) throw new Error(`Bundle blob ${sha.slice(0, 12)} is missing; rebuild the bundle.`);
    return text;
  }
}
