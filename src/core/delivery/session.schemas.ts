// Session state as read back from storage a user can edit (the bridge's .bmad-task/ files, which can
// arrive with any cloned repository): parsed once at load, so nothing after it indexes with a planted key
// such as "__proto__". Unknown keys are dropped; every key used for a lookup is an enum or a pattern.
import * as z from "zod";
import { STAGES } from "./pipeline.js";
import { SESSION_ID, STATES, type SessionState } from "./session.js";
import type { Result } from "../result.js";

/** What taskSlug makes: safe as a folder name. */
export const TASK_NAME = /^[a-z0-9-]{1,64}$/;
/** What a session keeps at most, bounded where it is written (a draft's notes: score.ts; a rejection: machine.ts; the
 *  objective: bmad-task's start) and checked again where it is read back: a state file made elsewhere (committed to a
 *  repository) that is larger is no session this server wrote (review 426: a 6 MB objective made list_sessions 6 MB). */
export const MAX_OBJECTIVE_CHARS = 4000;
export const MAX_QUESTIONS = 20;
export const MAX_GAPS = 50;
export const MAX_ITEM_CHARS = 2000;
export const MAX_REASON_CHARS = 1000;
/** Rejections kept besides each stage's first (machine.ts keptRejections). */
export const MAX_REJECTIONS = 10;
const MAX_HISTORY = STAGES.length + MAX_REJECTIONS;
/** Sub-tasks waiting on one session (machine.ts requeued). */
export const MAX_QUEUED_SUBTASKS = 50;
const item = z.string().max(MAX_ITEM_CHARS);

/** A record key from file content must never be "__proto__": zod would set the record's prototype. */
const key = z.string().max(200).refine((k) => k !== "__proto__", "must not be __proto__");

const contentRef = z.object({
  ref: z.string().regex(/^[\w.-]+(\/[\w.-]+)*$/).max(200),
  summary: z.string(),
  size: z.number().int().nonnegative(),
  last_updated: z.string(),
});

/** A rejected draft's version of its artifact, as a file name (01-product-requirements.rejected-2.md). */
const versionFile = z.string().regex(/^[\w.-]+$/).max(200);

const stageRecord = z.object({
  status: z.enum(["pending", "in_progress", "completed"]),
  iteration: z.number().int().nonnegative(),
  score: z.number().optional(),
  gaps: z.array(item).max(MAX_GAPS).optional(),
  findings: z.array(z.object({ name: z.string(), status: z.enum(["missing", "weak"]), points: z.number(), detail: z.string().optional() })).optional(),
  questions: z.array(z.object({ id: z.string().max(200), question: item, context: item.optional() })).max(MAX_QUESTIONS).optional(),
  answers: z.record(key, z.string()).optional(),
  claude_result_ref: contentRef.optional(),
  codex_result_ref: contentRef.optional(),
  final_result_ref: contentRef.optional(),
  approved: z.boolean().optional(),
});

const subtask = z.object({
  id: z.string().max(100),
  agent: z.string(),
  task: z.string(),
  context_files: z.array(z.string()),
  output_key: z.string().optional(),
  status: z.literal("queued"),
  created_at: z.string(),
});

export const SESSION_STATE = z.object({
  session_id: z.string().regex(SESSION_ID),
  task_name: z.string().regex(TASK_NAME),
  objective: z.string().max(MAX_OBJECTIVE_CHARS),
  owner: z.string(),
  project: z.string().max(200).optional(),
  current_stage: z.enum(STAGES),
  current_state: z.enum(STATES),
  // Exactly the pipeline's stages, each required: a lookup by current_stage always finds its own record.
  stages: z.object(Object.fromEntries(STAGES.map((s) => [s, stageRecord])) as Record<(typeof STAGES)[number], typeof stageRecord>),
  // One per stage at most: a stage's artifact is added once, when it is confirmed.
  artifacts: z.array(z.string().max(200)).max(STAGES.length),
  // Sessions saved before rejections existed have none.
  history: z.array(z.object({ stage: z.enum(STAGES), file: versionFile, ref: contentRef.shape.ref, score: z.number().optional(), reason: z.string().max(MAX_REASON_CHARS), at: z.string(), dropped: z.array(versionFile).max(MAX_HISTORY).optional() })).max(MAX_HISTORY).default([]),
  subtasks: z.array(subtask).max(MAX_QUEUED_SUBTASKS),
  revision: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** The bridge's task-mapping.json: session id -> task name, objective, owner. */
export const TASK_MAPPING = z.record(
  z.string().regex(SESSION_ID),
  z.object({ task_name: z.string().regex(TASK_NAME), objective: z.string(), created_at: z.string(), owner: z.string() }),
);
export type TaskMappingEntry = z.infer<typeof TASK_MAPPING>[string];

/** A stored session, or the first problems found (field paths and what was expected), for a message. */
export function parseSessionState(value: unknown): Result<{ state: SessionState }> {
  const parsed = SESSION_STATE.safeParse(value);
  if (parsed.success) return { ok: true, state: parsed.data satisfies SessionState };
  const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.length ? i.path.join(".") : "the file"}: ${i.message}`);
  return { ok: false, error: issues.join("; ") };
}
