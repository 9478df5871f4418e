// The project map view's data: BMAD's phases as the bundle's bmad-help.csv has them (never a list here), each
// phase's workflows and the project's documents in their output folders (frontmatter status, last change, author),
// the latest memlog entries, and the next required workflow as get_workflow_status names it (project-state.ts's one
// rule: done is settled, and Next is the first required step not settled from the first begun). Read through the
// caller's own store, so it shows only what they may read.
import { byAt, shortOf, withShownTime, type FileContent, type ListedFile, type WorkspaceFiles } from "../workspace/store.js";
import type { ProjectRuntime } from "../runtime/project.js";
import type { BundleReader } from "./reader.js";
import { configOf, FRONTMATTER_BYTES, frontmatterOf, helpFor, outermost, projectFolder, unfinishedRuns, workDocument, type HelpRow, type WorkDocument } from "./earlier-work.js";
import { othersBeyond, othersSuffix, othersWroteAll, type ByOthers } from "../workspace/line-authors.js";
import { changedSinceClause, othersBeside, type ChangedSince } from "../workspace/changed-since.js";
import { asOneLine, showName } from "../lines.js";
import { helpRowsLeftOut } from "../workspace/installer-manifests.js";
import { isMemlogPath } from "../runtime/memlog-text.js";
import { sprintPlanPath } from "./sprint-board.js";
import { codeSpan } from "../workspace/paths.js";
import { TOOL } from "./names.js";
import { staleDocuments } from "./stale-steps.js";
import { fromMemlog, nextStep, othersWrote, plannedSteps, settles, sprintStands, stepFiles, stepWord } from "./project-state.js";

/** Documents read for their status, at most; memlogs read, at most; entries shown of each. */
const MAX_DOCS = 40;
const MAX_MEMLOGS = 6;
const MEMLOG_ENTRIES = 5;
/** Enough of a memlog for its last entries. */
const MEMLOG_TAIL_BYTES = 16 * 1024;
const ANYTIME = "anytime";
/** The workflow whose work the sprint records (its epics' `epic-N-retrospective` keys). */
const RETROSPECTIVE = "bmad-retrospective";

/** `others`: who other than the caller wrote lines of it, and which, as every answer says it (othersNote): a
 *  collaborator's text is named; none where its `author` wrote it all (othersBeyond). `changed_since`: what others changed since the caller's own last version, as bmad-files
 *  read says it (review 379: a collaborator's removed line went unsaid).
 *  `updated_at_local`: the time as the answers show it (withShownTime: the bridge's clock, a workspace's zone). */
export interface MapArtifact { path: string; status?: string; version: number; updated_at: string; updated_at_local?: string; author?: string; others?: string; changed_since?: ChangedSince }
export interface MapMemlog { path: string; updated_at: string; updated_at_local?: string; entries: string[]; author?: string; others?: string; changed_since?: ChangedSince }
export interface MapWorkflow { skill: string; title: string; required: boolean; outputs: string; done: boolean }
export interface MapPhase { phase: string; workflows: MapWorkflow[]; artifacts: MapArtifact[] }
export interface ProjectMap {
  project: string;
  phases: MapPhase[];
  /** Documents in those folders that no workflow's outputs name. */
  other: MapArtifact[];
  /** `author`: who made its version, where someone other than the caller did; `others`, `changed_since`: as an artifact's. */
  memlogs: MapMemlog[];
  /** `resume`: the step's document that is begun and not settled (a draft PRD); `by`: who wrote it, where the caller
   *  wrote none of it (writtenOnlyBy). */
  next?: { skill: string; title: string; phase: string; resume?: { path: string; status?: string; by?: string }; sprint?: { story?: string; reason: string } };
  /** The project's sprint-status.yaml, and whether its every story, epic and retrospective is done, as
   *  `sprint_plan.py status` says (undefined: the script refuses the file). */
  sprint?: { path: string; all_done?: boolean };
  /** Steps' documents last written before an earlier step's document (`after`) last changed (stale-steps.ts): `skill`'s
   *  output may no longer follow it. */
  stale?: Array<{ path: string; after: string; skill: string }>;
  /** Documents beyond MAX_DOCS, not shown; `more_in`: the globs that list the folders holding them. */
  more: number;
  more_in?: string[];
  /** What the listings of its folders left out, as bmad-files list says it (lines). */
  left_out?: string[];
  /** Who wrote what the map shows, where the caller wrote none of it: the text says so once, not on every line. */
  all_by_others?: string[];
  /** Rows of bmad-help.csv left out (past the rows a catalog gives): its phases and "next" may miss workflows. */
  catalog_rows_left_out?: number;
}

export async function projectMap(reader: BundleReader, runtime: ProjectRuntime, files: WorkspaceFiles): Promise<ProjectMap> {
  const { rows, more: leftOut } = await helpFor(reader);
  const config = await configOf(reader, runtime);
  const folderOf = new Map<HelpRow, string>();
  for (const row of rows) {
    const folder = projectFolder(row.location, config, runtime.root);
    if (folder) folderOf.set(row, folder);
  }
  const folders = [...new Set(folderOf.values())];
  const roots = outermost(folders).sort();
  const listings = await Promise.all(roots.map((r) => files.list(`${r}/**`)));
  const listed = listings.flatMap((l) => (l.ok ? l.value : []));
  // What a listing left out (a name with a control character, a cut walk) is said, as bmad-files list says it (review
  // 486: a collaborator's `prd\u202etxt.exe.md` was in no line of the map).
  const unlisted = [...new Set(listings.flatMap(shortOf))];
  const docs = listed.filter((f) => /\.(md|ya?ml)$/i.test(f.path) && !f.path.split("/").some((s) => s.startsWith(".")));
  // Newest first where the listing knows when (review 101: the first in path order hid the latest run's memlog).
  const memlogPaths = listed.filter((f) => isMemlogPath(f.path)).sort((a, b) => (b.updated_at ?? "").localeCompare(a.updated_at ?? ""));
  // Which workflows are done is known from every document's path; the documents shown are taken from each
  // workflow in turn (review 101: past 40, the stories that sort first hid the PRD, and "next" asked for it again).
  const ownerOf = new Map(docs.map((d) => [d.path, ownerRow(d.path, rows, folderOf)]));
  const [{ artifacts, readAs, writers: docWriters }, { memlogs, writers: memlogWriters }] = await Promise.all([described(files, inTurn(docs, (d) => ownerOf.get(d.path), MAX_DOCS)), memlogEntries(files, memlogPaths.slice(0, MAX_MEMLOGS))]);
  const allByOthers = docWriters && memlogWriters && (artifacts.length || memlogs.length) ? [...new Set([...docWriters, ...memlogWriters])] : undefined;
  // Done is settled, as get_workflow_status says it (review 322: a draft PRD was marked done, and Next skipped it):
  // a required workflow by its step; another by a document of its own that settles it by the same rule.
  const work = [...docs.map((d) => readAs.get(d.path) ?? { path: d.path }), ...unfinishedRuns(memlogPaths.map((m) => m.path), docs.map((d) => d.path)).map((path) => ({ path, memlog: true as const }))];
  const steps = await plannedSteps(reader, work);
  const settled = new Set(steps.filter((s) => s.settled.length).map((s) => s.skill));
  const stale = (await staleDocuments(runtime, steps)).map((s) => ({ path: s.path, after: s.after.path, skill: s.skill }));
  // Where a sprint is planned, Next is get_workflow_status's with it, then what the sprint says (review 339: the map
  // said bmad-build of a sprint all done).
  const plan = await sprintPlanPath(reader, runtime);
  const sprint = docs.find((d) => d.path === plan)?.path;
  const stands = sprint === undefined ? undefined : await sprintStands(runtime, sprint);
  const doneBy = (row: HelpRow) => {
    if (row.required) return settled.has(row.skill);
    // BMAD's retrospective marks its epic's key done in the sprint (its document is named epic-N-retro-{date}.md).
    if (row.skill === RETROSPECTIVE && stands?.retrospectives_done) return true;
    const word = stepWord(row.outputs);
    const files = stepFiles(reader.catalog, row.skill);
    return word !== undefined && work.some((d) => ownerOf.get(d.path) === row && settles(word, d, files));
  };

  const ordered = [...new Set(rows.map((r) => r.phase).filter((p) => p && p !== ANYTIME))].sort((a, b) => a.localeCompare(b));
  if (rows.some((r) => r.phase === ANYTIME)) ordered.push(ANYTIME);
  const byRow = new Map<HelpRow, MapArtifact[]>();
  const other: MapArtifact[] = [];
  for (const artifact of artifacts) {
    const row = ownerOf.get(artifact.path);
    if (row) byRow.set(row, [...(byRow.get(row) ?? []), artifact]);
    else other.push(artifact);
  }
  const phases = ordered.map((phase) => {
    const own = rows.filter((r) => r.phase === phase);
    const seen = new Set<string>();
    const workflows = own.filter((r) => !seen.has(r.skill) && seen.add(r.skill)).map((r) => ({ skill: r.skill, title: r.title || r.skill, required: r.required, outputs: r.outputs, done: own.some((o) => o.skill === r.skill && doneBy(o)) }));
    return { phase, workflows, artifacts: own.flatMap((r) => byRow.get(r) ?? []) };
  });
  const step = nextStep(reader.catalog, steps, sprint)?.step;
  const resume = step?.shown && { path: step.shown.path, ...(step.shown.status ? { status: showName(step.shown.status) } : {}), ...(step.shown.by ? { by: step.shown.by } : {}) };
  const bySprint = !step && stands?.next;
  const row = bySprint ? rows.find((r) => r.skill === bySprint.skill) : undefined;
  const next = step ? { skill: step.skill, title: step.title, phase: step.phase, ...(resume ? { resume } : {}) } : bySprint ? { skill: bySprint.skill, title: row?.title || bySprint.skill, phase: row?.phase ?? ANYTIME, sprint: { ...(bySprint.story ? { story: showName(bySprint.story) } : {}), reason: bySprint.reason } } : undefined;
  const planned = sprint === undefined ? undefined : { path: sprint, ...(stands ? { all_done: !stands.next } : {}) };
  // Where the documents not shown are, so that a model lists them there (review 477: "293 more" said no more).
  const shownPaths = new Set(artifacts.map((a) => a.path));
  const moreIn = roots.filter((r) => docs.some((d) => !shownPaths.has(d.path) && d.path.startsWith(`${r}/`))).map((r) => `${r}/**`);
  return { project: files.project, phases, other, memlogs, ...(next ? { next } : {}), ...(planned ? { sprint: planned } : {}), ...(stale.length ? { stale } : {}), more: Math.max(0, docs.length - MAX_DOCS), ...(moreIn.length ? { more_in: moreIn } : {}), ...(unlisted.length ? { left_out: unlisted } : {}), ...(allByOthers ? { all_by_others: allByOthers } : {}), ...(leftOut ? { catalog_rows_left_out: leftOut } : {}) };
}

/** Up to `max` of `items`, one of each group in turn, in the items' order. */
function inTurn<T, G>(items: T[], groupOf: (item: T) => G, max: number): T[] {
  const groups = new Map<G, number[]>();
  items.forEach((item, i) => {
    const group = groups.get(groupOf(item));
    if (group) group.push(i);
    else groups.set(groupOf(item), [i]);
  });
  const chosen: number[] = [];
  for (let round = 0; chosen.length < max; round++) {
    const before = chosen.length;
    for (const group of groups.values()) if (round < group.length && chosen.length < max) chosen.push(group[round]!);
    if (chosen.length === before) break;
  }
  return chosen.sort((a, b) => a - b).map((i) => items[i]!);
}

/** The row a document belongs to: of those whose folder holds it, the one whose outputs' words its name shares most. */
function ownerRow(path: string, rows: HelpRow[], folderOf: Map<HelpRow, string>): HelpRow | undefined {
  const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  let best: HelpRow | undefined;
  let bestScore = 0;
  for (const row of rows) {
    const folder = folderOf.get(row);
    if (!folder || !path.startsWith(`${folder}/`)) continue;
    const words = row.outputs.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length >= 3 && w !== "and");
    const score = words.filter((w) => name.includes(w)).length;
    if (score > bestScore) (best = row), (bestScore = score);
  }
  return best;
}

/** The files' first or last bytes (a collaborator's documents may each be as large as a file may be). */
async function peeked(files: WorkspaceFiles, paths: string[], part: { head: number } | { tail: number }): Promise<FileContent[]> {
  const out = await files.peek(paths, part);
  return out.ok ? out.value : [];
}

/** The documents as the map shows them, and by path as the project's state judges them (workDocument: the status as
 *  written settles a step). A status is shown with its invisible characters written out, as the document view shows
 *  it (review 328: `fin\u200bal` showed as a settled "final", while Next said it was not). */
async function described(files: WorkspaceFiles, docs: ListedFile[]): Promise<{ artifacts: MapArtifact[]; readAs: Map<string, WorkDocument>; writers?: string[] }> {
  const read = await peeked(files, docs.map((d) => d.path), { head: FRONTMATTER_BYTES });
  const heads = read.map((f) => frontmatterOf(f.data));
  const artifacts = read.map((f, i) => {
    const status = heads[i]!.status;
    return withShownTime(files, { path: f.path, ...(status ? { status: showName(status) } : {}), version: f.version, updated_at: f.updated_at, author: f.author, ...byOthers(othersBeside(f.others, f.changed_since), f.author), ...(f.changed_since ? { changed_since: f.changed_since } : {}) }, "updated_at");
  });
  return { artifacts, readAs: new Map(read.map((f, i) => [f.path, workDocument(f.path, heads[i], f.others)])), writers: othersOnly(read) };
}

/** Each memlog's last entries (its `- ` lines), newest memlog first, invisible characters written out (review 328:
 *  `ada\u200b@example.com` read as ada@example.com). */
async function memlogEntries(files: WorkspaceFiles, logs: ListedFile[]): Promise<{ memlogs: ProjectMap["memlogs"]; writers?: string[] }> {
  const read = await peeked(files, logs.map((l) => l.path), { tail: MEMLOG_TAIL_BYTES });
  const memlogs = read
    .sort((a, b) => b.updated_at.localeCompare(a.updated_at))
    // A tail cut inside a line (its first): that line is not an entry as written.
    .map((f) => {
      // Who changed it last and what others changed since, as a document's line says it (review 454: an entry of the
      // caller's another removed went unsaid).
      const author = f.changed_by_other ? f.author : undefined;
      const entries = new TextDecoder().decode(f.data).split("\n").slice(f.data.byteLength < f.size ? 1 : 0).filter((l) => l.startsWith("- ")).slice(-MEMLOG_ENTRIES).map((l) => showName(asOneLine(l.slice(2, 400))));
      return withShownTime(files, { path: f.path, updated_at: f.updated_at, entries, ...(author ? { author } : {}), ...byOthers(othersBeside(f.others, f.changed_since), author), ...(f.changed_since ? { changed_since: f.changed_since } : {}) }, "updated_at");
    });
  return { memlogs, writers: othersOnly(read) };
}

/** The lines of a file others wrote, as the map names them (review 48: a writer's memlog entry showed as no one's);
 *  none where `author`, named on its line already, wrote it all. */
const byOthers = (others: ByOthers | undefined, author?: string): { others?: string } => {
  const note = othersBeyond(others, author);
  return note ? { others: note } : {};
};

/** Who wrote `read`, where others wrote every line of every file and the caller none (told where the whole text was
 *  read); undefined otherwise. */
function othersOnly(read: FileContent[]): string[] | undefined {
  const whole = read.every((f) => f.others?.length && (f.others.some((o) => o.lines === "all" && !o.with_you) || (f.data.byteLength === f.size && othersWroteAll(f.others, new TextDecoder().decode(f.data)))));
  return whole ? [...new Set(read.flatMap((f) => f.others!.map((o) => o.by)))] : undefined;
}

/** The map as text, for hosts that show no views; `name` as the caller named the project (a share's is its `name@tag`
 *  in the view, which sends it back with each action). */
/** How to list the documents a map leaves out: the globs of the folders holding them. */
const moreList = (globs: string[] | undefined) => (globs?.length ? `: ${TOOL.bmadFiles} "list" of ${globs.map((g) => JSON.stringify(g)).join(", ")} shows them` : "");

export function mapText(map: ProjectMap, name = map.project, show = (at: string) => at, access: "read" | "write" = "write"): string {
  const lines = [`Project "${name}" by BMAD phase (from bmad-help.csv):`];
  // Whose words the model reads, said once where they are all others' (review 446: 47% of a reader's map was notes).
  const everyLine = !map.all_by_others;
  if (map.all_by_others) lines.push(`Everything here was written by others, not you: ${map.all_by_others.join(", ")}.`);
  const others = (note: string | undefined) => (everyLine ? othersSuffix(note) : "");
  // Paths with their invisible characters written out, as the views show them (review 317: `prd\u200b.md` read `prd.md`).
  const art = (a: MapArtifact) => `${showName(a.path)}${a.status ? ` [${a.status}]` : ""} v${a.version} ${byAt(a.author, show(a.updated_at))}${others(a.others)}${changedSinceClause(a.changed_since)}`;
  for (const p of map.phases) {
    lines.push(`${p.phase}: ${p.workflows.map((w) => `${w.skill}${w.required ? "*" : ""}${w.done ? " (done)" : ""}`).join(", ")}`);
    for (const a of p.artifacts) lines.push(`  ${art(a)}`);
  }
  if (map.other.length) lines.push("Other documents:", ...map.other.map((a) => `  ${art(a)}`));
  if (map.more) lines.push(`(${map.more} more documents not shown${moreList(map.more_in)})`);
  for (const line of map.left_out ?? []) lines.push(`(${line})`);
  for (const m of map.memlogs) lines.push(`Memlog ${showName(m.path)} (${m.author ? byAt(m.author, show(m.updated_at)) : show(m.updated_at)}${others(m.others)}${changedSinceClause(m.changed_since)}):`, ...m.entries.map((e) => `  - ${e}`));
  // A cut catalog may have left out the next workflow, and every phase (review 189: 2,000 planted rows).
  const cut = map.catalog_rows_left_out;
  if (cut) lines.push(`(${helpRowsLeftOut(cut, "bmad-help.csv")})`);
  // Quoted as status quotes them: a name is a collaborator's text, which may read as part of the sentence (review 383).
  for (const s of map.stale ?? []) lines.push(`${codeSpan(s.after)} changed after ${codeSpan(s.path)} was last written: check that ${s.skill}'s output still follows it.`);
  const next = map.next;
  // Said as get_workflow_status says it: a begun step not settled is resumed, a run begun with no document yet from its
  // memlog (review 379: that was "not settled" too).
  const resume = !next?.resume ? "" : isMemlogPath(next.resume.path) ? fromMemlog(next.resume.path, showName(next.resume.path)) : `: ${showName(next.resume.path)}${next.resume.status ? ` [${next.resume.status}]` : ""}${next.resume.by ? `, ${othersWrote(next.resume.by)},` : ""} is not settled`;
  const sprint = map.sprint && showName(map.sprint.path);
  const bySprint = next?.sprint ? ` for ${sprint}${next.sprint.story ? `, story ${next.sprint.story}` : ""}: ${next.sprint.reason}` : "";
  const done = map.sprint?.all_done ? `Every story, epic and retrospective in ${sprint} is done. * required.` : map.sprint ? `Planning is done; bmad-sprint-planning's status of ${sprint} says what is next. * required.` : cut ? "No required workflow left to do among the rows read; the rows left out may name one. * required." : "Every required workflow from the first one begun is done. * required.";
  // A reader's writes are refused: Next is for someone who may make them (review 446; the view disables Start).
  const forWhom = access === "read" ? ", for a member with write access" : "";
  lines.push(next ? `Next${forWhom}: ${next.resume ? "resume " : ""}${next.skill} (${next.title}, phase ${next.phase})${resume}${bySprint}. * required.` : done);
  return lines.join("\n");
}
