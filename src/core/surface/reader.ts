// What the surface needs from a bundle store: the catalog, file text, and the search index.
// The Worker implements it over KV/R2, the bridge over files; both cache per bundle id.
import type { BundleFile, SearchIndex } from "../catalog/bundle.js";
import type { Catalog } from "../catalog/catalog.js";

export interface BundleReader {
  readonly catalog: Catalog;
  readText(file: BundleFile): Promise<string>;
  searchIndex(): Promise<SearchIndex>;
}
