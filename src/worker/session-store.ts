// SessionStore over Durable Objects: the owner's index resolves names, each session's own object holds it.
import { closest, suggestion } from "../core/catalog/closest.js";
import type { Action } from "../core/delivery/machine.js";
import type { SessionState } from "../core/delivery/session.js";
import type { SessionStore, Stored } from "../core/delivery/store.js";
import type { Env } from "./env.js";

export class DurableSessionStore implements SessionStore {
  constructor(private readonly env: Env) {}

  private index(owner: string) {
    return this.env.OWNER_SESSIONS.get(this.env.OWNER_SESSIONS.idFromName(owner));
  }

  private session(id: string) {
    return this.env.WORKFLOW_SESSION.get(this.env.WORKFLOW_SESSION.idFromName(id));
  }

  /** Resolves an id or task name among the owner's sessions; unknown -> not found with the closest names. */
  private async locate(owner: string, session: string): Promise<Stored<string>> {
    const index = this.index(owner);
    const id = await index.resolve(session);
    if (id) return { ok: true, value: id };
    const names = await index.taskNames();
    const hint = names.length ? suggestion(closest(session, names, 3)) : ' You have no sessions: start one with bmad-task action "start".';
    return { ok: false, kind: "not_found", error: `Session "${session.slice(0, 100)}" not found.${hint}` };
  }

  async start(owner: string, objective: string): Promise<SessionState> {
    const state = await this.index(owner).reserve(owner, objective, new Date().toISOString());
    return this.session(state.session_id).create(state);
  }

  async get(owner: string, session: string): Promise<Stored<SessionState>> {
    const id = await this.locate(owner, session);
    return id.ok ? this.session(id.value).get(owner) : id;
  }

  async act(owner: string, session: string, action: Action): Promise<Stored<SessionState>> {
    const id = await this.locate(owner, session);
    return id.ok ? this.session(id.value).act(owner, action, new Date().toISOString()) : id;
  }

  async enqueue(owner: string, session: string, task: { agent: string; task: string; context_files: string[]; output_key?: string }): Promise<Stored<SessionState>> {
    const id = await this.locate(owner, session);
    if (!id.ok) return id;
    const created_at = new Date().toISOString();
    return this.session(id.value).enqueue(owner, { id: crypto.randomUUID(), status: "queued", created_at, ...task });
  }

  list(owner: string, status: "all" | "active" | "completed" | "failed") {
    return this.index(owner).list(status);
  }

  async readArtifact(owner: string, session: string, file: string): Promise<Stored<string>> {
    const id = await this.locate(owner, session);
    return id.ok ? this.session(id.value).readArtifact(owner, file) : id;
  }

  async readContent(owner: string, session: string, ref: string): Promise<Stored<string>> {
    const id = await this.locate(owner, session);
    return id.ok ? this.session(id.value).readContent(owner, ref) : id;
  }
}
