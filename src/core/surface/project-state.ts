// Where a project stands, read from its files: its documents as the runtime block names them, and where a sprint is
// planned, the one call that says where it stands. get_workflow_status (where no run is) and get_project_context both
// answer with it, so the two doors and the two tools say it in the same words.
import { TOOL } from "./names.js";
import { codeSpan } from "../workspace/paths.js";
import { helpFor, projectWork, type WorkDocument } from "./earlier-work.js";
import type { SurfaceDeps } from "./deps.js";
import type { ProjectRuntime } from "../runtime/project.js";

export interface ProjectState {
  /** The runtime block's line naming the documents, and the sprint's next step; none where the project has neither. */
  lines: string[];
  documents: WorkDocument[];
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
  const work = await projectWork(deps.reader, found.runtime);
  const sprint = work.documents.find((d) => /(^|\/)sprint-status\.yaml$/.test(d.path))?.path;
  const next = sprint ? await sprintNext(deps, found.runtime, sprint, project, runs) : undefined;
  const after = sprint ? undefined : await requiredNext(deps, work.documents, project);
  const lines = [...(work.line ? [work.line] : []), ...(sprint ? [`- ${codeSpan(sprint)} holds the sprint plan${next ? `: ${next}` : ""}.`] : after ? [after] : [])];
  return { lines, documents: work.documents, ...(sprint ? { sprint_status: sprint } : {}), ...(work.fresh ? { fresh: work.fresh } : {}) };
}

/** The bmad-run call that shows where the sprint stands, its paths filled for this project, and the skill that
 *  re-plans it; where the script or bmad-run is not served, the skill alone. A workspace is named in the calls; the bridge's one
 *  project is its folder. */
async function sprintNext(deps: SurfaceDeps, runtime: ProjectRuntime, sprint: string, project: string | undefined, runs: boolean): Promise<string | undefined> {
  const name = SPRINT_NEXT.find((n) => deps.reader.catalog.resolve("workflow", n).ok);
  const skill = name === undefined ? undefined : deps.reader.catalog.resolve("workflow", name);
  if (!skill?.ok) return undefined;
  const named = namedIn(deps, project);
  const call = `${TOOL.bmad} ${JSON.stringify({ command: `*${name}`, ...named })}`;
  const bundleDir = skill.record.entry.slice(0, skill.record.entry.lastIndexOf("/"));
  // A path a command line would split or quote (a member names the folders: review 312) gets the skill alone.
  const plain = PLAIN_PATH.test(sprint);
  if (!runs || !plain || name !== SPRINT_NEXT[0] || !deps.reader.catalog.file(`${bundleDir}/${SPRINT_SCRIPT}`)) return `${call} says where it stands and what is next`;
  const command = `uv run ${await runtime.skillRoot(bundleDir)}/${SPRINT_SCRIPT} status --status-file ${runtime.root}/${sprint}`;
  return `${TOOL.bmadRun} ${JSON.stringify({ command, ...named })} says where it stands and what is next; ${call} re-plans it`;
}

/** A call's `project`: a workspace's name; none for the bridge's one project, its folder. */
const namedIn = (deps: SurfaceDeps, project: string | undefined): { project?: string } => (deps.project || project === undefined ? {} : { project });

/** A path a command line takes as one word, as written. */
const PLAIN_PATH = /^[\w./@+-]+$/;

/** A document that settles its skill's step: final, or one BMAD writes with no status (epics.md). */
const SETTLED = /^(final|complete|completed|done|approved)$/i;

/** Where the project's documents settle a required step of bmad-help.csv and no sprint is planned: the first required
 *  skill after the last one settled, in the catalog's order (the installer sorts it by phase), as its call (review 305:
 *  a final PRD and architecture were answered with no next step). A skill's document is one a file or folder name of
 *  which starts with the first word of the row's outputs ("epics and stories": epics.md). */
async function requiredNext(deps: SurfaceDeps, documents: WorkDocument[], project: string | undefined): Promise<string | undefined> {
  const required = (await helpFor(deps.reader)).rows.filter((r) => r.required && r.outputs);
  // A file or folder name that starts with the word (`prd.md`, `prd-todo-2026/`), not any path that holds it
  // (review 312: "spec" of bmad-build's outputs was found in ux-design-specification.md).
  const settled = (word: string) => documents.some((d) => d.path.toLowerCase().split("/").some((part) => part.startsWith(word)) && (d.status === undefined || SETTLED.test(d.status)));
  const done = required.map((r) => settled(/^[a-z]+/i.exec(r.outputs)?.[0]?.toLowerCase() ?? "\0"));
  const last = done.lastIndexOf(true);
  const next = last < 0 ? undefined : required.slice(last + 1).find((r, i) => !done[last + 1 + i] && deps.reader.catalog.resolve("workflow", r.skill).ok);
  if (!next) return undefined;
  return `- Next: ${next.skill} (${TOOL.bmad} ${JSON.stringify({ command: `*${next.skill}`, ...namedIn(deps, project) })}).`;
}
