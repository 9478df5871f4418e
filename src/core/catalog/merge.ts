// Several bundles as one: the bridge layers the project's own trees over the embedded bundle.
// Sources are renumbered; records, files and search terms keep their place relative to their source.
import type { BundleManifest, SearchIndex } from "./bundle.js";

export interface IndexedBundle {
  manifest: BundleManifest;
  searchIndex: SearchIndex;
}

export function mergeBundles(bundles: IndexedBundle[], id: string): IndexedBundle {
  const manifest: BundleManifest = { format: 1, id, sources: [], modules: [], records: [], files: [], config: Object.create(null), searchIndex: "" };
  const searchIndex: SearchIndex = { terms: [], acronyms: {} };
  for (const { manifest: m, searchIndex: index } of bundles) {
    const offset = manifest.sources.length;
    manifest.sources.push(...m.sources);
    manifest.modules.push(...m.modules.map((x) => ({ ...x, source: x.source + offset })));
    manifest.records.push(...m.records.map((r) => ({ ...r, source: r.source + offset })));
    manifest.files.push(...m.files.map((f) => ({ ...f, source: f.source + offset })));
    // Earlier bundles have higher priority: their module config wins.
    for (const [module, values] of Object.entries(m.config)) manifest.config[module] ??= values;
    searchIndex.terms.push(...m.records.map((_, i) => index.terms[i] ?? {}));
    for (const [acronym, expansion] of Object.entries(index.acronyms ?? {})) searchIndex.acronyms![acronym] ??= expansion;
    if (m.warnings?.length) (manifest.warnings ??= []).push(...m.warnings);
  }
  return { manifest, searchIndex };
}
