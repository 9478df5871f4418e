// The delivery state machine, pure: (state, action) -> new state + content to store, or an error value.
import { contractStage, nextStage, stageSpec, STAGES, type Stage } from "./pipeline.js";
import { gapAnalysis, rubricFor } from "./rubric.js";
import { parseResult, type ParsedResult, type Question } from "./score.js";
import { lookupTable, openRejection, type ActionName, type ContentRef, type Rejection, type SessionState, type StageRecord, type State, type Subtask } from "./session.js";
import { MAX_QUEUED_SUBTASKS, MAX_REASON_CHARS, MAX_REJECTIONS, parseSessionState } from "./session.schemas.js";
import { byteLength } from "./stage-inputs.js";
import { count as n } from "../count.js";
import { SHOWS_AS_NOTHING } from "../lines.js";
import type { Result } from "../result.js";
import { TOOL } from "../surface/names.js";
import { MAX_FILE_BYTES } from "../workspace/limits.js";

export const MAX_SUBMISSION_BYTES = 2 * 1024 * 1024;
/** A session's state as stored, at most: one row on the remote (2 MB on Cloudflare), read whole on every call. The
 *  parts that grow are each bounded well within it (a draft's questions and gaps: score.ts; the answers; the newest
 *  rejections; the sub-tasks), and a stage's notes go when it completes, so a session always has room for its next
 *  step: a state filled to a few bytes under a single cap refused every answer, and the session was stuck (review 28). */
export const MAX_STATE_BYTES = 512 * 1024;
/** One answer's answers, as JSON. */
const MAX_ANSWERS_BYTES = 128 * 1024;
/** Rejections kept besides each stage's first (their drafts stay readable as versions), and what each keeps of the
 *  user's reason: MAX_REJECTIONS and MAX_REASON_CHARS (session.schemas.ts, which a state read back is checked against). */
const KEPT_REJECTIONS = `a session keeps each stage's first rejected draft and the newest ${MAX_REJECTIONS} others`;
export { MAX_QUEUED_SUBTASKS };
/** The bytes of the sub-tasks waiting on one session, as JSON. */
const MAX_QUEUED_BYTES = 128 * 1024;
const jsonBytes = (value: unknown) => byteLength(JSON.stringify(value));

/** `revision`: act only on the session as it was at that revision (what a view showed), else a conflict. */
export type Action = (
  | { type: "submit"; claude_result?: string; codex_result?: string }
  | { type: "answer"; answers: Record<string, string> }
  | { type: "confirm" }
  | { type: "approve" }
  | { type: "reject"; reason: string }
) & { revision?: number };

export interface StoreContent {
  ref: string;
  text: string;
}

export type Step = Result<{ state: SessionState; content: StoreContent[]; artifact?: { file: string; ref: string } }, { kind: "conflict" | "invalid" }>;

/** Which actions each state accepts (status always works). */
export const ALLOWED: Readonly<Record<State, ActionName[]>> = lookupTable({
  generating: ["submit", "status"],
  clarifying: ["answer", "status"],
  refining: ["submit", "status"],
  awaiting_confirmation: ["confirm", "confirm_save", "reject", "status"],
  awaiting_approval: ["approve", "reject", "status"],
  completed: ["status"],
});

export function newSession(init: { session_id: string; task_name: string; objective: string; owner: string; now: string; project?: string }): SessionState {
  const stages = Object.fromEntries(STAGES.map((s) => [s, { status: "pending", iteration: 0 } satisfies StageRecord])) as Record<Stage, StageRecord>;
  stages.po = { status: "in_progress", iteration: 0 };
  const { project, ...rest } = init;
  return { ...rest, ...(project ? { project } : {}), current_stage: "po", current_state: "generating", stages, artifacts: [], history: [], subtasks: [], revision: 1, created_at: init.now, updated_at: init.now };
}

/** The artifact a confirm or approve that led to `state` saved: the one of the stage it completed, if any. */
export function savedArtifact(state: SessionState): string | undefined {
  const done = state.current_state === "completed" ? STAGES[STAGES.length - 1]! : STAGES[STAGES.indexOf(state.current_stage) - 1];
  const file = done && stageSpec(done).artifact;
  return file && state.artifacts.includes(file) ? file : undefined;
}

function contentRef(ref: string, text: string, now: string): ContentRef {
  return { ref, summary: text.slice(0, 300), size: new TextEncoder().encode(text).length, last_updated: now };
}

/** The next state, refused whole (nothing saved) where it could not be stored and read back: a draft's 300-character
 *  question id was saved and made every later call say "stored state is damaged" (review 26). */
export function step(state: SessionState, action: Action, now: string): Step {
  // Under the store's lock, with the state it holds: a view's click acts on the stage the user saw, or on nothing
  // (review 85: a confirm clicked on the PO stage confirmed the architecture the model had submitted meanwhile).
  if (action.revision !== undefined && action.revision !== state.revision) {
    return { ok: false, kind: "conflict", error: `Session ${state.task_name} has moved on since revision ${action.revision}: it is at revision ${state.revision}, ${state.current_stage} ${state.current_state}. Nothing was done: show the user where it is now, and act on their word.` };
  }
  const out = apply(state, action, now);
  if (!out.ok) return out;
  const refused = unstorable(out.state);
  return refused ? { ok: false, kind: "invalid", error: refused } : out;
}

/** What one call changes in a session's sub-task queue: finished ones taken off, then one queued. */
export interface QueueChange {
  done: string[];
  add?: Subtask;
}

/** `state` with its queue changed, or why not (nothing changed). Nothing runs a sub-task: the model does them and takes
 *  them off, else the queue filled and stayed full, refusing every new one (review 212). */
export function requeued(state: SessionState, change: QueueChange, now: string): Step {
  const ids = new Set(state.subtasks.map((t) => t.id));
  const unknown = change.done.filter((id) => !ids.has(id));
  if (unknown.length) {
    return { ok: false, kind: "invalid", error: `Session ${state.task_name} has no queued sub-task ${unknown.slice(0, 5).map((id) => JSON.stringify(id)).join(", ")} (one taken off is gone); nothing was changed. ${TOOL.bmadTask} status shows the newest queued ones with their ids.` };
  }
  const left = state.subtasks.filter((t) => !change.done.includes(t.id));
  if (change.add && (left.length >= MAX_QUEUED_SUBTASKS || jsonBytes([...left, change.add]) > MAX_QUEUED_BYTES)) {
    return { ok: false, kind: "invalid", error: `Session ${state.task_name} has ${left.length} sub-tasks queued, as many as one session holds (${MAX_QUEUED_SUBTASKS}, ${MAX_QUEUED_BYTES / 1024} KiB in all); nothing was queued. Take the finished ones off with ${TOOL.spawnSubagentTask} done: [their ids] (${TOOL.bmadTask} status shows the newest), in this same call if you like, or give this one a shorter task.` };
  }
  const next: SessionState = { ...state, subtasks: change.add ? [...left, change.add] : left, revision: state.revision + 1, updated_at: now };
  const refused = unstorable(next);
  return refused ? { ok: false, kind: "invalid", error: refused } : { ok: true, state: next, content: [] };
}

/** Why `state` cannot be saved: past the size a session keeps, or not what loading it accepts. */
function unstorable(state: SessionState): string | undefined {
  const json = JSON.stringify(state);
  if (byteLength(json) > MAX_STATE_BYTES) {
    return `This would take session ${state.task_name}'s state past the ${MAX_STATE_BYTES / 1024} KiB a session keeps (its questions, gaps, answers, rejections and sub-tasks); nothing was saved. Send shorter ones, or start a new session.`;
  }
  const parsed = parseSessionState(JSON.parse(json));
  return parsed.ok ? undefined : `This would leave session ${state.task_name}'s state unreadable (${parsed.error}); nothing was saved.`;
}

/** The stored content `state` still names (its stages' results and its rejected drafts): what else is stored is superseded. */
export function referencedContent(state: SessionState): Set<string> {
  const refs = new Set(state.history.map((h) => h.ref));
  for (const stage of Object.values(state.stages)) {
    for (const ref of [stage.claude_result_ref, stage.codex_result_ref, stage.final_result_ref]) if (ref) refs.add(ref.ref);
  }
  return refs;
}

function apply(state: SessionState, action: Action, now: string): Step {
  const name: ActionName = action.type;
  if (!ALLOWED[state.current_state].includes(name)) {
    return {
      ok: false,
      kind: "conflict",
      error: `Session ${state.task_name} is ${state.current_state} at stage ${state.current_stage}; "${name}" is not allowed now. Allowed: ${ALLOWED[state.current_state].join(", ")}.`,
    };
  }
  const next: SessionState = structuredClone(state);
  next.revision += 1;
  next.updated_at = now;
  const stage = next.stages[next.current_stage];
  const spec = stageSpec(next.current_stage);
  switch (action.type) {
    case "submit":
      return submit(next, stage, action, now);
    case "answer": {
      const valid = new Map((stage.questions ?? []).map((q) => [q.id, q]));
      const unknown = Object.keys(action.answers).filter((id) => !valid.has(id));
      if (unknown.length) return { ok: false, kind: "invalid", error: `Unknown question id(s): ${unknown.join(", ")}. Valid: ${[...valid.keys()].join(", ") || "none"}.` };
      if (!Object.keys(action.answers).length) return { ok: false, kind: "invalid", error: `Answer at least one question: ${[...valid.keys()].join(", ")}.` };
      if (jsonBytes(action.answers) > MAX_ANSWERS_BYTES) return { ok: false, kind: "invalid", error: `These answers are over ${MAX_ANSWERS_BYTES / 1024} KiB; answer more briefly (the next draft takes them in).` };
      // The answers to this draft's questions: those to an earlier draft's are in the draft that took them in.
      stage.answers = { ...action.answers };
      next.current_state = "refining";
      return { ok: true, state: next, content: [] };
    }
    case "confirm":
    case "approve": {
      stage.status = "completed";
      if (action.type === "approve") stage.approved = true;
      // A completed stage's questions, answers and gaps are no later stage's input; nor are the engines' raw texts its
      // draft was picked from, which nothing reads and which were a third of what a session kept (review 212).
      for (const notes of ["questions", "answers", "gaps", "findings", "claude_result_ref", "codex_result_ref"] as const) delete stage[notes];
      const artifact = spec.artifact && stage.final_result_ref ? { file: spec.artifact, ref: stage.final_result_ref.ref } : undefined;
      if (artifact && !next.artifacts.includes(artifact.file)) next.artifacts.push(artifact.file);
      const following = nextStage(next.current_stage);
      if (!following) next.current_state = "completed";
      else {
        next.current_stage = following;
        next.current_state = "generating";
        next.stages[following] = { status: "in_progress", iteration: 0 };
      }
      return { ok: true, state: next, content: [], artifact };
    }
    case "reject": {
      const reason = action.reason.trim();
      // A reason of characters that show as nothing is none (review 329: "\u200b" was taken, and shown as "").
      if (!reason.replace(SHOWS_AS_NOTHING, "").trim()) return { ok: false, kind: "invalid", error: 'Action "reject" needs "reason": what the user wants changed, e.g. "Add an offline mode and drop SSO".' };
      const draft = stage.final_result_ref;
      if (!draft) return { ok: false, kind: "invalid", error: `Stage ${next.current_stage} has no draft to reject; submit one first.` };
      // The rejected draft stays readable as a version of the stage's artifact (named by its iteration, one rejection
      // each); its text is already stored under its ref. Kept with the start of each reason: the newest rejections, and
      // each stage's first, the user's own first word on it, which a model's reject cycles cannot push out (review 30).
      const file = versionFile(next.current_stage, `rejected-${stage.iteration}`);
      const rejection: Rejection = { stage: next.current_stage, file, ref: draft.ref, ...(stage.score !== undefined ? { score: stage.score } : {}), reason: reason.slice(0, MAX_REASON_CHARS), at: now };
      const kept = keptRejections([...next.history, rejection]);
      // Said, not silent: an older version that stops being readable (review 212).
      const dropped = next.history.filter((h) => !kept.includes(h)).map((h) => h.file);
      if (dropped.length) rejection.dropped = dropped;
      next.history = kept;
      next.current_state = "refining";
      return { ok: true, state: next, content: [] };
    }
  }
}

function keptRejections(history: SessionState["history"]): SessionState["history"] {
  const stages = new Set<string>();
  return history.filter((h, i) => {
    const first = !stages.has(h.stage);
    stages.add(h.stage);
    return first || i >= history.length - MAX_REJECTIONS;
  });
}

/** A version of a stage's artifact, named after it: `01-product-requirements.rejected-2.md`. */
function versionFile(stage: Stage, version: string): string {
  return (stageSpec(stage).artifact ?? `${stage}.md`).replace(/\.md$/, `.${version}.md`);
}

/** The file the draft awaiting the user's confirm or approve is read as: a model resuming from another client has to
 *  show it, and the answers carry no draft (review 483). */
export function pendingDraftFile(state: SessionState): string | undefined {
  const waiting = state.current_state === "awaiting_confirmation" || state.current_state === "awaiting_approval";
  return waiting ? versionFile(state.current_stage, "draft") : undefined;
}

/** The stored content a version `file` of an artifact names, if the session has one: a rejected draft, or the one
 *  awaiting the user's word. */
export function versionRef(state: SessionState, file: string): string | undefined {
  if (file === pendingDraftFile(state)) return state.stages[state.current_stage].final_result_ref?.ref;
  return state.history.find((h) => h.file === file)?.ref;
}

/** Why a result is not this stage's: its document is under another stage's key. A model's revised PRD that arrived
 *  after the user confirmed the PRD was saved as the architecture (review 212). */
function otherStagesDocument(next: SessionState, read: Array<{ engine: string; parsed: Result<ParsedResult> }>): string | undefined {
  const spec = stageSpec(next.current_stage);
  for (const { engine, parsed } of read) {
    const key = parsed.ok ? parsed.key : undefined;
    const owner = key === undefined ? undefined : contractStage(key);
    if (!owner || owner.stage === spec.stage) continue;
    const wanted = next.stages[spec.stage].iteration > 0 ? spec.output.updated : spec.output.draft;
    const status = next.stages[owner.stage].status.replace("_", " ");
    return `${engine}_result's "${key}" is stage ${owner.stage}'s document (${owner.title}, ${status}), and session ${next.task_name} is at stage ${spec.stage} (${spec.title}, ${next.current_state}) now; nothing was saved. For this stage, put its whole document in "${wanted}".`;
  }
  return undefined;
}

/** Why `file` cannot be read from the session: what can be, the pending draft and rejected versions too, and which of
 *  those are not kept. */
export function noArtifact(state: SessionState, file: string): string {
  const rejected = state.history.length ? ` Rejected versions: ${state.history.map((h) => h.file).join(", ")} (${KEPT_REJECTIONS}; older ones are not kept).` : "";
  const pending = pendingDraftFile(state);
  const draft = pending ? ` The draft awaiting the user's word: ${pending}.` : "";
  return `No artifact "${file.slice(0, 100)}" in ${state.task_name}. Artifacts: ${state.artifacts.join(", ") || "none yet"}.${draft}${rejected}`;
}

/** What the open rejection's answer adds: the older rejected versions it pushed out, no longer readable. */
export function droppedNote(state: SessionState): string | undefined {
  const dropped = openRejection(state)?.dropped;
  return dropped && ` No longer kept: ${dropped.join(", ")} (${KEPT_REJECTIONS}).`;
}

function submit(next: SessionState, stage: StageRecord, action: Extract<Action, { type: "submit" }>, now: string): Step {
  const spec = stageSpec(next.current_stage);
  const results = (["claude", "codex"] as const)
    .map((engine) => ({ engine, text: action[`${engine}_result`] }))
    .filter((r): r is { engine: "claude" | "codex"; text: string } => typeof r.text === "string" && r.text.trim().length > 0);
  if (!results.length) return { ok: false, kind: "invalid", error: "Submit needs claude_result or codex_result with the generated content." };
  const tooBig = results.find((r) => new TextEncoder().encode(r.text).length > MAX_SUBMISSION_BYTES);
  if (tooBig) return { ok: false, kind: "invalid", error: `${tooBig.engine}_result is over ${MAX_SUBMISSION_BYTES / 1024 / 1024} MiB; submit the document itself, not attachments.` };

  const read = results.map((r) => ({ ...r, parsed: parseResult(r.text, [spec.output.draft, spec.output.updated], rubricFor(next.current_stage), `${r.engine}_result`) }));
  const unreadable = read.find((r) => !r.parsed.ok)?.parsed;
  if (unreadable && !unreadable.ok) return { ok: false, kind: "invalid", error: unreadable.error };
  const misplaced = otherStagesDocument(next, read);
  if (misplaced) return { ok: false, kind: "conflict", error: misplaced };

  stage.iteration += 1;
  const content: StoreContent[] = [];
  const parsed = read.flatMap(({ parsed, ...r }) => {
    if (!parsed.ok) return [];
    const ref = `${next.current_stage}/${stage.iteration}/${r.engine}`;
    content.push({ ref, text: r.text });
    stage[`${r.engine}_result_ref`] = contentRef(ref, r.text, now);
    return [{ ...r, ...parsed }];
  });
  // With both engines, the higher score wins (seed 003).
  const best = parsed.reduce((a, b) => (b.score > a.score ? b : a));
  // A session saving into a project: its artifact must fit one of the project's files, or its confirm moved on without
  // it there, asking for a copy no project could take.
  const documentBytes = byteLength(best.document);
  if (next.project && spec.artifact && documentBytes > MAX_FILE_BYTES) {
    return { ok: false, kind: "invalid", error: `${best.engine}_result's document (${spec.artifact}) is ${n(documentBytes)} bytes; session ${next.task_name} saves its artifacts in project "${next.project}", where a file holds at most 1 MiB (${n(MAX_FILE_BYTES)} bytes), so it could never be saved there. Nothing was saved: shorten it under 1 MiB, or split it, writing the details to files of their own with ${TOOL.bmadFiles} and linking them from it.` };
  }
  const finalRef = `${next.current_stage}/${stage.iteration}/final`;
  content.push({ ref: finalRef, text: best.document });
  stage.final_result_ref = contentRef(finalRef, best.document, now);
  stage.score = best.score;
  stage.gaps = best.gaps;
  const questions: Question[] = best.questions;
  // The server's own reading of every scored draft, whatever score it claims: what the stage's rubric finds missing or
  // weak, said to the user with a claimed score at or above the gate, so they confirm knowing it (review 291).
  const rubric = rubricFor(next.current_stage);
  const findings = spec.gate.kind === "score" ? gapAnalysis(best.document, rubric) : [];
  if (findings.length) stage.findings = findings;
  else delete stage.findings;

  if (spec.gate.kind === "approval") next.current_state = "awaiting_approval";
  else if (spec.gate.kind === "confirm") next.current_state = "awaiting_confirmation";
  else if (best.score >= spec.gate.min) next.current_state = "awaiting_confirmation";
  else if (questions.length) {
    stage.questions = questions;
    next.current_state = "clarifying";
  } else next.current_state = "refining";
  return { ok: true, state: next, content };
}
