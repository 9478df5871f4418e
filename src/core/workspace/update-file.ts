// A file changed from its current bytes, as a compare-and-set on its version: a round that lost to another writer
// reads the file again and changes that. Used wherever a change depends on what is there (a ported script's update,
// bmad-files "edit"), so that no acknowledged write between the read and the write is lost.
import type { FileContent, FileEntry, WorkspaceFiles, WsResult } from "./store.js";

/** Rounds before an update gives up: each lost round means another writer's change landed. */
export const UPDATE_ROUNDS = 64;

/** A file as a round read it: its bytes at a version, and who made it where the read said so. */
export type Found = Pick<FileContent, "data" | "version"> & Partial<Pick<FileContent, "author" | "changed_by_other" | "updated_at">>;

/** The next bytes from the file as read (null: missing): new bytes, null to remove it, undefined to leave it. */
export type ReadChange = (current: Found | null) => Uint8Array | null | undefined | Promise<Uint8Array | null | undefined>;

/** What the change made: the new version, the removal, or nothing (left as it was). `first`: the file as the caller
 *  read it already (null: missing), for the first round; `edit`: bmad-files "edit"'s change (WorkspaceFiles.write). */
export async function updateFile(files: WorkspaceFiles, rel: string, change: ReadChange, options: { first?: Found | null; alsoBy?: string[]; edit?: true } = {}): Promise<WsResult<FileEntry | { path: string; version: number } | undefined>> {
  let found = options.first;
  for (let round = 0; round < UPDATE_ROUNDS; round++) {
    if (found === undefined) {
      // Its own read, shown to no one (a refused edit's): a whole write after it still says what it replaced (review 279).
      const read = await files.read(rel, undefined, { served: false });
      if (!read.ok && read.kind !== "not_found") return read;
      found = read.ok ? read.value : null;
    }
    const current = found;
    found = undefined;
    const next = await change(current);
    if (next === undefined) return { ok: true, value: undefined };
    const ifVersion = current?.version ?? 0;
    const out = next === null ? (current ? await files.remove(rel, ifVersion) : { ok: true as const, value: undefined }) : await files.write(rel, next, { ifVersion, ...(options.alsoBy ? { alsoBy: options.alsoBy } : {}), ...(options.edit ? { edit: true as const } : {}) });
    if (out.ok || out.kind !== "conflict") return out;
  }
  return { ok: false, kind: "conflict", error: `${rel} kept changing under ${UPDATE_ROUNDS} other writes; try again.` };
}
