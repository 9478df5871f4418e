// RuntimeFs over real directories: the bridge's one file system for everything the model reaches (the ported
// BMAD scripts and bmad-files alike), and the differential tests'. Confined: after symlinks are resolved, reads
// and writes outside the allowed roots are refused, and stat and list see nothing there (so a walk up to / ends
// quietly); machinery (.git, .bmad-mcp, .bmad-task, as any OS reads the name) is neither read nor written, and
// nothing that runs (a script, the completion contract, an install record) is written, nor a name that is not one
// line. Reads and writes go through the confined reader and writer (confined-fs.ts): regular files only, capped,
// atomic writes; every change holds the file's cross-process lock (file-lock.ts), so a compare-and-set is checked
// where it writes.
import { lstatSync, type BigIntStats, type Stats } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { dirname, join, posix } from "node:path";
import { FsRefusal, type FileChange, type FsEntryKind, type NamingError, type RuntimeFs } from "../core/runtime/fs.js";
import { ChangeRefused } from "../core/runtime/py-io.js";
import { holdsPrivateKey, mayServeAsConfig } from "../core/catalog/config.js";
import { changeRefusal, controlCharacterRefusal, machineryName, namedPath, shellWordRefusal } from "../core/workspace/paths.js";
import { isOneLine } from "../core/lines.js";
import { changedFailure, changedSince, stamped, createConfinedTree, hardLinkChange, leadsOut, isInside, posixRelative, MAX_READ_BYTES, readConfined, removeConfined, secretFileRefusal, writeConfined, writerLeftover, type ConfinedCode, type ConfinedFailure, type ReadOptions, ensureConfinedDir } from "./confined-fs.js";
import { withFileLock } from "./file-lock.js";
import { keepReplaced, landedOrDropped, NotKept, noteWrite, sameBytes, type KeptEntry } from "./kept-versions.js";
import { sawFile, settledStamp } from "./mid-save.js";
import { onDisk, twinRefusal, type Folders, type OnDisk } from "./spelled-names.js";
import type { WsResult } from "../core/workspace/store.js";

export const MAX_READ = MAX_READ_BYTES;

/** The code of the error a change throws when another program saved its file each time it was read and made again:
 *  what bmad-files answers as a conflict. */
export const CHANGED_MEANWHILE = "ECHANGED";

const ERRNO = new Map<ConfinedCode, string>([["too-large", "EFBIG"], ["is-dir", "EISDIR"], ["not-dir", "ENOTDIR"], ["missing", "ENOENT"], ["exists", "EEXIST"], ["changed", CHANGED_MEANWHILE]]);

/** Times a change is read and made again when another program saved the file between its read and its landing, and
 *  the most it waits before the next, in ms: BMAD's own Python takes no lock (review 226: 2 of 20 memlog appends
 *  beside its appends failed, and all but 11 of 1,580 beside a loop of them). */
const CHANGE_TRIES = 5;
const CHANGE_PAUSE_MS = 20;

/** What the confined reader and writer refuse where Python would go on (a path out, a FIFO, a file too large), apart
 *  from what Python meets too (a missing file, a folder, a save meanwhile, an I/O error). */
const REFUSED = new Set<ConfinedCode>(["outside", "not-file", "too-large"]);

/** A failure of the confined reader as the Error the ported scripts expect (codes as Node's own), in its own words:
 *  a prefix said "outside the allowed roots" of a hard link inside them (review 222). Its message starts with the
 *  path, so it names its file (RuntimeFs). */
function asError(failure: ConfinedFailure): NamingError {
  const code = ERRNO.get(failure.code);
  const error = REFUSED.has(failure.code) ? refusal(failure.error, code) : Object.assign(new Error(failure.error), code ? { code } : {});
  return Object.assign(error, { namesFile: true as const });
}

/** A failure to land: "changed" is answered, to be tried again; any other is thrown. */
function changedOrThrow(failure: ConfinedFailure): ConfinedFailure {
  if (failure.code !== "changed") throw asError(failure);
  return failure;
}

const refusal = (message: string, code?: string): FsRefusal => new FsRefusal(message, code);
/** A refusal whose message starts by naming its path (NamingError). */
const namingRefusal = (message: string, code?: string): NamingError => Object.assign(refusal(message, code), { namesFile: true as const });

/** A path as the disk spells it (`path`), where it really is (`real`), and, for a new name beside its twin, why nothing
 *  is made there (`twinRefused`: spelled-names.ts). */
type Resolved = { path: string; real: string; twinRefused?: string };

function isMissing(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** Throws when `rel` (from a root) is machinery, or, to change, a file that runs or decides what runs. */
/** A file's ASCII as a search for a key's marks sees it: Latin-1, the cheapest decoding (the marks are ASCII, found as
 *  in UTF-8), its NULs dropped, so UTF-16 (PowerShell 5's `>` writes it) reads as plain too (review 433). */
function asciiOf(data: Uint8Array): string {
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("latin1");
  return text.includes("\0") ? text.replaceAll("\0", "") : text;
}

function refuseAt(rel: string, purpose: "read" | "change"): void {
  const machinery = rel.split("/").map(machineryName).find(Boolean);
  if (machinery) throw refusal(`${namedPath(rel)} is inside ${machinery}/, tools' machinery rather than the project's content; refused.`, "EACCES");
  if (purpose === "change") refuseNotOneLine(rel);
  const refused = purpose === "change" && rel ? changeRefusal(rel) : undefined;
  if (refused) throw refusal(refused, "EACCES");
}

/** Throws when `rel` would be made where a shell would expand its name (shellWordRefusal): a file or folder new here. */
function refuseShellWord(rel: string): void {
  const shell = shellWordRefusal(rel);
  if (shell) throw refusal(shell, "EACCES");
}

/** Throws when `rel` is not one line: what a script made so no listing shows and no bmad-files action reaches, as
 *  bmad-files itself makes none (review 413: memlog.py made `docs/x\u001b[31m.md`, which the model could not remove). */
function refuseNotOneLine(rel: string): void {
  if (!isOneLine(rel)) throw refusal(controlCharacterRefusal(rel), "EINVAL");
}

export class NodeRuntimeFs implements RuntimeFs {
  /** `named`: the roots as given (a project opened through a symlinked path), beside their real paths. */
  private constructor(private readonly roots: string[], private readonly named: string[]) {}

  /** Roots must exist; they are kept as real paths. */
  static async create(allowedRoots: string[]): Promise<NodeRuntimeFs> {
    return new NodeRuntimeFs(await Promise.all(allowedRoots.map((root) => realpath(root))), allowedRoots.map((root) => posix.resolve(root)));
  }

  /** Like Python's Path.resolve(): symlinks resolved component by component, a missing tail kept, names as the disk
   *  spells them. */
  async realpath(path: string): Promise<string> {
    return (await this.resolve(path)).real;
  }

  /** `rel` from `root` (a root, as given or real) as the disk spells it (spelled-names.ts), for bmad-files. */
  onDisk(root: string, rel: string): Promise<WsResult<OnDisk>> {
    return onDisk(this.folders, root, rel);
  }

  /** What onDisk looks at, beneath resolve: a name as given (lstat: cheap, and a link is there by its own name), and a
   *  folder's names where it lies inside a root. */
  private readonly folders: Folders = {
    there: async (abs) => {
      try {
        return lstatSync(abs, { throwIfNoEntry: false }) !== undefined;
      } catch (error) {
        return !isMissing(error);
      }
    },
    list: async (abs) => this.names(await realpath(abs).then((real) => (this.inside(real) ? real : undefined), () => undefined)),
  };

  /** The one step every path given here takes: its names below its root as the disk spells them, so a script finds the
   *  user's `cafe\u0301/` by the name a model composes, `caf\u00e9/`, and makes no look-alike beside it (review 286);
   *  two there that print alike are refused, as bmad-files refuses them. Then where it really is. A path in no root is
   *  taken as given. */
  private async resolve(path: string): Promise<Resolved> {
    if (!path.startsWith("/")) throw refusal(`not an absolute path: ${path}`);
    const root = [...this.roots, ...this.named].find((r) => path.startsWith(r === "/" ? r : `${r}/`));
    if (root === undefined) return { path, real: await this.followLinks(path) };
    // `..` goes through links first, as Python's resolve() takes it; then the names below the root it lands in as the
    // disk spells them (review 309: `x/../café` made the look-alike again). The path answered stays as given.
    const dotted = path !== posix.normalize(path);
    const real = dotted ? await this.followLinks(path) : path;
    const base = dotted ? this.roots.find((r) => real.startsWith(r === "/" ? r : `${r}/`)) : root;
    if (base === undefined) return { path, real };
    const found = await this.onDisk(base, real.slice(base === "/" ? 1 : base.length + 1));
    if (!found.ok) throw namingRefusal(found.error, "EINVAL");
    const { rel, twin } = found.value;
    const spelled = join(base, rel);
    return { path: dotted ? path : spelled, real: await this.followLinks(spelled), ...(twin ? { twinRefused: twinRefusal(rel, twin) } : {}) };
  }

  /** Symlinks resolved component by component, a missing tail kept. */
  private async followLinks(path: string): Promise<string> {
    // An allowed root is a real path, so no part of it is a link: resolving starts below it. A script touches
    // files deep in the project, and each part looked at is an lstat.
    const root = this.roots.find((r) => path === r || path.startsWith(r === "/" ? r : `${r}/`));
    let resolved = root ?? "/";
    const parts = path
      .slice(root?.length ?? 0)
      .split("/")
      .filter((p) => p && p !== ".");
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (part === "..") {
        resolved = dirname(resolved);
        continue;
      }
      const candidate = join(resolved, part);
      // Synchronous, and no Error made for a missing part: every file access of a script comes through here, and
      // an awaited lstat costs about five times as much CPU on a local disk.
      let info: Stats | undefined;
      try {
        info = lstatSync(candidate, { throwIfNoEntry: false });
      } catch (error) {
        if (!isMissing(error)) {
          // Python's non-strict resolve takes an unreadable component as it is written.
          resolved = candidate;
          continue;
        }
      }
      if (!info) {
        // Nothing below a missing component exists: the rest is joined as written.
        for (const rest of parts.slice(i)) resolved = rest === ".." ? dirname(resolved) : join(resolved, rest);
        return resolved;
      }
      resolved = info.isSymbolicLink() ? await realpath(candidate).catch(() => candidate) : candidate;
    }
    return resolved;
  }

  private inside(real: string): boolean {
    return this.roots.some((root) => isInside(root, real));
  }

  /** The real path, or undefined when it lies outside every allowed root. */
  private async confined(path: string): Promise<string | undefined> {
    const { real } = await this.resolve(path);
    return this.inside(real) ? real : undefined;
  }

  /** A path named inside a root that leads out is a link: said so, to where, and what to do (review 222). */
  private async mustConfine(path: string): Promise<Resolved> {
    const resolved = await this.resolve(path);
    const real = resolved.real;
    if (this.inside(real)) return resolved;
    const asked = this.asked(resolved.path);
    if (asked.root !== undefined) throw asError(leadsOut(asked.root, real, asked.rel));
    throw namingRefusal(`${namedPath(this.asGiven(path))} is outside the allowed roots (${this.roots.join(", ")}): bmad-run's scripts read and write only inside the project.`);
  }

  /** A path as its caller gave it: a script's `../outside`, which its port joined to the project's folder, without that folder. */
  private asGiven(path: string): string {
    const root = [...this.named, ...this.roots].find((r) => r !== "/" && path.startsWith(`${r}/`));
    return root === undefined ? path : path.slice(root.length + 1);
  }

  /** The allowed root holding a real path, and the path relative to it. */
  private rooted(real: string): { root: string; rel: string } {
    const root = this.roots.find((r) => isInside(r, real))!;
    return { root, rel: posixRelative(root, real) };
  }

  /** Where a path really is, refused when it is machinery, or (to change) a file that runs or decides what runs, or one
   *  its links make a config where the name asked is none, or the reverse: every rule above this file system judges a
   *  change by the name asked (a config's secrets, its keyed versions), and a committed `docs/notes.md` leading to
   *  `_bmad/bmm/config.yaml` had a served text written over the real config, and answered its raw version (review 39).
   *  `making`: refused too as a new name beside its twin. `path` in the answer: as the disk spells it. */
  private async place(path: string, purpose: "read" | "change", making = purpose === "change"): Promise<{ root: string; rel: string; path: string }> {
    const resolved = await this.mustConfine(path);
    const at = { ...this.rooted(resolved.real), path: resolved.path };
    refuseAt(at.rel, purpose);
    if (making && resolved.twinRefused) throw namingRefusal(resolved.twinRefused, "EINVAL");
    if (purpose === "change") {
      const askedRel = this.asked(at.path).rel;
      // As a read is judged: a config is changed by its own name alone (review 41: a link named as another config
      // passed, and the secrets check, which reads by the name asked, was refused its read and found nothing to keep).
      if (askedRel !== at.rel && (mayServeAsConfig(askedRel) || mayServeAsConfig(at.rel))) {
        throw refusal(`${askedRel} is a link to ${at.rel}, and a config or data file is changed by its own name alone: change ${at.rel}.`, "EACCES");
      }
    }
    return at;
  }

  /** The name asked: `path` (absolute) from the root it is named in, as the caller named it or as it really is (review
   *  42: a project opened through a symlinked path had every config refused as "a link"), links below not followed;
   *  `root`: that root's real path (none: named in no root). */
  private asked(path: string): { root?: string; rel: string } {
    const asked = posix.normalize(path);
    const named = [...this.roots, ...this.named];
    const i = named.findIndex((r) => isInside(r, asked));
    return i < 0 ? { rel: asked } : { root: this.roots[i % this.roots.length]!, rel: posixRelative(named[i]!, asked) };
  }

  /** `part`: only the file's first or last bytes. */
  async readFile(path: string, part?: ReadOptions["part"]): Promise<Uint8Array | undefined> {
    const at = await this.place(path, "read");
    // Judged and named by the name asked from the project, as bmad-files names it (review 359: a refusal named /abs/…/.env).
    const asked = this.asked(at.path).rel;
    const data = await this.read(at.root, at.rel, asked, part);
    // A private key is a secret file whatever its name (review 429: ssh-keygen's `deploy_key` was served whole).
    if (data && holdsPrivateKey(asciiOf(data))) throw asError({ ok: false, code: "outside", error: `${asked}: ${secretFileRefusal()}` });
    return data;
  }

  /** `asked`: the path as the caller named it. What is read is judged as opened (a link swapped in meanwhile, a hard
   *  link) by the rules every read keeps (confined-fs contentRules). */
  private async read(root: string, rel: string, asked = rel, part?: ReadOptions["part"], judge?: ReadOptions["judge"]): Promise<Uint8Array | undefined> {
    const read = await readConfined(root, rel, { maxBytes: MAX_READ, asked, ...(part ? { part } : {}), ...(judge ? { judge } : {}) });
    if (read.ok) return new Uint8Array(read.bytes.buffer, read.bytes.byteOffset, read.bytes.byteLength);
    if (read.code === "missing" || read.code === "is-dir") return undefined;
    // Named as asked (`rel` is where its links lead).
    throw asError(asked === rel || !read.error.startsWith(`${rel}: `) ? read : { ...read, error: `${asked}: ${read.error.slice(rel.length + 2)}` });
  }

  /** A change like any other (update): it lands only over what it read, and what it replaces is kept (review 41: a
   *  script's write replaced a save with no copy). A save meanwhile is read and replaced as one before it would be. */
  async writeFile(path: string, data: Uint8Array): Promise<void> {
    await this.update(path, () => data);
  }

  /** What a change replaces or removes is kept a week (kept-versions.ts): a model's change can be undone with its own
   *  tools. A change whose copy cannot be kept is refused (NotKept), before anything is changed. */
  private keepReplaced(root: string, rel: string, current: Uint8Array | undefined, next: Uint8Array | null): Promise<KeptEntry | undefined> {
    return keepReplaced(root, rel, current, next).catch((error: Error) => {
      // Full kept copies are no error of the file's: a ported script answers them as they are (ChangeRefused).
      throw error instanceof NotKept ? Object.assign(new ChangeRefused(error.message), { code: "EAGAIN" }) : Object.assign(new Error(error.message), { code: "EAGAIN" });
    });
  }

  /** Read, change and write (or remove, for null) under the file's lock: no other change lands in between.
   *  `dropEmptied`: a removal takes the folders it leaves empty with it, up to the root (bmad-files delete: the folder a
   *  scratch file's write made stayed behind), those of the path as named, never through a link (removeConfined). A
   *  script's own removal leaves them, as Python's does. */
  async update(path: string, change: FileChange, options: { dropEmptied?: boolean } = {}): Promise<void> {
    await this.landed(path, change, options);
  }

  /** update, answering the file it wrote as it landed (none: removed, or left as it was), for an answer that never looks
   *  it up by name again (review 192: a file removed at once answered a TypeError for a write that was made). Another
   *  program's save between the read and the landing is read and changed again (CHANGE_TRIES): `change` makes the next
   *  bytes from those it is given, and refuses there itself where its caller named the version it changes (bmad-files
   *  if_version). The lock is let go while it waits, for the bridge's other changes. */
  async landed(path: string, change: FileChange, options: { dropEmptied?: boolean } = {}): Promise<BigIntStats | undefined> {
    const { root, rel, path: spelled } = await this.place(path, "change");
    for (let tries = 1; ; tries++) {
      const landed = await withFileLock(root, rel, () => this.landOnce(root, rel, spelled, change, options));
      if (landed.ok) return landed.written;
      if (tries === CHANGE_TRIES) throw asError(changedFailure(rel, tries));
      await new Promise((r) => setTimeout(r, Math.random() * CHANGE_PAUSE_MS * tries));
    }
  }

  /** One read, change and landing, under the file's lock: the file as it landed, or "changed" where another program
   *  saved it meanwhile. */
  private async landOnce(root: string, rel: string, path: string, change: FileChange, options: { dropEmptied?: boolean }): Promise<{ ok: true; written: BigIntStats | undefined } | ConfinedFailure> {
    // Lands only over what was read: the user's editor takes no lock, and its save meanwhile stands (review 16). Read
    // once it is not caught mid-save (an in-place save emptied it, and is writing it again: mid-save.ts).
    const unchanged = await settledStamp(root, rel);
    if (typeof unchanged !== "string") throw asError(unchanged);
    // What is there is read first, and a file it cannot read (too large to keep, not a plain file) is not replaced.
    const current = await this.read(root, rel, rel, undefined, hardLinkChange);
    sawFile(root, rel, unchanged, current ?? new Uint8Array());
    const next = await change(current);
    if (next === undefined) return { ok: true, written: undefined };
    // A new name a shell would expand (`~/x.md`) is not made; one that exists is changed as it is.
    if (current === undefined && next !== null) refuseShellWord(rel);
    const changed = await changedSince(root, rel, unchanged);
    if (changed) return changed;
    // A change that does not land keeps nothing (landedOrDropped).
    const kept = await this.keepReplaced(root, rel, current, next);
    if (next === null) {
      const removed = await landedOrDropped(root, kept, () => removeConfined(root, rel, { unchanged, ...(options.dropEmptied ? this.emptied(root, path) : {}) }));
      return removed.ok ? { ok: true, written: undefined } : changedOrThrow(removed);
    }
    // Written even when the same: a config's version then changes whatever was written, so none says a guess was right.
    const done = await landedOrDropped(root, kept, () => writeConfined(root, rel, next, { unchanged }));
    if (!done.ok) return changedOrThrow(done);
    sawFile(root, rel, stamped(done.written), next);
    if (!(current && sameBytes(current, next))) await noteWrite(root, rel, next);
    return { ok: true, written: done.written };
  }

  /** The folders a removal at `path` takes when it empties them: those of the path as named from `root` (a link to a
   *  folder keeps its target's); named from another root, none here. */
  private emptied(root: string, path: string): { emptied?: () => boolean; named?: string } {
    const asked = this.asked(path);
    return asked.root === root ? { emptied: () => true, named: asked.rel } : {};
  }

  async createTree(dir: string, files: Map<string, Uint8Array>): Promise<void> {
    const { root, rel } = await this.place(dir, "change");
    for (const name of files.keys()) {
      const at = rel ? `${rel}/${name}` : name;
      refuseAt(at, "change");
      refuseShellWord(at);
    }
    await withFileLock(root, rel, async () => {
      const created = await createConfinedTree(root, rel, files);
      if (!created.ok) throw asError(created);
      for (const [name, data] of files) await noteWrite(root, rel ? `${rel}/${name}` : name, data);
    });
  }

  async stat(path: string): Promise<FsEntryKind> {
    const real = await this.confined(path);
    if (real === undefined) return "missing";
    try {
      return (await stat(real)).isDirectory() ? "dir" : "file";
    } catch (error) {
      if (isMissing(error)) return "missing";
      throw error;
    }
  }

  async list(dir: string): Promise<string[]> {
    return this.names(await this.confined(dir));
  }

  /** A real folder's names: none where it is outside every root (undefined) or machinery. */
  private async names(real: string | undefined): Promise<string[]> {
    if (real === undefined || this.rooted(real).rel.split("/").some((part) => machineryName(part))) return [];
    try {
      return (await readdir(real)).filter((name) => !writerLeftover(name));
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
  }

  async mkdir(dir: string): Promise<void> {
    const { root, rel } = await this.place(dir, "read", true);
    refuseNotOneLine(rel);
    // A folder is made only where a file may be written: an empty .claude/commands/ is the start of one that runs.
    if (rel) refuseShellWord(rel);
    if (rel && changeRefusal(`${rel}/file`)) throw refusal(`${rel}/ is a folder no tool writes in: it holds a tool's own settings, or code that runs; refused.`, "EACCES");
    const made = await ensureConfinedDir(root, rel);
    if (!made.ok) throw asError(made);
  }
}
