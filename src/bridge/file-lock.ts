// The bridge's cross-process write lock: one per file, so two bridges on one project (Claude Desktop and Claude
// Code), or forty calls of one, change a file one at a time, and a version checked under the lock is the version
// written over. proper-lockfile makes a lock folder atomically (mkdir), keeps its mtime fresh while held, and takes
// over one whose holder died (not refreshed for STALE_MS). Locks live in the project's `.bmad-mcp/locks/`,
// machinery no tool of the model's can reach.
import { createHash, randomUUID } from "node:crypto";
import lockfile from "proper-lockfile";
import { join, relative } from "node:path";
import { constants } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { ensureConfinedDir, heldLock, landingOf, writeConfined } from "./confined-fs.js";
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
  const dir = await ensureConfinedDir(root, LOCKS);
  if (!dir.ok) throw new Error(`Cannot lock ${rel}: ${dir.error}`);
  // Ignored by git whatever the project's .gitignore says: locks and sync state are never content.
  await writeConfined(root, `${STATE_DIR}/.gitignore`, "*\n", { exclusive: true, own: STATE_DIR });
  // One lock per file, however it is named: where it really lands (after symlinks on the way), as a folding file
  // system reads it (macOS and Windows take PRD.md and prd.md for one file).
  const landed = await landingOf(root, rel);
  const key = landed.ok ? foldPath(relative(landed.realRoot, landed.real)) : rel;
  const name = createHash("sha256").update(key).digest("hex").slice(0, 32);
  const lockPath = join(dir.path, `${name}.lock`);
  const release = await lockfile.lock(join(dir.path, name), {
    realpath: false,
    lockfilePath: lockPath,
    stale: STALE_MS,
    retries: RETRIES,
    // The default throws from a timer and ends the process. A takeover is seen where it matters, before a change lands.
    onCompromised: () => undefined,
  });
  // Who holds it: a token of this call's, beside the lock, written before any work starts. A holder that took the lock
  // over writes its own first, so a change that finds another token lands nowhere. (The lock folder's own times
  // cannot tell: its refresh changes them, and where a file system keeps no creation time Node reports the change time.)
  // In the locks folder (machinery, which no tool or pull writes), not through a link, and not synced: a crash loses
  // only the lock, which the next holder takes over.
  const ownerFile = join(dir.path, `${name}.owner`);
  const token = randomUUID();
  try {
    await writeFile(ownerFile, token, { flag: constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW });
  } catch (error) {
    await release().catch(() => undefined);
    throw new Error(`Cannot lock ${rel}: ${(error as Error).message}`);
  }
  const stillMine = async () => {
    const holder = await readFile(ownerFile, { encoding: "utf8", flag: constants.O_RDONLY | constants.O_NOFOLLOW }).catch(() => undefined);
    return holder === token ? undefined : `another process took the lock of ${rel} over while this one was stalled for over ${STALE_MS / 1000} s; read it again and retry.`;
  };
  try {
    return await heldLock.run(stillMine, work);
  } finally {
    // A lock taken over is the other holder's now: releasing it would remove theirs. The token goes first, while the
    // lock is still held, so that no later holder's is removed.
    if (!(await stillMine())) {
      await rm(ownerFile, { force: true });
      await release().catch(() => undefined);
    }
  }
}
