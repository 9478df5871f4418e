// CLI: npm run bundle:upload -- --local|--remote [--dir bmad-bundle] [--persist-to .wrangler/state] [--config wrangler.toml]
// Blobs first (KV, or R2 above 1 MiB), then the manifest, then LAST the pointer `bundle:current`.
// --local writes only what the local store lacks, through Miniflare with the persistence wrangler dev reads.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { parse as parseToml } from "smol-toml";
import { loadBundleFromDir } from "../src/compiler/read";
import { planUpload, type UploadPlan } from "../src/compiler/upload-plan";
import { runWrangler as wrangler } from "./wrangler";

const USAGE = `usage: npm run bundle:upload -- --local|--remote [--dir bmad-bundle] [--persist-to .wrangler/state] [--config wrangler.toml]`;
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export interface UploadArgs {
  target: "local" | "remote";
  dir: string;
  persistTo: string;
  config?: string;
}

export function parseUploadArgs(argv: string[]): UploadArgs {
  let target: UploadArgs["target"] | undefined;
  const args: Omit<UploadArgs, "target"> = { dir: "bmad-bundle", persistTo: ".wrangler/state" };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (!v) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === "--local" || a === "--remote") {
      if (target) throw new Error("Pass exactly one of --local or --remote");
      target = a === "--local" ? "local" : "remote";
    } else if (a === "--dir") args.dir = value();
    else if (a === "--persist-to") args.persistTo = value();
    else if (a === "--config") args.config = value();
    else throw new Error(`Unknown argument "${a}"`);
  }
  if (!target) throw new Error("Pass --local (feeds wrangler dev) or --remote");
  return { target, ...args };
}

/** The bundle's KV namespace id and R2 bucket name in wrangler.toml. */
function storeNames(config: string): { kvId: string; bucket: string } {
  const toml = (existsSync(config) ? parseToml(readFileSync(config, "utf8")) : {}) as {
    kv_namespaces?: Array<{ binding?: string; id?: string }>;
    r2_buckets?: Array<{ binding?: string; bucket_name?: string }>;
  };
  return {
    kvId: toml.kv_namespaces?.find((k) => k.binding === "BUNDLE_KV")?.id ?? "BUNDLE_KV",
    bucket: toml.r2_buckets?.find((b) => b.binding === "BUNDLE_R2")?.bucket_name ?? "bmad-bundle",
  };
}

export async function uploadBundle(args: UploadArgs, log: (m: string) => void = console.log): Promise<string> {
  const started = performance.now();
  const { manifest, blobs } = loadBundleFromDir(resolve(args.dir));
  const plan = planUpload(manifest, new Map([...blobs].map(([sha, b]) => [sha, b.length])));
  const config = resolve(args.config ?? join(ROOT, "wrangler.toml"));
  if (args.target === "local") {
    const manifestText = readFileSync(join(resolve(args.dir), "manifest.json"), "utf8");
    const sent = await uploadLocal(resolve(args.persistTo), storeNames(config), manifestText, blobs, plan);
    const what = sent.blobs || sent.pointer ? `${sent.blobs} new blobs${sent.pointer ? ", pointer flipped" : ""}` : "already there, nothing to upload";
    log(`bundle ${manifest.id.slice(0, 12)} in the local store (${args.persistTo}): ${what} (${Math.round(performance.now() - started)} ms)`);
    return manifest.id;
  }
  const common = ["--remote", "--config", config];
  const kv = ["--binding", "BUNDLE_KV", ...common];
  const tmp = mkdtempSync(join(tmpdir(), "bmad-upload-"));
  try {
    for (const [n, batch] of plan.kvBatches.entries()) {
      const file = join(tmp, `kv-${n}.json`);
      const entries = batch.map(({ key, sha }) => ({ key, value: Buffer.from(blobs.get(sha)!).toString("base64"), base64: true }));
      writeFileSync(file, JSON.stringify(entries));
      log(`KV batch ${n + 1}/${plan.kvBatches.length}: ${batch.length} blobs`);
      await wrangler(["kv", "bulk", "put", file, ...kv]);
    }
    const { bucket } = storeNames(config);
    for (const { key, sha } of plan.r2) {
      const file = join(tmp, sha);
      writeFileSync(file, blobs.get(sha)!);
      log(`R2 ${bucket}/${key}`);
      await wrangler(["r2", "object", "put", `${bucket}/${key}`, "--file", file, ...common]);
    }
    const manifestFile = join(resolve(args.dir), "manifest.json");
    await wrangler(["kv", "key", "put", plan.manifestKey, "--path", manifestFile, ...kv]);
    await wrangler(["kv", "key", "put", plan.pointer.key, plan.pointer.value, ...kv]);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  log(`uploaded bundle ${manifest.id} (remote): ${plan.kvBatches.flat().length} KV blobs, ${plan.r2.length} R2 blobs, pointer flipped in ${Math.round(performance.now() - started)} ms`);
  return manifest.id;
}

/** Writes into the store `wrangler dev --persist-to` reads (the same Miniflare and layout wrangler's own
 *  `--local` commands use) only the blobs it lacks, then the manifest and the pointer if they differ. */
async function uploadLocal(
  persistTo: string,
  names: { kvId: string; bucket: string },
  manifestText: string,
  blobs: Map<string, Uint8Array>,
  plan: UploadPlan,
): Promise<{ blobs: number; pointer: boolean }> {
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      script: "export default {};",
      resourcePersistencePath: join(persistTo, "v3"),
      kvNamespaces: { BUNDLE_KV: names.kvId },
      r2Buckets: { BUNDLE_R2: names.bucket },
    }),
  );
  try {
    const kv = await mf.getKVNamespace("BUNDLE_KV");
    const r2 = await mf.getR2Bucket("BUNDLE_R2");
    const stored = new Set<string>();
    for (let cursor: string | undefined; ; ) {
      const page = await kv.list({ prefix: "blob:", ...(cursor ? { cursor } : {}) });
      for (const key of page.keys) stored.add(key.name);
      if (page.list_complete) break;
      cursor = page.cursor;
    }
    for (let cursor: string | undefined; ; ) {
      const page = await r2.list({ prefix: "blobs/", ...(cursor ? { cursor } : {}) });
      for (const object of page.objects) stored.add(object.key);
      if (!page.truncated) break;
      cursor = page.cursor;
    }
    const missing = [...plan.kvBatches.flat(), ...plan.r2].filter(({ key }) => !stored.has(key));
    const isR2 = new Set(plan.r2.map(({ key }) => key));
    for (let i = 0; i < missing.length; i += 64) {
      await Promise.all(missing.slice(i, i + 64).map(({ key, sha }) => (isR2.has(key) ? r2.put(key, blobs.get(sha)!) : kv.put(key, blobs.get(sha)!))));
    }
    const pointer = (await kv.get(plan.pointer.key, "text")) !== plan.pointer.value;
    if (pointer || missing.length) {
      await kv.put(plan.manifestKey, manifestText);
      await kv.put(plan.pointer.key, plan.pointer.value);
    }
    return { blobs: missing.length, pointer };
  } finally {
    await mf.dispose();
  }
}

async function main(): Promise<void> {
  let args: UploadArgs;
  try {
    args = parseUploadArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  try {
    await uploadBundle(args);
  } catch (err) {
    console.error(`upload failed: ${(err as Error).message}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
