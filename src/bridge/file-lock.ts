// The bridge's cross-process write lock: one per file, so two bridges (Claude Desktop and Claude Code, on one project or
// on a monorepo and one of its packages), or forty calls of one, change a file one at a time, and a version checked
// under the lock is the version written over.
//
// A lock is a folder made whole by one rename (never seen empty), holding a record of its holder: process id, the
// process's start, a token. It is taken over only from a holder that is gone. A live holder keeps it however long it
// stalls (a stopped process, a laptop asleep, a disk that hangs): a lock judged stale by its age was taken from such a
// holder, whose change then landed over the new holder's acknowledged ones (review 16). A waiter gives up once one
// holder has kept the lock WAIT_MS, naming it; one whose lock changes hands meanwhile waits on. A process's calls on
// one lock wait in line, the first alone asking for it. Locks live in one private folder per user on this machine, keyed by the file's real path,
// so every bridge that reaches a file, from whatever project root, finds the same lock.
import { createHash, randomUUID } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { lstat, mkdir, readFile, rename, rm, rmdir, stat, unlink, writeFile } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { join, resolve } from "node:path";
import * as z from "zod";
import { foldPath } from "../core/workspace/paths.js";
import { heldLock, landingOf } from "./confined-fs.js";
import { awaitTurn, joinLine, leaveLine, type Line, LockBusyError, nextChange, ownCallHolds } from "./lock-line.js";
import { gone, ownBoot, ownPidNs, ownStart } from "./process-identity.js";

export { LockBusyError } from "./lock-line.js";

/** How long a change waits for a live holder before it gives up, naming it. */
const WAIT_MS = 11_000;

const Holder = z.object({ pid: z.number().int().positive(), start: z.string().optional(), token: z.string(), path: z.string(), pidns: z.string().optional(), boot: z.string().optional() });
type Holder = z.infer<typeof Holder>;

/** Whether something last changed at `mtimeMs` is older than a wait. One dated in the future counts as old: the clock
 *  was stepped back, and a lock that cannot be read waited behind it forever (review 251). */
const olderThanWait = (mtimeMs: number) => {
  const age = Date.now() - mtimeMs;
  return age > WAIT_MS || age < 0;
};

/** How long a lock held from another pid namespace, whose process cannot be looked at, is left to its holder. */
const OTHER_NAMESPACE_MS = 60_000;

/** gone(), and a holder from another pid namespace once its lock is older than OTHER_NAMESPACE_MS: a dead one blocked
 *  the file for good (review 23), and no change takes that long. */
async function goneHolder(lock: string, holder: Holder): Promise<boolean> {
  if (holder.pidns === undefined || ownPidNs === undefined || holder.pidns === ownPidNs || (holder.boot !== undefined && holder.boot !== ownBoot)) return gone(holder);
  const st = await stat(lock).catch(() => undefined);
  return st !== undefined && Date.now() - st.mtimeMs > OTHER_NAMESPACE_MS;
}

async function holderOf(lock: string): Promise<Holder | undefined> {
  try {
    const parsed = Holder.safeParse(JSON.parse(await readFile(join(lock, "holder"), "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** This machine's id where the system keeps a stable one (Linux's /etc/machine-id), for a home shared between machines;
 *  not its host name, which macOS changes with the network (review 21: two folders again). */
export function machineId(): string | undefined {
  try {
    return /^[0-9a-f]{32}$/.exec(readFileSync("/etc/machine-id", "utf8").trim())?.[0].slice(0, 12);
  } catch {
    return undefined;
  }
}

/** Where this user's locks are kept on this machine, by a rule that depends on neither a process's environment nor
 *  when it started, so that every bridge of the user finds one lock (MCP clients start bridges with different HOME and
 *  XDG_* variables; /run/user/<uid> appears at a first login and goes at the last logout, and a bridge started before
 *  it came kept /tmp while later ones used it: acknowledged appends were lost, review 19): the home folder the user
 *  database names, where no one else can make it first; /tmp where the user has none that can hold it. One folder per
 *  machine where it has an id (a holder's process is looked for on this machine alone). */
export function locksFolderPath(kind: "locks" | "kept" = "locks"): string {
  const uid = process.getuid?.();
  const who = uid ?? userInfo().username;
  const host = machineId();
  let home: string | undefined;
  try {
    home = userInfo().homedir;
  } catch {
    home = undefined; // no entry in the user database (a container's arbitrary uid)
  }
  if (home && home !== "/") {
    const dir = join(home, ".cache", "bmad-mcp", host ? `${kind}-${host}` : kind);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      return dir;
    } catch {
      // a home folder that cannot hold it (read-only, missing): the same for every bridge of this user, so /tmp for all
    }
  }
  return join(process.platform === "win32" ? tmpdir() : "/tmp", `bmad-mcp-${kind}-${who}`);
}

/** This user's private folder of a kind (locksFolderPath), made if missing: 0700, theirs, no link; another user's
 *  folder of that name is refused, never used. */
export function privateFolder(kind: "locks" | "kept"): string {
  const dir = locksFolderPath(kind);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || (process.getuid && (st.uid !== process.getuid() || (st.mode & 0o077) !== 0))) {
    throw new Error(`${dir} is not this user's private folder (another user's, or open to others): remove it, and bmad-mcp makes its own.`);
  }
  return dir;
}

let locksRoot: string | undefined;

/** This user's locks folder (locksFolderPath): private (0700, theirs, no link), made once per process (again if it
 *  went, as a clean-up of /tmp removes it). Another user's folder of that name is refused, never used. What a killed
 *  holder left is cleared then. */
function locksFolder(): string {
  if (locksRoot) return locksRoot;
  const dir = privateFolder("locks");
  for (const name of readdirSync(dir)) {
    // A staging or moved-aside folder a killed process left: its holder is gone (one without a record yet is another
    // process's, being made, unless it is older than a wait). Takeover folders are cleared by the next taker.
    if (!/\.(new|old)$/.test(name)) continue;
    let record: Holder | undefined;
    try {
      record = Holder.parse(JSON.parse(readFileSync(join(dir, name, "holder"), "utf8")));
    } catch {
      record = undefined;
    }
    const stale = record ? gone(record) : olderThanWait(lstatSync(join(dir, name), { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (stale) void rm(join(dir, name), { recursive: true, force: true });
  }
  return (locksRoot = dir);
}

/** Where a lock for the file at `rel` (relative to the project root `root`) is kept: by the file's real path, folded
 *  as a folding file system reads it (macOS and Windows take PRD.md and prd.md for one file). */
export async function lockFolder(root: string, rel: string): Promise<string> {
  return join(locksFolder(), createHash("sha256").update(await lockKey(root, rel)).digest("hex").slice(0, 32));
}

/** Runs `work` holding the lock of the file at `rel` (relative to the project root `root`), by whatever name. Each change
 *  `work` makes through the confined file system lands only if the lock is still this call's (looked at just before).
 *  Gives up once one holder has held the lock past `waitMs`; a lock that keeps changing hands is waited for. */
export async function withFileLock<T>(root: string, rel: string, work: () => Promise<T>, waitMs = WAIT_MS): Promise<T> {
  const first = await lockFolder(root, rel);
  const token = randomUUID();
  const line = joinLine(first, token);
  try {
    await awaitTurn(line, token, rel, waitMs);
    const lock = await acquire(root, rel, token, line, waitMs);
    line.heldSince = Date.now();
    line.seen = { token, since: line.heldSince };
    nextChange(line);
    const stillMine = async () => ((await holderOf(lock))?.token === token ? undefined : `the lock of ${rel} was taken from this call (its record was lost); read it again and retry.`);
    try {
      return await heldLock.run(stillMine, work);
    } finally {
      // Released by moving it aside first, so that no one sees it half removed; a lock no longer this call's is left be.
      if (!(await stillMine())) {
        const old = `${lock}.${token}.old`;
        if (await rename(lock, old).then(() => true, () => false)) await removeLockFolder(old);
      }
    }
  } finally {
    leaveLine(first, line, token);
  }
}

/** Takes the lock of `rel` for the call `token`, first in its line; its folder. */
async function acquire(root: string, rel: string, token: string, line: Line, waitMs: number): Promise<string> {
  let lock = await lockFolder(root, rel);
  const holder: Holder = { pid: process.pid, ...(ownStart ? { start: ownStart } : {}), ...(ownPidNs ? { pidns: ownPidNs } : {}), ...(ownBoot ? { boot: ownBoot } : {}), token, path: resolve(root, rel) };
  let staging = `${lock}.${token}.new`;
  try {
    await stage(staging, holder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    locksRoot = undefined; // the locks folder went (a clean-up of /tmp): made again
    lock = await lockFolder(root, rel);
    staging = `${lock}.${token}.new`;
    await stage(staging, holder);
  }
  let wait = 2;
  for (;;) {
    try {
      await rename(staging, lock);
      return lock;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // ENOTDIR: a file or a link is where the lock goes (put there by hand, or by another program); busy, as a lock
      // that cannot be read, and removed as one (review 251: every change of the file failed on it for good).
      if (code !== "ENOTEMPTY" && code !== "EEXIST" && code !== "EPERM" && code !== "EACCES" && code !== "ENOTDIR") {
        await rm(staging, { recursive: true, force: true });
        throw new Error(`Cannot lock ${rel}: ${(error as Error).message}`);
      }
    }
    // Taken over only from a holder read and found gone (one that cannot be read is being released, or was just taken:
    // taking it then moved a new holder's live lock away, and appends were lost in a test), or from a record no holder
    // of this version wrote (another version's, a damaged one) once it is older than a wait.
    const current = await holderOf(lock);
    const dead = current ? ((await goneHolder(lock, current)) ? current.token : undefined) : await unreadable(lock);
    // Taken over: tried again at once. Another call taking it over (stalled, perhaps): waited for, as for a holder.
    if (dead && (await takeOver(lock, dead, holder))) continue;
    // The wait starts again whenever the lock changes hands: a busy lock is no hung one. A lock being let go (no
    // holder to read) is tried again.
    const now = current?.token ?? dead;
    if (now !== undefined && now !== line.seen?.token) line.seen = { token: now, since: Date.now() };
    if (now !== undefined && line.seen && Date.now() - line.seen.since > waitMs) {
      await rm(staging, { recursive: true, force: true });
      // A gone holder's lock is held by whoever is taking it over: that one is named (review 19).
      const blocking = dead ? ((await holderOf(`${lock}.${dead}.takeover`)) ?? current) : current;
      // This process's own earlier call is no process to stop (review 218: a bridge was told to stop itself).
      if (blocking?.pid === process.pid) throw new LockBusyError(ownCallHolds(rel));
      throw new LockBusyError(`Cannot lock ${rel}: another bridge (process ${blocking?.pid ?? "unknown"}) has held it for over ${waitMs / 1000} s. If that process hangs, stop it; its lock is then taken over at once.`);
    }
    await new Promise((r) => setTimeout(r, wait + Math.random() * wait));
    wait = Math.min(wait * 1.5, 40);
  }
}

/** A lock folder moved aside: its record, then the folder (two calls where a recursive removal reads it first). */
async function removeLockFolder(dir: string): Promise<void> {
  const removed = await unlink(join(dir, "holder")).then(() => rmdir(dir)).then(() => true, () => false);
  if (!removed) await rm(dir, { recursive: true, force: true });
}

/** A folder holding `holder`'s record, made before it is renamed into place (so no one sees it without one). */
async function stage(dir: string, holder: Holder): Promise<void> {
  await mkdir(dir, { mode: 0o700 });
  await writeFile(join(dir, "holder"), JSON.stringify(holder));
}

/** A token naming a lock whose record cannot be read and that is older than a wait (a live lock is always readable:
 *  its record is in it before it is in place), or undefined. Looked at itself, not followed: a file or a link (a
 *  dangling one too) in its place is such a lock. */
async function unreadable(lock: string): Promise<string | undefined> {
  const st = await lstat(lock, { bigint: true }).catch(() => undefined);
  return st && olderThanWait(Number(st.mtimeMs)) ? `unreadable-${st.ino}` : undefined;
}

/** Takes over the lock of a gone holder (`dead`, its token); true once that lock is gone. One call only takes one
 *  holder's lock over: the one that puts the takeover folder named by that token in place, while the lock is still
 *  that holder's (no one else may move it then), so a live lock taken meanwhile is never moved (review 17). A taker that
 *  died mid-way leaves its folder, which the next taker removes as it removes a dead lock (removeIfStill). */
async function takeOver(lock: string, dead: string, me: Holder): Promise<boolean> {
  const mutex = `${lock}.${dead}.takeover`;
  const staging = `${lock}.${me.token}.t.new`;
  await stage(staging, me);
  const placed = await rename(staging, mutex).then(() => true, () => false);
  if (!placed) {
    await rm(staging, { recursive: true, force: true });
    const taker = await holderOf(mutex);
    if (taker && gone(taker)) await removeIfStill(mutex, taker.token, me.token);
    return false;
  }
  const current = await holderOf(lock);
  const moved = (current?.token ?? (await unreadable(lock))) === dead && (await removeIfStill(lock, dead, me.token));
  await removeIfStill(mutex, me.token, me.token);
  return moved;
}

/** Removes the folder at `path` if it still holds the record of `token` (or one unreadable, named so): moved aside
 *  under a name of this call's first, then checked, and put back if another's was moved meanwhile (removing a folder
 *  in place after a look removed a live taker's, and a change was lost: review 18). */
async function removeIfStill(path: string, token: string, mine: string): Promise<boolean> {
  const aside = `${path}.${mine}.old`;
  if (!(await rename(path, aside).then(() => true, () => false))) return false;
  const moved = await holderOf(aside);
  if ((moved?.token ?? (token.startsWith("unreadable-") ? token : undefined)) === token) {
    await rm(aside, { recursive: true, force: true });
    return true;
  }
  await rename(aside, path).catch(() => undefined); // someone's since: theirs stays where it was, or is swept once they are gone
  return false;
}

/** One lock per file, however it is named: where it really lands (after symlinks on the way), folded (macOS and
 *  Windows take PRD.md and prd.md for one file). By its path, which stays the same as folders on the way are made (a
 *  key by folder device and inode changed then, and two starts at once both held "the" lock); so one file reached
 *  through two mount points (a bind mount) has two locks. */
async function lockKey(root: string, rel: string): Promise<string> {
  const landed = await landingOf(root, rel);
  return foldPath(landed.ok ? landed.real : resolve(root, rel));
}
