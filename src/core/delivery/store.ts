// What sessions need from storage. The Worker implements it with Durable Objects, the bridge with files.
import type { Action } from "./machine.js";
import type { SessionState, SessionSummary, Subtask } from "./session.js";
import type { Result } from "../result.js";
import { count as n } from "../count.js";
import { TOOL } from "../surface/names.js";
import { MIB } from "../workspace/limits.js";

/** A sub-task queue change as a tool asks it: `add` without the id, status and time the store gives it. */
export interface QueueRequest {
  done: string[];
  add?: Omit<Subtask, "id" | "status" | "created_at">;
}

export type SessionStatusFilter = "all" | "active" | "completed" | "failed";

export type Stored<T> = Result<{ value: T }, { kind: "not_found" | "conflict" | "invalid" }>;

/** How to make room where a store keeps no more sessions: both stores' refusals end with it. */
export const MAKE_ROOM = `${TOOL.listSessions} lists them (status "completed": the finished ones), and ${TOOL.bmadTask} action "delete" with confirm: its task name removes one.`;

/** A change refused for the bytes sessions keep, said alike by both stores: the session's size with it, the total it
 *  would make of those `held` ("you keep on this server", "this project keeps"), the limit, and how to make room. */
export function tooManyBytes(taskName: string, sessionBytes: number, total: number, limit: number, held: string): string {
  return `Session ${taskName} would keep ${n(sessionBytes)} bytes with this, taking the delivery sessions ${held} to ${n(total)} bytes, past the ${limit / MIB} MiB (${n(limit)} bytes) they may hold; nothing was saved. To make room, delete finished ones: ${MAKE_ROOM}`;
}

/** A session file a list left out, and why (the bridge's, edited by hand into something else). */
export interface UnreadableSession {
  file: string;
  reason: string;
}

/** A place in the newest-first order lists page in: when (`at`, an ISO time) and, among those of that time, `id`. */
export interface ListPlace {
  at: string;
  id: string;
}

/** Newest first by time, then by id: one total order, so a page that starts strictly past the last one listed skips
 *  and repeats nothing when others are added or deleted between pages (an offset did: review 255). */
export function newestFirst(a: ListPlace, b: ListPlace): number {
  return a.at !== b.at ? (a.at < b.at ? 1 : -1) : a.id === b.id ? 0 : a.id < b.id ? 1 : -1;
}

/** Sessions' places: when they were created, then their id. Never when they last changed, which moves: a session
 *  changed while a list was paged moved behind the cursor and was skipped (review 291). */
export function sessionPlace(s: SessionSummary): ListPlace {
  return { at: s.created_at, id: s.session_id };
}

export interface SessionList {
  sessions: SessionSummary[];
  /** How many of that status there are past `before` (all, without it). */
  total: number;
  unreadable?: UnreadableSession[];
  /** Session files in the store's folder that another made (the bridge's .bmad-task/: committed to the repository,
   *  copied, or by a bmad-mcp from before sessions had owners): never the owner's, named so they can be removed. */
  foreign?: string[];
}

export interface SessionStore {
  /** Creates a session owned by `owner`, with a task name unique among the owner's sessions and not in `taken`.
   *  `project`: the workspace its artifacts are also saved in (a store that saves them in its project already,
   *  the bridge's, ignores it). A store that is full says so (invalid). */
  start(owner: string, objective: string, options?: { project?: string; taken?: string[] }): Promise<Stored<SessionState>>;
  /** `session` is a session id or the owner's task name. Not the owner's: not_found. */
  get(owner: string, session: string): Promise<Stored<SessionState>>;
  /** A change that would take the bytes the store's sessions keep past its limit (its drafts or its state grown) is
   *  refused (invalid, tooManyBytes); changes at once are counted together. Likewise updateQueue. */
  act(owner: string, session: string, action: Action): Promise<Stored<SessionState>>;
  /** Takes the sub-tasks `done` names off the session's queue, then queues `add` (the store gives it its id). */
  updateQueue(owner: string, session: string, change: QueueRequest): Promise<Stored<SessionState>>;
  /** The owner's sessions of that status strictly past `before` in newestFirst order (all, without it): the first
   *  `limit` of them, and how many there are. `unreadable`: the owner's session files the store could not read, which
   *  the list leaves out. */
  list(owner: string, status: SessionStatusFilter, limit: number, before?: ListPlace): Promise<SessionList>;
  /** Deletes the owner's session with all it keeps itself (state, drafts, artifacts), freeing its place among the
   *  owner's sessions; files it saved into a project stay there. Answers the state it had. Not the owner's: not_found. */
  remove(owner: string, session: string): Promise<Stored<SessionState>>;
  readArtifact(owner: string, session: string, file: string): Promise<Stored<string>>;
  readContent(owner: string, session: string, ref: string): Promise<Stored<string>>;
}
