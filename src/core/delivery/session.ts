// Session state (seed 003), stored by a SessionStore; large content lives beside it, referenced here.
import type { Stage } from "./pipeline.js";
import type { Finding } from "./rubric.js";
import type { Question } from "./score.js";

export const STATES = ["generating", "clarifying", "refining", "awaiting_confirmation", "awaiting_approval", "completed"] as const;
export type State = (typeof STATES)[number];

export const ACTIONS = ["start", "submit", "answer", "confirm", "confirm_save", "approve", "reject", "status", "delete"] as const;
export type ActionName = (typeof ACTIONS)[number];

/** Where large content lives: first 300 characters, size, last update; the text is in the store. */
export interface ContentRef {
  ref: string;
  summary: string;
  size: number;
  last_updated: string;
}

export interface StageRecord {
  status: "pending" | "in_progress" | "completed";
  iteration: number;
  score?: number;
  gaps?: string[];
  /** The server's gap analysis of a draft below the gate, by the stage's rubric. */
  findings?: Finding[];
  questions?: Question[];
  answers?: Record<string, string>;
  claude_result_ref?: ContentRef;
  codex_result_ref?: ContentRef;
  final_result_ref?: ContentRef;
  approved?: boolean;
}

export interface Subtask {
  id: string;
  agent: string;
  task: string;
  context_files: string[];
  output_key?: string;
  status: "queued";
  created_at: string;
}

/** A draft the user rejected, kept as a version of its stage's artifact: `file` names it, `ref` holds its text. */
export interface Rejection {
  stage: Stage;
  file: string;
  ref: string;
  score?: number;
  reason: string;
  at: string;
  /** The older rejected versions this rejection pushed out of those kept (machine.ts MAX_REJECTIONS). */
  dropped?: string[];
}

export interface SessionState {
  session_id: string;
  task_name: string;
  objective: string;
  owner: string;
  /** The workspace (bmad-project) each artifact is also saved in, as the owner named it at start. */
  project?: string;
  current_stage: Stage;
  current_state: State;
  stages: Record<Stage, StageRecord>;
  /** Saved artifact file names, in order. */
  artifacts: string[];
  /** Rejected drafts, oldest first. */
  history: Rejection[];
  subtasks: Subtask[];
  /** Bumped by every change: lets a store detect a lost race. */
  revision: number;
  created_at: string;
  updated_at: string;
}

/** The user's rejection of the stage's latest draft, while no new draft has been submitted. */
export function openRejection(s: SessionState): Rejection | undefined {
  const last = s.history[s.history.length - 1];
  return last && last.stage === s.current_stage && last.ref === s.stages[s.current_stage].final_result_ref?.ref ? last : undefined;
}

/** A `list_sessions` row, kept in the owner's index. */
export interface SessionSummary {
  session_id: string;
  task_name: string;
  objective: string;
  current_stage: Stage;
  current_state: State;
  status: "active" | "completed";
  artifacts: string[];
  created_at: string;
  updated_at: string;
}

/** Characters of the objective a summary keeps (a list's row, the bridge's task mapping): enough to tell sessions apart.
 *  The state holds it whole (review 426: list_sessions carried every 4,000 characters of each, 31 times its text). */
export const SUMMARY_OBJECTIVE_CHARS = 200;

/** The objective's start, as summaries keep it: whole code points. */
export function objectiveStart(objective: string): string {
  return objective.length <= SUMMARY_OBJECTIVE_CHARS ? objective : [...objective].slice(0, SUMMARY_OBJECTIVE_CHARS).join("");
}

export function summarize(s: SessionState): SessionSummary {
  return {
    session_id: s.session_id,
    task_name: s.task_name,
    objective: objectiveStart(s.objective),
    current_stage: s.current_stage,
    current_state: s.current_state,
    status: s.current_state === "completed" ? "completed" : "active",
    artifacts: s.artifacts,
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

/** Where a project keeps task artifacts (seed 003). */
export const SPECS_DIR = ".claude/specs";

/** Where an artifact lives in a project: `.claude/specs/{task}/{file}`. */
export function specPath(taskName: string, file: string): string {
  return `${SPECS_DIR}/${taskName}/${file}`;
}

/** Seed 003 task names: lower-case slug of the objective, at most 50 characters. */
export function taskSlug(objective: string): string {
  const slug = objective
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9\s-]/g, "")
    .trim()
    .replace(/[\s-]+/g, "-")
    .slice(0, 50)
    .replace(/-+$/, "");
  return slug || "task";
}

/** `build-user-auth`, then `build-user-auth-1`, `-2`, ... among the names an owner already has. */
export function uniqueTaskName(objective: string, taken: Set<string>): string {
  const base = taskSlug(objective);
  if (!taken.has(base)) return base;
  for (let i = 1; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

export const SESSION_ID = /^[0-9a-f]{64}$/;

/** A frozen lookup table without a prototype: a key read back from storage cannot reach Object.prototype. */
export function lookupTable<K extends string, V>(entries: Record<K, V>): Readonly<Record<K, V>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<K, V>, entries));
}
