// File-system helpers for reading one BMAD tree: walking, symlink containment, text detection.
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync, realpathSync, statSync, type Stats } from "node:fs";
import { join, relative, sep } from "node:path";
import { isConfigShaped, isSecretFile } from "../core/catalog/config.js";
import { codeSpan, machineryName } from "../core/workspace/paths.js";

/** Folders no build reads, at any depth (nor does the bridge watch them: bridge/tree-watch.ts). */
export const SKIP_DIRS: ReadonlySet<string> = new Set(["__pycache__", ".git", "node_modules"]);

export function toPosix(p: string): string {
  return sep === "/" ? p : p.split(sep).join("/");
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false; // gone meanwhile
  }
}

/** Whether `real` (a real path) is `root` (a real path) or below it: a tree reads nothing through a link that leaves
 *  it, and the bridge watches nothing there (bridge/tree-watch.ts). */
export function isWithin(root: string, real: string): boolean {
  return real === root || real.startsWith(root + sep);
}

/** Whether descriptors say where they are, at /proc/self/fd (Linux), as bridge/confined-fs.ts asks. */
const DESCRIBED_FDS = existsSync("/proc/self/fd");

/** A symlink whose target is outside the tree. */
class RefusedLink extends Error {}

/** Why no tree serves `rel`, whatever a manifest row names: a path that is not plain (`.`, `..` or empty segments:
 *  a row in a project's skill manifest would climb from `_bmad/` to the project root), git's or bmad-mcp's own
 *  state, or a secrets file (a tree may be the user's project: its `.env` is no BMAD content). */
function unservable(rel: string): "path" | "machinery" | "secret" | undefined {
  if (rel === "") return undefined;
  const parts = rel.split("/");
  if (parts.some((p) => p === "" || p === "." || p === "..")) return "path";
  if (parts.some((p) => machineryName(p))) return "machinery";
  return isSecretFile(rel) ? "secret" : undefined;
}

/** A path no tree serves: it reads as missing. */
class NotServed extends Error {}

/** Larger files are not BMAD content (a build reads every file it serves into memory). */
export const MAX_FILE_BYTES = 8 * 1024 * 1024;
/** Files and bytes a build takes from one tree: BMAD's own package has under 1,000 files and 4 MB; past these a
 *  manifest names folders by mistake or to stall the build (800 MB of a project's data held 900 MiB each rebuild). */
export const MAX_TREE_FILES = 20_000;
/** Files and folders one walk (a skill's folder, a module's, `_bmad/`) takes of them: one folder's planted thousands
 *  leave the others theirs (review 189: 20,050 empty folders in one skill served every project skill from the package). */
export const MAX_WALK_FILES = MAX_TREE_FILES / 4;
/** How deep below a walked folder a tree's files may sit: each level costs every file below it a longer realpath, and
 *  a chain 1,800 folders deep under a skill held a bridge's start past a client's 60 s (review 22). */
export const MAX_TREE_DEPTH = 32;
/** How many links a tree follows: BMAD's trees hold a few (skills linked into .claude/skills). */
export const MAX_TREE_LINKS = 64;
export const MAX_TREE_BYTES = 64 * 1024 * 1024;

/** A tree past MAX_TREE_BYTES: the whole tree fails. */
class TreeTooLarge extends Error {}

/**
 * One source tree on disk. Every read goes through it so that symlinks cannot leave `root`.
 * A link that leaves it fails the whole tree, unless `userTree`: a tree on the user's machine that the model, a
 * collaborator or a repository may have written (the bridge's); then that link is reported once and reads as
 * missing (the bridge serving a live project wants everything else), and so does a file with other names (a hard
 * link). A link is judged where it leads as well as by its own name (see unservable). What is skipped (such a
 * link, one that points nowhere, a FIFO, an oversized file) is reported once through `warn`.
 */
export class Tree {
  readonly root: string;
  private readonly cache = new Map<string, Buffer | null>();
  private readonly reported = new Set<string>();
  private walked = 0;
  /** Said once the walks have met MAX_TREE_FILES: what they met after it is not read. */
  cut?: string;
  /** What the walks left unread, each said once: the walks that met MAX_WALK_FILES, then `cut`. */
  readonly cuts: string[] = [];
  private links = 0;
  /** Real paths a walk found (a plain file or folder in a folder it resolved), by path. */
  private readonly realOf = new Map<string, string>();
  private bytes = 0;

  constructor(
    root: string,
    /** `warn`'s `shown`: the message as clients may see it, where it differs (a link's target is the user's machine's). */
    private readonly options: { warn?: (message: string, shown?: string) => void; userTree?: boolean } = {},
  ) {
    try {
      this.root = realpathSync.native(root); // as real() resolves what is under it
      if (!statSync(this.root).isDirectory()) throw new Error("not a directory");
    } catch (err) {
      throw new Error(`Cannot read source ${root}: ${(err as Error).message}`);
    }
  }

  abs(rel: string): string {
    return rel === "" ? this.root : join(this.root, rel);
  }

  /** Resolves symlinks and refuses any target outside the root (the message names the link), and any path no
   *  tree serves (see unservable). */
  private real(rel: string): string {
    const not = unservable(rel);
    if (not) {
      if (not === "secret") this.report(rel, `Skipped ${rel} in ${this.root}: a secrets file, never served`);
      throw new NotServed(rel);
    }
    const abs = this.abs(rel);
    // The libc realpath: Node's own lstats every part of the path in JS, for each file a build reads. A file a walk met
    // in a folder it had resolved is known already: resolving each again cost every file behind a link the whole chain
    // the link leads down (review 23: 300 files behind one link to a folder 1,900 deep took 62 s).
    const real = this.realOf.get(rel) ?? realpathSync.native(abs);
    if (!isWithin(this.root, real)) this.refuseLink(rel, real);
    if (real !== abs) {
      // Through a link: where it leads is judged too (a committed `notes.md` -> `../../.env` or `.git/config`), and no
      // config is served through one: redaction goes by the path a file is served at, which a layout may rename
      // (`.claude/skills/custom/notes.toml` is served as `bmm/notes/notes.toml`: review 16).
      const target = toPosix(relative(this.root, real));
      if (unservable(target) || isConfigShaped(target)) {
        this.report(rel, `Skipped ${rel} in ${this.root}: a link to ${target}, which is never served${isConfigShaped(target) ? " through a link" : ""}`);
        throw new NotServed(rel);
      }
    }
    return real;
  }

  /** Refuses `rel`, which leads to `real` outside the root: said once in a user's tree, the whole tree failing else. */
  private refuseLink(rel: string, real: string): never {
    const message = `Refused symlink ${rel} in ${this.root}: its target ${real} leaves the source root`;
    // Where it leads is said on stderr alone: the layout of the user's machine is not the model's (review 346).
    if (this.options.userTree) this.report(rel, message, `Refused symlink ${rel}: its target leaves the source root`);
    throw new RefusedLink(message);
  }

  /** Whether an error from real() must fail the tree rather than read as a missing path. */
  private fatal(err: unknown): boolean {
    return err instanceof TreeTooLarge || (err instanceof RefusedLink && !this.options.userTree);
  }

  exists(rel: string): boolean {
    try {
      statSync(this.real(rel));
      return true;
    } catch (err) {
      if (this.fatal(err)) throw err;
      return false;
    }
  }

  isDir(rel: string): boolean {
    try {
      return statSync(this.real(rel)).isDirectory();
    } catch (err) {
      if (this.fatal(err)) throw err;
      return false;
    }
  }

  /** Entry names of a directory, sorted; [] when missing. */
  list(rel: string): string[] {
    if (!this.isDir(rel)) return [];
    return this.folder(rel)?.names ?? [];
  }

  /** Folder `rel`'s real path and entry names (sorted), or undefined when another program removed it, made it a file
   *  or a link that is refused since it was seen: that folder alone reads as missing, not the whole tree, and the
   *  bridge's watch builds again once the change is done (review 475). */
  private folder(rel: string): { real: string; names: string[] } | undefined {
    try {
      const real = this.real(rel);
      return { real, names: readdirSync(real).sort() };
    } catch (err) {
      if (this.fatal(err) || !(err instanceof RefusedLink || err instanceof NotServed || changedMeanwhile(err))) throw err;
      return undefined;
    }
  }

  /** Bytes of a text file, or null for binary files (a NUL byte in the first 8 KB), missing ones, and what
   *  is not a regular file or is over MAX_FILE_BYTES (a FIFO or a device must not hang or flood a build). */
  read(rel: string): Buffer | null {
    if (this.cache.has(rel)) return this.cache.get(rel) ?? null;
    let data: Buffer | null = null;
    try {
      data = this.readRegular(this.real(rel), rel);
    } catch (err) {
      if (this.fatal(err)) throw err;
    }
    if (data && data.subarray(0, 8192).includes(0)) data = null;
    this.cache.set(rel, data);
    return data;
  }

  private readRegular(real: string, rel: string): Buffer | null {
    // Non-blocking open: opening a FIFO for reading would otherwise wait for a writer.
    const fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      // Judged again where it was opened: a folder on its way swapped for a link out since real() judged it is followed
      // by the open (review 475: a skill's folder swapped while the bridge rebuilt served a file from outside).
      if (DESCRIBED_FDS) {
        const opened = readlinkSync(`/proc/self/fd/${fd}`);
        if (!isWithin(this.root, opened)) this.refuseLink(rel, opened);
      }
      const st = fstatSync(fd);
      const skip = !st.isFile()
        ? "not a regular file"
        : st.size > MAX_FILE_BYTES
          ? `${st.size} bytes, over the ${MAX_FILE_BYTES / 1024 / 1024} MiB a BMAD file may have`
          : this.options.userTree && st.nlink > 1
            ? "a file with other names (a hard link), which may be anything"
            : undefined;
      if (skip) {
        this.report(rel, `Skipped ${rel} in ${this.root}: ${skip}`);
        return null;
      }
      this.bytes += st.size;
      if (this.bytes > MAX_TREE_BYTES) throw new TreeTooLarge(`${this.root} has more than ${MAX_TREE_BYTES / 1024 / 1024} MiB in the folders its BMAD manifests name; a BMAD tree has far less. Remove what does not belong there`);
      const data = Buffer.alloc(st.size);
      let at = 0;
      while (at < data.length) {
        const n = readSync(fd, data, at, data.length - at, at);
        if (n === 0) break;
        at += n;
      }
      return data.subarray(0, at);
    } finally {
      closeSync(fd);
    }
  }

  private report(rel: string, message: string, shown?: string): void {
    if (this.reported.has(rel)) return;
    this.reported.add(rel);
    this.options.warn?.(message, shown);
  }

  text(rel: string): string | null {
    return this.read(rel)?.toString("utf8") ?? null;
  }

  /** Text files below `rel` (relative to the root, POSIX, sorted). Follows symlinks inside the root. */
  walk(rel: string): string[] {
    const out: string[] = [];
    const seen = new Set<string>();
    let walked = 0;
    let stopped = false;
    /** Counts one more file or folder met in `dir` (the folder listing it); false, saying so once, past this walk's share
     *  or the tree's. */
    const counted = (dir: string): boolean => {
      if (stopped || !this.counted(dir)) return false;
      if (++walked <= MAX_WALK_FILES) return true;
      stopped = true;
      this.cuts.push(`Read the first ${MAX_WALK_FILES.toLocaleString("en-US")} files and folders of ${codeSpan(rel || ".")}, and no more (a BMAD skill has far fewer): the limit was reached in ${codeSpan(dir || ".")}, and what is after it there is not served. Remove what does not belong there.`);
      return false;
    };
    const visit = (dir: string, depth: number, from: string): void => {
      if (depth > MAX_TREE_DEPTH) return this.report(dir, `Skipped ${dir} in ${this.root}: deeper than ${MAX_TREE_DEPTH} folders, far past any BMAD tree`);
      const folder = this.folder(dir);
      if (!folder || seen.has(folder.real)) return; // gone meanwhile, or a symlink loop
      const { real } = folder;
      seen.add(real);
      // Folders count with files: 20,000 empty ones cost seconds a walk (review 22).
      if (!counted(from)) return;
      for (const name of folder.names) {
        if (this.cut || stopped) return;
        if (SKIP_DIRS.has(name)) continue;
        const child = dir === "" ? name : `${dir}/${name}`;
        // Not a link: where it really is follows from its folder's real path. A link is resolved down its whole chain:
        // at most MAX_TREE_LINKS of them, none whose target names a path deeper than a tree goes (review 24: 300 links to
        // a file 1,900 folders deep took 59 s).
        if (lstatIfThere(join(real, name))?.isSymbolicLink() === false) this.realOf.set(child, join(real, name));
        else {
          // Resolved a step at a time within a budget: its own text, or a hop it leads to, may name a path 1,900 deep
          // (review 25: one hop past the text check cost 64 links 188 s).
          const resolved = ++this.links > MAX_TREE_LINKS ? undefined : resolveBounded(join(real, name));
          if (resolved === undefined) {
            this.report(child, `Skipped ${child} in ${this.root}: a link past the ${MAX_TREE_LINKS} a tree follows, or to a path deeper than any BMAD tree's`);
            continue;
          }
          this.realOf.set(child, resolved);
        }
        let st;
        try {
          st = statSync(this.real(child));
        } catch (err) {
          if (this.fatal(err)) throw err;
          // A skipped link (reported), or one that points nowhere.
          if ((err as NodeJS.ErrnoException).code === "ENOENT" && isSymlink(this.abs(child))) this.report(child, `Skipped ${child} in ${this.root}: a symlink that points nowhere`);
          continue;
        }
        if (st.isDirectory()) visit(child, depth + 1, dir);
        else if (!st.isFile()) this.report(child, `Skipped ${child} in ${this.root}: not a regular file`);
        else if (counted(dir) && this.read(child) !== null) out.push(child);
      }
    };
    if (!this.cut && this.isDir(rel)) visit(rel, 0, rel);
    return out.sort();
  }

  /** Counts one more file or folder a walk meets in `dir`; false, saying so once (naming `dir`), past MAX_TREE_FILES:
   *  the tree is served up to there (review 182: 10,000 planted skill folders stopped the bridge's start). */
  private counted(dir: string): boolean {
    if (this.cut) return false;
    if (++this.walked <= MAX_TREE_FILES) return true;
    this.cut = `Read the first ${MAX_TREE_FILES.toLocaleString("en-US")} files and folders of the folders its BMAD manifests name, and no more (a BMAD tree has far fewer): the limit was reached in ${codeSpan(dir || ".")}, and what is after it is not served. Remove what does not belong there.`;
    this.cuts.push(this.cut);
    return false;
  }

  /** Label for messages: the path relative to cwd when shorter. */
  label(rel = ""): string {
    const r = toPosix(relative(process.cwd(), this.abs(rel)));
    return r && !r.startsWith("..") ? r : this.abs(rel);
  }
}

/** Whether `err` says a path changed while it was read (another program renamed, removed or swapped it): a
 *  folder gone, a folder now a file, a link now a folder. The path is then gone, or to be looked at again. */
function changedMeanwhile(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "EINVAL";
}

/** lstat of `path`, or undefined where nothing is there now (a folder above it removed or made a file meanwhile). */
function lstatIfThere(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (err) {
    if (!changedMeanwhile(err)) throw err;
    return undefined;
  }
}

/** The real path of `abs` (absolute), resolved one name at a time, or undefined past `budget` names and links: a
 *  link's chain costs at most that, where realpath pays whatever depth the links lead down. A missing name leaves
 *  the rest as written (the caller's stat then finds nothing). */
export function resolveBounded(abs: string, budget = 256): string | undefined {
  if (sep !== "/") return realpathSync.native(abs); // Windows: its own paths, and links need privileges there
  const todo = abs.split("/").filter(Boolean);
  let resolved = "/";
  for (let steps = 0; todo.length; steps++) {
    if (steps > budget) return undefined;
    const part = todo.shift()!;
    if (part === ".") continue;
    if (part === "..") {
      resolved = resolved === "/" ? "/" : resolved.slice(0, resolved.lastIndexOf("/")) || "/";
      continue;
    }
    const next = resolved === "/" ? `/${part}` : `${resolved}/${part}`;
    const st = lstatIfThere(next);
    if (!st) return [next, ...todo].join("/");
    if (!st.isSymbolicLink()) {
      resolved = next;
      continue;
    }
    let target;
    try {
      target = readlinkSync(next);
    } catch (err) {
      if (!changedMeanwhile(err)) throw err;
      todo.unshift(part); // no longer a link, or gone, since the lstat: looked at again, within the budget
      continue;
    }
    if (target.startsWith("/")) resolved = "/";
    todo.unshift(...target.split("/").filter(Boolean));
  }
  return resolved;
}
