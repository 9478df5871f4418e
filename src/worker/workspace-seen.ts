// The version of a file each reader was last shown with "changed by others since …" (ChangedSince): what others
// changed up to it counts as seen, so the clause is told once, not on every read, status and render after it until the
// reader writes the file (review 385: a literal model took it as an unmerged change every turn). Written only where a
// read showed the clause, so an ordinary read writes nothing; bounded as DisplacedNotes are.
import type { Person } from "../core/workspace/line-authors.js";
import { keyOf, keysOf } from "./workspace-displaced.js";

/** The most files a person's seen versions are kept for in a project. */
export const MAX_SEEN_EACH = 100;
/** The most seen versions a project keeps. */
export const MAX_SEEN = 1000;

export class SeenVersions {
  /** Rows stored, counted on first use: with none (the common case) a read asks storage nothing. */
  private count: number | undefined;

  constructor(private readonly sql: SqlStorage) {}

  /** Created with the project's tables, and for projects made before it. */
  createTable(): void {
    this.sql.exec("CREATE TABLE IF NOT EXISTS seen (person TEXT NOT NULL, path TEXT NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (person, path))");
  }

  /** Forgets what it counted (the project's storage was deleted). */
  reset(): void {
    this.count = undefined;
  }

  /** `reader` was shown `path`'s head, `version`, with what others changed in it. */
  mark(path: string, reader: Person, version: number): void {
    const person = keyOf(reader);
    this.sql.exec("INSERT OR REPLACE INTO seen (person, path, version) VALUES (?, ?, ?)", person, path, version);
    // Capped per person, then per project from whoever holds the most: one reader's files push out no one else's.
    this.sql.exec("DELETE FROM seen WHERE rowid IN (SELECT rowid FROM seen WHERE person = ? ORDER BY rowid DESC LIMIT -1 OFFSET ?)", person, MAX_SEEN_EACH);
    this.sql.exec("DELETE FROM seen WHERE (SELECT COUNT(*) FROM seen) > ? AND rowid = (SELECT rowid FROM seen WHERE person = (SELECT person FROM seen GROUP BY person ORDER BY COUNT(*) DESC LIMIT 1) ORDER BY rowid LIMIT 1)", MAX_SEEN);
    this.count = undefined;
  }

  /** The version of `path` `reader` was last shown with others' changes, if any. */
  version(path: string, reader: Person): number | undefined {
    if ((this.count ??= this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM seen").one().n) === 0) return undefined;
    return this.sql.exec<{ version: number }>("SELECT MAX(version) AS version FROM seen WHERE path = ? AND person IN (?, ?)", path, ...keysOf(reader)).one().version ?? undefined;
  }
}
