// A step's document last written before a document of an earlier step last changed: the later one may no longer follow
// it (review 377: the architecture was built on prd.md v2, a member wrote v3, and every answer still said "Next: epics").
// One rule for get_workflow_status's lines, a rendered skill's "already has" line and the project map.
import { codeSpan } from "../workspace/paths.js";
import { zonedTime } from "../runtime/time-zone.js";
import { shownTime } from "../count.js";
import type { ProjectRuntime } from "../runtime/project.js";
import type { PlannedStep } from "./project-state.js";

/** Lines said at most: a project rewritten from its brief up would otherwise name every step. */
const MAX_STALE = 3;

/** A document's last change as the project's store keeps it; `by` where the store knows who (not the bridge). */
export interface DocChange { path: string; version: number; at: string; by?: string }
/** A step's document (`path`) last written before `after`, an earlier step's document, last changed. */
export interface StaleDocument extends DocChange { skill: string; after: DocChange }

/** The steps' documents last written before the nearest earlier step's document last changed, in phase order, at most
 *  MAX_STALE. Not where the same person changed both in the same minute (a run writes its inputs first), nor where that
 *  change was the earlier document's first version (made after, not changed after). One peek for the times; the
 *  earlier versions asked only of a document found changed after a later one. */
export async function staleDocuments(runtime: ProjectRuntime, steps: PlannedStep[]): Promise<StaleDocument[]> {
  const store = runtime.store;
  const shown = steps.flatMap((s) => (s.shown && !s.shown.memlog ? [{ skill: s.skill, path: s.shown.path }] : []));
  if (!store || shown.length < 2) return [];
  const peeked = await store.peek(shown.map((s) => s.path), { head: 1 });
  if (!peeked.ok) return [];
  const changeOf = new Map(peeked.value.map((f): [string, DocChange] => [f.path, { path: f.path, version: f.version, at: f.updated_at, ...(f.author ? { by: f.author } : {}) }]));
  const changedBefore = async (path: string, version: number) => {
    const older = await store.history(path, { before: version, limit: 1 });
    return older.ok && older.value.length > 0;
  };
  const stale: StaleDocument[] = [];
  for (const [i, later] of shown.entries()) {
    const mine = changeOf.get(later.path);
    if (!mine || stale.length >= MAX_STALE) continue;
    for (const earlier of shown.slice(0, i).reverse()) {
      const theirs = changeOf.get(earlier.path);
      if (!theirs || theirs.at <= mine.at || theirs.path === mine.path) continue;
      if (theirs.by === mine.by && theirs.at.slice(0, 16) === mine.at.slice(0, 16)) continue;
      if (!(await changedBefore(theirs.path, theirs.version))) continue;
      stale.push({ ...mine, skill: later.skill, after: theirs });
      break;
    }
  }
  return stale;
}

/** How answers say one: "- `prd.md` changed (v3, by priya@…, 14:02) after `ARCHITECTURE-SPINE.md` (v4, 13:55) was last
 *  written: check that bmad-architecture's output still follows it." In the project's zone where it has one. */
export async function staleLines(runtime: ProjectRuntime, stale: StaleDocument[]): Promise<string[]> {
  if (!stale.length) return [];
  const zone = await runtime.timeZone?.();
  const at = (iso: string) => (zone ? zonedTime(zone, iso) : `${shownTime(iso)} UTC`);
  return stale.map((s) => `- ${codeSpan(s.after.path)} changed (v${s.after.version}${s.after.by ? `, by ${JSON.stringify(s.after.by)}` : ""}, ${at(s.after.at)}) after ${codeSpan(s.path)} (v${s.version}, ${at(s.at)}) was last written: check that ${s.skill}'s output still follows it.`);
}
