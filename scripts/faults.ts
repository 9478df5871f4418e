// npm run faults: kill the Worker's workerd, the bridge (some kills beside a second bridge changing the same file)
// and the bundle store at random points, then check what every acknowledged and every cut operation left. Not part of npm test (test/node/faults.test.ts and
// bridge-faults.test.ts run a fixed sample). FAULTS_KILLS=200 (worker kill points), FAULTS_BRIDGE_KILLS=60,
// FAULTS_SEED (default: random, printed), FAULTS_PARTS=worker,bridge,bundle (default: all).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBridge } from "./build-bridge.js";
import { buildWorker, seedState, startLocalWorker } from "./local-worker.js";
import { BRIDGE_KINDS, bridgeFaults, pullSource } from "./faults-bridge.js";
import { BUNDLE_DIR, bundleFaults } from "./faults-bundle.js";
import { prng, workerFaults, type Tally } from "./faults-worker.js";
import { User } from "./mcp-user.js";

const KILLS = Number(process.env.FAULTS_KILLS ?? 200);
const BRIDGE_KILLS = Number(process.env.FAULTS_BRIDGE_KILLS ?? 60);
const SEED = Number(process.env.FAULTS_SEED ?? Math.floor(Math.random() * 2 ** 31));
const PARTS = new Set((process.env.FAULTS_PARTS ?? "worker,bridge,bundle").split(","));
const verbose = process.env.FAULTS_VERBOSE === "1";

function print(title: string, tally: Tally, extra: string[]): boolean {
  console.log(`\n${title}`);
  for (const line of extra) console.log(`  ${line}`);
  for (const line of tally.lines()) console.log(line);
  for (const b of tally.broken.slice(0, 20)) console.log(`    broken: ${b}`);
  return tally.broken.length === 0;
}

console.log(`seed ${SEED} (FAULTS_SEED=${SEED} replays this run)`);
const scriptPath = await buildWorker();
let ok = true;
if (PARTS.has("worker")) {
  const state = mkdtempSync(join(tmpdir(), "bmad-faults-"));
  try {
    await seedState(state);
    const started = performance.now();
    const r = await workerFaults({ kills: KILLS, seed: SEED, scriptPath, state, ...(verbose ? { log: (l: string) => console.log(l) } : {}) });
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    ok = print(`Worker: ${r.kills} kill points (workerd SIGKILL, restart from the same state) in ${seconds} s`, r.tally, [
      `operations: ${r.acknowledged} acknowledged, ${r.lost} cut by the kill, ${r.errors.length} tool errors`,
      ...r.errors.slice(0, 10).map((e) => `error: ${e}`),
    ]) && r.errors.length === 0 && ok;
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}
if (PARTS.has("bridge")) {
  const dir = mkdtempSync(join(tmpdir(), "bmad-faults-bridge-"));
  const state = join(dir, "state");
  const project = join(dir, "project");
  mkdirSync(state);
  await seedState(state);
  const worker = await startLocalWorker({ scriptPath, persistTo: state, seed: false });
  try {
    const bridge = await buildBridge(join(dir, "bridge"));
    // BMAD's offline installer (no registry to ask: --offline answers at once).
    execFileSync(process.execPath, [join(import.meta.dirname, "../node_modules/bmad-method/tools/installer/bmad-cli.js"), "install", "--modules", "bmm", "--tools", "claude-code", "--yes", "--directory", project], {
      stdio: "ignore",
      env: { ...process.env, npm_config_registry: "http://127.0.0.1:9/", npm_config_offline: "true", npm_config_update_notifier: "false" },
    });
    const user = await User.signIn(0, "faults-pull@example.com", worker.url.origin, new URL("/mcp", worker.url));
    const pull = await pullSource(user, new URL("/mcp", worker.url).href, "pulled");
    const random = prng(SEED);
    const kinds = Array.from({ length: BRIDGE_KILLS }, () => BRIDGE_KINDS[Math.floor(random() * BRIDGE_KINDS.length)]!);
    const started = performance.now();
    const r = await bridgeFaults({ bridge, dir: project, seed: SEED, kinds, pull, home: join(dir, "home"), ...(verbose ? { log: (l: string) => console.log(l) } : {}) });
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    const sorted = [...r.takeoverMs].sort((a, b) => a - b);
    ok = print(`Bridge: ${r.kills} kill points (bmad-mcp SIGKILL during writes, render publishes, memory writes, memlog appends, pulls; some beside a second bridge) in ${seconds} s`, r.tally, [
      BRIDGE_KINDS.map((kind) => `${kinds.filter((k) => k === kind).length} ${kind}`).join(", "),
      `${r.staleLocks} kills left a lock behind; the next change took ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms at the median, ${sorted.at(-1)!.toFixed(0)} ms at most`,
    ]) && ok;
  } finally {
    await worker.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}
if (PARTS.has("bundle")) {
  const state = mkdtempSync(join(tmpdir(), "bmad-faults-bundle-"));
  await seedState(state);
  const worker = await startLocalWorker({ scriptPath, persistTo: state, seed: false });
  try {
    const mcp = new URL("/mcp", worker.url);
    const users = await Promise.all(Array.from({ length: 16 }, (_, i) => User.signIn(i, `reader-${i}@example.com`, worker.url.origin, mcp)));
    const r = await bundleFaults({ worker, users, bundleDir: BUNDLE_DIR, seconds: 20 });
    ok = print(`Bundle: pointer flipped while ${users.length} clients read; a blob deleted and put back`, r.tally, [
      `answers: ${r.seen.a} from the old bundle, ${r.seen.b} from the new, ${r.seen.mixed} mixed; every reader on the new bundle ${(r.flipMs / 1000).toFixed(1)} s after the flip (the pointer is re-read every 10 s)`,
    ]) && ok;
  } finally {
    await worker.dispose();
    rmSync(state, { recursive: true, force: true });
  }
}
if (!ok) process.exitCode = 1;
