// SessionStore over Durable Objects: the owner's index resolves names, each session's own object holds it.
import { closest, suggestion } from "../core/catalog/closest.js";
import type { Action } from "../core/delivery/machine.js";
import { SESSION_ID, type SessionState } from "../core/delivery/session.js";
import type { ListPlace, QueueRequest, SessionStatusFilter, SessionStore, Stored } from "../core/delivery/store.js";
import type { Env } from "./env.js";
import { SESSION_NOT_FOUND, type WorkflowSession } from "./session-do.js";

export class DurableSessionStore implements SessionStore {
  constructor(private readonly env: Env) {}

  private index(owner: string) {
    return this.env.OWNER_SESSIONS.get(this.env.OWNER_SESSIONS.idFromName(owner));
  }

  private session(id: string) {
    return this.env.WORKFLOW_SESSION.get(this.env.WORKFLOW_SESSION.idFromName(id));
  }

  /** A session id goes straight to its object (which checks the owner); a task name goes through the index. */
  private async locate(owner: string, session: string): Promise<Stored<string>> {
    if (SESSION_ID.test(session)) return { ok: true, value: session };
    const id = await this.index(owner).resolve(session);
    return id ? { ok: true, value: id } : this.notFound(owner, session);
  }

  /** Not found, with the closest of the owner's task names. */
  private async notFound(owner: string, session: string): Promise<Stored<never>> {
    const names = await this.index(owner).taskNames();
    const hint = names.length ? suggestion(closest(session, names, 3)) : ' You have no sessions: start one with bmad-task action "start".';
    return { ok: false, kind: "not_found", error: `Session "${session.slice(0, 100)}" not found.${hint}` };
  }

  /** Runs `op` on the session's object; its not-found gets the same helpful message. */
  private async on<T>(owner: string, session: string, op: (stub: DurableObjectStub<WorkflowSession>, id: string) => Promise<Stored<T>>): Promise<Stored<T>> {
    const id = await this.locate(owner, session);
    if (!id.ok) return id;
    const out = await op(this.session(id.value), id.value);
    return !out.ok && out.kind === "not_found" && out.error === SESSION_NOT_FOUND ? this.notFound(owner, session) : out;
  }

  async start(owner: string, objective: string, options: { project?: string; taken?: string[] } = {}): Promise<Stored<SessionState>> {
    const state = await this.index(owner).reserve(owner, objective, new Date().toISOString(), options);
    if ("refused" in state) return { ok: false, kind: "invalid", error: state.refused };
    return { ok: true, value: await this.session(state.session_id).create(state) };
  }

  get(owner: string, session: string): Promise<Stored<SessionState>> {
    return this.on(owner, session, (s) => s.get(owner));
  }

  act(owner: string, session: string, action: Action): Promise<Stored<SessionState>> {
    return this.on(owner, session, (s) => s.act(owner, action, new Date().toISOString()));
  }

  updateQueue(owner: string, session: string, { done, add }: QueueRequest): Promise<Stored<SessionState>> {
    const now = new Date().toISOString();
    const change = { done, ...(add ? { add: { id: crypto.randomUUID(), status: "queued" as const, created_at: now, ...add } } : {}) };
    return this.on(owner, session, (s) => s.updateQueue(owner, change, now));
  }

  list(owner: string, status: SessionStatusFilter, limit: number, before?: ListPlace) {
    return this.index(owner).list(status, limit, before);
  }

  remove(owner: string, session: string): Promise<Stored<SessionState>> {
    return this.on(owner, session, (s) => s.destroy(owner));
  }

  readArtifact(owner: string, session: string, file: string): Promise<Stored<string>> {
    return this.on(owner, session, (s) => s.readArtifact(owner, file));
  }

  readContent(owner: string, session: string, ref: string): Promise<Stored<string>> {
    return this.on(owner, session, (s) => s.readContent(owner, ref));
  }
}
