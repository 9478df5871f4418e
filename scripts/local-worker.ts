// Starts the real Worker (bundled by wrangler exactly as for deploy) in workerd through the Miniflare API,
// seeded with a bundle the same way bundle:upload does. Used by the conformance test and the bench,
// which must not measure wrangler dev's extra proxy hop (see ARCHITECTURE "Facts about speed").
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { parse as parseToml } from "smol-toml";
import { loadBundleFromDir } from "./bundle/read.js";
import { seedBindings } from "./bundle/seed.js";

const ROOT = resolve(import.meta.dirname, "..");
const OUT_DIR = join(ROOT, ".wrangler", "dist");

export interface LocalWorker {
  url: URL;
  miniflare: Miniflare;
  dispose(): Promise<void>;
}

/** wrangler needs Node >= 22.12: run it under the `node` devDependency. */
export async function buildWorker(): Promise<string> {
  const node22 = join(ROOT, "node_modules", "node", "bin", "node");
  const node = existsSync(node22) ? node22 : process.execPath;
  const entry = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
  await promisify(execFile)(node, [entry, "deploy", "--dry-run", "--outdir", OUT_DIR], {
    cwd: ROOT,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    maxBuffer: 16 << 20,
  });
  return join(OUT_DIR, "index.js");
}

export async function startLocalWorker(options: { bundleDir?: string; bindings?: Record<string, string> } = {}): Promise<LocalWorker> {
  const config = parseToml(readFileSync(join(ROOT, "wrangler.toml"), "utf8")) as { compatibility_date: string; compatibility_flags?: string[] };
  const scriptPath = await buildWorker();
  // Miniflare 5 takes a new option shape; the converter keeps this readable in the classic one.
  const miniflare = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      scriptPath,
      compatibilityDate: config.compatibility_date,
      compatibilityFlags: config.compatibility_flags ?? [],
      kvNamespaces: ["BUNDLE_KV", "OAUTH_KV"],
      r2Buckets: ["BUNDLE_R2"],
      durableObjects: {
        WORKFLOW_SESSION: { className: "WorkflowSession", useSQLite: true },
        OWNER_SESSIONS: { className: "OwnerSessions", useSQLite: true },
      },
      bindings: { BMAD_TOOLSETS: "", ...options.bindings },
      host: "127.0.0.1",
      port: 0,
    }),
  );
  const url = await miniflare.ready;
  await seed(miniflare, options.bundleDir ?? join(ROOT, "bmad-bundle"));
  return { url, miniflare, dispose: () => miniflare.dispose() };
}

async function seed(miniflare: Miniflare, dir: string): Promise<void> {
  const { manifest, blobs } = loadBundleFromDir(dir);
  const decoder = new TextDecoder();
  await seedBindings(await miniflare.getKVNamespace("BUNDLE_KV"), await miniflare.getR2Bucket("BUNDLE_R2"), manifest, (sha) => decoder.decode(blobs.get(sha)!));
}
