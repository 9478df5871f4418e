// What the surface needs from a bundle store: the catalog, file text, and the search index.
// The Worker implements it over KV/R2, the bridge over files; both cache per bundle id.
import type { BundleFile, SearchIndex } from "../catalog/bundle.js";
import type { Catalog } from "../catalog/catalog.js";
import { mayServeAsConfig, sanitizeConfigText } from "../catalog/config.js";

export interface BundleReader {
  readonly catalog: Catalog;
  readText(file: BundleFile): Promise<string>;
  searchIndex(): Promise<SearchIndex>;
}

/** A bundle file's text as clients get it: every serving path goes through here, so config is sanitised. */
export async function servedText(reader: BundleReader, file: BundleFile): Promise<string> {
  const text = await reader.readText(file);
  if (!mayServeAsConfig(file.path)) return text;
  // A bundle file is its content's: its served text is made once (a skill's customize.toml, parsed on every render
  // once it was config-shaped, cost a render half a millisecond).
  const key = `${file.sha256}\0${file.path}`;
  let served = SERVED.get(key);
  if (served === undefined) {
    if (SERVED.size >= 256) SERVED.clear();
    SERVED.set(key, (served = sanitizeConfigText(file.path, text)));
  }
  return served;
}
const SERVED = new Map<string, string>();
