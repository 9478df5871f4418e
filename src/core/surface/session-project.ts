// bmad-task sessions tied to a workspace: each artifact a confirm or approve saves is also written into the
// project at .claude/specs/{task}/{file} (seed 003's place), by the caller, as a new version of that file.
import { savedArtifact } from "../delivery/machine.js";
import { SPECS_DIR, specPath, type SessionState } from "../delivery/session.js";
import { projectRootUri } from "../workspace/paths.js";
import type { SurfaceDeps } from "./deps.js";
import { TOOL } from "./names.js";
import { artifactUri } from "./resources.js";
import type { Result } from "../result.js";

/** A project a session may save into: the caller can write it. Its task folders are names the session must not take;
 *  `ref` names it alone, so that a later project of the same name (theirs deleted, another's shared) gets nothing. */
export async function sessionProject(deps: SurfaceDeps, project: string): Promise<Result<{ taken: string[]; ref: string }>> {
  if (!deps.workspaces) return { ok: false, error: `This endpoint has no project workspaces: start the session without "project".` };
  const info = await deps.workspaces.info(project);
  if (!info.ok) return info;
  if (info.value.access === "read") {
    return { ok: false, error: `You have read access to "${project}"; a session saves its artifacts there, which needs write access from its owner (${info.value.owner}). Start it without "project", or ask for write access.` };
  }
  const folders = await deps.workspaces.files(project).children(SPECS_DIR);
  return { ok: true, taken: folders.ok ? folders.value : [], ref: info.value.ref ?? project };
}

/** The project a session saves its artifacts in, as an answer names it: the one it started with on the remote; on the
 *  bridge, where the session store is the project folder, always that. */
export function savingProject(deps: SurfaceDeps, project: string | undefined): string | undefined {
  return project ? `project "${project}"` : deps.workspaces?.folder !== undefined ? "the project" : undefined;
}

/** A finished session's word on where BMAD's own skills look: bmad-sprint-planning's readiness gate and
 *  bmad-create-story read {planning_artifacts}, not .claude/specs/ (seed 003's place), so say how to carry them on. */
export function planningNote(deps: SurfaceDeps, state: SessionState): string | undefined {
  const where = savingProject(deps, state.project);
  if (!where || state.current_state !== "completed") return undefined;
  const project = state.project ? `"project": "${state.project}", ` : "";
  return ` They are in ${SPECS_DIR}/${state.task_name}/ of ${where}; BMAD's own skills (bmad-sprint-planning, bmad-create-story) look for the PRD and architecture in {planning_artifacts} (by default _bmad-output/planning-artifacts/): copy them there to go on with those, e.g. ${TOOL.bmadFiles} {"action": "write", ${project}"path": "{planning_artifacts}/prd.md", "content": "<01-product-requirements.md>"}.`;
}

/** After a confirm or approve: the artifact it saved, written into the session's project too. What to add to the answer. */
export async function saveInProject(deps: SurfaceDeps, state: SessionState): Promise<{ saved_to: string; project_owner?: string } | { project_error: string } | undefined> {
  const file = savedArtifact(state);
  if (!state.project || !file || !deps.workspaces || !deps.sessions) return undefined;
  const path = specPath(state.task_name, file);
  const text = await deps.sessions.readArtifact(deps.owner, state.session_id, file);
  // Created, never replaced: each artifact is saved once a session, and a file there already is another's (two
  // members' sessions of one objective took one task folder, and the second confirm replaced the first's PRD: review 26).
  const files = deps.workspaces.files(state.project);
  const wrote = text.ok ? await files.write(path, new TextEncoder().encode(text.value), { ifVersion: 0 }) : text;
  // Whose project it landed in, where not the caller's, as every other change there says (review 181).
  const owner = files.changeOwner?.();
  if (wrote.ok) return { saved_to: `${projectRootUri(state.project)}/${path}`, ...(owner ? { project_owner: owner } : {}) };
  if (wrote.kind === "conflict") {
    return { project_error: `${file} is saved in the session, but not in project "${state.project}": ${path} is there already (another session's, or written since), and was left as it is. Read it with ${TOOL.bmadFiles}, then write this one (${artifactUri(state.session_id, file)}) beside it under another name.` };
  }
  // The session has moved on and keeps the artifact: say what did not happen, where it is, and how to finish by hand.
  // A project the caller can see no more (another's deleted or unshared) has no fix of theirs: a project of theirs
  // takes it instead (review 220: "once that is fixed" followed "create one" there).
  const kept = `${file} is saved in the session (${artifactUri(state.session_id, file)}), but not in project "${state.project}": ${wrote.error}`;
  const finish = wrote.kind === "no_project" ? `To have it in a project you can write, copy it there with ${TOOL.bmadFiles} "write" (path ${path}).` : `Copy it there with ${TOOL.bmadFiles} "write" (path ${path}) once that is fixed.`;
  return { project_error: `${kept} ${finish}` };
}
