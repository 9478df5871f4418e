// CLI: npm run bundle:upload -- --local|--remote [--dir bmad-bundle] [--persist-to .wrangler/state] [--config wrangler.toml]
// Blobs first (KV, or R2 above 1 MiB), then the manifest, then LAST the pointer `bundle:current`.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseToml } from "smol-toml";
import { loadBundleFromDir } from "../src/compiler/read";
import { planUpload } from "../src/compiler/upload-plan";
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

function bucketName(config: string): string {
  if (!existsSync(config)) return "bmad-bundle";
  const toml = parseToml(readFileSync(config, "utf8")) as { r2_buckets?: Array<{ binding?: string; bucket_name?: string }> };
  return toml.r2_buckets?.find((b) => b.binding === "BUNDLE_R2")?.bucket_name ?? "bmad-bundle";
}

export async function uploadBundle(args: UploadArgs, log: (m: string) => void = console.log): Promise<string> {
  const started = performance.now();
  const { manifest, blobs } = loadBundleFromDir(resolve(args.dir));
  const plan = planUpload(manifest, new Map([...blobs].map(([sha, b]) => [sha, b.length])));
  const config = resolve(args.config ?? join(ROOT, "wrangler.toml"));
  const common = [`--${args.target}`, "--config", config, ...(args.target === "local" ? ["--persist-to", resolve(args.persistTo)] : [])];
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
    const bucket = bucketName(config);
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
  log(`uploaded bundle ${manifest.id} (${args.target}): ${plan.kvBatches.flat().length} KV blobs, ${plan.r2.length} R2 blobs, pointer flipped in ${Math.round(performance.now() - started)} ms`);
  return manifest.id;
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
