// The bridge's cross-process write lock: one per file, so two bridges on one project (Claude Desktop and Claude
// Code), or forty calls of one, change a file one at a time, and a version checked under the lock is the version
// written over. proper-lockfile makes a lock folder atomically (mkdir), keeps its mtime fresh while held, and takes
// over one whose holder died (not refreshed for STALE_MS). Locks live in the project's `.bmad-mcp/locks/`,
// machinery no tool of the model's can reach.
import { createHash, randomUUID } from "node:crypto";
import lockfile from "proper-lockfile";
import { join, relative, resolve } from "node:path";
import { constants } from "node:fs";
import { readFile, realpath, writeFile } from "node:fs/promises";
import { ensureConfinedDir, heldLock, isInside, landingOf, writeConfined } from "./confined-fs.js";
import { foldPath } from "../core/workspace/paths.js";
import { STATE_DIR } from "./sync-state.js";

const LOCKS = `${STATE_DIR}/locks`;
/** A holder that stopped refreshing for this long has died; its lock is taken over. proper-lockfile's minimum. */
const STALE_MS = 5_000;
/** Waiting for a busy lock: short steps growing to 40 ms, about 11 s in all (longer than STALE_MS, so a dead holder's
 *  lock is reached; 500 steps of 5-10 ms gave up after about 4 s, before a lock a killed bridge held went stale). */
const RETRIES = { retries: 300, factor: 1.05, minTimeout: 5, maxTimeout: 40, randomize: true };

/** Runs `work` holding the lock of the file at `rel` (relative to the project root `root`), by whatever name. Each change `work` makes
 *  through the confined file system lands only if the lock is still this call's: a holder whose process stalled past
 *  STALE_MS (a long GC, a stopped process) may have lost it to another bridge, whose change then stands. */
export async function withFileLock<T>(root: string, rel: string, work: () => Promise<T>): Promise<T> {
  const dir = await locksDir(root, rel);
  const name = createHash("sha256").update(await lockKey(root, rel)).digest("hex").slice(0, 32);
  const lockPath = join(dir, `${name}.lock`);
  const options = {
    realpath: false,
    lockfilePath: lockPath,
    stale: STALE_MS,
    retries: RETRIES,
    // The default throws from a timer and ends the process. A takeover is seen where it matters, before a change lands.
    onCompromised: () => undefined,
  };
  const release = await lockfile.lock(join(dir, name), options).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
    prepared.delete(root); // the locks folder went away since: made again
    return lockfile.lock(join(await locksDir(root, rel), name), options);
  });
  // Who holds it: a token of this call's, beside the lock. A holder that took the lock over writes its own, so a change
  // that finds another token lands nowhere. (The lock folder's own times cannot tell: its refresh changes them, and
  // where a file system keeps no creation time Node reports the change time.) In the locks folder (machinery, which no
  // tool or pull writes), not through a link, and not synced: a crash loses only the lock, which the next holder takes
  // over. Written before the work starts, so that a holder that took over has its token there before it reads the file.
  const ownerFile = join(dir, `${name}.owner`);
  const token = randomUUID();
  try {
    await writeFile(ownerFile, token, { flag: constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW });
  } catch (error) {
    await release().catch(() => undefined);
    throw new Error(`Cannot lock ${rel}: ${(error as Error).message}`);
  }
  // Looked at before every change, however soon: staleness is judged on the taker's clock, and one ahead of this
  // machine's (a shared folder, a VM after sleep, an NTP step) may take a lock made a moment ago.
  const stillMine = async () => {
    const holder = await readFile(ownerFile, { encoding: "utf8", flag: constants.O_RDONLY | constants.O_NOFOLLOW }).catch(() => undefined);
    return holder === token ? undefined : `another process took the lock of ${rel} over while this one was stalled for over ${STALE_MS / 1000} s; read it again and retry.`;
  };
  try {
    return await heldLock.run(stillMine, work);
  } finally {
    // A lock taken over is the other holder's now: releasing it would remove theirs. (The token file stays, one per
    // file ever locked: the next holder writes over it, cheaper than making it anew each time.)
    if (!(await stillMine())) await release().catch(() => undefined);
  }
}

/** Projects whose locks folder is made and ignored by git, in this process: made once, not on every write. */
const prepared = new Set<string>();

async function locksDir(root: string, rel: string): Promise<string> {
  const dir = await ensureConfinedDir(root, LOCKS);
  if (!dir.ok) throw new Error(`Cannot lock ${rel}: ${dir.error}`);
  if (!prepared.has(root)) {
    // Ignored by git whatever the project's .gitignore says: locks and sync state are never content.
    await writeConfined(root, `${STATE_DIR}/.gitignore`, "*\n", { exclusive: true, own: STATE_DIR });
    prepared.add(root);
  }
  return dir.path;
}

/** One lock per file, however it is named: where it really lands (after symlinks on the way), as a folding file system
 *  reads it (macOS and Windows take PRD.md and prd.md for one file). An existing file is one realpath away. */
async function lockKey(root: string, rel: string): Promise<string> {
  const [realRoot, real] = await Promise.all([realpath(root), realpath(resolve(root, rel)).catch(() => undefined)]);
  if (real !== undefined && isInside(realRoot, real)) return foldPath(relative(realRoot, real));
  const landed = await landingOf(root, rel);
  return landed.ok ? foldPath(relative(landed.realRoot, landed.real)) : rel;
}
