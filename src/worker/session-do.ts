// One SQLite-backed Durable Object per bmad-task session: its state, its stored content (chunked), its artifacts.
// Every change runs read -> step -> write with other calls held off, so two racing clients cannot interleave:
// the loser sees the winner's state and gets the machine's conflict error.
import { DurableObject } from "cloudflare:workers";
import { noArtifact, referencedContent, requeued, versionRef, step, type Action, type QueueChange, type Step, type StoreContent } from "../core/delivery/machine.js";
import { summarize, type SessionState } from "../core/delivery/session.js";
import { parseSessionState } from "../core/delivery/session.schemas.js";
import { tooManyBytes, type Stored } from "../core/delivery/store.js";
import { MAX_BYTES_PER_OWNER } from "./owner-do.js";

const CHUNK_CHARS = 500_000; // SQLite values stay well under the 2 MB row limit

/** Where the chunk of `text` from `start` ends: never between the two halves of a character outside the BMP, which
 *  SQLite stores as two lone halves and reads back as two U+FFFD (review 249: an emoji draft came back changed). */
function chunkEnd(text: string, start: number): number {
  const end = Math.min(start + CHUNK_CHARS, text.length);
  const code = text.charCodeAt(end - 1);
  return end < text.length && code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

export const SESSION_NOT_FOUND = "Session not found.";
/** A change past the owner's bytes, thrown to roll its transaction back; its message is the answer. */
class OverBudget extends Error {}
const byteLength = (text: string) => new TextEncoder().encode(text).byteLength;
const notFound = (): Stored<never> => ({ ok: false, kind: "not_found", error: SESSION_NOT_FOUND });

export class WorkflowSession extends DurableObject {
  private readonly sql: SqlStorage;
  /** The last stored state `get` checked, by its text. */
  private checked?: { json: string; parsed: ReturnType<typeof parseSessionState> };

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
  }

  /** Whether this object holds a session. Its tables are made by `create` alone: a look-up of an id no session has
   *  (any 64 hex digits) leaves nothing stored (review 26: each left an object with empty tables behind). */
  private held(): boolean {
    return this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'state'").toArray().length > 0;
  }

  private load(owner: string, reuse = false): Stored<SessionState> {
    if (!this.held()) return notFound();
    const row = this.sql.exec<{ json: string }>("SELECT json FROM state WHERE id = 1").toArray()[0];
    if (!row) return notFound();
    // Parsed like the bridge's session files: a damaged row is reported, never trusted. `reuse`: the state is only
    // read (sent out as a copy), so the last one checked serves while the stored text is the same.
    const parsed = reuse && this.checked?.json === row.json ? this.checked.parsed : parseSessionState(JSON.parse(row.json));
    if (reuse) this.checked = { json: row.json, parsed };
    if (!parsed.ok) return { ok: false, kind: "invalid", error: `This session's stored state is damaged (${parsed.error}); start a new session.` };
    // Someone else's session is indistinguishable from a missing one.
    return parsed.state.owner === owner ? { ok: true, value: parsed.state } : notFound();
  }

  private save(state: SessionState): void {
    this.sql.exec("INSERT OR REPLACE INTO state (id, json) VALUES (1, ?)", JSON.stringify(state));
  }

  /** What this session keeps, in bytes: its state and its stored texts (their sizes, read without the texts). */
  private bytes(): number {
    return this.sql.exec<{ n: number }>("SELECT (SELECT COALESCE(SUM(octet_length(text)), 0) FROM content) + (SELECT COALESCE(SUM(octet_length(json)), 0) FROM state) AS n").one().n;
  }

  private text(ref: string): string | undefined {
    const rows = this.sql.exec<{ text: string }>("SELECT text FROM content WHERE ref = ? ORDER BY chunk", ref).toArray();
    return rows.length ? rows.map((r) => r.text).join("") : undefined;
  }

  async create(state: SessionState): Promise<SessionState> {
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS state (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS content (ref TEXT NOT NULL, chunk INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (ref, chunk));
      CREATE TABLE IF NOT EXISTS artifacts (file TEXT PRIMARY KEY, ref TEXT NOT NULL);
    `);
    if (!this.sql.exec("SELECT 1 FROM state").toArray().length) this.save(state);
    const stored = this.load(state.owner);
    if (!stored.ok) throw new Error(stored.error);
    return this.publish(stored.value);
  }

  get(owner: string): Stored<SessionState> {
    return this.load(owner, true);
  }

  act(owner: string, action: Action, now: string): Promise<Stored<SessionState>> {
    return this.change(owner, (state) => step(state, action, now));
  }

  updateQueue(owner: string, change: QueueChange, now: string): Promise<Stored<SessionState>> {
    return this.change(owner, (state) => requeued(state, change, now));
  }

  /** Every change, an answer or a queued sub-task as much as a submit, is measured against what the owner's sessions
   *  keep. Its upper bound is claimed in the owner's index first, so sessions changing at once see each other; that call
   *  out would let another call to this session in between read and write, so the whole runs with others held off. */
  private change(owner: string, next: (state: SessionState) => Step): Promise<Stored<SessionState>> {
    return this.ctx.blockConcurrencyWhile(async (): Promise<Stored<SessionState>> => {
      const stored = this.load(owner);
      if (!stored.ok) return stored;
      const result = next(stored.value);
      if (!result.ok) return { ok: false, kind: result.kind, error: result.error };
      const { session_id, task_name } = stored.value;
      const index = this.index(owner);
      // What it could add at most: its texts and its new state, nothing it replaces or prunes taken off.
      const upTo = byteLength(JSON.stringify(result.state)) + result.content.reduce((sum, c) => sum + byteLength(c.text), 0);
      const others = await index.claim(session_id, upTo);
      const before = this.bytes();
      let after = before;
      try {
        this.ctx.storage.transactionSync(() => {
          this.write(result);
          // Measured as written, and undone whole (a throw rolls the transaction back) where it grows this session past
          // what the owner's sessions may keep together, counting what their changes under way claimed. The slack left:
          // a claim is counted whole, so near the limit a change may be refused that would have fit once the other settled.
          after = this.bytes();
          if (after > before && others + after > MAX_BYTES_PER_OWNER) {
            throw new OverBudget(tooManyBytes(task_name, after, others + after, MAX_BYTES_PER_OWNER, "you keep on this server"));
          }
        });
      } catch (e) {
        await index.release(session_id);
        if (e instanceof OverBudget) return { ok: false, kind: "invalid", error: e.message };
        throw e;
      }
      // Its record settles the claim.
      return { ok: true, value: await this.publish(result.state, after) };
    });
  }

  /** A step's new state with the content it stores, in one transaction with its caller's check. */
  private write({ state, content, artifact }: { state: SessionState; content: StoreContent[]; artifact?: { file: string; ref: string } }): void {
    for (const { ref, text } of content) {
      this.sql.exec("DELETE FROM content WHERE ref = ?", ref);
      for (let i = 0, chunk = 0; i < Math.max(text.length, 1); i = chunkEnd(text, i), chunk++) {
        this.sql.exec("INSERT INTO content (ref, chunk, text) VALUES (?, ?, ?)", ref, chunk, text.slice(i, chunkEnd(text, i)));
      }
    }
    if (artifact) this.sql.exec("INSERT OR REPLACE INTO artifacts (file, ref) VALUES (?, ?)", artifact.file, artifact.ref);
    // A superseded draft's texts go (each submit stored up to three, and 10 of 2 MiB grew a session by 35 MiB): kept
    // are what the state names and what a saved artifact was read from.
    const kept = [...referencedContent(state), ...this.sql.exec<{ ref: string }>("SELECT ref FROM artifacts").toArray().map((r) => r.ref)];
    this.sql.exec("DELETE FROM content WHERE ref NOT IN (SELECT value FROM json_each(?))", JSON.stringify(kept));
    this.save(state);
  }

  /** Deletes the session and all it stores, once out of the owner's index: a delete cut short leaves a session that
   *  holds no place and is still found by its id, to delete again; never a listed one with nothing behind it. */
  async destroy(owner: string): Promise<Stored<SessionState>> {
    const stored = this.load(owner);
    if (!stored.ok) return stored;
    await this.index(owner).forget(stored.value.session_id);
    await this.ctx.storage.deleteAll();
    this.checked = undefined;
    return stored;
  }

  readArtifact(owner: string, file: string): Stored<string> {
    const stored = this.load(owner);
    if (!stored.ok) return stored;
    const state = stored.value;
    const row = this.sql.exec<{ ref: string }>("SELECT ref FROM artifacts WHERE file = ?", file).toArray()[0];
    // A rejected or pending draft is a version of its artifact, read from the content it was submitted as.
    const ref = row?.ref ?? versionRef(state, file);
    const text = ref === undefined ? undefined : this.text(ref);
    if (text === undefined) return { ok: false, kind: "not_found", error: noArtifact(state, file) };
    return { ok: true, value: text };
  }

  readContent(owner: string, ref: string): Stored<string> {
    const stored = this.load(owner);
    if (!stored.ok) return stored;
    const text = this.text(ref);
    return text === undefined ? { ok: false, kind: "not_found", error: `No stored content "${ref}".` } : { ok: true, value: text };
  }

  /** Keeps the owner's index in step (its newest revision wins), with what the session keeps now. */
  private async publish(state: SessionState, bytes = this.bytes()): Promise<SessionState> {
    await this.index(state.owner).record(summarize(state), state.revision, bytes);
    return state;
  }

  private index(owner: string) {
    return this.env.OWNER_SESSIONS.get(this.env.OWNER_SESSIONS.idFromName(owner));
  }
}
