// A file another program is saving in place: an editor (or Python's open(path, "w")) empties it, then writes. A change
// that read it between the two landed over the empty file, and the user's whole file was lost (review 234). Such a
// file, caught just after it changed empty, or shorter than a change last saw it, is waited on until it holds still.
import type { BigIntStats } from "node:fs";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { changedFailure, stamped, type ConfinedFailure } from "./confined-fs.js";

/** How long such a file must hold still before a change reads it, and the most a change waits for that. A program
 *  that holds a file empty longer than SETTLE_MS is not seen (docs/bridge.md, "Beside other programs"). */
const SETTLE_MS = 100;
const SETTLE_MAX_MS = 1000;

/** Each file as a change last read or wrote it, by its real path: a file that shrank since. Bounded: the oldest go. */
const seen = new Map<string, { stamp: string; size: number }>();
const SEEN_MAX = 10_000;

/** Notes the file at `rel` as a change read or wrote it: its stamp and its size in bytes. */
export function sawFile(root: string, rel: string, stamp: string, size: number): void {
  const path = join(root, rel);
  seen.delete(path);
  if (seen.size >= SEEN_MAX) seen.delete(seen.keys().next().value!);
  seen.set(path, { stamp, size });
}

/** The stamp of the file at `rel` to change it over, once it is not caught mid-save (midSave), or "changed" where it
 *  did not hold still for SETTLE_MS within SETTLE_MAX_MS. */
export async function settledStamp(root: string, rel: string): Promise<string | ConfinedFailure> {
  const path = join(root, rel);
  let st = await stat(path, { bigint: true }).catch(() => undefined);
  if (!midSave(st, seen.get(path))) return stamped(st);
  for (let waited = 0; waited < SETTLE_MAX_MS; waited += SETTLE_MS) {
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const again = await stat(path, { bigint: true }).catch(() => undefined);
    if (stamped(again) === stamped(st)) return stamped(st);
    st = again;
  }
  return changedFailure(rel);
}

/** Changed within SETTLE_MS by another program (not as a change last saw it), and empty, or the same file (a stamp
 *  starts with its device and inode) shorter than then. A file replaced whole (os.replace: another inode) or appended
 *  to is read at once: BMAD's own Python saves every 30 ms (review 226). */
function midSave(st: BigIntStats | undefined, last: { stamp: string; size: number } | undefined): boolean {
  if (!st || stamped(st) === last?.stamp || Date.now() - Number(st.ctimeNs / 1_000_000n) >= SETTLE_MS) return false;
  const shrank = last !== undefined && last.stamp.startsWith(`${st.dev}:${st.ino}:`) && st.size < BigInt(last.size);
  return st.size === 0n || shrank;
}
