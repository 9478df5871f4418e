// SessionStore over files in the user's project (seed 003 layout), so the stdio bridge works offline:
//   .bmad-task/session-<id>.json            the state (the truth)
//   .bmad-task/task-mapping.json            id -> task name, objective, owner (resolves names, lists)
//   .bmad-task/temp/<id>/<ref, / -> _>.md   stored content
//   .claude/specs/<task>/<artifact>         artifacts, saved on confirm/approve
// Every write is temp file + fsync + rename; actions run read -> step -> write under a per-session lock.
import { randomBytes, randomUUID } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { closest, suggestion } from "../core/catalog/closest.js";
import { newSession, step, type Action } from "../core/delivery/machine.js";
import { SESSION_ID, summarize, uniqueTaskName, type SessionState, type SessionSummary, type Subtask } from "../core/delivery/session.js";
import type { SessionStore, Stored } from "../core/delivery/store.js";

const LOCK_STALE_MS = 10_000; // a lock this old belongs to a crashed process
const LOCK_WAIT_MS = 3_000;
const TASK_NAME = /^[a-z0-9-]+$/; // what taskSlug makes: safe as a folder name
const SAFE_NAME = /^[\w.-]+$/;
const STATE_FILE = /^session-([0-9a-f]{64})\.json$/;

type Mapping = Record<string, { task_name: string; objective: string; created_at: string; owner: string }>;

class BusyError extends Error {}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const errorCode = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code;

async function writeAtomic(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(6).toString("hex")}`;
  try {
    const handle = await open(tmp, "wx");
    await handle.writeFile(text).then(() => handle.sync()).finally(() => handle.close());
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    if (errorCode(e) === "ENOENT" || errorCode(e) === "EISDIR") return undefined;
    throw e;
  }
}

function parseJson(text: string | undefined): unknown {
  try { return text === undefined ? undefined : JSON.parse(text); } catch { return undefined; }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A state file's content, if it is a plausible session with this id (a broken or edited file reads as missing). */
function parseState(text: string | undefined, id: string): SessionState | undefined {
  const s = parseJson(text);
  const ok = isObject(s) && s.session_id === id && typeof s.owner === "string" && typeof s.task_name === "string" && TASK_NAME.test(s.task_name)
    && typeof s.current_state === "string" && isObject(s.stages) && Array.isArray(s.artifacts) && Array.isArray(s.subtasks) && typeof s.revision === "number";
  return ok ? (s as unknown as SessionState) : undefined;
}

function parseMapping(text: string | undefined): Mapping | undefined {
  const m = parseJson(text);
  if (!isObject(m)) return undefined;
  const ok = Object.entries(m).every(([id, e]) => SESSION_ID.test(id) && isObject(e) && typeof e.task_name === "string" && typeof e.owner === "string");
  return ok ? (m as unknown as Mapping) : undefined;
}

export class FileSessionStore implements SessionStore {
  private readonly now: () => string;
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly base: string;
  private readonly mappingPath: string;

  constructor(private readonly projectDir: string, options: { now?: () => string } = {}) {
    this.now = options.now ?? (() => new Date().toISOString());
    this.base = join(projectDir, ".bmad-task");
    this.mappingPath = join(this.base, "task-mapping.json");
  }

  private statePath(id: string): string {
    return join(this.base, `session-${id}.json`);
  }

  private contentPath(id: string, ref: string): string {
    return join(this.base, "temp", id, `${ref.replaceAll("/", "_")}.md`);
  }

  private artifactPath(state: SessionState, file: string): string {
    return join(this.projectDir, ".claude", "specs", state.task_name, file);
  }

  /** One holder at a time per `path`: a promise chain in this process, a `wx` lock file across processes. */
  private locked<T>(path: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.chains.get(path) ?? Promise.resolve()).then(() => this.withLockFile(path, fn));
    const tail = run.catch(() => undefined);
    this.chains.set(path, tail);
    void tail.then(() => this.chains.get(path) === tail && this.chains.delete(path));
    return run;
  }

  private async withLockFile<T>(path: string, fn: () => Promise<T>): Promise<T> {
    const lock = `${path}.lock`;
    await mkdir(dirname(lock), { recursive: true });
    for (const deadline = Date.now() + LOCK_WAIT_MS; ; ) {
      try {
        const handle = await open(lock, "wx");
        await handle.writeFile(`${process.pid}\n`);
        await handle.close();
        break;
      } catch (e) {
        if (errorCode(e) !== "EEXIST") throw e;
        const age = await stat(lock).then((s) => Date.now() - s.mtimeMs, () => 0);
        if (age > LOCK_STALE_MS) await rm(lock, { force: true });
        else if (Date.now() > deadline) throw new BusyError(`${lock} is held by another process; try again (delete it if no bmad-mcp is running).`);
        else await sleep(10 + Math.random() * 40);
      }
    }
    return fn().finally(() => rm(lock, { force: true }));
  }

  private async load(id: string): Promise<SessionState | undefined> {
    return parseState(await readText(this.statePath(id)), id);
  }

  private save(state: SessionState): Promise<void> {
    return writeAtomic(this.statePath(state.session_id), JSON.stringify(state, null, 2));
  }

  /** The mapping rebuilt from the state files present. */
  private async scan(): Promise<Mapping> {
    const names = await readdir(this.base).catch(() => [] as string[]);
    const mapping: Mapping = {};
    for (const name of names) {
      const id = STATE_FILE.exec(name)?.[1];
      const s = id ? await this.load(id) : undefined;
      if (id && s) mapping[id] = { task_name: s.task_name, objective: s.objective, created_at: s.created_at, owner: s.owner };
    }
    return mapping;
  }

  /** The mapping; a missing or malformed one is rebuilt from the state files and written back. */
  private async mapping(): Promise<Mapping> {
    const text = await readText(this.mappingPath);
    const current = parseMapping(text);
    if (current) return current;
    // A project with no sessions stays untouched (no .bmad-task/ just for reading).
    if (text === undefined && !(await readdir(this.base).catch(() => [] as string[])).some((n) => STATE_FILE.test(n))) return {};
    return this.locked(this.mappingPath, async () => {
      const again = parseMapping(await readText(this.mappingPath));
      if (again) return again;
      const rebuilt = await this.scan();
      await writeAtomic(this.mappingPath, JSON.stringify(rebuilt, null, 2));
      return rebuilt;
    });
  }

  private async notFound(owner: string, session: string): Promise<Stored<never>> {
    const names = Object.values(await this.mapping()).filter((e) => e.owner === owner).map((e) => e.task_name);
    const hint = names.length ? suggestion(closest(session, names, 3)) : ' You have no sessions: start one with bmad-task action "start".';
    return { ok: false, kind: "not_found", error: `Session "${session.slice(0, 100)}" not found.${hint}` };
  }

  /** Resolves `session` (id or the owner's task name), loads it and runs `op`, under the session lock if `lock`. */
  private async on<T>(owner: string, session: string, lock: boolean, op: (state: SessionState) => Promise<Stored<T>>): Promise<Stored<T>> {
    const id = SESSION_ID.test(session)
      ? session
      : Object.entries(await this.mapping()).find(([, e]) => e.owner === owner && e.task_name === session)?.[0];
    if (!id) return this.notFound(owner, session);
    const run = async () => {
      const state = await this.load(id);
      // Someone else's session is indistinguishable from a missing one.
      return state?.owner === owner ? op(state) : this.notFound(owner, session);
    };
    try {
      return await (lock ? this.locked(this.statePath(id), run) : run());
    } catch (e) {
      if (e instanceof BusyError) return { ok: false, kind: "conflict", error: `Session "${session.slice(0, 100)}" is busy: ${e.message}` };
      throw e;
    }
  }

  async start(owner: string, objective: string): Promise<SessionState> {
    const session_id = randomBytes(32).toString("hex");
    const now = this.now();
    return this.locked(this.mappingPath, async () => {
      const mapping = parseMapping(await readText(this.mappingPath)) ?? (await this.scan());
      // Task names are artifact folders shared by everyone in the project, so they are unique project-wide.
      const task_name = uniqueTaskName(objective, new Set(Object.values(mapping).map((e) => e.task_name)));
      const state = newSession({ session_id, task_name, objective, owner, now });
      // The name is reserved before the state exists, so a crash in between cannot hand it out twice.
      mapping[session_id] = { task_name, objective, created_at: now, owner };
      await writeAtomic(this.mappingPath, JSON.stringify(mapping, null, 2));
      await this.save(state);
      return state;
    });
  }

  get(owner: string, session: string): Promise<Stored<SessionState>> {
    return this.on(owner, session, false, async (state) => ({ ok: true, value: state }));
  }

  act(owner: string, session: string, action: Action): Promise<Stored<SessionState>> {
    return this.on(owner, session, true, async (state) => {
      const result = step(state, action, this.now());
      if (!result.ok) return { ok: false, kind: result.kind, error: result.error };
      // Content and artifact first: a crash before the state is replaced leaves the old state consistent.
      for (const { ref, text } of result.content) await writeAtomic(this.contentPath(state.session_id, ref), text);
      if (result.artifact) {
        const text = await readText(this.contentPath(state.session_id, result.artifact.ref));
        if (text !== undefined) await writeAtomic(this.artifactPath(state, result.artifact.file), text);
      }
      await this.save(result.state);
      return { ok: true, value: result.state };
    });
  }

  enqueue(owner: string, session: string, task: Omit<Subtask, "id" | "status" | "created_at">): Promise<Stored<SessionState>> {
    return this.on(owner, session, true, async (state) => {
      const subtask: Subtask = { id: randomUUID(), status: "queued", created_at: this.now(), ...task };
      state.subtasks.push(subtask);
      state.revision += 1;
      state.updated_at = subtask.created_at;
      await this.save(state);
      return { ok: true, value: state };
    });
  }

  /** Read from the state files themselves, so a broken one simply drops out. */
  async list(owner: string, status: "all" | "active" | "completed" | "failed"): Promise<SessionSummary[]> {
    const ids = Object.entries(await this.mapping()).filter(([, e]) => e.owner === owner).map(([id]) => id);
    const states = await Promise.all(ids.map((id) => this.load(id)));
    return states
      .filter((s): s is SessionState => s?.owner === owner)
      .map(summarize)
      .filter((s) => status === "all" || s.status === status)
      .sort((a, b) => b.updated_at.localeCompare(a.updated_at) || b.created_at.localeCompare(a.created_at));
  }

  readArtifact(owner: string, session: string, file: string): Promise<Stored<string>> {
    return this.on(owner, session, false, async (state) => {
      // Only names the session recorded, and never a path: nothing else under the project is readable.
      const text = state.artifacts.includes(file) && SAFE_NAME.test(file) && file !== "." && file !== ".."
        ? await readText(this.artifactPath(state, file))
        : undefined;
      if (text === undefined) return { ok: false, kind: "not_found", error: `No artifact "${file.slice(0, 100)}" in ${state.task_name}. Artifacts: ${state.artifacts.join(", ") || "none yet"}.` };
      return { ok: true, value: text };
    });
  }

  readContent(owner: string, session: string, ref: string): Promise<Stored<string>> {
    return this.on(owner, session, false, async (state) => {
      // "/" becomes "_" and nothing else is allowed, so a ref can only name a file in the session's temp folder.
      const text = /^[\w.-]+(\/[\w.-]+)*$/.test(ref) ? await readText(this.contentPath(state.session_id, ref)) : undefined;
      return text === undefined ? { ok: false, kind: "not_found", error: `No stored content "${ref.slice(0, 100)}".` } : { ok: true, value: text };
    });
  }
}
