// A file another program is saving in place: an editor (or Python's open(path, "w")) empties it, then writes, in one
// part or several. A change that read it between two parts landed over the half-written file, and the rest of the
// save went to the file the change replaced (review 234: caught empty, the user's whole file lost; review 334: caught
// after a first part, the second lost). A file just changed in place is waited on until it holds still.
import { createHash } from "node:crypto";
import { constants, type BigIntStats } from "node:fs";
import { open, stat } from "node:fs/promises";
import { join } from "node:path";
import { changedFailure, stamped, type ConfinedFailure } from "./confined-fs.js";

/** How long such a file must hold still before a change reads it, and the most a change waits for that. A program
 *  that pauses longer than SETTLE_MS between two parts of a save is not seen (docs/bridge.md, "Beside other programs"). */
const SETTLE_MS = 100;
const SETTLE_MAX_MS = 1000;

/** Each file as a change last read or wrote it, by its real path: its stamp, size and the digest of its bytes (an append
 *  since keeps them at its start). Bounded: the oldest go. */
const seen = new Map<string, Seen>();
const SEEN_MAX = 10_000;
type Seen = { stamp: string; size: number; digest: string };

const digestOf = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** Notes the file at `rel` as a change read or wrote it: its stamp and its bytes. */
export function sawFile(root: string, rel: string, stamp: string, bytes: Uint8Array): void {
  const path = join(root, rel);
  seen.delete(path);
  if (seen.size >= SEEN_MAX) seen.delete(seen.keys().next().value!);
  seen.set(path, { stamp, size: bytes.byteLength, digest: digestOf(bytes) });
}

/** The stamp of the file at `rel` to change it over, once it is not caught mid-save (midSave): once it held still for
 *  SETTLE_MS, or was replaced whole; "changed" where neither within SETTLE_MAX_MS. */
export async function settledStamp(root: string, rel: string): Promise<string | ConfinedFailure> {
  const path = join(root, rel);
  let st = await stat(path, { bigint: true }).catch(() => undefined);
  if (!(await midSave(path, st, seen.get(path)))) return stamped(st);
  for (let waited = 0; waited < SETTLE_MAX_MS; waited += SETTLE_MS) {
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const again = await stat(path, { bigint: true }).catch(() => undefined);
    // Held still, or replaced whole meanwhile (another inode: a save by rename, complete; review 226's Python saves a
    // file no change has seen every 30 ms, and it never held still).
    if (stamped(again) === stamped(st) || (again && st && again.ino !== st.ino)) return stamped(again);
    st = again;
  }
  return changedFailure(rel);
}

/** Changed within SETTLE_MS by another program (not as a change last saw it), in place: the file a change last saw
 *  (a stamp starts with its device and inode), or one no change has seen and empty. Its size says
 *  nothing: a first part of a save can be longer than the file was. Read at once: a file replaced whole (os.replace:
 *  another inode; BMAD's own Python saves every 30 ms, review 226), and one only appended to (it starts with the bytes
 *  a change last saw, which may already hold an append made between a change's stat and its read). A file changed
 *  longer ago pays one stat. */
async function midSave(path: string, st: BigIntStats | undefined, last: Seen | undefined): Promise<boolean> {
  if (!st?.isFile() || stamped(st) === last?.stamp || Date.now() - Number(st.ctimeNs / 1_000_000n) >= SETTLE_MS) return false;
  // Never seen: only one emptied is known to be a save starting; one a watcher touches or a log grows every 50 ms would
  // never hold still, and no change to it would land (review 337).
  if (last === undefined) return st.size === 0n;
  if (!last.stamp.startsWith(`${st.dev}:${st.ino}:`)) return false;
  // A file emptied, or one a change saw empty and now being written, is a save starting.
  return !(last.size > 0 && st.size >= BigInt(last.size) && (await startsAs(path, last)));
}

/** Whether the file at `path` starts with the bytes a change last saw of it (`last`): appended to since. */
async function startsAs(path: string, last: Seen): Promise<boolean> {
  // Never blocks: what is there now may be a FIFO put in its place.
  const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => undefined);
  if (!file) return false;
  try {
    const start = Buffer.alloc(last.size);
    const { bytesRead } = await file.read(start, 0, last.size, 0);
    return bytesRead === last.size && digestOf(start) === last.digest;
  } finally {
    await file.close();
  }
}
