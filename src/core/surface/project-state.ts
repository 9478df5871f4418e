// Where a project stands, read from its files: its documents as the runtime block names them, and where a sprint is
// planned, the one call that says where it stands. get_workflow_status (where no run is) and get_project_context both
// answer with it, so the two doors and the two tools say it in the same words.
import { TOOL } from "./names.js";
import { isSettledStatus } from "./settled.js";
import { codeSpan } from "../workspace/paths.js";
import { helpFor, projectWork, unfinishedRunNote, type WorkDocument } from "./earlier-work.js";
import { sprintPlanPath } from "./sprint-board.js";
import type { SurfaceDeps } from "./deps.js";
import type { ProjectRuntime } from "../runtime/project.js";
import type { Catalog } from "../catalog/catalog.js";
import type { BundleReader } from "./reader.js";
import { cmdStatus } from "../runtime/sprint-plan-read.js";
import { Emit } from "../runtime/sprint-py.js";
import type { PyDict } from "../runtime/py-json.js";

export interface ProjectState {
  /** The runtime block's line naming the documents, and the sprint's next step; none where the project has neither. */
  lines: string[];
  documents: WorkDocument[];
  /** The required steps of bmad-help.csv and their documents. */
  steps: PlannedStep[];
  /** The project's sprint-status.yaml, by its path in the project. */
  sprint_status?: string;
  /** Its BMAD folders hold nothing yet, nor held lately (the lines say so). */
  fresh?: true;
}

/** BMAD's skills that say where a sprint stands, the first one served named (6.12's bmad-sprint-status is a shim that
 *  forwards to sprint-planning's status: review 280). */
const SPRINT_NEXT = ["bmad-sprint-planning", "bmad-sprint-status", "bmad-help"];
/** sprint-planning's script that shows where a planned sprint stands: 692 bytes, where the skill's render and its
 *  reference cost 10 KB (review 299). */
const SPRINT_SCRIPT = "scripts/sprint_plan.py";

/** `project`: as the caller names it (undefined: the bridge's one); `runs`: the connection has bmad-run, so the line may
 *  name it. Undefined where its files cannot be read. */
export async function projectState(deps: SurfaceDeps, project: string | undefined, runs: boolean): Promise<ProjectState | undefined> {
  // Preloading nothing still reads who set the config's answers, which a moved folder is named with (one call).
  const found = deps.runtime ? await deps.runtime(project, { lazy: true, preload: [] }) : undefined;
  if (!found?.ok) return undefined;
  const work = await projectWork(deps.reader, found.runtime, (skill) => skillCall(deps, skill, project));
  const planned = await sprintPlanPath(deps.reader, found.runtime);
  const sprint = work.documents.find((d) => d.path === planned)?.path;
  const next = sprint ? await sprintNext(deps, found.runtime, sprint, project, runs) : undefined;
  const steps = await plannedSteps(deps.reader, work.documents);
  // A sprint file settles no planning step begun before it (review 325: a member's sprint-status.yaml hid the owner's
  // draft PRD): that step comes first, then the sprint's line.
  const after = requiredNext(deps, steps, project, sprint);
  const lines = [...(work.line ? [work.line] : []), ...(after ? [after] : []), ...(sprint ? [`- ${codeSpan(sprint)} holds the sprint plan${next ? `: ${next}` : ""}.`] : [])];
  return { lines, documents: work.documents, steps, ...(sprint ? { sprint_status: sprint } : {}), ...(work.fresh ? { fresh: work.fresh } : {}) };
}

/** The bmad-run call that shows where the sprint stands, its paths filled for this project, and the skill that
 *  re-plans it; where the script or bmad-run is not served, the skill alone. A workspace is named in the calls; the bridge's one
 *  project is its folder. */
async function sprintNext(deps: SurfaceDeps, runtime: ProjectRuntime, sprint: string, project: string | undefined, runs: boolean): Promise<string | undefined> {
  const name = SPRINT_NEXT.find((n) => deps.reader.catalog.resolve("workflow", n).ok);
  const skill = name === undefined ? undefined : deps.reader.catalog.resolve("workflow", name);
  if (name === undefined || !skill?.ok) return undefined;
  const named = namedIn(deps, project);
  const call = skillCall(deps, name, project);
  const bundleDir = skill.record.entry.slice(0, skill.record.entry.lastIndexOf("/"));
  // A path a command line would split or quote (a member names the folders: review 312) gets the skill alone.
  const plain = PLAIN_PATH.test(sprint);
  if (!runs || !plain || name !== SPRINT_NEXT[0] || !deps.reader.catalog.file(`${bundleDir}/${SPRINT_SCRIPT}`)) return `${call} says where it stands and what is next`;
  const command = `uv run ${await runtime.skillRoot(bundleDir)}/${SPRINT_SCRIPT} status --status-file ${runtime.root}/${sprint}`;
  return `${TOOL.bmadRun} ${JSON.stringify({ command, ...named })} says where it stands and what is next; ${call} re-plans it`;
}

/** A call's `project`: a workspace's name; none for the bridge's one project, its folder. */
const namedIn = (deps: SurfaceDeps, project: string | undefined): { project?: string } => (deps.project || project === undefined ? {} : { project });

/** The bmad call that opens `skill` in the project: Next's, and a stale step's (review 385). */
const skillCall = (deps: SurfaceDeps, skill: string, project: string | undefined): string => `${TOOL.bmad} ${JSON.stringify({ command: `*${skill}`, ...namedIn(deps, project) })}`;

/** Where a planned sprint stands, as BMAD's `sprint_plan.py status` says it: the skill it recommends (none: every
 *  story, epic and retrospective is done), and how many epics' retrospectives are done. */
export interface SprintStand { next?: { skill: string; story?: string; reason: string }; retrospectives_done: number }

/** The sprint as `sprint_plan.py status` reads it, run through its port on the file as the caller reads it, so that
 *  the project map says what the script says (review 339); undefined where the script refuses the file. */
export async function sprintStands(runtime: ProjectRuntime, sprint: string): Promise<SprintStand | undefined> {
  let out: PyDict;
  try {
    await cmdStatus({ fs: runtime.fs, cwd: runtime.fsRoot }, { status_file: `${runtime.fsRoot}/${sprint}` });
    return undefined;
  } catch (thrown) {
    if (!(thrown instanceof Emit)) return undefined;
    out = thrown.value;
  }
  if (out.get("ok") !== true) return undefined;
  const pick = out.get("recommendation");
  const retros = out.get("retrospectives");
  const done = retros instanceof Map ? Number(retros.get("done") ?? 0) : 0;
  if (!(pick instanceof Map)) return { retrospectives_done: done };
  const story = pick.get("story_key");
  return { next: { skill: String(pick.get("skill")), ...(typeof story === "string" ? { story } : {}), reason: String(pick.get("reason")) }, retrospectives_done: done };
}

/** A path a command line takes as one word, as written. */
const PLAIN_PATH = /^[\w./@+-]+$/;

/** A required step of bmad-help.csv and the project's documents of it: those a file or folder name of which starts with
 *  the first word of the row's outputs ("epics and stories": epics.md), not any path that holds it (review 312: "spec"
 *  of bmad-build's outputs was found in ux-design-specification.md). */
export interface PlannedStep {
  skill: string;
  /** The row's display name and phase, as the project map shows the step. */
  title: string;
  phase: string;
  /** The outputs' first word (`prd`, `epics`): what get_project_context's planning_artifacts names the step by. */
  word: string;
  documents: WorkDocument[];
  /** Those that settle it (settles). */
  settled: WorkDocument[];
  /** The one to name: the newest (by path, as BMAD's run folders are dated) of those settling it and named for it,
   *  else of those settling it, else of those named for it, else of all. */
  shown?: WorkDocument;
}

/** The first word of a row's outputs, which its documents are named by; undefined where they start with none. */
export const stepWord = (outputs: string): string | undefined => /^[a-z]+/i.exec(outputs)?.[0]?.toLowerCase();
const namedFor = (word: string, d: WorkDocument) => (d.path.toLowerCase().split("/").at(-1) ?? "").startsWith(word);
/** Whether a document settles the step `word` names: a settling status; or none, the file named for the step (epics.md,
 *  not a PRD's review-rubric.md beside its draft) and, where its frontmatter tracks BMAD's steps, every one of its
 *  skill's `files` done but the last, at least one where those are not known (review 326: epics.md copied from its
 *  template, `stepsCompleted: []`, was taken as done). Not the last: BMAD saves a step "before loading next step", and
 *  the last loads none, so a finished run's file often never lists it.
 *  The project map marks a workflow done by it too, so the two never disagree (review 322). */
export const settles = (word: string, d: WorkDocument, files?: number): boolean =>
  d.status !== undefined ? isSettledStatus(d.status) : namedFor(word, d) && (d.stepsCompleted === undefined || d.stepsCompleted >= Math.max(1, (files ?? 0) - 1));

/** How many steps a step-file skill has: its `steps/step-NN-*.md` files, by number (a `step-01b-continue.md` resumes
 *  step 1); undefined where the catalog has no such skill or it has no steps. */
export function stepFiles(catalog: Catalog, skill: string): number | undefined {
  const found = catalog.resolve("workflow", skill);
  if (!found.ok) return undefined;
  const steps = `${found.record.entry.slice(0, found.record.entry.lastIndexOf("/"))}/steps/`;
  const numbers = new Set(catalog.paths.flatMap((p) => (p.startsWith(steps) ? (/^step-(\d+)[^/]*\.md$/.exec(p.slice(steps.length))?.[1] ?? []) : [])));
  return numbers.size || undefined;
}

/** Paths in order with their numbers read as numbers, so that the last of `epic-1.md` … `epic-30.md` is epic-30
 *  (review 477: epic-9 sorted last and stood for the epics). Made once: a collator is costly to make. */
const NUMBERED = new Intl.Collator(undefined, { numeric: true });

/** The required rows of bmad-help.csv, in its order (the installer sorts it by phase), with their documents. */
export async function plannedSteps(reader: BundleReader, documents: WorkDocument[]): Promise<PlannedStep[]> {
  const required = (await helpFor(reader)).rows.filter((r) => r.required && r.outputs);
  const byPath = [...documents].sort((a, b) => NUMBERED.compare(a.path, b.path));
  return required.flatMap((r) => {
    const word = stepWord(r.outputs);
    if (!word) return [];
    const mine = byPath.filter((d) => d.path.toLowerCase().split("/").some((part) => part.startsWith(word)));
    const files = stepFiles(reader.catalog, r.skill);
    const settled = (d: WorkDocument) => settles(word, d, files);
    const rank = (d: WorkDocument) => (settled(d) ? 2 : 0) + (namedFor(word, d) ? 1 : 0);
    const best = Math.max(...mine.map(rank));
    const shown = mine.filter((d) => rank(d) === best).at(-1);
    return [{ skill: r.skill, title: r.title || r.skill, phase: r.phase, word, documents: mine, settled: mine.filter(settled), ...(shown ? { shown } : {}) }];
  });
}

/** The step to take next: the first required one, in the catalog's order from the first step begun, that no document
 *  settles and this server serves (review 305: a final PRD and architecture were answered with no next step; review
 *  315: one after the last settled skipped a missing architecture). Steps before the first begun are not asked for: a
 *  project that began at a later one (a quick flow's spec) chose so; where none is begun, the first. A step begun and
 *  not settled (a draft PRD, or a run's memlog alone: its `shown`) is to be resumed. get_workflow_status and the project map both name it.
 *  Where a sprint is planned (`sprint`, its file), planning is done but for a step begun and not settled before the
 *  sprint's own (the step its file is a document of): only such a step is next; after it the sprint says what is. */
export function nextStep(catalog: Catalog, steps: PlannedStep[], sprint?: string): { step: PlannedStep; passed: PlannedStep[] } | undefined {
  const first = Math.max(0, steps.findIndex((s) => s.documents.length));
  const sprintAt = sprint === undefined ? -1 : steps.findIndex((s) => s.documents.some((d) => d.path === sprint));
  const end = sprintAt < 0 ? steps.length : sprintAt;
  const at = steps.findIndex((s, i) => i >= first && i < end && !s.settled.length && (sprint === undefined || s.documents.length > 0) && catalog.resolve("workflow", s.skill).ok);
  return at < 0 ? undefined : { step: steps[at]!, passed: steps.slice(first, at) };
}

/** Where a required step of bmad-help.csv has begun: the next step (nextStep) as its call, the draft to resume named,
 *  and who wrote it where the caller wrote none of it. Steps before it that only other members' documents settle are
 *  named, so that the caller's model is not steered by them unawares (review 316: a member's architecture-notes.md
 *  skipped the step). */
function requiredNext(deps: SurfaceDeps, steps: PlannedStep[], project: string | undefined, sprint: string | undefined): string | undefined {
  if (!steps.some((s) => s.documents.length)) return undefined;
  const found = nextStep(deps.reader.catalog, steps, sprint);
  if (!found) return undefined;
  const { step: next, passed } = found;
  const call = skillCall(deps, next.skill, project);
  const shown = next.shown;
  const resume = !shown ? "" : shown.memlog ? fromMemlog(shown.path, codeSpan(shown.path)) : `: ${codeSpan(shown.path)}${shown.status ? ` (status: ${JSON.stringify(shown.status)})` : ""}${shown.by ? `, ${othersWrote(shown.by)},` : ""} is not settled`;
  const theirs = passed.flatMap((s) => (s.settled.length && s.settled.every((d) => d.by) ? [`${s.skill} is settled only by ${codeSpan(s.settled[0]!.path)}, ${othersWrote(s.settled[0]!.by!)}`] : []));
  return `- Next: ${next.shown ? "resume " : ""}${next.skill} (${call})${resume}.${theirs.length ? ` ${theirs.join("; ")}.` : ""}`;
}

/** The clause naming the run a Next resumes from its memlog alone (unfinishedRuns), `shown` its path as the answer
 *  shows paths: get_workflow_status and the map say it alike. */
export const fromMemlog = (memlog: string, shown: string): string => ` from that run's memlog ${shown} (${unfinishedRunNote(memlog)})`;

/** The clause naming who wrote a document the caller wrote none of (WorkDocument's `by`), as every Next says it. */
export const othersWrote = (by: string): string => `which others wrote, not you (${JSON.stringify(by)})`;
