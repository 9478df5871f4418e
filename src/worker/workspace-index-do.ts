// One Durable Object per identity handle (`user:<id>`, `email:<address>`): the projects that identity owns
// (for `list` and the per-user limit) and the projects shared with it (so the grantee's `list` shows them).
// An index is a directory, not the authority: every project checks access itself, on every call.
import { DurableObject } from "cloudflare:workers";

export interface ReceivedShare {
  owner: string;
  owner_label: string;
  name: string;
  access: "read" | "write";
  at: string;
}

export class WorkspaceIndex extends DurableObject {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS owned (name TEXT PRIMARY KEY, created_at TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS received (owner TEXT NOT NULL, name TEXT NOT NULL, owner_label TEXT NOT NULL, access TEXT NOT NULL, at TEXT NOT NULL,
        PRIMARY KEY (owner, name));
    `);
  }

  /** Takes a project name for its owner, unless it is taken or they own `max` already. */
  reserve(name: string, now: string, max: number): { ok: true } | { ok: false; reason: "exists" | "limit"; count: number } {
    const count = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM owned").one().n;
    if (this.sql.exec("SELECT 1 FROM owned WHERE name = ?", name).toArray().length) return { ok: false, reason: "exists", count };
    if (count >= max) return { ok: false, reason: "limit", count };
    this.sql.exec("INSERT INTO owned (name, created_at) VALUES (?, ?)", name, now);
    return { ok: true };
  }

  release(name: string): void {
    this.sql.exec("DELETE FROM owned WHERE name = ?", name);
  }

  owned(): Array<{ name: string; created_at: string }> {
    return this.sql.exec<{ name: string; created_at: string }>("SELECT name, created_at FROM owned ORDER BY name").toArray().map((r) => ({ ...r }));
  }

  grant(share: ReceivedShare): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO received (owner, name, owner_label, access, at) VALUES (?, ?, ?, ?, ?)",
      share.owner, share.name, share.owner_label, share.access, share.at,
    );
  }

  revoke(owner: string, name: string): void {
    this.sql.exec("DELETE FROM received WHERE owner = ? AND name = ?", owner, name);
  }

  received(): ReceivedShare[] {
    return this.sql.exec<ReceivedShare & Record<string, string>>("SELECT owner, owner_label, name, access, at FROM received ORDER BY name, owner").toArray().map((r) => ({ ...r }));
  }
}
