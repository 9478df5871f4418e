// Name rules (ARCHITECTURE "Names"): a 6.3+ skill's short name drops `bmad-agent-` or `bmad-`;
// classic names stay as they are. Full name, short name and module/name all resolve.
import type { CatalogRecord } from "./bundle.js";

/** A skill's name as BMAD's are (`bmad-prd`): letters, digits, `-`, `_` and `.`, never `..` or `.` alone. It is one
 *  segment of the skill's skill:// URI: `a/../../b` or `x?uri=…` made a URI no read could reach, whose not-found
 *  suggested that very URI (review 214). */
export const PLAIN_SKILL_NAME = /^(?!\.$)(?!.*\.\.)[\w.-]+$/;

export function shortName(record: Pick<CatalogRecord, "name" | "skill">): string {
  if (!record.skill) return record.name;
  for (const prefix of ["bmad-agent-", "bmad-"]) {
    if (record.name.startsWith(prefix) && record.name.length > prefix.length) return record.name.slice(prefix.length);
  }
  return record.name;
}

/** Seed 000's rule for the names clients see (prompts, agent tools, skill paths): among records sharing a
 *  key, the highest-priority one keeps the short name, as `resolve` picks it (a tie goes to the first given). */
export function shortNameHolders(records: CatalogRecord[], key: (r: CatalogRecord) => string, priority: (r: CatalogRecord) => number): Set<CatalogRecord> {
  const best = new Map<string, CatalogRecord>();
  for (const r of records) {
    const held = best.get(key(r));
    if (!held || priority(r) < priority(held)) best.set(key(r), r);
  }
  return new Set(best.values());
}

/** Every spelling that resolves to this record. */
export function aliases(record: CatalogRecord): string[] {
  const short = shortName(record);
  const names = new Set([record.name, short]);
  for (const n of [...names]) names.add(`${record.module}/${n}`);
  return [...names];
}

export interface QualifiedName {
  module?: string;
  name: string;
}

/** `bmm/architect` -> { module: "bmm", name: "architect" }; `architect` -> { name: "architect" }. */
export function parseQualifiedName(input: string): QualifiedName {
  const slash = input.indexOf("/");
  if (slash <= 0) return { name: input };
  return { module: input.slice(0, slash), name: input.slice(slash + 1) };
}
