// The test run's temp folder, in memory where Linux offers one (/dev/shm). Test files create thousands of small
// files: a 6.12 install copied for each project, bundles, workerd's storage, Python's caches. On this machine kind
// creating a file on disk costs about 1.3 ms of kernel time and in memory a thirtieth of that; a copy of an
// install, 0.3 s against 0.01 s. Every process the run starts inherits TMPDIR. A TMPDIR the user set is kept.
// Node's compile cache goes there too, for every Node process the run starts.
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SHM = "/dev/shm";
const RUNS = join(SHM, "bmad-mcp-tests");

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function useMemoryTmpdir(): void {
  useTmpdir();
  // The run starts wrangler, npm, BMAD's installers and the conformance CLI dozens of times: with the compile cache,
  // each start after the first skips compiling their code (wrangler's and npm's CPU in a run: about a seventh less).
  process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), "node-compile-cache");
}

function useTmpdir(): void {
  if (process.env.TMPDIR || process.platform !== "linux") return;
  const dir = join(RUNS, String(process.pid));
  try {
    if (!statSync(SHM).isDirectory()) return;
    mkdirSync(RUNS, { recursive: true });
    // A run that was killed left its folder: memory is freed only by removing it.
    for (const name of readdirSync(RUNS)) if (!running(Number(name))) rmSync(join(RUNS, name), { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  } catch {
    return; // not writable here: the system's temp folder, as before
  }
  process.env.TMPDIR = dir;
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
}
