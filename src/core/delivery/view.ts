// The response a client sees after every bmad-task action (seed 003 fields).
import { enginesFor, nextStage, stageSpec } from "./pipeline.js";
import { pendingDraftFile } from "./machine.js";
import { formatFinding, readingScore, type Finding } from "./rubric.js";
import { lookupTable, openRejection, type SessionState } from "./session.js";
import { TOOL } from "../surface/names.js";

// A type, not an interface: it is structured content, a plain record of JSON values.
export type SessionView = {
  session_id: string;
  task_name: string;
  /** The workspace its artifacts are also saved in. */
  project?: string;
  current_stage: string;
  current_state: string;
  requires_user_confirmation: boolean;
  interaction_type: string;
  user_message: string;
  pending_user_actions: string[];
  engines: string[];
  iteration: number;
  score?: number;
  gaps?: string[];
  /** The server's gap analysis of a scored draft: missing or weak sections and their points. */
  rubric_gaps?: string[];
  questions?: Array<{ id: string; question: string; context?: string }>;
  artifacts: string[];
  /** The draft awaiting the user's confirm or approve, readable at this uri (to show it when resuming elsewhere). */
  draft?: string;
  /** Rejected drafts, oldest first: each readable at its uri. */
  history?: Array<{ stage: string; uri: string; score?: number; reason: string; at: string }>;
  /** The newest queued sub-tasks (spawn_subagent_task), at most SHOWN_SUBTASKS, oldest first. */
  subtasks: Array<{ id: string; agent: string; task: string; status: string; output_key?: string }>;
  /** How many are queued in all. */
  subtasks_queued: number;
  role_prompt?: string;
};

/** Sub-tasks every answer shows, the newest: 50 queued made every answer 11 KB, twice (review 212). */
export const SHOWN_SUBTASKS = 5;

const INTERACTION = lookupTable<SessionState["current_state"], string>({
  generating: "awaiting_generation",
  refining: "awaiting_regeneration",
  clarifying: "user_input",
  awaiting_confirmation: "user_decision",
  awaiting_approval: "user_decision",
  completed: "none",
});

/** The server's reading of a draft, for a message: its rubric gaps with their points, and the score they leave where it
 *  is below the one claimed (review 329: a hollow draft claiming 95 went to the user as ready). */
function reading(findings: Finding[], claimed: number | undefined): string {
  const read = readingScore(findings);
  const below = claimed !== undefined && read < claimed ? `; by that reading it scores ${read}/100, not the ${claimed} it claims` : "";
  return `the server's reading of this draft finds: ${findings.map(formatFinding).join("; ")}${below}`;
}

/** `promptHere`: the answer carries the role prompt (else get_workflow_status with run_id gives it). */
function message(s: SessionState, promptHere: boolean): { text: string; pending: string[] } {
  const spec = stageSpec(s.current_stage);
  const stage = s.stages[s.current_stage];
  const rejected = openRejection(s);
  switch (s.current_state) {
    case "generating":
      if (s.current_stage === "dev") return { text: "Sprint plan approved. Which sprints should be implemented? Unless you say otherwise, all of them.", pending: ["specify_sprint_scope_then_generate"] };
      // Where the prompt is, once (review 117: an answer holding it sent the model to fetch its 12 KB again).
      return { text: `Generate the ${spec.title} with ${promptHere ? "role_prompt, below" : `the role prompt (${TOOL.getWorkflowStatus} with run_id: the session_id has it)`}, show it to the user, then submit.`, pending: ["generate_then_submit"] };
    case "refining":
      // Quoted as JSON: a reason holding a quote ended it and read as the server's own words (review 249).
      if (rejected) return { text: `The user rejected the draft: ${JSON.stringify(rejected.reason.slice(0, 500))}. Revise it to address that, show it, then submit.`, pending: ["regenerate_then_submit"] };
      return { text: `Score ${stage.score ?? "?"}/100. Regenerate using the answers and gaps${stage.findings?.length ? " (rubric_gaps: what the draft lacks by the stage's rubric)" : ""}, show it, then submit.`, pending: ["regenerate_then_submit"] };
    case "clarifying":
      return { text: `Score ${stage.score}/100, below the gate. Ask the user these questions, then send their answers with action "answer".`, pending: ["answer"] };
    case "awaiting_confirmation":
      return {
        text: `${spec.title} is ready${stage.score !== undefined && spec.gate.kind === "score" ? ` (score ${stage.score}/100)` : ""}.${stage.findings?.length ? ` Tell the user that ${reading(stage.findings, stage.score)}.` : ""} Ask the user to review it (the text is at draft); on "confirm" it is saved${spec.artifact ? ` as ${spec.artifact}` : ""} and ${nextStage(s.current_stage) ? "the next stage starts" : "the session is complete"}; on "reject", send their reason and revise.`,
        pending: ["confirm", "reject"],
      };
    case "awaiting_approval":
      return { text: `Sprint plan ready. Ask the user to approve it (the text is at draft); on "approve" it is saved as ${spec.artifact} and development starts; on "reject", send their reason and revise.`, pending: ["approve", "reject"] };
    case "completed":
      return { text: `Done: all stages completed. Artifacts: ${s.artifacts.join(", ")}.`, pending: [] };
  }
}

export function sessionView(s: SessionState, artifactUri: (file: string) => string, rolePrompt?: string): SessionView {
  const stage = s.stages[s.current_stage];
  const { text, pending } = message(s, rolePrompt !== undefined);
  const draft = pendingDraftFile(s);
  return {
    session_id: s.session_id,
    task_name: s.task_name,
    ...(s.project ? { project: s.project } : {}),
    current_stage: s.current_stage,
    current_state: s.current_state,
    requires_user_confirmation: s.current_state !== "completed",
    interaction_type: INTERACTION[s.current_state],
    user_message: text,
    pending_user_actions: pending,
    engines: enginesFor(stageSpec(s.current_stage), s.objective),
    iteration: stage.iteration,
    ...(stage.score !== undefined ? { score: stage.score } : {}),
    ...(stage.gaps?.length ? { gaps: stage.gaps } : {}),
    ...(stage.findings?.length ? { rubric_gaps: stage.findings.map(formatFinding) } : {}),
    ...(s.current_state === "clarifying" && stage.questions?.length ? { questions: stage.questions } : {}),
    artifacts: s.artifacts.map(artifactUri),
    ...(draft ? { draft: artifactUri(draft) } : {}),
    ...(s.history.length ? { history: s.history.map(({ stage, file, score, reason, at }) => ({ stage, uri: artifactUri(file), ...(score !== undefined ? { score } : {}), reason: reason.slice(0, 500), at })) } : {}),
    subtasks: s.subtasks.slice(-SHOWN_SUBTASKS).map(({ id, agent, task, status, output_key }) => ({ id, agent, task: task.slice(0, 200), status, ...(output_key ? { output_key } : {}) })),
    subtasks_queued: s.subtasks.length,
    ...(rolePrompt ? { role_prompt: rolePrompt } : {}),
  };
}

