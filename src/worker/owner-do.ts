// One Durable Object per owner: the index of their sessions (task names unique per owner, list_sessions), and the
// claims on their refresh tokens (auth/token-endpoint.ts): one step of this object decides which use of a token is first.
import { DurableObject } from "cloudflare:workers";
import { newSession } from "../core/delivery/machine.js";
import { SESSION_ID, summarize, uniqueTaskName, type SessionState, type SessionSummary } from "../core/delivery/session.js";
import { MAKE_ROOM, type ListPlace, type SessionStatusFilter } from "../core/delivery/store.js";
import { MIB } from "../core/workspace/limits.js";

function randomId(): string {
  return [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Sessions one person keeps on the remote (the bridge keeps 200 a project). */
export const MAX_SESSIONS_PER_OWNER = 500;
/** Bytes those keep in all (states, drafts, artifacts): a session filled with 2 MiB drafts kept about 45 MB, and 500 of
 *  them 22 GB (review 212). Ordinary sessions keep well under 1 MB each. */
export const MAX_BYTES_PER_OWNER = 512 * MIB;
/** How long a session's claim counts for others: its action runs under blockConcurrencyWhile, which gives up after 30 s,
 *  so an older claim is one whose action died before settling it. */
const CLAIM_MS = 60_000;
/** Refresh claims kept per grant, newest first. A token older than these is neither the grant's current nor its
 *  previous one, so the provider refuses it anyway; a claim tells a reuse of a recent one from a forgery. */
export const MAX_CLAIMS_PER_GRANT = 20;
/** How long after a refresh token's first use the same client may send it again and be given that first exchange's
 *  answer (a refresh "reuse interval"): two tabs refreshing at once, or a retry after a lost answer, arrive within
 *  seconds, and ending the sign-in for them made the user consent again (review 285). Refusing them instead told a
 *  client whose answer a thief had taken to sign in again, and left the thief's tokens refreshing (review 417): the
 *  same answer for both leaves one chain of tokens, whose next reuse ends the sign-in. Another client's use, or any
 *  use later, still ends it. */
export const REFRESH_REUSE_WINDOW_MS = 30_000;

export class OwnerSessions extends DurableObject {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS sessions (
      session_id TEXT PRIMARY KEY, task_name TEXT NOT NULL UNIQUE, revision INTEGER NOT NULL, updated_at TEXT NOT NULL, summary TEXT NOT NULL,
      bytes INTEGER NOT NULL DEFAULT 0, claim INTEGER NOT NULL DEFAULT 0, claimed_at INTEGER NOT NULL DEFAULT 0)`);
    // An index made before sessions reported their bytes: each counts from its next action.
    const columns = this.sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('sessions')").toArray().map((c) => c.name);
    for (const column of ["bytes", "claim", "claimed_at"]) {
      if (!columns.includes(column)) this.sql.exec(`ALTER TABLE sessions ADD COLUMN ${column} INTEGER NOT NULL DEFAULT 0`);
    }
    this.sql.exec(`CREATE TABLE IF NOT EXISTS refresh_claims (token_hash TEXT PRIMARY KEY, grant_id TEXT NOT NULL DEFAULT '',
      expires_at INTEGER NOT NULL, reused INTEGER NOT NULL DEFAULT 0, client_id TEXT NOT NULL DEFAULT '', claimed_at INTEGER NOT NULL DEFAULT 0,
      answer TEXT NOT NULL DEFAULT '')`);
    // Claims made before they named their grant: none is ever trimmed or dropped with one, and they expire. Claims made
    // before they named their client and time: any second use of them ends the sign-in, as it did then.
    const claimColumns = this.sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('refresh_claims')").toArray().map((c) => c.name);
    if (!claimColumns.includes("grant_id")) this.sql.exec("ALTER TABLE refresh_claims ADD COLUMN grant_id TEXT NOT NULL DEFAULT ''");
    if (!claimColumns.includes("client_id")) this.sql.exec("ALTER TABLE refresh_claims ADD COLUMN client_id TEXT NOT NULL DEFAULT ''");
    if (!claimColumns.includes("claimed_at")) this.sql.exec("ALTER TABLE refresh_claims ADD COLUMN claimed_at INTEGER NOT NULL DEFAULT 0");
    if (!claimColumns.includes("answer")) this.sql.exec("ALTER TABLE refresh_claims ADD COLUMN answer TEXT NOT NULL DEFAULT ''");
    this.sql.exec(`CREATE INDEX IF NOT EXISTS refresh_claims_expiry ON refresh_claims (expires_at);
      CREATE INDEX IF NOT EXISTS refresh_claims_grant ON refresh_claims (grant_id, expires_at)`);
  }

  /** Claims a refresh token (by its hash) for `clientId`'s one exchange, kept until `expiresAt` (ms; the token's
   *  lifetime): "first"; `{ retried }` where the same client claimed it less than REFRESH_REUSE_WINDOW_MS ago and no
   *  reuse followed, with that exchange's sealed answer ("" while it has not answered); or "reused" where it was
   *  claimed before otherwise (a second use, marked so an exchange of the first still under way learns of it).
   *  `issued`: which of its grant's refresh tokens the provider holds it as. One it holds as neither, never claimed, is
   *  "unknown" and leaves no row: a forged token naming this user fills nothing here, and two copies of it end no
   *  sign-in. The previous one, never claimed, was exchanged before claims were kept: a use of it now is a second use
   *  (review 233: a thief's copy of it was let through, and the client's newer token then refused unnoticed). */
  claimRefresh(tokenHash: string, grantId: string, clientId: string, expiresAt: number, issued: "current" | "previous" | undefined): "first" | { retried: string } | "reused" | "unknown" {
    const now = Date.now();
    this.sql.exec("DELETE FROM refresh_claims WHERE expires_at <= ?", now);
    // An answer is kept for its window only: it holds tokens (sealed).
    this.sql.exec("UPDATE refresh_claims SET answer = '' WHERE answer != '' AND claimed_at <= ?", now - REFRESH_REUSE_WINDOW_MS);
    const prior = this.sql.exec<{ client_id: string; claimed_at: number; reused: number; answer: string }>("SELECT client_id, claimed_at, reused, answer FROM refresh_claims WHERE token_hash = ?", tokenHash).toArray()[0];
    if (prior) {
      // A retry of a token whose sign-in a reuse already ended is told so, not that the sign-in lives.
      const retried = clientId !== "" && prior.client_id === clientId && now - prior.claimed_at < REFRESH_REUSE_WINDOW_MS && prior.reused === 0;
      if (retried) return { retried: prior.answer };
      this.sql.exec("UPDATE refresh_claims SET reused = 1, answer = '' WHERE token_hash = ?", tokenHash);
      return "reused";
    }
    if (issued === undefined) return "unknown";
    // The previous token's first use is unknown (claimed_at 0): no window covers it.
    const before = issued === "previous";
    this.sql.exec(
      "INSERT INTO refresh_claims (token_hash, grant_id, expires_at, reused, client_id, claimed_at) VALUES (?, ?, ?, ?, ?, ?)",
      tokenHash, grantId, expiresAt, before ? 1 : 0, clientId, before ? 0 : now,
    );
    // One row a refresh, for 30 days, was 500 rows for 500 refreshes (review 236): the grant keeps its newest only.
    this.sql.exec(
      `DELETE FROM refresh_claims WHERE grant_id = ? AND token_hash NOT IN
        (SELECT token_hash FROM refresh_claims WHERE grant_id = ? ORDER BY expires_at DESC, rowid DESC LIMIT ?)`,
      grantId, grantId, MAX_CLAIMS_PER_GRANT,
    );
    return before ? "reused" : "first";
  }

  /** A sign-in ended by its user or client: its grant's claims go with it. */
  dropRefreshClaims(grantId: string): void {
    this.sql.exec("DELETE FROM refresh_claims WHERE grant_id = ?", grantId);
  }

  /** When each grant's refresh token was last exchanged (ms since the epoch), read from the claims kept anyway: the
   *  connections page tells a user's sign-ins apart by it with no write on any request. */
  lastRefreshes(): { grantId: string; at: number }[] {
    return this.sql.exec<{ grant_id: string; at: number }>(
      "SELECT grant_id, MAX(claimed_at) AS at FROM refresh_claims WHERE grant_id != '' AND claimed_at > 0 AND expires_at > ? GROUP BY grant_id",
      Date.now(),
    ).toArray().map((r) => ({ grantId: r.grant_id, at: r.at }));
  }

  /** Settles a claim once its exchange has answered: one that exchanged nothing is dropped, so the token may be tried
   *  again; one that did keeps `answer` (sealed) for the same client's retries in the window. True if the token was
   *  used again meanwhile. */
  settleRefresh(tokenHash: string, exchanged: boolean, answer = ""): boolean {
    const reused = this.sql.exec<{ reused: number }>("SELECT reused FROM refresh_claims WHERE token_hash = ?", tokenHash).toArray()[0]?.reused === 1;
    if (!exchanged) this.sql.exec("DELETE FROM refresh_claims WHERE token_hash = ?", tokenHash);
    else if (!reused && answer) this.sql.exec("UPDATE refresh_claims SET answer = ? WHERE token_hash = ?", answer, tokenHash);
    return reused;
  }

  /** A new session's first state, its task name reserved in the same step (and not one of `taken`); or why none is
   *  started: the owner keeps MAX_SESSIONS_PER_OWNER already (review 65: a steered model could start sessions, each
   *  an object of up to 512 KiB and its artifacts, with no end). */
  reserve(owner: string, objective: string, now: string, options: { project?: string; taken?: string[] } = {}): SessionState | { refused: string } {
    const held = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM sessions").one().n;
    if (held >= MAX_SESSIONS_PER_OWNER) {
      return { refused: `You have ${held} delivery sessions, the most one person keeps on this server (${MAX_SESSIONS_PER_OWNER}); nothing was started. Carry on in one you have, or delete finished ones: ${MAKE_ROOM}` };
    }
    const taken = new Set(this.sql.exec<{ task_name: string }>("SELECT task_name FROM sessions").toArray().map((r) => r.task_name));
    for (const name of options.taken ?? []) taken.add(name);
    const state = newSession({ session_id: randomId(), task_name: uniqueTaskName(objective, taken), objective, owner, now, ...(options.project ? { project: options.project } : {}) });
    this.write(summarize(state), 0, 0);
    return state;
  }

  /** Only a session `reserve` listed and `forget` has not dropped: a deleted session's last action, published after the
   *  delete, would list it again (a row no session is behind, holding a place). Settles the session's claim: the row is
   *  written anew, its claim 0. */
  record(summary: SessionSummary, revision: number, bytes: number): void {
    const row = this.sql.exec<{ revision: number }>("SELECT revision FROM sessions WHERE session_id = ?", summary.session_id).toArray()[0];
    if (row && row.revision <= revision) this.write(summary, revision, bytes);
  }

  /** The bytes the owner's sessions but `sessionId` keep, as each last reported, with what their actions under way have
   *  claimed; and `upTo` claimed for `sessionId` until `record` or `release` settles it. One step of this object, so
   *  sessions acting at once each see the others' claims (review 218: each read the others' old counts, and 12
   *  submits at once all passed). */
  claim(sessionId: string, upTo: number): number {
    const now = Date.now();
    const others = this.sql.exec<{ n: number }>(
      "SELECT COALESCE(SUM(bytes + CASE WHEN claimed_at > ? THEN claim ELSE 0 END), 0) AS n FROM sessions WHERE session_id != ?",
      now - CLAIM_MS, sessionId,
    ).one().n;
    this.sql.exec("UPDATE sessions SET claim = ?, claimed_at = ? WHERE session_id = ?", upTo, now, sessionId);
    return others;
  }

  /** Drops the claim of an action that wrote nothing. */
  release(sessionId: string): void {
    this.sql.exec("UPDATE sessions SET claim = 0 WHERE session_id = ?", sessionId);
  }

  forget(sessionId: string): void {
    this.sql.exec("DELETE FROM sessions WHERE session_id = ?", sessionId);
  }

  private write(summary: SessionSummary, revision: number, bytes: number): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO sessions (session_id, task_name, revision, updated_at, summary, bytes) VALUES (?, ?, ?, ?, ?, ?)",
      summary.session_id, summary.task_name, revision, summary.updated_at, JSON.stringify(summary), bytes,
    );
  }

  /** A session id or task name -> the session id, if this owner has it. */
  resolve(session: string): string | undefined {
    const column = SESSION_ID.test(session) ? "session_id" : "task_name";
    return this.sql.exec<{ session_id: string }>(`SELECT session_id FROM sessions WHERE ${column} = ?`, session).toArray()[0]?.session_id;
  }

  taskNames(): string[] {
    return this.sql.exec<{ task_name: string }>("SELECT task_name FROM sessions ORDER BY updated_at DESC").toArray().map((r) => r.task_name);
  }

  /** `limit` of a status strictly past `before` in newestFirst order of sessionPlace (created_at, then id), read as
   *  that many rows (2,000 sessions were all parsed on every call: review 30). */
  list(status: SessionStatusFilter, limit: number, before?: ListPlace): { sessions: SessionSummary[]; total: number } {
    const created = "json_extract(summary, '$.created_at')";
    const wanted = [...(status === "all" ? [] : ["json_extract(summary, '$.status') = ?"]), ...(before ? [`(${created} < ? OR (${created} = ? AND session_id < ?))`] : [])];
    const where = wanted.length ? `WHERE ${wanted.join(" AND ")}` : "";
    const params = [...(status === "all" ? [] : [status]), ...(before ? [before.at, before.at, before.id] : [])];
    const total = this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM sessions ${where}`, ...params).one().n;
    const sessions = this.sql.exec<{ summary: string }>(`SELECT summary FROM sessions ${where} ORDER BY ${created} DESC, session_id DESC LIMIT ?`, ...params, limit).toArray().map((r) => JSON.parse(r.summary) as SessionSummary);
    return { sessions, total };
  }
}
