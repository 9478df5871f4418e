// Project memory in a workspace's SQLite (the workspace Durable Object calls this behind its access check):
// memories in a table, an FTS5 index over their text and tags (BM25; Porter stems over unicode61 with
// diacritics removed), and the memory files people edit in the workspace (`_bmad/_memory/`, read as on the
// bridge) indexed beside them, again whenever their content changes.
import { isHandFile, MAX_HAND_MEMORIES, memoryFilesOf, memoryLines, mergeMemoryFiles, parseHandFile, parseMemoryLines, structuredFile, structuredType, type Parsed } from "../core/memory/files.js";
import { asStored, entryOf, failureFacets, mergeTags, normaliseText, severityRank, type Memory, type MemoryEntry, type MemoryHit, type MemoryType, type MemResult, MAX_TAGS } from "../core/memory/model.js";
import { MAX_FILE_BYTES } from "../core/workspace/limits.js";
import type { Listed, MemoryFilter, MemoryOrder, Recalled } from "../core/memory/store.js";
import { fuseRanks } from "../core/memory/fusion.js";
import { ftsQuery, queryMatcher, snippet } from "../core/memory/text.js";
import type { MemoryVectors } from "./memory-vectors.js";

export type MemoryOp =
  | { op: "remember"; memory: Memory }
  | { op: "search"; query: string; filter: MemoryFilter; limit: number }
  | { op: "list"; filter: MemoryFilter; order: MemoryOrder; limit: number };

/** The workspace's memory files as the caller may read them: path and content digest, their text and size, and who
 *  last changed each (undefined: the server's own write of remembered memories, or not known). */
export interface MemoryFiles {
  list(): Array<{ path: string; sha256: string }>;
  size(path: string): number | undefined;
  read(path: string): string | undefined;
  author?(path: string): string | undefined;
  /** Who wrote the line of `path` that holds memory `id`, by the file's line authors (never the server's merge): a
   *  memory a person's version changed is theirs, whoever's merge stored that version last (review 51). */
  entryAuthor?(path: string, id: string): string | undefined;
  /** Who wrote lines `from` to `to` of hand-edited `path`, by its line authors: each memory of such a file is its
   *  lines' writers', whoever changed the file next (review 53: the owner's append made a writer's learning theirs). */
  spanAuthor?(path: string, from: number, to: number): string | undefined;
}

type Row = Record<string, SqlStorageValue>;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS memories (id TEXT PRIMARY KEY, type TEXT NOT NULL, agent TEXT NOT NULL, text TEXT NOT NULL,
    tags TEXT NOT NULL, created_at TEXT NOT NULL, category TEXT, severity INTEGER NOT NULL, source TEXT, author TEXT);
  CREATE INDEX IF NOT EXISTS memories_by_type ON memories (type, agent, created_at);
  CREATE INDEX IF NOT EXISTS memories_by_source ON memories (source);
  CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(text, tags, content = 'memories', tokenize = "porter unicode61 remove_diacritics 2");
  CREATE TRIGGER IF NOT EXISTS memories_added AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, text, tags) VALUES (new.rowid, new.text, new.tags); END;
  CREATE TRIGGER IF NOT EXISTS memories_removed AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, text, tags) VALUES ('delete', old.rowid, old.text, old.tags); END;
  CREATE TRIGGER IF NOT EXISTS memories_changed AFTER UPDATE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, text, tags) VALUES ('delete', old.rowid, old.text, old.tags);
    INSERT INTO memories_fts (rowid, text, tags) VALUES (new.rowid, new.text, new.tags); END;
  CREATE TABLE IF NOT EXISTS memory_files (path TEXT PRIMARY KEY, sha256 TEXT NOT NULL, warnings TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS memory_pending (type TEXT PRIMARY KEY, bytes INTEGER NOT NULL);
`;

const COLUMNS = "m.id AS id, m.type AS type, m.agent AS agent, m.text AS text, m.tags AS tags, m.created_at AS created_at, m.source AS source, m.author AS author";
/** Objects whose memory tables exist (made on first use; CREATE ... IF NOT EXISTS, so making them twice is harmless). */
const prepared = new WeakSet<DurableObjectStorage>();

/** A memory with who remembered or wrote it (`by`: asSeenBy keeps it for memories not the caller's). */
function entry(row: Row): MemoryEntry {
  const memory: Memory = { id: row.id as string, type: row.type as Memory["type"], agent: row.agent as string, text: row.text as string, tags: JSON.parse(row.tags as string) as string[], created_at: row.created_at as string };
  // Answers name a hand file's line; a structured file's memories are named by id, as on the bridge (the
  // column also says which file indexed them, so that they go when it changes).
  const source = (row.source as string | null) ?? undefined;
  const author = (row.author as string | null) ?? undefined;
  const made = entryOf(memory, source && isHandFile(source.replace(/:\d+$/, "")) ? source : undefined);
  return author ? { ...made, by: author } : made;
}

/** Entries as the caller (`self`, their label) reads them: a memory someone else remembered or wrote says by whom
 *  (review 38: a writer's planted "decision" read as the owner's), the caller's own says nothing. */
function asSeenBy<T extends MemoryEntry>(entries: T[], self: string | undefined): T[] {
  return entries.map((e) => {
    if (e.by === undefined || e.by !== self) return e;
    const { by: _mine, ...rest } = e;
    return rest as T;
  });
}

/** `AND m.type = ? ...` for a filter, with its values. */
function where(filter: MemoryFilter): { clause: string; values: string[] } {
  const parts: string[] = [];
  const values: string[] = [];
  for (const [column, value] of [["type", filter.type], ["agent", filter.agent], ["category", filter.category]] as const) {
    if (value === undefined) continue;
    parts.push(`m.${column} = ?`);
    values.push(value);
  }
  return { clause: parts.map((p) => ` AND ${p}`).join(""), values };
}

/** `author`: who remembered it, or who last changed the file it was read from (null: not known). */
function insert(sql: SqlStorage, memory: Memory, source: string | null, author: string | null): void {
  const { category, severity } = failureFacets(memory.tags);
  sql.exec(
    "INSERT OR IGNORE INTO memories (id, type, agent, text, tags, created_at, category, severity, source, author) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    memory.id, memory.type, memory.agent, memory.text, JSON.stringify(memory.tags), memory.created_at,
    memory.type === "failures" ? (category ?? null) : null, severityRank(severity), source, author,
  );
}

/** Indexes the memory files whose content changed since they were last indexed; returns every file's warnings. The
 *  hand-edited files give at most MAX_HAND_MEMORIES together: a changed one is parsed with the room the others left
 *  (what is past it is never hashed), so a change costs the changed file alone (review 21: indexing every file again
 *  on each change held a shared project 2.5 to 4 s per append). */
async function syncFiles(storage: DurableObjectStorage, files: MemoryFiles, vectors: MemoryVectors | undefined): Promise<string[]> {
  const sql = storage.sql;
  const indexed = sql.exec<{ path: string; sha256: string; warnings: string }>("SELECT path, sha256, warnings FROM memory_files ORDER BY path").toArray();
  const known = new Map(indexed.map((r) => [r.path, r.sha256]));
  const listed = new Map(files.list().map((f) => [f.path, f]));
  const chosen = memoryFilesOf(listed.keys());
  const current = chosen.paths.flatMap((path) => listed.get(path) ?? []);
  const gone = [...known.keys()].filter((p) => !current.some((f) => f.path === p));
  // A hand file cut short by the room gets its share again when another hand file changes or goes (review 22: the room
  // the first files took was never given back).
  const handMoved = current.some((f) => isHandFile(f.path) && known.get(f.path) !== f.sha256) || gone.some(isHandFile);
  const cut = new Set(handMoved ? indexed.filter((r) => isHandFile(r.path) && r.warnings.includes(`past the ${MAX_HAND_MEMORIES}`)).map((r) => r.path) : []);
  const stale = current.filter((f) => known.get(f.path) !== f.sha256 || cut.has(f.path));
  // A hand file's memories are sourced by line ("path:12").
  const heldBy = (path: string) => sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM memories WHERE source >= ? AND source < ?", `${path}:`, `${path};`).one().n;
  let handRoom = stale.some((f) => isHandFile(f.path)) ? MAX_HAND_MEMORIES - current.filter((f) => isHandFile(f.path) && !stale.includes(f)).reduce((sum, f) => sum + heldBy(f.path), 0) : 0;
  const changed: Array<{ path: string; sha256: string; parsed: Parsed }> = [];
  for (const file of stale) {
    const text = files.read(file.path) ?? "";
    const type = structuredType(file.path);
    const parsed: Parsed = type ? parseMemoryLines(text, file.path) : await parseHandFile(file.path, text, handRoom);
    if (!type) handRoom -= parsed.entries.length;
    changed.push({ path: file.path, sha256: file.sha256, parsed });
  }
  if (changed.length || gone.length) {
    const added: Memory[] = [];
    const before = [...gone, ...changed.map((c) => c.path)].flatMap((path) => idsFrom(sql, path));
    storage.transactionSync(() => {
      for (const path of gone) forget(sql, path);
      for (const c of changed) {
        if (structuredType(c.path)) added.push(...restructure(sql, c.path, c.parsed.entries, (id) => files.entryAuthor?.(c.path, id) ?? files.author?.(c.path) ?? null));
        else {
          // Each memory is credited by its own lines where the store keeps who wrote them; else one that stayed as it
          // was keeps who wrote it, and only what changed is the last writer's (review 45).
          const prior = new Map(sql.exec<{ id: string; text: string; author: string | null }>("SELECT id, text, author FROM memories WHERE source >= ? AND source < ?", `${c.path}:`, `${c.path};`).toArray().map((r) => [r.id, r]));
          forget(sql, c.path);
          c.parsed.entries.forEach((e, k) => {
            const was = prior.get(e.id);
            const from = Number(e.source?.slice(e.source.lastIndexOf(":") + 1)) || 1;
            const written = files.spanAuthor?.(c.path, from, c.parsed.lastLines?.[k] ?? from);
            insert(sql, e, e.source ?? c.path, written ?? (was && was.text === e.text ? was.author : (files.author?.(c.path) ?? null)));
          });
          added.push(...c.parsed.entries);
        }
        sql.exec("INSERT OR REPLACE INTO memory_files (path, sha256, warnings) VALUES (?, ?, ?)", c.path, c.sha256, JSON.stringify(c.parsed.warnings));
      }
    });
    if (vectors) {
      // A memory taken out of every file takes its embedding with it: the vector index keeps no trace of text the
      // project no longer holds.
      const removed = before.filter((id) => !sql.exec("SELECT 1 FROM memories WHERE id = ?", id).toArray().length);
      if (removed.length) await vectors.remove(removed).catch(() => undefined);
      if (added.length) await vectors.upsert(added).catch(() => undefined);
    }
  }
  const rows = changed.length || gone.length ? sql.exec<{ warnings: string }>("SELECT warnings FROM memory_files ORDER BY path").toArray() : indexed;
  return [...chosen.warnings, ...rows.flatMap((r) => (r.warnings === "[]" ? [] : (JSON.parse(r.warnings) as string[])))];
}

/** Every memory's id, none where the project never indexed one. */
export function memoryIds(sql: SqlStorage): string[] {
  const made = sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memories'").toArray().length;
  return made ? sql.exec<{ id: string }>("SELECT id FROM memories").toArray().map((r) => r.id) : [];
}

/** The ids of the memories a memory file indexed. */
const idsFrom = (sql: SqlStorage, path: string) =>
  sql.exec<{ id: string }>("SELECT id FROM memories WHERE source = ? OR (source >= ? AND source < ?)", path, `${path}:`, `${path};`).toArray().map((r) => r.id);

/** Drops what a memory file indexed: a hand file's memories are sourced by line ("path:12"), a structured file's by the file. */
function forget(sql: SqlStorage, path: string): void {
  sql.exec("DELETE FROM memories WHERE source = ? OR (source >= ? AND source < ?)", path, `${path}:`, `${path};`);
  sql.exec("DELETE FROM memory_files WHERE path = ?", path);
}

/** Brings a structured file's indexed memories to `entries`, changing only the memories that differ: an append of one
 *  line to a file of 20,000 re-indexed all of them, a second of FTS work on every recall after a collaborator's append. */
function restructure(sql: SqlStorage, path: string, entries: Memory[], authorOf: (id: string) => string | null): Memory[] {
  const key = (m: Pick<Memory, "type" | "agent" | "text" | "created_at"> & { tags: string }) => JSON.stringify([m.type, m.agent, m.text, m.tags, m.created_at]);
  const held = new Map(sql.exec<Memory & { tags: string } & Row>("SELECT id, type, agent, text, tags, created_at FROM memories WHERE source = ?", path).toArray().map((r) => [r.id, key(r)]));
  const added: Memory[] = [];
  for (const e of entries) {
    const was = held.get(e.id);
    held.delete(e.id);
    if (was === key({ ...e, tags: JSON.stringify(e.tags) })) continue;
    // A memory changed in the file is the changer's; one that stayed keeps whoever first remembered it.
    if (was !== undefined) sql.exec("DELETE FROM memories WHERE id = ?", e.id);
    insert(sql, e, path, authorOf(e.id));
    added.push(e);
  }
  for (const id of held.keys()) sql.exec("DELETE FROM memories WHERE id = ?", id);
  return added;
}

const utf8 = (text: string) => new TextEncoder().encode(text).byteLength;

/** Remembered here and not yet in the workspace's structured file (source NULL): the bytes their lines add to
 *  that file, counted so that a remember the file could not take is refused now, not when the file is written. */
function addPending(sql: SqlStorage, type: MemoryType, bytes: number): void {
  sql.exec("INSERT INTO memory_pending (type, bytes) VALUES (?, ?) ON CONFLICT (type) DO UPDATE SET bytes = bytes + excluded.bytes", type, bytes);
}

/** What the caller of a remember may do: `retag`, grow an existing memory's tags (the owner; a collaborator's re-send
 *  of the owner's text is refused); `room`, why the history cannot take the structured file `path` of that many bytes (the
 *  file is stored whole again when its memories are written into it). */
export interface Rememberer {
  /** The caller's label: who a memory they remember is by, and whose memories answers leave unlabelled. */
  label: string;
  /** The project's owner's label: a memory of theirs in the structured file is stored for everyone. */
  owner: string;
  retag: boolean;
  room(path: string, bytes: number): string | undefined;
}

/** The memory under the id it is stored by where a remember keeps memories (asStored), if it is not stored under its own. */
function storedAs(sql: SqlStorage, memory: Memory): Memory {
  if (sql.exec("SELECT 1 FROM memories WHERE id = ?", memory.id).toArray().length) return memory;
  // The text compared in SQL first: a remember among 10,000 memories reads at most the rows that could be this one.
  return asStored(memory, sql.exec<Pick<Memory, "id" | "type" | "agent" | "text">>("SELECT id, type, agent, text FROM memories WHERE type = ? AND agent = ? AND text = ? AND (source IS NULL OR source = ?)", memory.type, memory.agent, memory.text, structuredFile(memory.type)).toArray());
}

function remember(storage: DurableObjectStorage, memory: Memory, files: MemoryFiles, by?: Rememberer): MemResult<{ id: string; created: boolean; tags: string[] }> {
  const sql = storage.sql;
  return storage.transactionSync(() => {
    const found = sql.exec<{ tags: string; created_at: string; source: string | null; text: string; author: string | null }>("SELECT tags, created_at, source, text, author FROM memories WHERE id = ?", memory.id).toArray()[0];
    // Stored already only where a remember keeps it, as this text: remembered and not yet written (no source), or a line
    // of its structured file that the caller or the owner put there. One only a hand-edited file holds is stored again
    // (review 63: "Already remembered", then the collaborator deleted their file and it was gone), so is one only
    // another member's line holds (review 70: the same, in the structured file), and so is one whose line kept the id
    // and changed the text (review 65): the text given is the memory the id names.
    const keeper = !by || found?.author === by.label || found?.author === by.owner || found?.author === null;
    const row = found && (found.source === null || (found.source === structuredFile(memory.type) && keeper)) && normaliseText(found.text) === normaliseText(memory.text) ? found : undefined;
    const before = row ? (JSON.parse(row.tags) as string[]) : [];
    const tags = mergeTags(before, memory.tags);
    if (row && tags.length === before.length) return { ok: true, value: { id: memory.id, created: false, tags } };
    // A memory's text names it, so anyone could re-send another's with tags of their own ("deprecated"): only the
    // project's owner changes an existing memory's tags.
    if (row && by && !by.retag) return { ok: false, error: `Memory ${memory.id} is stored already; only the project's owner changes its tags. Remember a note of your own instead.` };
    if (tags.length > MAX_TAGS) return { ok: false, error: `Memory ${memory.id} already has ${before.length} tags; with these it would pass ${MAX_TAGS}.` };
    const stored: Memory = row ? { ...memory, tags, created_at: row.created_at } : memory;
    const path = structuredFile(memory.type);
    const fileBytes = files.size(path) ?? 0;
    const pending = sql.exec<{ bytes: number }>("SELECT bytes FROM memory_pending WHERE type = ?", memory.type).toArray()[0]?.bytes ?? 0;
    const lineBytes = utf8(memoryLines([stored]));
    if (fileBytes + pending + lineBytes > MAX_FILE_BYTES) {
      return { ok: false, error: `The workspace's ${path} is full (a workspace file holds at most 1 MiB): delete the ${memory.type} memories that no longer hold from it (bmad-files read, then write it back without them), then remember again.` };
    }
    const full = by?.room(path, fileBytes + pending + lineBytes);
    if (full) return { ok: false, error: full };
    if (row) sql.exec("UPDATE memories SET tags = ?, source = NULL WHERE id = ?", JSON.stringify(tags), memory.id);
    else {
      if (found) sql.exec("DELETE FROM memories WHERE id = ?", memory.id);
      insert(sql, memory, null, by?.label ?? null);
    }
    addPending(sql, memory.type, lineBytes);
    return { ok: true, value: { id: memory.id, created: !row, tags } };
  });
}

/** The structured files as they must read now: each file with the memories remembered since it was last
 *  written (see mergeMemoryFiles). The workspace writes them before anyone reads, lists or changes them, and
 *  then calls settlePending, so that the files, which pull and push carry, hold every memory. */
export function pendingFiles(storage: DurableObjectStorage, read: (path: string) => string | undefined): Array<{ type: MemoryType; path: string; text: string; rememberers: Map<string, string> }> {
  const sql = storage.sql;
  // Asked each time: a project that never remembered has no table, nor one deleted and made again in this object.
  if (!sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memory_pending'").toArray().length) return [];
  return sql.exec<{ type: MemoryType }>("SELECT type FROM memory_pending ORDER BY type").toArray().map(({ type }) => {
    const path = structuredFile(type);
    const rows = sql.exec<Row>(`SELECT ${COLUMNS} FROM memories m WHERE m.source IS NULL AND m.type = ? ORDER BY m.rowid`, type).toArray();
    // Who remembered each (by id): each line the merge adds is theirs.
    const rememberers = new Map(rows.flatMap((r) => (typeof r.author === "string" ? [[r.id as string, r.author]] : [])));
    // The remembered rows win for their ids: a line of the file naming one (under other text, another type, a second
    // time) is no copy of it, and goes; the row is written in its place with all it holds (reviews 65 and 67: the
    // merge kept the file's line, and the memory was lost). Only a line that names an id, or escapes one (`\u0032…`),
    // is read (a file holds up to 20,000).
    const ids = rows.map((r) => r.id as string);
    const file = (read(path) ?? "").split("\n").filter((line) => {
      if (!line.includes("\\u") && !ids.some((id) => line.includes(id))) return true;
      const other = parseMemoryLines(line, path).memories[0];
      return !other || !ids.includes(other.id);
    });
    return { type, path, text: mergeMemoryFiles(path, [file.join("\n"), rows.map((r) => entry(r))]), rememberers };
  });
}

/** Indexes the structured file `path` as a person left it (`text`, by `author`), where it was not indexed so: called
 *  before the server writes its merge of remembered memories over it, which names no person (review 45: a writer's
 *  lines, merged so, read as no one's). Vectors follow at the next recall's indexing, which finds nothing changed. */
export function indexAsWritten(storage: DurableObjectStorage, path: string, sha256: string, text: string, author: string): void {
  const sql = storage.sql;
  const known = sql.exec<{ sha256: string }>("SELECT sha256 FROM memory_files WHERE path = ?", path).toArray()[0]?.sha256;
  if (known === sha256 || !structuredType(path)) return;
  const parsed = parseMemoryLines(text, path);
  restructure(sql, path, parsed.entries, () => author);
  sql.exec("INSERT OR REPLACE INTO memory_files (path, sha256, warnings) VALUES (?, ?, ?)", path, sha256, JSON.stringify(parsed.warnings));
}

/** The file the server's merge just wrote (`sha256`) holds what was indexed from it and the memories it settled: where
 *  the index was in step with the version before (`before`), it is in step with this one, so that a change back to
 *  that earlier version's bytes (a collaborator removing a merged memory) is seen as a change (review 57: the memory
 *  stayed indexed and "already remembered", and was lost). */
export function indexedAsMerged(storage: DurableObjectStorage, path: string, before: string | undefined, sha256: string): void {
  const known = storage.sql.exec<{ sha256: string }>("SELECT sha256 FROM memory_files WHERE path = ?", path).toArray()[0]?.sha256;
  if (known !== before) return;
  storage.sql.exec("INSERT INTO memory_files (path, sha256, warnings) VALUES (?, ?, '[]') ON CONFLICT (path) DO UPDATE SET sha256 = excluded.sha256", path, sha256);
}

/** The memories of `type` remembered here are now in their file: the file's next indexing serves them. */
export function settlePending(storage: DurableObjectStorage, type: MemoryType): void {
  // Now indexed as the file's, as its next indexing finds them: each keeps who remembered it (the file's write is the
  // server's, and names no one).
  storage.sql.exec("UPDATE memories SET source = ? WHERE source IS NULL AND type = ?", structuredFile(type), type);
  storage.sql.exec("DELETE FROM memory_pending WHERE type = ?", type);
}

/** Row ids and BM25 ranks of the best `limit` matches (ranked on ids alone: texts are read for the few kept). */
function ranked(sql: SqlStorage, match: string, filter: MemoryFilter, limit: number): Array<{ entry: MemoryEntry; rank: number }> {
  const { clause, values } = where(filter);
  const join = clause ? " JOIN memories m ON m.rowid = memories_fts.rowid" : "";
  return sql
    .exec<Row>(
      `SELECT ${COLUMNS}, t.rank AS rank FROM (SELECT memories_fts.rowid AS r, bm25(memories_fts, 2.0, 1.0) AS rank FROM memories_fts${join}
         WHERE memories_fts MATCH ?${clause} ORDER BY rank LIMIT ?) t JOIN memories m ON m.rowid = t.r ORDER BY t.rank`,
      match, ...values, limit,
    )
    .toArray()
    .map((r) => ({ entry: entry(r), rank: r.rank as number }));
}

/** The entries of these ids that pass the filter, in the order given. */
function byIds(sql: SqlStorage, ids: string[], filter: MemoryFilter): MemoryEntry[] {
  const { clause, values } = where(filter);
  const rows = sql.exec<Row>(`SELECT ${COLUMNS} FROM memories m WHERE m.id IN (SELECT value FROM json_each(?))${clause}`, JSON.stringify(ids), ...values).toArray();
  const found = new Map(rows.map((r) => [r.id as string, entry(r)]));
  return ids.flatMap((id) => found.get(id) ?? []);
}

/** Candidates each ranking contributes to the fusion. */
const FUSED_DEPTH = 50;

async function search(sql: SqlStorage, vectors: MemoryVectors | undefined, query: string, filter: MemoryFilter, limit: number, warnings: string[]): Promise<MemResult<Recalled>> {
  const match = ftsQuery(query);
  if (!match) return { ok: true, value: { mode: "bm25", hits: [], warnings } };
  const matches = queryMatcher(query);
  const hit = (e: MemoryEntry, score: number): MemoryHit => ({ ...e, score, snippet: snippet(e.text, matches) });
  if (vectors) {
    const near = await vectors.nearest(query, FUSED_DEPTH).then((ids) => byIds(sql, ids, filter).map((e) => e.id), (error: Error) => error);
    if (!(near instanceof Error)) {
      const fused = fuseRanks([ranked(sql, match, filter, FUSED_DEPTH).map((r) => r.entry.id), near]).slice(0, limit);
      const score = new Map(fused.map((f) => [f.id, Math.round(f.score * 10000) / 10000]));
      return { ok: true, value: { mode: "hybrid", hits: byIds(sql, fused.map((f) => f.id), {}).map((e) => hit(e, score.get(e.id)!)), warnings } };
    }
    warnings = [...warnings, `Vector search failed (${near.message.slice(0, 200)}); ranked by BM25 alone.`];
  }
  // Three significant digits, not three decimals: BM25 gives a word in half the memories or more next to no weight, and
  // a small project's every match showed as "score 0" (review 159).
  const hits = ranked(sql, match, filter, limit).map((r) => hit(r.entry, Number((-r.rank).toPrecision(3))));
  return { ok: true, value: { mode: "bm25", hits, warnings } };
}

function list(sql: SqlStorage, filter: MemoryFilter, order: MemoryOrder, limit: number, warnings: string[]): MemResult<Listed> {
  const { clause, values } = where(filter);
  const sort = order === "severity" ? "m.severity DESC, m.created_at DESC, m.rowid DESC" : "m.created_at DESC, m.rowid DESC";
  const rows = sql.exec<Row>(`SELECT ${COLUMNS} FROM memories m WHERE 1${clause} ORDER BY ${sort} LIMIT ?`, ...values, limit).toArray();
  const total = sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM memories m WHERE 1${clause}`, ...values).one().n;
  return { ok: true, value: { entries: rows.map((r) => entry(r)), total, warnings } };
}

/** `vectors`: the project's vector index where the deployment binds one (recall then fuses both rankings). */
export async function runMemoryOp(storage: DurableObjectStorage, op: MemoryOp, files: MemoryFiles, vectors?: MemoryVectors, by?: Rememberer): Promise<MemResult<unknown>> {
  if (!prepared.has(storage)) {
    prepare(storage);
    prepared.add(storage);
  }
  try {
    return await run(storage, op, files, vectors, by);
  } catch (error) {
    // The project was deleted and made anew in this same object: its memory tables went with it.
    if (!/no such table/.test(String(error))) throw error;
    prepare(storage);
    return run(storage, op, files, vectors, by);
  }
}

/** The tables, and the columns tables made before them lack. */
export function prepare(storage: DurableObjectStorage): void {
  storage.sql.exec(SCHEMA);
  const columns = storage.sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('memories')").toArray().map((c) => c.name);
  if (!columns.includes("author")) storage.sql.exec("ALTER TABLE memories ADD COLUMN author TEXT");
}

async function run(storage: DurableObjectStorage, op: MemoryOp, files: MemoryFiles, vectors: MemoryVectors | undefined, by: Rememberer | undefined): Promise<MemResult<unknown>> {
  if (op.op === "remember") {
    // The index brought in step with the files first: a memory someone removed from its file since is remembered
    // anew, never answered "already remembered" and then lost (review 57). Nothing changed, this reads two lists.
    await syncFiles(storage, files, vectors);
    const memory = storedAs(storage.sql, op.memory);
    const stored = remember(storage, memory, files, by);
    // A memory whose embedding fails is still stored, and found by BM25.
    if (stored.ok && stored.value.created && vectors) await vectors.upsert([memory]).catch(() => undefined);
    return stored;
  }
  const warnings = await syncFiles(storage, files, vectors);
  if (op.op === "search") {
    const found = await search(storage.sql, vectors, op.query, op.filter, op.limit, warnings);
    return found.ok ? { ok: true, value: { ...found.value, hits: asSeenBy(found.value.hits, by?.label) } } : found;
  }
  const listed = list(storage.sql, op.filter, op.order, op.limit, warnings);
  return listed.ok ? { ok: true, value: { ...listed.value, entries: asSeenBy(listed.value.entries, by?.label) } } : listed;
}
