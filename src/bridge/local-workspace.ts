// bmad-files on the bridge: the project directory is the one workspace, so a client with no file tools of its
// own (Claude Desktop) can still read config and write artifacts, through the same confined file system as the
// ported scripts (NodeRuntimeFs). A file's version names its content (48 bits of its sha256), checked under the
// file's lock where it is written, so if_version holds against any number of writers; history lives in the
// user's git, not here.
import type { BigIntStats } from "node:fs";
import { constants } from "node:fs";
import { access, lstat, readdir, realpath, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { resolveBounded } from "../compiler/files.js";
import { literalFolder, tooCostly, type Glob } from "../core/catalog/glob.js";
import { count as n } from "../core/count.js";
import { HISTORY_PAGE, MAX_FILE_BYTES, MAX_FILES } from "../core/workspace/limits.js";
import { mayServeAsConfig, servedWithout } from "../core/catalog/config.js";
import { checkWorkspacePath, compilePathGlob, folderNotFile, machineryName } from "../core/workspace/paths.js";
import { type FileContent, type FileEntry, type HistoryPage, type Listing, type ProjectInfo, type ReadOptions, type VersionEntry, type WorkspaceFiles, type WorkspaceStore, type WrittenEntry, type WsError, type WsResult } from "../core/workspace/store.js";
import { HARD_LINK_READ, isInside, permissionFix, posixRelative, writerLeftover } from "./confined-fs.js";
import { CHANGED_MEANWHILE, MAX_READ, type NodeRuntimeFs } from "./runtime-fs.js";
import { contentVersion, fileIdentity, KEPT_DAYS, keptContent, keptOf } from "./kept-versions.js";
import { notUtf8Refusal, textBytes, type TextWrite } from "../core/workspace/file-text.js";
import { MAX_WALK_DEPTH, MAX_WALK_LINKS } from "./sync.js";
import { isOneLine } from "../core/lines.js";
import { nearestFirst, suggestion } from "../core/catalog/closest.js";
import { nearPaths } from "../core/surface/near-paths.js";
import type { ByOthers } from "../core/workspace/line-authors.js";
import { localTime } from "./local-time.js";
import { pulledOthers } from "./sync-state.js";
import { twinRefusal, type OnDisk } from "./spelled-names.js";

/** Folders a listing does not walk into: other tools' state and caches, not the project's documents (a `.venv` of
 *  6,000 folders took a listing's whole folder budget before it reached `_bmad/` and `docs/`: review 29). */
const SKIPPED = new Set([".git", "node_modules", "__pycache__", ".tox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".next", ".nuxt", ".turbo", ".gradle", ".terraform"]);
/** Installs known by a file their tool puts in them, not by name alone: `docs/venv/` or `_bmad-output/target/` may be
 *  the user's own (review 31: they went unlisted). */
const INSTALL_MARKERS = new Map([[".venv", "pyvenv.cfg"], ["venv", "pyvenv.cfg"], ["target", "CACHEDIR.TAG"]]);
/** The project's BMAD folders, walked before the rest: a folder of 100,000 folders beside them took the whole budget. */
const WALKED_FIRST = new Set(["_bmad", "_bmad-output", ".claude", "docs", "bmad", ".bmad-core"]);
/** Files a missing file's suggestion looks at the names of, at most (namesakes). */
const NAMESAKE_LOOKS = 20_000;
/** Whether a listing leaves out an entry of this name, wherever it is (walked into, or named by a glob's literal start):
 *  one of a name that is not one line too, which a listing's line would break, and which no tool can read or write
 *  (review 81: a cloned repository's `docs/nl\nSYSTEM: forged line.md`). */
const unlisted = (name: string) => machineryName(name) || writerLeftover(name) || !isOneLine(name);
/** Whether a listing walks into this folder. */
async function walked(name: string, real: string): Promise<boolean> {
  if (SKIPPED.has(name)) return false;
  const marker = INSTALL_MARKERS.get(name);
  return !marker || !(await lstat(join(real, marker)).then(() => true, () => false));
}

const invalid = (error: string): WsError => ({ ok: false, kind: "invalid", error });

/** Why a listing leaves out a file it found: the user's permissions keep it from the bridge (named, with the fix), or
 *  the bridge serves no such file (counted by why). Anything else left out is gone, or refused by the rules every read
 *  keeps (a secret's name), as before. */
const DENIED = "denied";
const HARD_LINK = "hard link";
const TOO_LARGE = `over ${MAX_READ / 1024 / 1024} MiB`;
const NOT_REGULAR = "not a regular file";
const NOT_ONE_LINE = "a control character in the name";
type LeftOut = typeof DENIED | typeof HARD_LINK | typeof TOO_LARGE | typeof NOT_REGULAR | typeof NOT_ONE_LINE;
/** Whether the user's permissions keep `real` from the bridge: denied, not missing (review 224: a folder not made yet
 *  was listed as "permission denied", with a chmod to run). */
const isDenied = (real: string, mode: number) => access(real, mode).then(() => false, (e: NodeJS.ErrnoException) => e.code === "EACCES" || e.code === "EPERM");

/** What a listing says of what it left out, one short line each (a listing's every line is paid for): the counts, and
 *  the files and folders (with "/") the user's permissions keep from it (review 222: one such folder failed the whole
 *  listing with EACCES and an absolute path). */
function leftOutLines(counted: Map<LeftOut, number>, denied: string[]): string[] {
  const total = [...counted.values()].reduce((a, b) => a + b, 0);
  const lines = total ? [`${n(total)} file${total === 1 ? "" : "s"} left out, which bmad-mcp does not serve (${[...counted].map(([why, k]) => `${why}: ${n(k)}`).join(", ")}); read one for why.`] : [];
  const shown = denied.sort().slice(0, 5).join(", ") + (denied.length > 5 ? ` and ${n(denied.length - 5)} more` : "");
  if (denied.length) lines.push(`Not listed, permission denied: ${shown}. For a folder (…/), ${permissionFix("list")}; for a file, ${permissionFix("read")}.`);
  return lines;
}


export class LocalWorkspaceStore implements WorkspaceStore {
  private readonly local: LocalFiles;

  /** `manyClients` (--http): every client's calls come to one store, stateless, so none is "this session": no change
   *  is said to have replaced what a session was not served (review 279: one client's read silenced another's note). */
  constructor(readonly folder: string, fs: NodeRuntimeFs, { manyClients = false }: { manyClients?: boolean } = {}) {
    this.local = new LocalFiles(folder, basename(folder), fs, manyClients ? undefined : new ServedVersions());
  }

  private folderOnly(): WsError {
    return invalid(`On the bridge the project is this folder (${this.folder}); there are no other workspaces to create, configure, share or delete. bmad-files works on it.`);
  }

  async projects() {
    return [{ project: this.local.project, name: this.local.project, owner: "you", access: "owner" as const }];
  }
  async info(): Promise<WsResult<ProjectInfo>> {
    return { ok: true, value: { project: this.local.project, name: this.local.project, owner: "you", access: "owner", created_at: "", answers: {}, files: 0, bytes: 0 } };
  }
  create = async () => this.folderOnly();
  configure = async () => this.folderOnly();
  remove = async () => this.folderOnly();
  undelete = async () => this.folderOnly();
  share = async () => this.folderOnly();
  /** No shares on the bridge: nothing is offered, accepted or declined here. */
  offers = async () => [];
  offer = async () => invalid("No shares on the bridge: its one project is this folder.");
  accept = async () => invalid("No shares on the bridge: its one project is this folder.");
  decline = async () => invalid("No shares on the bridge: its one project is this folder.");
  /** Any name: the folder is the only project here. */
  files(): WorkspaceFiles {
    return this.local;
  }
}

/** Paths whose last served version a session remembers, at most: the newest ones it read or changed. */
const MAX_SERVED = 1000;
/** Who made a version this session was never served, as a write's answer names them: all the bridge can say. */
const OUTSIDE = "another program since this session last read or wrote it (an editor, a script, git)";

/** The version of each file this session was last served (a read's, or the answer to its own change; 0: it removed the
 *  file), so that a change naming no if_version says what it replaced that the session never saw (review 275: the
 *  user's save in their editor was replaced unsaid). Nothing for a file never served: no guess. */
class ServedVersions {
  private readonly versions = new Map<string, number>();

  get(rel: string): number | undefined {
    return this.versions.get(rel);
  }

  set(rel: string, version: number): void {
    // Newest last, so the oldest goes first past the cap.
    this.versions.delete(rel);
    this.versions.set(rel, version);
    if (this.versions.size > MAX_SERVED) this.versions.delete(this.versions.keys().next().value!);
  }
}

/** A file's entry: its version and digest, with what its stat says. */
const described = (rel: string, info: BigIntStats, known: { version: number; sha256: string }): FileEntry => ({ path: rel, version: known.version, size: Number(info.size), sha256: known.sha256, updated_at: new Date(Number(info.mtimeMs)).toISOString() });

class LocalFiles implements WorkspaceFiles {
  constructor(
    private readonly root: string,
    readonly project: string,
    private readonly fs: NodeRuntimeFs,
    private readonly served: ServedVersions | undefined,
  ) {}

  /** Times shown on the machine's clock (local-time.ts). */
  showTime = localTime;

  private checked(path: string): WsResult<string> {
    const checked = checkWorkspacePath(path);
    return checked.ok ? { ok: true, value: checked.value } : invalid(checked.error);
  }

  /** A checked path as the disk spells it (spelled-names.ts): the user's file by its name in another Unicode form. */
  private async located(path: string): Promise<WsResult<OnDisk>> {
    const rel = this.checked(path);
    return rel.ok ? this.fs.onDisk(this.root, rel.value) : rel;
  }

  /** What a listing shows of a file, its version read from its bytes once per change (keyed by inode, size and
   *  times: every write here renames a new inode into place). */
  private readonly versions = new Map<string, { key: string; version: number; sha256: string }>();

  private async entry(rel: string, data?: Uint8Array): Promise<FileEntry | undefined> {
    const found = await this.found(rel, data);
    return typeof found === "object" ? found : undefined;
  }

  /** A file's entry, or why a listing leaves it out (LeftOut), or undefined: none, gone, or refused by the read's rules. */
  private async found(rel: string, data?: Uint8Array): Promise<FileEntry | LeftOut | undefined> {
    const abs = join(this.root, rel);
    const kind = await this.fs.stat(abs).catch(() => DENIED);
    if (kind !== "file") return kind === DENIED ? DENIED : undefined;
    // Gone since (another program removed it): as missing, never an error naming where it was.
    const real = await this.fs.realpath(abs);
    const info = await stat(real, { bigint: true }).catch(() => undefined);
    if (!info) return undefined;
    const key = `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
    let known = this.versions.get(rel);
    if (data || known?.key !== key) {
      if (!data && info.nlink > 1n) return HARD_LINK;
      if (!data && info.size > BigInt(MAX_READ)) return TOO_LARGE;
      if (!data && (await isDenied(real, constants.R_OK))) return DENIED;
      const bytes = data ?? (await this.fs.readFile(abs).catch(() => undefined));
      if (!bytes) return undefined;
      known = { key, ...contentVersion(bytes, rel, () => fileIdentity(info)) };
      if (!data) this.versions.set(rel, known);
    }
    return described(rel, info, known);
  }

  /** Whose lines a file pulled from a shared workspace holds, as the remote said (sync-state.ts pulledOthers). */
  private async pulledBy(rel: string, sha256: string): Promise<{ others?: ByOthers }> {
    const others = await pulledOthers(this.root, rel, sha256);
    return others ? { others } : {};
  }

  async read(path: string, version?: number, options: ReadOptions = {}): Promise<WsResult<FileContent>> {
    const at = await this.located(path);
    if (!at.ok) return at;
    if (version !== undefined) return this.kept(at.value.rel, version);
    const now = await this.current(at.value.rel);
    if (now.ok && options.served !== false) this.served?.set(now.value.path, now.value.version);
    return now;
  }

  /** The file now, as read (`rel` located). */
  private async current(rel: string): Promise<WsResult<FileContent>> {
    let data: Uint8Array | undefined;
    try {
      data = await this.fs.readFile(join(this.root, rel));
    } catch (error) {
      return invalid(this.named(rel, error));
    }
    const entry = data && (await this.entry(rel, data));
    // The closest names on its way, as the remote says them (review 140: "docs/prd.mdd" got none here).
    if (!data || !entry) return { ok: false, kind: "not_found", error: await this.noFile(rel) };
    return { ok: true, value: { ...entry, data, ...(await this.pulledBy(rel, entry.sha256)) } };
  }

  /** Why no file is read at `rel` (located): a folder or a link to nothing there is said as it is, as a write says it
   *  (review 334: both were "No file X", with X its own closest name); else none, with the closest names. */
  private async noFile(rel: string): Promise<string> {
    return (await this.notAFile(rel)) ?? `No file ${rel} in the project (${this.root}).${suggestion(await nearPaths(this, rel, 3))}`;
  }

  /** What is at `rel` (located) where it is no file, a folder or a link to nothing, said as it is by every action
   *  (review 413: delete said "No file" of a folder that read called one). */
  private async notAFile(rel: string): Promise<string | undefined> {
    const abs = join(this.root, rel);
    const named = await lstat(abs).catch(() => undefined);
    const info = named && (await stat(abs).catch(() => undefined));
    if (info?.isDirectory()) return folderNotFile(rel);
    if (named?.isSymbolicLink() && !info) return `${rel}: is a link to nothing (what it leads to does not exist); remove it, or make the file it leads to.`;
    return undefined;
  }

  /** The files' first or last bytes, one file at a time: the map looks at 40 documents' frontmatter, not 40 whole
   *  files at once (review 33: 40 planted files of 7.9 MiB held 407 MB). A version comes from the listing's cache. */
  async peek(paths: string[], part: { head: number } | { tail: number }): Promise<WsResult<FileContent[]>> {
    const out: FileContent[] = [];
    for (const path of paths) {
      // A batch never fails for one member: one odd name cost the map every document (review 34).
      const rel = this.checked(path);
      if (!rel.ok) continue;
      const data = await this.fs.readFile(join(this.root, rel.value), part).catch(() => undefined);
      const entry = data && (await this.entry(rel.value));
      if (data && entry) out.push({ ...entry, data, ...(await this.pulledBy(rel.value, entry.sha256)) });
    }
    return { ok: true, value: out };
  }

  /** A change made under the file's lock: `decide` sees the current bytes and returns the next (null: remove), or
   *  an error that leaves the file as it is. */
  private async change<T>(rel: string, decide: (current: Uint8Array | undefined, identity: () => string) => WsResult<Uint8Array | null>, done: (next: Uint8Array | null, before: Uint8Array | undefined, identity: () => string, landed: BigIntStats | undefined) => Promise<WsResult<T>>): Promise<WsResult<T>> {
    let refused: WsError | undefined;
    let before: Uint8Array | undefined;
    let after: Uint8Array | null = null;
    // The file read, as a config's version names it (contentVersion): looked up under the lock, for a config alone.
    let identity = "";
    const identityOf = () => identity;
    let landed: BigIntStats | undefined;
    try {
      landed = await this.fs.landed(
        join(this.root, rel),
        // Run again on the file as it is now when another program saved it meanwhile (NodeRuntimeFs.landed).
        async (current) => {
          identity = current && mayServeAsConfig(rel) ? fileIdentity(await stat(await this.fs.realpath(join(this.root, rel)), { bigint: true })) : "";
          const next = decide(current, identityOf);
          if (!next.ok) return void (refused = next);
          [before, after] = [current, next.value];
          return next.value;
        },
        // A delete leaves no empty folder behind (review 160: a scratch file's `tmp/` stayed for the user to commit or clean).
        { dropEmptied: true },
      );
    } catch (error) {
      // Another program's saves each time it was read again: a conflict, as a version passed by is (review 226: a board
      // move gave up at once on a save of BMAD's own Python).
      const message = this.named(rel, error);
      return (error as { code?: string }).code === CHANGED_MEANWHILE ? { ok: false, kind: "conflict", error: message } : invalid(message);
    }
    return refused ?? done(after, before, identityOf, landed);
  }

  /** A file system error about `rel` as bmad-files says it: the project-relative path once, first. The file system
   *  names the path it was given (absolute) or where its links lead; said again, it read `x.md: x.md: was changed…`. */
  private named(rel: string, error: unknown): string {
    const message = (error as Error).message;
    const absolute = `${join(this.root, rel)}: `;
    if (message.startsWith(absolute)) return `${rel}: ${message.slice(absolute.length)}`;
    return message.startsWith(`${rel}: `) || message.includes(` ${rel}: `) ? message : `${rel}: ${message}`;
  }

  /** `text` "restore": the bytes the bridge kept, refused over a file that is not UTF-8 as a write of text is.
   *  `maxBytes`: a restore puts back what the bridge kept, up to what it reads (review 39: a 2.3 MB copy could not come back). */
  async write(path: string, data: Uint8Array, options: { text?: TextWrite | "restore"; ifVersion?: number; maxBytes?: number } = {}): Promise<WsResult<WrittenEntry>> {
    const { text } = options;
    return this.put(path, (rel, current, version) => {
      const notText = text && current && notUtf8Refusal(rel, current, version, options.ifVersion !== undefined, text);
      if (notText) return invalid(notText);
      return { ok: true, value: text && text !== "restore" ? textBytes(current, data, text, rel) : data };
    }, options);
  }

  /** A change made from the file's bytes under its lock (a board's move): one from another bridge waits for that lock. */
  update(path: string, next: (current: Uint8Array | undefined) => WsResult<Uint8Array>, ifVersion?: number): Promise<WsResult<WrittenEntry>> {
    return this.put(path, (_, current) => next(current), ifVersion === undefined ? {} : { ifVersion });
  }

  /** The file replaced by what `bytesOf` makes of it, under its lock (change). */
  private async put(path: string, bytesOf: (rel: string, current: Uint8Array | undefined, version: number) => WsResult<Uint8Array>, options: { text?: TextWrite | "restore"; ifVersion?: number; maxBytes?: number }): Promise<WsResult<WrittenEntry>> {
    const at = await this.located(path);
    if (!at.ok) return at;
    const rel = at.value.rel;
    // A second file that macOS and Windows read as one with the user's would take the model's edits apart from it, and
    // push holds it back (review 275).
    const twin = at.value.twin;
    if (twin !== undefined) return invalid(twinRefusal(rel, twin));
    /** The version this change replaced, or followed, that the session was never served. */
    let unseen: WrittenEntry["replaced"];
    return this.change(
      rel,
      (current, identity) => {
        const version = current ? contentVersion(current, rel, identity).version : 0;
        const stale = this.stale(rel, version, options.ifVersion);
        if (stale) return stale;
        const served = this.served?.get(rel);
        unseen = version && options.ifVersion === undefined && served !== undefined && served !== version ? { version, by: OUTSIDE } : undefined;
        // Judged again here, under the file's lock, on what is replaced: a save of a secret meanwhile stands (review 44).
        if (current && mayServeAsConfig(rel) && servedWithout(rel, new TextDecoder().decode(current))) {
          return { ok: false, kind: "denied", error: `${rel} holds secret-looking entries now: only the user changes it, in the file itself. Nothing was written.` };
        }
        const made = bytesOf(rel, current, version);
        if (!made.ok) return made;
        const bytes = made.value;
        if (bytes.length > (options.maxBytes ?? MAX_FILE_BYTES)) return { ok: false, kind: "limit", error: `${rel} would be ${bytes.length} bytes; bmad-files writes at most 1 MiB a file.` };
        return { ok: true, value: bytes };
      },
      // From what was written and where it landed: a look by name afterwards finds another program's doing (review 192:
      // a file removed at once answered a TypeError for a write that was made).
      async (bytes, _, __, landed) => {
        const entry = described(rel, landed!, contentVersion(bytes!, rel, () => fileIdentity(landed!)));
        this.served?.set(rel, entry.version);
        return { ok: true, value: { ...entry, ...(unseen ? (options.text === "append" ? { followed: unseen } : { replaced: unseen }) : {}) } };
      },
    );
  }

  /** The conflict when `ifVersion` is given and the file, at `version`, is not at it (0: absent). */
  private stale(rel: string, version: number, ifVersion: number | undefined): WsError | undefined {
    if (ifVersion === undefined || version === ifVersion) return undefined;
    return { ok: false, kind: "conflict", error: `${rel} is at version ${version}${version ? "" : " (absent)"}, not ${ifVersion}: read it again before changing it.` };
  }

  async createFolder(dir: string, files: Array<{ path: string; data: Uint8Array }>): Promise<WsResult<{ files: number }>> {
    const rel = this.checked(dir);
    if (!rel.ok) return rel;
    try {
      await this.fs.createTree(join(this.root, rel.value), new Map(files.map((f) => [f.path, f.data])));
    } catch (error) {
      const message = `${rel.value}: ${(error as Error).message}`;
      return (error as { code?: string }).code === "EEXIST" ? { ok: false, kind: "conflict", error: message } : invalid(message);
    }
    return { ok: true, value: { files: files.length } };
  }

  /** A version the bridge kept when it replaced or removed it (kept-versions.ts), or the file now at that version. */
  private async kept(rel: string, version: number): Promise<WsResult<FileContent>> {
    const now = await this.current(rel);
    if (now.ok && now.value.version === version) return now;
    const kept = await keptContent(this.root, rel, version);
    if (!kept) return { ok: false, kind: "not_found", error: `The bridge kept no version ${version} of ${rel}: history lists the ones it kept (a week of what it replaced or removed); older ones are in the user's git, if they use it (git log, git show).` };
    const { entry, data } = kept;
    return { ok: true, value: { path: rel, version, size: entry.size, sha256: entry.sha256, updated_at: entry.at, data } };
  }

  async restore(path: string, version: number, ifVersion?: number): Promise<WsResult<WrittenEntry>> {
    const at = await this.located(path);
    if (!at.ok) return at;
    const kept = await this.kept(at.value.rel, version);
    return kept.ok ? this.write(at.value.rel, kept.value.data, { text: "restore", maxBytes: MAX_READ, ...(ifVersion === undefined ? {} : { ifVersion }) }) : kept;
  }

  /** The file now, then what the bridge kept of it, newest first: a week of what it replaced or removed. A page's
   *  `before` is a version listed (versions here name content, not an order): those after it in this list. */
  async history(path: string, page: HistoryPage = {}): Promise<WsResult<VersionEntry[]>> {
    const at = await this.located(path);
    if (!at.ok) return at;
    const rel = at.value.rel;
    const found = await this.found(rel);
    const now = typeof found === "object" ? found : undefined;
    const kept = (await keptOf(this.root, rel)).map((e): VersionEntry => ({ version: e.version, op: "write", size: e.size, sha256: e.sha256, at: e.at, kept: true }));
    const versions = [...(now ? [{ version: now.version, op: "write" as const, size: now.size, sha256: now.sha256, ...(now.author ? { author: now.author } : {}), at: now.updated_at }] : []), ...kept];
    // Said as read says it (review 334: "No file" of a hard link).
    if (!versions.length && found === HARD_LINK) return { ok: false, kind: "not_found", error: `${rel}: ${HARD_LINK_READ}` };
    if (!versions.length) return { ok: false, kind: "not_found", error: (await this.notAFile(rel)) ?? `No file ${rel} in the project, and nothing of it kept (the bridge keeps ${KEPT_DAYS} days of what it replaced or removed); earlier versions are in the user's git, if they use it (git log).` };
    const from = page.before === undefined ? 0 : versions.findIndex((v) => v.version === page.before) + 1;
    if (!from && page.before !== undefined) return { ok: false, kind: "not_found", error: `The bridge kept no version ${page.before} of ${rel}: history lists the ones it kept.` };
    return { ok: true, value: versions.slice(from, from + (page.limit ?? HISTORY_PAGE)) };
  }

  async remove(path: string, ifVersion?: number): Promise<WsResult<{ path: string; version: number }>> {
    const at = await this.located(path);
    if (!at.ok) return at;
    const rel = at.value.rel;
    const removed = await this.change(
      rel,
      (current, identity) => (current ? (this.stale(rel, contentVersion(current, rel, identity).version, ifVersion) ?? { ok: true, value: null }) : { ok: false, kind: "not_found", error: `No file ${rel}` }),
      async (_, before, identity) => {
        // Gone as this session knows it: a file made there since is another program's.
        this.served?.set(rel, 0);
        return { ok: true, value: { path: rel, version: contentVersion(before!, rel, identity).version } };
      },
    );
    // Said as read says it, out of the file's lock: a folder is a folder, and a missing file has its closest names.
    return !removed.ok && removed.kind === "not_found" ? { ...removed, error: await this.noFile(rel) } : removed;
  }

  /** The files `glob` matches, found by one walk of the folder its literal start names (all of the project for "**"),
   *  shallow folders first and no deeper than the pattern reaches. Each folder is read once, by its real path, with its
   *  entries' kinds: nothing is looked up from the root name by name (a chain 1,200 folders deep took a listing 51 s).
   *  The walk keeps push's caps, and says which cut it. */
  async list(glob = "**"): Promise<Listing> {
    // A glob that is no project path's (`/docs/*`, `../*`, `.git/*`) is refused as that path is (compilePathGlob).
    const compiled = compilePathGlob(glob);
    return compiled.ok ? this.walk(glob, compiled.glob) : invalid(compiled.error);
  }

  /** The files named as `path`'s file is, in any case, anywhere in the project, the shortest paths first, at most
   *  `limit`: list's walk, reading no file of another name (review 477: a missing _bmad-output/prd.md was answered
   *  with the folders beside it, never the PRD below one). */
  async namesakes(path: string, limit: number): Promise<string[]> {
    const name = basename(path).toLowerCase();
    // Within a budget of names looked at: a walk stops at 5,000 folders, not at their files (review 482: 200,000 files
    // made every missing file's answer half a second); past it, none are named.
    let looked = 0;
    const match = {
      pattern: "**",
      get exhausted() {
        return looked > NAMESAKE_LOOKS;
      },
      test: (rel: string) => ++looked <= NAMESAKE_LOOKS && rel.slice(rel.lastIndexOf("/") + 1).toLowerCase() === name,
    };
    const found = await this.walk("**", match);
    return found.ok ? found.value.map((f) => f.path).sort(nearestFirst(path)).slice(0, limit) : [];
  }

  /** The files below `glob`'s literal start, as deep as it reaches, that `match` takes (list). */
  private async walk(glob: string, match: Glob): Promise<Listing> {
    const start = literalFolder(glob);
    // A start a walk leaves out (`node_modules`) lists nothing.
    const startNames = start ? start.split("/") : [];
    for (const [i, name] of startNames.entries()) {
      if (unlisted(name) || !(await walked(name, join(this.root, ...startNames.slice(0, i + 1))))) return { ok: true, value: [] };
    }
    // Without "**" a pattern reaches as many folders deep as it has segments: "*.md" looks at the root alone.
    const deepest = glob.includes("**") ? MAX_WALK_DEPTH : glob.split("/").length - 1;
    const realRoot = await realpath(this.root);
    const inProject = (real: string) => isInside(realRoot, real) && !posixRelative(realRoot, real).split("/").some((part) => machineryName(part));
    const out: FileEntry[] = [];
    let folders = 0;
    let links = 0;
    let cut: string | undefined;
    const counted = new Map<LeftOut, number>();
    const denied: string[] = [];
    const leaveOut = (rel: string, why: LeftOut) => (why === DENIED ? denied.push(rel) : counted.set(why, (counted.get(why) ?? 0) + 1));
    const add = async (rel: string) => {
      // A file that cannot be read here (a link into machinery) is not listed.
      const found = match.test(rel) ? await this.found(rel) : undefined;
      if (typeof found === "object") out.push(found);
      else if (found) leaveOut(rel, found);
    };
    const startReal = start ? await this.fs.realpath(join(this.root, start)).catch(() => undefined) : realRoot;
    if (startReal === undefined || !inProject(startReal)) return { ok: true, value: [] };
    // Breadth first, the BMAD folders before the rest: what a project's own folders hold is found before what a deep
    // or wide tool folder fills the budget with.
    type Folder = { dir: string; real: string; depth: number; first: boolean };
    const first: Folder[] = [];
    const rest: Folder[] = [{ dir: start, real: startReal, depth: start ? start.split("/").length : 0, first: false }];
    const enter = (dir: string, real: string, depth: number, inFirst: boolean) => {
      if (depth > MAX_WALK_DEPTH) return void (cut ??= `files more than ${MAX_WALK_DEPTH} folders deep are not listed, far past any BMAD folder`);
      const isFirst = inFirst || (depth === 1 && WALKED_FIRST.has(dir));
      if (depth <= deepest) (isFirst ? first : rest).push({ dir, real, depth, first: isFirst });
    };
    for (let next = first.shift() ?? rest.shift(); next; next = first.shift() ?? rest.shift()) {
      if (out.length >= MAX_FILES || match.exhausted) break;
      if (++folders > MAX_FILES) {
        cut ??= `at most ${n(MAX_FILES)} folders are looked in; list a narrower path (e.g. "docs/**") for the rest`;
        break;
      }
      const { dir, real, depth, first: inFirst } = next;
      // A folder its user may not read or search: named once, and the walk goes on (review 222).
      if (await isDenied(real, constants.R_OK | constants.X_OK)) {
        denied.push(`${dir || "."}/`);
        continue;
      }
      const entries = await readdir(real, { withFileTypes: true }).catch(() => []);
      for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        if (out.length >= MAX_FILES || match.exhausted) break;
        const rel = dir ? `${dir}/${e.name}` : e.name;
        if (unlisted(e.name)) {
          // Counted, never named: its name would break the listing's line (review 413: a script's made none counted).
          if (!isOneLine(e.name) && match.test(rel)) leaveOut(rel, NOT_ONE_LINE);
          continue;
        }
        if (e.isDirectory()) {
          if (await walked(e.name, join(real, e.name))) enter(rel, join(real, e.name), depth + 1, inFirst);
        }
        else if (e.isFile()) await add(rel);
        else if (!e.isSymbolicLink()) {
          if (match.test(rel)) leaveOut(rel, NOT_REGULAR);
        } else {
          if (++links > MAX_WALK_LINKS) {
            cut ??= `at most ${MAX_WALK_LINKS} links are followed; list below a link for its files`;
            continue;
          }
          // Resolved within a budget, as push's walk does: a link's chain costs at most that.
          const target = resolveBounded(join(real, e.name));
          const kind = target !== undefined && inProject(target) ? await stat(target).catch(() => undefined) : undefined;
          if (kind?.isDirectory() && (await walked(e.name, target!))) enter(rel, target!, depth + 1, inFirst);
          else if (kind?.isFile()) await add(rel);
          else if (kind && match.test(rel)) leaveOut(rel, NOT_REGULAR);
        }
      }
    }
    if (match.exhausted) return invalid(tooCostly(match, "this project's files"));
    if (out.length >= MAX_FILES) cut ??= `at most ${n(MAX_FILES)} files are listed; list a narrower path (e.g. "docs/**") for the rest`;
    out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const notes = leftOutLines(counted, denied);
    return { ok: true, value: out, ...(cut ? { cut } : {}), ...(notes.length ? { leftOut: notes } : {}) };
  }

  async stat(path: string): Promise<WsResult<"file" | "dir" | "missing">> {
    if (path === "") return { ok: true, value: "dir" };
    const rel = this.checked(path);
    return rel.ok ? { ok: true, value: await this.fs.stat(join(this.root, rel.value)) } : rel;
  }

  async children(dir: string): Promise<WsResult<string[]>> {
    if (dir !== "") {
      const rel = this.checked(dir);
      if (!rel.ok) return rel;
      dir = rel.value;
    }
    return { ok: true, value: (await this.fs.list(join(this.root, dir))).filter((name) => !unlisted(name)) };
  }
}
