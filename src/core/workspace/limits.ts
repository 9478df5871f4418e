// What a workspace holds at most, checked before anything is stored, each with an error that names the limit
// and the way out. Sizes are UTF-8 bytes of the file's content.
import type { Result } from "../result.js";
import { count as n } from "../count.js";
import { isMemlogPath } from "../runtime/memlog-text.js";

export const MIB = 1024 * 1024;
export const MAX_FILE_BYTES = 1 * MIB;
export const MAX_FILES = 5_000;
/** Files one listing (bmad-files list) shows; past it, the folders holding the rest are named, each listed on its own. */
export const MAX_LISTED = 1_000;
/** Versions one history answer lists, newest first; "version" asks for those older than it (review 220: a member's
 *  1,049 write-and-restore rounds made the owner's history 250 KB and pushed their own versions out of sight). */
export const HISTORY_PAGE = 50;
/** How far back a status answer looks for documents deleted from a folder it would call empty, and how many it names
 *  (review 305). */
export const DELETED_LATELY_DAYS = 30;
export const DELETED_SHOWN = 5;
export const MAX_PROJECT_BYTES = 50 * MIB;
export const MAX_PROJECTS = 100;
/** People one project is shared with or offered to. */
export const MAX_SHARES = 100;
/** Offers from one owner waiting for one person's answer: a stranger may offer, never fill someone's list. */
export const MAX_OFFERS_FROM_ONE_OWNER = 10;
/** Offers a project list shows and checks, the newest first; older ones wait, counted, until some are answered. */
export const MAX_OFFERS_SHOWN = 20;
/** Earlier versions' content kept per project; past it the oldest earlier versions lose their content (not their entry). */
export const MAX_HISTORY_BYTES = 200 * MIB;

export type LimitCheck = Result;

/** The project's state before a change, and what the change leaves. */
export interface WriteBudget {
  project: string;
  path: string;
  /** Files and bytes the project holds now. */
  files: number;
  bytes: number;
  /** The file's current size; undefined when it does not exist yet. */
  oldSize: number | undefined;
  newSize: number;
  /** Who else grew the file, where a change past MAX_FILE_BYTES is to name them (GrownBy). */
  grown?: GrownBy | undefined;
}

/** Someone other than the one changing a file who wrote most of it (`characters` of it), and `before`, the version before
 *  their largest growth of it, whose content is kept. */
export interface GrownBy {
  by: string;
  characters: number;
  before?: { version: number; size: number };
}

export function checkWrite(b: WriteBudget): LimitCheck {
  if (b.newSize > MAX_FILE_BYTES) return { ok: false, error: fileTooBig(b.path, b.newSize, b.grown) };
  if (b.oldSize === undefined && b.files + 1 > MAX_FILES) {
    return { ok: false, error: `Project "${b.project}" has ${n(b.files)} files, the most a project holds; delete some before adding ${b.path}.` };
  }
  const total = b.bytes - (b.oldSize ?? 0) + b.newSize;
  if (total > MAX_PROJECT_BYTES) {
    return { ok: false, error: `Project "${b.project}" would hold ${n(total)} bytes; a project holds at most 50 MiB (${n(MAX_PROJECT_BYTES)} bytes). Delete or shrink files first.` };
  }
  return { ok: true };
}

/** Why `path` cannot be `size` bytes: who else filled it and the version before they did, to restore (review 316: a
 *  member's 1 MiB in the owner's memlog failed every memlog.py append with "Split it", which memlog cannot do); a
 *  memlog, which a script appends to, is not told to split. */
function fileTooBig(path: string, size: number, grown: GrownBy | undefined): string {
  const over = `${path} would be ${n(size)} bytes; a file holds at most 1 MiB (${n(MAX_FILE_BYTES)} bytes).`;
  if (grown) {
    const back = grown.before
      ? `bmad-files "restore" with version ${grown.before.version} (${n(grown.before.size)} bytes), the one before their largest growth of it, brings it back under the cap; then make this change again`
      : `bmad-files "history" lists its versions: restore one from before their growth of it, or ask them to shrink it`;
    return `${over} ${grown.by} wrote most of it (${n(grown.characters)} characters), not you: ${back}.`;
  }
  if (isMemlogPath(path)) return `${over} A memlog cannot be split: restore an earlier, smaller version (bmad-files "history" lists them), or start a new memlog in another folder.`;
  return `${over} Split it into several files.`;
}

/** The folder `path` is in, as `a/b/` (the top one: ""): what MAX_LISTED counts files directly in. */
export const folderOf = (path: string) => path.slice(0, path.lastIndexOf("/") + 1);

/** Why a new file cannot go in its folder, which directly holds `inFolder` files already, or undefined: a folder holds
 *  directly at most what one listing shows, so a pull or push can list every file (a member's 1,001 files in one folder
 *  stopped the owner's every pull and push, and took one delete a file to undo). */
export function folderFull(path: string, inFolder: number): string | undefined {
  if (inFolder < MAX_LISTED) return undefined;
  const folder = folderOf(path);
  return `Cannot add ${path}: ${folder ? `the folder ${folder}` : "the project's top folder"} holds ${n(inFolder)} files directly, and a folder holds at most ${n(MAX_LISTED)}, the most one listing shows (so that a pull lists them all). Put it in a subfolder (${folder}<name>/), or delete some there first (bmad-files "delete" takes a glob).`;
}

/** Many files at once (a new project, rewritten config, a rendered skill): the file count, then each file and the bytes. */
export function checkWriteAll(project: string, current: { files: number; bytes: number; sizes: Map<string, number> }, writes: Array<{ path: string; size: number }>): LimitCheck {
  const added = writes.filter((w) => !current.sizes.has(w.path)).length;
  if (added > 1 && current.files + added > MAX_FILES) {
    return { ok: false, error: `Project "${project}" has ${n(current.files)} files and this change adds ${n(added)}; a project holds at most ${n(MAX_FILES)}. Delete some first.` };
  }
  let { files, bytes } = current;
  for (const w of writes) {
    const oldSize = current.sizes.get(w.path);
    const one = checkWrite({ project, path: w.path, files, bytes, oldSize, newSize: w.size });
    if (!one.ok) return one;
    if (oldSize === undefined) files++;
    bytes += w.size - (oldSize ?? 0);
  }
  return { ok: true };
}

/** `deleted`: of `owned`, those deleted and kept 7 days, which count until they go. */
export function checkProjectCount(owned: number, deleted = 0): LimitCheck {
  if (owned < MAX_PROJECTS) return { ok: true };
  const kept = deleted ? ` (${deleted} of them deleted and kept 7 days, which count until they go)` : "";
  return { ok: false, error: `You have ${owned} projects${kept}, the most one user may own (${MAX_PROJECTS}). A project deleted (bmad-project action "delete") frees its place when it goes for good, 7 days later: ask the user which, if any, to delete.` };
}
