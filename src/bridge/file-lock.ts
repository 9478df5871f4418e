// The bridge's cross-process write lock: one per file, so two bridges (Claude Desktop and Claude Code, on one project or
// on a monorepo and one of its packages), or forty calls of one, change a file one at a time, and a version checked
// under the lock is the version written over.
//
// A lock is a folder made whole by one rename (never seen empty), holding a record of its holder: process id, the
// process's start, a token. It is taken over only from a holder that is gone. A live holder keeps it however long it
// stalls (a stopped process, a laptop asleep, a disk that hangs): a lock judged stale by its age was taken from such a
// holder, whose change then landed over the new holder's acknowledged ones (review 16). A waiter gives up after
// WAIT_MS, naming the holder. Locks live in one private folder per user on this machine, keyed by the file's real path,
// so every bridge that reaches a file, from whatever project root, finds the same lock.
import { createHash, randomUUID } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, readFile, realpath, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { join, resolve } from "node:path";
import * as z from "zod";
import { foldPath } from "../core/workspace/paths.js";
import { heldLock, landingOf } from "./confined-fs.js";

/** How long a change waits for a live holder before it gives up, naming it. */
const WAIT_MS = 11_000;

const Holder = z.object({ pid: z.number().int().positive(), start: z.string().optional(), token: z.string(), path: z.string() });
type Holder = z.infer<typeof Holder>;

/** This process's start, as the kernel counts it (Linux): a pid reused by a later process is not this holder. */
function startOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}
const ownStart = startOf(process.pid);

/** Whether the holder's process has ended (or its pid now names another process). */
function gone(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
  return holder.start !== undefined && startOf(holder.pid) !== undefined && startOf(holder.pid) !== holder.start;
}

async function holderOf(lock: string): Promise<Holder | undefined> {
  try {
    const parsed = Holder.safeParse(JSON.parse(await readFile(join(lock, "holder"), "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

let locksRoot: string | undefined;

/** This user's locks folder on this machine: private (0700, theirs, no link), made once per process. Another user's
 *  folder of that name is refused, never used. What a killed holder left is cleared then. */
function locksFolder(): string {
  if (locksRoot) return locksRoot;
  const who = process.getuid?.() ?? userInfo().username;
  const dir = join(process.platform === "win32" ? tmpdir() : "/tmp", `bmad-mcp-locks-${who}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || (process.getuid && (st.uid !== process.getuid() || (st.mode & 0o077) !== 0))) {
    throw new Error(`${dir} is not this user's private folder (another user's, or open to others): remove it, and bmad-mcp makes its own.`);
  }
  for (const name of readdirSync(dir)) {
    // A staging or removed lock a killed process left: its holder is gone.
    if (!/\.(new|old)$/.test(name)) continue;
    try {
      const record = Holder.safeParse(JSON.parse(readFileSync(join(dir, name, "holder"), "utf8")));
      if (!record.success || gone(record.data)) void rm(join(dir, name), { recursive: true, force: true });
    } catch {
      void rm(join(dir, name), { recursive: true, force: true });
    }
  }
  return (locksRoot = dir);
}

/** Where a lock for the file at `rel` (relative to the project root `root`) is kept: by the file's real path, folded
 *  as a folding file system reads it (macOS and Windows take PRD.md and prd.md for one file). */
export async function lockFolder(root: string, rel: string): Promise<string> {
  return join(locksFolder(), createHash("sha256").update(await lockKey(root, rel)).digest("hex").slice(0, 32));
}

/** Runs `work` holding the lock of the file at `rel` (relative to the project root `root`), by whatever name. Each change
 *  `work` makes through the confined file system lands only if the lock is still this call's (looked at just before). */
export async function withFileLock<T>(root: string, rel: string, work: () => Promise<T>): Promise<T> {
  const lock = await lockFolder(root, rel);
  const token = randomUUID();
  const holder: Holder = { pid: process.pid, ...(ownStart ? { start: ownStart } : {}), token, path: resolve(root, rel) };
  const staging = `${lock}.${token}.new`;
  await mkdir(staging, { mode: 0o700 });
  await writeFile(join(staging, "holder"), JSON.stringify(holder));
  const deadline = Date.now() + WAIT_MS;
  let wait = 2;
  for (;;) {
    try {
      await rename(staging, lock);
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOTEMPTY" && code !== "EEXIST" && code !== "EPERM" && code !== "EACCES") {
        await rm(staging, { recursive: true, force: true });
        throw new Error(`Cannot lock ${rel}: ${(error as Error).message}`);
      }
    }
    // Taken over only from a holder read and found gone: one that cannot be read is being released or taken (a lock
    // moved aside a moment ago), and taking it then moved a new holder's live lock away (lost appends, in a test).
    const current = await holderOf(lock);
    if (current && gone(current)) {
      // Moved aside in one step, then checked: of two takers one moves it; had a new holder's lock appeared meanwhile
      // and been moved instead, it is put back.
      const old = `${lock}.${token}.old`;
      if (await rename(lock, old).then(() => true, () => false)) {
        if ((await holderOf(old))?.token === current.token) await rm(old, { recursive: true, force: true });
        else await rename(old, lock).catch(() => rm(old, { recursive: true, force: true }));
      }
      continue;
    }
    if (Date.now() > deadline) {
      await rm(staging, { recursive: true, force: true });
      const who = current ? `another bridge (process ${current.pid}) has held it` : `its lock (${lock}) has had no readable holder`;
      throw new Error(`Cannot lock ${rel}: ${who} for over ${WAIT_MS / 1000} s. If it hangs, stop it; its lock is then taken over at once.`);
    }
    await new Promise((r) => setTimeout(r, wait + Math.random() * wait));
    wait = Math.min(wait * 1.5, 40);
  }
  const stillMine = async () => ((await holderOf(lock))?.token === token ? undefined : `the lock of ${rel} was taken from this call (its record was lost); read it again and retry.`);
  try {
    return await heldLock.run(stillMine, work);
  } finally {
    // Released by moving it aside first, so that no one sees it half removed; a lock no longer this call's is left be.
    if (!(await stillMine())) {
      const old = `${lock}.${token}.old`;
      if (await rename(lock, old).then(() => true, () => false)) await rm(old, { recursive: true, force: true });
    }
  }
}

/** One lock per file, however it is named: where it really lands (after symlinks on the way), folded. An existing file
 *  is one realpath away. */
async function lockKey(root: string, rel: string): Promise<string> {
  const real = await realpath(resolve(root, rel)).catch(() => undefined);
  if (real !== undefined) return foldPath(real);
  const landed = await landingOf(root, rel);
  return foldPath(landed.ok ? landed.real : resolve(root, rel));
}
