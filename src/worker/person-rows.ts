// A project's rows kept for each person (a table whose `person` column holds personKey's), counted and capped in one
// place: DisplacedNotes and SeenVersions. Capped per person, then per project from whoever holds the most, so that
// one person's rows never push out another's (review 355: a member's 300 blind writes pushed out the owner's note).
import type { Person } from "../core/workspace/line-authors.js";

/** How a row names its person: by user id, or by label for a version stored before authors had ids. */
export const personKey = (person: Person): string => (person.id !== undefined ? person.id : `label:${person.label}`);
/** Every key a row for `person` may be stored under. */
export const personKeys = (person: Person): [string, string] => [personKey(person), `label:${person.label}`];

export class PersonRows {
  /** Rows stored, counted on first use: with none (the common case) a read or change asks storage nothing. Counted
   *  again after a change to them inside a transaction, which may yet be rolled back. */
  private count: number | undefined;

  /** `table`: this module's callers' own constant names, never outside text. */
  constructor(
    private readonly sql: SqlStorage,
    private readonly table: string,
    private readonly each: number,
    private readonly most: number,
  ) {}

  /** Rows stored. */
  counted(): number {
    return (this.count ??= this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${this.table}`).one().n);
  }

  /** After a row of `person` was added: their oldest past `each` dropped, then past `most` the oldest of whoever
   *  holds the most. */
  capped(person: string): void {
    this.sql.exec(`DELETE FROM ${this.table} WHERE rowid IN (SELECT rowid FROM ${this.table} WHERE person = ? ORDER BY rowid DESC LIMIT -1 OFFSET ?)`, person, this.each);
    this.sql.exec(`DELETE FROM ${this.table} WHERE (SELECT COUNT(*) FROM ${this.table}) > ? AND rowid = (SELECT rowid FROM ${this.table} WHERE person = (SELECT person FROM ${this.table} GROUP BY person ORDER BY COUNT(*) DESC LIMIT 1) ORDER BY rowid LIMIT 1)`, this.most);
    this.count = undefined;
  }

  /** Rows were removed (`gone`, where known), or storage was deleted (none given). */
  removed(gone?: number): void {
    this.count = gone !== undefined && this.count !== undefined ? this.count - gone : undefined;
  }
}
