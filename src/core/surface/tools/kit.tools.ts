// Toolset `kit` (seed 001), the session part: status, runs and the caller's sessions, and sub-task queueing.
// Runs are seed 001's `_bmad-output/.runs/{branch}/{run_id}/state.json` in the project; sessions are bmad-task's.
import { z } from "zod";
import { TOOL } from "../names.js";
import { checkBranch, DEFAULT_BRANCH, listRuns, readRun, RUNS_DIR, type RunSummary } from "../../memory/runs.js";
import type { WorkspaceFiles } from "../../workspace/store.js";
import type { SurfaceDeps } from "../deps.js";
import { done, fail, type ToolOutcome } from "../outcome.js";
import { defineTool, READ_ONLY } from "../tool.js";
import { noSessions, sessionField, stored } from "./delivery.tools.js";
import { projectField } from "./memory.tools.js";

export const getWorkflowStatus = defineTool({
  name: TOOL.getWorkflowStatus,
  toolset: "kit",
  description: "Get a run's state (_bmad-output/.runs/{branch}/{run_id}/state.json) or a delivery session's. Default: the newest.",
  input: z.object({
    run_id: sessionField.optional().describe("Run or session id"),
    branch: z.string().min(1).max(200).optional().describe("Session branch (default main)"),
    project: projectField,
  }),
  annotations: READ_ONLY,
  async run({ run_id, branch, project }, deps) {
    const { sessions, owner } = deps;
    const checked = checkBranch(branch ?? DEFAULT_BRANCH);
    if (!checked.ok) return fail(checked.error);
    const onMain = checked.value === DEFAULT_BRANCH;
    const files = await runFiles(deps, project);
    if (!files.ok) return fail(files.error);
    if (run_id !== undefined) {
      const run = files.files && (await readRun(files.files, checked.value, run_id));
      if (run) return run.ok ? showRun(run.value) : fail(run.error);
      const session = onMain && sessions ? await sessions.get(owner, run_id) : undefined;
      if (session?.ok || (session && !files.files)) return stored(deps, session);
      return fail(`No run "${run_id.slice(0, 100)}" on branch ${checked.value} (${RUNS_DIR}/${checked.value}/{run_id}/state.json)${onMain && sessions ? " and no delivery session by that name" : ""}: list_sessions lists both.`);
    }
    const newestRun = files.files ? (await listRuns(files.files, checked.value)).runs[0] : undefined;
    const newestSession = onMain && sessions ? (await sessions.list(owner, "all"))[0] : undefined;
    if (newestRun && (!newestSession || newestRun.updated_at >= newestSession.updated_at)) {
      const run = await readRun(files.files!, newestRun.branch, newestRun.run_id);
      if (run) return run.ok ? showRun(run.value) : fail(run.error);
    }
    if (newestSession) return stored(deps, await sessions!.get(owner, newestSession.session_id));
    if (!sessions && !files.files) return noSessions();
    return fail(`No runs on branch ${checked.value} (${RUNS_DIR}/${checked.value}/) and no delivery sessions yet: start one with bmad-task action "start".`);
  },
});

export const listSessions = defineTool({
  name: TOOL.listSessions,
  toolset: "kit",
  description: "List runs (_bmad-output/.runs/) and your delivery sessions, newest first.",
  input: z.object({
    status: z.enum(["all", "active", "completed", "failed"]).optional().describe("Filter (default all)"),
    project: projectField,
  }),
  annotations: READ_ONLY,
  async run({ status, project }, deps) {
    const { sessions, owner } = deps;
    const files = await runFiles(deps, project);
    if (!files.ok) return fail(files.error);
    if (!sessions && !files.files) return noSessions();
    const wanted = status ?? "all";
    const found = files.files ? await listRuns(files.files) : { runs: [], warnings: [] };
    const runs = found.runs.filter((r) => wanted === "all" || r.status === wanted);
    const list = sessions ? await sessions.list(owner, wanted) : [];
    const lines = [
      ...runs.map((r) => `${r.branch}/${r.run_id} [${r.status}${r.state_status && r.state_status !== r.status ? `: ${r.state_status}` : ""}]${r.workflow ? ` ${r.workflow}` : ""} ${r.updated_at}`),
      ...list.map((s) => `${s.task_name} [${s.status}] ${s.current_stage}/${s.current_state} ${s.session_id}`),
      ...found.warnings.map((w) => `warning: ${w}`),
    ];
    return done(lines.join("\n") || "No sessions.", { sessions: list, runs, ...(found.warnings.length ? { warnings: found.warnings } : {}) });
  },
});

/** Where runs are read: the project's files (the bridge's folder, a named workspace, or the caller's only
 *  one). Unnamed and not found is no runs, not an error: delivery sessions may still answer. */
async function runFiles(deps: SurfaceDeps, project: string | undefined): Promise<{ ok: true; files?: WorkspaceFiles } | { ok: false; error: string }> {
  if (!deps.memory) return { ok: true };
  const access = await deps.memory(project);
  if (access.ok) return { ok: true, files: access.files };
  return project === undefined ? { ok: true } : access;
}

function showRun(run: { summary: RunSummary; state: Record<string, unknown> }): ToolOutcome {
  const s = run.summary;
  const head = `Run ${s.branch}/${s.run_id}: ${s.status}${s.state_status && s.state_status !== s.status ? ` (${s.state_status})` : ""}${s.workflow ? `, ${s.workflow}` : ""}, updated ${s.updated_at} (${s.path})`;
  return done(`${head}\n${JSON.stringify(run.state)}`, { ...s, state: run.state });
}

export const spawnSubagentTask = defineTool({
  name: TOOL.spawnSubagentTask,
  toolset: "kit",
  description: "Queue a sub-task for a BMAD agent on a delivery session; get_workflow_status shows the queue.",
  input: z.object({
    agent: z.string().min(1).max(200).describe("Agent name, e.g. architect or bmm/dev"),
    task: z.string().min(1).max(16000).describe("What the agent should do"),
    context_files: z.array(z.string().max(1100)).max(50).optional().describe("Files or bmad:// URIs it needs"),
    output_key: z.string().max(200).optional().describe("Where its result goes"),
    run_id: sessionField.optional().describe("Session id or task name (default: newest active)"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run({ agent, task, context_files, output_key, run_id }, deps) {
    const { sessions, owner, reader } = deps;
    if (!sessions) return noSessions();
    const found = reader.catalog.resolve("agent", agent);
    if (!found.ok) return fail(found.error, found.closest);
    const id = run_id ?? (await sessions.list(owner, "active"))[0]?.session_id;
    if (!id) return fail('No active session: start one with bmad-task action "start", or pass run_id.');
    const name = `${found.record.module}/${found.record.name}`;
    return stored(deps, await sessions.enqueue(owner, id, { agent: name, task, context_files: context_files ?? [], ...(output_key ? { output_key } : {}) }));
  },
});

export const kitTools = [getWorkflowStatus, listSessions, spawnSubagentTask];
