// buildBundle: specs -> resolved trees -> manifest + blobs -> output dir. The CLI is a thin wrapper.
import { ORIGIN_PRIORITY, type BundleManifest, type SearchIndex } from "../core/catalog/bundle";
import { Tree } from "./files";
import { readTree } from "./detect";
import type { GitOptions } from "./git";
import { assemble, type BuiltSource } from "./manifest";
import { parseSpec, resolveSource, type SourceSpec } from "./sources";
import { writeBundle } from "./write";

export interface BuildOptions {
  sources: string[];
  outDir?: string;
  /** Include the bmad-method package at priority 5 (default true). */
  includeDefault?: boolean;
  cwd?: string;
  log?: (line: string) => void;
  /** Where warnings go (without a "warning:" prefix); default: log, prefixed. */
  warn?: (message: string) => void;
  /** Trees on the user's machine that the model, a collaborator or a repository may have written (the bridge's): a
   *  link that leaves one is skipped (and warned about) rather than refusing the whole tree, and so is a hard link. */
  userTree?: boolean;
  /** Make the search index on first use (BuildResult.index), for a bundle kept in memory; not with outDir. */
  indexLater?: boolean;
  /** Git sources' cache, time limit and runner (the bridge's own; default: node_modules/.cache/bmad-git, 120 s). */
  git?: GitOptions;
  /** MCP Apps views' HTML by name (scripts/build-views.ts), stored as blobs the manifest names. */
  views?: Map<string, Uint8Array>;
}

export interface BuildResult {
  manifest: BundleManifest;
  blobs: Map<string, Uint8Array>;
  index?: () => SearchIndex;
  manifestSize?: number;
  warnings: string[];
  ms: number;
}

export const DEFAULT_PACKAGE = "bmad-method";

export async function buildBundle(opts: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const cwd = opts.cwd ?? process.cwd();
  const log = opts.log ?? (() => {});
  const warnings: string[] = [];
  const warn = (m: string) => {
    warnings.push(m);
    if (opts.warn) opts.warn(m);
    else log(`warning: ${m}`);
  };
  const specs: SourceSpec[] = opts.sources.map(parseSpec);
  if (opts.includeDefault !== false) specs.push({ origin: "package", location: DEFAULT_PACKAGE, kind: "npm" });
  if (!specs.length) throw new Error("No sources: pass --source or drop --no-default");
  // Stable sort: lower priority number first, command-line order within a priority.
  const ordered = specs.map((s, i) => ({ s, i })).sort((a, b) => prio(a.s) - prio(b.s) || a.i - b.i).map((x) => x.s);

  const built: BuiltSource[] = [];
  let fileCount = 0;
  for (const spec of ordered) {
    const resolved = await resolveSource(spec, cwd, log, opts.git);
    const capped = cappedWarnings(warn, resolved.source.name);
    const tree = new Tree(resolved.root, { warn: capped.warn, userTree: opts.userTree });
    const content = readTree({ tree, warn: capped.warn });
    // In the bundle's warnings, which answers show, as well as on stderr.
    for (const cut of tree.cuts) {
      capped.warn(`${tree.label()}: ${cut}`);
      (content.warnings ??= []).push(cut);
    }
    if (resolved.stale) {
      capped.warn(`${resolved.source.name}: ${resolved.stale}`);
      (content.warnings ??= []).push(resolved.stale);
    }
    capped.end();
    const source = { ...resolved.source, layout: content.layout };
    if (content.version && source.kind !== "npm") source.version ??= content.version;
    built.push({ source, tree, content });
    const before = fileCount;
    fileCount += content.files.size;
    if (Math.floor(fileCount / 500) > Math.floor(before / 500)) log(`... ${fileCount} files read`);
  }
  if (opts.indexLater && opts.outDir) throw new Error("indexLater: a bundle written out needs its search index");
  const { manifest, blobs, index } = assemble(built, { indexLater: opts.indexLater, views: opts.views });
  const manifestSize = opts.outDir ? writeBundle(opts.outDir, { manifest, blobs }) : undefined;
  return { manifest, blobs, index, manifestSize, warnings, ms: Math.round(performance.now() - started) };
}

/** Warnings one source gives a build, the rest counted: a 1 MiB skill-manifest.csv the model wrote gave 17,818
 *  lines at every rebuild (review 27). */
export const MAX_WARNINGS_PER_SOURCE = 20;

function cappedWarnings(warn: (message: string) => void, source: string): { warn: (message: string) => void; end: () => void } {
  let count = 0;
  return {
    warn: (m) => {
      if (++count <= MAX_WARNINGS_PER_SOURCE) warn(m);
    },
    end: () => {
      if (count > MAX_WARNINGS_PER_SOURCE) warn(`... and ${count - MAX_WARNINGS_PER_SOURCE} more warnings from ${source}`);
    },
  };
}

function prio(s: SourceSpec): number {
  return ORIGIN_PRIORITY[s.origin];
}

/** Human summary: per source, then counts per module and kind, files and bytes. */
export function summarize(result: BuildResult): string[] {
  const { manifest } = result;
  const lines: string[] = [];
  manifest.sources.forEach((s, i) => {
    lines.push(`source ${i}: ${s.name}${s.version ? `@${s.version}` : ""} [${s.kind}] layout=${s.layout} origin=${s.origin} priority=${s.priority}`);
    const counts = new Map<string, Map<string, number>>();
    for (const r of manifest.records.filter((r) => r.source === i)) {
      const m = counts.get(r.module) ?? new Map<string, number>();
      m.set(r.kind, (m.get(r.kind) ?? 0) + 1);
      counts.set(r.module, m);
    }
    for (const [mod, kinds] of [...counts].sort(([a], [b]) => (a < b ? -1 : 1))) {
      lines.push(`  ${mod}: ${[...kinds].map(([k, n]) => `${n} ${k}`).join(", ")}`);
    }
    const files = manifest.files.filter((f) => f.source === i);
    lines.push(`  files: ${files.length}, bytes: ${files.reduce((n, f) => n + f.size, 0)}`);
  });
  const bytes = [...result.blobs.values()].reduce((n, b) => n + b.length, 0);
  lines.push(
    `bundle ${manifest.id}: ${manifest.records.length} records, ${manifest.files.length} files, ${result.blobs.size} blobs (${bytes} bytes)` +
      (result.manifestSize !== undefined ? `, manifest.json ${result.manifestSize} bytes` : ""),
  );
  if (result.warnings.length) lines.push(`${result.warnings.length} warning(s)`);
  lines.push(`done in ${result.ms} ms`);
  return lines;
}
