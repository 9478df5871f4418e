// The bridge's file-backed session store: seed 003 layout, ownership, races, atomic writes, broken files.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileSessionStore, MAX_BYTES_PER_PROJECT, MAX_SESSIONS } from "../../src/bridge/file-session-store";
import { lockFolder, withFileLock } from "../../src/bridge/file-lock";
import { MAX_SUBMISSION_BYTES, type Action } from "../../src/core/delivery/machine";
import { SUMMARY_OBJECTIVE_CHARS, type SessionState } from "../../src/core/delivery/session";
import { sessionPlace, type SessionStatusFilter, type Stored } from "../../src/core/delivery/store";
import { tempDir } from "./helpers";

/** The owner's sessions of a status, newest first: all of them. */
const listed = async (store: FileSessionStore, owner: string, status: SessionStatusFilter) => (await store.list(owner, status, 1000)).sessions;

// Dev's implementation is an artifact too, which Review reads; the rest are seed 003's names.
const ARTIFACTS = ["01-product-requirements.md", "02-system-architecture.md", "03-sprint-plan.md", "04-dev-implementation.md", "04-dev-reviewed.md", "05-qa-report.md"];
const json = (value: unknown) => JSON.stringify(value);

let dir: string;
let cleanup: () => void;
let store: FileSessionStore;

beforeEach(() => {
  ({ dir, cleanup } = tempDir("file-store"));
  store = new FileSessionStore(dir);
});
afterEach(() => cleanup());

function value<T>(out: Stored<T>): T {
  if (!out.ok) throw new Error(`${out.kind}: ${out.error}`);
  return out.value;
}

const start = async (owner: string, objective: string, on = store) => value(await on.start(owner, objective));
const act = async (session: string, action: Action, owner = "me") => value(await store.act(owner, session, action));
const statePath = (id: string) => join(dir, ".bmad-task", `session-${id}.json`);

/** The bytes the project's sessions keep: every file in .bmad-task/, as the store measures them. */
const kept = () => files(join(dir, ".bmad-task")).reduce((sum, f) => sum + statSync(join(dir, ".bmad-task", f)).size, 0);
/** A session's folder grown by `bytes`: a sparse file, which takes its size and no disk. */
function fill(sessionId: string, bytes: number): void {
  const filler = join(dir, ".bmad-task", "temp", sessionId, "po_1_final.md");
  mkdirSync(join(filler, ".."), { recursive: true });
  writeFileSync(filler, "");
  truncateSync(filler, bytes);
}

/** Every file below `root`, relative. */
function files(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1));
}

describe("a delivery session on files", () => {
  it("walks all six stages and leaves the seed 003 layout on disk", async () => {
    const started = await start("me", "Build user auth, use codex too");
    expect(started).toMatchObject({ task_name: "build-user-auth-use-codex-too", current_stage: "po", current_state: "generating", owner: "me" });
    const id = started.session_id;
    expect(id).toMatch(/^[0-9a-f]{64}$/);

    const claude = json({ prd_draft: "# PRD (claude)", quality_score: 72, questions: [{ id: "q1", question: "Which providers?" }] });
    const codex = json({ prd_draft: "# PRD (codex)", quality_score: 64 });
    let s = await act(id, { type: "submit", claude_result: claude, codex_result: codex });
    expect(s).toMatchObject({ current_state: "clarifying", stages: { po: { score: 72 } } });
    expect(await store.act("me", id, { type: "answer", answers: { q9: "?" } })).toMatchObject({ ok: false, kind: "invalid", error: expect.stringMatching(/Unknown question id\(s\): q9/) });
    s = await act(id, { type: "answer", answers: { q1: "GitHub" } });
    expect(s.current_state).toBe("refining");
    s = await act(s.task_name, { type: "submit", claude_result: json({ prd_updated: "# PRD\nFinal.", quality_score: 93 }) });
    expect(s.current_state).toBe("awaiting_confirmation");
    s = await act(id, { type: "confirm" });
    expect(s).toMatchObject({ current_stage: "architect", artifacts: [ARTIFACTS[0]] });

    // The legacy confirm_save arrives here as the same confirm action.
    await act(id, { type: "submit", claude_result: "# Architecture\nQuality Score: 95/100" });
    s = await act(id, { type: "confirm" });
    expect(s.current_stage).toBe("sm");

    await act(id, { type: "submit", claude_result: "# Sprint plan" });
    expect(await store.act("me", id, { type: "confirm" })).toMatchObject({ ok: false, kind: "conflict", error: expect.stringMatching(/awaiting_approval at stage sm; "confirm" is not allowed now/) });
    s = await act(id, { type: "approve" });
    expect(s).toMatchObject({ current_stage: "dev", current_state: "generating" });

    for (const stage of ["dev", "review", "qa"]) {
      await act(id, { type: "submit", codex_result: `# ${stage} result` });
      s = await act(id, { type: "confirm" });
    }
    expect(s).toMatchObject({ current_state: "completed", artifacts: ARTIFACTS });

    const specs = join(dir, ".claude", "specs", s.task_name);
    expect(files(specs).sort()).toEqual(ARTIFACTS);
    expect(readFileSync(join(specs, ARTIFACTS[0]!), "utf8")).toBe("# PRD\nFinal.");
    expect(value(await store.readArtifact("me", id, ARTIFACTS[0]!))).toBe("# PRD\nFinal.");
    expect(value(await store.readArtifact("me", s.task_name, "05-qa-report.md"))).toBe("# qa result");
    expect(await store.readContent("me", id, "po/1/codex")).toMatchObject({ ok: false, kind: "not_found" });
    expect(value(await store.readContent("me", id, "po/2/final"))).toBe("# PRD\nFinal.");

    // Only the drafts the state names, each stage's final: po's first went when the second replaced it, and the engines'
    // own texts when their stage was confirmed (review 212: nothing read them, and they were a third of what a session kept).
    expect(files(join(dir, ".bmad-task", "temp", id)).sort()).toEqual(["architect_1_final.md", "dev_1_final.md", "po_2_final.md", "qa_1_final.md", "review_1_final.md", "sm_1_final.md"]);
    expect(JSON.parse(readFileSync(statePath(id), "utf8"))).toEqual(s);
    const mapping = JSON.parse(readFileSync(join(dir, ".bmad-task", "task-mapping.json"), "utf8"));
    expect(mapping[id]).toMatchObject({ task_name: s.task_name, objective: "Build user auth, use codex too", owner: "me" });
    expect((await listed(store, "me", "completed")).map((x) => x.session_id)).toEqual([id]);
    expect(await listed(store, "me", "active")).toEqual([]);
  });

  it("queues sub-tasks on the session", async () => {
    const { session_id } = await start("me", "Queue");
    const s = value(await store.updateQueue("me", session_id, { done: [], add: { agent: "architect", task: "Review the model", context_files: [] } }));
    expect(s.subtasks).toEqual([expect.objectContaining({ agent: "architect", status: "queued", id: expect.any(String) })]);
    expect(s.revision).toBe(2);
    expect(value(await store.get("me", session_id)).subtasks).toHaveLength(1);
    // Done: off the queue, for good.
    expect(value(await store.updateQueue("me", session_id, { done: [s.subtasks[0]!.id] })).subtasks).toEqual([]);
    expect(await store.updateQueue("me", session_id, { done: [s.subtasks[0]!.id] })).toMatchObject({ ok: false, kind: "invalid" });
  });
});

describe("names and owners", () => {
  it("makes task names unique and resolves them", async () => {
    const a = await start("me", "Build user auth!");
    const b = await start("me", "build   USER auth");
    expect([a.task_name, b.task_name]).toEqual(["build-user-auth", "build-user-auth-1"]);
    expect(value(await store.get("me", "build-user-auth-1")).session_id).toBe(b.session_id);
    expect(await store.get("me", "build-user-aut")).toMatchObject({ ok: false, kind: "not_found", error: expect.stringMatching(/Closest: build-user-auth/) });
    expect(await store.get("me", "0".repeat(64))).toMatchObject({ ok: false, kind: "not_found" });
    expect(await store.get("me", "../../etc")).toMatchObject({ ok: false, kind: "not_found" });
  });

  it("keeps each owner's sessions to themselves", async () => {
    const mine = await start("me", "Private");
    const theirs = await start("them", "Other");
    await act(mine.session_id, { type: "submit", claude_result: "Quality Score: 95/100" });
    await act(mine.session_id, { type: "confirm" });

    expect(await store.get("them", mine.session_id)).toMatchObject({ ok: false, kind: "not_found" });
    expect(await store.get("them", mine.task_name)).toMatchObject({ ok: false, kind: "not_found" });
    expect(await store.act("them", mine.session_id, { type: "submit", claude_result: "x" })).toMatchObject({ ok: false, kind: "not_found" });
    expect(await store.readArtifact("them", mine.session_id, ARTIFACTS[0]!)).toMatchObject({ ok: false, kind: "not_found" });
    expect(await store.readContent("them", mine.session_id, "po/1/final")).toMatchObject({ ok: false, kind: "not_found" });
    expect((await listed(store, "me", "all")).map((s) => s.session_id)).toEqual([mine.session_id]);
    expect((await listed(store, "them", "all")).map((s) => s.session_id)).toEqual([theirs.session_id]);
  });

  it("pages from where the last page ended, by time then id: sessions started and deleted between pages skip and repeat none (review 255)", async () => {
    // Three sessions a second: ties in time are ordered by id.
    let t = 0;
    store = new FileSessionStore(dir, { now: () => new Date(Date.UTC(2026, 0, 1, 0, 0, Math.floor(t++ / 3))).toISOString() });
    const ids: string[] = [];
    for (let i = 0; i < 13; i++) ids.push((await start("me", `Base ${i}`)).session_id);
    const page1 = await store.list("me", "all", 10);
    expect(page1.total).toBe(13);
    const shown1 = page1.sessions.map((s) => s.session_id);
    await start("me", "New 0");
    await start("me", "New 1");
    const deleted = shown1.slice(4, 7);
    for (const id of deleted) value(await store.remove("me", id));
    const page2 = await store.list("me", "all", 10, sessionPlace(page1.sessions.at(-1)!));
    const shown2 = page2.sessions.map((s) => s.session_id);
    expect(shown2.filter((id) => shown1.includes(id))).toEqual([]);
    expect(ids.filter((id) => !deleted.includes(id) && !shown1.includes(id) && !shown2.includes(id))).toEqual([]);
    expect(page2).toMatchObject({ total: 3 });
    expect(shown2).toHaveLength(3);
  });

  it("lists newest created first and filters by status", async () => {
    let t = 0;
    store = new FileSessionStore(dir, { now: () => new Date(Date.UTC(2026, 0, 1, 0, 0, t++)).toISOString() });
    const a = await start("me", "First");
    await start("me", "Second");
    expect((await listed(store, "me", "all")).map((s) => s.task_name)).toEqual(["second", "first"]);
    await act(a.session_id, { type: "submit", claude_result: "x" });
    // Newest created first: a change keeps a session's place, so a list paged meanwhile skips none (review 291).
    expect((await listed(store, "me", "all")).map((s) => s.task_name)).toEqual(["second", "first"]);
    expect((await listed(store, "me", "active")).length).toBe(2);
    // A page past the newest (review 249: the rest could not be reached when all shared one status).
    const newest = (await store.list("me", "active", 1)).sessions[0]!;
    expect(await store.list("me", "active", 1, sessionPlace(newest))).toEqual({ sessions: [expect.objectContaining({ task_name: "first" })], total: 1 });
    expect(await store.list("me", "active", 1, { at: "2026-01-01T00:00:00.000Z", id: "0" })).toEqual({ sessions: [], total: 0 });
    expect(await listed(store, "me", "failed")).toEqual([]);
    expect(await listed(store, "nobody", "all")).toEqual([]);
    const fresh = tempDir("file-store-empty");
    expect(await new FileSessionStore(fresh.dir).list("me", "all", 10)).toEqual({ sessions: [], total: 0 });
    expect(await new FileSessionStore(fresh.dir).get("me", "x")).toMatchObject({ ok: false, kind: "not_found", error: expect.stringMatching(/no sessions/) });
    expect(readdirSync(fresh.dir)).toEqual([]);
    fresh.cleanup();
  });
});

describe("races", () => {
  const submit = (s: FileSessionStore, id: string, n: number) => s.act("me", id, { type: "submit", claude_result: json({ prd_draft: `draft ${n}`, quality_score: 95 }) });

  function expectOneWinner(results: Array<Stored<SessionState>>) {
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.find((r) => !r.ok)).toMatchObject({ kind: "conflict", error: expect.stringMatching(/is awaiting_confirmation at stage po; "submit" is not allowed now/) });
  }

  it("lets exactly one of two racing submits win in one store", async () => {
    const { session_id } = await start("me", "Race");
    expectOneWinner(await Promise.all([submit(store, session_id, 1), submit(store, session_id, 2)]));
    expect(value(await store.get("me", session_id))).toMatchObject({ revision: 2, stages: { po: { iteration: 1 } } });
  });

  it("lets exactly one win across two stores on the same project (two processes)", async () => {
    const other = new FileSessionStore(dir);
    const { session_id } = await start("me", "Race");
    expectOneWinner(await Promise.all([submit(store, session_id, 1), submit(other, session_id, 2)]));
    expect(value(await other.get("me", session_id)).stages.po.iteration).toBe(1);
    expect(files(join(dir, ".bmad-task")).filter((f) => f.endsWith(".lock"))).toEqual([]);
  });

  it("starts in parallel without losing a mapping entry or reusing a name", async () => {
    const other = new FileSessionStore(dir);
    const started = await Promise.all([0, 1, 2, 3].map((i) => start("me", "Same name", i % 2 ? store : other)));
    expect(new Set(started.map((s) => s.task_name)).size).toBe(4);
    expect((await listed(store, "me", "all")).length).toBe(4);
  });

  it("takes over a lock its holder left behind when it died, and waits for a live one", async () => {
    const { session_id } = await start("me", "Locked");
    // The bridge's file lock (file-lock.ts), as a killed holder leaves it: naming a process that has ended.
    const rel = `.bmad-task/session-${session_id}.json`;
    const lock = await lockFolder(realpathSync(dir), rel);
    mkdirSync(lock);
    writeFileSync(join(lock, "holder"), JSON.stringify({ pid: spawnSync(process.execPath, ["-e", ""]).pid, token: "killed", path: join(dir, rel) }));
    expect((await store.act("me", session_id, { type: "submit", claude_result: "x" })).ok).toBe(true);
    expect(existsSync(lock)).toBe(false);

    const order: string[] = [];
    let release!: () => void;
    const holding = withFileLock(realpathSync(dir), rel, () => new Promise<void>((r) => (release = () => (order.push("released"), r()))));
    await new Promise((r) => setTimeout(r, 50));
    const acting = store.act("me", session_id, { type: "submit", claude_result: "y" }).then((out) => (order.push("acted"), out));
    await new Promise((r) => setTimeout(r, 300));
    release();
    await holding;
    expect((await acting).ok).toBe(true);
    expect(order).toEqual(["released", "acted"]);
  });
});

describe("artifacts", () => {
  it("are written under their file's lock, as bmad-files and pull change a file (an eighth review)", async () => {
    const first = await start("me", "Learn the artifact's name");
    await act(first.session_id, { type: "submit", claude_result: "Quality Score: 95/100" });
    await act(first.session_id, { type: "confirm" });
    const [file] = readdirSync(join(dir, ".claude/specs", first.task_name));
    const { session_id, task_name } = await start("me", "Locked artifact");
    await act(session_id, { type: "submit", claude_result: "Quality Score: 95/100" });
    const order: string[] = [];
    let release!: () => void;
    const holding = withFileLock(realpathSync(dir), `.claude/specs/${task_name}/${file}`, () => new Promise<void>((r) => (release = () => (order.push("released"), r()))));
    await new Promise((r) => setTimeout(r, 50));
    const confirming = act(session_id, { type: "confirm" }).then(() => void order.push("confirmed"));
    await new Promise((r) => setTimeout(r, 300));
    release();
    await Promise.all([holding, confirming]);
    expect(order).toEqual(["released", "confirmed"]);
  });
});

describe("artifacts are created, never put over a project's file (review 74)", () => {
  it("takes another task name where the project has that folder already (a teammate's committed specs)", async () => {
    mkdirSync(join(dir, ".claude/specs/add-password-reset"), { recursive: true });
    writeFileSync(join(dir, ".claude/specs/add-password-reset/01-product-requirements.md"), "# the teammate's spec\n");
    const { session_id, task_name } = await start("me", "Add password reset");
    expect(task_name).toBe("add-password-reset-1");
    await act(session_id, { type: "submit", claude_result: "# the model's spec\n\nQuality Score: 95/100" });
    await act(session_id, { type: "confirm" });
    expect(readFileSync(join(dir, ".claude/specs/add-password-reset/01-product-requirements.md"), "utf8")).toBe("# the teammate's spec\n");
    expect(readFileSync(join(dir, ".claude/specs/add-password-reset-1/01-product-requirements.md"), "utf8")).toContain("the model's spec");
  });

  it("refuses a confirm where a file or a link is there already, changes nothing, and confirms once it is moved", async () => {
    const { session_id, task_name } = await start("me", "Link to the PRD");
    await act(session_id, { type: "submit", claude_result: "# the model's spec\n\nQuality Score: 95/100" });
    mkdirSync(join(dir, "docs"));
    writeFileSync(join(dir, "docs/prd.md"), "# the user's PRD\n");
    mkdirSync(join(dir, ".claude/specs", task_name), { recursive: true });
    const artifact = join(dir, ".claude/specs", task_name, "01-product-requirements.md");
    for (const plant of [() => symlinkSync("../../../docs/prd.md", artifact), () => writeFileSync(artifact, "# saved by an editor\n"), () => symlinkSync("missing.md", artifact)]) {
      plant();
      const refused = await store.act("me", session_id, { type: "confirm" });
      expect(refused).toMatchObject({ ok: false, kind: "invalid", error: expect.stringContaining(`.claude/specs/${task_name}/01-product-requirements.md is in the project already`) });
      expect(readFileSync(join(dir, "docs/prd.md"), "utf8")).toBe("# the user's PRD\n");
      expect(value(await store.get("me", session_id)).current_state).toBe("awaiting_confirmation");
      rmSync(artifact);
    }
    expect(readFileSync(join(dir, "docs/prd.md"), "utf8")).toBe("# the user's PRD\n");
    expect((await act(session_id, { type: "confirm" })).current_stage).not.toBe("po");
    expect(readFileSync(artifact, "utf8")).toContain("the model's spec");
  });
});

describe("atomic writes", () => {
  it("leaves no temp files and always valid JSON", async () => {
    const { session_id } = await start("me", "Atomic");
    await act(session_id, { type: "submit", claude_result: "Quality Score: 95/100" });
    await act(session_id, { type: "confirm" });
    expect(files(dir).filter((f) => f.includes(".tmp"))).toEqual([]);
    for (const f of files(join(dir, ".bmad-task")).filter((f) => f.endsWith(".json"))) expect(() => JSON.parse(readFileSync(join(dir, ".bmad-task", f), "utf8"))).not.toThrow();
  });

  it("refuses an oversized submission and leaves the state file byte-identical", async () => {
    const { session_id } = await start("me", "Big");
    const before = readFileSync(statePath(session_id));
    const out = await store.act("me", session_id, { type: "submit", claude_result: "x".repeat(MAX_SUBMISSION_BYTES + 1) });
    expect(out).toMatchObject({ ok: false, kind: "invalid", error: expect.stringMatching(/over 2 MiB/) });
    expect(readFileSync(statePath(session_id)).equals(before)).toBe(true);
    expect(existsSync(join(dir, ".bmad-task", "temp", session_id))).toBe(false);
  });
});

describe("broken files", () => {
  it("reports a malformed session file by name, and lists the others with a warning naming it", async () => {
    const warnings: string[] = [];
    store = new FileSessionStore(dir, { warn: (m) => warnings.push(m) });
    const broken = await start("me", "Broken");
    const fine = await start("me", "Fine");
    writeFileSync(statePath(broken.session_id), '{"session_id": "trunc');
    const named = new RegExp(`\\.bmad-task/session-${broken.session_id}\\.json is not valid JSON; fix it or delete it`);
    for (const session of [broken.session_id, "broken"]) {
      const got = await store.get("me", session);
      expect(got).toMatchObject({ ok: false, kind: "invalid" });
      expect(!got.ok && got.error).toMatch(named);
    }
    expect(await store.act("me", "broken", { type: "submit", claude_result: "x" })).toMatchObject({ ok: false, kind: "invalid" });
    expect((await listed(store, "me", "all")).map((s) => s.session_id)).toEqual([fine.session_id]);
    expect(warnings).toEqual([`skipped .bmad-task/session-${broken.session_id}.json: not valid JSON`]);
    // Named to the list's caller on every list too, not only once on stderr (review 249: it vanished from list_sessions).
    for (let i = 0; i < 2; i++) {
      expect((await store.list("me", "all", 10)).unreadable).toEqual([{ file: `.bmad-task/session-${broken.session_id}.json`, reason: "not valid JSON" }]);
    }
    expect((await store.list("them", "all", 10)).unreadable).toBeUndefined();
    expect((await store.act("me", "fine", { type: "submit", claude_result: "x" })).ok).toBe(true);
  });

  it("reads a session file and a mapping saved with a BOM, as Windows editors save them (review 249)", async () => {
    const saved = await start("me", "Saved on Windows");
    const mappingPath = join(dir, ".bmad-task", "task-mapping.json");
    for (const path of [statePath(saved.session_id), mappingPath]) writeFileSync(path, `\uFEFF${readFileSync(path, "utf8")}`);
    const mapping = readFileSync(mappingPath, "utf8");
    expect(value(await store.get("me", "saved-on-windows")).session_id).toBe(saved.session_id);
    expect(await store.list("me", "all", 10)).toEqual({ sessions: [expect.objectContaining({ session_id: saved.session_id })], total: 1 });
    // Read as it is, not rebuilt over.
    expect(readFileSync(mappingPath, "utf8")).toBe(mapping);
    expect((await act(saved.session_id, { type: "submit", claude_result: "x" })).stages.po?.iteration).toBe(1);
  });

  it("refuses a planted session whose stage is __proto__, naming the field, and leaves Object.prototype alone", async () => {
    const planted = await start("me", "Planted");
    const state = JSON.parse(readFileSync(statePath(planted.session_id), "utf8")) as Record<string, unknown>;
    writeFileSync(statePath(planted.session_id), JSON.stringify({ ...state, current_stage: "__proto__", current_state: "awaiting_confirmation" }));
    for (const action of [{ type: "confirm" }, { type: "submit", claude_result: "x" }] as Action[]) {
      const out = await store.act("me", "planted", action);
      expect(out).toMatchObject({ ok: false, kind: "invalid" });
      expect(!out.ok && out.error).toMatch(/session-[0-9a-f]{64}\.json is not a valid session file \(current_stage: /);
    }
    expect(Object.keys(Object.prototype)).toEqual([]);
    expect(({} as Record<string, unknown>).status).toBeUndefined();
  });

  it("rebuilds a malformed mapping from the session files", async () => {
    const a = await start("me", "Alpha");
    const b = await start("them", "Beta");
    const mappingPath = join(dir, ".bmad-task", "task-mapping.json");
    writeFileSync(mappingPath, "{ not json");
    expect(value(await store.get("me", "alpha")).session_id).toBe(a.session_id);
    const rebuilt = JSON.parse(readFileSync(mappingPath, "utf8"));
    expect(Object.keys(rebuilt).sort()).toEqual([a.session_id, b.session_id].sort());
    expect(rebuilt[b.session_id]).toMatchObject({ task_name: "beta", owner: "them" });

    rmSync(mappingPath);
    expect((await listed(store, "them", "all")).map((s) => s.session_id)).toEqual([b.session_id]);
    writeFileSync(mappingPath, "[]");
    expect((await start("me", "Alpha")).task_name).toBe("alpha-1");
    expect((await listed(store, "me", "all")).length).toBe(2);
  });
});

describe("the mapping stays one the store reads back", () => {
  const mappingPath = () => join(dir, ".bmad-task", "task-mapping.json");
  const MiB = 1024 * 1024;

  it("keeps a short summary of the objective in the mapping and the whole one in the state file", async () => {
    const objective = "x" + "\u0001".repeat(3999);
    const { session_id } = await start("me", objective);
    expect(JSON.parse(readFileSync(mappingPath(), "utf8"))[session_id].objective).toBe(objective.slice(0, SUMMARY_OBJECTIVE_CHARS));
    expect(JSON.parse(readFileSync(statePath(session_id), "utf8")).objective).toBe(objective);
  });

  it("refuses a start past the project's session cap, naming the cap and the way out", async () => {
    const entry = { task_name: "t", objective: "o", created_at: "2026-01-01T00:00:00.000Z", owner: "them" };
    const full = Object.fromEntries(Array.from({ length: MAX_SESSIONS }, (_, i) => [i.toString(16).padStart(64, "0"), { ...entry, task_name: `t-${i}` }]));
    mkdirSync(join(dir, ".bmad-task"));
    writeFileSync(mappingPath(), JSON.stringify(full));
    const out = await store.start("me", "One more");
    expect(out).toMatchObject({ ok: false, kind: "invalid", error: expect.stringContaining(`the most one project keeps (${MAX_SESSIONS}); nothing was started`) });
    expect(!out.ok && out.error).toMatch(/delete finished ones: list_sessions lists them .*bmad-task action "delete" with confirm: its task name removes one\. Another owner's the user deletes by hand: their files in \.bmad-task\/.*task-mapping\.json, which is rebuilt/);
    expect(readdirSync(join(dir, ".bmad-task"))).toEqual(["task-mapping.json"]);
  });

  it("refuses a submit past the bytes the project's sessions keep, naming the sizes, the limit and the way out (review 212)", async () => {
    const old = await start("me", "Old work");
    const { session_id } = await start("me", "New work");
    // The old session's folder filled to the limit.
    fill(old.session_id, MAX_BYTES_PER_PROJECT);
    const before = readFileSync(statePath(session_id), "utf8");
    const draft = json({ prd_draft: "# New PRD", quality_score: 95 });

    const refused = await store.act("me", session_id, { type: "submit", claude_result: draft });
    const error = refused.ok ? "" : refused.error;
    const [, size, total] = /^Session new-work would keep ([\d,]+) bytes with this, taking the delivery sessions this project keeps \(in \.bmad-task\/\) to ([\d,]+) bytes, /.exec(error) ?? [];
    const bytes = (shown: string | undefined) => Number(shown?.replaceAll(",", ""));
    // Its state, and the draft twice: as submitted and as its document.
    expect(bytes(size)).toBeGreaterThan(Buffer.byteLength(before) + draft.length);
    expect(bytes(total)).toBeGreaterThan(MAX_BYTES_PER_PROJECT + bytes(size));
    expect(error).toMatch(/ bytes, past the 256 MiB \(268,435,456 bytes\) they may hold; nothing was saved\. To make room, delete finished ones: list_sessions lists them \(status "completed": the finished ones\), and bmad-task action "delete" with confirm: its task name removes one\.$/);
    expect(readFileSync(statePath(session_id), "utf8")).toBe(before);
    expect(existsSync(join(dir, ".bmad-task", "temp", session_id))).toBe(false);

    // The way out it names: the old one deleted, the draft is taken.
    value(await store.remove("me", old.session_id));
    expect(await act(session_id, { type: "submit", claude_result: draft })).toMatchObject({ current_state: "awaiting_confirmation" });
  });

  it("keeps the project within its bytes when sessions submit at once: each is measured after the last one's write (review 218)", async () => {
    const old = await start("me", "Old work");
    const sessions = await Promise.all(Array.from({ length: 8 }, (_, i) => start("me", `Work ${i}`)));
    // Room for two or three of these submits (each keeps its draft twice, and its state): a sparse filler takes the rest.
    fill(old.session_id, MAX_BYTES_PER_PROJECT - kept() - 3 * 1024 * 1024);
    const draft = json({ prd_draft: `# PRD\n${"x".repeat(600 * 1024)}`, quality_score: 95 });

    // Half through a second store on the project, as a second bridge would: the lock is the file's, not the process's.
    const other = new FileSessionStore(dir);
    const results = await Promise.all(sessions.map((s, i) => (i % 2 ? other : store).act("me", s.session_id, { type: "submit", claude_result: draft })));
    const taken = results.filter((r) => r.ok).length;
    expect(taken).toBeGreaterThan(0);
    expect(taken).toBeLessThan(sessions.length);
    for (const r of results) if (!r.ok) expect(r.error).toMatch(/ bytes, past the 256 MiB \(268,435,456 bytes\) they may hold; nothing was saved\./);
    expect(kept()).toBeLessThanOrEqual(MAX_BYTES_PER_PROJECT);
  });

  it("refuses a change that grows only a session's state past the project's bytes: a queued sub-task (review 218)", async () => {
    const old = await start("me", "Old work");
    const { session_id } = await start("me", "New work");
    fill(old.session_id, MAX_BYTES_PER_PROJECT - kept());
    const before = readFileSync(statePath(session_id), "utf8");

    const refused = await store.updateQueue("me", session_id, { done: [], add: { agent: "architect", task: "Review the model", context_files: [] } });
    expect(refused).toMatchObject({ ok: false, kind: "invalid", error: expect.stringMatching(/^Session new-work would keep [\d,]+ bytes with this, .* past the 256 MiB \(268,435,456 bytes\) they may hold; nothing was saved\./) });
    expect(readFileSync(statePath(session_id), "utf8")).toBe(before);
    expect(kept()).toBe(MAX_BYTES_PER_PROJECT);
  });

  it("refuses to write a mapping past the size it reads, and rebuilds one already past it", async () => {
    mkdirSync(join(dir, ".bmad-task"));
    const entry = { task_name: "big", objective: "x".repeat(8 * MiB - 200), created_at: "2026-01-01T00:00:00.000Z", owner: "me" };
    writeFileSync(mappingPath(), JSON.stringify({ ["0".repeat(64)]: entry }));
    const refused = await store.start("me", "Alpha beta gamma");
    expect(refused).toMatchObject({ ok: false, kind: "invalid", error: expect.stringMatching(/task-mapping\.json: would be larger than 8 MiB, which the bridge refuses to read back; nothing was written/) });

    // One an older bridge wrote past the limit is rebuilt from the state files, small.
    const project = join(dir, "older");
    mkdirSync(project);
    const older = new FileSessionStore(project);
    const a = await start("me", "Alpha", older);
    writeFileSync(join(project, ".bmad-task", "task-mapping.json"), "x".repeat(8 * MiB + 1));
    expect(value(await older.get("me", "alpha")).session_id).toBe(a.session_id);
    expect(readFileSync(join(project, ".bmad-task", "task-mapping.json")).length).toBeLessThan(1024);
  });
});

describe("readArtifact", () => {
  it("names the rejected versions still kept where one asked for is not (review 212)", async () => {
    const { session_id, task_name } = await start("me", "Many rejections");
    for (let i = 1; i <= 12; i++) {
      await act(session_id, { type: "submit", claude_result: json({ prd_draft: `# PRD v${i}`, quality_score: 95 }) });
      await act(session_id, { type: "reject", reason: `again ${i}` });
    }
    const kept = [1, ...Array.from({ length: 10 }, (_, i) => i + 3)].map((n) => `01-product-requirements.rejected-${n}.md`);
    expect(value(await store.readArtifact("me", session_id, kept[1]!))).toBe("# PRD v3");
    expect(await store.readArtifact("me", session_id, "01-product-requirements.rejected-2.md")).toEqual({
      ok: false,
      kind: "not_found",
      error: `No artifact "01-product-requirements.rejected-2.md" in ${task_name}. Artifacts: none yet. Rejected versions: ${kept.join(", ")} (a session keeps each stage's first rejected draft and the newest 10 others; older ones are not kept).`,
    });
  });

  it("reads only the artifact files the session lists", async () => {
    const { session_id, task_name } = await start("me", "Paths");
    await act(session_id, { type: "submit", claude_result: "Quality Score: 95/100" });
    await act(session_id, { type: "confirm" });
    writeFileSync(join(dir, "secret.txt"), "secret");
    writeFileSync(join(dir, ".claude", "specs", "secret.txt"), "secret");
    writeFileSync(join(dir, ".claude", "specs", task_name, "02-system-architecture.md"), "not recorded");

    for (const file of ["../secret.txt", "../../secret.txt", join(dir, "secret.txt"), "02-system-architecture.md", "", "."]) {
      expect(await store.readArtifact("me", session_id, file)).toMatchObject({ ok: false, kind: "not_found" });
    }
    expect(value(await store.readArtifact("me", session_id, ARTIFACTS[0]!))).toBe("Quality Score: 95/100");

    // Even a hand-edited state listing a path does not reach outside.
    const state = JSON.parse(readFileSync(statePath(session_id), "utf8")) as SessionState;
    state.artifacts.push("../secret.txt", join(dir, "secret.txt"));
    writeFileSync(statePath(session_id), JSON.stringify(state));
    expect(await store.readArtifact("me", session_id, "../secret.txt")).toMatchObject({ ok: false, kind: "not_found" });
    expect(await store.readArtifact("me", session_id, join(dir, "secret.txt"))).toMatchObject({ ok: false, kind: "not_found" });
    // And a content ref cannot climb out of the session's temp folder.
    expect(await store.readContent("me", session_id, "../../../secret.txt")).toMatchObject({ ok: false, kind: "not_found" });
  });
});

