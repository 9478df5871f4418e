// What `npm run deploy` would upload, measured offline: `wrangler deploy --dry-run` writes the Worker script, and
// `wrangler check startup` profiles its startup in a local workerd (no account, no network). Budgets: 450 KiB gzip
// (Cloudflare counts the compressed size) and 100 ms of startup CPU. `tsx scripts/deploy-check.ts` prints both.
// The profiler samples wall time, so a busy machine only ever adds to it: the startup time is the least of 5 runs
// (a check against a budget stops at the first run within it: the least can only be lower).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { runWrangler } from "./wrangler.js";

/** The flags `npm run deploy` passes to `wrangler deploy` (package.json); measured with the same ones. */
export const DEPLOY_FLAGS = ["--minify"];
/** Cloudflare takes 3 MiB gzip on the free plan: this budget keeps the upload and the startup (the user-facing cost,
 *  STARTUP_BUDGET_MS) well within it. Raised from 400 KiB at 402.7 (2026-11-29), its growth a week of limits and checks. */
export const SCRIPT_GZIP_BUDGET = 450 * 1024;
export const STARTUP_BUDGET_MS = 100;
const STARTUP_RUNS = 5;

export interface DeployCheck {
  /** The modules wrangler would upload (source maps aside), raw and gzipped. */
  scriptBytes: number;
  gzipBytes: number;
  /** CPU time of the startup phase (wrangler's "Active", garbage collection included): the least of `startupRuns`. */
  startupMs: number;
  startupRuns: number[];
  modules: string[];
}

/** `wrangler deploy` as `npm run deploy` runs it, dry: the modules it would upload in `outDir`, and beside them
 *  (workerBundle) the form `wrangler check startup` profiles. */
export async function buildDeployed(outDir: string): Promise<void> {
  await runWrangler(["deploy", ...DEPLOY_FLAGS, "--dry-run", "--outdir", outDir, "--outfile", workerBundle(outDir)]);
}

const workerBundle = (outDir: string) => `${outDir}.bundle`;

/** `enough`: stop profiling at the first run within this many ms (a pass/fail check needs no more runs).
 *  `built`: an `outDir` buildDeployed() already wrote (the tests' Worker); else it is built now. */
export async function checkDeploy(options: { enough?: number; built?: string } = {}): Promise<DeployCheck> {
  const dir = mkdtempSync(join(tmpdir(), "bmad-deploy-"));
  try {
    const out = options.built ?? join(dir, "out");
    const bundle = workerBundle(out);
    if (!options.built) await buildDeployed(out);
    const modules = readdirSync(out).filter((f) => !f.endsWith(".map") && f !== "README.md");
    const script = Buffer.concat(modules.map((f) => readFileSync(join(out, f))));
    const startupRuns: number[] = [];
    for (let i = 0; i < STARTUP_RUNS; i++) {
      const profile = await runWrangler(["check", "startup", "--worker", bundle, "--outfile", join(dir, "startup.cpuprofile")]);
      const active = /Active: ([\d.]+) ms/.exec(profile);
      if (!active) throw new Error(`wrangler check startup printed no startup time:\n${profile}`);
      const ms = Number(active[1]);
      startupRuns.push(ms);
      if (options.enough !== undefined && ms <= options.enough) break;
    }
    return { scriptBytes: script.length, gzipBytes: gzipSync(script).length, startupMs: Math.min(...startupRuns), startupRuns, modules };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The bench's lines for a check, with budgets; returns whether both hold. */
export function printDeploy(check: DeployCheck, log: (line: string) => void = console.log): boolean {
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  const budgets: Array<[string, boolean]> = [
    [`Worker script <= ${kib(SCRIPT_GZIP_BUDGET)} gzip`, check.gzipBytes <= SCRIPT_GZIP_BUDGET],
    [`Worker startup <= ${STARTUP_BUDGET_MS} ms CPU`, check.startupMs <= STARTUP_BUDGET_MS],
  ];
  log(`\nWorker as deployed (wrangler deploy ${DEPLOY_FLAGS.join(" ")} --dry-run): script ${kib(check.scriptBytes)}, ${kib(check.gzipBytes)} gzip; startup ${check.startupMs.toFixed(1)} ms CPU (wrangler check startup, least of ${check.startupRuns.map((r) => r.toFixed(1)).join(" / ")} ms)`);
  for (const [name, ok] of budgets) log(`  ${ok ? "ok  " : "MISS"} ${name}`);
  return budgets.every(([, ok]) => ok);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  if (!printDeploy(await checkDeploy())) process.exitCode = 1;
}
