// A step's document last written before a document of an earlier step last changed: the later one may no longer follow
// it (review 377: the architecture was built on prd.md v2, a member wrote v3, and every answer still said "Next: epics").
// One rule for get_workflow_status's lines, a rendered skill's "already has" line and the project map.
import { codeSpan } from "../workspace/paths.js";
import { zonedTime } from "../runtime/time-zone.js";
import { shownTime } from "../count.js";
import type { ProjectRuntime } from "../runtime/project.js";
import type { PlannedStep } from "./project-state.js";
import { SPRINT_STATUS_FILE } from "../runtime/sprint-yaml.js";

/** Lines said at most: a project rewritten from its brief up would otherwise name every step. */
const MAX_STALE = 3;

/** A document's last change as the project's store keeps it; `by` where the store knows who (not the bridge). */
export interface DocChange { path: string; version: number; at: string; by?: string }
/** A step's document (`path`) last written before `after`, an earlier step's document, last changed. */
export interface StaleDocument extends DocChange { skill: string; after: DocChange }

/** An earlier document's versions looked through for the one that was its head when a later document was written. */
const LOOK_BACK = 20;
/** Whether a document is the sprint plan, which no later step's document follows: BMAD's later skills write their stories'
 *  statuses into it by design (review 455: bmad-build's own sync of a story to `review` said its done spec was stale),
 *  and a spec follows its story in the epics, not the plan's list. Still judged as a later document (epics changed). */
const isSprintPlan = (path: string): boolean => path.slice(path.lastIndexOf("/") + 1) === SPRINT_STATUS_FILE;
/** What a document says, for comparing two of its versions: blank lines and spaces at line ends are no change of it. */
const said = (text: string): string => text.split("\n").map((line) => line.trimEnd()).filter(Boolean).join("\n");

/** The steps' documents last written before the nearest earlier step's document changed what it says, in phase order,
 *  at most MAX_STALE. A change is judged by the earlier document's text, now against the version that was its head
 *  when the later one was written (review 383: a restore of that text, a recreate of it, a blank line added all read as
 *  changes, and one person's change in the same minute as their later document as none); its first version, made
 *  after, is no change. One peek for the times; an earlier document's history and two of its versions read only
 *  where it changed after a later one. */
export async function staleDocuments(runtime: ProjectRuntime, steps: PlannedStep[]): Promise<StaleDocument[]> {
  const store = runtime.store;
  const shown = steps.flatMap((s) => (s.shown && !s.shown.memlog ? [{ skill: s.skill, path: s.shown.path }] : []));
  if (!store || shown.length < 2) return [];
  const peeked = await store.peek(shown.map((s) => s.path), { head: 1 });
  if (!peeked.ok) return [];
  const changeOf = new Map(peeked.value.map((f): [string, DocChange] => [f.path, { path: f.path, version: f.version, at: f.updated_at, ...(f.author ? { by: f.author } : {}) }]));
  const text = async (path: string, version: number) => {
    const read = await store.read(path, version);
    return read.ok ? said(new TextDecoder().decode(read.value.data)) : undefined;
  };
  const saysOtherThanAt = async (doc: DocChange, at: string): Promise<boolean> => {
    const older = await store.history(doc.path, { before: doc.version, limit: LOOK_BACK });
    if (!older.ok || !older.value.length) return false;
    // The bridge's kept copies say when each was replaced, not written: any is a change since.
    if (older.value.some((v) => v.kept)) return true;
    const then = older.value.find((v) => v.at <= at && v.op !== "delete");
    // None as old among the last LOOK_BACK: made after (all of them shown), or changed too often since to tell.
    if (!then) return older.value.length >= LOOK_BACK;
    if (then.pruned || then.purged) return true;
    const [was, now] = await Promise.all([text(doc.path, then.version), text(doc.path, doc.version)]);
    return was === undefined || now === undefined || was !== now;
  };
  const stale: StaleDocument[] = [];
  for (const [i, later] of shown.entries()) {
    const mine = changeOf.get(later.path);
    if (!mine || stale.length >= MAX_STALE) continue;
    for (const earlier of shown.slice(0, i).reverse()) {
      const theirs = changeOf.get(earlier.path);
      if (!theirs || theirs.at <= mine.at || theirs.path === mine.path || isSprintPlan(theirs.path)) continue;
      if (!(await saysOtherThanAt(theirs, mine.at))) continue;
      stale.push({ ...mine, skill: later.skill, after: theirs });
      break;
    }
  }
  return stale;
}

/** How answers say one: "- `prd.md` changed (v3, by priya@…, 14:02) after `ARCHITECTURE-SPINE.md` (v4, 13:55) was last
 *  written: check that bmad-architecture's output still follows it (bmad {…})." In the project's zone where it has one;
 *  to the second where both times fall in one minute (review 385: "changed (12:01) after (12:01)" read as no change).
 *  `reopen`: the call that opens a step, as Next gives it, where the answer names one. */
export async function staleLines(runtime: ProjectRuntime, stale: StaleDocument[], reopen?: (skill: string) => string): Promise<string[]> {
  if (!stale.length) return [];
  const zone = await runtime.timeZone?.();
  const at = (iso: string, toSecond = false) => (zone ? zonedTime(zone, iso, toSecond) : `${shownTime(iso, toSecond)} UTC`);
  return stale.map((s) => {
    const toSecond = at(s.after.at) === at(s.at);
    const call = reopen ? ` (${reopen(s.skill)})` : "";
    return `- ${codeSpan(s.after.path)} changed (v${s.after.version}${s.after.by ? `, by ${JSON.stringify(s.after.by)}` : ""}, ${at(s.after.at, toSecond)}) after ${codeSpan(s.path)} (v${s.version}, ${at(s.at, toSecond)}) was last written: check that ${s.skill}'s output still follows it${call}.`;
  });
}
