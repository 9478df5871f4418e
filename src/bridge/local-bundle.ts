// The bridge's bundle: the project's own trees (and --path, BMAD_ROOT, ~/.bmad) layered over the
// embedded bundle, rebuilt when one of those trees changes so an edit shows up on the next call.
// Start-up reads only the embedded manifest; search indexes are read when a search first needs them.
// A root that yields nothing is skipped with a warning naming what was looked for; for a root the user
// named (--path, --project) explicitFailures() says so, and the CLI stops at start-up.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BundleManifest, SearchIndex } from "../core/catalog/bundle.js";
import type { GitOptions } from "../compiler/git.js";
import { mergeBundles } from "../core/catalog/merge.js";
import { MemoryBundleReader } from "../core/surface/memory-reader.js";
import type { BundleReader } from "../core/surface/reader.js";
import { bmadScriptsOf, isPortedScriptPath, type BmadScripts } from "../core/runtime/scripts.js";
import type { WatchedFolder } from "./sources.js";
import { FolderWatch } from "./tree-watch.js";

export interface LocalSource {
  /** `origin=path`, as build-bundle takes it. */
  spec: string;
  path: string;
  /** How the user knows this root, for messages: `--path DIR`, `BMAD_ROOT=DIR`, `~/.bmad (DIR)`. */
  label: string;
  /** Named by the user (--path, --project): yielding nothing is an error, not a warning. */
  explicit: boolean;
  /** Finding no BMAD tree here is expected (a project with only the kit's files): say nothing. */
  quietIfNoTree?: boolean;
}

interface Layer {
  manifest: BundleManifest;
  /** The layer's search index, read on first use. */
  index: () => SearchIndex;
}

const MERGED_INDEX = "merged-search-index";
/** Paths under a watched _bmad/ that BMAD's own scripts and the memory tools write. */
const NOT_CONTENT = /^(render|_memory)([/\\]|$)/;
/** With a client listening, how long after the last change the bundle is rebuilt (an editor's save is a few events). */
const RELOAD_DELAY_MS = 100;

export class LocalBundle {
  reader: BundleReader;
  private readonly embedded: Layer;
  private dirty: boolean;
  private building?: Promise<void>;
  private readonly folders: FolderWatch;
  private failures: string[] = [];
  /** explicitFailures() was asked: from now on a named root that breaks is a warning. */
  private checked = false;
  private readonly listeners = new Set<(before: BundleReader, after: BundleReader) => void>();
  /** The local trees were built once: a rebuild after that is a reload, which listeners hear of. */
  private built = false;
  private soon?: ReturnType<typeof setTimeout>;
  /** What the folder watch could not watch (its limit met, or the system's): edits there show only after a restart. */
  private unwatched?: string;

  constructor(
    private readonly sources: LocalSource[],
    private readonly embeddedDir: string,
    private readonly warn: (message: string) => void,
    /** For git sources (--path git+URL): fetched once per process, later rebuilds reuse the checkout. */
    private readonly git?: GitOptions,
  ) {
    const manifest = JSON.parse(readFileSync(join(embeddedDir, "manifest.json"), "utf8")) as BundleManifest;
    let index: SearchIndex | undefined;
    this.embedded = { manifest, index: () => (index ??= JSON.parse(readFileSync(join(embeddedDir, "blobs", manifest.searchIndex), "utf8")) as SearchIndex) };
    // Serve the embedded bundle at once; the local trees are layered on before the first call that reads them.
    this.reader = this.install([this.embedded], new Map());
    this.dirty = sources.length > 0;
    this.folders = new FolderWatch(
      () => {
        this.dirty = true;
        this.reloadSoon();
      },
      (rel) => NOT_CONTENT.test(rel),
      (message) => {
        // Said to clients with the bundle's warnings from the next build on (said once: one rebuild).
        this.unwatched = message;
        this.dirty = true;
        warn(message);
      },
    );
  }

  private scripts?: BmadScripts;

  /** The embedded bundle's scripts by place: the bmad-method package this bridge ships, never the project. */
  embeddedScripts(): BmadScripts {
    return (this.scripts ??= bmadScriptsOf(this.embedded.manifest.files));
  }

  private ported?: ReadonlySet<string>;

  /** The sha256 of the embedded bundle's scripts that have a port: those bytes run only as the port. */
  embeddedPortedDigests(): ReadonlySet<string> {
    return (this.ported ??= new Set(this.embedded.manifest.files.filter((f) => isPortedScriptPath(f.path)).map((f) => f.sha256)));
  }

  /** Builds the local trees now; what each root the user named (explicit) failed to yield, one line each. */
  async explicitFailures(): Promise<string[]> {
    await this.ready();
    this.checked = true;
    return this.failures;
  }

  /** Rebuilds first if a local tree changed since the last build. */
  async ready(): Promise<void> {
    this.folders.restore();
    if (!this.dirty) return;
    this.building ??= this.rebuild().finally(() => (this.building = undefined));
    await this.building;
  }

  /** Calls `listener` with the bundle before and after each reload; from then on a change rebuilds
   *  shortly after it, not on the next call, so a client can be told. Returns what stops it. */
  onReload(listener: (before: BundleReader, after: BundleReader) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private reloadSoon(): void {
    if (!this.listeners.size) return;
    clearTimeout(this.soon);
    this.soon = setTimeout(() => {
      this.ready().then(
        () => this.dirty && this.reloadSoon(),
        (error: unknown) => this.warn(`reload failed: ${(error as Error).message}`),
      );
    }, RELOAD_DELAY_MS);
    this.soon.unref();
  }

  /** Watches the BMAD folders (not whole projects: node_modules, build output, memlogs and artifacts stay
   *  out); a change there marks the bundle for a rebuild on the next call (or soon after,
   *  with a listener). What BMAD's scripts write under
   *  _bmad/ (render snapshots) and project memory are not content, and do not count. */
  watch(folders: WatchedFolder[]): void {
    for (const { folder, source } of folders) this.folders.add(folder, source);
  }

  close(): void {
    clearTimeout(this.soon);
    this.folders.close();
  }

  private async rebuild(): Promise<void> {
    this.dirty = false;
    const layers: Layer[] = [];
    const blobs = new Map<string, Uint8Array>();
    // The compiler (and its YAML/TOML parsers) loads only when there are local trees to build.
    const { buildBundle } = await import("../compiler/build.js");
    const failures: string[] = [];
    // Said on stderr and to clients too (instructions, the first bmad answer): a client sees no stderr.
    const skipped: string[] = [];
    for (const source of this.sources) {
      let problem: { lookedFor?: string; text: string } | undefined;
      try {
        // One build per tree: a broken tree is skipped, the others still served; in a tree, a symlink that
        // leads out is skipped with a warning naming it, the rest of the tree still served.
        const built = await buildBundle({ sources: [source.spec], includeDefault: false, warn: this.warn, userTree: true, indexLater: true, git: this.git });
        for (const [sha, bytes] of built.blobs) blobs.set(sha, bytes);
        layers.push({ manifest: built.manifest, index: built.index! });
      } catch (error) {
        const message = (error as Error).message;
        const at = message.indexOf("Looked for:");
        problem = message.startsWith("No BMAD tree recognised") && at >= 0 ? { lookedFor: message.slice(at), text: message } : { text: message };
      }
      if (!problem || (problem.lookedFor && source.quietIfNoTree)) continue;
      if (source.explicit) {
        failures.push(problem.lookedFor ? `${source.label}: no BMAD tree found. ${problem.lookedFor}` : `${source.label}: ${problem.text}.`);
        // At start-up the bridge stops on it; after an edit it goes on serving the rest, and says so.
        if (!this.checked) continue;
      }
      skipped.push(problem.lookedFor ? `${source.label} has no BMAD tree; skipped. ${problem.lookedFor}` : `skipped ${source.label}: ${problem.text}`);
      this.warn(skipped.at(-1)!);
    }
    this.failures = failures;
    const before = this.built ? this.reader : undefined;
    this.reader = this.install([...layers, this.embedded], blobs, this.unwatched ? [...skipped, this.unwatched] : skipped);
    this.built = true;
    if (before) for (const listener of this.listeners) listener(before, this.reader);
  }

  private install(layers: Layer[], blobs: Map<string, Uint8Array>, skipped: string[] = []): BundleReader {
    const id = layers.map((l) => l.manifest.id.slice(0, 16)).join("+");
    const { manifest } = mergeBundles(layers.map((l) => ({ manifest: l.manifest, searchIndex: { terms: [] } })), id);
    manifest.searchIndex = MERGED_INDEX;
    if (skipped.length) manifest.warnings = [...skipped, ...(manifest.warnings ?? [])];
    // The views are built with the embedded bundle only: local trees bring none.
    if (this.embedded.manifest.views) manifest.views = this.embedded.manifest.views;
    // Each reader keeps its own bundle's blobs: a call still answering from the bundle before a reload reads that one
    // whole, never the next one's (a prompt read during a reload found its SKILL.md's blob gone: "missing").
    const texts = new Map<string, string>();
    return new MemoryBundleReader(manifest, (sha) => this.blobText(sha, layers, blobs, texts));
  }

  private blobText(sha: string, layers: Layer[], blobs: Map<string, Uint8Array>, texts: Map<string, string>): string | undefined {
    let text = texts.get(sha);
    if (text !== undefined) return text;
    if (sha === MERGED_INDEX) {
      text = JSON.stringify(mergeBundles(layers.map((l) => ({ manifest: l.manifest, searchIndex: l.index() })), "").searchIndex);
    } else if (blobs.has(sha)) text = new TextDecoder().decode(blobs.get(sha));
    else if (/^[0-9a-f]{64}$/.test(sha)) {
      try {
        text = readFileSync(join(this.embeddedDir, "blobs", sha), "utf8");
      } catch {
        return undefined;
      }
    }
    if (text !== undefined) texts.set(sha, text);
    return text;
  }
}
