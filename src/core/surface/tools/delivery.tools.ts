// Toolset `delivery` (seed 003): one bmad-task tool drives the PO -> Architect -> SM -> Dev -> Review -> QA session.
import * as z from "zod";
import { droppedNote, type Action } from "../../delivery/machine.js";
import { ACTIONS, SPECS_DIR, type SessionState } from "../../delivery/session.js";
import { MAX_OBJECTIVE_CHARS } from "../../delivery/session.schemas.js";
import type { SessionStore, Stored } from "../../delivery/store.js";
import { sessionView } from "../../delivery/view.js";
import type { SurfaceDeps } from "../deps.js";
import { done, fail, type ToolOutcome } from "../outcome.js";
import { artifactUri } from "../resources.js";
import { rolePrompt, type Sending, type StageSources } from "../../delivery/role-prompt.js";
import { earlierWork } from "../earlier-work.js";
import { planningNote, saveInProject, savingProject, sessionProject } from "../session-project.js";
import { TOOL } from "../names.js";
import { defineTool } from "../tool.js";
import { folderName } from "./workspace.tools.js";

export const sessionField = z.string().min(1).max(100).describe("Session id or task name");
const result = (engine: string) => z.string().max(3 * 1024 * 1024).optional().describe(`${engine}'s result, JSON or markdown (submit)`);

/** The session's saved documents, and the project's earlier ones where it has one, read for the next stage's prompt. */
function stageSources(deps: SurfaceDeps, state: SessionState): StageSources | undefined {
  const { sessions, owner } = deps;
  if (!sessions) return undefined;
  const value = (read: Stored<string>) => (read.ok ? read.value : undefined);
  // On the remote, the project the session started with; on the bridge, the folder it lives in.
  const name = state.project ?? (deps.workspaces && folderName(deps.workspaces));
  const { runtime } = deps;
  return {
    content: async (ref) => value(await sessions.readContent(owner, state.session_id, ref)),
    ...(name !== undefined && runtime
      ? {
          project: {
            name,
            earlierWork: async (record) => {
              const found = await runtime(state.project, { lazy: true });
              return found.ok ? (await earlierWork(deps.reader, record, found.runtime)).line : undefined;
            },
          },
        }
      : {}),
  };
}

/** How an answer is given: `light`, without the role prompt (seed 003 status); `extra`, what else the action did (where
 *  it saved an artifact in the session's project); `sending`, how its role prompt is sent (whole, unless it says). */
interface Answering {
  light?: boolean;
  extra?: Record<string, string>;
  sending?: Sending;
}

/** The state a client sees; with the role prompt whenever it has to generate, unless light. */
export async function respond(deps: SurfaceDeps, state: SessionState, how: Answering = {}): Promise<ToolOutcome> {
  const generate = !how.light && (state.current_state === "generating" || state.current_state === "refining");
  const prompt = generate ? await rolePrompt(deps.reader, state, stageSources(deps, state), how.sending) : undefined;
  const view = { ...sessionView(state, (f) => artifactUri(state.session_id, f), prompt), ...how.extra };
  for (const note of [planningNote(deps, state), droppedNote(state)]) if (note) view.user_message += note;
  return done(JSON.stringify(view), view);
}

export async function stored(deps: SurfaceDeps, outcome: Stored<SessionState>, how: Answering = {}): Promise<ToolOutcome> {
  return outcome.ok ? respond(deps, outcome.value, how) : fail(outcome.error);
}

export function noSessions(): ToolOutcome {
  return fail("This endpoint keeps no sessions.");
}

export const bmadTaskTool = defineTool({
  name: TOOL.bmadTask,
  toolset: "delivery",
  description:
    "BMAD delivery session PO -> Architect -> SM -> Dev -> Review -> QA: start, submit, answer; confirm, approve, reject or delete (confirm: task name) only on the user's word, once shown the result.",
  input: z.object({
    action: z.enum(ACTIONS).describe("What to do"),
    session_id: sessionField.optional().describe("Id or task name (not start)"),
    objective: z.string().min(1).max(MAX_OBJECTIVE_CHARS).optional().describe("What to build (start)"),
    claude_result: result("Claude"),
    codex_result: result("Codex"),
    answers: z.record(z.string().max(64), z.string().max(16000)).optional().describe("Question id -> answer (answer)"),
    project: z.string().max(100).optional().describe("Workspace to also save artifacts in (start)"),
    reason: z.string().max(4000).optional().describe("User's reason (reject)"),
    // delete's: the tool's description says what it is (tools/list is 8 KB at most).
    confirm: z.string().max(100).optional(),
    // A view's clicks name the revision they showed (step() refuses another); no description: models need not send it.
    revision: z.number().int().min(0).optional(),
  }),
  maxArgumentBytes: 5 * 1024 * 1024,
  // delete removes a session, as bmad-project and bmad-files remove theirs.
  // Not destructive as a whole: a host that asks before each destructive call would ask at every step of a session;
  // its one deleting action takes the task name as confirm.
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  // A session's status is a read: a read-only token may ask it (review 48).
  writes: (args) => !(args && typeof args === "object" && (args as { action?: unknown }).action === "status"),
  async run(args, deps) {
    const { sessions, owner } = deps;
    if (!sessions) return noSessions();
    if (args.action === "start") {
      if (!args.objective) return fail('Action "start" needs "objective", e.g. "Build user authentication".');
      if (args.project === undefined) return stored(deps, await sessions.start(owner, args.objective));
      const target = await sessionProject(deps, args.project);
      if (!target.ok) return fail(target.error);
      return stored(deps, await sessions.start(owner, args.objective, { project: target.ref, taken: target.taken }));
    }
    if (!args.session_id) return fail(`Action "${args.action}" needs "session_id" (the id or task name start returned).`);
    // status stays light (seed 003); get_workflow_status carries the role prompt for resuming elsewhere.
    if (args.action === "status") return stored(deps, await sessions.get(owner, args.session_id), { light: true });
    if (args.action === "delete") return deleteSession(deps, sessions, args.session_id, args.confirm);
    const action: Action =
      args.action === "submit" ? { type: "submit", claude_result: args.claude_result, codex_result: args.codex_result }
      : args.action === "answer" ? { type: "answer", answers: args.answers ?? {} }
      : args.action === "approve" ? { type: "approve" }
      : args.action === "reject" ? { type: "reject", reason: args.reason ?? "" }
      : { type: "confirm" }; // confirm_save is the legacy name of confirm
    const acted = await sessions.act(owner, args.session_id, args.revision === undefined ? action : { ...action, revision: args.revision });
    if (!acted.ok || (action.type !== "confirm" && action.type !== "approve")) return stored(deps, acted, { sending: { followUp: true, draftSent: action.type === "submit" } });
    return respond(deps, acted.value, { extra: await saveInProject(deps, acted.value) });
  },
});

/** Deletes the caller's session once `confirm` names its task, as bmad-project asks a project's name: what the session
 *  kept goes, what it saved into a project stays (that file's history is the project's). */
async function deleteSession(deps: SurfaceDeps, sessions: SessionStore, session: string, confirm: string | undefined): Promise<ToolOutcome> {
  const found = await sessions.get(deps.owner, session);
  if (!found.ok) return fail(found.error);
  const { session_id, task_name } = found.value;
  if (confirm !== task_name) return fail(`To delete session "${task_name}" with its state, drafts and the artifacts it keeps, pass confirm: "${task_name}".`);
  // By id: the name could be another session's by now.
  const removed = await sessions.remove(deps.owner, session_id);
  if (!removed.ok) return fail(removed.error);
  const { project, artifacts } = removed.value;
  const where = savingProject(deps, project);
  const kept = where && artifacts.length ? ` Its artifacts saved in ${where} stay there (${SPECS_DIR}/${task_name}/).` : "";
  return done(`Deleted delivery session "${task_name}" with its state, drafts and the artifacts it kept; it no longer counts toward the sessions you keep.${kept}`, { deleted: session_id, task_name });
}

export const deliveryTools = [bmadTaskTool];
