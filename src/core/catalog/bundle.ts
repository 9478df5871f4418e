// The bundle contract between scripts/build-bundle (writer) and the Worker / bridge (readers).
// Pure data: no runtime APIs. Paths are POSIX, relative to a BMAD root, never start with "/" or contain "..".

/** Where a tree came from, in seed 000 priority order: a lower number wins. */
export const ORIGIN_PRIORITY = { project: 1, cli: 2, env: 3, user: 4, package: 5 } as const;
export type OriginKind = keyof typeof ORIGIN_PRIORITY;

export type Layout =
  | "v4" // bmad-core/ (package) or .bmad-core/ (installed), install-manifest.yaml
  | "v6-alpha" // bmad/ with _cfg/*.csv
  | "v6-classic-source" // src/{core,bmm}/agents/*.agent.yaml
  | "v6-classic-installed" // _bmad/_config/*-manifest.csv, compiled agents/*.md
  | "v6-skills-source" // src/*-skills/**/SKILL.md + module.yaml
  | "v6-skills-installed"; // _bmad/_config/skill-manifest.csv, skills under .<ide>/skills/

export interface BundleSource {
  kind: "directory" | "npm" | "git";
  /** Human label: package name, directory basename, or repo URL without credentials. Never an absolute path. */
  name: string;
  version?: string;
  origin: OriginKind;
  priority: number;
  layout: Layout;
}

export type RecordKind = "agent" | "workflow" | "task" | "knowledge";

export interface CatalogRecord {
  kind: RecordKind;
  module: string;
  /** Name as the tree spells it: `bmad-agent-pm`, `bmad-prd`, `create-prd`, `pm`. */
  name: string;
  displayName?: string; // persona name, e.g. "John"
  title?: string; // e.g. "Product Manager"
  description?: string;
  icon?: string;
  /** Who wrote it, where the tree says (a workflow.yaml's `author`, a manifest row's). */
  author?: string;
  /** The manifest row's path as the tree wrote it (`bmad/bmm/workflows/prd/workflow.yaml`); absent without a row. */
  path?: string;
  /** Delivery phase when the tree says one (classic workflow folder like `2-plan-workflows`, 6.12 module-help.csv `phase`). */
  phase?: string;
  /** True when the record is a v6.3+ skill (a SKILL.md directory). */
  skill?: boolean;
  /** True for BMAD's deprecated v6 compatibility shims (SKILL.md frontmatter `metadata: { lifecycle: shim }`), which
   *  only forward to the skill that replaced them. Absent otherwise. */
  shim?: boolean;
  /** Index into BundleManifest.sources. */
  source: number;
  /** Bundle path of the main file (agent .md, SKILL.md, workflow.yaml/.md, task .xml/.md). */
  entry: string;
  /** Bundle paths that belong to the record, entry first, then sorted. */
  files: string[];
}

export interface BundleFile {
  path: string;
  source: number;
  sha256: string;
  size: number;
  mime: string;
}

export interface BundleModule {
  name: string;
  title?: string;
  description?: string;
  version?: string;
  source: number;
}

export interface BundleManifest {
  format: 1;
  /** sha256 (hex) of the canonical manifest content without `id`: same input, same id. */
  id: string;
  sources: BundleSource[];
  modules: BundleModule[];
  /** Sorted by kind, module, name, source. Records from every source are kept (not flattened). */
  records: CatalogRecord[];
  /** Sorted by path, then source. The same path may appear once per source; the lowest priority number wins. */
  files: BundleFile[];
  /** Parsed module configuration (installed config.yaml, or module.yaml defaults), keyed by module. Raw: readers sanitise. */
  config: Record<string, Record<string, unknown>>;
  /** sha256 of the search index blob (see SearchIndex). */
  searchIndex: string;
  /** MCP Apps views (src/views), built at bundle time: name -> its self-contained HTML blob. */
  views?: Record<string, { sha256: string; size: number }>;
  /** What is wrong with the trees, each line naming its source: a manifest row without its file, a file without a
   *  row, a root that yields nothing. Shown to clients (instructions, the bmad tool). Absent when there is nothing. */
  warnings?: string[];
}

/** Every blob a manifest names: the files, the search index, the views. */
export function manifestBlobs(manifest: BundleManifest): Set<string> {
  return new Set([...manifest.files.map((f) => f.sha256), manifest.searchIndex, ...Object.values(manifest.views ?? {}).map((v) => v.sha256)]);
}

/** Stored as a blob; `terms[i]` belongs to `records[i]`: lower-cased word -> count in the record's entry file body. */
export interface SearchIndex {
  terms: Array<Record<string, number>>;
  /** Acronyms the content itself defines, e.g. "prd" -> "product requirements document" (see findAcronyms). */
  acronyms?: Record<string, string>;
}

/** Where an uploaded bundle lives: blobs in KV (R2 above KV_MAX_VALUE), then the manifest, then LAST the pointer. */
export const KV_MAX_VALUE = 1024 * 1024;
export const POINTER_KEY = "bundle:current";
export const manifestKey = (id: string): string => `bundle:${id}:manifest`;
export const blobKvKey = (sha: string): string => `blob:${sha}`;
export const blobR2Key = (sha: string): string => `blobs/${sha}`;
