// Shared test helpers: temp dirs, the Worker in workerd, the offline BMAD installers, counting things in real
// trees, the built bridge driven over stdio, and whether a process still runs.
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, inject } from "vitest";
import { csv } from "../../src/compiler/parse";
import { startLocalWorker, type LocalWorker } from "../../scripts/local-worker.js";
import { locksFolderPath } from "../../src/bridge/file-lock.js";

const run = promisify(execFile);
export const ROOT = resolve(import.meta.dirname, "../..");
export const PKG = join(ROOT, "node_modules");

export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `bmad-${prefix}-`));
  return {
    dir,
    cleanup: () => {
      dropKeptCopies(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Removes what bridges kept in the user's cache for projects in `dir` (kept-versions.ts: a folder per project root,
 *  named by its path's digest, swept only after a week idle): a test's projects go with its temp folder, so do theirs
 *  (review 389: 11,386 test projects' folders, 2.2 GB, and every sweep's stats of them). Roots up to three deep. */
function dropKeptCopies(dir: string): void {
  const kept = locksFolderPath("kept");
  const walk = (folder: string, depth: number): void => {
    rmSync(join(kept, createHash("sha256").update(folder).digest("hex").slice(0, 32)), { recursive: true, force: true });
    if (depth === 0) return;
    const entries = readdirSync(folder, { withFileTypes: true });
    for (const e of entries) if (e.isDirectory() && !SKIPPED_FOLDERS.has(e.name)) walk(join(folder, e.name), depth - 1);
  };
  try {
    walk(realpathSync(dir), 3);
  } catch {
    // gone already, or unreadable: nothing of it to find
  }
}
/** Folders no test makes a project in: BMAD's own and tools'. */
const SKIPPED_FOLDERS = new Set([".git", "node_modules", "_bmad", "_bmad-output", ".claude", ".bmad-mcp"]);

/** The real Worker in workerd (Miniflare), from the bundle global-setup.ts made for this run. */
export function localWorker(options: { bundleDir?: string; bindings?: Record<string, string> } = {}): Promise<LocalWorker> {
  return startLocalWorker({ ...options, scriptPath: inject("workerScript"), seeded: options.bundleDir ? undefined : inject("workerState") });
}

/** For a test file: a temp folder with one 6.12 install made before its tests, copied whole for each project;
 *  what `closeAfter` is given (bridges the file started) is closed, and the folder removed, after them. */
export function installedProjects(prefix: string): { dir: string; project: (name: string) => string; closeAfter: (close: () => Promise<void>) => void } {
  const tmp = tempDir(prefix);
  const pristine = join(tmp.dir, "pristine");
  const closers: Array<() => Promise<void>> = [];
  beforeAll(() => install("v6.12", pristine), 120_000);
  afterAll(async () => {
    await Promise.all(closers.map((close) => close()));
    tmp.cleanup();
  });
  return {
    dir: tmp.dir,
    project: (name) => {
      const dir = join(tmp.dir, name);
      cpSync(pristine, dir, { recursive: true });
      return dir;
    },
    closeAfter: (close) => void closers.push(close),
  };
}

/** `make`'s result, made at the first call and the same after: a project or a bridge that several tests of a file
 *  share, since a bridge start costs more CPU than most tests (made at first use, a test still runs alone with -t). */
export function madeOnce<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** Runs a BMAD installer into `dir` (argument array, stdin ignored). */
export async function install(kind: "v6.12" | "v6.0" | "v4", dir: string): Promise<void> {
  const [cli, ...args] =
    kind === "v6.12"
      ? [join(PKG, "bmad-method/tools/installer/bmad-cli.js"), "install", "--modules", "bmm", "--tools", "claude-code", "--yes"]
      : kind === "v6.0"
        ? [join(PKG, "bmad-v6-classic/tools/cli/bmad-cli.js"), "install", "--modules", "bmm", "--tools", "claude-code", "--yes"]
        : [join(PKG, "bmad-v4/tools/installer/bin/bmad.js"), "install", "--full", "--ide", "claude-code"];
  await cachedInstall(cli!, args, dir);
}

/** For BMAD's installers, which ask the npm registry for a newer version (6.12 blocks on it for up to 5 s): with no
 *  registry to reach and --offline, npm answers at once that it cannot. The install itself needs nothing from it. */
export const INSTALLER_NPM = { npm_config_registry: "http://127.0.0.1:9/", npm_config_offline: "true", npm_config_update_notifier: "false" };

/**
 * Runs installer `cli` with `args` plus `--directory`, once per installer version and arguments, into a cache
 * under the system temp dir, and copies the result into `dir`. An install costs about 2 s of CPU and writes the
 * same files wherever it runs (only its timestamps differ), so test files running side by side share one: the
 * first to take the lock installs, the others wait for it.
 */
export async function cachedInstall(cli: string, args: string[], dir: string): Promise<void> {
  const pkg = readFileSync(join(cli.slice(0, cli.indexOf("/tools/")), "package.json"), "utf8");
  const key = createHash("sha256").update(JSON.stringify([cli, args, pkg])).digest("hex").slice(0, 24);
  const cached = join(tmpdir(), "bmad-install-cache", key);
  const lock = `${cached}.lock`;
  mkdirSync(dirname(cached), { recursive: true });
  for (const end = Date.now() + 120_000; !existsSync(cached); await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() > end) throw new Error(`timed out waiting for another test file's install into ${cached}`);
    try {
      mkdirSync(lock);
    } catch {
      // Another file installs this one. A lock left by a killed run is taken over after a minute.
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 60_000) rmSync(lock, { recursive: true, force: true });
      continue;
    }
    const work = join(lock, "tree");
    try {
      mkdirSync(work);
      const child = run(process.execPath, [cli, ...args, "--directory", work], { cwd: lock, env: { ...process.env, ...INSTALLER_NPM }, maxBuffer: 16 << 20 });
      child.child.stdin?.end();
      await child;
      renameSync(work, cached);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  mkdirSync(dir, { recursive: true });
  cpSync(cached, dir, { recursive: true, verbatimSymlinks: true });
}

export function csvRows(file: string): Array<Record<string, string>> {
  const parsed = csv(readFileSync(file, "utf8"));
  if (!parsed.ok) throw new Error(`${file}: ${parsed.error}`);
  return parsed.value;
}

/** Every file named `name` below `dir` (skipping __pycache__). */
export function findFiles(dir: string, name: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === "__pycache__" || entry === "node_modules") continue;
    const p = join(dir, entry);
    if (statSync(p).isDirectory()) out.push(...findFiles(p, name));
    else if (entry === name) out.push(p);
  }
  return out;
}

/** The Node a user's `npx bmad-mcp` runs on: the first on PATH outside node_modules (npm scripts run the project's
 *  own newer Node, which hid a difference of the oldest Node package.json accepts: review 129). */
export const usersNode = madeOnce(() => {
  for (const folder of (process.env.PATH ?? "").split(delimiter)) {
    const node = join(folder, "node");
    if (folder && !folder.includes("node_modules") && existsSync(node)) return node;
  }
  throw new Error("no node on PATH outside node_modules: the bridge is tested on the Node a user runs it with");
});

/** The built bridge (inject("bridge")), spawned over stdio with the SDK client; `stderr()` is what it printed.
 *  `node`: the Node to run it on (default: the user's, usersNode). */
export async function connectBridge(
  bridge: string,
  cwd: string,
  opts: { args?: string[]; env?: Record<string, string>; home?: string; node?: string } = {},
): Promise<{ client: Client; stderr: () => string; pid: number; close: () => Promise<void> }> {
  const transport = new StdioClientTransport({
    command: opts.node ?? usersNode(),
    args: [bridge, ...(opts.args ?? [])],
    cwd,
    env: { PATH: process.env.PATH!, HOME: opts.home ?? join(cwd, ".no-home"), ...opts.env },
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d) => (err += d));
  const client = new Client({ name: "bridge-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => err, pid: transport.pid!, close: () => client.close() };
}

/** A tool result's text blocks, joined. */
export function toolText(result: unknown): string {
  return ((result as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? "").join("\n");
}

/** A remote that takes connections and never answers a byte (a hung server, a proxy that lost its upstream); `url`
 *  is its /mcp endpoint. */
export async function silentRemote(): Promise<{ url: string; close: () => void }> {
  const held = new Set<Socket>();
  const server = createServer((socket) => {
    held.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => held.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const close = () => {
    for (const socket of held) socket.destroy();
    server.close();
  };
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, close };
}

/** What a Node script run as another user ("nobody") printed. This machine kind runs the suite as root, which can. */
export function asNobody(script: string): Promise<string> {
  return new Promise<string>((resolve) => {
    const child = spawn(process.execPath, ["-e", script], { uid: 65534, gid: 65534, cwd: "/" });
    let text = "";
    child.stdout.on("data", (d: Buffer) => (text += d));
    child.on("close", () => resolve(text));
  });
}

/** Whether a process still runs (a zombie waiting for its parent to reap it counts as gone). */
export function processRuns(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat[stat.lastIndexOf(")") + 2] !== "Z";
  } catch {
    return false;
  }
}

/** Resolves once `check` returns a value, polling every 25 ms; rejects naming `what` after `ms`. */
export async function waitFor<T>(what: string, check: () => T | undefined, ms: number): Promise<T> {
  for (const end = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 25))) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
  }
}

/** Another program that, until `stop` exists, swaps folder `argv[1]` for a link to `argv[2]` and back, a few
 *  milliseconds each way. A write that makes the folder again in the gap (it is missing for a moment) keeps its files:
 *  they go back with the rest. It ends with the folder in place. */
const SWAPPER = `
const { existsSync, readdirSync, renameSync, rmdirSync, symlinkSync, unlinkSync } = require("node:fs");
const { join } = require("node:path");
const [, folder, away, stop] = process.argv;
const aside = folder + ".aside";
const nap = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.random() * 2);
const putBack = () => {
  try { return renameSync(aside, folder); } catch {}
  for (;;) {
    for (const name of readdirSync(aside)) try { renameSync(join(aside, name), join(folder, name)); } catch {}
    try { return rmdirSync(aside); } catch {}
  }
};
while (!existsSync(stop)) {
  renameSync(folder, aside);
  try {
    symlinkSync(away, folder);
    nap();
    unlinkSync(folder);
  } catch {}
  putBack();
  nap();
}
`;

/** Runs `work` while another program swaps `folder` for a link to `away` and back (SWAPPER); resolves, once that
 *  program has put the folder back and ended, to its exit code. */
export async function whileSwapped(folder: string, away: string, work: () => Promise<unknown>): Promise<number | null> {
  const stop = `${away}.stop`;
  const swapper = spawn(process.execPath, ["-e", SWAPPER, folder, away, stop], { stdio: "inherit" });
  const ended = new Promise<number | null>((done) => swapper.on("exit", done));
  try {
    await work();
  } finally {
    writeFileSync(stop, "");
  }
  return ended;
}
