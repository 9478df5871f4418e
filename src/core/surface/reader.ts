// What the surface needs from a bundle store: the catalog, file text, and the search index.
// The Worker implements it over KV/R2, the bridge over files; both cache per bundle id.
import type { BundleFile, SearchIndex } from "../catalog/bundle.js";
import type { Catalog } from "../catalog/catalog.js";
import { sanitizeConfigText } from "../catalog/config.js";

export interface BundleReader {
  readonly catalog: Catalog;
  readText(file: BundleFile): Promise<string>;
  searchIndex(): Promise<SearchIndex>;
}

/** A bundle file's text as clients get it: every serving path goes through here, so config is sanitised. */
export async function servedText(reader: BundleReader, file: BundleFile): Promise<string> {
  return sanitizeConfigText(file.path, await reader.readText(file));
}
