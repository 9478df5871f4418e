// The small file system the ported BMAD scripts run on: a project directory on the bridge,
// a workspace (a key-value store of files) on the remote. Paths are absolute POSIX paths, as the
// script sees them; without realpath they come normalized (no "." or ".." parts, no double slash).

import type { MemlogEdit } from "./memlog-text.js";

/** A change to a text file that the place keeping it can apply itself (memlog-text.ts), and what it tells. */
export type TextEdit = MemlogEdit;
export interface TextEdited {
  /** The memlog's entries after the edit. */
  entries: number;
}

/** What is at a path. A directory exists where some file is below it, or where mkdir made one. */
export type FsEntryKind = "file" | "dir" | "missing";

/** A file's next bytes from its current ones (undefined: missing): new bytes, null to remove it, undefined to leave it. */
export type FileChange = (current: Uint8Array | undefined) => Uint8Array | null | undefined | Promise<Uint8Array | null | undefined>;

/** An error a RuntimeFs throws whose message names its file already (the bridge's refusals start with the project
 *  path): the OSError a script shows is its message alone, not followed by the absolute path again. */
export type NamingError = Error & { namesFile: true };

/** A path the confined file system refuses where Python would have read or written it (outside the project, tools'
 *  machinery, a file that holds secrets, too large): its message names the path as the project does and says why. A
 *  script sees the OSError asOsError makes of it; a run it ends answers `Refused: …` (runScript), never a traceback
 *  Python would not have printed (review 359). `code`: the errno its OSError carries. */
export class FsRefusal extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface RuntimeFs {
  /** The bytes of a regular file; undefined when nothing is there or it is a directory.
   *  Throws when the path is refused (outside the allowed roots, not a regular file, too large). */
  readFile(path: string): Promise<Uint8Array | undefined>;
  /** Creates or replaces a file atomically (readers see the old bytes or the new, never half);
   *  parent directories are created as needed. */
  writeFile(path: string, data: Uint8Array): Promise<void>;
  /** Whether a file, a directory or nothing is at the path (symlinks followed). */
  stat(path: string): Promise<FsEntryKind>;
  /** Names (not paths) of a directory's direct children, files and directories; [] when it is missing. */
  list(dir: string): Promise<string[]>;
  /** Creates the directory `dir` holding `files` (paths relative to it), all or nothing, as Python's stage-and-rename
   *  does: when it fails nothing new is left. Fails when something is at `dir` already. */
  createTree(dir: string, files: Map<string, Uint8Array>): Promise<void>;
  /** Makes a directory and its parents (Python's mkdir(parents=True, exist_ok=True)).
   *  A no-op where directories are implicit. */
  mkdir(dir: string): Promise<void>;
  /** Reads, changes and writes a file as one step: no other write lands between the read and the write (a lock
   *  on the bridge, compare-and-set on a workspace). What append-only files (memlogs) need. Omitted where nothing
   *  else writes (the bundle): a read and a write then do. */
  update?(path: string, change: FileChange): Promise<void>;
  /** Applies `edit` where the file is kept, in the same step as its write: no read comes back first (a workspace's
   *  object does it in one call). What it tells, or undefined where the edit did not apply there (see editTextThere).
   *  Omitted where update does as well. */
  editText?(path: string, edit: TextEdit): Promise<TextEdited | undefined>;
  /** The path with symlinks resolved, like Python's Path.resolve() (missing tail kept as written).
   *  Omitted where there are no symlinks: paths are then normalized lexically. */
  realpath?(path: string): Promise<string>;
}
