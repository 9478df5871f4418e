// Notes for the person whose version of a file another's change replaced without naming it (if_version): the writer
// is told with their change (replacedUnnamed); the displaced person is told once, on their next bmad-files read of
// that file (review 339: Bob's sprint-status edit was undone by Alice's write from an older read, and nothing told
// Bob). One note per person and file; a person keeps at most MAX_DISPLACED_EACH, their oldest dropped, and a project at
// most MAX_DISPLACED, the oldest of whoever has the most dropped: so no one's changes push out another's notes.
import type { Person } from "../core/workspace/line-authors.js";
import type { Displaced } from "../core/workspace/store.js";
import { PersonRows, personKey, personKeys } from "./person-rows.js";

/** The most notes a person keeps in a project. */
export const MAX_DISPLACED_EACH = 100;
/** The most notes a project keeps. */
export const MAX_DISPLACED = 1000;

export class DisplacedNotes {
  private readonly rows: PersonRows;

  constructor(private readonly sql: SqlStorage) {
    this.rows = new PersonRows(sql, "displaced", MAX_DISPLACED_EACH, MAX_DISPLACED);
  }

  /** Created with the project's tables, and for projects made before notes. */
  createTable(): void {
    this.sql.exec("CREATE TABLE IF NOT EXISTS displaced (person TEXT NOT NULL, path TEXT NOT NULL, version INTEGER NOT NULL, at INTEGER NOT NULL, by TEXT NOT NULL, PRIMARY KEY (person, path))");
  }

  /** Forgets what it counted (the project's storage was deleted). */
  reset(): void {
    this.rows.removed();
  }

  /** After `by` changed `path` to version `at` (inside the change's transaction): `displaced`, whose version the change
   *  did not name, gets a note. A person's own change leaves theirs for their next read: a script's append over the
   *  replaced memlog answered it unseen, and the entry the other's write dropped went unsaid (review 352). */
  changed(path: string, by: Person, at: number, displaced?: { person: Person; version: number }): void {
    if (!displaced) return;
    const person = personKey(displaced.person);
    this.sql.exec("INSERT OR REPLACE INTO displaced (person, path, version, at, by) VALUES (?, ?, ?, ?, ?)", person, path, displaced.version, at, by.label);
    this.rows.capped(person);
  }

  /** After `by` changed `path` (inside the change's transaction): their own note on it dropped where the change
   *  `restores` the version it names, as they were told to (review 372: a restore of exactly their version still read
   *  "Your version 1 … was replaced"). A change that does not keeps it (review 352, above). */
  answered(path: string, by: Person, restores: (version: number) => boolean): void {
    const note = this.peek(path, by);
    if (!note || !restores(note.version)) return;
    this.sql.exec("DELETE FROM displaced WHERE path = ? AND person IN (?, ?)", path, ...personKeys(by));
    this.rows.removed();
  }

  /** `reader`'s note on `path`, taken: it is told once. */
  take(path: string, reader: Person): Displaced | undefined {
    if (this.rows.counted() === 0) return undefined;
    const row = this.sql.exec<{ version: number; at: number; by: string }>("DELETE FROM displaced WHERE path = ? AND person IN (?, ?) RETURNING version, at, by", path, ...personKeys(reader)).toArray()[0];
    if (row) this.rows.removed(1);
    return row && { version: row.version, at: row.at, by: row.by };
  }

  /** `reader`'s note on `path`, left for their next read with a token that may change things. */
  peek(path: string, reader: Person): Displaced | undefined {
    if (this.rows.counted() === 0) return undefined;
    return this.sql.exec<{ version: number; at: number; by: string }>("SELECT version, at, by FROM displaced WHERE path = ? AND person IN (?, ?)", path, ...personKeys(reader)).toArray()[0];
  }
}

/** Whether `data` holds the whole of `version`'s text (a restore of it, or a change that kept it and added): a version
 *  whose text is gone (purged) or was empty holds nothing to put back, so it answers no note. */
export function holdsWhole(data: Uint8Array, version: Uint8Array): boolean {
  const decoder = new TextDecoder();
  return version.byteLength > 0 && decoder.decode(data).includes(decoder.decode(version));
}
