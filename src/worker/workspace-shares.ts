// A project's shares, in its workspace object's SQLite: who it is offered to (by handle), with what access, and
// whether they accepted. A share is an offer until its recipient accepts it: only accepted shares grant access.
import * as z from "zod";
import type { Access, ShareAccess } from "../core/workspace/store.js";

const SHARE_ROW = z.object({
  handle: z.string(),
  access: z.enum(["read", "write"]),
  accepted: z.union([z.literal(0), z.literal(1)]).transform((a) => a === 1),
  person: z.string().nullable().optional(),
});
export type ShareRow = z.infer<typeof SHARE_ROW>;

export class ProjectShares {
  constructor(private readonly sql: SqlStorage) {}

  createTable(): void {
    this.sql.exec("CREATE TABLE IF NOT EXISTS shares (handle TEXT PRIMARY KEY, access TEXT NOT NULL, at TEXT NOT NULL, accepted INTEGER NOT NULL DEFAULT 0, person TEXT)");
  }

  /** Projects shared before consent: their shares become offers, to accept or decline. Shares accepted before they
   *  said by whom name no one (`person`). */
  migrate(): void {
    const columns = this.sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('shares')").toArray().map((c) => c.name);
    if (columns.length && !columns.includes("accepted")) this.sql.exec("ALTER TABLE shares ADD COLUMN accepted INTEGER NOT NULL DEFAULT 0");
    if (columns.length && !columns.includes("person")) {
      this.sql.exec("ALTER TABLE shares ADD COLUMN person TEXT");
      // A user id handle names its person; the others are named as their person next uses them (accessOf).
      this.sql.exec("UPDATE shares SET person = substr(handle, 6) WHERE accepted = 1 AND handle LIKE 'user:%'");
    }
  }

  /** Every share, by handle. */
  all(): ShareRow[] {
    return this.sql.exec("SELECT handle, access, accepted, person FROM shares ORDER BY handle").toArray().map((r) => SHARE_ROW.parse(r));
  }

  /** The shares to any of these handles. */
  of(handles: string[]): ShareRow[] {
    return this.sql.exec("SELECT handle, access, accepted, person FROM shares WHERE handle IN (SELECT value FROM json_each(?))", JSON.stringify(handles)).toArray().map((r) => SHARE_ROW.parse(r));
  }

  /** The shares that are `person`'s, who holds `handles`: offers to those handles, and shares they accepted (or that
   *  name nobody yet), under any handle. A share another person accepted stays theirs whoever holds its handle now: a
   *  GitHub login or an email address can pass to someone else, who got the project without accepting it (review 38). */
  ofPerson(handles: string[], person: string): ShareRow[] {
    return this.sql.exec(
      `SELECT handle, access, accepted, person FROM shares WHERE (handle IN (SELECT value FROM json_each(?)) AND ${ANSWERABLE}) OR (accepted = 1 AND person = ?)`,
      JSON.stringify(handles), person, person,
    ).toArray().map((r) => SHARE_ROW.parse(r));
  }

  /** The share indexes (workspace-index-do.ts) that hold a row of these shares: each handle's, and each accepted
   *  share's person's own (`user:<id>`), where an accept keeps it. */
  static indexesOf(rows: Array<{ handle: string; person?: string | null }>): string[] {
    return [...new Set(rows.flatMap((r) => [r.handle, ...(r.person ? [`user:${r.person}`] : [])]))];
  }

  /** What the shares `person`, who holds `handles`, accepted let them do (none: nothing). Shares accepted before
   *  they named their person are named now, so that withdrawing one withdraws them all (review 28). */
  accessOf(handles: string[], person: string): Access | undefined {
    const accepted = this.ofPerson(handles, person).filter((s) => s.accepted);
    if (accepted.some((s) => !s.person)) this.sql.exec("UPDATE shares SET person = ? WHERE accepted = 1 AND person IS NULL AND handle IN (SELECT value FROM json_each(?))", person, JSON.stringify(handles));
    return accepted.some((s) => s.access === "write") ? "write" : accepted.length ? "read" : undefined;
  }

  /** Offers, changes or (with "none") withdraws a share; a change of access keeps it accepted. A share withdrawn takes
   *  with it the shares its person accepted to their other handles (one accept answers them all): "no longer has access"
   *  was said while the person kept it through another (review 26). `withdrawn`: the handles that lost a share.
   *  `unnamed`: a withdrawn share accepted before shares said by whom, and not yet named (accessOf), cannot say whose
   *  other shares to take: these are the accepted shares left, any of which may be the same person's (review 30). */
  set(handle: string, access: ShareAccess, now: string): { previous: ShareAccess; withdrawn: string[]; unnamed: string[] } {
    const previous = this.of([handle])[0]?.access ?? "none";
    if (access === "none") {
      const row = this.sql.exec<{ person: string | null; accepted: number }>("SELECT person, accepted FROM shares WHERE handle = ?", handle).toArray()[0];
      const rows = this.sql.exec<{ handle: string; person: string | null }>("DELETE FROM shares WHERE handle = ? OR person = ? RETURNING handle, person", handle, row?.person ?? null).toArray();
      const withdrawn = ProjectShares.indexesOf(rows);
      const unnamed = row?.accepted && !row.person ? this.sql.exec<{ handle: string }>("SELECT handle FROM shares WHERE accepted = 1 ORDER BY handle LIMIT 20").toArray().map((r) => r.handle) : [];
      return { previous, withdrawn, unnamed };
    } else {
      this.sql.exec(
        "INSERT INTO shares (handle, access, at, accepted) VALUES (?, ?, ?, 0) ON CONFLICT (handle) DO UPDATE SET access = excluded.access, at = excluded.at",
        handle, access, now,
      );
    }
    return { previous, withdrawn: [], unnamed: [] };
  }

  /** The recipient's (`person`'s) answer to every share that is theirs (ofPerson): accepted, or removed. */
  answer(handles: string[], accept: boolean, person: string): void {
    const list = JSON.stringify(handles);
    if (accept) this.sql.exec(`UPDATE shares SET accepted = 1, person = ? WHERE handle IN (SELECT value FROM json_each(?)) AND ${ANSWERABLE}`, person, list, person);
    else this.sql.exec(`DELETE FROM shares WHERE (handle IN (SELECT value FROM json_each(?)) AND ${ANSWERABLE}) OR (accepted = 1 AND person = ?)`, list, person, person);
  }
}

/** A share its handle's holder (the `?`) may answer or use: an offer, one they accepted, or one accepted before
 *  shares named their person. */
const ANSWERABLE = "(accepted = 0 OR person IS NULL OR person = ?)";
