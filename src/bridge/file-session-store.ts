// SessionStore over files in the user's project (seed 003 layout), so the stdio bridge works offline:
//   .bmad-task/session-<id>.json            the state (the truth)
//   .bmad-task/task-mapping.json            id -> task name, objective, owner (resolves names, lists)
//   .bmad-task/temp/<id>/<ref, / -> _>.md   stored content
//   .claude/specs/<task>/<artifact>         artifacts, saved on confirm/approve
// Every write is temp file + fsync + rename; actions run read -> step -> write under a per-session lock, and every
// change measures what the project keeps and writes under the mapping's lock too (budgeted).
import { parseJsonText } from "./json-text.js";
import { randomBytes, randomUUID } from "node:crypto";
import { lstat } from "node:fs/promises";
import { resolve } from "node:path";
import { closest, suggestion } from "../core/catalog/closest.js";
import { newSession, noArtifact, referencedContent, requeued, versionRef, step, type Action, type StoreContent } from "../core/delivery/machine.js";
import { objectiveStart, SESSION_ID, SPECS_DIR, specPath, summarize, uniqueTaskName, type SessionState } from "../core/delivery/session.js";
import { parseSessionState, TASK_MAPPING, type TaskMappingEntry } from "../core/delivery/session.schemas.js";
import { MAKE_ROOM, newestFirst, sessionPlace, tooManyBytes, type ListPlace, type QueueRequest, type SessionList, type SessionStatusFilter, type SessionStore, type Stored } from "../core/delivery/store.js";
import { MIB } from "../core/workspace/limits.js";
import { ABSENT, ensureConfinedDir, fileSizes, fileStamp, ignoredByGit, listConfined, readConfined, readConfinedText, removeConfined, writeConfined } from "./confined-fs.js";
import { withFileLock } from "./file-lock.js";
import { noteWrite, sameBytes } from "./kept-versions.js";

const SAFE_NAME = /^[\w.-]+$/;
const STATE_FILE = /^session-([0-9a-f]{64})\.json$/;
const BASE = ".bmad-task" as const;
const MAPPING = `${BASE}/task-mapping.json`;
/** Two submissions of 2 MiB and their bookkeeping fit. Reads refuse a larger file, so writes refuse to make one:
 *  a file this store wrote is always one it can read back. */
const MAX_STATE_BYTES = 8 * 1024 * 1024;
/** Sessions one project keeps: every list and name look-up reads the mapping, and a list reads each state file. */
export const MAX_SESSIONS = 200;
/** Bytes those keep in .bmad-task/ in all: a session filled with 2 MiB drafts kept about 45 MB, and 200 of them 9 GB
 *  of the user's disk (review 212). Ordinary sessions keep well under 1 MB each. */
export const MAX_BYTES_PER_PROJECT = 256 * MIB;

type Mapping = Map<string, TaskMappingEntry>;

const tooManySessions = (count: number) =>
  `This project has ${count} delivery sessions, the most one project keeps (${MAX_SESSIONS}); nothing was started. To make room, delete finished ones: ${MAKE_ROOM} ` +
  "Another owner's the user deletes by hand: their files in .bmad-task/ (session-<id>.json and temp/<id>/), then .bmad-task/task-mapping.json, which is rebuilt from the sessions left.";

class BusyError extends Error {}
/** A path the project's files may not be read or written through (a symlink out, a device): named, with the fix. */
class RefusedPath extends Error {}


/** The mapping, or undefined when malformed: then it is rebuilt from the state files. */
function parseMapping(text: string | undefined): Mapping | undefined {
  const raw = parseJsonText(text);
  const parsed = TASK_MAPPING.safeParse(raw);
  if (!parsed.success) return undefined;
  const mapping = new Map(Object.entries(parsed.data));
  // zod drops a "__proto__" key silently: any key that did not survive makes the file malformed.
  return Object.keys(raw as object).length === mapping.size ? mapping : undefined;
}

const mappingEntry = (s: SessionState): TaskMappingEntry => ({ task_name: s.task_name, objective: objectiveStart(s.objective), created_at: s.created_at, owner: s.owner });

const serialize = (mapping: Mapping) => JSON.stringify(Object.fromEntries(mapping), null, 2);
const stateText = (state: SessionState) => JSON.stringify(state, null, 2);

/** A state file read back: the session; or the file, why it is not one (for a list) and the error (for a call); or nothing. */
type Loaded = { state: SessionState } | { file: string; reason: string; error: string } | undefined;

export class FileSessionStore implements SessionStore {
  private readonly now: () => string;
  private readonly warn: (message: string) => void;
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly warned = new Set<string>();

  constructor(private readonly projectDir: string, options: { now?: () => string; warn?: (message: string) => void } = {}) {
    this.now = options.now ?? (() => new Date().toISOString());
    this.warn = options.warn ?? (() => undefined);
  }

  private statePath(id: string): string {
    return `${BASE}/session-${id}.json`;
  }

  private contentDir(id: string): string {
    return `${BASE}/temp/${id}`;
  }

  private contentPath(id: string, ref: string): string {
    return `${this.contentDir(id)}/${ref.replaceAll("/", "_")}.md`;
  }

  private artifactPath(state: SessionState, file: string): string {
    return specPath(state.task_name, file);
  }

  // Every file goes through the confined reader and writer: a .bmad-task/ or .claude/specs/ that is a
  // symlink out of the project is refused, never followed.
  private async readText(rel: string): Promise<string | undefined> {
    const read = await readConfinedText(this.projectDir, rel, { maxBytes: MAX_STATE_BYTES, own: ".bmad-task" });
    if (read.ok) return read.text;
    if (read.code === "missing" || read.code === "is-dir") return undefined;
    // A mapping written before its entries were cut short can be past the limit: rebuilt, as a malformed one is.
    if (read.code === "too-large" && rel === MAPPING) return "";
    throw new RefusedPath(read.error);
  }

  private async writeText(rel: string, text: string): Promise<void> {
    if (Buffer.byteLength(text) > MAX_STATE_BYTES) throw new RefusedPath(`${rel}: would be larger than ${MAX_STATE_BYTES / 1024 / 1024} MiB, which the bridge refuses to read back; nothing was written.`);
    const written = await writeConfined(this.projectDir, rel, text, { own: BASE });
    if (!written.ok) throw new RefusedPath(written.error);
  }

  /** A confirmed artifact, created in the project and never put over a file there (review 74: a teammate's committed
   *  spec of the same task name, or a link to the PRD, was replaced with no copy kept): the session moves on only once
   *  it is saved. Under the artifact's lock, as every change of a project file is. */
  private async createArtifact(rel: string, text: string): Promise<void> {
    const bytes = new TextEncoder().encode(text);
    // This session's own, written by a confirm whose state save did not follow (killed, or .bmad-task not writable):
    // the retried confirm carries on from it (it was refused as another's, and the session could never move on).
    if (await this.holdsExactly(rel, bytes)) return;
    const there = (await fileStamp(this.projectDir, rel)) !== ABSENT || (await lstat(resolve(this.projectDir, rel)).then(() => true, () => false));
    if (there) {
      throw new RefusedPath(`${rel} is in the project already, and is not this session's: it was left as it is, and the session was not moved on. Move that file aside (or rename it), then confirm again.`);
    }
    if (bytes.byteLength > MAX_STATE_BYTES) throw new RefusedPath(`${rel}: would be larger than ${MAX_STATE_BYTES / 1024 / 1024} MiB, which the bridge refuses to read back; nothing was written.`);
    // Only where nothing is, up to the rename: a file made meanwhile (an editor's save) stands.
    const written = await writeConfined(this.projectDir, rel, bytes, { unchanged: ABSENT });
    if (!written.ok) throw new RefusedPath(written.error);
    // The model's text, as every write the bridge makes is noted (kept-versions.ts).
    await noteWrite(this.projectDir, rel, bytes);
  }

  /** Whether `rel` is a file of its own (not a link, nor another name of one) holding exactly `bytes`. */
  private async holdsExactly(rel: string, bytes: Uint8Array): Promise<boolean> {
    if (!(await lstat(resolve(this.projectDir, rel)).then((st) => st.isFile(), () => false))) return false;
    const read = await readConfined(this.projectDir, rel, { maxBytes: bytes.byteLength });
    return read.ok && sameBytes(read.bytes, bytes);
  }

  /** One holder at a time per `path`: a promise chain in this process, the file's lock across processes. */
  private locked<T>(path: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.chains.get(path) ?? Promise.resolve()).then(() => this.withLockFile(path, fn));
    const tail = run.catch(() => undefined);
    this.chains.set(path, tail);
    void tail.then(() => this.chains.get(path) === tail && this.chains.delete(path));
    return run;
  }

  /** The bridge's file lock (file-lock.ts), refreshed while held and taken over only from a dead holder; a session
   *  busy past its wait is said so. */
  private async withLockFile<T>(path: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await withFileLock(this.projectDir, path, fn);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ELOCKED") throw new BusyError(`${path} is held by another bmad-mcp; try again.`);
      throw e;
    }
  }

  private async load(id: string): Promise<Loaded> {
    const file = this.statePath(id);
    const read = await readConfinedText(this.projectDir, file, { maxBytes: MAX_STATE_BYTES, own: ".bmad-task" });
    if (!read.ok) {
      if (read.code === "missing") return undefined;
      // A link out, a device, a FIFO: refused by the confined reader, whose message names the file.
      return { file, reason: read.error.slice(file.length + 2), error: read.error };
    }
    const invalid = (reason: string) => ({ file, reason, error: `${file} is ${reason}; fix it or delete it.` });
    const json = parseJsonText(read.text);
    if (json === undefined) return invalid("not valid JSON");
    const parsed = parseSessionState(json);
    if (!parsed.ok) return invalid(`not a valid session file (${parsed.error})`);
    if (parsed.state.session_id !== id) return invalid(`not a valid session file (it holds another session id than its name)`);
    return { state: parsed.state };
  }

  /** A broken state file is left out of lists and name lookups, with one warning naming it. */
  private skip(loaded: Loaded): SessionState | undefined {
    if (loaded && "error" in loaded && !this.warned.has(loaded.error)) {
      this.warned.add(loaded.error);
      this.warn(`skipped ${loaded.file}: ${loaded.reason}`);
    }
    return loaded && "state" in loaded ? loaded.state : undefined;
  }

  private save(state: SessionState): Promise<void> {
    return this.writeText(this.statePath(state.session_id), stateText(state));
  }

  /** Why the change from `state` to `next`, storing `content`, may not be: it grows the session (its drafts or its state:
   *  an answer, a rejection, a sub-task), and takes what the project's sessions keep past MAX_BYTES_PER_PROJECT.
   *  Measured as the files will be once written and pruned, under budgeted's lock. What it does not see: files put in
   *  .bmad-task/ by hand, and a new session's first state (start is not measured; it is small). */
  private async overByteLimit(state: SessionState, next: SessionState, content: StoreContent[]): Promise<string | undefined> {
    const listed = await fileSizes(this.projectDir, BASE);
    if (!listed.ok) {
      if (listed.code === "missing") return undefined;
      throw new RefusedPath(listed.error);
    }
    const id = state.session_id;
    const written = new Map(content.map(({ ref, text }) => [this.contentPath(id, ref), Buffer.byteLength(text)]));
    written.set(this.statePath(id), Buffer.byteLength(stateText(next)));
    const kept = new Set([...referencedContent(next)].map((ref) => this.contentPath(id, ref)));
    let total = 0;
    let was = 0;
    let will = [...written.values()].reduce((a, b) => a + b, 0);
    for (const [name, size] of listed.sizes) {
      const path = `${BASE}/${name}`;
      total += size;
      if (path !== this.statePath(id) && !path.startsWith(`${this.contentDir(id)}/`)) continue;
      was += size;
      if (kept.has(path) && !written.has(path)) will += size;
    }
    const projected = total - was + will;
    if (will <= was || projected <= MAX_BYTES_PER_PROJECT) return undefined;
    return tooManyBytes(state.task_name, will, projected, MAX_BYTES_PER_PROJECT, "this project keeps (in .bmad-task/)");
  }

  /** The mapping rebuilt from the state files present. */
  private async scan(): Promise<Mapping> {
    const listed = await listConfined(this.projectDir, BASE);
    if (!listed.ok && listed.code !== "missing") throw new RefusedPath(listed.error);
    const mapping: Mapping = new Map();
    for (const name of listed.ok ? listed.names : []) {
      const id = STATE_FILE.exec(name)?.[1];
      const s = id ? this.skip(await this.load(id)) : undefined;
      if (id && s) mapping.set(id, mappingEntry(s));
    }
    return mapping;
  }

  /** The mapping; a missing or malformed one is rebuilt from the state files and written back. */
  private async mapping(): Promise<Mapping> {
    const text = await this.readText(MAPPING);
    const current = parseMapping(text);
    if (current) return current;
    // A project with no sessions stays untouched (no .bmad-task/ just for reading).
    const listed = await listConfined(this.projectDir, BASE);
    if (!listed.ok && listed.code !== "missing") throw new RefusedPath(listed.error);
    if (text === undefined && !(listed.ok && listed.names.some((n) => STATE_FILE.test(n)))) return new Map();
    return this.locked(MAPPING, async () => {
      const again = parseMapping(await this.readText(MAPPING));
      if (again) return again;
      const rebuilt = await this.scan();
      await this.writeText(MAPPING, serialize(rebuilt));
      return rebuilt;
    });
  }

  private async notFound(owner: string, session: string): Promise<Stored<never>> {
    const names = [...(await this.mapping()).values()].filter((e) => e.owner === owner).map((e) => e.task_name);
    const hint = names.length ? suggestion(closest(session, names, 3)) : ' You have no sessions: start one with bmad-task action "start".';
    return { ok: false, kind: "not_found", error: `Session "${session.slice(0, 100)}" not found.${hint}` };
  }

  /** Resolves `session` (id or the owner's task name), loads it and runs `op`, under the session lock if `lock`. */
  private on<T>(owner: string, session: string, lock: boolean, op: (state: SessionState) => Promise<Stored<T>>): Promise<Stored<T>> {
    return this.refusals(`Session "${session.slice(0, 100)}" is busy`, async () => {
      const id = SESSION_ID.test(session) ? session : [...(await this.mapping())].find(([, e]) => e.owner === owner && e.task_name === session)?.[0];
      if (!id) return await this.notFound(owner, session);
      const run = async (): Promise<Stored<T>> => {
        const loaded = await this.load(id);
        if (loaded && "error" in loaded) return { ok: false, kind: "invalid", error: loaded.error };
        if (!loaded) return this.notFound(owner, session);
        // A file this install did not make is said as list_sessions says it, never resumed (review 432: "not found …
        // you have no sessions" of the file the listing had just named).
        if (loaded.state.owner !== owner) return { ok: false, kind: "not_found", error: `${this.statePath(id)} was not made by your bmad-mcp: not yours, so never resumed (list_sessions says more).` };
        return op(loaded.state);
      };
      return await (lock ? this.locked(this.statePath(id), run) : run());
    });
  }

  /** `fn`'s answer, or a busy lock or a refused file as a value saying so, after `busy`. */
  private async refusals<T>(busy: string, fn: () => Promise<Stored<T>>): Promise<Stored<T>> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof BusyError) return { ok: false, kind: "conflict", error: `${busy}: ${e.message}` };
      if (e instanceof RefusedPath) return { ok: false, kind: "invalid", error: e.message };
      throw e;
    }
  }

  async start(owner: string, objective: string): Promise<Stored<SessionState>> {
    const session_id = randomBytes(32).toString("hex");
    const now = this.now();
    return this.refusals("Nothing was started", () => this.locked(MAPPING, async () => {
      const mapping = parseMapping(await this.readText(MAPPING)) ?? (await this.scan());
      if (mapping.size >= MAX_SESSIONS) return { ok: false, kind: "invalid", error: tooManySessions(mapping.size) };
      // Task names are artifact folders shared by everyone in the project, so they are unique project-wide, and a folder
      // there already (a teammate's committed specs, which this project's sessions never knew) is taken too.
      const folders = await listConfined(this.projectDir, SPECS_DIR);
      const task_name = uniqueTaskName(objective, new Set([...mapping.values()].map((e) => e.task_name).concat(folders.ok ? folders.names : [])));
      const state = newSession({ session_id, task_name, objective, owner, now });
      // The name is reserved before the state exists, so a crash in between cannot hand it out twice.
      mapping.set(session_id, mappingEntry(state));
      await this.writeText(MAPPING, serialize(mapping));
      await ignoredByGit(this.projectDir, BASE);
      await this.save(state);
      return { ok: true, value: state };
    }));
  }

  get(owner: string, session: string): Promise<Stored<SessionState>> {
    return this.on(owner, session, false, async (state) => ({ ok: true, value: state }));
  }

  act(owner: string, session: string, action: Action): Promise<Stored<SessionState>> {
    return this.on(owner, session, true, async (state) => {
      const result = step(state, action, this.now());
      if (!result.ok) return { ok: false, kind: result.kind, error: result.error };
      return this.budgeted(state, result, async () => {
        // The artifact's folder is checked before anything is written: a refused one leaves the session as it was.
        if (result.artifact) {
          const dir = await ensureConfinedDir(this.projectDir, `${SPECS_DIR}/${state.task_name}`, { label: this.artifactPath(state, result.artifact.file) });
          if (!dir.ok) return { ok: false, kind: "invalid", error: `The artifact cannot be saved: ${dir.error}` };
        }
        // Content and artifact first: a crash before the state is replaced leaves the old state consistent.
        for (const { ref, text } of result.content) await this.writeText(this.contentPath(state.session_id, ref), text);
        if (result.artifact) {
          const text = await this.readText(this.contentPath(state.session_id, result.artifact.ref));
          // A project file like any other: under its own lock, as bmad-files and pull change it.
          const artifact = this.artifactPath(state, result.artifact.file);
          if (text !== undefined) await withFileLock(this.projectDir, artifact, () => this.createArtifact(artifact, text));
        }
        await this.save(result.state);
        await this.prune(result.state);
        return { ok: true, value: result.state };
      });
    });
  }

  /** `write`'s answer, where the change from `state` to `next` (storing `content`) keeps the project's sessions within
   *  MAX_BYTES_PER_PROJECT; otherwise the refusal, nothing written. Measure and write hold one project-wide lock, the
   *  mapping's (which start holds to add a session): sessions growing at once, in this bridge or another, are measured
   *  one after another, each seeing what the last wrote (review 218: measured under each session's own lock, 12
   *  submits at once all passed, 18 MiB past the limit). */
  private budgeted<T>(state: SessionState, { state: next, content }: { state: SessionState; content: StoreContent[] }, write: () => Promise<Stored<T>>): Promise<Stored<T>> {
    return this.locked(MAPPING, async () => {
      const refused = await this.overByteLimit(state, next, content);
      return refused ? { ok: false, kind: "invalid", error: refused } : write();
    });
  }

  /** A superseded draft's texts go once the state no longer names them, as on the remote (session-do.ts): each submit
   *  stored up to three, and 15 of two 2 MiB drafts grew temp/<id>/ to 91 MB. After the save, so a crash keeps what
   *  the old state named; a file that will not go is left for the next action's prune. */
  private async prune(state: SessionState): Promise<void> {
    const dir = this.contentDir(state.session_id);
    const listed = await listConfined(this.projectDir, dir);
    if (!listed.ok) return;
    const kept = new Set([...referencedContent(state)].map((ref) => this.contentPath(state.session_id, ref)));
    for (const name of listed.names) {
      const rel = `${dir}/${name}`;
      if (!kept.has(rel)) await removeConfined(this.projectDir, rel, { own: BASE });
    }
  }

  updateQueue(owner: string, session: string, { done, add }: QueueRequest): Promise<Stored<SessionState>> {
    return this.on(owner, session, true, async (state) => {
      const now = this.now();
      const result = requeued(state, { done, ...(add ? { add: { id: randomUUID(), status: "queued", created_at: now, ...add } } : {}) }, now);
      if (!result.ok) return { ok: false, kind: result.kind, error: result.error };
      return this.budgeted(state, result, async () => {
        await this.save(result.state);
        return { ok: true, value: result.state };
      });
    });
  }

  /** Read from the state files themselves: a broken one drops out of the sessions and is named in `unreadable`. */
  async list(owner: string, status: SessionStatusFilter, limit: number, before?: ListPlace): Promise<SessionList> {
    const mapping = [...(await this.mapping())];
    const ids = mapping.filter(([, e]) => e.owner === owner).map(([id]) => id);
    const foreign = mapping.filter(([, e]) => e.owner !== owner).map(([id]) => this.statePath(id));
    const loaded = await Promise.all(ids.map((id) => this.load(id)));
    const unreadable = loaded.flatMap((l) => (l && "error" in l ? [{ file: l.file, reason: l.reason }] : []));
    const all = loaded
      .map((l) => this.skip(l))
      .filter((s): s is SessionState => s?.owner === owner)
      .map(summarize)
      .filter((s) => (status === "all" || s.status === status) && (!before || newestFirst(before, sessionPlace(s)) < 0))
      .sort((a, b) => newestFirst(sessionPlace(a), sessionPlace(b)));
    return { sessions: all.slice(0, limit), total: all.length, ...(unreadable.length ? { unreadable } : {}), ...(foreign.length ? { foreign } : {}) };
  }

  /** Out of the mapping first, under the session's lock: a delete cut short leaves a state file that holds no place and is
   *  still found by its id, to delete again; never an entry with no session behind it. The artifacts in .claude/specs/
   *  are the project's files, and stay. */
  remove(owner: string, session: string): Promise<Stored<SessionState>> {
    return this.on(owner, session, true, async (state) => {
      const id = state.session_id;
      await this.locked(MAPPING, async () => {
        const mapping = parseMapping(await this.readText(MAPPING)) ?? (await this.scan());
        mapping.delete(id);
        await this.writeText(MAPPING, serialize(mapping));
      });
      await this.unlink(this.statePath(id));
      const dir = this.contentDir(id);
      const listed = await listConfined(this.projectDir, dir);
      for (const name of listed.ok ? listed.names : []) await this.unlink(`${dir}/${name}`, (folder) => folder === dir);
      return { ok: true, value: state };
    });
  }

  private async unlink(rel: string, emptied?: (dir: string) => boolean): Promise<void> {
    const removed = await removeConfined(this.projectDir, rel, { own: BASE, ...(emptied ? { emptied } : {}) });
    if (!removed.ok) throw new RefusedPath(removed.error);
  }

  readArtifact(owner: string, session: string, file: string): Promise<Stored<string>> {
    return this.on(owner, session, false, async (state) => {
      // Only names the session recorded, and never a path: nothing else under the project is readable.
      // A rejected or pending draft stays where it was submitted (.bmad-task/temp/): .claude/specs/ holds confirmed
      // artifacts only.
      const version = versionRef(state, file);
      const text = state.artifacts.includes(file) && SAFE_NAME.test(file) && file !== "." && file !== ".."
        ? await this.readText(this.artifactPath(state, file))
        : version !== undefined ? await this.readText(this.contentPath(state.session_id, version))
        : undefined;
      if (text === undefined) return { ok: false, kind: "not_found", error: noArtifact(state, file) };
      return { ok: true, value: text };
    });
  }

  readContent(owner: string, session: string, ref: string): Promise<Stored<string>> {
    return this.on(owner, session, false, async (state) => {
      // "/" becomes "_" and nothing else is allowed, so a ref can only name a file in the session's temp folder.
      const text = /^[\w.-]+(\/[\w.-]+)*$/.test(ref) ? await this.readText(this.contentPath(state.session_id, ref)) : undefined;
      return text === undefined ? { ok: false, kind: "not_found", error: `No stored content "${ref.slice(0, 100)}".` } : { ok: true, value: text };
    });
  }
}
