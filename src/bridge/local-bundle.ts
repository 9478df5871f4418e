// The bridge's bundle: the project's own trees (and --path, BMAD_ROOT, ~/.bmad) layered over the
// embedded bundle, rebuilt when one of those trees changes so an edit shows up on the next call.
// Start-up reads only the embedded manifest; search indexes are read when a search first needs them.
import { readFileSync, watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import type { BundleManifest, SearchIndex } from "../core/catalog/bundle.js";
import { mergeBundles } from "../core/catalog/merge.js";
import { MemoryBundleReader } from "../core/surface/memory-reader.js";
import type { BundleReader } from "../core/surface/reader.js";

export interface LocalSource {
  /** `origin=path`, as build-bundle takes it. */
  spec: string;
  path: string;
}

interface Layer {
  manifest: BundleManifest;
  /** The layer's search index, read on first use. */
  index: () => SearchIndex;
}

const MERGED_INDEX = "merged-search-index";
/** Paths under a watched _bmad/ that BMAD's own scripts and the memory tools write. */
const NOT_CONTENT = /^(render|_memory)([/\\]|$)/;

export class LocalBundle {
  reader: BundleReader;
  private readonly embedded: Layer;
  private readonly texts = new Map<string, string>();
  private localBlobs = new Map<string, Uint8Array>();
  private layers: Layer[] = [];
  private dirty: boolean;
  private building?: Promise<void>;
  private watchers: FSWatcher[] = [];

  constructor(
    private readonly sources: LocalSource[],
    private readonly embeddedDir: string,
    private readonly warn: (message: string) => void,
  ) {
    const manifest = JSON.parse(readFileSync(join(embeddedDir, "manifest.json"), "utf8")) as BundleManifest;
    let index: SearchIndex | undefined;
    this.embedded = { manifest, index: () => (index ??= JSON.parse(readFileSync(join(embeddedDir, "blobs", manifest.searchIndex), "utf8")) as SearchIndex) };
    // Serve the embedded bundle at once; the local trees are layered on before the first call that reads them.
    this.reader = this.install([this.embedded], new Map());
    this.dirty = sources.length > 0;
  }

  /** Rebuilds first if a local tree changed since the last build. */
  async ready(): Promise<void> {
    if (!this.dirty) return;
    this.building ??= this.rebuild().finally(() => (this.building = undefined));
    await this.building;
  }

  /** Watches the BMAD folders (not whole projects: node_modules, build output, memlogs and artifacts stay
   *  out); a change there marks the bundle for a rebuild on the next call. What BMAD's scripts write under
   *  _bmad/ (render snapshots) and project memory are not content, and do not count. */
  watch(dirs: string[]): void {
    for (const path of dirs) {
      try {
        this.watchers.push(watch(path, { recursive: true }, (_event, name) => !(name && NOT_CONTENT.test(name)) && (this.dirty = true)));
      } catch (error) {
        this.warn(`cannot watch ${path} (${(error as Error).message}); edits there need a restart`);
      }
    }
  }

  close(): void {
    for (const w of this.watchers) w.close();
  }

  private async rebuild(): Promise<void> {
    this.dirty = false;
    const layers: Layer[] = [];
    const blobs = new Map<string, Uint8Array>();
    // The compiler (and its YAML/TOML parsers) loads only when there are local trees to build.
    const { buildBundle } = await import("../../scripts/bundle/build.js");
    for (const source of this.sources) {
      try {
        // One build per tree: a broken tree is skipped with a warning, the others still served; in a tree,
        // a symlink that leads out is skipped with a warning naming it, the rest of the tree still served.
        const built = await buildBundle({ sources: [source.spec], includeDefault: false, warn: this.warn, skipEscapingLinks: true });
        for (const [sha, bytes] of built.blobs) blobs.set(sha, bytes);
        const bytes = built.blobs.get(built.manifest.searchIndex)!;
        layers.push({ manifest: built.manifest, index: () => JSON.parse(new TextDecoder().decode(bytes)) as SearchIndex });
      } catch (error) {
        const message = (error as Error).message;
        // A project whose _bmad/ holds only kit files (memory, cc-verify.sh) has no tree to layer: no warning.
        if (!(source.spec.startsWith("project=") && message.startsWith("No BMAD tree recognised"))) this.warn(`skipped ${source.path}: ${message}`);
      }
    }
    this.reader = this.install([...layers, this.embedded], blobs);
  }

  private install(layers: Layer[], blobs: Map<string, Uint8Array>): BundleReader {
    const id = layers.map((l) => l.manifest.id.slice(0, 16)).join("+");
    const { manifest } = mergeBundles(layers.map((l) => ({ manifest: l.manifest, searchIndex: { terms: [] } })), id);
    manifest.searchIndex = MERGED_INDEX;
    this.layers = layers;
    this.localBlobs = blobs;
    this.texts.clear();
    return new MemoryBundleReader(manifest, (sha) => this.blobText(sha));
  }

  private blobText(sha: string): string | undefined {
    let text = this.texts.get(sha);
    if (text !== undefined) return text;
    if (sha === MERGED_INDEX) {
      const layers = this.layers.map((l) => ({ manifest: l.manifest, searchIndex: l.index() }));
      text = JSON.stringify(mergeBundles(layers, "").searchIndex);
    } else if (this.localBlobs.has(sha)) text = new TextDecoder().decode(this.localBlobs.get(sha));
    else if (/^[0-9a-f]{64}$/.test(sha)) {
      try {
        text = readFileSync(join(this.embeddedDir, "blobs", sha), "utf8");
      } catch {
        return undefined;
      }
    }
    if (text !== undefined) this.texts.set(sha, text);
    return text;
  }
}
