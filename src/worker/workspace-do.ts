// One SQLite-backed Durable Object per project workspace, addressed by idFromName(`${owner}|${name}`): its
// owner, its shares, its files and every version of them. This object is the authority on access: every
// method checks the caller against the owner and the shares, on every call, so a revocation holds at once.
// Each change is checked (path, limits, if_version) and then stored in one synchronous transaction.
import * as z from "zod";
import { DurableObject } from "cloudflare:workers";
import { count as n, shownTime } from "../core/count.js";
import { tooCostly, type Glob } from "../core/catalog/glob.js";
import type { InstallerAnswers } from "../core/workspace/installer.js";
import { checkWrite, checkWriteAll, DELETED_SHOWN, folderOf, HISTORY_PAGE, MAX_FILE_BYTES, MAX_FILES, MAX_LISTED, MAX_PROJECT_BYTES, MAX_SHARES } from "../core/workspace/limits.js";
import { checkWorkspacePath, checkWritablePath, compilePathGlob, printable, shellWordRefusal, shownHandle } from "../core/workspace/paths.js";
import { readAccessRefusal, type Access, type AuthoredEntry, type ChangedFile, type Configured, type DeletedFile, type FileContent, type HistoryPage, type RemovedEntry, type ManyRead, type ProjectInfo, type ShareAccess, type VersionEntry, type WsError, type WrittenEntry, type WsResult } from "../core/workspace/store.js";
import type { Env } from "./env.js";
import type { ListingColumns } from "./workspace-listing.js";
import { batchClash, fail, SERVER_MERGE, sha256, VersionedFiles, type Collaborator } from "./workspace-versions.js";
import { mergeConfigEdits } from "../core/workspace/config-merge.js";
import { indexAsWritten, memoryIds, prepare as prepareMemory, runMemoryOp, type MemoryOp } from "./memory-sql.js";
import { memoryIdOf, writePendingMemories } from "./workspace-memory-files.js";
import { memoryVectors } from "./memory-vectors.js";
import { MEMORY_DIR, structuredType } from "../core/memory/files.js";
import { ProjectShares } from "./workspace-shares.js";
import { DisplacedNotes, holdsWhole } from "./workspace-displaced.js";
import { MAX_SEEN_EACH, SeenVersions } from "./workspace-seen.js";
import type { TextEdit, TextEdited } from "../core/runtime/fs.js";
import { editMemlog, memlogStamp } from "../core/runtime/memlog-text.js";
import { decodeUtf8 } from "../core/runtime/py-io.js";
import { universalNewlines } from "../core/runtime/py-str.js";
import { DEFAULT_TIME_ZONE, wallTimeIn } from "../core/runtime/time-zone.js";
import { isConfigShaped, isNotServedNotice, mayServeAsConfig, sanitizeConfigText, secretKeptOut, servedWithout } from "../core/catalog/config.js";
import type { ByOthers, EntryLines, Person } from "../core/workspace/line-authors.js";
import { CountBudget, type ChangedSince } from "../core/workspace/changed-since.js";
import { notUtf8Refusal, shownText, textBytes, type TextWrite } from "../core/workspace/file-text.js";
import type { Standing } from "./workspace-index-do.js";

/** Who calls: their user id, every handle a share may name them by (`user:<id>`, `github:<login>`, `email:<address>`), and how authors show.
 *  `readOnly`: their token carries bmad:read only, and so changes nothing here, not even what counts as told them: it
 *  peeks at their notes and marks no change seen (review 415: a bmad:read map used up what the next read would tell). */
export interface Caller {
  id: string;
  handles: string[];
  label: string;
  readOnly?: true;
}


/** `no_project`: nothing here this caller may see. The store turns it into its one "not found". */
export type DoError = WsError;
export type DoResult<T> = WsResult<T>;
/** A result about the project's files, with its time zone (null: none set) beside the value: the store shows the
 *  times of what it answers in that zone (WorkspaceFiles.showTime) without another call. */
export type ZonedResult<T> = DoResult<T> & { timeZone?: string | null };

/** `out`, with the zone of the project `meta` describes where it succeeded. */
const zoned = <T>(out: DoResult<T>, meta: Meta): ZonedResult<T> => (out.ok ? { ...out, timeZone: meta.time_zone } : out);
/** The zone the project `meta` describes shows times in: what its answers' texts built here say times in. */
const zoneOf = (meta: Meta): string => meta.time_zone ?? DEFAULT_TIME_ZONE;

interface Meta {
  owner: string;
  owner_label: string;
  name: string;
  created_at: string;
  answers: string;
  history_bytes: number;
  /** IANA; null: UTC (projects made before time zones, and those never set). */
  time_zone: string | null;
  /** Who last set time_zone, where someone other than the owner did (their label); null: the owner, or nobody. */
  time_zone_by: string | null;
  /** When its owner deleted it: answered as not there, its content kept UNDO_DAYS for undelete. */
  deleted_at: string | null;
  /** Who last set each installer answer (`module.key` -> label), JSON; null: the owner, for all (made before this). */
  answer_authors: string | null;
  /** The number of its last create, delete or undelete (nextStanding); null: made before these were numbered. */
  standing_seq: number | null;
}

/** A number above every earlier change of a project's state, even one made before its storage went (a project deleted
 *  for good and made again): microseconds of the clock, or one more than the last. */
const nextStanding = (meta: Meta | undefined) => Math.max(Date.now() * 1000, (meta?.standing_seq ?? 0) + 1);

type Row = Record<string, SqlStorageValue>;

const NO_PROJECT = { ok: false, kind: "no_project", error: "no project" } as const;
/** The most files, and bytes of each, one peek reads. */
const PEEK_FILES = 100;
const PEEK_BYTES = 64 * 1024;
/** The most files readMany lists below one folder. */
const TREE_FILES = 2000;

export class WorkspaceProject extends DurableObject {
  private readonly sql: SqlStorage;
  private ready: boolean;
  /** The files and their versions (public so tests can lower its history cap). */
  readonly files: VersionedFiles;
  private readonly shares: ProjectShares;
  private readonly displaced: DisplacedNotes;
  private readonly seen: SeenVersions;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.files = new VersionedFiles(ctx.storage);
    this.shares = new ProjectShares(this.sql);
    this.displaced = new DisplacedNotes(this.sql);
    this.seen = new SeenVersions(this.sql);
    // No tables until a project is created here: probing a name costs nothing.
    this.ready = this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").toArray().length > 0;
    if (this.ready) this.migrate();
  }

  /** Tables from before a change get its columns. */
  private migrate(): void {
    this.shares.migrate();
    this.displaced.createTable();
    this.seen.createTable();
    const columns = this.sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('meta')").toArray().map((c) => c.name);
    if (!columns.includes("time_zone")) this.sql.exec("ALTER TABLE meta ADD COLUMN time_zone TEXT");
    if (!columns.includes("deleted_at")) this.sql.exec("ALTER TABLE meta ADD COLUMN deleted_at TEXT");
    if (!columns.includes("answer_authors")) this.sql.exec("ALTER TABLE meta ADD COLUMN answer_authors TEXT");
    if (!columns.includes("standing_seq")) this.sql.exec("ALTER TABLE meta ADD COLUMN standing_seq INTEGER");
    if (!columns.includes("time_zone_by")) this.sql.exec("ALTER TABLE meta ADD COLUMN time_zone_by TEXT");
    this.files.migrate();
    // Arrived with the count of every version row (review 236): the history is counted again, once.
    if (!columns.includes("dropped_version")) {
      this.sql.exec("ALTER TABLE meta ADD COLUMN dropped_version INTEGER NOT NULL DEFAULT 0");
      this.files.recount();
    }
  }

  private meta(): Meta | undefined {
    return this.ready ? (this.sql.exec<Meta & Row>("SELECT * FROM meta WHERE id = 1").toArray()[0] as Meta | undefined) : undefined;
  }

  /** The owner, or what the shares the caller accepted allow; a share not accepted grants nothing. */
  private accessOf(meta: Meta, caller: Caller): Access | undefined {
    return meta.owner === caller.id ? "owner" : this.shares.accessOf(caller.handles, caller.id);
  }

  /** The project and the caller's access, if they may do what `need` names. */
  private gate(caller: Caller, need: "read" | "write" | "owner"): { ok: true; meta: Meta; access: Access } | DoError {
    const meta = this.meta();
    const access = meta && !meta.deleted_at && this.accessOf(meta, caller);
    if (!meta || !access) return NO_PROJECT;
    if (need === "owner" && access !== "owner") return fail("denied", `Only the owner of "${meta.name}" (${meta.owner_label}) can share or delete it.`);
    if (need === "write" && access === "read") return fail("denied", readAccessRefusal(meta.name, meta.owner_label));
    return { ok: true, meta, access };
  }

  private createTables(): void {
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS meta (id INTEGER PRIMARY KEY CHECK (id = 1), owner TEXT NOT NULL, owner_label TEXT NOT NULL, name TEXT NOT NULL,
        created_at TEXT NOT NULL, answers TEXT NOT NULL, history_bytes INTEGER NOT NULL, time_zone TEXT, deleted_at TEXT, answer_authors TEXT,
        standing_seq INTEGER, dropped_version INTEGER NOT NULL DEFAULT 0, time_zone_by TEXT);
    `);
    this.shares.createTable();
    this.displaced.createTable();
    this.seen.createTable();
    this.files.createTables();
    this.ready = true;
  }

  /** How every change to one file starts: a path that may be written, write access, the path as stored
   *  (VersionedFiles.asStored), the memories remembered since in their files, and the file's head now. */
  private changing(caller: Caller, given: string): { ok: true; meta: Meta; access: Access; path: string; head: AuthoredEntry | undefined } | DoError {
    const checked = checkWritablePath(given);
    if (!checked.ok) return fail("invalid", checked.error);
    const g = this.gate(caller, "write");
    if (!g.ok) return g;
    const path = this.files.asStored(given);
    if (!path.ok) return path;
    // A new name a shell would expand (`~/x.md`) is not made; one that exists is changed as it is (shellWordRefusal).
    const shell = shellWordRefusal(path.value);
    if (shell && !this.files.head(path.value)) return fail("invalid", shell);
    this.writeMemories(g.meta, path.value);
    this.indexAsItIs(path.value);
    // Read after the memories are written: they may change this file's head.
    return { ...g, path: path.value, head: this.files.head(path.value) };
  }

  /** The project's files and bytes as the caller's limits count them. */
  private totalsFor(g: { access: Access }): { files: number; bytes: number } {
    return this.files.totals(g.access === "owner" ? "owner" : "collaborator");
  }

  /** A collaborator's change keeps what collaborators hold of the project's current files (those whose last version is
   *  not the owner's) within half of each limit, so the owner's own work always has room (review 80: a writer's 4,978
   *  small files, or 49 of 1 MiB, refused every later write of the owner's, and refilled what the owner freed); and so
   *  within half of each folder's (review 177: a writer's 999 files in `_bmad-output/planning-artifacts/` refused the
   *  owner's architecture.md there). */
  private othersShare(g: { meta: Meta; access: Access }, changes: Array<{ path: string; size: number }>): DoError | undefined {
    if (g.access === "owner") return undefined;
    const held = this.files.heldByOthers(g.meta.owner, g.meta.owner_label);
    let files = held.size;
    let bytes = [...held.values()].reduce((sum, size) => sum + size, 0);
    // Members' files directly in each folder the change adds one of theirs to.
    const inFolder = new Map<string, number>();
    for (const c of changes) if (!held.has(c.path)) inFolder.set(folderOf(c.path), 0);
    for (const path of held.keys()) {
      const there = inFolder.get(folderOf(path));
      if (there !== undefined) inFolder.set(folderOf(path), there + 1);
    }
    for (const c of changes) {
      const was = held.get(c.path);
      if (was === undefined) {
        files++;
        inFolder.set(folderOf(c.path), inFolder.get(folderOf(c.path))! + 1);
      }
      bytes += c.size - (was ?? 0);
    }
    const owner = `ask the owner (${g.meta.owner_label}) to`;
    if (files > MAX_FILES / 2 || bytes > MAX_PROJECT_BYTES / 2) {
      return fail("limit", `Project "${g.meta.name}" keeps half its room (${n(MAX_FILES / 2)} files, ${MAX_PROJECT_BYTES / 2 / 1024 / 1024} MiB) for its owner's own work, and the files its members last changed take the other half: this change does not fit. Delete some of those files, or ${owner}.`);
    }
    const full = [...inFolder].find(([, count]) => count > MAX_LISTED / 2);
    if (!full) return undefined;
    const [folder] = full;
    const shown = folder ? `The folder ${folder} of project "${g.meta.name}"` : `The top folder of project "${g.meta.name}"`;
    return fail("limit", `${shown} keeps half its room (${n(MAX_LISTED / 2)} of the ${n(MAX_LISTED)} files a folder holds directly) for its owner's own work, and the files its members last changed there take the other half: this change does not fit. Put it in a subfolder (${folder}<name>/), or delete some of those files (bmad-files "delete" takes a glob), or ${owner}.`);
  }

  /** Room in the history for a change (workspace-versions.ts room()): a collaborator's changes share half of it. */
  private room(g: { meta: Meta; access: Access }, versions: Array<{ path: string; size: number; data?: Uint8Array }>, now: string): DoError | undefined {
    return this.files.room(g.meta.name, versions, now, this.collaborator(g));
  }

  /** The caller as the history's room and its cap take their changes (VersionedFiles.room, commit): the owner, or a
   *  collaborator, whose changes drop none of the owner's versions. */
  private collaborator(g: { meta: Meta; access: Access }): Collaborator | undefined {
    return g.access === "owner" ? undefined : { ownerId: g.meta.owner, ownerLabel: g.meta.owner_label };
  }

  /** Why a collaborator may not change `path`: a config that holds secret-looking entries (or text that does not parse
   *  here), which only its owner was shown. Any change, whatever it writes: one that kept them was told apart from one
   *  that did not, and a writer tested 150 guesses a second at the owner's password (reviews 21 and 22). */
  private secretsHeld(g: { meta: Meta; access: Access }, path: string, restoring?: Uint8Array): DoError | undefined {
    if (g.access === "owner" || !mayServeAsConfig(path)) return undefined;
    const head = this.files.head(path);
    // A version restored counts as the file now would: one holding a secret the owner removed would put it back, and
    // its raw size in a limit's answer told the secret's length (review 30).
    const served = (data: Uint8Array) => {
      const text = new TextDecoder().decode(data);
      const shown = sanitizeConfigText(path, text);
      return shown === text ? undefined : shown;
    };
    const now = head ? served(this.files.contentOf(path, head)) : undefined;
    if (!now && !(restoring && served(restoring))) return undefined;
    // Told apart from secrets only by what every reader is shown (the notice): a writer who broke it learns why (review 109).
    const what = now && isNotServedNotice(now) ? "does not parse, so nobody is shown it whole and whether it holds secret-looking entries cannot be judged" : "holds secret-looking entries that only its owner is shown";
    return fail("denied", `${path} ${what}: only the owner of "${g.meta.name}" (${g.meta.owner_label}) changes it. Nothing was written: ask the owner (they can restore an earlier version).`);
  }

  /** A change that leaves `path` holding what looks like a secret, served whole to every member (secretKeptOut):
   *  refused for every caller, the owner too, as push refuses to send it. */
  private secretShown(path: string, data: Uint8Array): DoError | undefined {
    const why = secretKeptOut(path, new TextDecoder().decode(data));
    return why === undefined ? undefined : fail("invalid", why);
  }

  /** Installer answers someone other than the caller (and the owner) last set; and for a member, user_name where the
   *  owner's create or config set it (not where it is the installer's default): a name is a person's, which BMAD keeps in each user's own file and a workspace in
   *  one (review 188: Bob's model greeted him as Alice). */
  private answersByOthers(meta: Meta, caller: Caller): Array<{ key: string; who: string }> {
    const authors = answerAuthors(meta);
    const named = Object.entries(authors).filter(([, who]) => who !== caller.label).map(([key, who]) => ({ key, who }));
    // Not the installer's default, which nobody set (review 322: a member was told the owner set "BMad").
    const ownersName = authors["core.user_name"] === undefined && flatAnswers(JSON.parse(meta.answers) as InstallerAnswers).has("core.user_name");
    return caller.id !== meta.owner && ownersName ? [...named, { key: "core.user_name", who: meta.owner_label }] : named;
  }

  /** Creates the project with its first files, all or nothing. */
  init(caller: Caller, name: string, answers: InstallerAnswers, files: Array<{ path: string; data: Uint8Array }>, now: string, timeZone?: string): DoResult<ProjectInfo> {
    const there = this.meta();
    if (there?.deleted_at) return fail("conflict", `You deleted "${name}" at ${shownTime(there.deleted_at)} UTC; it is kept until ${shownTime(this.undoneBy(there.deleted_at))} UTC, when it goes for good. bmad-project "undelete" brings it back; or choose another name.`);
    if (there) return fail("conflict", `You already have a project "${name}".`);
    for (const f of files) {
      const checked = checkWorkspacePath(f.path);
      if (!checked.ok) return fail("invalid", checked.error);
    }
    const fits = checkWriteAll(name, { files: 0, bytes: 0, sizes: new Map() }, files.map((f) => ({ path: f.path, size: f.data.byteLength })));
    if (!fits.ok) return fail("limit", fits.error);
    this.files.transaction(() => {
      this.createTables();
      this.sql.exec(
        "INSERT INTO meta (id, owner, owner_label, name, created_at, answers, history_bytes, time_zone, standing_seq) VALUES (1, ?, ?, ?, ?, ?, 0, ?, ?)",
        caller.id, caller.label, name, now, JSON.stringify(answers), timeZone ?? null, nextStanding(undefined),
      );
      for (const f of files) this.files.commit(f.path, f.data, "create", personOf(caller), now);
    });
    return this.info(caller);
  }

  /** The project's time zone (null: none set), for the times scripts write: info's one field, without the rest. */
  timeZone(caller: Caller): DoResult<string | null> {
    const g = this.gate(caller, "read");
    return g.ok ? { ok: true, value: g.meta.time_zone } : g;
  }

  /** When a file here last changed, a deletion too (null: none ever did; WorkspaceFiles.lastChanged). */
  lastChanged(caller: Caller): DoResult<string | null> {
    const g = this.gate(caller, "read");
    return g.ok ? { ok: true, value: this.files.lastChanged() } : g;
  }

  info(caller: Caller): DoResult<ProjectInfo> {
    const g = this.gate(caller, "read");
    if (!g.ok) return g;
    const { meta, access } = g;
    const info: ProjectInfo = {
      project: meta.name, name: meta.name, owner: access === "owner" ? "you" : meta.owner_label, access,
      created_at: meta.created_at, answers: JSON.parse(meta.answers) as InstallerAnswers, ...(meta.time_zone ? { time_zone: meta.time_zone } : {}), ...(meta.time_zone_by && meta.time_zone_by !== caller.label ? { time_zone_by: meta.time_zone_by } : {}), ...this.files.totals(),
    };
    // A collaborator's total leaves configs out: with every other size listed, it told a config's raw size, which
    // servedVersion hides since it gives a removed secret's length (review 25).
    if (access !== "owner") Object.assign(info, { bytes: info.bytes - this.files.current().configBytes, configs_not_counted: true });
    const byOthers = this.answersByOthers(meta, caller);
    if (byOthers.length) info.answersByOthers = byOthers;
    if (access === "owner") {
      info.shares = this.shares.all().map((s) => ({ with: shownHandle(s.handle), access: s.access, ...(s.accepted ? {} : { pending: true as const }) }));
    }
    return { ok: true, value: info };
  }

  /** `notes`: bmad-files read's, which takes (or, for a read-only token, peeks at) the caller's note on the file
   *  (DisplacedNotes), told with a read of the file as it is now. `shown`: the read shows the model what others changed
   *  (ReadOptions), which counts as seen (SeenVersions) where the token may change things. */
  read(caller: Caller, given: string, version?: number, notes?: boolean, shown?: boolean): ZonedResult<FileContent> {
    const checked = checkWorkspacePath(given);
    if (!checked.ok) return fail("invalid", checked.error);
    const g = this.gate(caller, "read");
    if (!g.ok) return g;
    // A deleted file too: an earlier version's, or the answer that names its history.
    const stored = this.files.asStored(given);
    if (!stored.ok) return stored;
    const path = stored.value;
    this.writeMemories(g.meta, path);
    const read = this.readAs(g, caller, path, version);
    // Told with the file as it is now (review 349: a read of an old version used it up, saying to read that version).
    const now = read.ok && notes && (version === undefined || version === this.files.head(path)?.version);
    const note = now ? (caller.readOnly ? this.displaced.peek(path, personOf(caller)) : this.displaced.take(path, personOf(caller))) : undefined;
    if (!read.ok) return read;
    // Not where the file holds that version's whole text again (a restore of it, by anyone): nothing of theirs to put
    // back (review 392). Checked here, at the read, not at the change: a later change may drop it again (review 396).
    const back = note && holdsWhole(read.value.data, this.files.content(path, note.version));
    // Put back by someone else where the caller may not write: their share is read-only, or their token is.
    const displaced = note && !back && { ...note, ...(g.access === "read" || caller.readOnly ? { readOnly: true as const } : {}) };
    const { changed_since: since, ...rest } = read.value;
    // The note tells the change that replaced the caller's version; the clause, only what others changed after it
    // (review 391: told beside the note, it told that change twice; review 415: withheld, it hid the later ones).
    const after = displaced && since && since.yours < displaced.at ? this.changedSince(path, caller, g.access, new CountBudget(), displaced.at) : since;
    // Only the head's clause is shown, and told once.
    if (shown && !caller.readOnly && since) this.seen.mark(path, personOf(caller), read.value.version);
    return zoned(displaced ? { ok: true, value: { ...rest, displaced, ...(after ? { changed_since: after } : {}) } } : read, g.meta);
  }

  /** The caller was shown what others changed in these files up to `version` (toldUpTo): a status's, a render's or
   *  the map's lines (read marks its own). Not told again (SeenVersions); a later change of theirs is. A read-only
   *  token's answers tell it again (Caller.readOnly). */
  markSeen(caller: Caller, shown: Array<{ path: string; version: number }>): DoResult<null> {
    const g = this.gate(caller, "read");
    if (!g.ok || caller.readOnly) return g.ok ? { ok: true, value: null } : g;
    const reader = personOf(caller);
    for (const { path, version } of shown.slice(0, MAX_SEEN_EACH)) {
      const head = checkWorkspacePath(path).ok ? this.files.head(path) : undefined;
      // Never past the head (a version not made yet is no change seen), nor back before what was seen already.
      if (head && Number.isInteger(version) && version <= head.version && version > (this.seen.version(path, reader) ?? 0)) this.seen.mark(path, reader, version);
    }
    return { ok: true, value: null };
  }

  private readAs(g: { meta: Meta; access: Access }, caller: Caller, path: string, version: number | undefined): DoResult<FileContent> {
    if (version === undefined) {
      const head = this.files.head(path);
      if (!head) return this.files.noFile(g.meta.name, path, personOf(caller), zoneOf(g.meta));
      const data = this.files.contentOf(path, head);
      return { ok: true, value: { ...head, data, ...this.othersIn(path, caller, g.access, new CountBudget(), undefined, data) } };
    }
    const old = this.files.version(g.meta.name, path, version, personOf(caller), zoneOf(g.meta));
    return old.ok ? { ok: true, value: { ...old.value, ...this.othersIn(path, caller, g.access, new CountBudget(), version, old.value.data) } } : old;
  }

  /** `path` as stored (VersionedFiles.asStored), or as given where it is no project path or names several stored names:
   *  for what looks up many paths at once and answers a missing one as none. */
  private storedOr(path: string): string {
    const stored = checkWorkspacePath(path).ok ? this.files.asStored(path) : undefined;
    return stored?.ok ? stored.value : path;
  }

  /** The lines of the file someone other than the caller wrote, to name in its answer (FileContent.others). Line
   *  numbers are left out of a file served without some of its lines, which they would count (review 25; review 290:
   *  a data file served without its passwords), and of any config for collaborators. */
  private othersIn(path: string, caller: Caller, access: Access, budget: CountBudget, version?: number, data?: Uint8Array): { others?: ByOthers; changed_by_other?: true; changed_since?: ChangedSince } {
    const other = this.files.changedByOther(path, personOf(caller), version);
    // What others changed since the caller's own last version, asked only where another made the head (a render reads
    // twenty files, most of them the caller's own).
    const since = version === undefined && other ? this.changedSince(path, caller, access, budget) : undefined;
    const byOther = { ...(other ? { changed_by_other: true as const } : {}), ...(since ? { changed_since: since } : {}) };
    const others = this.files.byOthers(path, personOf(caller), version, data);
    if (!others.length) return byOther;
    const unnumbered = this.unnumbered(path, access, version);
    return { others: unnumbered ? others.map((o) => ({ ...o, lines: o.lines === "all" ? "all" : "some" })) : others, ...byOther };
  }

  /** Whether the caller is told no line numbers of `path` (its head, or `version`): othersIn. */
  private unnumbered(path: string, access: Access, version?: number): boolean {
    return (access !== "owner" && isConfigShaped(path)) || this.servedRedacted(path, version);
  }

  /** What others changed in `path`'s head since the caller's own last version, or the one they were last shown it with
   *  (or `after`, where later: a displaced note's version), as FileContent.changed_since; the lines left uncounted where
   *  othersIn numbers none: counted lines of a file served without some would tell of those too. */
  private changedSince(path: string, caller: Caller, access: Access, budget: CountBudget, after?: number): ChangedSince | undefined {
    const seen = Math.max(this.seen.version(path, personOf(caller)) ?? 0, after ?? 0) || undefined;
    // Told up to the head already (the common case once a map or read showed it): none since, known from the listing in
    // memory without a look at the versions (review 418: the map cost half as much again after all was seen).
    const head = this.files.current().version(path);
    if (seen !== undefined && head !== undefined && seen >= head) return undefined;
    const since = this.files.changedSince(path, personOf(caller), seen, budget);
    if (!since || !this.unnumbered(path, access)) return since;
    const { added: _added, removed: _removed, ...uncounted } = since;
    return uncounted;
  }

  /** Whether `path` (its head, or `version`) is served without some of its lines (config.ts servedFile). */
  private servedRedacted(path: string, version?: number): boolean {
    if (!mayServeAsConfig(path)) return false;
    const at = version ?? this.files.head(path)?.version;
    return at !== undefined && servedWithout(path, shownText(this.files.content(path, at)).text);
  }

  /** The first or last bytes of each file (WorkspaceFiles.peek), at most PEEK_FILES of them; missing ones left out. */
  peek(caller: Caller, paths: string[], part: { head: number } | { tail: number }): ZonedResult<FileContent[]> {
    const g = this.gate(caller, "read");
    if (!g.ok) return g;
    this.writeMemories(g.meta);
    const size = "head" in part ? part.head : part.tail;
    const budget = new CountBudget();
    if (!Number.isInteger(size) || size < 1 || size > PEEK_BYTES) return fail("invalid", `A peek reads 1 to ${PEEK_BYTES} bytes of each file.`);
    const value = paths.slice(0, PEEK_FILES).flatMap((path) => {
      const at = this.storedOr(path);
      const head = checkWorkspacePath(at).ok ? this.files.head(at) : undefined;
      return head ? [{ ...head, data: this.files.part(at, head.version, part), ...this.othersIn(at, caller, g.access, budget) }] : [];
    });
    return zoned({ ok: true, value }, g.meta);
  }

  /** Files below `folders` (at most PEEK_FILES of them) deleted since `since` and not brought back (WorkspaceFiles.deletedSince). */
  deletedSince(caller: Caller, folders: string[], since: string): DoResult<DeletedFile[]> {
    const g = this.gate(caller, "read");
    if (!g.ok) return g;
    const checked = folders.slice(0, PEEK_FILES).filter((dir) => checkWorkspacePath(dir).ok);
    return { ok: true, value: this.files.deletedSince(checked, since, DELETED_SHOWN) };
  }

  /** Files a render reads, in one call: each one's bytes, "dir" or null (none); the files below each of `trees`
   *  (null past TREE_FILES); and a stamp naming all of that: it changes exactly when one of them does. */
  readMany(caller: Caller, paths: string[], trees: string[] = []): DoResult<ManyRead> {
    const g = this.gate(caller, "read");
    if (!g.ok) return g;
    this.writeMemories(g.meta);
    const named: unknown[] = [this.ctx.id.toString(), g.meta.created_at, trees];
    // From the listing kept in memory: only the content of a file is read from storage.
    const current = this.files.current();
    const versions: number[] = [];
    paths = paths.map((path) => this.storedOr(path));
    trees = trees.map((dir) => this.storedOr(dir));
    const files = paths.map((path) => {
      const valid = checkWorkspacePath(path).ok;
      const version = valid ? current.version(path) : undefined;
      const kind = version ?? (valid && current.holds(path) ? "dir" : null);
      named.push(kind);
      versions.push(version ?? 0);
      return version ? this.files.content(path, version) : (kind as "dir" | null);
    });
    const listed = trees.map((dir) => (checkWorkspacePath(dir).ok ? current.below(dir, TREE_FILES) : null));
    named.push(listed);
    // Who else last changed each: a collaborator's customization is rendered as theirs (review 38), so the stamp a
    // render is kept by names it too (review 40: the writer's render, kept, went to the owner without the note).
    const budget = new CountBudget();
    const seen = paths.map((path, i) => {
      const data = files[i];
      return versions[i] && data instanceof Uint8Array ? this.othersIn(path, caller, g.access, budget, undefined, data) : undefined;
    });
    // A member's change that only removed lines is theirs too (review 104: a dropped "never" reversed the owner's
    // customization, rendered with no note), as a pull leaves it (review 62).
    const others = seen.map((s, i) => s?.others ?? (s?.changed_by_other ? [{ by: this.files.head(paths[i]!)!.author, lines: "some" }] : null));
    // And what others changed since the caller's own last version, which status names beside its documents.
    const changedSince = seen.map((s) => s?.changed_since ?? null);
    named.push(others, changedSince);
    // Installer answers someone else last set, rendered into the skill as config values.
    const answersByOthers = this.answersByOthers(g.meta, caller);
    named.push(answersByOthers);
    // A reader's render says they cannot save (review 254), so a writer's kept render is never theirs.
    const readOnly = g.access === "read" ? { name: g.meta.name, owner: g.meta.owner_label } : undefined;
    named.push(readOnly ?? null);
    return { ok: true, value: { stamp: sha256(new TextEncoder().encode(JSON.stringify(named))), files, versions, trees: listed, timeZone: g.meta.time_zone, others, ...(changedSince.some(Boolean) ? { changed_since: changedSince } : {}), ...(answersByOthers.length ? { answersByOthers } : {}), ...(readOnly ? { readOnly } : {}) } };
  }

  /** `edit`: bmad-files "edit"'s change, an "edit" in history (review 315: it read as a "write"). */
  write(caller: Caller, given: string, data: Uint8Array, text: TextWrite | undefined, ifVersion: number | undefined, now: string, alsoBy?: string[], edit?: true): DoResult<WrittenEntry> {
    const g = this.changing(caller, given);
    if (!g.ok) return g;
    const { path } = g;
    // Before any check that answers with the file's version or size (review 24: a limit's message gave a writer the
    // true size of a config whose served size hides a secret's length).
    const held = this.secretsHeld(g, path);
    if (held) return held;
    const { head } = g;
    const conflict = this.files.conflict(path, head, ifVersion, personOf(caller), zoneOf(g.meta));
    if (conflict) return conflict;
    const clash = head ? undefined : this.files.clash(path);
    if (clash) return fail("invalid", clash);
    const append = text === "append";
    // An empty file has nothing a text write keeps or refuses.
    const current = text && head?.size ? this.files.contentOf(path, head) : undefined;
    const notText = text && head && notUtf8Refusal(path, current, head.version, ifVersion !== undefined, text);
    if (notText) return fail("invalid", notText);
    // The file as it would be, an append's too: a secret split over two appends is still one (its line is new).
    const next = text ? textBytes(current, data, text, path) : data;
    const newSize = next.byteLength;
    // Past the file cap, who else filled the file, to restore from before them (their bytes read only then).
    const grown = newSize > MAX_FILE_BYTES && head ? this.files.grownBy(path, personOf(caller)) : undefined;
    const fits = checkWrite({ project: g.meta.name, path, ...this.totalsFor(g), oldSize: head?.size, newSize, grown });
    if (!fits.ok) return fail("limit", fits.error);
    // Judged whole, as the file would be (secretKeptOut says why).
    const secret = this.secretShown(path, next);
    if (secret) return secret;
    const share = this.othersShare(g, [{ path, size: newSize }]);
    if (share) return share;
    const room = this.room(g, [{ path, size: newSize, data: next }], now);
    if (room) return room;
    // Another's version followed by an append that named none: said, as a teammate's change it may not have read
    // (review 188: an append put a second "## Risks" after a member's, unsaid). A write says what it replaced.
    const unnamed = append ? this.followedUnnamed(path, caller, head, ifVersion) : this.replacedUnnamed(path, caller, head, ifVersion, next);
    const displaced = append ? undefined : this.displacedBy(path, caller, head, ifVersion);
    // A whole write's lines are its own; an edit named the text it changes.
    const unread = !edit && displaced ? { unread: displaced.person } : {};
    const entry = this.files.transaction(() => this.noted(path, caller, next, this.files.commit(path, next, edit ? "edit" : append && head ? "append" : "write", personOf(caller), now, { alsoBy: people(alsoBy), ...unread, collaborator: this.collaborator(g) }), displaced));
    return { ok: true, value: { ...entry, ...unnamed } };
  }

  /** Others' work a change that named no version (if_version) replaces, to say with it: the head's author, where another
   *  made it, and everyone else whose lines in it the change drops, each once (review 124: a PRD written back from an
   *  older read dropped a member's newer lines, unsaid; review 290: so did a restore, a delete, and a whole write over
   *  the writer's own later edit that had kept the member's line; review 322: a write over another's restore of the
   *  owner's text named only the restorer). */
  private replacedUnnamed(path: string, caller: Caller, head: AuthoredEntry | undefined, ifVersion: number | undefined, data: Uint8Array | null): { replaced?: { version: number; by: string } } {
    if (!head || ifVersion !== undefined) return {};
    const madeBy = this.files.changedByOther(path, personOf(caller)) ? [head.author] : [];
    const named = [...new Set([...madeBy, ...this.files.droppedByOthers(path, personOf(caller), data)])];
    return named.length ? { replaced: { version: head.version, by: named.join(", ") } } : {};
  }

  /** Whose head a change that named no version replaces, where another made it: they are told on their next read. */
  private displacedBy(path: string, caller: Caller, head: AuthoredEntry | undefined, ifVersion: number | undefined): { person: Person; version: number } | undefined {
    const person = head && ifVersion === undefined ? this.files.otherMaker(path, personOf(caller)) : undefined;
    return person && head && { person, version: head.version };
  }

  /** `entry`, the caller's change to `data`, with a note for whoever's version it displaced (DisplacedNotes.changed),
   *  and the caller's own note dropped where `data` holds the whole text of their displaced version (they put it back),
   *  in the change's transaction. */
  private noted<T extends { version: number }>(path: string, caller: Caller, data: Uint8Array, entry: T, displaced?: { person: Person; version: number }): T {
    this.displaced.changed(path, personOf(caller), entry.version, displaced);
    this.displaced.answered(path, personOf(caller), (version) => holdsWhole(data, this.files.content(path, version)));
    return entry;
  }

  /** Another's head that an append which named no version came after, to say with it. */
  private followedUnnamed(path: string, caller: Caller, head: AuthoredEntry | undefined, ifVersion: number | undefined): { followed?: { version: number; by: string } } {
    return head && ifVersion === undefined && this.files.changedByOther(path, personOf(caller)) ? { followed: { version: head.version, by: head.author } } : {};
  }

  /** A named edit (memlog-text.ts) applied to a text file as one step: read, changed and stored here, so no other
   *  write lands between (the object runs one call at a time, and this one does not wait on anything). Null, with
   *  nothing changed, where the edit does not apply: the caller's general path says why, as Python would. */
  editText(caller: Caller, given: string, edit: TextEdit, now: string, alsoBy?: string[]): DoResult<TextEdited | null> {
    const g = this.changing(caller, given);
    if (!g.ok) return g;
    const { path } = g;
    // As every other change (review 263: a member's memlog.py set replaced the owner's key in a data file).
    const held = this.secretsHeld(g, path);
    if (held) return held;
    const { head } = g;
    if (!head) return { ok: true, value: null };
    let edited: { text: string; entries: number };
    let before: Uint8Array;
    try {
      const stamp = memlogStamp(wallTimeIn(zoneOf(g.meta), new Date(now)));
      before = this.files.contentOf(path, head);
      edited = editMemlog(universalNewlines(decodeUtf8(before)), edit, stamp);
    } catch {
      return { ok: true, value: null };
    }
    const data = new TextEncoder().encode(edited.text);
    if (!checkWrite({ project: g.meta.name, path, ...this.totalsFor(g), oldSize: head.size, newSize: data.byteLength }).ok) return { ok: true, value: null };
    // Said here: the general path's write would refuse it the same way, a round trip later.
    const secret = this.secretShown(path, data);
    if (secret) return secret;
    if (this.othersShare(g, [{ path, size: data.byteLength }])) return { ok: true, value: null };
    if (this.room(g, [{ path, size: data.byteLength, data }], now)) return { ok: true, value: null };
    this.files.transaction(() => this.files.commit(path, data, "write", personOf(caller), now, { alsoBy: people(alsoBy), collaborator: this.collaborator(g) }));
    return { ok: true, value: { entries: edited.entries } };
  }

  /** A folder and its files in one transaction, refused whole when anything is at `dir` or a limit would be passed. */
  createFolder(caller: Caller, given: string, files: Array<{ path: string; data: Uint8Array }>, now: string, alsoBy?: string[]): DoResult<{ files: number }> {
    for (const path of [given, ...files.map((f) => `${given}/${f.path}`)]) {
      const checked = checkWritablePath(path);
      if (!checked.ok) return fail("invalid", checked.error);
    }
    const g = this.gate(caller, "write");
    if (!g.ok) return g;
    const stored = this.files.asStored(given);
    if (!stored.ok) return stored;
    const dir = stored.value;
    const paths = files.map((f) => `${dir}/${f.path}`);
    this.writeMemories(g.meta, dir);
    if (this.files.head(dir) || this.holdsFiles(dir)) return fail("conflict", `${dir} already exists.`);
    const clash = this.files.clash(dir, "folder") ?? batchClash(paths);
    if (clash) return fail("invalid", clash);
    const fits = checkWriteAll(g.meta.name, { ...this.totalsFor(g), sizes: new Map() }, files.map((f, i) => ({ path: paths[i]!, size: f.data.byteLength })));
    if (!fits.ok) return fail("limit", fits.error);
    for (const [i, f] of files.entries()) {
      const secret = this.secretShown(paths[i]!, f.data);
      if (secret) return secret;
    }
    const share = this.othersShare(g, files.map((f, i) => ({ path: paths[i]!, size: f.data.byteLength })));
    if (share) return share;
    const room = this.room(g, files.map((f, i) => ({ path: paths[i]!, size: f.data.byteLength, data: f.data })), now);
    if (room) return room;
    this.files.transaction(() => files.forEach((f, i) => this.files.commit(paths[i]!, f.data, "write", personOf(caller), now, { alsoBy: people(alsoBy), collaborator: this.collaborator(g) })));
    return { ok: true, value: { files: files.length } };
  }

  restore(caller: Caller, given: string, version: number, ifVersion: number | undefined, now: string): DoResult<WrittenEntry> {
    const writable = checkWritablePath(given);
    if (!writable.ok) return fail("invalid", writable.error);
    const from = this.read(caller, given, version);
    if (!from.ok) return from;
    const g = this.gate(caller, "write");
    if (!g.ok) return g;
    // As read found it: the file's stored name, where it was given in another Unicode form.
    const { path } = from.value;
    const held = this.secretsHeld(g, path, from.value.data);
    if (held) return held;
    this.writeMemories(g.meta, path);
    this.indexAsItIs(path);
    const head = this.files.head(path);
    const conflict = this.files.conflict(path, head, ifVersion, personOf(caller), zoneOf(g.meta), "restore");
    if (conflict) return conflict;
    // The file holds that content already: no copy of it is stored again.
    if (head?.sha256 === from.value.sha256) return { ok: true, value: head };
    const notText = head && notUtf8Refusal(path, this.files.contentOf(path, head), head.version, ifVersion !== undefined, "restore");
    if (notText) return fail("invalid", notText);
    const clash = head ? undefined : this.files.clash(path);
    if (clash) return fail("invalid", clash);
    const fits = checkWrite({ project: g.meta.name, path, ...this.totalsFor(g), oldSize: head?.size, newSize: from.value.size });
    if (!fits.ok) return fail("limit", fits.error);
    // A version kept from before secrets were refused does not come back as the file.
    const secret = this.secretShown(path, from.value.data);
    if (secret) return secret;
    const share = this.othersShare(g, [{ path, size: from.value.size }]);
    if (share) return share;
    const room = this.room(g, [{ path, size: from.value.size }], now);
    if (room) return room;
    const replaced = this.replacedUnnamed(path, caller, head, ifVersion, from.value.data);
    const displaced = this.displacedBy(path, caller, head, ifVersion);
    return { ok: true, value: { ...this.files.transaction(() => this.noted(path, caller, from.value.data, this.files.commit(path, from.value.data, "restore", personOf(caller), now, { restoredFrom: version, collaborator: this.collaborator(g) }), displaced)), ...replaced } };
  }

  remove(caller: Caller, given: string, ifVersion: number | undefined, now: string): DoResult<RemovedEntry> {
    const g = this.changing(caller, given);
    if (!g.ok) return g;
    const { path } = g;
    const held = this.secretsHeld(g, path);
    if (held) return held;
    const { head } = g;
    if (!head) return this.files.noFile(g.meta.name, path, personOf(caller), zoneOf(g.meta));
    const conflict = this.files.conflict(path, head, ifVersion, personOf(caller), zoneOf(g.meta), "delete");
    if (conflict) return conflict;
    const room = this.room(g, [{ path, size: 0 }], now);
    if (room) return room;
    const replaced = this.replacedUnnamed(path, caller, head, ifVersion, null);
    const entry = this.files.transaction(() => this.files.commit(path, null, "delete", personOf(caller), now, { collaborator: this.collaborator(g) }));
    return { ok: true, value: { path, version: entry.version, ...replaced } };
  }

  /** The project's files `glob` matches, past the gate for `need`; none is "not_found", its message ending `noneThen`. */
  private matching(caller: Caller, glob: string, need: "read" | "write", noneThen: string): DoResult<{ g: { meta: Meta; access: Access }; paths: string[] }> {
    const compiled = compilePathGlob(glob);
    if (!compiled.ok) return fail("invalid", compiled.error);
    const g = this.gate(caller, need);
    if (!g.ok) return g;
    this.writeMemories(g.meta);
    const { paths } = this.files.current().match(compiled.glob);
    if (compiled.glob.exhausted) return fail("invalid", tooCostly(compiled.glob, `${g.meta.name}'s files`));
    if (!paths.length) return fail("not_found", `No file of project "${g.meta.name}" matches "${printable(glob)}"${noneThen}`);
    return { ok: true, value: { g, paths } };
  }

  /** Deletes the files `glob` matches that the caller may delete (remove's checks), at most MAX_LISTED of them, each a
   *  deletion in its history, in one transaction: how a folder full of files is cleared (review 177: a member's 999
   *  files took the owner 999 deletes). `more`: deletable ones past the cap; `held`: matches the caller may not delete. */
  removeMatching(caller: Caller, glob: string, now: string): DoResult<{ files: number; more: number; held: number }> {
    const matched = this.matching(caller, glob, "write", ": nothing was deleted. bmad-files \"list\" with that glob shows what it matches.");
    if (!matched.ok) return matched;
    const { g, paths } = matched.value;
    // Only files members last changed: a model steered into `delete "**"` takes no file of the owner's own work (those
    // go one by one, each a call the user sees); the owner clears what members filled, a member what members wrote.
    const members = this.files.heldByOthers(g.meta.owner, g.meta.owner_label);
    // Nor BMAD's config files, which a member's config answer makes theirs (review 180: `_bmad/**` took the project's setup).
    const deletable = paths.filter((path) => members.has(path) && !isConfigShaped(path) && checkWritablePath(path).ok && !this.secretsHeld(g, path));
    const doing = deletable.slice(0, MAX_LISTED);
    const room = this.room(g, doing.map((path) => ({ path, size: 0 })), now);
    if (room) return room;
    for (const path of doing) this.indexAsItIs(path);
    this.files.transaction(() => doing.forEach((path) => this.files.commit(path, null, "delete", personOf(caller), now, { collaborator: this.collaborator(g) })));
    return { ok: true, value: { files: doing.length, more: deletable.length - doing.length, held: paths.length - deletable.length } };
  }

  /** A page of the file's versions, newest first (workspace/store.ts HistoryPage); at most MAX_LISTED whatever is asked. */
  history(caller: Caller, given: string, page: HistoryPage = {}): ZonedResult<VersionEntry[]> {
    const checked = checkWorkspacePath(given);
    if (!checked.ok) return fail("invalid", checked.error);
    const g = this.gate(caller, "read");
    if (!g.ok) return g;
    const stored = this.files.asStored(given);
    if (!stored.ok) return stored;
    const path = stored.value;
    this.writeMemories(g.meta, path);
    const versions = this.files.history(path, page.before, Math.min(page.limit ?? HISTORY_PAGE, MAX_LISTED));
    // A page past the oldest version is empty, not a missing file.
    return versions.length || (page.before !== undefined && this.files.lastVersion(path)) ? zoned({ ok: true, value: versions }, g.meta) : this.files.noFile(g.meta.name, path, personOf(caller), zoneOf(g.meta));
  }

  /** The files `glob` matches, the newest change first, at most HISTORY_PAGE of them (`more`: those past it), each
   *  with what others changed since the caller's own last version: what changed across files, in one call. */
  changes(caller: Caller, glob: string): ZonedResult<{ files: ChangedFile[]; more: number }> {
    const matched = this.matching(caller, glob, "read", ". bmad-files \"list\" with \"**\" lists them all.");
    if (!matched.ok) return matched;
    const { g, paths } = matched.value;
    const heads = paths.map((path) => this.files.head(path)!).sort((a, b) => b.updated_at.localeCompare(a.updated_at) || a.path.localeCompare(b.path));
    // Not marked seen: history is asked what changed, and answers it each time it is asked.
    const budget = new CountBudget();
    const files = heads.slice(0, HISTORY_PAGE).map((head): ChangedFile => {
      const since = this.changedSince(head.path, caller, g.access, budget);
      return { path: head.path, version: head.version, author: head.author, at: head.updated_at, ...(since ? { changed_since: since } : {}) };
    });
    return zoned({ ok: true, value: { files, more: heads.length - files.length } }, g.meta);
  }

  /** Purges the earlier versions of the files `glob` matches (workspace-versions.ts purge). Owner only: nobody else
   *  can make a replaced or deleted file's content go before its time. */
  async purge(caller: Caller, glob: string): Promise<DoResult<{ versions: number; bytes: number; until: string }>> {
    const g = this.ownersHistory(caller, glob, "purge");
    if (!g.ok) return g;
    this.writeMemories(g.meta);
    const now = new Date().toISOString();
    const purged = this.files.purge(g.glob, now);
    await this.wakeAt(Date.parse(this.undoneBy(now)));
    return { ok: true, value: { ...purged, until: this.undoneBy(now) } };
  }

  /** Brings back what purge took from the files `glob` matches (only `version`, where given), while it is kept. */
  unpurge(caller: Caller, glob: string, version?: number): DoResult<{ versions: number; bytes: number }> {
    const g = this.ownersHistory(caller, glob, "unpurge");
    return g.ok ? { ok: true, value: this.files.unpurge(g.glob, version) } : g;
  }

  /** The project and `glob` compiled, for what only its owner does to its history. */
  private ownersHistory(caller: Caller, glob: string, what: "purge" | "unpurge"): { ok: true; meta: Meta; glob: Glob } | DoError {
    const compiled = compilePathGlob(glob);
    if (!compiled.ok) return fail("invalid", compiled.error);
    const g = this.gate(caller, "read");
    if (!g.ok) return g;
    if (g.access !== "owner") return fail("denied", `Only the owner of "${g.meta.name}" (${g.meta.owner_label}) can ${what} its history.`);
    return { ok: true, meta: g.meta, glob: compiled.glob };
  }

  /** When what was purged or deleted at `at` goes for good. */
  private undoneBy(at: string): string {
    return new Date(Date.parse(at) + this.files.undoMs).toISOString();
  }

  /** The alarm at `due`, or earlier where one is set. */
  private async wakeAt(due: number): Promise<void> {
    const set = await this.ctx.storage.getAlarm();
    if (set === null || set > due) await this.ctx.storage.setAlarm(due);
  }

  /** What was purged or deleted longer ago than UNDO_DAYS goes: purged content, or the deleted project whole. */
  override async alarm(): Promise<void> {
    const meta = this.meta();
    if (!meta) return;
    if (meta.deleted_at && Date.parse(this.undoneBy(meta.deleted_at)) <= Date.now()) {
      // The memories' embeddings go first: once the tables are gone nothing names them. Vectorize down, try again in an hour.
      const vectors = memoryVectors(this.env, this.ctx.id.toString());
      if (vectors && !(await vectors.remove(memoryIds(this.ctx.storage.sql)).then(() => true, () => false))) {
        await this.ctx.storage.setAlarm(Date.now() + 3_600_000);
        return;
      }
      // Judged again after the wait: an undelete answered meanwhile keeps the project (review 67).
      const still = this.meta();
      if (vectors && !(still?.deleted_at && Date.parse(this.undoneBy(still.deleted_at)) <= Date.now())) return;
      this.ready = false;
      this.files.reset();
      this.displaced.reset();
      this.seen.reset();
      await this.ctx.storage.deleteAll();
      // Gone for good: no longer among the projects its owner's limit counts.
      const index = (this.env as Env).WORKSPACE_INDEX;
      await index.get(index.idFromName(`user:${meta.owner}`)).settle(meta.name, { state: "none", seq: Date.now() * 1000 - 1 });
      return;
    }
    const next = [this.files.dropPurged(Date.now()), meta.deleted_at ? Date.parse(this.undoneBy(meta.deleted_at)) : undefined].filter((t): t is number => t !== undefined);
    if (next.length) await this.ctx.storage.setAlarm(Math.min(...next));
  }

  list(caller: Caller, glob = "**"): DoResult<ListingColumns> {
    const compiled = compilePathGlob(glob);
    if (!compiled.ok) return fail("invalid", compiled.error);
    const g = this.gate(caller, "read");
    if (!g.ok) return g;
    this.writeMemories(g.meta);
    const listed = this.files.current().match(compiled.glob);
    return compiled.glob.exhausted ? fail("invalid", tooCostly(compiled.glob, `${g.meta.name}'s files`)) : { ok: true, value: listed };
  }

  stat(caller: Caller, given: string): DoResult<"file" | "dir" | "missing"> {
    const g = this.gate(caller, "read");
    if (!g.ok) return g;
    this.writeMemories(g.meta, given);
    if (given === "") return { ok: true, value: "dir" };
    const checked = checkWorkspacePath(given);
    if (!checked.ok) return { ok: true, value: "missing" };
    const stored = this.files.asStored(given);
    if (!stored.ok) return stored;
    const path = stored.value;
    if (this.files.head(path)) return { ok: true, value: "file" };
    return { ok: true, value: this.holdsFiles(path) ? "dir" : "missing" };
  }

  /** Whether some file is below `dir` (so the folder exists: folders are implicit). */
  private holdsFiles(dir: string): boolean {
    return this.sql.exec("SELECT 1 FROM files WHERE path > ? AND path < ? LIMIT 1", `${dir}/`, `${dir}0`).toArray().length > 0;
  }

  children(caller: Caller, dir: string): DoResult<string[]> {
    const g = this.gate(caller, "read");
    if (!g.ok) return g;
    this.writeMemories(g.meta, dir);
    if (dir !== "" && !checkWorkspacePath(dir).ok) return { ok: true, value: [] };
    if (dir !== "") dir = this.storedOr(dir);
    const prefix = dir ? `${dir}/` : "";
    const rows = dir
      ? this.sql.exec<{ path: string }>("SELECT path FROM files WHERE path > ? AND path < ?", prefix, `${dir}0`).toArray()
      : this.sql.exec<{ path: string }>("SELECT path FROM files").toArray();
    return { ok: true, value: [...new Set(rows.map((r) => r.path.slice(prefix.length).split("/")[0]!))].sort() };
  }

  /** New installer answers and the files they change, as one step. */
  configure(caller: Caller, read: InstallerAnswers, answers: InstallerAnswers, given: Array<{ path: string; data: Uint8Array; before?: string }>, now: string, timeZone?: string): DoResult<Configured> {
    const g = this.gate(caller, "write");
    if (!g.ok) return g;
    // Compare-and-set: the answers these were made from are still the project's (review 99: two members' answers at
    // once, and one's went back to its old value, credited to the other).
    const stored = flatAnswers(JSON.parse(g.meta.answers) as InstallerAnswers);
    const base = flatAnswers(read);
    if (stored.size !== base.size || [...stored].some(([key, value]) => base.get(key) !== value)) return fail("conflict", `The answers of "${g.meta.name}" changed since they were read: read them again.`);
    const merged = this.withHandEdits(caller, given);
    if (!merged.ok) {
      // A file the caller may not change says so first, not how to edit it (review 306: a member was told to edit a
      // config that holds the owner's secrets).
      for (const f of given) {
        const held = this.secretsHeld(g, f.path);
        if (held) return held;
      }
      return merged;
    }
    const { files, kept } = merged.value;
    const changed = files.filter((f) => this.files.head(f.path)?.sha256 !== sha256(f.data));
    for (const f of changed) {
      const checked = checkWorkspacePath(f.path);
      if (!checked.ok) return fail("invalid", checked.error);
      const clash = this.files.head(f.path) ? undefined : this.files.clash(f.path);
      if (clash) return fail("invalid", clash);
    }
    for (const f of changed) {
      const held = this.secretsHeld(g, f.path);
      if (held) return held;
    }
    const room = this.room(g, changed.map((f) => ({ path: f.path, size: f.data.byteLength, data: f.data })), now);
    if (room) return room;
    const sizes = new Map(changed.map((f) => [f.path, this.files.head(f.path)?.size]).filter((e): e is [string, number] => e[1] !== undefined));
    const fits = checkWriteAll(g.meta.name, { ...this.totalsFor(g), sizes }, changed.map((f) => ({ path: f.path, size: f.data.byteLength })));
    if (!fits.ok) return fail("limit", fits.error);
    const share = this.othersShare(g, changed.map((f) => ({ path: f.path, size: f.data.byteLength })));
    if (share) return share;
    // Each answer is the last setter's: one a collaborator set stays theirs when the owner changes another (review 40:
    // the owner's change of user_name rewrote the config as theirs, and the collaborator's value went unnamed).
    const before = flatAnswers(JSON.parse(g.meta.answers) as InstallerAnswers);
    const after = flatAnswers(answers);
    const authors = new Map(Object.entries(answerAuthors(g.meta)));
    for (const [key, value] of after) if (before.get(key) !== value) authors.set(key, caller.label);
    for (const key of authors.keys()) if (!after.has(key)) authors.delete(key);
    const entries = answerLines(after, authors, personOf(caller), { id: g.meta.owner, label: g.meta.owner_label });
    this.files.transaction(() => {
      this.sql.exec("UPDATE meta SET answers = ?, answer_authors = ? WHERE id = 1", JSON.stringify(answers), JSON.stringify(Object.fromEntries(authors)));
      // Its setter too, as an answer's (review 454: a writer's zone showed as the owner's), whoever gives it last (review
      // 461: the owner's setting the zone a writer set still named the writer).
      if (timeZone !== undefined) this.sql.exec("UPDATE meta SET time_zone = ?, time_zone_by = ? WHERE id = 1", timeZone, g.access === "owner" ? null : caller.label);
      for (const f of changed) this.files.commit(f.path, f.data, "config", personOf(caller), now, { entries, collaborator: this.collaborator(g) });
    });
    const keptIn = kept.filter((k) => changed.some((f) => f.path === k.path));
    return { ok: true, value: { changed: changed.map((f) => f.path), ...(keptIn.length ? { kept: keptIn } : {}) } };
  }

  /** The config files as the new answers make them, each one edited by hand since the old answers made it with only
   *  the answers' lines changed (review 295-2: a member's answer threw the owner's edits away, unsaid), and who made
   *  those edits: the labels of its lines the old answers did not make. Refused whole where a changed line cannot be
   *  placed. */
  private withHandEdits(caller: Caller, given: Array<{ path: string; data: Uint8Array; before?: string }>): DoResult<{ files: Array<{ path: string; data: Uint8Array }>; kept: Array<{ path: string; by: string[] }> }> {
    const files: Array<{ path: string; data: Uint8Array }> = [];
    const kept: Array<{ path: string; by: string[] }> = [];
    for (const { path, data, before } of given) {
      const head = this.files.head(path);
      if (!head || before === undefined || head.sha256 === sha256(new TextEncoder().encode(before))) {
        files.push({ path, data });
        continue;
      }
      const merged = mergeConfigEdits(path, this.files.text(path)!, before, new TextDecoder().decode(data));
      if (!merged.ok) {
        const [why, fix] = "unparsed" in merged
          ? [`with this answer it would not parse (${merged.unparsed}), so the answer would not take effect`, "Make it parse again"]
          : "key" in merged
            ? [`a parser reads its key ${merged.key} there otherwise than this answer sets it (the key is set again, spelled another way), so the answer would not take effect`, `Remove the other setting of ${merged.key}`]
            : merged.table !== undefined
              ? [`the line ${JSON.stringify(merged.line)} this answer sets would not be under its table [${merged.table}] there (a hand edit moved it), so the answer would not take effect`, `Move that key back under [${merged.table}]`]
              : merged.repeated
                ? [`repeats the key of ${JSON.stringify(merged.line)} after it, which is the value a reader takes: the answer would not take effect`, "Remove the repeated key"]
                : (merged.times ?? 0) > 1
                  ? [`its line ${JSON.stringify(merged.line)}, which this answer changes, is in it ${merged.times} times, so which one to change cannot be told`, "Keep one of them"]
                  : [`its line ${JSON.stringify(merged.line)}, which this answer changes, is not in it (taken out or changed), so the answer cannot be applied without losing those edits`, "Put that line back as it was"];
        return fail("invalid", `${path} was edited by hand since the installer wrote it, and ${why}. Nothing was changed. ${fix} with bmad-files "edit", then set the answer again.`);
      }
      files.push({ path, data: new TextEncoder().encode(merged.text) });
      // Named by their people; lines only the installer wrote (a create's `# Date:` a moment before the project's
      // created_at, which `before` is made at) are nobody's edits, nor is a line taken out named.
      const made = new Set(before.split("\n"));
      const by = new Set((this.files.storedLineAuthors(path) ?? []).filter((l) => !made.has(l.line)).flatMap((l) => l.labels));
      if (by.size) kept.push({ path, by: [...by].map((label) => (label === caller.label ? "you" : label)) });
    }
    return { ok: true, value: { files, kept } };
  }

  /** Grants, changes or (with "none") revokes a share. Owner only. */
  share(caller: Caller, handle: string, access: ShareAccess, now: string): DoResult<{ previous: ShareAccess; withdrawn: string[]; unnamed: string[]; owner: string; owner_label: string; name: string; indexes: string[] }> {
    const g = this.gate(caller, "owner");
    if (!g.ok) return g;
    const shares = this.shares.all();
    if (access !== "none" && !shares.some((s) => s.handle === handle) && shares.length >= MAX_SHARES) {
      return { ok: false, kind: "limit", error: `Project "${g.meta.name}" is shared with ${MAX_SHARES} people, the most one project may be: withdraw a share first (access "none").` };
    }
    const { previous, withdrawn, unnamed } = this.shares.set(handle, access, now);
    // The indexes that list the share now: its handle's, and its person's where it was accepted.
    const indexes = ProjectShares.indexesOf(this.shares.of([handle]));
    return { ok: true, value: { previous, withdrawn, unnamed, owner: g.meta.owner, owner_label: g.meta.owner_label, name: g.meta.name, indexes } };
  }

  /** The recipient accepts or declines the shares offered to their handles (declining an accepted one leaves
   *  the project). Only someone a share names sees the project here: anyone else gets "no project". */
  answerShare(caller: Caller, accept: boolean): DoResult<{ name: string; owner: string; owner_label: string; access: "read" | "write"; handles: string[] }> {
    const meta = this.meta();
    const offered = meta && meta.owner !== caller.id ? this.shares.ofPerson(caller.handles, caller.id) : [];
    if (!meta || !offered.length) return NO_PROJECT;
    this.shares.answer(caller.handles, accept, caller.id);
    const access = offered.some((s) => s.access === "write") ? "write" : "read";
    return { ok: true, value: { name: meta.name, owner: meta.owner, owner_label: meta.owner_label, access, handles: offered.map((s) => s.handle) } };
  }

  /** The share this project holds for `person`, who holds `handles` (null: none, or no project): what a share
   *  index's row is checked against when listed, since a change cut short between the two may leave the index behind. */
  shareFor(handles: string[], person: string): { access: "read" | "write"; accepted: boolean } | null {
    const offered = this.meta() ? this.shares.ofPerson(handles, person) : [];
    if (!offered.length) return null;
    return { access: offered.some((s) => s.access === "write") ? "write" : "read", accepted: offered.some((s) => s.accepted) };
  }

  /** Project memory (memory-sql.ts), behind the same access check as the files: remembering needs write access. */
  async memory(caller: Caller, op: MemoryOp): Promise<DoResult<unknown>> {
    const g = this.gate(caller, op.op === "remember" ? "write" : "read");
    if (!g.ok) return g;
    const now = new Date().toISOString();
    const by = { label: caller.label, owner: g.meta.owner_label, retag: g.access === "owner", room: (path: string, bytes: number) => this.room(g, [{ path, size: bytes }], now)?.error };
    const entryAuthors = new Map<string, Map<string, string>>();
    const lineLabels = new Map<string, string[][]>();
    const out = await runMemoryOp(this.ctx.storage, op, {
      list: () => this.sql.exec<{ path: string; sha256: string }>("SELECT path, sha256 FROM files WHERE path > ? AND path < ?", `${MEMORY_DIR}/`, `${MEMORY_DIR}0`).toArray(),
      read: (path) => this.files.text(path),
      size: (path) => this.files.head(path)?.size,
      // The server's own write of remembered memories names no person: each memory in it keeps its rememberer.
      author: (path) => {
        const author = this.files.head(path)?.author;
        return author === SERVER_MERGE ? undefined : author;
      },
      entryAuthor: (path, id) => {
        // Each file's lines read once for all its memories (a lookup per memory read the file per memory).
        let ids = entryAuthors.get(path);
        if (!ids) entryAuthors.set(path, (ids = memoryAuthors(this.files.storedLineAuthors(path) ?? [], g.meta.owner_label)));
        return ids.get(id);
      },
      spanAuthor: (path, from, to) => {
        let labels = lineLabels.get(path);
        if (!labels) lineLabels.set(path, (labels = this.files.labelsByLine(path) ?? []));
        return credited(labels.slice(from - 1, to).flat(), g.meta.owner_label);
      },
    }, memoryVectors(this.env, this.ctx.id.toString()), by);
    return out.ok ? out : fail("invalid", out.error);
  }

  /** A structured memory file a person left is indexed as theirs before any change replaces it: its lines are credited
   *  to whoever wrote the version they came in, not to whoever changed the file next (review 46). */
  private indexAsItIs(path: string): void {
    if (!structuredType(path)) return;
    const head = this.files.head(path);
    if (!head || head.author === SERVER_MERGE) return;
    prepareMemory(this.ctx.storage);
    indexAsWritten(this.ctx.storage, path, head.sha256, this.files.text(path) ?? "", head.author);
  }

  /** Memories remembered since their structured file was last written go into it first (workspace-memory-files.ts). */
  private writeMemories(meta: Meta, path?: string): void {
    writePendingMemories(this.ctx.storage, this.files, meta.name, path);
  }

  /** Deletes the project: from now on it answers as not there, its shares withdrawn, and UNDO_DAYS later (the alarm)
   *  it goes with everything in it; until then its owner can undelete it. Owner only; `confirm` must be its name.
   *  Returns whom it was shared with. */
  async destroy(caller: Caller, confirm: string): Promise<DoResult<{ name: string; files: number; handles: string[]; until: string }>> {
    const g = this.gate(caller, "owner");
    if (!g.ok) return g;
    if (confirm !== g.meta.name) return fail("invalid", `To delete "${g.meta.name}" and all its files and history, pass confirm: "${g.meta.name}".`);
    const handles = ProjectShares.indexesOf(this.shares.all());
    const { files } = this.files.totals();
    const now = new Date().toISOString();
    this.files.transaction(() => {
      this.sql.exec("DELETE FROM shares");
      this.sql.exec("UPDATE meta SET deleted_at = ?, standing_seq = ? WHERE id = 1", now, nextStanding(g.meta));
    });
    await this.wakeAt(Date.parse(this.undoneBy(now)));
    return { ok: true, value: { name: g.meta.name, files, handles, until: this.undoneBy(now) } };
  }

  /** A project its owner deleted, as it was, unshared. */
  undelete(caller: Caller): DoResult<ProjectInfo> {
    const meta = this.meta();
    if (!meta || meta.owner !== caller.id) return NO_PROJECT;
    if (!meta.deleted_at) return fail("conflict", `"${meta.name}" is not deleted.`);
    this.sql.exec("UPDATE meta SET deleted_at = NULL, standing_seq = ? WHERE id = 1", nextStanding(meta));
    return this.info(caller);
  }

  /** Where the project stands for its owner's index (workspace-index-do.ts settle): live, deleted and kept, or not there. */
  standing(caller: Caller): Standing {
    const meta = this.meta();
    // Not there: a word later than any this project gave before its storage went, and earlier than its next create.
    if (!meta || meta.owner !== caller.id) return { state: "none", seq: Date.now() * 1000 - 1 };
    const seq = meta.standing_seq ?? 0;
    return meta.deleted_at ? { state: "deleted", seq, until: this.undoneBy(meta.deleted_at) } : { state: "live", seq, created_at: meta.created_at };
  }
}

/** Who wrote each memory of a structured file, by memory id: of everyone who wrote a part of a line holding it,
 *  someone other than the owner first (a line two people wrote is named by the other, never laundered as the owner's). */
function memoryAuthors(lines: Array<{ line: string; labels: string[] }>, ownerLabel: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const { line, labels } of lines) {
    const id = memoryIdOf(line);
    const label = credited(labels, ownerLabel);
    if (id === undefined || label === undefined) continue;
    const was = out.get(id);
    if (was === undefined || was === ownerLabel) out.set(id, label);
  }
  return out;
}

/** Whom a memory written by `labels` is credited to: someone other than the owner first, so that text two people
 *  wrote is never laundered as the owner's. */
const credited = (labels: string[], ownerLabel: string): string | undefined => labels.find((l) => l !== ownerLabel) ?? labels[0];

/** The caller as versions name authors: by user id, since two sign-ins can share a label (review 43 N5). */
const personOf = (caller: Caller): Person => ({ id: caller.id, label: caller.label });

/** Others whose lines a script read, named with what it writes (by label: an answer names them so). The Worker's
 *  own runtime passes them, never a tool's arguments; bounded all the same. */
const people = (labels: unknown): Person[] =>
  Array.isArray(labels) ? [...new Set(labels.filter((l): l is string => typeof l === "string" && l.length > 0 && l.length <= 320))].slice(0, 50).map((label) => ({ label })) : [];

/** A config file's lines as answers: each `key:` or `key =` line is its answer's, credited to whoever last set it, so a
 *  config written again (a collaborator's answer kept when the owner changes another, or the file deleted and made
 *  anew) names that line theirs (review 53: the owner's regenerated file carried the writer's user_name as theirs). A
 *  key several modules answer is credited to someone other than the owner first. */
function answerLines(answers: Map<string, string>, setters: Map<string, string>, caller: Person, owner: Person): EntryLines {
  const who = new Map<string, Person>();
  // Others' values, wherever the installer fills one in (`planning_artifacts = "{project-root}/<output_folder>/…"`):
  // the line holding it is theirs too (review 63: it was the owner's alone).
  // As written, and escaped as TOML's and YAML's double-quoted strings write it (`out\"x`: review 65).
  const filled: Array<{ forms: [string, string]; person: Person }> = [];
  for (const [key, json] of answers) {
    const label = setters.get(key) ?? owner.label;
    const person = label === caller.label ? caller : label === owner.label ? owner : { label };
    const bare = key.slice(key.indexOf(".") + 1);
    if (!who.has(bare) || who.get(bare)!.label === owner.label) who.set(bare, person);
    const value = String(JSON.parse(json));
    if (label !== owner.label && value.trim().length >= 2) filled.push({ forms: [value, JSON.stringify(value).slice(1, -1)], person });
  }
  return {
    key: (line) => /^\s*["']?([A-Za-z_][\w.-]*)["']?\s*[:=]/.exec(line)?.[1],
    newBy: (key) => who.get(key),
    alsoBy: (line) => filled.filter((f) => f.forms.some((form) => line.includes(form))).map((f) => f.person),
  };
}

/** Installer answers as `module.key` -> value. */
function flatAnswers(answers: InstallerAnswers): Map<string, string> {
  return new Map(Object.entries(answers).flatMap(([module, values]) => Object.entries(values).map(([key, value]): [string, string] => [`${module}.${key}`, JSON.stringify(value)])));
}

/** Who last set each answer someone other than the owner set (answers not named: the owner's). */
function answerAuthors(meta: Meta): Record<string, string> {
  if (!meta.answer_authors) return {};
  const parsed = z.record(z.string(), z.string()).safeParse(JSON.parse(meta.answer_authors));
  return parsed.success ? Object.fromEntries(Object.entries(parsed.data).filter(([, who]) => who !== meta.owner_label)) : {};
}
