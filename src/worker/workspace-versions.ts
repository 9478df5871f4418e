// A project's files and every version of them, in its workspace object's SQLite: the head of each file, each
// version's content, and the listing, read once and then kept in step with every change. Content a change
// replaced or deleted is kept at least HISTORY_RETENTION_DAYS, whoever made the change: the history cap drops
// only content replaced longer ago, and a change that would pass the cap with nothing that old is refused
// (the owner may purge). The workspace object checks access and limits; this stores.
import { createHash } from "node:crypto";
import { closestFiles, suggestion } from "../core/catalog/closest.js";
import { zonedTime } from "../core/runtime/time-zone.js";
import { folderFull, folderOf, MAX_HISTORY_BYTES, MIB, type GrownBy } from "../core/workspace/limits.js";
import { folderNotFile, shownPath, showTwins, TWIN_DIFFERENCE, unicodeTwinsRefusal, unportableName } from "../core/workspace/paths.js";
import type { AuthoredEntry, DeletedFile, FileContent, FileEntry, ListedFile, VersionEntry, VersionOp, WsError, WsResult } from "../core/workspace/store.js";
import { FileListing } from "./workspace-listing.js";
import { PureMemo } from "./pure-memo.js";
import { FoldedNames } from "../core/workspace/folded-names.js";
import type { Glob } from "../core/catalog/glob.js";
import { CountBudget, countedLines, linesChanged, SHOWN_AUTHORS, SHOWN_VERSIONS, type ChangedSince } from "../core/workspace/changed-since.js";
import * as z from "zod";
import { allBy, authorsByLine, authorsByStoredLine, byOthers, carryAuthors, droppedBy, matchLines, samePerson, soleAuthor, splitLines, type ByOthers, type EntryLines, type LineAuthors, type Person, type UnreadLines } from "../core/workspace/line-authors.js";

/** How long content a change replaced or deleted is kept before the history cap may drop it. */
export const HISTORY_RETENTION_DAYS = 30;
/** How long what an owner purged or deleted can be brought back: a model steered by what it read holds the owner's
 *  token, so nothing it sends erases history at once. */
export const UNDO_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;
/** What a version row takes besides its content and path: who and when, its digest and numbers, SQLite's keeping of a
 *  row. Every version counts against the history cap, a deletion too (review 236: a loop writing and deleting empty
 *  files at long paths grew a project's storage ~3 KB a round, counted nowhere, until its object stopped working). */
const ROW_BYTES = 512;
/** The bytes of a `versions v` row that go with its content: the content it stores (what it adds, where it extends
 *  the version before it) and who wrote each line of it. */
const HELD = "(ifnull(length(v.data), 0) + ifnull(length(v.lines), 0))";
/** A `versions` row whose content can still be read (not dropped by the cap, not purged). */
const KEPT = "(data IS NOT NULL AND pruned = 0 AND purged_at IS NULL)";
/** Rows (of `table`, such as "v."; "" for the FROM's one table) a person made, told apart as samePerson tells them: by
 *  id where both have one, else by label. `id` and `label` are the SQL parameters holding theirs (`hasId`: the person
 *  has an id). Never NULL, so its NOT is sound. */
const madeBy = (hasId: boolean, id: string, label: string, table = "") =>
  hasId ? `((${table}author_id IS NOT NULL AND ${table}author_id = ${id}) OR (${table}author_id IS NULL AND ${table}author = ${label}))` : `${table}author = ${label}`;
/** Rows someone other than the owner made, the owner's id and label given as parameters (an owner has an id). */
const notOwners = (table: string) => `NOT ${madeBy(true, "?", "?", table)}`;
/** Versions stored as what they add at most in a row before one is stored whole: a read of any version reads at most
 *  this many rows (and never more bytes than the version holds). */
const MAX_CHAIN = 256;
/** Results kept by the memos of line counts and others' lines (PureMemo), and the longest key kept (a file's stored line
 *  authors are part of one): at most 256 × 16 K characters of keys a project. */
const MEMO_RESULTS = 256;
const MEMO_KEY = 16 * 1024;
/** The bytes of a `versions v` row that stay while the row does: its path twice (the row and its key) and the rest. */
const BARE = `(2 * length(CAST(v.path AS BLOB)) + ${ROW_BYTES})`;
/** The bytes dropping a `versions v` row the cap may drop is sure to free: who wrote its lines, and its content where
 *  no version is built on it (one that is takes the content over: dropContent). A chain's content counts only at its
 *  end, so a change room() lets in never takes the history past the cap (review 344: a chain's bytes were counted as
 *  freed while they moved into its head, and a write took the history 29% over). */
const FREED = `(ifnull(length(v.lines), 0) + CASE WHEN EXISTS (SELECT 1 FROM versions d WHERE d.path = v.path AND d.base = v.version) THEN 0 ELSE length(v.data) END)`;
/** Files whose current content is kept in memory at most (VersionedFiles.kept), their bytes at most, and the largest
 *  kept: a memlog may reach 1 MiB, and a project object's memory is 128 MB. */
const KEPT_FILES = 64;
const KEPT_BYTES = 8 * MIB;
const KEPT_FILE_BYTES = MIB;
/** A version stored as what it adds (`added`) on top of `base`, the `links`-th of its chain. */
type Extension = { base: number; added: Uint8Array; links: number };

/** Bytes as the history's messages show them. */
const mib = (x: number) => `${Math.round((x / 1024 / 1024) * 10) / 10} MiB`;

type Row = Record<string, SqlStorageValue>;

const HEAD_COLUMNS = "path, version, size, sha256, updated_at, author";
/** A file's row set again, but for its path, from the row its INSERT named (`excluded`). */
const FILE_UPDATE = "version = excluded.version, size = excluded.size, sha256 = excluded.sha256, updated_at = excluded.updated_at, author = excluded.author, author_id = excluded.author_id, lines = excluded.lines";
export const fail = (kind: WsError["kind"], error: string): WsError => ({ ok: false, kind, error });
export const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");
const buffer = (data: Uint8Array): ArrayBuffer => data.slice().buffer as ArrayBuffer;
const bytes = (value: SqlStorageValue): Uint8Array => (value instanceof ArrayBuffer ? new Uint8Array(value) : new Uint8Array(0));
/** `parts` one after another, in one array. */
function joined(parts: Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  parts.reduce((at, p) => (whole.set(p, at), at + p.byteLength), 0);
  return whole;
}

export class VersionedFiles {
  private readonly sql: SqlStorage;
  /** Read on first use, then kept in step with every change (dropped if a change fails part way): see current(). */
  private listing?: FileListing;
  /** Content bytes kept across all versions before the oldest earlier versions are pruned (a field so tests can lower it). */
  historyCap = MAX_HISTORY_BYTES;
  /** How long replaced content is kept from the cap (a field so tests can lower it). */
  retentionMs = HISTORY_RETENTION_DAYS * DAY_MS;
  /** Versions stored as what they add in a row at most (a field so tests can lower it). */
  chainCap = MAX_CHAIN;
  /** How long purged content can be brought back (a field so tests can lower it). */
  undoMs = UNDO_DAYS * DAY_MS;
  /** Lines added and removed between two texts, by their sha256s (changedSince). */
  private readonly counted = new PureMemo<{ added: number; removed: number }>(MEMO_RESULTS, MEMO_KEY);
  /** byOthers of a version, by the reader, its text's sha256 and its stored line authors. */
  private readonly others = new PureMemo<ByOthers>(MEMO_RESULTS, MEMO_KEY);
  /** The content of each file's version last written or read (contentOf), oldest first, and their bytes: a write reads
   *  its file's whole text (an append's before, a text write's current), which was rebuilt from its chain of versions
   *  each time (review 471: a fifth of a write's time, of an append's). Told by version and sha256 both: a number can
   *  name other content after the project's deletion or a change rolled back, a digest cannot. Never changed in place:
   *  every reader only reads the bytes, and answers leave the object as copies. */
  private readonly kept = new Map<string, { version: number; sha256: string; data: Uint8Array }>();
  private keptBytes = 0;

  constructor(private readonly storage: DurableObjectStorage) {
    this.sql = storage.sql;
  }

  /** The tables. A version whose content begins with the whole of the version before it (`base`: an append, or a
   *  rewrite that only adds at the end, as memlog.py's) stores only what it adds (review 341: each 16-byte append to
   *  a 950 KB memlog stored 950 KB, and 197 of them locked the owner out of their project). The bytes of history kept
   *  are counted in the project's `meta` row (`history_bytes`). A version
   *  purged (`purged_at`) is unreadable at once, and its content goes UNDO_DAYS later; counted until then, and never
   *  dropped by the cap, so that an unpurge always fits and purging makes no room to pad with (review 34: 205 writes
   *  of 1 MiB, each purged, made the first purge's unpurge too big ever to fit, and its PRD went for good). */
  createTables(): void {
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, version INTEGER NOT NULL, size INTEGER NOT NULL, sha256 TEXT NOT NULL,
        updated_at TEXT NOT NULL, author TEXT NOT NULL, author_id TEXT, lines TEXT);
      CREATE TABLE IF NOT EXISTS versions (path TEXT NOT NULL, version INTEGER NOT NULL, op TEXT NOT NULL, size INTEGER NOT NULL, sha256 TEXT,
        author TEXT NOT NULL, at TEXT NOT NULL, restored_from INTEGER, data BLOB, pruned INTEGER NOT NULL DEFAULT 0, purged_at TEXT,
        author_id TEXT, lines TEXT, base INTEGER, links INTEGER, PRIMARY KEY (path, version));
    `);
  }

  /** Tables from before purges could be undone, and before versions kept who wrote each line (`lines`: null when
   *  the version's author wrote all of it) and by user id (`author_id`: labels can be shared; null before), and
   *  before a version could extend the one before it (`base`: null, stored whole). */
  migrate(): void {
    for (const table of ["versions", "files"]) {
      const columns = this.sql.exec<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`).toArray().map((c) => c.name);
      if (table === "versions" && !columns.includes("purged_at")) this.sql.exec("ALTER TABLE versions ADD COLUMN purged_at TEXT");
      if (!columns.includes("author_id")) this.sql.exec(`ALTER TABLE ${table} ADD COLUMN author_id TEXT`);
      if (!columns.includes("lines")) this.sql.exec(`ALTER TABLE ${table} ADD COLUMN lines TEXT`);
      if (table === "versions" && !columns.includes("base")) this.sql.exec("ALTER TABLE versions ADD COLUMN base INTEGER");
      if (table === "versions" && !columns.includes("links")) this.sql.exec("ALTER TABLE versions ADD COLUMN links INTEGER");
    }
  }

  /** Forgets what it read (the project was deleted). */
  reset(): void {
    this.listing = undefined;
    this.forget();
  }

  head(path: string): AuthoredEntry | undefined {
    return this.sql.exec<AuthoredEntry & Row>(`SELECT ${HEAD_COLUMNS} FROM files WHERE path = ?`, path).toArray()[0];
  }

  /** `path` as this project stores it: where a file or folder, current or deleted with its history, is stored only in
   *  another Unicode form (NFC-equal), its stored name, for every operation alike (FileListing.spelledAs); several
   *  such names are refused, each spelled out. A current file's path as given costs nothing more. */
  asStored(path: string): WsResult<string> {
    const stored = this.current().spelledAs(path);
    return "alike" in stored ? fail("invalid", unicodeTwinsRefusal(path, stored.alike)) : { ok: true, value: stored.path };
  }

  /** The current files, read once, then kept in step with every change. */
  current(): FileListing {
    return (this.listing ??= new FileListing(
      this.sql.exec<ListedFile & Row>("SELECT path, version, size FROM files").toArray(),
      () => this.sql.exec<{ path: string }>("SELECT DISTINCT path FROM versions").toArray().map((r) => r.path),
    ));
  }

  /** The current files whose last version is someone else's than the owner's, with their sizes: what collaborators
   *  hold of the project's room. A file the server's memory merge wrote last is its last person's (review 81: the
   *  owner's memories counted against the members; review 83: a member's file, merged, counted against no one). */
  heldByOthers(ownerId: string, ownerLabel: string): Map<string, number> {
    const notOwner = notOwners("");
    const rows = this.sql.exec<{ path: string; size: number }>(`SELECT path, size FROM files WHERE author <> ? AND ${notOwner}`, SERVER_MERGE, ownerId, ownerLabel).toArray();
    const held = new Map(rows.map((r) => [r.path, r.size]));
    for (const merged of this.sql.exec<{ path: string; size: number }>("SELECT path, size FROM files WHERE author = ?", SERVER_MERGE).toArray()) {
      const last = this.sql.exec(`SELECT 1 FROM (SELECT author, author_id FROM versions WHERE path = ? AND author <> ? ORDER BY version DESC LIMIT 1) WHERE ${notOwner}`, merged.path, SERVER_MERGE, ownerId, ownerLabel).toArray();
      if (last.length) held.set(merged.path, merged.size);
    }
    return held;
  }

  /** Files and bytes, as the owner's limits count them, or a collaborator's: configs rounded up (FileListing). */
  totals(seenBy: "owner" | "collaborator" = "owner"): { files: number; bytes: number } {
    const files = this.current();
    return { files: files.count, bytes: seenBy === "owner" ? files.bytes : files.bytes - files.configBytes + files.configRoundedBytes };
  }

  /** A version's content: its stored bytes after those of the versions it extends, read in one query. */
  content(path: string, version: number): Uint8Array {
    const parts = this.sql.exec<{ data: SqlStorageValue }>(
      `WITH RECURSIVE chain(version, base, data, depth) AS (SELECT version, base, data, 0 FROM versions WHERE path = ?1 AND version = ?2
        UNION ALL SELECT v.version, v.base, v.data, c.depth + 1 FROM chain c JOIN versions v ON v.path = ?1 AND v.version = c.base)
      SELECT data FROM chain ORDER BY depth DESC`, path, version,
    ).toArray().map((r) => bytes(r.data));
    return parts.length === 1 ? parts[0]! : joined(parts);
  }

  /** The content of `row`, a version of `path` (a head as read, or any row with its digest): kept from the last write
   *  or read of it where it is that version still, else read and kept. */
  contentOf(path: string, row: { version: number; sha256: string | null }): Uint8Array {
    const known = this.kept.get(path);
    if (known && known.version === row.version && known.sha256 === row.sha256) return known.data;
    const data = this.content(path, row.version);
    this.keep(path, row.version, row.sha256, data);
    return data;
  }

  /** Keeps `data` as `path`'s content at `version` (digest `sha`; null: a deletion, nothing kept), the oldest kept
   *  dropped past KEPT_FILES or KEPT_BYTES. */
  private keep(path: string, version: number, sha: string | null, data: Uint8Array | null): void {
    const was = this.kept.get(path);
    if (was) this.keptBytes -= was.data.byteLength;
    this.kept.delete(path);
    if (!sha || !data || data.byteLength > KEPT_FILE_BYTES) return;
    for (const [oldest, old] of this.kept) {
      if (this.kept.size < KEPT_FILES && this.keptBytes + data.byteLength <= KEPT_BYTES) break;
      this.kept.delete(oldest);
      this.keptBytes -= old.data.byteLength;
    }
    this.kept.set(path, { version, sha256: sha, data });
    this.keptBytes += data.byteLength;
  }

  /** Drops every content kept (contentOf). */
  private forget(): void {
    this.kept.clear();
    this.keptBytes = 0;
  }

  /** The first `head` or last `tail` bytes of a version's content, read as that much from storage where it is stored
   *  whole. */
  part(path: string, version: number, part: { head: number } | { tail: number }): Uint8Array {
    const [start, length] = "head" in part ? [1, part.head] : [-part.tail, part.tail];
    const row = this.sql.exec<{ data: SqlStorageValue; base: number | null }>("SELECT substr(data, ?, ?) AS data, base FROM versions WHERE path = ? AND version = ?", start, length, path, version).one();
    if (row.base === null) return bytes(row.data);
    const all = this.content(path, version);
    return "head" in part ? all.slice(0, part.head) : all.slice(Math.max(0, all.byteLength - part.tail));
  }

  /** The version `data` would extend were it `path`'s next (its head, whole in `data`'s first bytes, a chain of fewer
   *  than chainCap links), and what it adds; undefined: stored whole. */
  private extension(path: string, data: Uint8Array): Extension | undefined {
    const head = this.head(path);
    if (!head?.size || head.size > data.byteLength) return undefined;
    // Asked by room() and again by commit() of the same bytes over the same head: the digest taken once.
    const known = this.extensions.get(data);
    if (known?.path === path && known.head === head.version) return known.extension;
    const extension = this.extensionOver(path, head, data);
    this.extensions.set(data, { path, head: head.version, extension });
    return extension;
  }

  /** What each change's bytes extend, by the head they were judged against (extension()). */
  private readonly extensions = new WeakMap<Uint8Array, { path: string; head: number; extension: Extension | undefined }>();

  private extensionOver(path: string, head: AuthoredEntry, data: Uint8Array): Extension | undefined {
    // Told by the head's digest, kept beside it: no read of the head's content (a write's cost, each time).
    if (sha256(data.subarray(0, head.size)) !== head.sha256) return undefined;
    // How many versions the head is built on, kept with it (at most that: dropContent shortens chains, never lengthens).
    const links = this.sql.exec<{ n: number }>("SELECT ifnull(links, 0) AS n FROM versions WHERE path = ? AND version = ?", path, head.version).one().n + 1;
    if (links >= this.chainCap) return undefined;
    return { base: head.version, added: data.subarray(head.size), links };
  }

  /** The content bytes `data` as `path`'s next version stores: what it adds where it extends the head. */
  storedBytes(path: string, data: Uint8Array): number {
    return this.extension(path, data)?.added.byteLength ?? data.byteLength;
  }

  /** The file as it is now, as text (undefined: there is none). */
  text(path: string): string | undefined {
    const head = this.head(path);
    return head ? new TextDecoder().decode(this.contentOf(path, head)) : undefined;
  }

  /** The newest version of `path`, deletions included (0: it never existed). */
  lastVersion(path: string): number {
    return this.sql.exec<{ version: number | null }>("SELECT MAX(version) AS version FROM versions WHERE path = ?", path).one().version ?? 0;
  }

  /** `if_version` against the file as it is now (0: it does not exist), told to `by` with times in `zone`: who made
   *  the version there and when, or who deleted the file and when, and the restore that brings it back (review 316:
   *  told "retry with if_version 0" of a PRD a member had deleted, the owner wrote a new file over it, unsaid). The
   *  fix fits the change refused: a delete or a restore over newer work is not "merged" (review 322: retrying a
   *  delete as advised deleted a member's newer version). */
  conflict(path: string, head: FileEntry | undefined, ifVersion: number | undefined, by: Person, zone: string, change: "write" | "restore" | "delete" = "write"): WsError | undefined {
    const current = head?.version ?? 0;
    if (ifVersion === undefined || ifVersion === current) return undefined;
    const last = this.lastChange(path, by, zone);
    if (!last) return fail("conflict", `Conflict: ${path} does not exist now (version 0), not version ${ifVersion}. Read it, merge your change, and retry with if_version 0.`);
    if (head) {
      const now = `Conflict: ${path} is at version ${current} (by ${last.who}, ${last.at}), not version ${ifVersion}.`;
      if (change === "write") return fail("conflict", `${now} Read it${this.changeSize(path, ifVersion, current)}, merge your change, and retry with if_version ${current}.`);
      const newer = last.who === "you" ? "" : `: version ${current} is ${last.who}'s newer work, which this ${change} would replace`;
      return fail("conflict", `${now} Nothing was changed${newer}. Read it, and ask your user whether to ${change === "delete" ? "delete" : "restore over"} it still (if_version ${current}).`);
    }
    const deleted = `Conflict: ${this.deletedSaid(path, last)}, so it is not at version ${ifVersion}.`;
    return fail("conflict", last.kept ? `${deleted} ${this.restoreSaid(last)}; then merge your change into it and retry with if_version ${last.version + 1}.` : `${deleted} None of its earlier versions can be restored now (bmad-files "history" lists them); writing it with if_version 0 makes a new file.`);
  }

  /** How much changed from the caller's `from` to the head `to`, so that a small change is merged without reading the
   *  whole file anew (review 446); nothing where `from` was never a version or the lines are not counted. No tool is
   *  named for the diff: bmad-doc's is drawn for the user, in the views toolset a connection may lack (review 453). */
  private changeSize(path: string, from: number, to: number): string {
    const rows = this.sql.exec<CountedRow>(`SELECT version, size, sha256, ${KEPT} AS kept FROM versions WHERE path = ? AND version IN (?, ?)`, path, from, to).toArray();
    const was = rows.find((r) => r.version === from);
    if (!was) return "";
    const size = this.linesBetween(path, was, rows.find((r) => r.version === to), new CountBudget());
    return size ? ` (${countedLines(size.added, size.removed)} since v${from})` : "";
  }

  /** The last change of `path` (its deletion, where it is deleted), as told to `by` in `zone`: who ("you" for them),
   *  when, and the newest version whose content is kept (what a restore brings back). */
  private lastChange(path: string, by: Person, zone: string): { version: number; who: string; at: string; kept: number | null } | undefined {
    const last = this.sql.exec<AuthorsRow & { at: string }>("SELECT version, author, author_id, lines, at FROM versions WHERE path = ? ORDER BY version DESC LIMIT 1", path).toArray()[0];
    if (!last) return undefined;
    const kept = this.sql.exec<{ version: number | null }>("SELECT MAX(version) AS version FROM versions WHERE path = ? AND data IS NOT NULL AND pruned = 0 AND purged_at IS NULL", path).one().version;
    return { version: last.version, who: samePerson(personOf(last), by) ? "you" : last.author, at: zonedTime(zone, last.at), kept };
  }

  private deletedSaid = (path: string, last: { version: number; who: string; at: string }) => `${path} was deleted (version ${last.version}) by ${last.who} at ${last.at}`;
  private restoreSaid = (last: { version: number; kept: number | null }) => `bmad-files "restore" with version ${last.kept} brings it back (as version ${last.version + 1})`;

  /** A file below `path`, which makes it a folder; undefined where none is. */
  private fileBelow(path: string): string | undefined {
    return this.sql.exec<{ path: string }>("SELECT path FROM files WHERE path > ? AND path < ? LIMIT 1", `${path}/`, `${path}0`).toArray()[0]?.path;
  }

  /** Why `path` cannot be a new file: a name Windows cannot hold, a file above it (a file holds no files), files below
   *  it (it is a folder), or a full folder (folderFull); as a new `folder`, the folder it is in holds any number of files. */
  clash(path: string, as: "file" | "folder" = "file"): string | undefined {
    const unportable = unportableName(path);
    if (unportable) return unportable;
    const parts = path.split("/");
    const above = parts.slice(1).map((_, i) => parts.slice(0, i + 1).join("/"));
    const file = above.length ? this.sql.exec<{ path: string }>("SELECT path FROM files WHERE path IN (SELECT value FROM json_each(?)) LIMIT 1", JSON.stringify(above)).toArray()[0]?.path : undefined;
    if (file) return `Cannot put a file at ${path}: ${file} is a file, and a file cannot hold others. Delete or rename ${file} first, or choose another path.`;
    const below = this.fileBelow(path);
    if (below) return `Cannot put a file at ${path}: it is a folder (it holds ${below}). Choose another name, or delete the files below it first.`;
    // Review 47: `Plan.md` beside `plan.md` stopped every member's pull, which refuses names a folding system merges;
    // review 73: so did a file beside a folder of a name they read as its.
    const twin = this.current().twin(path);
    const merged = `macOS and Windows read both names as one, or they print alike (${TWIN_DIFFERENCE}: a pull could not write both)`;
    // Each name shown with what in it shows as nothing written out: the two read alike (review 316).
    const shown = twin ? showTwins(path, twin.path) : shownPath;
    const [at, there] = [shown(path), twin && shown(twin.path)];
    if (twin?.is === "file") return `Cannot put a file at ${at}: ${there} is there, and ${merged.replace("as one", "as one file")}. Write to ${there}, or choose another name.`;
    if (twin?.is === "file above") return `Cannot put a file at ${at}: ${there} is a file, and ${merged}: a file cannot hold others. Choose another path.`;
    if (twin?.is === "folder") return `Cannot put a file at ${at}: ${there} is there, in a folder ${merged}. Choose another name.`;
    if (twin) {
      const inTheirs = [twin.path, ...path.split("/").slice(twin.path.split("/").length)].join("/");
      return `Cannot put a file at ${at}: ${there} is there, and ${merged.replace("as one", "as one folder")}. Write to ${shown(inTheirs)}, or choose another name.`;
    }
    return as === "file" ? folderFull(path, this.current().inFolder(path)) : undefined;
  }

  /** Room in the history for the new versions a change makes at `now` (`size`: the content of each; 0, a deletion),
   *  counting what the cap may drop (content replaced longer ago than the retention, rows whose content is gone); or
   *  why not. Who wrote each line is counted when stored, not here. `collaborator`: a change by someone other than the
   *  owner (whose id and label are given), which may fill the history only to half the cap: the other half is the
   *  owner's, so a share cannot fill it and stop the owner's own changes. */
  room(project: string, versions: Array<{ path: string; size: number; data?: Uint8Array }>, now: string, collaborator?: Collaborator): WsError | undefined {
    const content = (v: { path: string; size: number; data?: Uint8Array }) => (v.data ? this.storedBytes(v.path, v.data) : v.size);
    const bytes = versions.reduce((n, v) => n + content(v) + 2 * new TextEncoder().encode(v.path).byteLength + ROW_BYTES, 0);
    const stored = this.stored();
    const cap = this.capFor(collaborator);
    if (stored + bytes <= cap) return undefined;
    const cutoff = this.cutoff(now);
    const { only, params } = this.droppableBy(collaborator);
    const droppable = this.sizes(`${FREED} + ${BARE}`, this.droppable() + only, cutoff, ...params) + this.sizes(BARE, this.bare() + only, cutoff, ...params);
    if (stored + bytes - droppable <= cap) return undefined;
    const counted = " (each counts its content and its path, a deletion too)";
    const kept = `content a change replaced or deleted is kept ${Math.round(this.retentionMs / DAY_MS)} days before the ${mib(this.historyCap)} history cap may drop it (deleting a file frees nothing before then)`;
    const most = this.largest();
    const largest = most ? ` ${most.path}'s earlier versions take the most of it (${most.bytes < MIB / 10 ? `${Math.ceil(most.bytes / 1024)} KiB` : mib(most.bytes)}), most of that written by ${most.by}.` : "";
    const purge = `purge earlier versions with bmad-files "purge" (path: a glob${most ? `, such as ${most.path}` : ""}), whose room comes back when they go, ${UNDO_DAYS} days later.`;
    if (collaborator) {
      return fail("limit", `Project "${project}" keeps ${mib(stored)} of file versions${counted}, and ${kept}; past half of it only its owner's changes are taken, so that nobody it is shared with can fill it: this change does not fit.${largest} Its owner (${collaborator.ownerLabel}) can ${purge}`);
    }
    return fail("limit", `Project "${project}" keeps ${mib(stored)} of file versions${counted}, and ${kept}: this change does not fit.${largest} You own it: you can ${purge}`);
  }

  /** The history a change may fill: a collaborator's, half the cap (the other half is the owner's). */
  private capFor(collaborator?: Collaborator): number {
    return collaborator ? this.historyCap / 2 : this.historyCap;
  }

  /** What of the droppable rows a change may count as room and drop, as a condition on `versions v` (`only`, with its
   *  `params`): a collaborator's, only others' rows, neither the owner's nor the server's merges' (review 356: counting
   *  the owner's old versions, a writer filled past half the cap; review 430: a writer's churn of one file dropped the
   *  owner's old versions whole, by age, while the writer's stayed). */
  private droppableBy(collaborator?: Collaborator): { only: string; params: string[] } {
    return collaborator ? { only: ` AND v.author <> ? AND ${notOwners("v.")}`, params: [SERVER_MERGE, collaborator.ownerId, collaborator.ownerLabel] } : { only: "", params: [] };
  }

  /** The path whose earlier versions (what a purge takes: never a head) take the most of the history, and who wrote
   *  most of what they store (a refusal names them, review 341). */
  private largest(): { path: string; bytes: number; by: string } | undefined {
    const earlier = "versions v LEFT JOIN files f ON f.path = v.path AND f.version = v.version WHERE f.path IS NULL";
    const top = this.sql.exec<{ path: string; bytes: number }>(`SELECT v.path AS path, SUM(${HELD} + ${BARE}) AS bytes FROM ${earlier} GROUP BY v.path ORDER BY bytes DESC LIMIT 1`).toArray()[0];
    if (!top) return undefined;
    const by = this.sql.exec<{ author: string }>(`SELECT v.author AS author FROM ${earlier} AND v.path = ? GROUP BY v.author ORDER BY SUM(${HELD}) DESC LIMIT 1`, top.path).one().author;
    return { ...top, by };
  }

  /** The bytes (`bytes`, HELD or BARE) of the `versions v` rows a FROM clause selects. */
  private sizes(bytes: string, from: string, ...params: string[]): number {
    return this.sql.exec<{ n: number | null }>(`SELECT SUM(${bytes}) AS n FROM ${from}`, ...params).one().n ?? 0;
  }

  /** The bytes of history kept, as counted in the project's `meta` row. */
  private stored(): number {
    return this.sql.exec<{ history_bytes: number }>("SELECT history_bytes FROM meta WHERE id = 1").one().history_bytes;
  }

  /** Counts the history again, every row as HELD and BARE say: once, for projects from before rows were counted. */
  recount(): void {
    this.sql.exec(`UPDATE meta SET history_bytes = (SELECT ifnull(SUM(CASE WHEN v.data IS NULL THEN 0 ELSE ${HELD} END + ${BARE}), 0) FROM versions v) WHERE id = 1`);
  }

  private cutoff(now: string): string {
    return new Date(Date.parse(now) - this.retentionMs).toISOString();
  }

  /** `versions v` rows whose content the cap may drop: not a head, replaced (by the next version) before `?1`. */
  private droppable(): string {
    return `versions v JOIN versions n ON n.path = v.path AND n.version = v.version + 1 LEFT JOIN files f ON f.path = v.path AND f.version = v.version
      WHERE v.data IS NOT NULL AND v.pruned = 0 AND v.purged_at IS NULL AND f.path IS NULL AND n.at < ?1`;
  }

  /** `versions v` rows the cap may drop whole, their content gone (or a deletion): any but a path's newest, and that
   *  one last, when nothing else of the path is left. Never a head or content kept (restore's and unpurge's). Kept as
   *  long as replaced content is (replaced, or made, before `?`) unless their owner purged them: a deletion's row is the
   *  record of who deleted (review 244: a writer's churn dropped the row of their deletion of the owner's file within
   *  seconds, and counted those rows as room past half the cap). */
  private bare(): string {
    return `versions v WHERE v.data IS NULL AND (v.purged_at IS NOT NULL
      OR ifnull((SELECT MIN(n.at) FROM versions n WHERE n.path = v.path AND n.version > v.version), v.at) < ?)
      AND (EXISTS (SELECT 1 FROM versions n WHERE n.path = v.path AND n.version > v.version)
      OR NOT EXISTS (SELECT 1 FROM versions o WHERE o.path = v.path AND o.version <> v.version))`;
  }

  /** Purges every earlier version of the paths `glob` matches, deleted files' included: unreadable now, their content
   *  dropped `undoMs` later (dropPurged) unless unpurge brings it back. */
  purge(glob: Glob, now: string): { versions: number; bytes: number } {
    return this.mark(this.earlier(glob, "purged_at IS NULL"), now);
  }

  /** Brings back what purge took from the paths `glob` matches (of them, only `version`, where given), while its
   *  content is kept. */
  unpurge(glob: Glob, version?: number): { versions: number; bytes: number } {
    return this.mark(this.earlier(glob, "purged_at IS NOT NULL", version), null);
  }

  /** Earlier versions (never a head) of the paths `glob` matches whose content is kept, by `where` (and `version`). */
  private earlier(glob: Glob, where: string, version?: number): Array<{ rowid: number; size: number }> {
    const paths = this.sql.exec<{ path: string }>("SELECT DISTINCT path FROM versions WHERE data IS NOT NULL").toArray().map((r) => r.path).filter((p) => glob.test(p));
    const one = version === undefined ? "" : " AND v.version = ?";
    return paths.flatMap((path) => this.sql.exec<{ rowid: number; size: number }>(
      `SELECT v.rowid AS rowid, v.size AS size FROM versions v LEFT JOIN files f ON f.path = v.path AND f.version = v.version WHERE v.path = ? AND v.data IS NOT NULL AND v.${where} AND f.path IS NULL${one}`,
      path, ...(version === undefined ? [] : [version]),
    ).toArray());
  }

  /** Sets `purged_at` on `rows`, in one step. */
  private mark(rows: Array<{ rowid: number; size: number }>, purgedAt: string | null): { versions: number; bytes: number } {
    this.transaction(() => {
      for (const row of rows) this.sql.exec("UPDATE versions SET purged_at = ? WHERE rowid = ?", purgedAt, row.rowid);
    });
    return { versions: rows.length, bytes: rows.reduce((n, r) => n + r.size, 0) };
  }

  /** Drops the content of versions purged longer ago than `undoMs`, and its bytes from the count; the time the next
   *  one is due (undefined: none). */
  dropPurged(now: number): number | undefined {
    const cutoff = new Date(now - this.undoMs).toISOString();
    const due = "purged_at IS NOT NULL AND purged_at <= ? AND data IS NOT NULL";
    this.transaction(() => {
      const rows = this.sql.exec<{ rowid: number }>(`SELECT rowid FROM versions WHERE ${due} ORDER BY rowid`, cutoff).toArray();
      const left = new Set(rows.map((r) => r.rowid));
      let bytes = 0;
      for (const row of rows) {
        if (!left.has(row.rowid)) continue;
        const run = this.run(row.rowid, (rowid) => left.has(rowid), Infinity);
        for (const gone of run) left.delete(gone.rowid);
        bytes += this.dropContent(run);
      }
      this.sql.exec("UPDATE meta SET history_bytes = history_bytes - ? WHERE id = 1", bytes);
    });
    const next = this.sql.exec<{ at: string | null }>("SELECT MIN(purged_at) AS at FROM versions WHERE purged_at IS NOT NULL AND data IS NOT NULL").one().at;
    return next ? Date.parse(next) + this.undoMs : undefined;
  }

  /** One change, all or nothing. A change that fails part way may have reached the listing and the content kept: the
   *  listing is read again, the content too. */
  transaction<T>(change: () => T): T {
    try {
      return this.storage.transactionSync(change);
    } catch (error) {
      this.listing = undefined;
      this.forget();
      throw error;
    }
  }

  /** Not found, with the closest paths (files of its name anywhere, then in the same folder), or who deleted it, when, and how to bring it back, as told
   *  to `by` in `zone` (review 322: a member's deletion read as no one's). */
  noFile(project: string, path: string, by: Person, zone: string): WsError {
    // A folder (files below it) is said as the bridge says it, by read, delete and history alike (review 413).
    if (this.fileBelow(path)) return fail("not_found", folderNotFile(path));
    const last = this.lastChange(path, by, zone);
    if (last) return fail("not_found", `${this.deletedSaid(path, last)}; ${last.kept ? `${this.restoreSaid(last)}, and "history" shows its versions` : `bmad-files "history" shows its versions`}.`);
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/") + 1) : "";
    const inFolder = this.sql.exec<{ path: string }>("SELECT path FROM files WHERE path >= ? AND path < ? LIMIT 500", dir, `${dir}\uffff`).toArray().map((r) => r.path);
    // The files of its name elsewhere first: the folder's first 500 may hold none of them (review 477).
    const near = [...this.current().namesakes(path, 3), ...inFolder];
    return fail("not_found", `No file ${path} in project "${project}".${suggestion(closestFiles(path, near, 3))}`);
  }

  /** When a file last changed, a deletion too (null: none ever did; review 312: a project whose documents a member
   *  deleted dropped out of the projects described). */
  lastChanged(): string | null {
    return (this.sql.exec<{ at: string | null }>("SELECT MAX(at) AS at FROM versions").one().at as string | null) ?? null;
  }

  /** Files below `folders` whose last version is a deletion made at `since` or later, newest first, at most `limit`:
   *  a range of the history's own key per folder, no scan of the rest (review 305: a PRD a member deleted read as no
   *  work at all to its owner). */
  deletedSince(folders: string[], since: string, limit: number): DeletedFile[] {
    const rows = folders.flatMap((dir) => this.sql.exec<Row>(
      "SELECT path, version, author, at FROM versions v WHERE path > ? AND path < ? AND op = 'delete' AND at >= ? AND version = (SELECT MAX(version) FROM versions WHERE path = v.path) ORDER BY at DESC LIMIT ?",
      `${dir}/`, `${dir}/\uffff`, since, limit,
    ).toArray());
    return rows
      .map((r) => ({ path: r.path as string, version: r.version as number, by: r.author as string, at: r.at as string }))
      .sort((a, b) => b.at.localeCompare(a.at))
      .slice(0, limit);
  }

  /** Its versions older than `before` (undefined: all), newest first, at most `limit` (none: it never existed). */
  history(path: string, before: number | undefined, limit: number): VersionEntry[] {
    const rows = this.sql.exec<Row>("SELECT version, op, size, sha256, author, at, restored_from, pruned, purged_at FROM versions WHERE path = ? AND version < ? ORDER BY version DESC LIMIT ?", path, before ?? Number.MAX_SAFE_INTEGER, limit).toArray();
    return rows.map((r) => ({
      version: r.version as number, op: r.op as VersionOp, size: r.size as number, author: r.author as string, at: r.at as string,
      // Not the digest of content nobody can read any more: it would confirm a guess of what was purged (review 48).
      ...(r.sha256 && !r.pruned && !r.purged_at ? { sha256: r.sha256 as string } : {}), ...(r.restored_from ? { restored_from: r.restored_from as number } : {}), ...(r.pruned ? { pruned: true } : r.purged_at ? { pruned: true, purged: true } : {}),
    }));
  }

  /** An earlier version's content, or why it cannot be read (or restored). */
  version(project: string, path: string, version: number, by: Person, zone: string): WsResult<FileContent> {
    const row = this.sql.exec<Row>("SELECT op, size, sha256, author, at, data, pruned, purged_at FROM versions WHERE path = ? AND version = ?", path, version).toArray()[0];
    if (!row) {
      const last = this.lastVersion(path);
      if (!last) return this.noFile(project, path, by, zone);
      // Below the newest and missing: dropped whole to keep the history under its cap (prune), never "no such version".
      if (version < last) return fail("not_found", `Version ${version} of ${path} is no longer kept: it was dropped to keep the project's history under its ${mib(this.historyCap)} cap. History lists the versions kept.`);
      return fail("not_found", `${path}'s newest version is ${last}; there is no version ${version}.`);
    }
    if (row.op === "delete") return fail("invalid", `Version ${version} of ${path} is its deletion; choose an earlier version (history lists them).`);
    if (row.purged_at && !row.pruned) {
      const until = zonedTime(zone, new Date(Date.parse(row.purged_at as string) + this.undoMs).toISOString());
      return fail("not_found", `Version ${version} of ${path} was purged by the owner of "${project}" at ${zonedTime(zone, row.purged_at as string)}; its content goes for good at ${until}, and until then the owner can bring it back with bmad-files "unpurge".`);
    }
    if (row.pruned) return fail("not_found", `Version ${version} of ${path} is too old: its content was dropped to keep the project's history under ${mib(this.historyCap)}, or purged by its owner.`);
    return { ok: true, value: { path, version, size: row.size as number, sha256: row.sha256 as string, updated_at: row.at as string, author: row.author as string, data: this.content(path, version) } };
  }

  /** Stores one new version and makes it the file's head (inside the caller's transaction). A restore brings back
   *  the version's lines with their authors; any other change keeps the authors of the lines it kept. `collaborator`:
   *  a change by someone other than the owner, which drops from the history only what room() counted as its room. */
  commit(path: string, data: Uint8Array | null, op: VersionOp, by: Person, at: string, opts: { restoredFrom?: number; collaborator?: Collaborator } & Changed = {}): AuthoredEntry {
    const { restoredFrom } = opts;
    const last = this.lastVersion(path);
    // A path none of whose versions are left starts past every version dropped whole: no number names two contents.
    const version = (last || this.sql.exec<{ n: number }>("SELECT dropped_version AS n FROM meta WHERE id = 1").one().n) + 1;
    const size = data?.byteLength ?? 0;
    const sha = data ? sha256(data) : null;
    // What create writes is the installer's defaults, no member's words: a member's later change of a line is theirs.
    const lines = data ? (op === "create" ? JSON.stringify(allBy(INSTALLER, splitLines(decode(data)).length)) : this.linesAfter(path, data, by, last > 0, opts)) : null;
    const author = by.label;
    const authorId = by.id ?? null;
    const extension = data && this.extension(path, data);
    const stored = extension ? extension.added : data;
    this.sql.exec(
      "INSERT INTO versions (path, version, op, size, sha256, author, at, restored_from, data, author_id, lines, base, links) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      path, version, op, size, sha, author, at, restoredFrom ?? null, stored ? buffer(stored) : null, authorId, lines, extension ? extension.base : null, extension ? extension.links : null,
    );
    // Changed in place where the file is there: REPLACE deleted and re-inserted the row, which rewrote its path's index
    // entry too, pages more for every write to reach the disk (a write's cost is mostly the pages it stores).
    if (data) this.sql.exec(`INSERT INTO files (${HEAD_COLUMNS}, author_id, lines) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (path) DO UPDATE SET ${FILE_UPDATE}`, path, version, size, sha, at, author, authorId, lines);
    else this.sql.exec("DELETE FROM files WHERE path = ?", path);
    this.listing?.set(path, data ? { path, version, size } : undefined);
    // The next change of the file reads it whole: kept as written, not rebuilt from its chain.
    this.keep(path, version, sha, data);
    this.sql.exec(`UPDATE meta SET history_bytes = history_bytes + (SELECT ${HELD} + ${BARE} FROM versions v WHERE path = ? AND version = ?) WHERE id = 1`, path, version);
    this.prune(at, opts.collaborator);
    return { path, version, size, sha256: sha ?? "", updated_at: at, author };
  }

  /** Who wrote each line of `data`, `by`'s new content of `path` (`existed`: it has versions), as stored (null: `by`
   *  wrote it all). A file only its author ever changed costs nothing here; one someone else had a hand in is read and
   *  matched line by line. */
  private linesAfter(path: string, data: Uint8Array, by: Person, existed: boolean, { restoredFrom, entries, alsoBy = [], unread }: { restoredFrom?: number } & Changed): string | null {
    // A deleted file written again is matched against its newest version kept, as a restore of it would be (review 430:
    // a writer's delete and rewrite of the owner's lines made every line the writer's).
    const row = this.authorsRow(path, restoredFrom) ?? (existed ? this.newestKept(path) : undefined);
    if (!row) return entries || alsoBy.length ? mixedOrNull(carryAuthors("", { people: [], runs: [] }, decode(data), by, entries, alsoBy), by) : null;
    const was = authorsOf(row);
    if (restoredFrom !== undefined) return was ? JSON.stringify(was) : samePerson(personOf(row), by) ? null : JSON.stringify(allBy(personOf(row), splitLines(decode(data)).length));
    if (!was && !entries && !alsoBy.length && samePerson(personOf(row), by)) return null;
    const before = decode(this.contentOf(path, row));
    const unseen = unread && this.unreadIn(path, row.version, before, unread);
    return mixedOrNull(carryAuthors(before, was ?? allBy(personOf(row), splitLines(before).length), decode(data), by, entries, alsoBy, unseen), by);
  }

  /** What a whole write over `path`'s version `version` (`text`), `by`'s, that named none did not read: the lines that
   *  version changed from the one before it, and that one, which the write was likely made from (undefined where its
   *  content is gone, or there is none). */
  private unreadIn(path: string, version: number, text: string, by: Person): UnreadLines | undefined {
    const prior = this.sql.exec<{ version: number; readable: number }>("SELECT version, data IS NOT NULL AND pruned = 0 AND purged_at IS NULL AS readable FROM versions WHERE path = ? AND version < ? ORDER BY version DESC LIMIT 1", path, version).toArray()[0];
    const read = prior?.readable ? this.authorsAt(path, prior.version) : undefined;
    if (!read) return undefined;
    const lines = splitLines(text);
    const kept = matchLines(splitLines(read.text), lines);
    return { by, lines: new Set(lines.flatMap((_, j) => (kept[j]! < 0 ? [j] : []))), read };
  }

  /** Who wrote `path`'s head, or `version` of it, and its lines' authors as stored (undefined: no such version). */
  private authorsRow(path: string, version?: number): AuthorsRow | undefined {
    return version === undefined
      ? this.sql.exec<AuthorsRow>("SELECT version, author, author_id, lines, sha256 FROM files WHERE path = ?", path).toArray()[0]
      : this.sql.exec<AuthorsRow>("SELECT version, author, author_id, lines, sha256 FROM versions WHERE path = ? AND version = ?", path, version).toArray()[0];
  }

  /** Who wrote `path`'s newest version whose content is kept, and its lines' authors as stored (undefined: none is). */
  private newestKept(path: string): AuthorsRow | undefined {
    return this.sql.exec<AuthorsRow>(`SELECT version, author, author_id, lines, sha256 FROM versions WHERE path = ? AND ${KEPT} ORDER BY version DESC LIMIT 1`, path).toArray()[0];
  }

  /** Each stored line (at `\n`) of `path`'s head with the labels of who wrote a part of it, the server's merge left
   *  out; read once for a whole memory file's entries (undefined: no such file). */
  storedLineAuthors(path: string): Array<{ line: string; labels: string[] }> | undefined {
    const head = this.authorsAt(path);
    return head && authorsByStoredLine(head.text, head.authors).map(({ line, people }) => ({ line, labels: labelsOf(people) }));
  }

  /** The labels of who wrote each line of `path`'s head as lines() numbers them (what a hand-edited memory file's
   *  entries are numbered by), the server's merge left out (undefined: no such file). */
  labelsByLine(path: string): string[][] | undefined {
    const head = this.authorsAt(path);
    return head && authorsByLine(head.text, head.authors).map(labelsOf);
  }

  /** `path`'s head, or `version` of it, with its lines' authors (undefined: no such version). */
  private authorsAt(path: string, version?: number): { text: string; authors: LineAuthors } | undefined {
    const row = this.authorsRow(path, version);
    if (!row) return undefined;
    const text = decode(this.contentOf(path, row));
    return { text, authors: authorsOf(row) ?? allBy(personOf(row), splitLines(text).length) };
  }

  /** Who other than `by` wrote most of `path`'s head, by characters, and the version before their largest growth of it
   *  whose content is kept: what a change refused by the file cap names (undefined: `by` wrote most, or the installer).
   *  Counted from the stored author runs over the text's line ends, no line copied (review 323: a walk that made each of
   *  330,000 lines an object held the project's object 1.2 s for a refusal). */
  grownBy(path: string, by: Person): GrownBy | undefined {
    const row = this.authorsRow(path);
    const text = row && this.text(path);
    if (!row || text === undefined) return undefined;
    const authors = authorsOf(row);
    const written = new Map<string, { person: Person; characters: number }>();
    const count = (person: Person, n: number) => written.set(person.label, { person, characters: (written.get(person.label)?.characters ?? 0) + n });
    if (!authors) count(personOf(row), text.length);
    let at = 0;
    for (const [n, who] of authors?.runs ?? []) {
      const start = at;
      for (let k = 0; k < n && at <= text.length; k++) {
        const end = text.indexOf("\n", at);
        at = end < 0 ? text.length + 1 : end + 1;
      }
      for (const i of who) count(authors!.people[i]!, at - start);
    }
    const most = [...written.values()].reduce<{ person: Person; characters: number } | undefined>((a, b) => (a && a.characters >= b.characters ? a : b), undefined);
    if (!most || samePerson(most.person, by) || !labelsOf([most.person]).length) return undefined;
    // Oldest first, the last thousand: each of theirs against the version before it.
    const rows = this.sql.exec<{ version: number; author: string; author_id: string | null; size: number; kept: number }>(
      "SELECT version, author, author_id, size, (data IS NOT NULL AND purged_at IS NULL) AS kept FROM versions WHERE path = ? ORDER BY version DESC LIMIT 1000", path,
    ).toArray().reverse();
    let largest: { growth: number; before: (typeof rows)[number] } | undefined;
    rows.forEach((row, i) => {
      const before = rows[i - 1];
      if (before && samePerson(personOf(row), most.person) && row.size - before.size > (largest?.growth ?? 0)) largest = { growth: row.size - before.size, before };
    });
    const before = largest?.before.kept ? { before: { version: largest.before.version, size: largest.before.size } } : {};
    return { by: most.person.label, characters: most.characters, ...before };
  }

  /** Who other than `by` wrote lines of `path`'s head that `data` (null: a delete) drops, by label; the installer's
   *  defaults and the server's merge are no one's. */
  droppedByOthers(path: string, by: Person, data: Uint8Array | null): string[] {
    // A head one person wrote whole is theirs alone (changedByOther tells another's): nothing read.
    const row = this.authorsRow(path);
    const authors = row && authorsOf(row);
    if (!authors) return [];
    const dropped = droppedBy(decode(this.contentOf(path, row)), authors, data && decode(data), by).map((p) => p.label);
    return [...new Set(dropped)].filter((label) => label !== INSTALLER.label && label !== SERVER_MERGE);
  }

  /** Whether someone other than `reader` made `path`'s head (or `version`): a change that only removed lines names
   *  no line of theirs, and is theirs all the same (review 62: a pull took a member's removal of the owner's steps). */
  changedByOther(path: string, reader: Person, version?: number): boolean {
    const row = this.authorsRow(path, version);
    if (row === undefined || row.author === SERVER_MERGE || samePerson(personOf(row), reader)) return false;
    // Create's version is the installer's defaults (INSTALLER), whoever created the project.
    return !this.sql.exec("SELECT 1 FROM versions WHERE path = ? AND version = ? AND op = 'create'", path, row.version).toArray().length;
  }

  /** The versions of `path` others made after `reader`'s own last text of it (a deletion of theirs is none to compare),
   *  or after `seen` where it is later (the version they were last shown them with: SeenVersions), with the lines added
   *  and removed since where both versions are kept and `budget` has room for them; undefined where the reader wrote
   *  none, or made the head, or only the server's merge followed. Looked up, not scanned: a member's thousand versions since hid the owner's
   *  (review 372: a removed requirement went unsaid after 1,001 writes). */
  changedSince(path: string, reader: Person, seen: number | undefined, budget: CountBudget): ChangedSince | undefined {
    // Read with every head: a head the reader made (the common case) costs one row.
    const head = this.sql.exec<{ version: number; author: string; author_id: string | null; size: number; sha256: string | null; kept: number }>(`SELECT version, author, author_id, size, sha256, ${KEPT} AS kept FROM versions WHERE path = ? ORDER BY version DESC LIMIT 1`, path).toArray()[0];
    if (!head || samePerson(personOf(head), reader)) return undefined;
    const hasId = reader.id !== undefined;
    const mine = this.sql.exec<{ version: number }>(`SELECT version FROM versions WHERE path = ?1 AND op <> 'delete' AND ${madeBy(hasId, "?2", "?3")} ORDER BY version DESC LIMIT 1`, path, reader.id ?? null, reader.label).toArray()[0];
    if (!mine) return undefined;
    const read = seen !== undefined && seen > mine.version;
    const yours = read ? seen : mine.version;
    // Theirs since: neither the reader's own (deletions) nor the server's merge or the installer's.
    const since = `FROM versions WHERE path = ?1 AND version > ?2 AND author NOT IN (?3, ?4) AND NOT ${madeBy(hasId, "?5", "?6")}`;
    const params = [path, yours, SERVER_MERGE, INSTALLER.label, reader.id ?? null, reader.label];
    const { n, first, last, authors } = this.sql.exec<{ n: number; first: number | null; last: number | null; authors: number }>(`SELECT COUNT(*) AS n, MIN(version) AS first, MAX(version) AS last, COUNT(DISTINCT author) AS authors ${since}`, ...params).one();
    if (!n) return undefined;
    const listed = n <= SHOWN_VERSIONS ? this.sql.exec<{ version: number; author: string }>(`SELECT version, author ${since} ORDER BY version`, ...params).toArray() : [];
    const versions = listed.length ? listed.map((r) => r.version) : [first!, last!];
    const by = this.sql.exec<{ author: string }>(`SELECT author ${since} GROUP BY author ORDER BY MIN(version) LIMIT ${SHOWN_AUTHORS}`, ...params).toArray().map((r) => r.author);
    const each = authors > 1 && listed.length ? { madeBy: listed.map((r) => r.author) } : {};
    // Where no line of the version counted from was another's, every line of theirs in the head came since.
    const from = this.sql.exec<AuthorsRow & { size: number; kept: number }>(`SELECT version, author, author_id, lines, sha256, size, ${KEPT} AS kept FROM versions WHERE path = ? AND version = ?`, path, yours).toArray()[0];
    const allOthers = from?.kept && !this.othersOf(path, from, reader).length ? { allOthers: true as const } : {};
    const changed = { yours, ...(read ? { read: true as const } : {}), versions, count: n, by, ...(authors > by.length ? { moreBy: authors - by.length } : {}), ...each, ...allOthers };
    return { ...changed, ...this.linesBetween(path, from, head, budget) };
  }

  /** Lines added and removed from version `a` of `path` to `b`, where both are kept and `budget` has room for them. */
  private linesBetween(path: string, a: CountedRow | undefined, b: CountedRow | undefined, budget: CountBudget): { added: number; removed: number } | undefined {
    // Taken from the budget whether or not counted before, so an answer counts the same files however warm the memo.
    if (!a?.kept || !b?.kept || !budget.take(a.size, b.size)) return undefined;
    const count = () => linesChanged(decode(this.content(path, a.version)), decode(this.content(path, b.version)));
    return a.sha256 && b.sha256 ? this.counted.of(`${a.sha256}>${b.sha256}`, count) : count();
  }

  /** Who made `path`'s head, where someone other than `reader` did (changedByOther). */
  otherMaker(path: string, reader: Person): Person | undefined {
    const row = this.authorsRow(path);
    return row && this.changedByOther(path, reader) ? personOf(row) : undefined;
  }

  /** The lines of `path` (its head, or `version`) that someone other than `reader` wrote or had a hand in, numbered as
   *  a reader counts the lines of its content (`data`, or read here where it is needed). */
  byOthers(path: string, reader: Person, version?: number, data?: Uint8Array): ByOthers {
    const row = this.authorsRow(path, version);
    return row ? this.othersOf(path, row, reader, data) : [];
  }

  /** byOthers of `row` (its version of `path`, whose content `data` is where given), matched once for a text, its
   *  line authors and the reader: the map, status and a history by glob ask it of the same versions call after call. */
  private othersOf(path: string, row: AuthorsRow, reader: Person, data?: Uint8Array): ByOthers {
    const matched = (): ByOthers => {
      const lines = authorsOf(row);
      if (lines) return byOthers(lines, reader, decode(data ?? this.contentOf(path, row))).filter((o) => o.by !== INSTALLER.label);
      return samePerson(personOf(row), reader) ? [] : [{ by: row.author as string, lines: "all" }];
    };
    // A version one person wrote whole stores no line authors: nothing to match.
    return row.lines && row.sha256 ? this.others.of(`${reader.id ?? ""}\0${reader.label}\0${row.sha256}\0${row.lines}`, matched) : matched();
  }

  /** `rowid`'s version and the versions built on it one on another that `joins` takes, oldest first, until dropping
   *  them frees `need` bytes once their rows go too (their lines and rows; what they store moves on: dropContent). */
  private run(rowid: number, joins: (rowid: number) => boolean, need: number): RunRow[] {
    const run = [this.sql.exec<RunRow>(`SELECT ${RUN_COLUMNS} FROM versions v WHERE v.rowid = ?`, rowid).one()];
    for (let freed = run[0]!.lines + run[0]!.bare; freed < need; ) {
      const last = run.at(-1)!;
      const next = this.sql.exec<RunRow>(`SELECT ${RUN_COLUMNS} FROM versions v WHERE v.path = ? AND v.base = ?`, last.path, last.version).toArray();
      if (next.length !== 1 || !joins(next[0]!.rowid)) break;
      run.push(next[0]!);
      freed += next[0]!.lines + next[0]!.bare;
    }
    return run;
  }

  /** Drops the content of `run` (run()), moving what its versions store, joined and once, into each version built on
   *  one of them that is not in it (which then extends what the first did, or is whole), so that every other version
   *  reads the same bytes; the bytes this frees. One at a time, a chain of appends rewrote its whole file for each
   *  version dropped (review 356: 86 versions of a 900 KB memlog, 77 MB written to free 86 rows). */
  private dropContent(run: RunRow[]): number {
    const inRun = new Set(run.map((r) => r.version));
    const base = run[0]!.base;
    const carried: Uint8Array[] = [];
    let freed = 0;
    for (const row of run) {
      carried.push(bytes(this.sql.exec<{ data: SqlStorageValue }>("SELECT data FROM versions WHERE rowid = ?", row.rowid).one().data));
      freed += row.held;
      for (const next of this.sql.exec<{ rowid: number; version: number; data: SqlStorageValue }>("SELECT rowid, version, data FROM versions WHERE path = ? AND base = ?", row.path, row.version).toArray()) {
        if (inRun.has(next.version)) continue;
        const whole = joined([...carried, bytes(next.data)]);
        this.sql.exec("UPDATE versions SET data = ?, base = ? WHERE rowid = ?", buffer(whole), base, next.rowid);
        freed -= whole.byteLength - bytes(next.data).byteLength;
      }
      this.sql.exec("UPDATE versions SET data = NULL, lines = NULL, pruned = 1, base = NULL WHERE rowid = ?", row.rowid);
    }
    return freed;
  }

  /** Past the history cap (half of it for a collaborator's change: capFor), the oldest rows whose content is gone go
   *  whole, then the oldest earlier versions replaced longer ago than the retention lose their content (and go whole
   *  later), those built on one another together; heads, content replaced since and purged content never do (room()
   *  refuses a change that would need them). A collaborator's change drops only the rows room() counted as its room
   *  (droppableBy). */
  private prune(now: string, collaborator?: Collaborator): void {
    let stored = this.stored();
    const cap = this.capFor(collaborator);
    if (stored <= cap) return;
    const cutoff = this.cutoff(now);
    const { only, params } = this.droppableBy(collaborator);
    const droppable = (rowid: number) => this.sql.exec(`SELECT 1 FROM ${this.droppable()}${only} AND v.rowid = ?`, cutoff, ...params, rowid).toArray().length > 0;
    while (stored > cap) {
      const bare = this.sql.exec<Dropped>(`SELECT v.rowid AS rowid, v.path AS path, v.version AS version, ${BARE} AS bytes FROM ${this.bare()}${only} ORDER BY v.rowid LIMIT 100`, cutoff, ...params).toArray();
      const held = bare.length ? [] : this.sql.exec<Dropped>(`SELECT v.rowid AS rowid, v.path AS path, v.version AS version, ${HELD} AS bytes FROM ${this.droppable()}${only} ORDER BY v.rowid LIMIT 100`, cutoff, ...params).toArray();
      if (!bare.length && !held.length) break;
      for (const row of bare) {
        if (stored <= cap) break;
        if (row.version === this.lastVersion(row.path)) this.sql.exec("UPDATE meta SET dropped_version = MAX(dropped_version, ?) WHERE id = 1", row.version);
        this.sql.exec("DELETE FROM versions WHERE rowid = ?", row.rowid);
        stored -= row.bytes;
      }
      const gone = new Set<number>();
      for (const row of held) {
        if (stored <= cap) break;
        if (gone.has(row.rowid)) continue;
        const run = this.run(row.rowid, droppable, stored - cap);
        for (const r of run) gone.add(r.rowid);
        const freed = this.dropContent(run);
        stored -= freed;
        // Versions whose content moved into the version built on them freed only their rows, once deleted (above):
        // those go first, before another's content (review 344: 39 of 41 versions of a chain lost their content to
        // free two rows' worth).
        if (freed < run.reduce((n, r) => n + r.held, 0)) break;
      }
    }
    this.sql.exec("UPDATE meta SET history_bytes = ? WHERE id = 1", stored);
  }
}

/** Someone other than the owner changing the project, and the owner's id and label: their changes fill at most half the
 *  history cap, the owner's half kept for the owner's own (room(), prune()). */
export type Collaborator = { ownerId: string; ownerLabel: string };

type Dropped = Row & { rowid: number; path: string; version: number; bytes: number };
/** A version of a run to drop (run()): what it extends, what it holds (HELD), its lines' bytes and its row's (BARE). */
type RunRow = Row & { rowid: number; path: string; version: number; base: number | null; held: number; lines: number; bare: number };
const RUN_COLUMNS = `v.rowid AS rowid, v.path AS path, v.version AS version, v.base AS base, ${HELD} AS held, ifnull(length(v.lines), 0) AS lines, ${BARE} AS bare`;

/** How a change tells who wrote what it adds (line-authors.ts): `entries` for the server's memory merge; `alsoBy`,
 *  others whose lines the writing script read. */
interface Changed {
  entries?: EntryLines;
  alsoBy?: Person[];
  /** Whose head a whole write replaced without naming it (if_version): the lines they changed there were not read. */
  unread?: Person;
}

/** How the server's merge of remembered memories names itself in history (workspace-memory-files.ts). */
export const SERVER_MERGE = "remember_structured";
/** Who wrote the lines a project's create wrote, the installer's defaults (review 254: a member's render said every
 *  line of the four config files the owner's create made was "another member's"). No sign-in label (an email, a login, an id) holds a space. */
const INSTALLER: Person = { label: "bmad-project create" };

/** What linesBetween needs of a version: its size, its text's sha256 (the memo's key) and whether its content is kept. */
type CountedRow = { version: number; size: number; sha256: string | null; kept: number };
type AuthorsRow = Row & { version: number; author: string; author_id: string | null; lines: string | null; sha256: string | null };

const LINE_AUTHORS = z.object({
  people: z.array(z.object({ id: z.string().optional(), label: z.string() })),
  runs: z.array(z.tuple([z.number().int().positive(), z.array(z.number().int().nonnegative())])),
});

const personOf = (row: Pick<AuthorsRow, "author" | "author_id">): Person => (row.author_id ? { id: row.author_id, label: row.author } : { label: row.author });
const decode = (data: Uint8Array) => new TextDecoder().decode(data);

/** Line authors as stored: null where `by` wrote every line. */
function mixedOrNull(after: LineAuthors, by: Person): string | null {
  const sole = after.runs.length ? soleAuthor(after) : by;
  return sole && samePerson(sole, by) ? null : JSON.stringify(after);
}

/** A version's stored line authors (undefined: its author wrote every line, or the row does not parse). */
function authorsOf(row: AuthorsRow): LineAuthors | undefined {
  if (!row.lines) return undefined;
  const parsed = LINE_AUTHORS.safeParse(JSON.parse(row.lines));
  if (!parsed.success || parsed.data.runs.some(([, who]) => who.some((i) => i >= parsed.data.people.length))) return undefined;
  return parsed.data;
}

/** A file and a folder of the same name among paths written together, two that a folding file system reads as one (or
 *  as one folder), or more files in one folder than it holds. */
export function batchClash(paths: string[]): string | undefined {
  const all = new Set(paths);
  const inFolder = new Map<string, number>();
  // Names among themselves as a single write's are against the project's (review 333: `A.md` and `a.md`, or `X/a.md`
  // and `x/b.md`, in one new tree).
  const folded = new FoldedNames([]);
  for (const path of paths) {
    const unportable = unportableName(path);
    if (unportable) return unportable;
    const twin = folded.clash(path);
    if (twin?.kind === "file" || twin?.kind === "folder twin") {
      const other = twin.kind === "file" ? twin.at : twin.below;
      const shown = showTwins(path, other);
      return `Cannot put both ${shown(other)} and ${shown(path)}: macOS and Windows read ${twin.kind === "file" ? "both names as one" : `${shown(twin.mine)} and ${shown(twin.at)} as one folder`}, or they print alike (${TWIN_DIFFERENCE}: a pull could not write both). Choose another name for one of them.`;
    }
    folded.add(path);
    const folder = folderOf(path);
    const full = folderFull(path, inFolder.get(folder) ?? 0);
    if (full) return full;
    inFolder.set(folder, (inFolder.get(folder) ?? 0) + 1);
    for (let end = path.indexOf("/"); end > 0; end = path.indexOf("/", end + 1)) {
      if (all.has(path.slice(0, end))) return `Cannot put both ${path.slice(0, end)} and ${path}: a file cannot hold others. Choose another name for one of them.`;
    }
  }
  return undefined;
}

/** People as answers name them, the server's merge (no one's words) left out. */
const labelsOf = (people: Person[]): string[] => people.map((p) => p.label).filter((label) => label !== SERVER_MERGE && label !== INSTALLER.label);
