// The bench's `npm run dev` rows: a first start on fresh local state (bundle built, every blob uploaded) and a
// second start on the same state (nothing to upload), each from the command to the printed /mcp URL.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");
const PORT = 18795;

export interface DevStart {
  /** From `npm run dev` to the printed URL. */
  totalMs: number;
  /** What dev.ts reports for building and uploading the bundle, before wrangler dev starts. */
  prepareS: number;
  log: string;
}

async function start(state: string): Promise<DevStart> {
  const started = performance.now();
  const child = spawn("npm", ["run", "dev", "--", "--port", String(PORT), "--persist-to", state], { cwd: ROOT, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout!.on("data", (d) => (log += d));
  child.stderr!.on("data", (d) => (log += d));
  const exited = new Promise((done) => child.once("exit", done));
  try {
    for (const end = Date.now() + 180_000; !/bmad-mcp is ready in/.test(log); await new Promise((r) => setTimeout(r, 50))) {
      if (child.exitCode !== null || Date.now() > end) throw new Error(`npm run dev did not get ready:\n${log.slice(-2000)}`);
    }
    const totalMs = performance.now() - started;
    const prepareS = Number(/bundle and upload ([\d.]+) s/.exec(log)?.[1] ?? NaN);
    return { totalMs, prepareS, log };
  } finally {
    process.kill(-child.pid!, "SIGTERM");
    await exited;
  }
}

export async function benchDevStarts(): Promise<[first: DevStart, second: DevStart]> {
  const state = mkdtempSync(join(tmpdir(), "bmad-bench-dev-"));
  try {
    const first = await start(state);
    await new Promise((r) => setTimeout(r, 1000)); // the port is released once workerd has gone
    return [first, await start(state)];
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}

/** Prints both starts; the second must add at most 3 s of its own before wrangler dev starts. */
export function printDevStarts([first, second]: [DevStart, DevStart]): boolean {
  const row = (name: string, s: DevStart) => console.log(`${name.padEnd(44)}${`${(s.totalMs / 1000).toFixed(1)} s`.padStart(8)}   (bundle and upload ${s.prepareS.toFixed(1)} s)`);
  console.log("\nnpm run dev, from the command to the printed /mcp URL:");
  row("first start (fresh state: every blob uploaded)", first);
  row("second start (same bundle: nothing uploaded)", second);
  const ok = second.prepareS <= 3 && /nothing to upload/.test(second.log);
  console.log(`  ${ok ? "ok  " : "MISS"} second start: nothing uploaded, bundle and upload <= 3 s`);
  return ok;
}
