// A file changed both here and on the remote since it was pulled, merged rather than refused where the kind allows:
// a structured memory file (what either side added or removed, review 54) and a memlog both sides only appended to
// (review 205). Pull writes the merge; push asks the same question, to say what a pull will do with its conflict.
import { memoriesChangedBothWays, mergeMemoryFiles, structuredType } from "../core/memory/files.js";
import { isMemlogPath, memlogFormatError, memlogUnappended, mergeMemlogs } from "../core/runtime/memlog-text.js";
import { MAX_FILE_BYTES } from "../core/workspace/limits.js";
import { count as n } from "../core/count.js";
import type { Result } from "../core/result.js";
import type { SyncOptions } from "./sync-pull.js";
import type { SyncedFile } from "./sync-state.js";

/** Failed: no merge keeps both sides' word (`error`, with `fix`, the ways out); `oversize`: only the 1 MiB a workspace
 *  file holds stood in the way, which a pull leaves to the user, pulling the rest. */
export type Merge = Result<{ bytes: Uint8Array }, { fix: string; oversize?: true }>;

/** The ways out of a conflict over `path`, pulled before. Not "move yours aside, pull": a pulled file moved aside reads
 *  as deleted here, a conflict too (review 188); and keeping yours drops `theirs`, which the remote's history keeps.
 *  Push's --force names the file, so that it sends no other over the remote's (review 264). */
export const conflictFix = (o: SyncOptions, path: string, theirs: string) =>
  `keep the remote's: ${o.again("pull", true)}; keep yours, dropping ${theirs} (the remote's history keeps it): ${o.again("push", true, [path])}; or copy yours aside, ${o.again("pull", true)}, merge, push`;

/** The remote's change in a conflict's line, and whose it is where the remote says (review 300: "changed on the remote"
 *  named no one); `since`, what it came after (" since the pull"). */
export const remoteChange = (from: number, to: number, author: string | undefined, since = "") =>
  `changed on the remote${author ? ` by ${author}` : ""}${since} (version ${from} -> ${to})`;

/** A conflict over a file a push was sending when its answer was lost, which the remote's history could not tell landed
 *  or not (SyncState.sent after settleSent): the remote's change may hold the user's own text, so no --force over it is
 *  advised (review 235: push --force would have dropped a member's 1,010 versions on top of it). */
export const untoldSent = (o: SyncOptions, reason: string) => ({
  reason: `${reason}; whether your push whose answer was lost sent yours is not known (the remote's history since the pull is longer than the bridge reads)`,
  fix: `copy yours aside, ${o.again("pull", true)}, compare yours with the remote's (bmad-files history lists its versions), and push what it lacks`,
});

/** Why a file of the user's changed (or `deleted`) here stays here when the remote serves its copy altered (a
 *  `redacted` read), and the ways out: one text for pull's line and push's, which holds it back. `there`: the remote's
 *  change since the pull, where it changed too. Nothing built from the served copy is sent, a merge neither (review
 *  325: a pull merged one and promised push would send it): it would erase on the remote what the copy left out. */
export function servedAlteredHeld(o: SyncOptions, deleted: boolean, there?: string): string {
  const [here, back] = deleted ? ["deleted here", "Bring back the remote's served copy"] : ["changed here", "Take the remote's served copy (yours is kept a week)"];
  return `${here}${there ? `, and ${there}` : ""}, but the remote serves it altered (without its secret-looking keys, or with bytes that are not UTF-8 shown as \uFFFD), so push holds it back and a pull merges nothing into it: either would lose what the copy left out. ${back} with ${o.again("pull", true)}; to replace the remote's, its owner deletes it there (bmad-files delete) and you push yours again (without secrets, and as UTF-8 text)`;
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** `mine` (the file here) merged with `theirs` (the remote's) since `synced`, the version pulled; undefined where the
 *  file merges not: no memory file or memlog, a memlog a side did more than append to, or a copy served altered
 *  (servedAlteredHeld). */
export async function mergeBothWays(o: SyncOptions, path: string, mine: Uint8Array, synced: SyncedFile | undefined, theirs: { bytes: Uint8Array; version: number; redacted?: boolean }): Promise<Merge | undefined> {
  if (theirs.redacted) return undefined;
  let merged: string | undefined;
  if (structuredType(path)) {
    // Against the version last pulled, read from the workspace's history, so that a memory one side removed stays removed.
    const base = synced ? await o.workspace.read(path, synced.version) : undefined;
    const baseText = base?.ok ? text(base.value.bytes) : undefined;
    const copies: [string, string] = [text(mine), text(theirs.bytes)];
    // A memory edited on both sides has no merge: one edit would be lost, so the file waits, as any other would.
    const both = memoriesChangedBothWays(path, copies, baseText);
    if (both.length) {
      const named = `memor${both.length === 1 ? "y" : "ies"} ${both.slice(0, 3).join(", ")}${both.length > 3 ? ` and ${both.length - 3} more` : ""}`;
      return {
        ok: false,
        error: `${named} ${baseText !== undefined ? `changed here and on the remote (version ${synced!.version} -> ${theirs.version}) since the pull, each its own way` : `differ${both.length === 1 ? "s" : ""} here and on the remote (version ${theirs.version}), with no pulled version to tell whose edit is newer`}`,
        fix: synced ? conflictFix(o, path, "the memories added or changed on the remote since") : `move yours aside and pull, or let the remote's overwrite it: ${o.again("pull", true)}`,
      };
    }
    merged = mergeMemoryFiles(path, copies, baseText);
  } else if (isMemlogPath(path) && synced) {
    const base = await o.workspace.read(path, synced.version);
    if (!base.ok || base.value.redacted) return undefined;
    const [was, here, there] = [text(base.value.bytes), text(mine), text(theirs.bytes)];
    merged = mergeMemlogs(was, here, there);
    // What stops the merge, the remote's doing first: the promise push makes of a memlog's conflict (review 264).
    const remoteDid = merged === undefined ? memlogUnappended(was, there) : undefined;
    const hereDid = merged === undefined && !remoteDid ? memlogUnappended(was, here) : undefined;
    if (remoteDid || hereDid) {
      const what = remoteDid ? `the remote ${remoteDid}` : `you ${hereDid} here`;
      return { ok: false, error: `changed here and on the remote (version ${synced.version} -> ${theirs.version}) since the pull, and ${what}, which no merge of appended entries keeps`, fix: conflictFix(o, path, "the remote's change since") };
    }
    // A .memlog.md memlog.py did not write (review 300: push promised a merge that pull then refused, --force alone offered).
    const unread = ([[there, "the remote's copy"], [here, "yours here"], [was, "the version pulled"]] as const).map(([copy, whose]) => [memlogFormatError(copy), whose] as const).find(([error]) => error);
    if (unread) {
      return { ok: false, error: `changed here and on the remote (version ${synced.version} -> ${theirs.version}) since the pull, and ${unread[1]} is not in memlog.py's format (${unread[0]}), so no merge of appended entries applies`, fix: conflictFix(o, path, "the remote's change since") };
    }
  }
  if (merged === undefined) return undefined;
  const bytes = new TextEncoder().encode(merged);
  // One the remote cannot hold is no merge: push could never send it, and the next change there stopped every pull
  // (reviews 207 and 211). Said as what it is, not as a conflict a pull merges.
  if (bytes.byteLength > MAX_FILE_BYTES) {
    const both = synced ? `changed here and on the remote (version ${synced.version} -> ${theirs.version}) since the pull` : `differs here and on the remote (version ${theirs.version})`;
    return {
      ok: false,
      error: `${both}, and merged it would be ${n(bytes.byteLength)} bytes, past the 1 MiB a workspace file holds`,
      fix: `keep the remote's: ${o.again("pull", true)}; keep yours, dropping the remote's change since (the remote's history keeps it): ${o.again("push", true, [path])}; or take out of yours what you no longer need until both fit, then pull again`,
      oversize: true,
    };
  }
  return { ok: true, bytes };
}
