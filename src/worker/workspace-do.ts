// One SQLite-backed Durable Object per project workspace, addressed by idFromName(`${owner}|${name}`): its
// owner, its shares, its files and every version of them. This object is the authority on access: every
// method checks the caller against the owner and the shares, on every call, so a revocation holds at once.
// Each change is checked (path, limits, if_version) and then stored in one synchronous transaction.
import { createHash } from "node:crypto";
import { DurableObject } from "cloudflare:workers";
import { closest, suggestion } from "../core/catalog/closest.js";
import { compileGlob } from "../core/catalog/glob.js";
import type { InstallerAnswers } from "../core/workspace/installer.js";
import { checkWrite, checkWriteAll, MAX_HISTORY_BYTES } from "../core/workspace/limits.js";
import { checkWorkspacePath } from "../core/workspace/paths.js";
import type { Access, FileContent, FileEntry, ListedFile, ProjectInfo, ShareAccess, VersionEntry, VersionOp, WsError, WsResult } from "../core/workspace/store.js";
import { FileListing, type ListingColumns } from "./workspace-listing.js";
import { pendingFiles, runMemoryOp, settlePending, type MemoryOp } from "./memory-sql.js";
import { memoryVectors } from "./memory-vectors.js";
import { MEMORY_DIR, STRUCTURED_DIR } from "../core/memory/files.js";

/** Who calls: their user id, every handle a share may name them by (`user:<id>`, `github:<login>`, `email:<address>`), and how authors show. */
export interface Caller {
  id: string;
  handles: string[];
  label: string;
}

/** A share's handle as people write it: an email or a user id bare, a GitHub login as `github:<login>`. */
export function shownHandle(handle: string): string {
  return handle.startsWith("github:") ? handle : handle.slice(handle.indexOf(":") + 1);
}

/** `no_project`: nothing here this caller may see. The store turns it into its one "not found". */
export type DoError = WsError;
export type DoResult<T> = WsResult<T>;

interface Meta {
  owner: string;
  owner_label: string;
  name: string;
  created_at: string;
  answers: string;
  history_bytes: number;
}

type Row = Record<string, SqlStorageValue>;

const HEAD_COLUMNS = "path, version, size, sha256, updated_at, author";
const NO_PROJECT = { ok: false, kind: "no_project", error: "no project" } as const;
const fail = (kind: WsError["kind"], error: string): WsError => ({ ok: false, kind, error });
const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");
const buffer = (data: Uint8Array): ArrayBuffer => data.slice().buffer as ArrayBuffer;
const bytes = (value: SqlStorageValue): Uint8Array => (value instanceof ArrayBuffer ? new Uint8Array(value) : new Uint8Array(0));

export class WorkspaceProject extends DurableObject {
  private readonly sql: SqlStorage;
  private ready: boolean;
  /** Read on first use, then kept in step with every change (dropped if a change fails part way): see current(). */
  private listing?: FileListing;
  /** Content bytes kept across all versions before the oldest earlier versions are pruned (a field so tests can lower it). */
  historyCap = MAX_HISTORY_BYTES;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    // No tables until a project is created here: probing a name costs nothing.
    this.ready = this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").toArray().length > 0;
  }

  private meta(): Meta | undefined {
    return this.ready ? (this.sql.exec<Meta & Row>("SELECT * FROM meta WHERE id = 1").toArray()[0] as Meta | undefined) : undefined;
  }

  private accessOf(meta: Meta, caller: Caller): Access | undefined {
    if (meta.owner === caller.id) return "owner";
    let best: Access | undefined;
    for (const handle of caller.handles) {
      const row = this.sql.exec<{ access: string }>("SELECT access FROM shares WHERE handle = ?", handle).toArray()[0];
      if (row?.access === "write") return "write";
      if (row?.access === "read") best = "read";
    }
    return best;
  }

  /** The project and the caller's access, if they may do what `need` names. */
  private gate(caller: Caller, need: "read" | "write" | "owner"): { ok: true; meta: Meta; access: Access } | DoError {
    const meta = this.meta();
    const access = meta && this.accessOf(meta, caller);
    if (!meta || !access) return NO_PROJECT;
    if (need === "owner" && access !== "owner") return fail("denied", `Only the owner of "${meta.name}" (${meta.owner_label}) can share or delete it.`);
    if (need === "write" && access === "read") return fail("denied", `You have read access to "${meta.name}"; changing it needs write access from its owner (${meta.owner_label}).`);
    return { ok: true, meta, access };
  }

  private head(path: string): FileEntry | undefined {
    return this.sql.exec<FileEntry & Row>(`SELECT ${HEAD_COLUMNS} FROM files WHERE path = ?`, path).toArray()[0];
  }

  /** The current files, read once, then kept in step with every change. */
  private current(): FileListing {
    return (this.listing ??= new FileListing(this.sql.exec<ListedFile & Row>("SELECT path, version, size FROM files").toArray()));
  }

  private totals(): { files: number; bytes: number } {
    const files = this.current();
    return { files: files.count, bytes: files.bytes };
  }

  private content(path: string, version: number): Uint8Array {
    return bytes(this.sql.exec<{ data: SqlStorageValue }>("SELECT data FROM versions WHERE path = ? AND version = ?", path, version).one().data);
  }

  /** `if_version` against the file as it is now (0: it does not exist). */
  private conflict(path: string, head: FileEntry | undefined, ifVersion: number | undefined): WsError | undefined {
    const current = head?.version ?? 0;
    if (ifVersion === undefined || ifVersion === current) return undefined;
    const now = head ? `is at version ${current} (by ${head.author}, ${head.updated_at})` : "does not exist now (version 0)";
    return fail("conflict", `Conflict: ${path} ${now}, not version ${ifVersion}. Read it, merge your change, and retry with if_version ${current}.`);
  }

  /** One change, all or nothing. A change that fails part way may have reached the listing: it is read again. */
  private transaction<T>(change: () => T): T {
    try {
      return this.ctx.storage.transactionSync(change);
    } catch (error) {
      this.listing = undefined;
      throw error;
    }
  }

  /** Not found, with the closest paths in the same folder, or how to bring back a deleted file. */
  private noFile(meta: Meta, path: string): WsError {
    const last = this.sql.exec<{ version: number }>("SELECT MAX(version) AS version FROM versions WHERE path = ?", path).one().version;
    if (last) return fail("not_found", `${path} was deleted (version ${last}); bmad-files "history" shows its versions and "restore" brings one back.`);
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/") + 1) : "";
    const near = this.sql.exec<{ path: string }>("SELECT path FROM files WHERE path >= ? AND path < ? LIMIT 500", dir, `${dir}\uffff`).toArray().map((r) => r.path);
    return fail("not_found", `No file ${path} in project "${meta.name}".${suggestion(closest(path, near, 3))}`);
  }

  /** Stores one new version and makes it the file's head (inside the caller's transaction). */
  private commit(path: string, data: Uint8Array | null, op: VersionOp, author: string, at: string, restoredFrom?: number): FileEntry {
    const last = this.sql.exec<{ version: number | null }>("SELECT MAX(version) AS version FROM versions WHERE path = ?", path).one().version ?? 0;
    const version = last + 1;
    const size = data?.byteLength ?? 0;
    const sha = data ? sha256(data) : null;
    this.sql.exec(
      "INSERT INTO versions (path, version, op, size, sha256, author, at, restored_from, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      path, version, op, size, sha, author, at, restoredFrom ?? null, data ? buffer(data) : null,
    );
    if (data) this.sql.exec(`INSERT OR REPLACE INTO files (${HEAD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`, path, version, size, sha, at, author);
    else this.sql.exec("DELETE FROM files WHERE path = ?", path);
    this.listing?.set(path, data ? { path, version, size } : undefined);
    this.sql.exec("UPDATE meta SET history_bytes = history_bytes + ? WHERE id = 1", size);
    this.prune();
    return { path, version, size, sha256: sha ?? "", updated_at: at, author };
  }

  /** Past the history cap, the oldest earlier versions lose their content; heads never do. */
  private prune(): void {
    let stored = this.meta()!.history_bytes;
    if (stored <= this.historyCap) return;
    while (stored > this.historyCap) {
      const rows = this.sql
        .exec<{ rowid: number; size: number }>(
          `SELECT v.rowid AS rowid, v.size AS size FROM versions v LEFT JOIN files f ON f.path = v.path AND f.version = v.version
           WHERE v.data IS NOT NULL AND v.pruned = 0 AND f.path IS NULL ORDER BY v.rowid LIMIT 100`,
        )
        .toArray();
      if (!rows.length) break;
      for (const row of rows) {
        if (stored <= this.historyCap) break;
        this.sql.exec("UPDATE versions SET data = NULL, pruned = 1 WHERE rowid = ?", row.rowid);
        stored -= row.size;
      }
    }
    this.sql.exec("UPDATE meta SET history_bytes = ? WHERE id = 1", stored);
  }

  private createTables(): void {
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS meta (id INTEGER PRIMARY KEY CHECK (id = 1), owner TEXT NOT NULL, owner_label TEXT NOT NULL, name TEXT NOT NULL,
        created_at TEXT NOT NULL, answers TEXT NOT NULL, history_bytes INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS shares (handle TEXT PRIMARY KEY, access TEXT NOT NULL, at TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, version INTEGER NOT NULL, size INTEGER NOT NULL, sha256 TEXT NOT NULL,
        updated_at TEXT NOT NULL, author TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS versions (path TEXT NOT NULL, version INTEGER NOT NULL, op TEXT NOT NULL, size INTEGER NOT NULL, sha256 TEXT,
        author TEXT NOT NULL, at TEXT NOT NULL, restored_from INTEGER, data BLOB, pruned INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (path, version));
    `);
    this.ready = true;
  }

  /** Creates the project with its first files, all or nothing. */
  init(caller: Caller, name: string, answers: InstallerAnswers, files: Array<{ path: string; data: Uint8Array }>, now: string): DoResult<ProjectInfo> {
    if (this.meta()) return fail("conflict", `You already have a project "${name}".`);
    for (const f of files) {
      const checked = checkWorkspacePath(f.path);
      if (!checked.ok) return fail("invalid", checked.error);
    }
    const fits = checkWriteAll(name, { files: 0, bytes: 0, sizes: new Map() }, files.map((f) => ({ path: f.path, size: f.data.byteLength })));
    if (!fits.ok) return fail("limit", fits.error);
    this.transaction(() => {
      this.createTables();
      this.sql.exec(
        "INSERT INTO meta (id, owner, owner_label, name, created_at, answers, history_bytes) VALUES (1, ?, ?, ?, ?, ?, 0)",
        caller.id, caller.label, name, now, JSON.stringify(answers),
      );
      for (const f of files) this.commit(f.path, f.data, "create", caller.label, now);
    });
    return this.info(caller);
  }

  info(caller: Caller): DoResult<ProjectInfo> {
    const g = this.gate(caller, "read");
    if (!g.ok) return g;
    const { meta, access } = g;
    const info: ProjectInfo = {
      project: meta.name, name: meta.name, owner: access === "owner" ? "you" : meta.owner_label, access,
      created_at: meta.created_at, answers: JSON.parse(meta.answers) as InstallerAnswers, ...this.totals(),
    };
    if (access === "owner") {
      info.shares = this.sql.exec<{ handle: string; access: "read" | "write" }>("SELECT handle, access FROM shares ORDER BY handle").toArray()
        .map((s) => ({ with: shownHandle(s.handle), access: s.access }));
    }
    return { ok: true, value: info };
  }

  read(caller: Caller, path: string, version?: number): DoResult<FileContent> {
    const checked = checkWorkspacePath(path);
    if (!checked.ok) return fail("invalid", checked.error);
    const g = this.gate(caller, "read");
    if (!g.ok) return g;
    this.writeMemories(path);
    if (version === undefined) {
      const head = this.head(path);
      return head ? { ok: true, value: { ...head, data: this.content(path, head.version) } } : this.noFile(g.meta, path);
    }
    const row = this.sql.exec<Row>("SELECT op, size, sha256, author, at, data, pruned FROM versions WHERE path = ? AND version = ?", path, version).toArray()[0];
    const unusable = this.unusable(g.meta, path, version, row);
    if (unusable) return unusable;
    return { ok: true, value: { path, version, size: row!.size as number, sha256: row!.sha256 as string, updated_at: row!.at as string, author: row!.author as string, data: bytes(row!.data!) } };
  }

  /** Why an earlier version cannot be read or restored, if it cannot. */
  private unusable(meta: Meta, path: string, version: number, row: Row | undefined): WsError | undefined {
    if (!row) {
      const last = this.sql.exec<{ version: number | null }>("SELECT MAX(version) AS version FROM versions WHERE path = ?", path).one().version;
      return last ? fail("not_found", `${path} has versions 1 to ${last}; there is no version ${version}.`) : this.noFile(meta, path);
    }
    if (row.op === "delete") return fail("invalid", `Version ${version} of ${path} is its deletion; choose an earlier version (history lists them).`);
    if (row.pruned) return fail("not_found", `Version ${version} of ${path} is too old: its content was dropped to keep the project's history under ${this.historyCap / 1024 / 1024} MiB.`);
    return undefined;
  }

  write(caller: Caller, path: string, data: Uint8Array, append: boolean, ifVersion: number | undefined, now: string): DoResult<FileEntry> {
    const checked = checkWorkspacePath(path);
    if (!checked.ok) return fail("invalid", checked.error);
    const g = this.gate(caller, "write");
    if (!g.ok) return g;
    this.writeMemories(path);
    const head = this.head(path);
    const conflict = this.conflict(path, head, ifVersion);
    if (conflict) return conflict;
    const newSize = (append && head ? head.size : 0) + data.byteLength;
    const fits = checkWrite({ project: g.meta.name, path, ...this.totals(), oldSize: head?.size, newSize });
    if (!fits.ok) return fail("limit", fits.error);
    const next = append && head ? concat(this.content(path, head.version), data) : data;
    const entry = this.transaction(() => this.commit(path, next, append && head ? "append" : "write", caller.label, now));
    return { ok: true, value: entry };
  }

  restore(caller: Caller, path: string, version: number, ifVersion: number | undefined, now: string): DoResult<FileEntry> {
    const from = this.read(caller, path, version);
    if (!from.ok) return from;
    const g = this.gate(caller, "write");
    if (!g.ok) return g;
    this.writeMemories(path);
    const head = this.head(path);
    const conflict = this.conflict(path, head, ifVersion);
    if (conflict) return conflict;
    const fits = checkWrite({ project: g.meta.name, path, ...this.totals(), oldSize: head?.size, newSize: from.value.size });
    if (!fits.ok) return fail("limit", fits.error);
    return { ok: true, value: this.transaction(() => this.commit(path, from.value.data, "restore", caller.label, now, version)) };
  }

  remove(caller: Caller, path: string, ifVersion: number | undefined, now: string): DoResult<{ path: string; version: number }> {
    const checked = checkWorkspacePath(path);
    if (!checked.ok) return fail("invalid", checked.error);
    const g = this.gate(caller, "write");
    if (!g.ok) return g;
    this.writeMemories(path);
    const head = this.head(path);
    if (!head) return this.noFile(g.meta, path);
    const conflict = this.conflict(path, head, ifVersion);
    if (conflict) return conflict;
    const entry = this.transaction(() => this.commit(path, null, "delete", caller.label, now));
    return { ok: true, value: { path, version: entry.version } };
  }

  history(caller: Caller, path: string, limit = 1000): DoResult<VersionEntry[]> {
    const checked = checkWorkspacePath(path);
    if (!checked.ok) return fail("invalid", checked.error);
    const g = this.gate(caller, "read");
    if (!g.ok) return g;
    this.writeMemories(path);
    const rows = this.sql.exec<Row>("SELECT version, op, size, sha256, author, at, restored_from, pruned FROM versions WHERE path = ? ORDER BY version DESC LIMIT ?", path, limit).toArray();
    if (!rows.length) return this.noFile(g.meta, path);
    return {
      ok: true,
      value: rows.map((r) => ({
        version: r.version as number, op: r.op as VersionOp, size: r.size as number, author: r.author as string, at: r.at as string,
        ...(r.sha256 ? { sha256: r.sha256 as string } : {}), ...(r.restored_from ? { restored_from: r.restored_from as number } : {}), ...(r.pruned ? { pruned: true } : {}),
      })),
    };
  }

  list(caller: Caller, glob = "**"): DoResult<ListingColumns> {
    const compiled = compileGlob(glob);
    if (!compiled.ok) return fail("invalid", compiled.error);
    const g = this.gate(caller, "read");
    if (!g.ok) return g;
    this.writeMemories();
    return { ok: true, value: this.current().match(compiled.glob) };
  }

  stat(caller: Caller, path: string): DoResult<"file" | "dir" | "missing"> {
    const g = this.gate(caller, "read");
    if (!g.ok) return g;
    this.writeMemories(path);
    if (path === "") return { ok: true, value: "dir" };
    const checked = checkWorkspacePath(path);
    if (!checked.ok) return { ok: true, value: "missing" };
    if (this.head(path)) return { ok: true, value: "file" };
    const below = this.sql.exec("SELECT 1 FROM files WHERE path > ? AND path < ? LIMIT 1", `${path}/`, `${path}0`).toArray().length;
    return { ok: true, value: below ? "dir" : "missing" };
  }

  children(caller: Caller, dir: string): DoResult<string[]> {
    const g = this.gate(caller, "read");
    if (!g.ok) return g;
    this.writeMemories(dir);
    if (dir !== "" && !checkWorkspacePath(dir).ok) return { ok: true, value: [] };
    const prefix = dir ? `${dir}/` : "";
    const rows = dir
      ? this.sql.exec<{ path: string }>("SELECT path FROM files WHERE path > ? AND path < ?", prefix, `${dir}0`).toArray()
      : this.sql.exec<{ path: string }>("SELECT path FROM files").toArray();
    return { ok: true, value: [...new Set(rows.map((r) => r.path.slice(prefix.length).split("/")[0]!))].sort() };
  }

  /** New installer answers and the files they change, as one step. */
  configure(caller: Caller, answers: InstallerAnswers, files: Array<{ path: string; data: Uint8Array }>, now: string): DoResult<{ changed: string[] }> {
    const g = this.gate(caller, "write");
    if (!g.ok) return g;
    const changed = files.filter((f) => this.head(f.path)?.sha256 !== sha256(f.data));
    for (const f of changed) {
      const checked = checkWorkspacePath(f.path);
      if (!checked.ok) return fail("invalid", checked.error);
    }
    const sizes = new Map(changed.map((f) => [f.path, this.head(f.path)?.size]).filter((e): e is [string, number] => e[1] !== undefined));
    const fits = checkWriteAll(g.meta.name, { ...this.totals(), sizes }, changed.map((f) => ({ path: f.path, size: f.data.byteLength })));
    if (!fits.ok) return fail("limit", fits.error);
    this.transaction(() => {
      this.sql.exec("UPDATE meta SET answers = ? WHERE id = 1", JSON.stringify(answers));
      for (const f of changed) this.commit(f.path, f.data, "config", caller.label, now);
    });
    return { ok: true, value: { changed: changed.map((f) => f.path) } };
  }

  /** Grants, changes or (with "none") revokes a share. Owner only. */
  share(caller: Caller, handle: string, access: ShareAccess, now: string): DoResult<{ previous: ShareAccess; owner: string; owner_label: string; name: string }> {
    const g = this.gate(caller, "owner");
    if (!g.ok) return g;
    const previous = (this.sql.exec<{ access: ShareAccess }>("SELECT access FROM shares WHERE handle = ?", handle).toArray()[0]?.access ?? "none") as ShareAccess;
    if (access === "none") this.sql.exec("DELETE FROM shares WHERE handle = ?", handle);
    else this.sql.exec("INSERT OR REPLACE INTO shares (handle, access, at) VALUES (?, ?, ?)", handle, access, now);
    return { ok: true, value: { previous, owner: g.meta.owner, owner_label: g.meta.owner_label, name: g.meta.name } };
  }

  /** Project memory (memory-sql.ts), behind the same access check as the files: remembering needs write access. */
  async memory(caller: Caller, op: MemoryOp): Promise<DoResult<unknown>> {
    const g = this.gate(caller, op.op === "remember" ? "write" : "read");
    if (!g.ok) return g;
    const out = await runMemoryOp(this.ctx.storage, op, {
      list: () => this.sql.exec<{ path: string; size: number; sha256: string }>("SELECT path, size, sha256 FROM files WHERE path > ? AND path < ?", `${MEMORY_DIR}/`, `${MEMORY_DIR}0`).toArray(),
      read: (path) => this.text(path),
    }, memoryVectors(this.env, this.ctx.id.toString()));
    return out.ok ? out : fail("invalid", out.error);
  }

  private text(path: string): string | undefined {
    const head = this.head(path);
    return head ? new TextDecoder().decode(this.content(path, head.version)) : undefined;
  }

  /** Memories remembered since their structured file was last written go into it before anyone reads, lists or
   *  changes the files: what bmad-files and pull see is every memory, and an if_version is against that file. */
  private writeMemories(path?: string): void {
    // `path`: a file or folder asked about; only the structured files, their folder and its parents can show them.
    if (path !== undefined && !`${path}/`.startsWith(`${STRUCTURED_DIR}/`) && !`${STRUCTURED_DIR}/`.startsWith(path ? `${path}/` : "")) return;
    for (const file of pendingFiles(this.ctx.storage, (p) => this.text(p))) {
      const data = new TextEncoder().encode(file.text);
      const head = this.head(file.path);
      // Refused when remembered; a file a person grew since then keeps them in memory only, still recalled.
      if (!checkWrite({ project: this.meta()!.name, path: file.path, ...this.totals(), oldSize: head?.size, newSize: data.byteLength }).ok) continue;
      this.transaction(() => {
        if (head?.sha256 !== sha256(data)) this.commit(file.path, data, "write", "remember_structured", new Date().toISOString());
        settlePending(this.ctx.storage, file.type);
      });
    }
  }

  /** Deletes the project and everything in it. Owner only; `confirm` must be its name. Returns whom it was shared with. */
  async destroy(caller: Caller, confirm: string): Promise<DoResult<{ name: string; files: number; handles: string[] }>> {
    const g = this.gate(caller, "owner");
    if (!g.ok) return g;
    if (confirm !== g.meta.name) return fail("invalid", `To delete "${g.meta.name}" and all its files and history, pass confirm: "${g.meta.name}".`);
    const handles = this.sql.exec<{ handle: string }>("SELECT handle FROM shares").toArray().map((r) => r.handle);
    const { files } = this.totals();
    this.ready = false;
    this.listing = undefined;
    await this.ctx.storage.deleteAll();
    return { ok: true, value: { name: g.meta.name, files, handles } };
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}
