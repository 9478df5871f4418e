// Watching BMAD folders for edits. Node's recursive fs.watch on Linux puts an inotify watch on every file and folder
// below and drops its errors: a --path holding node_modules took 37,696 watches and 169 MB, one of 200,000 files all
// of its user's watches (every other program's fs.watch then failed), and no failure was ever said (review 214).
// Here, on Linux, one watch per folder, none in a folder no build reads (node_modules, .git) or that the caller
// passes over, MAX_WATCHED_FOLDERS in all, and a failure said once. Elsewhere the system watches a folder whole for one
// handle (FSEvents, ReadDirectoryChangesW), and what it reports from those folders is passed over.
import { lstatSync, readdirSync, realpathSync, statSync, watch, type FSWatcher } from "node:fs";
import { join, relative, sep } from "node:path";
import { isWithin, MAX_TREE_DEPTH, SKIP_DIRS, toPosix } from "../compiler/files.js";

/** Folders watched at most, all roots together: BMAD's own package has about 120, and a user's inotify watches are
 *  shared by all of their programs. */
export const MAX_WATCHED_FOLDERS = 2_000;

const PER_FOLDER = process.platform === "linux";

export class FolderWatch {
  /** Each folder watched, with the folder it was (one removed and made again is another, unwatched). */
  private readonly watched = new Map<string, { watcher: FSWatcher; ino: number }>();
  /** Each root watched, with the source root it must really be in. */
  private readonly roots = new Map<string, string>();
  private said = false;

  constructor(
    /** A change at `rel` (relative to `root`; "" for the root itself). */
    private readonly onChange: (root: string, rel: string) => void,
    /** Paths relative to a root that are not watched and whose changes are not passed on. */
    private readonly ignore: (rel: string) => boolean,
    /** Said once, naming folders by their paths in their source roots (clients are shown it). */
    private readonly warn: (message: string) => void,
  ) {}

  /** Watches `root` and the folders below it, if it really is in `source` (the tree a build reads it from). */
  add(root: string, source: string): void {
    this.roots.set(root, source);
    this.watchFolder(root, root, 0);
  }

  /** Watches again each root whose watch went (its folder removed and made again, or its watcher failed). */
  restore(): void {
    for (const root of this.roots.keys()) this.watchFolder(root, root, 0);
  }

  close(): void {
    for (const { watcher } of this.watched.values()) watcher.close();
    this.watched.clear();
    this.roots.clear();
  }

  private watchFolder(root: string, dir: string, depth: number): void {
    if (this.watched.has(dir)) return;
    // A root that is a link (`.claude/skills` may be one) is followed only into its source, as the build reads it: one
    // to /usr filled the watch's limit and an edit of a skill was never seen (review 448).
    if (dir === root && !this.inSource(root)) return;
    const ino = folderIno(dir, dir === root);
    if (ino === undefined) return;
    if (this.watched.size >= MAX_WATCHED_FOLDERS) return this.failed(`${this.shown(root, dir)}: ${MAX_WATCHED_FOLDERS} folders are watched already, the most this server watches`);
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { recursive: !PER_FOLDER }, (event, name) => this.changed(root, dir, depth, event, name));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT") this.failed(`${this.shown(root, dir)} (${code ?? "error"})`);
      return;
    }
    // Spent (a folder gone under a recursive watch): dropped, and the change counted.
    watcher.on("error", () => {
      this.unwatch(dir);
      this.onChange(root, relative(root, dir));
    });
    this.watched.set(dir, { watcher, ino });
    if (!PER_FOLDER || depth >= MAX_TREE_DEPTH) return;
    for (const name of folders(dir)) if (this.readable(root, join(dir, name))) this.watchFolder(root, join(dir, name), depth + 1);
  }

  private changed(root: string, dir: string, depth: number, event: string, name: string | null): void {
    const path = name ? join(dir, name) : dir;
    if (!this.readable(root, path)) return;
    if (PER_FOLDER && event === "rename") {
      // A folder made, moved in, removed or moved away (this one too): watched as it is now.
      for (const folder of [dir, path]) if (this.watched.has(folder) && this.watched.get(folder)!.ino !== folderIno(folder, folder === root)) this.unwatch(folder);
      if (path !== dir && depth < MAX_TREE_DEPTH) this.watchFolder(root, path, depth + 1);
    }
    this.onChange(root, relative(root, path));
  }

  /** Whether `path` is one a build reads: not in node_modules, .git or __pycache__, nor passed over by the caller. */
  private readable(root: string, path: string): boolean {
    const rel = relative(root, path);
    return !rel.split(sep).some((part) => SKIP_DIRS.has(part)) && !this.ignore(rel);
  }

  /** Whether `root`'s real path is in its source's (isWithin, as a build judges a link); not if either is gone. */
  private inSource(root: string): boolean {
    try {
      return isWithin(realpathSync.native(this.roots.get(root)!), realpathSync.native(root));
    } catch {
      return false;
    }
  }

  /** `dir` as clients are shown it: its path in its root's source (no machine paths). */
  private shown(root: string, dir: string): string {
    return toPosix(relative(this.roots.get(root)!, dir)) || ".";
  }

  /** Stops watching `dir` and every folder below it. */
  private unwatch(dir: string): void {
    for (const [folder, { watcher }] of this.watched) {
      if (folder !== dir && !folder.startsWith(dir + sep)) continue;
      watcher.close();
      this.watched.delete(folder);
    }
  }

  private failed(what: string): void {
    if (this.said) return;
    this.said = true;
    this.warn(`cannot watch ${what}; edits there, and in any other folder left unwatched, show only after a restart`);
  }
}

/** The folder at `path` (its inode), or undefined if there is none; a link to one is followed only for a root (as
 *  `.claude/skills` may be one), never below it. */
function folderIno(path: string, follow: boolean): number | undefined {
  try {
    const st = (follow ? statSync : lstatSync)(path, { throwIfNoEntry: false });
    return st?.isDirectory() ? st.ino : undefined;
  } catch {
    return undefined; // a file where a folder was in the path, or one this user may not see
  }
}

/** The names of the folders in `dir` (none if it went meanwhile). */
function folders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return [];
  }
}
