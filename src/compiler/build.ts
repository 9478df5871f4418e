// buildBundle: specs -> resolved trees -> manifest + blobs -> output dir. The CLI is a thin wrapper.
import { ORIGIN_PRIORITY, type BundleManifest, type SearchIndex } from "../core/catalog/bundle";
import { sep } from "node:path";
import { Tree } from "./files";
import { readTree } from "./detect";
import type { GitOptions } from "./git";
import { assemble, type BuiltSource, oneLine } from "./manifest";
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
    // Each warning is said on stderr (or the log) and, with the tree's own paths only, in the bundle's warnings,
    // which the instructions and answers show: a skipped link or config said on stderr alone reaches no one in a chat.
    const warnTree = (m: string, shown = m) => capped.warn(m, withinTree(tree, shown));
    const tree: Tree = new Tree(resolved.root, { warn: warnTree, userTree: opts.userTree });
    const content = readTree({ tree, warn: warnTree }, capped.shown);
    // What was left unread or is out of date is in the bundle's warnings however many came before.
    const always = [...tree.cuts, ...(resolved.stale ? [resolved.stale] : [])];
    for (const cut of tree.cuts) capped.warn(`${tree.label()}: ${cut}`, null);
    if (resolved.stale) capped.warn(`${resolved.source.name}: ${resolved.stale}`, null);
    capped.end();
    const warnings = [...(content.warnings ?? []), ...always, ...capped.shown];
    if (warnings.length) content.warnings = warnings;
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
/** Characters of one warning clients are shown: a TOML parser's error quotes the lines around it. */
const MAX_SHOWN_WARNING = 300;

/** A source's warnings: the first MAX_WARNINGS_PER_SOURCE go to `warn` and to `shown`, the text clients are given
 *  (`text`, the message itself by default, none when null), then one line counting the rest. One already said is
 *  not said again (600,000 manifest rows alike gave 20 lines alike). */
function cappedWarnings(warn: (message: string) => void, source: string): { warn: (message: string, text?: string | null) => void; end: () => void; shown: string[] } {
  let count = 0;
  const said = new Set<string>();
  const shown: string[] = [];
  return {
    shown,
    warn: (m, text = m) => {
      if (said.has(m)) return;
      if (++count > MAX_WARNINGS_PER_SOURCE) return;
      said.add(m);
      warn(m);
      if (text !== null) shown.push(oneLine(text, MAX_SHOWN_WARNING));
    },
    end: () => {
      if (count <= MAX_WARNINGS_PER_SOURCE) return;
      warn(`... and ${count - MAX_WARNINGS_PER_SOURCE} more warnings from ${source}`);
      shown.push(`... and ${count - MAX_WARNINGS_PER_SOURCE} more warnings`);
    },
  };
}

/** A tree's message with the tree's place on this machine left out (paths from its root): a bundle's warnings name no
 *  machine paths, and a built bundle is served to others. */
function withinTree(tree: Tree, message: string): string {
  const label = tree.label();
  // A path outside the tree is not named to clients: it tells the layout of the user's machine (review 346: another
  // client's folder in the home). A refused link's target is never in the text (Tree.real); this is a last guard.
  const text = message.replaceAll(` in ${tree.root}:`, ":").replaceAll(`${tree.root}${sep}`, "").replaceAll(tree.root, ".").replace(/(^|[\s"'`(])\/[^\s"'`)]*/g, "$1(a path outside the tree)");
  if (!label || label === tree.root) return text;
  // The label is relative to the working folder: taken off only where a path starts.
  return text.replace(new RegExp(`(^|[\\s"'\`(])${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/`, "g"), "$1");
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
