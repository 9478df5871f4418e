// The bridge's one way to touch files in a project it does not trust (a cloned repository can plant
// anything): a path is taken relative to a root and refused when it leaves the root, lexically or
// through a symlink; only regular files are read (never a device, FIFO or socket), at most a capped
// number of bytes; writes go to a temp file beside the target and are renamed over it. A change is judged by where
// it really lands (after every symlink, again just before the rename): never into machinery (.git, and the bridge's
// own folders but for the state that owns them), never a file that runs or decides what runs (paths.ts) unless the
// caller's rule allows it. Failures are values naming the path and the fix, with a code to branch on.
import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import { constants, existsSync, fstatSync, lstatSync, readlinkSync, renameSync, rmSync, statSync, unlinkSync, type BigIntStats } from "node:fs";
import { lstat, mkdir, mkdtemp, open, readdir, realpath, rm, rmdir, stat, type FileHandle } from "node:fs/promises";
import * as nodePath from "node:path";
import { basename, dirname, join, relative, resolve } from "node:path";
import type { Failure, Result } from "../core/result.js";
import { changeRefusal, machineryName } from "../core/workspace/paths.js";
import { writerGone, writerTag } from "./process-identity.js";
import { isSecretFile, mayServeAsConfig, servedAlike } from "../core/catalog/config.js";

/** Default read cap: project files the bridge reads (sessions, memory, artifacts) are far smaller. */
export const MAX_READ_BYTES = 8 * 1024 * 1024;

/** "changed": another program saved the file between a change's read and its landing (changedFailure). */
export type ConfinedCode = "missing" | "outside" | "is-dir" | "not-file" | "not-dir" | "too-large" | "exists" | "changed" | "io";
/** `linksOut`: refused for leading out of the project, whose message names where (a caller showing it to others says less). */
type Why = { code: ConfinedCode; linksOut?: true };
export type ConfinedFailure = Failure<Why>;
export type Confined<T extends object> = Result<T, Why>;

/** Every message starts with the path as the caller gave it: `_bmad/_memory/x.md: not a regular file (a FIFO); refused.` */
const failure = (code: ConfinedCode, rel: string, reason: string): ConfinedFailure => ({ ok: false, code, error: `${rel || "."}: ${reason}` });
const errno = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code;

/** A failure the system gave (`what`: "cannot be written"), with its code and what to do about it: a bare "(ENOENT)"
 *  names no fix (review 202). */
const ioFailure = (rel: string, what: string, e: unknown, op: Operation = "write"): ConfinedFailure => failure("io", rel, `${what} (${errno(e) ?? (e as Error).message}): ${errnoFix(errno(e), op)}`);
/** What a failure stopped, for a fix in its terms: a permission a read lacks is not a folder's write (review 222). */
type Operation = "read" | "list" | "write";
const PERMISSION_FIX = new Map<Operation, string>([
  ["read", "give your user read permission on the file and search (x) permission on each folder on its way (chmod u+r, chmod u+x)"],
  ["list", "give your user read and search permission on the folder (chmod u+rx)"],
  ["write", "give your user write permission on its folder (chmod u+w)"],
]);
export const permissionFix = (op: Operation): string => PERMISSION_FIX.get(op)!;
function errnoFix(code: string | undefined, op: Operation): string {
  switch (code) {
    case "ENOENT":
      return "a folder on its way was removed or moved meanwhile (another program at work there?); try again.";
    case "ENOTDIR":
      return "something on its way is not a folder, or was replaced meanwhile (another program at work there?); make it a folder, or try again.";
    case "ENAMETOOLONG":
      return `the path is too long (a name holds at most 255 bytes, a whole path fewer than ${PATH_MAX}); give a shorter or less deep one.`;
    case "ELOOP":
      return "a symlink on its way loops, or was put there meanwhile; remove the link.";
    case "EACCES":
    case "EPERM":
      return `permission denied; ${permissionFix(op)}.`;
    case "ENOSPC":
    case "EDQUOT":
      return "the disk (or your quota) is full; free some space.";
    case "EROFS":
      return "the file system is read-only; work in a writable copy of the project.";
    default:
      return "try again; if it fails again, check the folder's permissions and free space.";
  }
}
/** The error a path too long for any program to name gives: refused as the system would, never made through a
 *  descriptor where nothing could read or remove it by its path (review 199). */
const nameTooLong = () => Object.assign(new Error("name too long"), { code: "ENAMETOOLONG" });

/** Who changes a file, and so what it may land on. `own`: the machinery folder a bridge state writer keeps (locks,
 *  sync state, sessions). `refuse`: the rule for content instead of changeRefusal's (a pull's, which lets in BMAD's
 *  own scripts). */
export interface Changer {
  own?: ".bmad-mcp" | ".bmad-task";
  refuse?: (realRel: string) => string | undefined;
}

/** Set by withFileLock (file-lock.ts) for the work it runs: why its lock is no longer this call's (taken over while
 *  this process stalled), or undefined. A change under a lock lands only if it is still held, looked at just before. */
export const heldLock = new AsyncLocalStorage<() => Promise<string | undefined>>();

async function lockLost(rel: string): Promise<ConfinedFailure | undefined> {
  const lost = await heldLock.getStore()?.();
  return lost ? failure("io", rel, `was not changed: ${lost}`) : undefined;
}

/** Why a change may not land at `real` (absolute, symlinks resolved), or undefined. */
function landing(realRoot: string, real: string, rel: string, changer: Changer): ConfinedFailure | undefined {
  const realRel = posixRelative(realRoot, real);
  const parts = realRel.split("/");
  const through = realRel === rel ? "" : ` (it is ${realRel} once symlinks are followed)`;
  const machinery = inMachinery(realRoot, real, rel, changer);
  if (machinery) return machinery;
  const held = inHeldFolder(realRoot, real, rel, parts[0] === changer.own, through);
  if (held) return held;
  const refused = changer.own && parts[0] === changer.own ? undefined : (changer.refuse ?? changeRefusal)(realRel);
  return refused ? failure("outside", rel, `${refused}${through}`) : undefined;
}

/** `real` (under the real root) inside tools' machinery (`.git/`, …), but the changer's own: refused. Files and the
 *  folders made for them alike (review 206: an empty folder `.git/hooks/pre-commit`, made through a folder swapped for
 *  a link, stopped every commit). */
function inMachinery(realRoot: string, real: string, rel: string, changer: Changer): ConfinedFailure | undefined {
  const realRel = posixRelative(realRoot, real);
  const parts = realRel.split("/");
  const machinery = parts.map(machineryName).find((name, i) => name && !(i === 0 && name === changer.own && parts[0] === changer.own));
  const through = realRel === rel ? "" : ` (it is ${realRel} once symlinks are followed)`;
  return machinery ? failure("outside", rel, `lands inside ${machinery}/${through}, tools' machinery rather than the project's content; refused.`) : undefined;
}

/** The Python environment (a venv's `pyvenv.cfg`, a conda env's `conda-meta/`) a folder of the project between `real`
 *  and the root is, as its root-relative path; undefined: none. Whatever sits in one loads by itself: a `.pth`, IPython's
 *  and Jupyter's config, a kernel's command (reviews 56 and 62), so the folder is judged by what it is, not by names. */
function environmentAbove(realRoot: string, real: string): string | undefined {
  for (let dir = dirname(real); isInside(realRoot, dir); dir = dirname(dir)) {
    // A project folder that is itself one (`python3 -m venv .`) keeps its content beside the environment's own folders:
    // those are refused, the rest stays the project's (review 64: its etc/ipython/ was written).
    const own = dir === realRoot;
    if (!own || ENVIRONMENT_FOLDERS.has(posixRelative(realRoot, real).split("/")[0]!.toLowerCase())) {
      for (const marker of ["pyvenv.cfg", "conda-meta"]) if (existsSync(join(dir, marker))) return posixRelative(realRoot, join(dir, marker));
    }
    if (own) break;
  }
  return undefined;
}
/** What a venv or conda environment keeps at its top, on each OS. */
const ENVIRONMENT_FOLDERS = new Set(["bin", "scripts", "lib", "lib64", "libs", "include", "etc", "share", "dlls", "library", "conda-meta", "pyvenv.cfg"]);

/** Why nothing may change `path` (absolute) for being in a Python environment of the project (environmentAbove). */
function inEnvironment(realRoot: string, path: string, rel: string, through = ""): ConfinedFailure | undefined {
  const env = environmentAbove(realRoot, path);
  return env ? failure("outside", rel, `lands inside a Python environment (${env}${through}): what Python and its tools (IPython, Jupyter) load from there runs with no one running it, so tools never change it. The user does.`) : undefined;
}

/** Why nothing may change `path` (absolute) for the folder it is in: a Python environment, or git's store (but in the
 *  state folder its writer owns, `own`). */
const inHeldFolder = (realRoot: string, path: string, rel: string, own: boolean, through = ""): ConfinedFailure | undefined =>
  inEnvironment(realRoot, path, rel, through) ?? (own ? undefined : inGitStore(realRoot, path, rel, through));

/** Why nothing may change `path` (absolute) for being in a folder git takes for its store: one holding a HEAD file,
 *  the project's root included (git obeys the config beside it when run there or below; review 89). Tools never write
 *  a HEAD (paths.ts); this is for one already there, a bare clone's or a store planted before. */
function inGitStore(realRoot: string, path: string, rel: string, through = ""): ConfinedFailure | undefined {
  for (let dir = dirname(path); isInside(realRoot, dir); dir = dirname(dir)) {
    // lstat: git takes a HEAD link to `refs/…` without following it, so a dangling one counts (review 93). A path
    // through a file (ENOTDIR) has none: the write then fails on its own, naming why.
    if (holdsHead(join(dir, "HEAD"))) return failure("outside", rel, `lands inside a folder git takes for a repository's store (${posixRelative(realRoot, join(dir, "HEAD")) || "HEAD"}${through}): its config there runs commands on the next git command, so tools never change it. The user does.`);
    if (dir === realRoot) break;
  }
  return undefined;
}

/** Whether a HEAD git reads is at `path`: a file or a link, never a folder (review 105: a refused write's `HEAD/`
 *  folder stopped every later write beside it). */
const holdsHead = (path: string): boolean => {
  try {
    const info = lstatSync(path, { throwIfNoEntry: false });
    return info !== undefined && !info.isDirectory();
  } catch {
    return false;
  }
};

/** Whether `path` is `root` or below it (both absolute). `..dots` is a name, not a way up. */
export function isInside(root: string, path: string, paths: PathApi = nodePath): boolean {
  const rel = posixRelative(root, path, paths);
  return rel === "" || (rel !== ".." && !rel.startsWith("../") && !paths.isAbsolute(rel));
}

/** `relative()` with "/" between names on every OS: the name rules (machinery, secrets, scripts) split on "/", and
 *  Windows' "..\\x" is as far out as "../x". */
export function posixRelative(from: string, to: string, paths: PathApi = nodePath): string {
  const rel = paths.relative(from, to);
  return paths.sep === "/" ? rel : rel.split(paths.sep).join("/");
}

/** node:path as this OS has it (tests pass path.win32). */
type PathApi = Pick<typeof nodePath, "relative" | "sep" | "isAbsolute">;

function describeKind(info: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a FIFO";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  return "not a regular file";
}

/** 8388608 -> "8 MiB", for limits people set. */
function size(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

function notFile(rel: string, info: Parameters<typeof describeKind>[0]): ConfinedFailure {
  // What to do is the user's: nothing reads or replaces such a file (a FIFO planted as state, review 110).
  return failure(info.isDirectory() ? "is-dir" : "not-file", rel, `not a regular file (${describeKind(info)}); refused.${info.isDirectory() ? "" : " Remove or rename it: bmad-mcp reads and writes regular files only."}`);
}

/** The real root and the lexical target, or why the path is refused before touching the disk. */
async function locate(root: string, rel: string): Promise<Confined<{ realRoot: string; abs: string }>> {
  if (rel.includes("\0")) return failure("outside", JSON.stringify(rel), "contains a NUL byte; give a plain relative path.");
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch (e) {
    return failure("missing", root, `the project folder cannot be read (${errno(e) ?? (e as Error).message}).`);
  }
  const abs = resolve(realRoot, rel);
  if (!isInside(realRoot, abs)) return { ...failure("outside", rel, `leads outside the project (${realRoot}); give a path inside it.`), linksOut: true };
  return { ok: true, realRoot, abs };
}

/** Where an existing path really is, refused when a symlink on the way leads out of the root.
 *  `via`: the part of `rel` being looked at, when it is not all of it (a folder on the way). */
async function follow(realRoot: string, abs: string, rel: string, via?: string): Promise<Confined<{ real: string }>> {
  let real: string;
  try {
    real = await realpath(abs);
  } catch (e) {
    if (errno(e) === "ENOENT" || errno(e) === "ENOTDIR") return failure("missing", rel, "does not exist in the project.");
    if (errno(e) === "ELOOP") return failure("outside", rel, "a symlink loop; remove the link.");
    return ioFailure(rel, "cannot be read", e, "read");
  }
  if (!isInside(realRoot, real)) return leadsOut(realRoot, real, rel, via);
  return { ok: true, real };
}
export const leadsOut = (realRoot: string, real: string, rel: string, via?: string): ConfinedFailure =>
  ({ ...failure("outside", rel, `${via ? `${via} ` : ""}leads outside the project (${realRoot}) through a symlink, to ${real}; refused. Replace the link with a real file or folder inside the project.`), linksOut: true });

/** The real path of an existing file or folder inside the root. */
export async function resolveConfined(root: string, rel: string): Promise<Confined<{ path: string; isDir: boolean }>> {
  const at = await locate(root, rel);
  if (!at.ok) return at;
  const found = await follow(at.realRoot, at.abs, rel);
  if (!found.ok) return found;
  const info = await stat(found.real).catch(() => undefined);
  if (!info) return failure("missing", rel, "does not exist in the project.");
  return { ok: true, path: found.real, isDir: info.isDirectory() };
}

/** Where a path that may not exist yet (a file a script is about to write) lands: its deepest existing part,
 *  after symlinks, must be inside the root; a dangling link on the way is refused, since writing follows it. */
export async function confinedTarget(root: string, rel: string): Promise<Confined<{ path: string }>> {
  const at = await locate(root, rel);
  if (!at.ok) return at;
  for (let abs = at.abs; ; abs = dirname(abs)) {
    const found = await follow(at.realRoot, abs, rel);
    if (found.ok) return { ok: true, path: at.abs };
    if (found.code !== "missing") return found;
    if (await lstat(abs).then((info) => info.isSymbolicLink(), () => false)) return failure("outside", rel, `${relative(at.realRoot, abs)} is a dangling symlink; remove it.`);
    if (abs === at.realRoot) return found;
  }
}

/** Why a change at `rel` may not land where it would (landing()), judged before anything is written: the deepest
 *  existing part after symlinks, with the rest of the path below it. Undefined when it may. */
export async function landingRefusal(root: string, rel: string, changer: Changer = {}): Promise<ConfinedFailure | undefined> {
  const landed = await landingOf(root, rel);
  return landed.ok ? landing(landed.realRoot, landed.real, rel, changer) : landed;
}

/** Where a change at `rel` lands: the deepest existing part after symlinks, with the rest of the path below it
 *  (absolute, under the real root). Its path from the real root is the key of the file's lock. */
export async function landingOf(root: string, rel: string): Promise<Confined<{ realRoot: string; real: string }>> {
  const at = await locate(root, rel);
  if (!at.ok) return at;
  const tail: string[] = [];
  for (let abs = at.abs; ; abs = dirname(abs)) {
    const real = await realpath(abs).catch(() => undefined);
    if (real !== undefined) return isInside(at.realRoot, real) ? { ok: true, realRoot: at.realRoot, real: join(real, ...tail) } : leadsOut(at.realRoot, real, rel);
    if (abs === at.realRoot) return { ok: true, realRoot: at.realRoot, real: at.abs };
    tail.unshift(basename(abs));
  }
}

const HARD_LINK = "is a hard link, another name of a file that may hold anything:";
/** A change's judge of the file it replaces or removes: a hard link is removed by hand, not copied (review 222). */
export const hardLinkChange: ReadJudge = (_, links) => (links > 1 ? `${HARD_LINK} no tool changes or removes one. Remove it yourself, outside the bridge, and write the file anew if it is needed.` : undefined);

/** Why no tool reads a hard link (contentRules), said by every action that would. */
export const HARD_LINK_READ = `${HARD_LINK} no tool reads one. Copy the file instead.`;

/** What a read may not return, judged on the opened file: its path from the real root and its count of names (a hard
 *  link is another name of a file, a secret one included). A reason refuses the read. */
export type ReadJudge = (realRel: string, links: number) => string | undefined;

/** Why no tool reads a file that holds secrets, by its name or (a private key) by its text; `real`: where a link asked
 *  by another name leads. */
export const secretFileRefusal = (real?: string) => `holds secrets (an environment file, credentials or a key)${real ? `: it is ${real}` : ""}; no tool reads it. Tell the model what it needs from it yourself.`;

/** What no read of the project returns, whoever reads (review 19: memory and project context read with no rules, and
 *  served a .env and .git/config through links): a file that holds secrets, by the name asked (`asked`) or the one
 *  reached; another name of a file (a hard link); a config file reached from a path that is not that same config, since
 *  a config is served without its secret-looking keys by what it is asked as (review 16: a config.yaml leading to a
 *  TOML one; 19: docs/x.toml leading to _bmad/custom/x.toml); and machinery, but the folder a bridge state reader
 *  keeps (`own`). Judged on the file as opened. */
export function contentRules(asked: string, own?: Changer["own"]): ReadJudge {
  return (real, links) => {
    if (isSecretFile(real) || isSecretFile(asked)) return secretFileRefusal(real === asked ? undefined : real);
    if (links > 1) return HARD_LINK_READ;
    // A data file too, which is served as a config where it holds secrets (review 270: notes.md leading to llm.yaml
    // served its api_key).
    if (mayServeAsConfig(real) && !servedAlike(asked, real)) {
      return `leads to ${real}, a config or data file, through a symlink; read it by its own path, which serves it without its secret-looking keys.`;
    }
    const parts = real.split("/");
    const machinery = parts.map(machineryName).find((name, i) => name && !(i === 0 && own !== undefined && parts[0] === own));
    return machinery ? `leads into ${machinery}/, tools' machinery rather than the project's content; refused.` : undefined;
  };
}

/** After open: where the descriptor really points (Linux), so a folder swapped for a link mid-way is caught;
 *  undefined with no /proc, where the realpath check before open stands alone. Synchronous: no disk is read, and what
 *  is done with the answer follows it with nothing between them (see removeOpened). */
function openedPath(handle: FileHandle): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${handle.fd}`);
  } catch {
    return undefined;
  }
}

/** The longest path Linux takes, its closing NUL included. */
const PATH_MAX = 4096;
/** Whether descriptors say where they are, at /proc/self/fd (Linux). */
const DESCRIBED_FDS = existsSync("/proc/self/fd");
/** What Linux adds to a descriptor's path once its file has no name left. */
const DELETED = " (deleted)";

/** Why the file a change has open is not at `expected` (absolute, real), where the change put it (created or renamed
 *  it), or undefined. Asked of the descriptor, not of the path: a folder on the way swapped for a link and back between
 *  the checks and the open, or the rename, goes unseen by any look at the path (review 192: 21 of 5,561 writes landed
 *  outside the project, and 70 temp files). One elsewhere is removed from where it really is, if it is still that file.
 *  With no /proc (macOS, Windows) nothing says where it is, and the realpath checks before stand alone. One removed
 *  since by another program was where it was put. */
function strayed(handle: FileHandle, expected: string, rel: string): ConfinedFailure | undefined {
  const at = openedPath(handle);
  if (at === undefined || at === expected || at === `${expected}${DELETED}`) return undefined;
  removeOpened(handle, at);
  return movedFailure(rel);
}
const movedFailure = (rel: string) => failure("outside", rel, "was moved while being written (a folder on its way swapped for a link?); nothing was written. Try again.");

/** Removes the file (or staging folder) a change has open where it really is, not through a path whose folders may have
 *  been swapped for links since; by `named` with no /proc. Synchronous, the look and the removal one after the other:
 *  its folder renamed meanwhile (review 192: a folder swapped every millisecond or two outran awaited looks four times
 *  running), it is looked for again, a few times. Never anything else of its name (device and inode), and nothing
 *  outside `within` where given (a staging folder another program moved out of the project is left there: review 202). */
function removeOpened(handle: FileHandle, named: string, within?: string): void {
  for (let tries = 0; tries < 4; tries++) {
    const at = openedPath(handle);
    if (at === undefined) return rmSync(named, { recursive: true, force: true });
    if (at.endsWith(DELETED) || (within !== undefined && !isInside(within, at))) return;
    try {
      if (!isOpened(handle, at)) continue;
      if (fstatSync(handle.fd).isDirectory()) rmSync(at, { recursive: true });
      else unlinkSync(at);
    } catch {
      // Moved on meanwhile: looked for again.
    }
  }
}

/** Whether `named` (a link there never followed) is the file or folder `handle` has open: same device and inode. */
function isOpened(handle: FileHandle, named: string): boolean {
  try {
    const [mine, there] = [fstatSync(handle.fd, { bigint: true }), lstatSync(named, { bigint: true })];
    return mine.dev === there.dev && mine.ino === there.ino;
  } catch {
    return false;
  }
}

/** A folder a change works in: its real path and, where descriptors say where they are (Linux), the folder held open,
 *  whose entries are named through /proc/self/fd/N/ (inFolder): that folder itself, wherever it is now, so a folder
 *  above swapped for a link and back reroutes nothing made, written or renamed in it (reviews 192, 202). With no
 *  /proc, its path alone, the realpath looks standing alone. */
interface HeldFolder {
  path: string;
  handle?: FileHandle;
}
/** How entry `name` of `folder` is named to the system: through its descriptor where it is held (a short path too,
 *  whatever the folder's depth: review 202's temp file past PATH_MAX beside a target just under it). */
const inFolder = (folder: HeldFolder, name: string): string => (folder.handle ? `/proc/self/fd/${folder.handle.fd}/${name}` : join(folder.path, name));
/** Where held `folder` really is now, if still inside the real root; undefined: moved out, removed, or not known. Looked
 *  at just before something is made or renamed in it (synchronous: nothing between the look and what follows it). */
/** Whether a held folder has no name left (removed since it was held), as its descriptor says (Linux). */
const folderDeleted = (folder: HeldFolder): boolean => folder.handle !== undefined && openedPath(folder.handle)?.endsWith(DELETED) === true;

function whereNow(realRoot: string, folder: HeldFolder): string | undefined {
  if (!folder.handle) return folder.path;
  const at = openedPath(folder.handle);
  return at !== undefined && !at.endsWith(DELETED) && isInside(realRoot, at) ? at : undefined;
}

/** How a read is judged: by `judge` where given (its reason first), and always by contentRules (as `asked`, by
 *  default `rel`; `own`: the machinery folder a bridge state reader keeps). */
export interface ReadOptions {
  maxBytes?: number;
  /** Only the first `head` or last `tail` bytes (at most `maxBytes`), whatever the file's size. */
  part?: { head: number } | { tail: number };
  judge?: ReadJudge;
  asked?: string;
  own?: Changer["own"];
}

/** A regular file's bytes, at most `maxBytes` (checked on the open descriptor; never more than max + 1 read), if the
 *  rules every read keeps (contentRules) let it be read. */
export async function readConfined(root: string, rel: string, opts: ReadOptions = {}): Promise<Confined<{ bytes: Buffer; path: string }>> {
  const max = opts.maxBytes ?? MAX_READ_BYTES;
  const at = await locate(root, rel);
  if (!at.ok) return at;
  const found = await follow(at.realRoot, at.abs, rel);
  if (!found.ok) return found;
  // Checked before open too: opening a device or FIFO can block or have side effects.
  const before = await stat(found.real).catch(() => undefined);
  if (!before) return failure("missing", rel, "does not exist in the project.");
  if (!before.isFile()) return notFile(rel, before);
  let handle: FileHandle;
  try {
    handle = await open(found.real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    if (errno(e) === "ENOENT") return failure("missing", rel, "does not exist in the project.");
    if (errno(e) === "ELOOP") return failure("outside", rel, "was replaced by a symlink while being read; refused.");
    return ioFailure(rel, "cannot be read", e, "read");
  }
  try {
    const opened = openedPath(handle);
    if (opened !== undefined && !isInside(at.realRoot, opened)) return failure("outside", rel, "moved outside the project while being read; refused.");
    const info = await handle.stat();
    if (!info.isFile()) return notFile(rel, info);
    // Judged on what was opened, not on the name looked up before: a link swapped in between is seen here.
    const realRel = posixRelative(at.realRoot, opened ?? found.real);
    const judged = opts.judge?.(realRel, info.nlink) ?? contentRules(opts.asked ?? rel, opts.own)(realRel, info.nlink);
    if (judged) return failure("outside", rel, judged);
    if (opts.part) {
      const want = Math.min("head" in opts.part ? opts.part.head : opts.part.tail, max, info.size);
      const buffer = Buffer.alloc(want);
      const from = "head" in opts.part ? 0 : info.size - want;
      let length = 0;
      for (let read = -1; read !== 0 && length < want; length += read) read = (await handle.read(buffer, length, want - length, from + length)).bytesRead;
      return { ok: true, bytes: buffer.subarray(0, length), path: found.real };
    }
    const tooLarge = failure("too-large", rel, `larger than ${size(max)}; refused. Keep files the bridge reads under that size.`);
    if (info.size > max) return tooLarge;
    const buffer = Buffer.alloc(Math.min(info.size, max) + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > max) return tooLarge; // it grew while being read
      if (length === buffer.length) break;
    }
    return { ok: true, bytes: buffer.subarray(0, length), path: found.real };
  } finally {
    await handle.close();
  }
}

export async function readConfinedText(root: string, rel: string, opts: ReadOptions = {}): Promise<Confined<{ text: string; path: string }>> {
  const read = await readConfined(root, rel, opts);
  return read.ok ? { ok: true, text: read.bytes.toString("utf8"), path: read.path } : read;
}

/**
 * A folder inside the root, made (one level at a time) where missing; a link on the way that leads out is
 * refused. `label` is the path messages name (a file about to be written there), `rel` by default.
 */
export async function ensureConfinedDir(root: string, rel: string, opts: { label?: string; own?: Changer["own"] } = {}): Promise<Confined<{ path: string }>> {
  const at = await locate(root, rel);
  if (!at.ok) return at;
  const made = await holdFolder(at.realRoot, at.abs, opts.label ?? rel, opts);
  if (!made.ok) return made;
  await made.handle?.close();
  return { ok: true, path: made.path };
}

/** ensureConfinedDir's folder `abs` (under the real root), held: the caller closes it. */
async function holdFolder(realRoot: string, abs: string, label: string, changer: Changer): Promise<Confined<HeldFolder>> {
  for (let tries = 1; ; tries++) {
    const made = await makeFolders(realRoot, abs, label, changer);
    if (!("gone" in made)) return made;
    if (tries === FOLDER_TRIES) return goneFailure(label, made.gone);
  }
}

/** How many times a folder is made for a change when it goes meanwhile: a delete beside it drops the folders it
 *  empties (removeConfined `emptied`), one a write had just found or made among them (a raw ENOENT, once in ~450). */
const FOLDER_TRIES = 3;
const goneFailure = (rel: string, gone: string) => failure("io", rel, `its folder ${gone} was removed while being made, ${FOLDER_TRIES} times (a delete beside it, taking the folders it empties?); nothing was written. Try again.`);
/** Why a walk stopped: the folder being made when it, or the one above it, went meanwhile. */
type Gone = { gone: string };

/** One walk of ensureConfinedDir, from the real root down to `abs`. */
async function makeFolders(realRoot: string, abs: string, label: string, changer: Changer): Promise<Confined<HeldFolder> | Gone> {
  let root: HeldFolder;
  try {
    root = { path: realRoot, handle: DESCRIBED_FDS ? await open(realRoot, constants.O_RDONLY | constants.O_DIRECTORY) : undefined };
  } catch (e) {
    return ioFailure(label, "the project folder cannot be read", e, "list");
  }
  const made = await makeBelow(realRoot, root, posixRelative(realRoot, abs), label, changer);
  if (!("ok" in made && made.ok && made.handle === root.handle)) await root.handle?.close();
  return made;
}

/** Folder `rel` (relative) below held folder `from`, made where missing one level at a time, each level made and opened
 *  through the one above as held (inFolder), never by a path whose folders may have been swapped for links since (review
 *  202: 25 empty folders made outside the project in 300 writes). A link on the way is followed while it stays inside the
 *  real root. The result is held: `from` itself for an empty `rel`, else a folder the caller closes (`from` stays the
 *  caller's). `shownFrom`: `from` as messages name it. */
async function makeBelow(realRoot: string, from: HeldFolder, rel: string, label: string, changer: Changer, shownFrom = ""): Promise<Confined<HeldFolder> | Gone> {
  let folder = from;
  let shown = shownFrom;
  for (const part of rel.split("/").filter((part) => part !== "" && part !== ".")) {
    shown = shown ? `${shown}/${part}` : part;
    const next = await enter(realRoot, folder, part, label, shown, changer);
    if (folder !== from) await folder.handle?.close();
    if (!("ok" in next) || !next.ok) return next;
    folder = next;
  }
  return { ok: true, ...folder };
}

/** Folder `part` of held `folder`, made there where missing, then opened (enterFolder). */
async function enter(realRoot: string, folder: HeldFolder, part: string, label: string, shown: string, changer: Changer): Promise<Confined<HeldFolder> | Gone> {
  const named = inFolder(folder, part);
  for (let tries = 1; ; tries++) {
    try {
      const entered = await enterFolder(realRoot, named, label, shown);
      // Found outside because the folder it is in was moved out, not for a link of the project's.
      return !entered.ok && whereNow(realRoot, folder) === undefined ? movedFailure(label) : entered;
    } catch (e) {
      if (errno(e) === "ELOOP") return failure("outside", label, `${shown} is a symlink loop; remove the link.`);
      if (errno(e) === "ENOTDIR") {
        const info = await stat(named).catch(() => undefined);
        if (!info) return { gone: shown };
        if (!info.isDirectory()) return failure("not-dir", label, `${shown} is ${info.isFile() ? "a file" : describeKind(info)} where a folder is needed; move it away.`);
      } else if (errno(e) !== "ENOENT") {
        return ioFailure(label, `${shown} cannot be opened`, e);
      } else {
        const unmade = await makeMissing(realRoot, folder, named, label, shown, changer);
        if (unmade) return unmade;
      }
    }
    // Made, or changed meanwhile: opened again, a few times.
    if (tries === FOLDER_TRIES) return { gone: shown };
  }
}

/** Makes folder `named` (inFolder), missing when opened; why not, or undefined: made, or there again meanwhile. */
async function makeMissing(realRoot: string, folder: HeldFolder, named: string, label: string, shown: string, changer: Changer): Promise<ConfinedFailure | Gone | undefined> {
  // A dangling link reads as missing: refused, never made where it leads (one put there since the open: looked at again).
  if (await lstat(named).then((info) => info.isSymbolicLink(), () => false)) {
    return (await stat(named).then(() => false, () => true)) ? failure("outside", label, `${shown} is a dangling symlink; remove it.`) : undefined;
  }
  // Nothing is made in a folder another program moved out of the project since it was opened, nor in machinery.
  const now = whereNow(realRoot, folder);
  if (now === undefined) return openedPath(folder.handle!)?.endsWith(DELETED) ? { gone: shown } : movedFailure(label);
  const machinery = inMachinery(realRoot, join(now, basename(named)), label, changer);
  if (machinery) return machinery;
  try {
    await mkdir(named);
  } catch (e) {
    // The folder it is made in went (a delete beside it, taking the folders it empties): the walk starts again.
    if (errno(e) === "ENOENT") return { gone: shown };
    if (errno(e) !== "EEXIST") return ioFailure(label, `cannot create ${shown}`, e);
  }
  return undefined;
}

/** Folder `named` (inFolder) opened where it really is, refused unless that is inside the real root: held where
 *  descriptors say where they are, found by realpath elsewhere. Throws what opening it throws (ENOENT: missing or
 *  removed; ENOTDIR: not a folder; ELOOP). */
async function enterFolder(realRoot: string, named: string, label: string, shown: string): Promise<Confined<HeldFolder>> {
  if (!DESCRIBED_FDS) {
    const real = await realpath(named);
    if (!isInside(realRoot, real)) return leadsOut(realRoot, real, label, shown);
    if (!(await stat(real)).isDirectory()) throw Object.assign(new Error("not a folder"), { code: "ENOTDIR" });
    return { ok: true, path: real };
  }
  // O_DIRECTORY refuses anything else before opening it: no FIFO or device is ever opened.
  const handle = await open(named, constants.O_RDONLY | constants.O_DIRECTORY);
  const at = openedPath(handle);
  if (at !== undefined && !at.endsWith(DELETED) && isInside(realRoot, at)) return { ok: true, path: at, handle };
  await handle.close();
  if (at === undefined) throw nameTooLong();
  if (at.endsWith(DELETED)) throw Object.assign(new Error("removed meanwhile"), { code: "ENOENT" });
  return leadsOut(realRoot, at, label, shown);
}

/** A folder's names inside the root, without what writes cut short left there (writerLeftover). */
export async function listConfined(root: string, rel: string): Promise<Confined<{ names: string[]; path: string }>> {
  const dir = await resolveConfined(root, rel);
  if (!dir.ok) return dir;
  if (!dir.isDir) return failure("not-dir", rel, "not a folder.");
  try {
    return { ok: true, names: (await readdir(dir.path)).filter((name) => !writerLeftover(name)), path: dir.path };
  } catch (e) {
    return ioFailure(rel, "cannot be listed", e, "list");
  }
}

/** The sizes of the files below folder `rel`, by their paths from it, read from its entries: nothing is opened, and a
 *  link is neither followed nor counted. What a store keeping its own files there measures itself by. */
export async function fileSizes(root: string, rel: string): Promise<Confined<{ sizes: Map<string, number> }>> {
  const dir = await resolveConfined(root, rel);
  if (!dir.ok) return dir;
  if (!dir.isDir) return failure("not-dir", rel, "not a folder.");
  try {
    const sizes = new Map<string, number>();
    for (const entry of await readdir(dir.path, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || writerLeftover(entry.name)) continue;
      const path = join(entry.parentPath, entry.name);
      // Removed meanwhile: no longer kept.
      const info = await lstat(path).catch(() => undefined);
      if (info?.isFile()) sizes.set(posixRelative(dir.path, path), info.size);
    }
    return { ok: true, sizes };
  } catch (e) {
    return ioFailure(rel, "cannot be listed", e, "list");
  }
}

/** What a file was when a change read it (stamp), checked again just before the change lands: another program
 *  (the user's editor, which takes no lock of ours) may have saved it meanwhile. */
export function fileStamp(root: string, rel: string): Promise<string> {
  return stampOf(resolve(root, rel));
}

async function stampOf(path: string): Promise<string> {
  return stamped(await stat(path, { bigint: true }).catch(() => undefined));
}

/** The stamp of a path where no file is. */
export const ABSENT = "absent";
/** The stamp of a file as `st` says it is (fileStamp). */
export const stamped = (st: BigIntStats | undefined): string => (st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}` : ABSENT);

/** Why a change over the file at `rel` as it was (`unchanged`, its stamp) would not land now, or undefined: looked at
 *  before the change's copy of what it replaces is kept, so a change refused keeps none (review 58: 200 refused appends
 *  kept 200 copies, and the full budget then refused every change). */
export async function changedSince(root: string, rel: string, unchanged: string): Promise<ConfinedFailure | undefined> {
  return (await fileStamp(root, rel)) === unchanged ? undefined : changedFailure(rel);
}

/** Whether the file at `target` is still as it was (`unchanged`, its stamp; undefined: any). Looked at synchronously,
 *  so that the change made next follows it with nothing between them: an editor takes no lock, and a save of its that
 *  landed between a look and a rename made apart (each a trip to libuv's threads) was replaced unseen (review 58: 5
 *  runs in 12 lost one save). */
const unchangedNow = (target: string, unchanged: string | undefined): boolean =>
  unchanged === undefined || stamped(statSync(target, { bigint: true, throwIfNoEntry: false })) === unchanged;

/** The replace of `target` by `temp`, only if `target` is still as it was. */
function renameIfUnchanged(target: string, rel: string, unchanged: string | undefined, temp: string): ConfinedFailure | undefined {
  if (!unchangedNow(target, unchanged)) return changedFailure(rel);
  renameSync(temp, target);
  return undefined;
}

/** Whether `path` still names the entry `was` (lstat'd before): the same inode on the same device. */
async function sameEntry(path: string, was: { dev: number; ino: number }): Promise<boolean> {
  const now = await lstat(path).catch(() => undefined);
  return now !== undefined && now.dev === was.dev && now.ino === was.ino;
}

/** The bridge's own folder `folder` of the project, ignored by git whatever the project's .gitignore says (a .gitignore
 *  of "*" in it, made once): its state is never the project's content, and a committed copy is another's (review 426:
 *  `git status` offered .bmad-task/'s sessions to commit). */
export async function ignoredByGit(root: string, folder: NonNullable<Changer["own"]>): Promise<void> {
  await writeConfined(root, `${folder}/.gitignore`, "*\n", { exclusive: true, own: folder });
}

/** `tries`: how many times the change was read and made again, each time over another program's save. */
export const changedFailure = (rel: string, tries = 1) =>
  failure("changed", rel, `was changed by another program (an editor?) while this changed it${tries > 1 ? `, ${tries} times running` : ""}, and was left as that program saved it; nothing was written. Read it again and retry.`);

/**
 * Creates or replaces a file inside the root: parents are made (never through a link that leads out),
 * the bytes go to a temp file beside the target, synced, then renamed over it, so readers see the old
 * file or the new one. A target that is a symlink inside the root is written where it points.
 * `exclusive` creates the file in place and fails with "exists" if anything is there (lock files).
 */
export async function writeConfined(root: string, rel: string, data: string | Uint8Array, opts: { exclusive?: boolean; mode?: number; unchanged?: string } & Changer = {}): Promise<Confined<{ path: string; written?: BigIntStats }>> {
  const at = await locate(root, rel);
  if (!at.ok) return at;
  if (at.abs === at.realRoot) return failure("not-file", rel, "the project folder itself cannot be written as a file.");
  // Before any folder is made for it (its real place is judged again below).
  const held = inHeldFolder(at.realRoot, at.abs, rel, rel.split("/")[0] === opts.own);
  if (held) return held;
  // Judged before any folder is made for it: a refused write leaves no folder behind (review 75).
  const early = await landingRefusal(at.realRoot, rel, opts);
  if (early) return early;
  const mode = opts.mode ?? 0o644;
  for (let tries = 1; ; tries++) {
    const parent = await holdFolder(at.realRoot, dirname(at.abs), rel, opts);
    if (!parent.ok) return parent;
    // The folder the temp file goes in: the parent, or the folder a link at the target leads to. Both held to the end.
    let folder: HeldFolder = parent;
    try {
      let target = join(parent.path, basename(at.abs));
      if (opts.exclusive) return landing(at.realRoot, target, rel, opts) ?? (await lockLost(rel)) ?? (await createExclusive(at.realRoot, parent, target, rel, data, mode));
      const existing = await lstat(inFolder(parent, basename(target))).catch(() => undefined);
      if (existing?.isSymbolicLink()) {
        const found = await follow(at.realRoot, target, rel);
        if (!found.ok && found.code !== "missing") return found;
        // Missing where the link it was is no longer there: another program swapped it meanwhile (review 334: such a
        // race was called a dangling link, of a link whose target exists).
        if (!found.ok) return (await sameEntry(inFolder(parent, basename(target)), existing)) ? failure("outside", rel, "a dangling symlink; remove it.") : changedFailure(rel);
        target = found.real;
      }
      if (dirname(target) !== parent.path) {
        const linked = await enterFolder(at.realRoot, dirname(target), rel, posixRelative(at.realRoot, dirname(target))).catch((e: unknown) => ioFailure(rel, "cannot be written", e));
        if (!linked.ok) return linked;
        folder = linked;
        if (folder.path !== dirname(target)) return movedFailure(rel);
      }
      const info = existing && (await stat(inFolder(folder, basename(target))).catch(() => undefined));
      if (info && !info.isFile()) return notFile(rel, info);
      const refused = landing(at.realRoot, target, rel, opts);
      if (refused) return refused;
      // A file no program could name by its path is refused as the system would (its temp, named through the held
      // folder, is short: review 202).
      if (Buffer.byteLength(target) >= PATH_MAX) return ioFailure(rel, "cannot be written", nameTooLong());
      const dir = dirname(target);
      sweepLeftovers(dir);
      const tempName = `.${tempStem(basename(target))}.${TEMP_MARK}${writerTag ? `${writerTag}-` : ""}${randomBytes(6).toString("hex")}.tmp`;
      const temp = join(dir, tempName);
      let handle: FileHandle;
      try {
        if (whereNow(at.realRoot, folder) === undefined) {
          // Its folder went, empty, since it was made (a delete beside it), as below: made again. Moved: refused.
          if (!folderDeleted(folder)) return movedFailure(rel);
          if (tries === FOLDER_TRIES) return goneFailure(rel, posixRelative(at.realRoot, dir));
          continue;
        }
        handle = await open(inFolder(folder, tempName), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
      } catch (e) {
        // Its folder went, empty, since it was made: a delete beside it took it (removeConfined `emptied`). Made again;
        // once the temp file is in it, it is not empty and stays.
        if (errno(e) !== "ENOENT") return ioFailure(rel, "cannot be written", e);
        if (tries === FOLDER_TRIES) return goneFailure(rel, posixRelative(at.realRoot, dir));
        continue;
      }
      // Open to the end: it says where the temp file really is, before and after the rename.
      try {
        const stray = strayed(handle, temp, rel);
        if (stray) return stray;
        // A file replaced keeps who may read and write it (a private `chmod 600` note stays private: review 16); no
        // change of the model's is made executable.
        if (info && opts.mode === undefined) await handle.chmod(info.mode & 0o666);
        await handle.writeFile(data);
        await handle.sync();
        const lost = await lockLost(rel);
        // The folder may have been moved since it was checked: where it is now, judged just before the rename, with
        // nothing awaited between (by its realpath with no /proc).
        const realDir = folder.handle ? whereNow(at.realRoot, folder) : await realpath(dir).then((real) => (isInside(at.realRoot, real) ? real : undefined));
        const moved = realDir === undefined ? movedFailure(rel) : landing(at.realRoot, join(realDir, basename(target)), rel, opts);
        const refused = moved ?? lost ?? renameIfUnchanged(inFolder(folder, basename(target)), rel, opts.unchanged, inFolder(folder, tempName));
        if (refused) {
          removeOpened(handle, inFolder(folder, tempName));
          return refused;
        }
        // What was written, as it landed (a rename changes its ctime): the answer's, never looked up by name again.
        return strayed(handle, target, rel) ?? { ok: true, path: target, written: await handle.stat({ bigint: true }) };
      } catch (e) {
        removeOpened(handle, inFolder(folder, tempName));
        // The rename met a folder where a file or nothing was (judged above): another program swapped it in meanwhile.
        return errno(e) === "EISDIR" ? changedFailure(rel) : ioFailure(rel, "cannot be written", e);
      } finally {
        await handle.close();
      }
    } finally {
      if (folder !== parent) await folder.handle?.close();
      await parent.handle?.close();
    }
  }
}

/** In a writer's temp file's name: what the sweep removes is ours alone, never a user's file of a like name. */
const TEMP_MARK = "bmad-mcp-";
/** The target's name as its temp file starts: cut to 180 UTF-8 bytes, a whole character at a time, so a name near the
 *  255 bytes a file system holds still has a temp beside it (review 89: ENAMETOOLONG past about 205). */
function tempStem(name: string): string {
  let bytes = 0;
  let stem = "";
  for (const c of name) {
    bytes += Buffer.byteLength(c);
    if (bytes > 180) break;
    stem += c;
  }
  return stem;
}
/** Named by its writer (file-lock.ts writerTag) since review 74; untagged: an earlier bridge's. */
const OUR_TEMP = new RegExp(`^\\..+\\.${TEMP_MARK}(?:(\\d+-\\d+-[0-9a-f]{8})-)?[0-9a-f]{12}\\.tmp$`);
/** A folder's staging copy (createConfinedTree), named so that the sweep takes ours alone; `.staging-XXXXXX` is an earlier bridge's. */
const STAGING_PREFIX = `.${TEMP_MARK}staging-`;
const OUR_STAGING = new RegExp(`^\\.${TEMP_MARK}staging-[A-Za-z0-9]{6}$`);

/** Folders whose leftovers were looked for in this process, and when last. */
const swept = new Map<string, number>();
/** How old a writer's temp file must be to be taken for one a killed writer left, where its writer cannot be looked at
 *  (a live one lasts milliseconds). */
const LEFTOVER_AGE_MS = 10 * 60_000;
/** A folder is looked at again after this, on a write there: another bridge may have been killed in it meanwhile. */
const SWEEP_AGAIN_MS = 60_000;

/** Removes the temp files and staging folders writers killed mid-write left in a folder (full copies of a file, which
 *  `git add -A` would commit: review 16): one whose writer has ended at once, one whose writer cannot be looked at once
 *  it is old. At a folder's first write in this process, and again after SWEEP_AGAIN_MS. A link of a like name is never
 *  followed. */
function sweepLeftovers(dir: string): void {
  const last = swept.get(dir);
  if ((last !== undefined && Date.now() - last < SWEEP_AGAIN_MS) || (last === undefined && swept.size > 10_000)) return;
  swept.set(dir, Date.now());
  void (async () => {
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const temp = OUR_TEMP.exec(name);
      const file = temp !== null;
      if (!file && !OUR_STAGING.test(name)) continue;
      const st = await lstat(join(dir, name)).catch(() => undefined);
      if (!st || (file ? !st.isFile() : !st.isDirectory())) continue;
      const writerEnded = temp?.[1] !== undefined && writerGone(temp[1]) === true;
      if (!writerEnded && Date.now() - st.mtimeMs <= LEFTOVER_AGE_MS) continue;
      await rm(join(dir, name), { recursive: !file, force: true }).catch(() => undefined);
    }
  })();
}

/** Creates `target` (a new name in held `folder`) in place, through the folder as held. */
async function createExclusive(realRoot: string, folder: HeldFolder, target: string, rel: string, data: string | Uint8Array, mode: number): Promise<Confined<{ path: string }>> {
  let handle: FileHandle;
  try {
    if (whereNow(realRoot, folder) === undefined) return movedFailure(rel);
    // O_EXCL with O_CREAT also fails on a symlink, dangling or not: nothing is written through one.
    handle = await open(inFolder(folder, basename(target)), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  } catch (e) {
    if (errno(e) === "EEXIST") return failure("exists", rel, "already exists.");
    return ioFailure(rel, "cannot be created", e);
  }
  try {
    const stray = strayed(handle, target, rel);
    if (stray) return stray;
    await handle.writeFile(data);
    return { ok: true, path: target };
  } finally {
    await handle.close();
  }
}

/** Removes a file inside the root (a link itself, never what it points to); missing is fine. */
/** `emptied`: which folders (relative) may go once the removal leaves them empty, from the file's up (a pull's
 *  deletion leaves none behind: review 47 filled a disk with the folders of deleted deep files). They are the folders
 *  of `named` (the path as the caller named it, where `rel` is where its links lead; `rel` by default): dropEmptied. */
export async function removeConfined(root: string, rel: string, changer: Changer & { unchanged?: string; emptied?: (dir: string) => boolean; named?: string } = {}): Promise<Confined<object>> {
  const at = await locate(root, rel);
  if (!at.ok) return at;
  const parent = await resolveConfined(at.realRoot, relative(at.realRoot, dirname(at.abs)));
  if (!parent.ok) return parent.code === "missing" ? { ok: true } : parent;
  const target = join(parent.path, basename(at.abs));
  const refused = landing(at.realRoot, target, rel, changer) ?? (await lockLost(rel));
  if (refused) return refused;
  try {
    if (!unchangedNow(target, changer.unchanged)) return changedFailure(rel);
    unlinkSync(target);
  } catch (e) {
    if (errno(e) !== "ENOENT") return ioFailure(rel, "cannot be removed", e);
  }
  if (changer.emptied) await dropEmptied(at.realRoot, changer.named ?? rel, changer.emptied);
  return { ok: true };
}

/** Removes the folders of `named` (relative to the real root, as the caller named it) the removal of its file left
 *  empty, from the file's up, while `emptied` lets them, never the root. Only where no folder on its way is a link:
 *  the folders of the real path took a linked folder's target, and left the link dangling (a delete of `docs/x.md`
 *  with `docs -> real/deep` removed `real/deep` and `real/`). rmdir takes only an empty folder: nothing else goes. */
async function dropEmptied(realRoot: string, named: string, emptied: (dir: string) => boolean): Promise<void> {
  const from = dirname(resolve(realRoot, named));
  if (!isInside(realRoot, from)) return;
  for (let dir = from; dir !== realRoot; dir = dirname(dir)) {
    if ((await lstat(dir).catch(() => undefined))?.isSymbolicLink() !== false) return;
  }
  for (let dir = from; dir !== realRoot && emptied(posixRelative(realRoot, dir)); dir = dirname(dir)) {
    if (!(await rmdir(dir).then(() => true, () => false))) break;
  }
}

/** What a write cut short (the bridge killed mid-write) leaves beside its target: the temp file a write renames into
 *  place (`.name.bmad-mcp-<12 hex>.tmp`, a user's look-alike file being theirs) or a folder's staging copy
 *  (`.bmad-mcp-staging-XXXXXX`; `.staging-XXXXXX` from earlier bridges). Never the project's content: the
 *  bridge's listings leave them out, and so do push and the tools. */
export function writerLeftover(name: string): boolean {
  return OUR_TEMP.test(name) || OUR_STAGING.test(name) || /^\.staging-[A-Za-z0-9]{6}$/.test(name);
}

/**
 * Creates folder `rel` inside the root holding `files` (paths relative to it), all or nothing: they are written
 * into a fresh staging folder beside it, which is then renamed into place, so a failure part-way leaves nothing.
 * "exists" when a file or a non-empty folder is at `rel` already (rename's own rule, as in Python).
 */
export async function createConfinedTree(root: string, rel: string, files: Map<string, Uint8Array>, changer: Changer = {}): Promise<Confined<{ path: string }>> {
  const at = await locate(root, rel);
  if (!at.ok) return at;
  if (at.abs === at.realRoot) return failure("exists", rel, "the project folder itself exists already.");
  const parent = await holdFolder(at.realRoot, dirname(at.abs), rel, changer);
  if (!parent.ok) return parent;
  const target = join(parent.path, basename(at.abs));
  const lands = (dir: string) => [...files.keys()].reduce<ConfinedFailure | undefined>((found, name) => found ?? landing(at.realRoot, join(dir, name), `${rel}/${name}`, changer), landing(at.realRoot, dir, rel, changer));
  // The parent and the staging folder, held (HeldFolder): the staging folder is made, filled and renamed through them,
  // so neither a folder above swapped for a link and back (review 192) nor the staging folder renamed away and a link
  // put at its name (review 202: its files made outside, links published at targets' names) reroutes any of it.
  let staging: HeldFolder | undefined;
  let published = false;
  let shown = rel;
  let renaming = false;
  try {
    const refused = lands(target);
    if (refused) return refused;
    sweepLeftovers(parent.path);
    if (whereNow(at.realRoot, parent) === undefined) return movedFailure(rel);
    const name = basename(await mkdtemp(inFolder(parent, STAGING_PREFIX)));
    staging = { path: join(parent.path, name) };
    if (parent.handle) {
      // O_NOFOLLOW: a link put at its name since is refused (ELOOP), never followed, and removed; a folder moved away
      // is not known, and stays where it went.
      staging.handle = await open(inFolder(parent, name), constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW).catch(() => undefined);
      if (!staging.handle) {
        unlinkLink(inFolder(parent, name));
        staging = undefined;
        return movedFailure(rel);
      }
      if (openedPath(staging.handle) !== staging.path) return movedFailure(rel);
    }
    for (const [file, data] of files) {
      shown = `${rel}/${file}`;
      const path = resolve(staging.path, file);
      if (path === staging.path || !isInside(staging.path, path)) return failure("outside", shown, "leads outside its folder; give a relative path below it.");
      const unwritten = await writeNew(at.realRoot, staging, posixRelative(staging.path, path), data, shown, rel, changer);
      if (unwritten) return unwritten;
    }
    shown = rel;
    const lost = await lockLost(rel);
    // The parent may have been moved since it was checked: where it is now, judged just before the rename, with nothing
    // awaited between (by its realpath with no /proc).
    const realParent = parent.handle ? whereNow(at.realRoot, parent) : await realpath(parent.path).then((real) => (isInside(at.realRoot, real) ? real : undefined));
    const moved = (realParent === undefined ? movedFailure(rel) : lands(join(realParent, basename(target)))) ?? lost;
    if (moved) return moved;
    // Only the staging folder as held takes the target's name: never what another program put at its name since.
    if (staging.handle && !isOpened(staging.handle, inFolder(parent, name))) return movedFailure(rel);
    renaming = true;
    renameSync(inFolder(parent, name), inFolder(parent, basename(target)));
    published = true;
    if (!staging.handle || openedPath(staging.handle) === target) return { ok: true, path: target };
    // Something else took its name between that look and the rename (or a folder moved meanwhile): a link renamed
    // to the target's name goes, never followed, and the staging folder where it is (dropStaging).
    published = false;
    unlinkLink(inFolder(parent, basename(target)));
    // Not "nothing was written": a folder renamed by its held parent went where that parent is, and a swap put back
    // leaves it in place (review 192's race, seen under load: a tree there, answered as never written).
    return failure("outside", rel, "its folder was moved while it was written (swapped for a link?), so it may be there whole or not at all: list it before trying again.");
  } catch (e) {
    const code = errno(e);
    if (renaming && (code === "ENOTEMPTY" || code === "EEXIST" || code === "ENOTDIR")) return failure("exists", rel, "already exists.");
    return ioFailure(shown, "cannot be written", e);
  } finally {
    if (staging && !published) dropStaging(at.realRoot, staging, inFolder(parent, basename(staging.path)));
    await staging?.handle?.close();
    await parent.handle?.close();
  }
}

/** Removes a staging folder that was not published: where it really is while that is inside the project (one another
 *  program moved out is left there: nothing outside is removed), and a link at its name (`named`), never followed. By
 *  its name alone with no /proc. */
function dropStaging(realRoot: string, staging: HeldFolder, named: string): void {
  if (!staging.handle) return rmSync(named, { recursive: true, force: true });
  unlinkLink(named);
  removeOpened(staging.handle, staging.path, realRoot);
}

/** Removes `path` if it is a link (never what it leads to). */
function unlinkLink(path: string): void {
  try {
    if (lstatSync(path).isSymbolicLink()) unlinkSync(path);
  } catch {
    // Gone meanwhile.
  }
}

/** Writes a new file `name` (relative) in held staging folder `staging`, making its folders one level at a time through
 *  it (makeBelow). Why it did not land at its real path (strayed), or undefined. `rel`: the tree as messages name it. */
async function writeNew(realRoot: string, staging: HeldFolder, name: string, data: Uint8Array, shown: string, rel: string, changer: Changer): Promise<ConfinedFailure | undefined> {
  // Named through the held folder, the path is shorter than the real one: a file no program could name by its real path
  // (past PATH_MAX) is refused as there, not made where it could not be read or removed (review 199's run: a render
  // deeper than Python can write was published, and its clean-up failed).
  const path = join(staging.path, name);
  if (Buffer.byteLength(path) >= PATH_MAX) throw nameTooLong();
  const folder = await makeBelow(realRoot, staging, dirname(name), shown, changer, rel);
  if (!("ok" in folder)) return movedFailure(shown);
  if (!folder.ok) return folder;
  try {
    if (whereNow(realRoot, folder) === undefined) return movedFailure(shown);
    const handle = await open(inFolder(folder, basename(name)), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666);
    try {
      const stray = strayed(handle, path, shown);
      if (!stray) await handle.writeFile(data);
      return stray;
    } finally {
      await handle.close();
    }
  } finally {
    if (folder.handle !== staging.handle) await folder.handle?.close();
  }
}
