/// <reference types="@cloudflare/vitest-plugin/types" />
// Two fuzzes of the remote, in this isolate, from fixed seeds, with Eve's private project and session beside them.
// Every tool (all toolsets), called by a signed-in user with arguments generated from its inputSchema, valid and
// hostile: no crash, nothing from another user's project or session, Object.prototype unchanged (the Worker runs in
// this isolate), and the Worker answers the next call.
// Stateful (review 197): Alice and Bob, whom she shares her project with, work it for many steps, each a call drawn
// from real-looking values (BMAD's paths, skill renders, memlog lines, versions earlier answers gave, a few hostile
// strings) and checked against a model of what the answers acknowledged. Its length and seed come from
// BMAD_FUZZ_STEPS and BMAD_FUZZ_SEED (300 and 1), which global-setup.ts hands over from the shell (the schema fuzz's:
// BMAD_FUZZ_RUNS and BMAD_FUZZ_SEED, 400 and 31); a long run:
//   BMAD_FUZZ_STEPS=5000 BMAD_FUZZ_SEED=7 npx vitest run --config vitest.worker.config.ts test/worker/fuzz.test.ts
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, inject, it, vi } from "vitest";
import { historyGap, wholeHistory } from "../../scripts/mcp-user.js";
import { withBearer } from "../../scripts/oauth-client.js";
import { compileGlob } from "../../src/core/catalog/glob.js";
import { TOOL } from "../../src/core/surface/names.js";
import { MEMORY_TYPES } from "../../src/core/memory/model.js";
import { appendedText, APPENDS, COMMANDS, CONTENTS, fuzzTools, HOSTILE, JS_CRASH, PATHS, prototypeWatch, random, type FuzzDoor } from "../support/fuzz-tools.js";
import { ORIGIN, workerFetch } from "./client.js";
import { seed } from "./setup.js";
import { rawCall, signInAs, unique, type Person } from "./workspace-users.js";

// Room for a loaded machine: a test vitest times out leaves fast-check's loop calling tools until afterAll closes the
// client (review 146).
vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });

/** The schema fuzz's calls and seed: BMAD_FUZZ_RUNS and BMAD_FUZZ_SEED (400 and 31), as global-setup.ts hands them over. */
const schema = inject("schemaFuzz");
const SECRETS = ["SECRET-EVE-FILE-5a9c", "SECRET-EVE-SESSION-0e47", "SECRET-EVE-MEMORY-77b1"];
let ada: Person;
/** Eve's project and session: names for the others to send where they reach nothing. */
let eveProject = "";
let eveSession = "";
let door: FuzzDoor;
let client: Client | undefined;

beforeAll(async () => {
  await seed();
  const eve = await signInAs(`${unique("eve")}@example.com`);
  ada = await signInAs(`${unique("ada")}@example.com`);
  const secret = (eveProject = unique("eves"));
  const mine = unique("adas");
  expect((await eve.project({ action: "create", name: secret })).isError).toBe(false);
  expect((await eve.files({ action: "write", project: secret, path: "docs/plan.md", content: SECRETS[0] })).isError).toBe(false);
  const session = await eve.call(TOOL.bmadTask, { action: "start", objective: SECRETS[1] });
  expect(session.isError, session.text).toBe(false);
  const memory = await toolCall(eve.token, TOOL.rememberStructured, { project: secret, type: "decisions", agent: "architect", text: SECRETS[2] });
  expect(memory.ok, memory.text).toBe(true);
  expect((await ada.project({ action: "create", name: mine })).isError).toBe(false);
  expect((await ada.files({ action: "write", project: mine, path: "docs/readme.md", content: "# Readme\n" })).isError).toBe(false);
  client = new Client({ name: "fuzz", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp?toolsets=all`), { fetch: withBearer(workerFetch, ada.token) }));
  eveSession = String(session.structured.session_id ?? session.structured.current_state?.session_id ?? "");
  door = {
    client,
    secrets: SECRETS,
    extra: [secret, `${eve.email}/${secret}`, `bmad://projects/${secret}`, `bmad://projects/${secret}/docs/plan.md`, eve.email, eve.id, mine, `bmad://projects/${mine}`, "docs/readme.md", "docs/plan.md", ...(eveSession ? [eveSession] : [])],
    prototypeChanges: prototypeWatch(),
  };
});

// Closed here: a call the checks stopped waiting for (past CALL_MS) would run on into the next file's test, whose I/O
// it cannot use (a run of run-bounds.test.ts after this file was cancelled as hung, reading such a request's body).
afterAll(() => client?.close());

it("answers every tool's generated calls without a crash, a leak or a polluted prototype", async () => {
  const { tools } = await fuzzTools(door, { seed: schema.seed, numRuns: schema.runs });
  expect(tools.length).toBeGreaterThan(20);
});

it("keeps every version it acknowledged, as written, through two people's changes, shares and deletes (review 197)", async () => {
  const { steps, seed: from } = inject("statefulFuzz");
  expect(await statefulFuzz(steps, from), `BMAD_FUZZ_SEED=${from}`).toEqual([]);
});

interface Answer {
  ok: boolean;
  text: string;
  /** The last content block: a read's file text (its header is a block of its own). */
  last: string;
  structured: Record<string, any>;
  /** The whole response body, and what was wrong with it as an answer: not one, or an error other than invalid params. */
  raw: string;
  broken?: string;
}

/** A tools/call as a client without an SDK makes it (all toolsets, stateless /mcp). */
async function toolCall(token: string, name: string, args: Record<string, unknown>): Promise<Answer> {
  const res = await rawCall(token, "tools/call", { name, arguments: args }, "?toolsets=all");
  const raw = await res.text();
  const none = { ok: false, text: "", last: "", structured: {}, raw };
  if (!res.ok) return { ...none, broken: `HTTP ${res.status}` };
  let body: { result?: { isError?: boolean; content?: Array<{ text?: string }>; structuredContent?: Record<string, any> }; error?: { code: number; message: string } };
  try {
    body = JSON.parse(raw.replace(/^event: message\ndata: /, ""));
  } catch {
    return { ...none, broken: "no JSON-RPC answer" };
  }
  if (body.error) return { ...none, text: body.error.message, ...(body.error.code === -32602 ? {} : { broken: `JSON-RPC error ${body.error.code}` }) };
  const blocks = (body.result?.content ?? []).map((c) => c.text ?? "");
  return { ok: body.result?.isError !== true, text: blocks.join("\n"), last: blocks.at(-1) ?? "", structured: body.result?.structuredContent ?? {}, raw };
}

/** Files served without their secret-looking keys: read back, their text is not what was written. */
const SERVED_REWRITTEN = /^_bmad\/|\.toml$|\.ya?ml$/;

/** `steps` calls of Alice (the owner) and Bob (sharing her project, for writing most of the time) drawn from `seed`,
 *  each checked; then Alice reads back every version still acknowledged. What broke, each with the call that showed it. */
async function statefulFuzz(steps: number, seed: number): Promise<string[]> {
  const rnd = random(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(rnd() * values.length)]!;
  const chance = (p: number) => rnd() < p;
  const [alice, bob] = (await Promise.all(["alice", "bob"].map((who) => signInAs(`${unique(who)}@example.com`)))) as [Person, Person];
  const project = unique("acme");
  const findings: string[] = [];
  let step = 0;
  let lastCall = "";

  /** Any answer that is not one, an error but invalid params, an error without words, a crash's words, or any of Eve's
   *  secrets is a finding. */
  async function call(who: Person, name: string, args: Record<string, unknown>): Promise<Answer> {
    lastCall = `step ${step}: ${who === alice ? "alice" : "bob"} ${name} ${JSON.stringify(args).slice(0, 200)}`;
    const answer = await toolCall(who.token, name, args);
    if (answer.broken) findings.push(`${answer.broken} for ${lastCall}: ${answer.raw.slice(0, 300)}`);
    for (const secret of SECRETS) if (answer.raw.includes(secret)) findings.push(`Eve's ${secret} in the answer to ${lastCall}`);
    if (!answer.ok && !answer.text.trim()) findings.push(`an error without words for ${lastCall}`);
    if (JS_CRASH.test(answer.text)) findings.push(`a crash's words for ${lastCall}: ${answer.text.slice(0, 300)}`);
    return answer;
  }

  // The model: every version an answer acknowledged (by `path@version`, its content or null for a deletion), those
  // purged, and where Bob stands.
  const acked = new Map<string, { path: string; version: number; content: string | null; step: number }>();
  const purged = new Set<string>();
  const paths = new Set<string>();
  const sessions = [eveSession];
  let bobRef = project;
  let bobAccess: "none" | "pending" | "read" | "write" = "none";
  let deleted = false;
  const canRead = (owner: boolean) => !deleted && (owner || bobAccess === "read" || bobAccess === "write");
  const canWrite = (owner: boolean) => !deleted && (owner || bobAccess === "write");
  const versionsOf = (path: string) => [...acked.values()].filter((a) => a.path === path).map((a) => a.version);

  function ack(path: string, version: number, content: string | null): void {
    const key = `${path}@${version}`;
    const earlier = acked.get(key);
    if (!earlier) acked.set(key, { path, version, content, step });
    else if (earlier.content !== content && !SERVED_REWRITTEN.test(path)) findings.push(`${key}, acknowledged at step ${earlier.step}, acknowledged again for other content: ${lastCall}`);
    paths.add(path);
  }
  function checkText(path: string, version: number, text: string, how: string): void {
    const a = acked.get(`${path}@${version}`);
    if (a?.content != null && a.content !== text && !SERVED_REWRITTEN.test(path)) findings.push(`${how} of ${path}@${version} (acknowledged at step ${a.step}) gave ${JSON.stringify(text.slice(0, 80))}, not ${JSON.stringify(a.content.slice(0, 80))}: ${lastCall}`);
  }
  /** A change answered as made: a finding if its caller may not write. Whether it names the version it made. */
  function changed(answer: Answer, owner: boolean): answer is Answer & { structured: { version: number } } {
    if (answer.ok && !canWrite(owner)) findings.push(`a change without write access: ${lastCall}`);
    return answer.ok && typeof answer.structured.version === "number";
  }
  /** The file as read now (its text checked against what was acknowledged for its version), or undefined. */
  async function current(who: Person, ref: string, path: string): Promise<{ path: string; version: number; text: string } | undefined> {
    const read = await call(who, TOOL.bmadFiles, { action: "read", project: ref, path });
    if (!read.ok || typeof read.structured.version !== "number") return undefined;
    const at: string = read.structured.path ?? path;
    checkText(at, read.structured.version, read.last, "a read");
    return { path: at, version: read.structured.version, text: read.last };
  }
  /** History runs 1..n (when it is whole), and holds every version acknowledged. */
  async function checkHistory(who: Person, ref: string, path: string): Promise<void> {
    const history = await call(who, TOOL.bmadFiles, { action: "history", project: ref, path });
    if (!history.ok) return;
    // Page by page (review 390: a file of more than a page's versions read as a history that starts at 52).
    const versions = history.structured.next === undefined ? (history.structured.versions as Array<{ version: number }>) : await wholeHistory((before) => call(who, TOOL.bmadFiles, { action: "history", project: ref, path, ...(before === undefined ? {} : { version: before }) }));
    if (!versions) return;
    const gap = history.structured.older ? undefined : historyGap(versions);
    if (gap) findings.push(`${path}: ${gap}: ${lastCall}`);
    const newest = Math.max(...versions.map((v) => v.version));
    for (const v of versionsOf(path)) if (v > newest) findings.push(`${path}@${v} was acknowledged, and history ends at ${newest}: ${lastCall}`);
  }

  async function share(access: "read" | "write" | "none"): Promise<void> {
    if (!(await call(alice, TOOL.bmadProject, { action: "share", name: project, with: bob.email, access })).ok) return;
    // A change of access keeps an accepted share accepted; a new one, or one renewed after "none", is an offer.
    bobAccess = access === "none" ? "none" : bobAccess === "read" || bobAccess === "write" ? access : "pending";
  }
  async function accept(): Promise<void> {
    const listed = await call(bob, TOOL.bmadProject, { action: "list" });
    const offer = (listed.structured.offers ?? []).find((o: { name: string }) => o.name === project);
    if (!offer) return;
    const accepted = await call(bob, TOOL.bmadProject, { action: "accept", name: offer.project });
    if (accepted.ok) [bobRef, bobAccess] = [offer.project, accepted.structured.access];
  }

  const memlogs = (ref: string) => {
    const workspace = `bmad://projects/${ref}/_bmad-output/planning-artifacts`;
    return [
      `uv run bmad://projects/${ref}/_bmad/scripts/resolve_config.py --project-root bmad://projects/${ref}`,
      `uv run bmad://projects/${ref}/_bmad/scripts/memlog.py init --workspace ${workspace} --field topic="PRD"`,
      `uv run bmad://projects/${ref}/_bmad/scripts/memlog.py append --workspace ${workspace} --type decision --text "we chose ${pick(["postgres", "sqlite", "é🙂", "$(id)", "'quote"])}"`,
      `uv run bmad://projects/${ref}/_bmad/scripts/memlog.py set --workspace ${workspace} --key status --value complete`,
      "uv run {project-root}/_bmad/scripts/memlog.py append --workspace {project-root}/_bmad-output/planning-artifacts --type event --text \"x\"",
      "uv run {project-root}/_bmad/scripts/resolve_customization.py --skill {skill-root} --project-root {project-root} --key workflow",
      // Into Eve's project, and out of this one.
      `uv run bmad://projects/${ref}/_bmad/scripts/memlog.py init --workspace bmad://projects/${eveProject}/docs`,
      `uv run bmad://projects/${ref}/_bmad/scripts/memlog.py init --workspace ${workspace}/../../../${eveProject}`,
    ];
  };
  const hostileOr = (value: string) => (chance(0.07) ? pick(HOSTILE) : value);

  // Each kind of step, with how often it comes: `who` and `ref` are Alice and her name for the project, or Bob and his.
  type Step = (who: Person, ref: string, owner: boolean, path: string) => Promise<void>;
  const write: Step = async (who, ref, owner, path) => {
    const content = pick(CONTENTS) + (chance(0.5) ? `\nstep ${step}\n` : "");
    const known = versionsOf(path);
    const ifVersion = chance(0.3) ? (known.length && chance(0.7) ? Math.max(...known) : pick([0, 1, 2, 999])) : undefined;
    const answer = await call(who, TOOL.bmadFiles, { action: "write", project: ref, path, content, ...(ifVersion === undefined ? {} : { if_version: ifVersion }) });
    if (!changed(answer, owner)) return;
    ack(answer.structured.path ?? path, answer.structured.version, content);
    await checkHistory(who, ref, answer.structured.path ?? path);
  };
  const append: Step = async (who, ref, owner, path) => {
    const before = await current(who, ref, path);
    const content = pick(APPENDS);
    const answer = await call(who, TOOL.bmadFiles, { action: "append", project: ref, path, content });
    if (!changed(answer, owner) || !before || answer.structured.version !== before.version + 1) return;
    // What it appended to, then what it appended: read back at once.
    ack(before.path, answer.structured.version, appendedText(before.text, content));
    await current(who, ref, before.path);
    await checkHistory(who, ref, before.path);
  };
  const edit: Step = async (who, ref, owner, path) => {
    const before = await current(who, ref, path);
    if (!before) return;
    // Mostly a stretch the file starts with (cut anywhere: half an emoji too), sometimes text it may not hold.
    const old = before.text && chance(0.8) ? before.text.slice(0, 1 + Math.floor(rnd() * before.text.length)) : pick(["# PRD", "nothing-here", "\n"]);
    const content = pick(["# PRD v2", "", "🙂", "{project-root}"]);
    const answer = await call(who, TOOL.bmadFiles, { action: "edit", project: ref, path, old, content, ...(chance(0.3) ? { if_version: before.version } : {}) });
    if (!changed(answer, owner) || answer.structured.version !== before.version + 1 || SERVED_REWRITTEN.test(before.path)) return;
    const times = before.text.split(old).length - 1;
    if (times !== 1) findings.push(`an edit made where "old" is ${times} times: ${lastCall}`);
    ack(before.path, answer.structured.version, before.text.replace(old, () => content));
    await current(who, ref, before.path);
  };
  const remove: Step = async (who, ref, owner, path) => {
    const glob = chance(0.25) ? pick(["_bmad-output/**", "docs/*", "**/*.md"]) : undefined;
    const known = versionsOf(path);
    const answer = await call(who, TOOL.bmadFiles, { action: "delete", project: ref, path: glob ?? path, ...(!glob && known.length && chance(0.3) ? { if_version: Math.max(...known) } : {}) });
    // A glob's deletions are learned by later reads.
    if (changed(answer, owner) && !glob) ack(answer.structured.path ?? path, answer.structured.version, null);
  };
  const restore: Step = async (who, ref, owner, path) => {
    const known = versionsOf(path);
    if (!known.length) return;
    const version = pick(known);
    const from = acked.get(`${path}@${version}`)!;
    const answer = await call(who, TOOL.bmadFiles, { action: "restore", project: ref, path, version });
    if (!changed(answer, owner)) return;
    if (purged.has(`${path}@${version}`)) findings.push(`a purged version restored: ${lastCall}`);
    if (from.content !== null) ack(answer.structured.path ?? path, answer.structured.version, from.content);
    await checkHistory(who, ref, path);
  };
  const purgeOrUnpurge: Step = async (who, ref, owner, path) => {
    const glob = pick(["**", path, "_bmad-output/**"]);
    const compiled = compileGlob(glob);
    const matching = compiled.ok ? [...paths].filter((p) => compiled.glob.test(p)) : [];
    if (chance(0.6)) {
      // Every earlier version of a matching file goes: all but the current one, as its owner reads it.
      const heads = new Map<string, number | undefined>();
      for (const p of matching) heads.set(p, (await current(alice, project, p))?.version);
      const answer = await call(who, TOOL.bmadFiles, { action: "purge", project: ref, path: glob });
      if (!answer.ok) return;
      if (!owner) findings.push(`a collaborator purged: ${lastCall}`);
      for (const p of matching) for (const v of versionsOf(p)) if (v !== heads.get(p)) purged.add(`${p}@${v}`);
    } else {
      const version = chance(0.3) ? pick([1, 2, 3]) : undefined;
      const answer = await call(who, TOOL.bmadFiles, { action: "unpurge", project: ref, path: glob, ...(version ? { version } : {}) });
      if (!answer.ok) return;
      if (!owner) findings.push(`a collaborator brought purged versions back: ${lastCall}`);
      for (const p of matching) for (const v of versionsOf(p)) if (version === undefined || v === version) purged.delete(`${p}@${v}`);
    }
  };
  const look: Step = async (who, ref, owner, path) => {
    const what = pick(["read", "version", "history", "list"]);
    if (what === "read") await current(who, ref, path);
    else if (what === "history") await checkHistory(who, ref, path);
    else if (what === "list") await call(who, TOOL.bmadFiles, { action: "list", project: ref, path: pick(["**", "_bmad-output/**", "docs/*", path]) });
    else {
      const written = [...acked.values()].filter((a) => a.content !== null);
      if (!written.length) return;
      const a = pick(written);
      const read = await call(who, TOOL.bmadFiles, { action: "read", project: ref, path: a.path, version: a.version });
      if (read.ok) checkText(a.path, a.version, read.last, "a read of the version");
      else if (canRead(owner) && !purged.has(`${a.path}@${a.version}`)) findings.push(`${a.path}@${a.version}, acknowledged at step ${a.step}, unreadable: ${lastCall}: ${read.text.slice(0, 200)}`);
    }
  };
  const run: Step = async (who, ref) => void (await call(who, TOOL.bmadRun, { command: hostileOr(pick(memlogs(ref))), ...(chance(0.5) ? { project: ref } : {}) }));
  const render: Step = async (who, ref) => void (await call(who, TOOL.bmad, { command: pick(COMMANDS), ...(chance(0.8) ? { project: ref } : {}) }));
  const memory: Step = async (who, ref) => {
    if (chance(0.5)) {
      const text = `decided ${pick(["postgres", "REST", "🙂", "NEAR(a b)"])} at ${step % 7}`;
      await call(who, TOOL.rememberStructured, { type: pick([...MEMORY_TYPES, "context"]), agent: pick(["architect", "dev", "pm", "__proto__"]), text, tags: chance(0.5) ? ["high"] : [], project: ref });
    } else {
      const tool = pick([TOOL.recallStructured, TOOL.getAgentMemory, TOOL.getFailureMuseum, TOOL.getProjectContext]);
      await call(who, tool, pick([{ query: pick(["postgres", "decided", "*", '"x', "SECRET"]), project: ref }, { agent: "architect", project: ref }, { project: ref }]));
    }
  };
  const delivery: Step = async (who, ref) => {
    if (chance(0.3)) {
      const started = await call(who, TOOL.bmadTask, { action: "start", objective: `build feature ${step}`, ...(chance(0.5) ? { project: ref } : {}) });
      const id = started.structured.session_id ?? started.structured.current_state?.session_id;
      if (started.ok && id) sessions.push(String(id));
      return;
    }
    const id = pick(sessions);
    await call(who, TOOL.bmadTask, pick([{ action: "status", session_id: id }, { action: "submit", session_id: id, claude_result: "# Result\nDone.", codex_result: "ok" }, { action: "answer", session_id: id, answers: { q1: "yes" } }, { action: "approve", session_id: id }]));
  };
  const sharing: Step = async (who) => {
    const r = rnd();
    if (r < 0.3) await share(pick(["read", "write", "write", "write", "none"]));
    else if (r < 0.6) await accept();
    else await call(who, TOOL.bmadProject, { action: "list" });
  };
  const deleteProject: Step = async () => {
    if (!chance(0.3)) return;
    if ((await call(alice, TOOL.bmadProject, { action: "delete", name: project, confirm: project })).ok) [deleted, bobAccess] = [true, "none"];
  };
  const view: Step = async (who, ref, _owner, path) => void (await call(who, pick([TOOL.bmadMap, TOOL.bmadDoc, TOOL.bmadBoard, TOOL.bmadSession]), pick([{ project: ref }, { project: ref, path }, { project: ref, session_id: pick(sessions) }])));
  const KINDS: Array<[number, Step]> = [
    [20, write], [10, append], [8, edit], [6, remove], [6, restore], [3, purgeOrUnpurge], [12, look],
    [7, run], [5, render], [6, memory], [5, delivery], [8, sharing], [1, deleteProject], [3, view],
  ];
  const total = KINDS.reduce((sum, [weight]) => sum + weight, 0);
  /** Undeleted, it is shared with nobody: Alice shares it again. */
  async function undelete(): Promise<void> {
    if (!(await call(alice, TOOL.bmadProject, { action: "undelete", name: project })).ok) return;
    deleted = false;
    await share("write");
    await accept();
  }

  expect((await call(alice, TOOL.bmadProject, { action: "create", name: project, answers: { core: { user_name: "Alice" } } })).ok).toBe(true);
  await share("write");
  await accept();
  expect(bobAccess).toBe("write");
  for (step = 1; step <= steps && !findings.length; step++) {
    if (deleted && chance(0.15)) {
      await undelete();
      continue;
    }
    const [who, ref, owner] = chance(0.55) ? [alice, project, true] : [bob, bobRef, false];
    const path = hostileOr(pick([...PATHS, ...paths]));
    let draw = rnd() * total;
    const [, next] = KINDS.find(([weight]) => (draw -= weight) < 0) ?? KINDS[0]!;
    await next(who, ref, owner, path);
  }
  // Alice reads back every version still acknowledged.
  if (deleted) await undelete();
  for (const a of acked.values()) {
    if (a.content === null || purged.has(`${a.path}@${a.version}`)) continue;
    const read = await call(alice, TOOL.bmadFiles, { action: "read", project, path: a.path, version: a.version });
    if (read.ok) checkText(a.path, a.version, read.last, "the last read");
    else findings.push(`${a.path}@${a.version}, acknowledged at step ${a.step}, unreadable at the end: ${read.text.slice(0, 200)}`);
  }
  for (const path of paths) await checkHistory(alice, project, path);
  return findings.slice(0, 10);
}
