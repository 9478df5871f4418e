// Starts the real Worker (bundled by wrangler exactly as for deploy) in workerd through the Miniflare API,
// seeded with a bundle the same way bundle:upload does. Used by the conformance test and the bench,
// which must not measure wrangler dev's extra proxy hop (see ARCHITECTURE "Facts about speed").
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { parse as parseToml } from "smol-toml";
import { loadBundleFromDir } from "../src/compiler/read.js";
import { seedBindings } from "../src/compiler/seed.js";
import { buildDeployed } from "./deploy-check.js";

const ROOT = resolve(import.meta.dirname, "..");
const OUT_DIR = join(ROOT, ".wrangler", "dist");

export interface LocalWorker {
  url: URL;
  miniflare: Miniflare;
  dispose(): Promise<void>;
}

/** The Worker bundled exactly as `npm run deploy` would upload it, without deploying. */
export async function buildWorker(outDir = OUT_DIR): Promise<string> {
  await buildDeployed(outDir);
  return join(outDir, "index.js");
}

export interface LocalWorkerOptions {
  /** The bundle to seed (default bmad-bundle/). */
  bundleDir?: string;
  bindings?: Record<string, string>;
  /** A Worker buildWorker() already made (tests build it once per run); else it is built now. */
  scriptPath?: string;
  /** Storage seedState() made: a copy of it is used, and nothing is seeded (about 1 s of CPU less per start). */
  seeded?: string;
  /** Where workerd keeps storage, kept after dispose (default: Miniflare's temporary storage, gone at dispose). */
  persistTo?: string;
  /** Whether to seed the bundle (default: unless `seeded`); a restart from `persistTo` has it already. */
  seed?: boolean;
  /** The port to listen on (default: any free one); a restart keeps its tokens' resource URL with the same port. */
  port?: number;
}

const KV_NAMESPACES = ["BUNDLE_KV", "OAUTH_KV"];
const R2_BUCKETS = ["BUNDLE_R2"];

export async function startLocalWorker(options: LocalWorkerOptions = {}): Promise<LocalWorker> {
  const config = parseToml(readFileSync(join(ROOT, "wrangler.toml"), "utf8")) as {
    compatibility_date: string;
    compatibility_flags?: string[];
    durable_objects?: { bindings?: Array<{ name: string; class_name: string }> };
  };
  const scriptPath = options.scriptPath ?? (await buildWorker());
  let storage = options.persistTo;
  if (options.seeded) {
    storage = mkdtempSync(join(tmpdir(), "bmad-worker-state-"));
    cpSync(options.seeded, storage, { recursive: true });
  }
  // Miniflare 5 takes a new option shape; the converter keeps this readable in the classic one.
  const miniflare = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      scriptPath,
      compatibilityDate: config.compatibility_date,
      compatibilityFlags: config.compatibility_flags ?? [],
      kvNamespaces: KV_NAMESPACES,
      r2Buckets: R2_BUCKETS,
      // Every Durable Object wrangler.toml declares (all SQLite-backed): none can be forgotten here.
      durableObjects: Object.fromEntries((config.durable_objects?.bindings ?? []).map((b) => [b.name, { className: b.class_name, useSQLite: true }])),
      bindings: { BMAD_TOOLSETS: "", ...options.bindings },
      host: "127.0.0.1",
      port: options.port ?? 0,
      resourcePersistencePath: storage,
    }),
  );
  const dispose = async () => {
    await miniflare.dispose();
    if (options.seeded) rmSync(storage!, { recursive: true, force: true });
  };
  try {
    const url = await miniflare.ready;
    if (options.seed ?? !options.seeded) await seed(miniflare, options.bundleDir ?? join(ROOT, "bmad-bundle"));
    return { url, miniflare, dispose };
  } catch (e) {
    await dispose();
    throw e;
  }
}

/** Seeds the bundle once into `dir`, for startLocalWorker({ seeded: dir }) to start from copies of it. KV and R2 keep
 *  their data apart from the Worker's code, so a stub script holds them: seeding need not wait for the Worker's build. */
export async function seedState(dir: string, bundleDir = join(ROOT, "bmad-bundle")): Promise<void> {
  const miniflare = new Miniflare(
    convertV4MiniflareOptions({ modules: true, script: "export default { fetch: () => new Response(null) };", kvNamespaces: KV_NAMESPACES, r2Buckets: R2_BUCKETS, resourcePersistencePath: dir }),
  );
  try {
    await miniflare.ready;
    await seed(miniflare, bundleDir);
  } finally {
    await miniflare.dispose();
  }
}

async function seed(miniflare: Miniflare, dir: string): Promise<void> {
  const { manifest, blobs } = loadBundleFromDir(dir);
  const decoder = new TextDecoder();
  await seedBindings(await miniflare.getKVNamespace("BUNDLE_KV"), await miniflare.getR2Bucket("BUNDLE_R2"), manifest, (sha) => decoder.decode(blobs.get(sha)!));
}
