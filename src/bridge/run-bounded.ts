// One way to run a process from the bridge: an argument array (never a shell string), a time limit,
// cancellation, capped output, and on any of those ends everything it started is killed. A child that
// calls setsid leaves the process group, so each run also tags its environment with a cookie and the
// kill sweeps every process that carries it (Linux /proc; the process group alone elsewhere).
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";

export const RUN_COOKIE = "BMAD_MCP_RUN_ID";
const DEFAULT_MAX_OUTPUT = 256 * 1024;
/** After a kill, how long to wait for pipes held open by stragglers before answering anyway. */
const GRACE_MS = 500;

export interface BoundedRun {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
}

export interface BoundedOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  env?: Record<string, string | undefined>;
  maxOutputBytes?: number;
}

/** Runs still going: killed when the bridge exits. */
const live = new Set<() => void>();
let exitHooked = false;

export function runBounded(argv: string[], opts: BoundedOptions): Promise<BoundedRun> {
  hookExit();
  const cookie = randomUUID();
  const started = performance.now();
  const max = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env, [RUN_COOKIE]: cookie },
      detached: true, // its own process group
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout = (stdout + c.toString()).slice(-max)));
    child.stderr.on("data", (c: Buffer) => (stderr = (stderr + c.toString()).slice(-max)));
    let timedOut = false;
    let cancelled = false;
    let settled = false;
    const kill = () => killAll(child.pid, cookie);
    const finish = (exitCode: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      opts.signal?.removeEventListener("abort", onAbort);
      live.delete(kill);
      kill(); // whatever it left behind goes too
      resolve({ stdout, stderr, exitCode, timedOut, cancelled, durationMs: Math.round(performance.now() - started) });
    };
    let grace: ReturnType<typeof setTimeout> | undefined;
    const stop = () => {
      kill();
      // A descendant that escaped may still hold the pipes: answer after a short grace either way.
      grace = setTimeout(() => finish(null), GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, opts.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      stop();
    };
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener("abort", onAbort, { once: true });
    live.add(kill);
    child.on("error", (error) => {
      stderr += error.message;
      finish(null);
    });
    // When it exits, what it left running goes at once: nothing outlives the call.
    child.on("exit", (code) => {
      kill();
      grace ??= setTimeout(() => finish(code), GRACE_MS);
    });
    child.on("close", (code) => finish(code));
  });
}

function killAll(pid: number | undefined, cookie: string): void {
  if (pid) signal(-pid);
  for (const other of taggedProcesses(cookie)) signal(other);
}

function signal(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Every process whose environment carries this run's cookie (empty where /proc is not there). */
function taggedProcesses(cookie: string): number[] {
  const needle = `${RUN_COOKIE}=${cookie}`;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "latin1").split("\0").includes(needle)) found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  const killLive = () => live.forEach((kill) => kill());
  process.once("exit", killLive);
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(sig, () => {
      killLive();
      process.exit(128 + (sig === "SIGINT" ? 2 : sig === "SIGTERM" ? 15 : 1));
    });
  }
}
