// What a layout reader returns for one source tree, before sources are merged into a manifest.
import type { BundleModule, CatalogRecord, Layout } from "../core/catalog/bundle";
import type { Tree } from "./files";

export type TreeRecord = Omit<CatalogRecord, "source">;
/** A module's name as a bundle path's first part: one plain word. */
export const MODULE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export type TreeModule = Omit<BundleModule, "source">;

export interface TreeContent {
  layout: Layout;
  /** Bundle path -> path relative to the tree root. */
  files: Map<string, string>;
  records: TreeRecord[];
  modules: TreeModule[];
  /** By module name, as the tree names them: a null-prototype object (a module may be called "constructor"). */
  config: Record<string, Record<string, unknown>>;
  /** BMAD version when the tree states one (installed manifests). */
  version?: string;
  /** Disagreements between the tree's manifests and its folders, for clients (BundleManifest.warnings): paths
   *  relative to the tree, no machine paths. */
  warnings?: string[];
}

export interface ReadContext {
  tree: Tree;
  warn: (message: string) => void;
}

/** Adds every text file below `dir` (tree-relative) under bundle prefix `prefix`. */
export function addDir(ctx: ReadContext, files: Map<string, string>, dir: string, prefix: string): string[] {
  const added: string[] = [];
  for (const rel of ctx.tree.walk(dir)) {
    const sub = dir === "" ? rel : rel.slice(dir.length + 1);
    const path = prefix ? `${prefix}/${sub}` : sub;
    files.set(path, rel);
    added.push(path);
  }
  return added;
}

/** Entry first, then the rest sorted, only paths present in the bundle. */
export function recordFiles(entry: string, paths: Iterable<string>, files: Map<string, string>): string[] {
  const rest = [...new Set(paths)].filter((p) => p !== entry && files.has(p)).sort();
  return [entry, ...rest];
}

/** Paths in `files` that live below bundle directory `dir`. From an index of every folder's paths, made once for
 *  the map as it is (a scan of every path for each record cost 13 s of CPU on 10,000 planted skills): the readers
 *  add paths and never remove one while they make records, so a map of the same size has the same paths. */
export function filesUnder(files: Map<string, string>, dir: string): readonly string[] {
  return dir ? (folderIndex(files).get(dir) ?? []) : [...files.keys()];
}

/** Each folder's paths in `files` (filesUnder's index), for the map as it is now. */
export function folderIndex(files: Map<string, string>): ReadonlyMap<string, readonly string[]> {
  let index = folderIndexes.get(files);
  if (index?.size !== files.size) {
    index = { size: files.size, under: new Map() };
    for (const path of files.keys()) {
      for (let i = path.indexOf("/"); i > 0; i = path.indexOf("/", i + 1)) {
        const folder = path.slice(0, i);
        const list = index.under.get(folder);
        if (list) list.push(path);
        else index.under.set(folder, [path]);
      }
    }
    folderIndexes.set(files, index);
  }
  return index.under;
}

const folderIndexes = new WeakMap<Map<string, string>, { size: number; under: Map<string, string[]> }>();

export function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

export function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
