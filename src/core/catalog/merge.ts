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
    // Loops, not push(...list): a spread of a few hundred thousand entries overflows the stack.
    for (const s of m.sources) manifest.sources.push(s);
    for (const x of m.modules) manifest.modules.push({ ...x, source: x.source + offset });
    for (const r of m.records) manifest.records.push({ ...r, source: r.source + offset });
    for (const f of m.files) manifest.files.push({ ...f, source: f.source + offset });
    // Earlier bundles have higher priority: their module config wins.
    for (const [module, values] of Object.entries(m.config)) manifest.config[module] ??= values;
    m.records.forEach((_, i) => searchIndex.terms.push(index.terms[i] ?? {}));
    for (const [acronym, expansion] of Object.entries(index.acronyms ?? {})) searchIndex.acronyms![acronym] ??= expansion;
    for (const w of m.warnings ?? []) (manifest.warnings ??= []).push(w);
  }
  return { manifest, searchIndex };
}
