// Which process is which, as Linux's /proc tells (elsewhere: nothing, and callers go by age): a lock's holder and a
// temp file's writer are named by pid, start, pid namespace and boot, so a reused pid or a zombie is not taken for them.
import { createHash } from "node:crypto";
import { readFileSync, readlinkSync } from "node:fs";

/** A process's start, as the kernel counts it (Linux: clock ticks since boot): a pid reused by a later process is not
 *  this holder. */
export function startOf(pid: number): string | undefined {
  return statFields(pid)?.[19];
}

/** The fields of /proc/<pid>/stat after the command's name (state first), or undefined where it cannot be read. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}
export const ownStart = startOf(process.pid);
/** Which process ids this process sees (its pid namespace) and since when (this boot): a holder's pid means its process
 *  only within both (review 22: a bridge in another pid namespace took over a live holder's lock 35 ms after it was made). */
export const ownPidNs = (() => {
  try {
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    return undefined;
  }
})();
export const ownBoot = (() => {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return undefined;
  }
})();

/** Whether the holder's process has ended (or its pid now names another process). A holder from an earlier boot is gone;
 *  one from another pid namespace cannot be looked at, so it is never taken for gone (a waiter gives up instead). */
export function gone(holder: { pid: number; start?: string; pidns?: string; boot?: string }): boolean {
  if (holder.boot !== undefined && ownBoot !== undefined && holder.boot !== ownBoot) return true;
  if (holder.pidns !== undefined && ownPidNs !== undefined && holder.pidns !== ownPidNs) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
  const fields = statFields(holder.pid);
  // A process killed and not yet reaped (a zombie) still answers kill(0), and holds nothing (review 58: its lock
  // blocked the file until a parent that never reaps did).
  if (fields?.[0] === "Z" || fields?.[0] === "X") return true;
  return holder.start !== undefined && fields?.[19] !== undefined && fields[19] !== holder.start;
}

/** This process as a writer's temp file names it (`<pid>-<start>-<namespace and boot, digested>`), so that a sweep tells
 *  a killed writer's leftover at once (review 74: one stayed in the project, where `git add -A` takes it, for as long as
 *  the next bridge ran); undefined where /proc cannot say. */
export const writerTag = ownStart && ownPidNs && ownBoot ? `${process.pid}-${ownStart}-${placeDigest(ownPidNs, ownBoot)}` : undefined;

function placeDigest(pidns: string, boot: string): string {
  return createHash("sha256").update(`${pidns}\n${boot}`).digest("hex").slice(0, 8);
}

/** Whether the writer a temp file's tag names has ended: undefined where this process cannot tell (another pid
 *  namespace or boot, no /proc), and then only its age says. */
export function writerGone(tag: string): boolean | undefined {
  const [pid, start, place] = tag.split("-");
  if (!ownPidNs || !ownBoot || place !== placeDigest(ownPidNs, ownBoot)) return undefined;
  return gone({ pid: Number(pid), start });
}
