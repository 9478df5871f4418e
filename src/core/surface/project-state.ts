// Where a project stands, read from its files: its documents as the runtime block names them, and where a sprint is
// planned, the one call that says where it stands. get_workflow_status (where no run is) and get_project_context both
// answer with it, so the two doors and the two tools say it in the same words.
import { TOOL } from "./names.js";
import { projectWork, type WorkDocument } from "./earlier-work.js";
import type { SurfaceDeps } from "./deps.js";
import type { ProjectRuntime } from "../runtime/project.js";

export interface ProjectState {
  /** The runtime block's line naming the documents, and the sprint's next step; none where the project has neither. */
  lines: string[];
  documents: WorkDocument[];
  /** The project's sprint-status.yaml, by its path in the project. */
  sprint_status?: string;
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
  const found = deps.runtime ? await deps.runtime(project, { lazy: true }) : undefined;
  if (!found?.ok) return undefined;
  const work = await projectWork(deps.reader, found.runtime);
  const sprint = work.documents.find((d) => /(^|\/)sprint-status\.yaml$/.test(d.path))?.path;
  const next = sprint ? await sprintNext(deps, found.runtime, sprint, project, runs) : undefined;
  const lines = [...(work.line ? [work.line] : []), ...(sprint ? [`- \`${sprint}\` holds the sprint plan${next ? `: ${next}` : ""}.`] : [])];
  return { lines, documents: work.documents, ...(sprint ? { sprint_status: sprint } : {}) };
}

/** The bmad-run call that shows where the sprint stands, its paths filled for this project, and the skill that
 *  re-plans it; where the script or bmad-run is not served, the skill alone. A workspace is named in the calls; the bridge's one
 *  project is its folder. */
async function sprintNext(deps: SurfaceDeps, runtime: ProjectRuntime, sprint: string, project: string | undefined, runs: boolean): Promise<string | undefined> {
  const name = SPRINT_NEXT.find((n) => deps.reader.catalog.resolve("workflow", n).ok);
  const skill = name === undefined ? undefined : deps.reader.catalog.resolve("workflow", name);
  if (!skill?.ok) return undefined;
  const named = deps.project || project === undefined ? {} : { project };
  const call = `${TOOL.bmad} ${JSON.stringify({ command: `*${name}`, ...named })}`;
  const bundleDir = skill.record.entry.slice(0, skill.record.entry.lastIndexOf("/"));
  if (!runs || name !== SPRINT_NEXT[0] || !deps.reader.catalog.file(`${bundleDir}/${SPRINT_SCRIPT}`)) return `${call} says where it stands and what is next`;
  const command = `uv run ${await runtime.skillRoot(bundleDir)}/${SPRINT_SCRIPT} status --status-file ${runtime.root}/${sprint}`;
  return `${TOOL.bmadRun} ${JSON.stringify({ command, ...named })} says where it stands and what is next; ${call} re-plans it`;
}
