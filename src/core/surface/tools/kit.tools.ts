// Toolset `kit` (seed 001), the session part: status, the caller's sessions, and sub-task queueing.
import { z } from "zod";
import { TOOL } from "../names.js";
import { done, fail } from "../outcome.js";
import { defineTool, READ_ONLY } from "../tool.js";
import { noSessions, sessionField, stored } from "./delivery.tools.js";

export const getWorkflowStatus = defineTool({
  name: TOOL.getWorkflowStatus,
  toolset: "kit",
  description: "Get a delivery session's state: stage, state, score, artifacts, queued sub-tasks. Without run_id, the newest session.",
  input: z.object({
    run_id: sessionField.optional().describe("Session id or task name (default: newest)"),
    branch: z.literal("main").optional().describe("Session branch (only main)"),
  }),
  annotations: READ_ONLY,
  async run({ run_id }, deps) {
    const { sessions, owner } = deps;
    if (!sessions) return noSessions();
    const id = run_id ?? (await sessions.list(owner, "all"))[0]?.session_id;
    if (!id) return fail('No sessions yet: start one with bmad-task action "start".');
    return stored(deps, await sessions.get(owner, id));
  },
});

export const listSessions = defineTool({
  name: TOOL.listSessions,
  toolset: "kit",
  description: "List your delivery sessions, newest first, optionally by status.",
  input: z.object({ status: z.enum(["all", "active", "completed", "failed"]).optional().describe("Filter (default all)") }),
  annotations: READ_ONLY,
  async run({ status }, { sessions, owner }) {
    if (!sessions) return noSessions();
    const list = await sessions.list(owner, status ?? "all");
    const text = list.map((s) => `${s.task_name} [${s.status}] ${s.current_stage}/${s.current_state} ${s.session_id}`).join("\n");
    return done(text || "No sessions.", { sessions: list });
  },
});

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
