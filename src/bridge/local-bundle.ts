// The bridge's bundle: the project's own trees (and --path, BMAD_ROOT, ~/.bmad) layered over the
// embedded bundle, rebuilt when one of those trees changes so an edit shows up on the next call.
import { watch, type FSWatcher } from "node:fs";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildBundle } from "../../scripts/bundle/build.js";
import type { BundleManifest, SearchIndex } from "../core/catalog/bundle.js";
import { mergeBundles, type IndexedBundle } from "../core/catalog/merge.js";
import { MemoryBundleReader } from "../core/surface/memory-reader.js";
import type { BundleReader } from "../core/surface/reader.js";

export interface LocalSource {
  /** `origin=path`, as build-bundle takes it. */
  spec: string;
  path: string;
}

const MERGED_INDEX = "merged-search-index";

export class LocalBundle {
  reader: BundleReader;
  private readonly embedded: { manifest: BundleManifest; dir: string; index: SearchIndex };
  private readonly texts = new Map<string, string>();
  private localBlobs = new Map<string, Uint8Array>();
  private dirty: boolean;
  private building?: Promise<void>;
  private watchers: FSWatcher[] = [];

  constructor(
    private readonly sources: LocalSource[],
    embeddedDir: string,
    private readonly warn: (message: string) => void,
  ) {
    const manifest = JSON.parse(readFileSync(join(embeddedDir, "manifest.json"), "utf8")) as BundleManifest;
    const index = JSON.parse(readFileSync(join(embeddedDir, "blobs", manifest.searchIndex), "utf8")) as SearchIndex;
    this.embedded = { manifest, dir: embeddedDir, index };
    // Serve the embedded bundle at once; the local trees are layered on before the first call that reads it.
    this.reader = this.install(mergeBundles([{ manifest, searchIndex: index }], manifest.id), new Map());
    this.dirty = sources.length > 0;
  }

  /** Rebuilds first if a local tree changed since the last build. */
  async ready(): Promise<void> {
    if (!this.dirty) return;
    this.building ??= this.rebuild().finally(() => (this.building = undefined));
    await this.building;
  }

  /** Watches the local trees; any change marks the bundle for a rebuild on the next call. */
  watch(): void {
    for (const { path } of this.sources) {
      try {
        this.watchers.push(watch(path, { recursive: true }, () => (this.dirty = true)));
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
    const layers: IndexedBundle[] = [];
    const blobs = new Map<string, Uint8Array>();
    for (const source of this.sources) {
      try {
        // One build per tree: a broken tree is skipped with a warning, the others still served.
        const built = await buildBundle({ sources: [source.spec], includeDefault: false, warn: this.warn });
        for (const [sha, bytes] of built.blobs) blobs.set(sha, bytes);
        const index = JSON.parse(new TextDecoder().decode(built.blobs.get(built.manifest.searchIndex)!)) as SearchIndex;
        layers.push({ manifest: built.manifest, searchIndex: index });
      } catch (error) {
        const message = (error as Error).message;
        // A project whose _bmad/ holds only kit files (memory, cc-verify.sh) has no tree to layer: no warning.
        if (!(source.spec.startsWith("project=") && message.startsWith("No BMAD tree recognised"))) this.warn(`skipped ${source.path}: ${message}`);
      }
    }
    layers.push({ manifest: this.embedded.manifest, searchIndex: this.embedded.index });
    const id = layers.map((l) => l.manifest.id.slice(0, 16)).join("+");
    this.reader = this.install(mergeBundles(layers, id), blobs);
  }

  private install(merged: IndexedBundle, blobs: Map<string, Uint8Array>): BundleReader {
    merged.manifest.searchIndex = MERGED_INDEX;
    this.localBlobs = blobs;
    this.texts.clear();
    this.texts.set(MERGED_INDEX, JSON.stringify(merged.searchIndex));
    return new MemoryBundleReader(merged.manifest, (sha) => this.blobText(sha));
  }

  private blobText(sha: string): string | undefined {
    let text = this.texts.get(sha);
    if (text !== undefined) return text;
    const local = this.localBlobs.get(sha);
    if (local) text = new TextDecoder().decode(local);
    else if (/^[0-9a-f]{64}$/.test(sha)) {
      try {
        text = readFileSync(join(this.embedded.dir, "blobs", sha), "utf8");
      } catch {
        return undefined;
      }
    }
    if (text !== undefined) this.texts.set(sha, text);
    return text;
  }
}
