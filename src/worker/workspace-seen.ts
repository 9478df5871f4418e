// The version of a file each reader was last shown with "changed by others since …" (ChangedSince): what others
// changed up to it counts as seen, so the clause is told once, not on every read, status and render after it until the
// reader writes the file (review 385: a literal model took it as an unmerged change every turn). Written only where an
// answer showed the clause (a read, bmad-doc, a status's or a render's earlier work, the map; not history, which is
// asked what changed), so an ordinary read writes nothing; bounded as DisplacedNotes are.
import type { Person } from "../core/workspace/line-authors.js";
import { PersonRows, personKey, personKeys } from "./person-rows.js";

/** The most files a person's seen versions are kept for in a project. */
export const MAX_SEEN_EACH = 100;
/** The most seen versions a project keeps. */
export const MAX_SEEN = 1000;

export class SeenVersions {
  private readonly rows: PersonRows;

  constructor(private readonly sql: SqlStorage) {
    this.rows = new PersonRows(sql, "seen", MAX_SEEN_EACH, MAX_SEEN);
  }

  /** Created with the project's tables, and for projects made before it. */
  createTable(): void {
    this.sql.exec("CREATE TABLE IF NOT EXISTS seen (person TEXT NOT NULL, path TEXT NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (person, path))");
  }

  /** Forgets what it counted (the project's storage was deleted). */
  reset(): void {
    this.rows.removed();
  }

  /** `reader` was shown `path`'s head, `version`, with what others changed in it. */
  mark(path: string, reader: Person, version: number): void {
    const person = personKey(reader);
    this.sql.exec("INSERT OR REPLACE INTO seen (person, path, version) VALUES (?, ?, ?)", person, path, version);
    this.rows.capped(person);
  }

  /** The version of `path` `reader` was last shown with others' changes, if any. */
  version(path: string, reader: Person): number | undefined {
    if (this.rows.counted() === 0) return undefined;
    return this.sql.exec<{ version: number }>("SELECT MAX(version) AS version FROM seen WHERE path = ? AND person IN (?, ?)", path, ...personKeys(reader)).one().version ?? undefined;
  }
}
