// One Durable Object per identity handle (`user:<id>`, `email:<address>`): the projects that identity owns
// (for `list` and the per-user limit) and the projects shared with it (so the grantee's `list` shows them),
// each pending until the grantee accepts it. An index is a directory, not the authority: every project
// checks access itself, on every call, and a pending share grants nothing there either.
import { DurableObject } from "cloudflare:workers";
import * as z from "zod";

const RECEIVED_ROW = z.object({
  owner: z.string(),
  owner_label: z.string(),
  name: z.string(),
  access: z.enum(["read", "write"]),
  at: z.string(),
  accepted: z.union([z.literal(0), z.literal(1)]).transform((a) => a === 1),
});
/** An owned name's state: `pending` while its create runs, `live` once the project answered it, `deleting` while its
 *  delete runs. A create or delete cut short leaves its row pending or deleting; a listing settles it by asking the
 *  project (workspace-store.ts), so the index never lists a project that is not there, nor hides one that is. */
export const OWNED_STATES = ["pending", "live", "deleting"] as const;
const OWNED_ROW = z.object({ name: z.string(), created_at: z.string(), state: z.enum(OWNED_STATES) });
export type OwnedRow = z.infer<typeof OWNED_ROW>;

export type ReceivedShare = z.infer<typeof RECEIVED_ROW>;

/** How long a decline keeps its owner from offering that project again, and how many declines an index keeps (the
 *  oldest go first): a decline must stick (review 256: a declined offer came straight back), yet not pile up. */
export const DECLINE_KEPT_MS = 30 * 24 * 60 * 60 * 1000;
const MAX_DECLINED = 100;
const DECLINED_ROW = z.object({ owner: z.string(), owner_label: z.string(), name: z.string(), at: z.string() });
export type Declined = z.infer<typeof DECLINED_ROW>;

/** The result of an offer: where it was recorded, or why not (the owner's offers waiting here are at the limit, or the
 *  recipient declined this project `at`). */
export type Offered = { ok: true; state: "new" | "changed" } | { ok: false; reason: "limit" } | { ok: false; reason: "declined"; at: string };

/** Where a project stands, as the project itself says: its state and the number of its last change of state, which
 *  only grows (workspace-do.ts), so the index takes the latest it has heard whatever order answers arrive in. */
export type Standing = { seq: number } & ({ state: "live"; created_at: string } | { state: "deleted"; until: string } | { state: "none" });

export class WorkspaceIndex extends DurableObject {
  private readonly sql: SqlStorage;
  /** Whether the tables are made: not until something is written, and not again once revoke leaves nothing, so an
   *  offer made and withdrawn keeps no object for the address it named (review 236: 150 addresses, 150 objects). */
  private ready: boolean;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.ready = false;
    // An index that holds tables gets any a later change added (review 238: `standing` was made only at a first write).
    if (this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'received'").toArray().length) {
      this.makeTables();
      this.migrate();
    }
  }

  /** Tables from before a change get its columns. */
  private migrate(): void {
    // Indexes made before consent: their shares become offers, to accept or decline.
    const columns = this.sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('received')").toArray().map((c) => c.name);
    if (!columns.includes("accepted")) this.sql.exec("ALTER TABLE received ADD COLUMN accepted INTEGER NOT NULL DEFAULT 0");
    // Indexes made before names had states: every name they hold is a project made whole.
    const ownedColumns = this.sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('owned')").toArray().map((c) => c.name);
    if (!ownedColumns.includes("state")) this.sql.exec("ALTER TABLE owned ADD COLUMN state TEXT NOT NULL DEFAULT 'live'");
  }

  /** The tables, made before the first write. */
  private makeTables(): void {
    if (this.ready) return;
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS owned (name TEXT PRIMARY KEY, created_at TEXT NOT NULL, state TEXT NOT NULL DEFAULT 'live');
      CREATE TABLE IF NOT EXISTS deleted (name TEXT PRIMARY KEY, until TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS received (owner TEXT NOT NULL, name TEXT NOT NULL, owner_label TEXT NOT NULL, access TEXT NOT NULL, at TEXT NOT NULL,
        accepted INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (owner, name));
      CREATE TABLE IF NOT EXISTS standing (name TEXT PRIMARY KEY, seq INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS declined (owner TEXT NOT NULL, name TEXT NOT NULL, owner_label TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (owner, name));
    `);
    this.ready = true;
  }

  /** Takes a project name for its owner, unless it is taken or they own `max` already, counting those deleted and still
   *  kept (else a loop of creates and deletes kept any number for a week), but for `name` itself (an undelete). */
  reserve(name: string, now: string, max: number): { ok: true } | { ok: false; reason: "exists" | "limit"; count: number; deleted: number } {
    this.makeTables();
    const deleted = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM deleted WHERE until > ? AND name <> ?", now, name).one().n;
    const count = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM owned").one().n + deleted;
    if (this.sql.exec("SELECT 1 FROM owned WHERE name = ?", name).toArray().length) return { ok: false, reason: "exists", count, deleted };
    if (count >= max) return { ok: false, reason: "limit", count, deleted };
    this.sql.exec("INSERT INTO owned (name, created_at, state) VALUES (?, ?, 'pending')", name, now);
    return { ok: true };
  }

  /** A create takes back a name whose project is gone (a create or delete cut short, or a delete finishing now): it is
   *  pending again, whether or not that delete released it meanwhile. */
  claim(name: string, now: string): void {
    this.makeTables();
    this.sql.exec("INSERT INTO owned (name, created_at, state) VALUES (?, ?, 'pending') ON CONFLICT (name) DO UPDATE SET created_at = excluded.created_at, state = 'pending'", name, now);
  }

  /** The projects deleted and still kept at `now`. */
  keptDeleted(now: string): Array<{ name: string; until: string }> {
    if (!this.ready) return [];
    return this.sql.exec<{ name: string; until: string }>("SELECT name, until FROM deleted WHERE until > ? ORDER BY name", now).toArray().map((r) => ({ name: r.name, until: r.until }));
  }

  /** A name's delete begins (nothing happens to a name the index no longer holds): a delete cut short is then settled
   *  by the next listing. */
  mark(name: string, state: OwnedRow["state"]): void {
    if (!this.ready) return;
    this.sql.exec("UPDATE owned SET state = ? WHERE name = ?", state, name);
  }

  /** The name's rows as its project says it stands, unless the index has heard a later word from it: a create, a
   *  delete and an undelete at once each end here, in any order, and the last change of the project decides (review
   *  73: each set the row as its own call saw it, and a live project dropped out of its owner's list for good). */
  settle(name: string, standing: Standing): void {
    this.makeTables();
    const heard = this.sql.exec<{ seq: number }>("SELECT seq FROM standing WHERE name = ?", name).toArray()[0]?.seq;
    // The same word again is taken again: it puts back a row a delete marked and never finished.
    if (heard !== undefined && standing.seq < heard) return;
    this.sql.exec("INSERT OR REPLACE INTO standing (name, seq) VALUES (?, ?)", name, standing.seq);
    if (standing.state === "live") {
      this.sql.exec("INSERT INTO owned (name, created_at, state) VALUES (?, ?, 'live') ON CONFLICT (name) DO UPDATE SET created_at = excluded.created_at, state = 'live'", name, standing.created_at);
    } else this.sql.exec("DELETE FROM owned WHERE name = ?", name);
    if (standing.state === "deleted") this.sql.exec("INSERT OR REPLACE INTO deleted (name, until) VALUES (?, ?)", name, standing.until);
    else this.sql.exec("DELETE FROM deleted WHERE name = ?", name);
  }

  owned(): OwnedRow[] {
    if (!this.ready) return [];
    return this.sql.exec("SELECT name, created_at, state FROM owned ORDER BY name").toArray().map((r) => OWNED_ROW.parse(r));
  }

  /** Records an offer (or a change of one, which stays accepted if it was): refused where the owner's offers waiting
   *  here are at `maxPending`, or where the recipient declined this project lately. */
  grant(share: Omit<ReceivedShare, "accepted">, maxPending: number): Offered {
    this.makeTables();
    const known = this.sql.exec("SELECT 1 FROM received WHERE owner = ? AND name = ?", share.owner, share.name).toArray().length > 0;
    if (!known) {
      const declined = this.declined().find((d) => d.owner === share.owner && d.name === share.name);
      if (declined) return { ok: false, reason: "declined", at: declined.at };
      if (this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM received WHERE owner = ? AND accepted = 0", share.owner).one().n >= maxPending) return { ok: false, reason: "limit" };
    }
    this.sql.exec(
      `INSERT INTO received (owner, name, owner_label, access, at, accepted) VALUES (?, ?, ?, ?, ?, 0)
       ON CONFLICT (owner, name) DO UPDATE SET owner_label = excluded.owner_label, access = excluded.access, at = excluded.at`,
      share.owner, share.name, share.owner_label, share.access, share.at,
    );
    return { ok: true, state: known ? "changed" : "new" };
  }

  /** A share its person accepted, kept in their own index (`user:<id>`): theirs, whatever handle it was offered to. */
  accept(share: Omit<ReceivedShare, "accepted">): void {
    this.makeTables();
    this.sql.exec(
      `INSERT INTO received (owner, name, owner_label, access, at, accepted) VALUES (?, ?, ?, ?, ?, 1)
       ON CONFLICT (owner, name) DO UPDATE SET owner_label = excluded.owner_label, access = excluded.access, accepted = 1`,
      share.owner, share.name, share.owner_label, share.access, share.at,
    );
  }

  /** A share withdrawn. An index left holding nothing is deleted whole, tables and all: most are an address's, made by
   *  one offer. */
  async revoke(owner: string, name: string): Promise<void> {
    if (!this.ready) return;
    this.sql.exec("DELETE FROM received WHERE owner = ? AND name = ?", owner, name);
    await this.dropIfEmpty();
  }

  /** A share declined: gone, and its owner may not offer it here again for DECLINE_KEPT_MS (30 days), unless the recipient
   *  takes the decline back (undecline). */
  decline(owner: string, owner_label: string, name: string, at: string): void {
    this.makeTables();
    this.sql.exec("DELETE FROM received WHERE owner = ? AND name = ?", owner, name);
    this.sql.exec("INSERT OR REPLACE INTO declined (owner, name, owner_label, at) VALUES (?, ?, ?, ?)", owner, name, owner_label, at);
    this.sql.exec("DELETE FROM declined WHERE rowid NOT IN (SELECT rowid FROM declined ORDER BY at DESC LIMIT ?)", MAX_DECLINED);
  }

  /** The recipient takes back a decline: its owner may offer the project again. */
  async undecline(owner: string, name: string): Promise<void> {
    if (!this.ready) return;
    this.sql.exec("DELETE FROM declined WHERE owner = ? AND name = ?", owner, name);
    await this.dropIfEmpty();
  }

  /** The declines still kept; those past DECLINE_KEPT_MS are forgotten. */
  declined(): Declined[] {
    if (!this.ready) return [];
    this.sql.exec("DELETE FROM declined WHERE at < ?", new Date(Date.now() - DECLINE_KEPT_MS).toISOString());
    return this.sql.exec("SELECT owner, owner_label, name, at FROM declined ORDER BY at").toArray().map((r) => DECLINED_ROW.parse(r));
  }

  private async dropIfEmpty(): Promise<void> {
    this.declined();
    const held = this.sql.exec("SELECT 1 FROM owned UNION ALL SELECT 1 FROM deleted UNION ALL SELECT 1 FROM received UNION ALL SELECT 1 FROM standing UNION ALL SELECT 1 FROM declined LIMIT 1").toArray().length > 0;
    if (held) return;
    this.ready = false;
    await this.ctx.storage.deleteAll();
  }

  received(): ReceivedShare[] {
    if (!this.ready) return [];
    return this.sql.exec("SELECT owner, owner_label, name, access, at, accepted FROM received ORDER BY name, owner").toArray().map((r) => RECEIVED_ROW.parse(r));
  }
}
