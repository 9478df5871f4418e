// One way to run a process from the bridge (the completion contract, a skill's own scripts): an
// argument array, never a shell string; a time limit; cancellation; capped output. However it ends
// (exit, time limit, cancel, the bridge itself exiting), everything it started is killed. A child that
// calls setsid leaves the process group and session, so each run also tags its environment with a
// cookie, and the kill sweeps every process that carries it, is in its group or session, or descends
// from it (Linux /proc; the process group alone elsewhere), until none is left.
import { MAX_OUTPUT_BYTES } from "../core/runtime/budget.js";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { startOf } from "./process-identity.js";
import { BRIDGE_CREDENTIAL_ENV } from "./token-env.js";

export const RUN_COOKIE = "BMAD_MCP_RUN_ID";
const DEFAULT_MAX_OUTPUT = MAX_OUTPUT_BYTES;
/** After the end, how long pipes held open by stragglers may delay the answer. */
const GRACE_MS = 500;
/** Sweeps per kill: each one catches what forked before the previous one stopped it. */
const MAX_SWEEPS = 8;

export interface BoundedOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Added to the bridge's environment (undefined removes a variable); never the bridge's credentials or the search
   *  paths below, which stay as filtered whatever is given here. */
  env?: Record<string, string | undefined>;
  /** The user's own PATH as it is, relative entries included: for the user's own commands (the completion contract),
   *  not for BMAD's scripts or git, which run where a model may have written a program. Library paths are kept to
   *  absolute entries for all (an empty one loads a model-written library from the working folder). */
  userPaths?: boolean;
  /** Per stream; the last bytes are kept. */
  maxOutputBytes?: number;
  /** Written to the process's standard input, which is then closed (default: no input). */
  stdin?: string;
}

export interface BoundedRun {
  stdout: string;
  stderr: string;
  /** Both streams in the order they arrived, as a terminal shows them. */
  output: string;
  exitCode: number | null;
  /** The signal that ended it, when one did (then exitCode is null). */
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  cancelled: boolean;
  /** Some output was dropped (only the last maxOutputBytes of each stream are kept). */
  truncated: boolean;
  /** stdout and stderr as bytes, undecoded (absent when the process did not start). */
  stdoutBytes?: Buffer;
  stderrBytes?: Buffer;
  durationMs: number;
}

/** The last `max` bytes written to it. */
class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  dropped = false;
  constructor(private readonly max: number) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.max && this.chunks.length) {
      const over = this.size - this.max;
      const first = this.chunks[0]!;
      this.dropped = true;
      if (first.length <= over) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(over);
        this.size -= over;
      }
    }
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
  toString(): string {
    return this.bytes().toString("utf8");
  }
}

/** Kills of runs still going: all are called when the bridge exits. */
const live = new Set<() => void>();
let exitHooked = false;

/** The environment's search paths with only absolute entries: an empty or relative one (`:/usr/local/lib`, a common
 *  slip) is the child's working folder, in the project, where a model-written library or program would be found first. */
function searchPaths(userPath = false): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  // The user's own command (the completion contract) keeps PATH as they have it; libraries are judged the same for all.
  for (const name of [...(userPath ? [] : ["PATH"]), "LD_LIBRARY_PATH", "LD_PRELOAD", "DYLD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "DYLD_FALLBACK_LIBRARY_PATH"]) {
    const value = process.env[name];
    // Named even when unset: a caller's env can then neither set one nor bring back the bridge's own.
    out[name] = undefined;
    if (value === undefined) continue;
    // A preloaded library named bare (libc.so.6) is looked up in the system's folders, never the working one.
    const kept = value.split(name === "LD_PRELOAD" ? /[: ]/ : ":").filter((entry) => entry.startsWith("/") || (name === "LD_PRELOAD" && entry !== "" && !entry.includes("/")));
    out[name] = kept.length ? kept.join(":") : undefined;
  }
  return out;
}

/** Every run, the user's completion contract too (code the model may have changed: review 27), is given the rest of the
 *  bridge's environment but never its own credentials. BMAD's scripts also lose whatever looks like a secret. */
const WITHOUT_BRIDGE_CREDENTIALS = Object.fromEntries(BRIDGE_CREDENTIAL_ENV.map((name) => [name, undefined]));

/** The environment of a program the bridge starts: its own plus `extra`, never its credentials, search paths kept to
 *  absolute entries (the user's PATH as it is with `userPaths`). Those last, so that they win: a caller handing on the
 *  whole environment (git sources did) brought back the token and a relative PATH entry, where a `git` planted in the
 *  project ran (review 184). */
export function childEnvironment(extra: Record<string, string | undefined> = {}, userPaths = false): Record<string, string | undefined> {
  return { ...process.env, ...extra, ...WITHOUT_BRIDGE_CREDENTIALS, ...searchPaths(userPaths) };
}

/** Node's longest timer: a longer one (BMAD_RUN_TIMEOUT_MS=Infinity, meant as "never") fires at once, and every run
 *  then "timed out" (review 184). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Runs at once, per process: a model asking for many at once has them queued, not hundreds of processes forked. */
const MAX_AT_ONCE = 4;
let running = 0;
const queued: Array<() => void> = [];

export async function runBounded(argv: string[], opts: BoundedOptions): Promise<BoundedRun> {
  if (running < MAX_AT_ONCE) running++;
  else await new Promise<void>((r) => queued.push(r)); // its slot is handed over by the run that ends
  try {
    return await runOne(argv, opts);
  } finally {
    const next = queued.shift();
    if (next) next();
    else running--;
  }
}

function runOne(argv: string[], opts: BoundedOptions): Promise<BoundedRun> {
  if (!argv.length || !argv[0]) return Promise.resolve(failedToStart("runBounded needs a command."));
  hookExit();
  const cookie = randomUUID();
  const started = performance.now();
  const max = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const [stdout, stderr, output] = [new Tail(max), new Tail(max), new Tail(max)];
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: opts.cwd,
      env: { ...childEnvironment(opts.env, opts.userPaths), [RUN_COOKIE]: cookie },
      detached: true, // its own session and process group
      stdio: [opts.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    const pid = child.pid;
    // Read now, while it is there (not reaped before the event loop runs again, whatever it does meanwhile).
    const since = pid === undefined ? 0 : Number(startOf(pid) ?? 0);
    child.stdout!.on("data", (c: Buffer) => (stdout.push(c), output.push(c)));
    child.stderr!.on("data", (c: Buffer) => (stderr.push(c), output.push(c)));
    if (opts.stdin !== undefined) {
      child.stdin!.on("error", () => undefined); // it may exit without reading: not our failure
      child.stdin!.end(opts.stdin);
    }
    let timedOut = false;
    let cancelled = false;
    let settled = false;
    let exitCode: number | null = null;
    let endedBy: NodeJS.Signals | null = null;
    let grace: ReturnType<typeof setTimeout> | undefined;
    let swept = false;
    const kill = () => killEverything(pid, cookie, since);
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      opts.signal?.removeEventListener("abort", onAbort);
      live.delete(kill);
      if (!swept) kill(); // whatever it left behind goes too (stop() has swept already: a sweep reads all of /proc)
      // Stragglers killed or not, their pipes must not keep the bridge alive.
      child.stdout!.destroy();
      child.stderr!.destroy();
      const truncated = stdout.dropped || stderr.dropped;
      resolve({ stdout: stdout.toString(), stderr: stderr.toString(), output: output.toString(), exitCode, signal: endedBy, timedOut, cancelled, truncated, durationMs: Math.round(performance.now() - started), stdoutBytes: stdout.bytes(), stderrBytes: stderr.bytes() });
    };
    const stop = () => {
      if (!swept) kill();
      swept = true;
      // A descendant may still hold the pipes: answer after a short grace either way.
      grace ??= setTimeout(finish, GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, Math.min(opts.timeoutMs, MAX_TIMER_MS));
    const onAbort = () => {
      cancelled = true;
      stop();
    };
    live.add(kill);
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener("abort", onAbort, { once: true });
    child.on("error", (error) => {
      stderr.push(Buffer.from(`${argv[0]}: ${error.message}`));
      finish();
    });
    // When it exits, what it left running goes at once: nothing outlives the call.
    child.on("exit", (code, by) => {
      exitCode = code;
      endedBy = by;
      stop();
    });
    child.on("close", finish);
  });
}

/** Kills every run still going (the bridge is exiting: its client has gone or it was told to stop). */
export function killAllRuns(): void {
  for (const kill of live) kill();
}

function failedToStart(message: string): BoundedRun {
  return { stdout: "", stderr: message, output: message, exitCode: null, signal: null, timedOut: false, cancelled: false, truncated: false, durationMs: 0 };
}

function killEverything(pid: number | undefined, cookie: string, since: number): void {
  if (!pid) return;
  // Freeze first, kill after: a stopped parent cannot fork, and its children stay linked to it (a killed
  // one's children would be handed to init at once, out of reach). Sweep until no new process turns up.
  signal(-pid, "SIGSTOP");
  const stopped = new Set<number>();
  for (let sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    const fresh = startedBy(pid, cookie, since).filter((other) => !stopped.has(other));
    if (!fresh.length) break;
    for (const other of fresh) {
      signal(other, "SIGSTOP");
      stopped.add(other);
    }
  }
  signal(-pid, "SIGKILL");
  for (const other of stopped) signal(other, "SIGKILL");
}

function signal(pid: number, name: "SIGSTOP" | "SIGKILL"): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** Living processes this run started: tagged with its cookie, in its group or session, or below it. Only a process that
 *  started with or after the run's first (`since`, its start in clock ticks) can hold the cookie: the environment of
 *  every other is left unread (each git run of a bridge read every process's on the machine, most of a test file's
 *  system time). */
function startedBy(pid: number, cookie: string, since: number): number[] {
  const needle = `${RUN_COOKIE}=${cookie}`;
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((e) => /^\d+$/.test(e) && Number(e) !== process.pid);
  } catch {
    return []; // no /proc: the process group was all there is
  }
  const parent = new Map<number, number>();
  const found = new Set<number>();
  for (const entry of entries) {
    const other = Number(entry);
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "latin1");
    } catch {
      continue; // gone
    }
    // Fields after the command name (which may hold spaces and parentheses): state ppid pgrp session.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const [state, ppid, pgrp, session] = fields;
    if (state === "Z" || state === "X") continue; // dead already, waiting to be reaped
    parent.set(other, Number(ppid));
    if (Number(pgrp) === pid || Number(session) === pid) found.add(other);
    else if (Number(fields[19]) >= since) {
      try {
        if (readFileSync(`/proc/${entry}/environ`, "latin1").split("\0").includes(needle)) found.add(other);
      } catch {
        // not ours to read: not started by us
      }
    }
  }
  // Descendants that cleared their environment and left the session are still below a found one.
  for (let grew = true; grew; ) {
    grew = false;
    for (const [other, ppid] of parent) {
      if (!found.has(other) && (ppid === pid || found.has(ppid))) {
        found.add(other);
        grew = true;
      }
    }
  }
  return [...found];
}

function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.once("exit", killAllRuns);
  for (const [name, number] of [["SIGINT", 2], ["SIGTERM", 15], ["SIGHUP", 1]] as const) {
    process.once(name, () => {
      killAllRuns();
      process.exit(128 + number);
    });
  }
}
