// Two fuzzes of the bridge, over stdio, from fixed seeds.
// Every tool (all toolsets), called with arguments generated from its inputSchema, valid and hostile: no crash, no
// content from outside the project, Object.prototype unchanged in the bridge's process, and the bridge answers the next
// call. BMAD_FUZZ_RUNS and BMAD_FUZZ_SEED set the number of calls and the seed (600 and 31).
// Stateful (review 199, the remote's twin in test/worker/fuzz.test.ts): a model works a real BMAD 6.12 project for many
// steps, each a call drawn from real-looking values (BMAD's paths, skill renders, the memlog lines skills hold, versions
// earlier answers gave, a few hostile strings) and checked against a model of what the answers acknowledged and of the
// folder on disk. Its length and seed come from BMAD_FUZZ_STEPS and BMAD_FUZZ_SEED (150 and 1); a long run:
//   BMAD_FUZZ_STEPS=5000 BMAD_FUZZ_SEED=7 npx vitest run --config vitest.node.config.ts test/node/fuzz-bridge.test.ts
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { appendedText, APPENDS, COMMANDS, CONTENTS, fuzzTools, HOSTILE, JS_CRASH, PATHS, random, wholeNumber, type FuzzDoor } from "../support/fuzz-tools.js";
import { structuredFile } from "../../src/core/memory/files.js";
import { MEMORY_TYPES } from "../../src/core/memory/model.js";
import { connectBridge, install, processRuns, ROOT, tempDir } from "./helpers";
import { wholeHistory } from "../../scripts/mcp-user.js";

const RUNS = wholeNumber("BMAD_FUZZ_RUNS", 600);
const SEED = wholeNumber("BMAD_FUZZ_SEED", 31);
const STEPS = wholeNumber("BMAD_FUZZ_STEPS", 150);
const tmp = tempDir("fuzz-bridge");
const project = join(tmp.dir, "project");
const home = join(tmp.dir, "home");
const report = join(tmp.dir, "prototype.json");
const SECRETS = { outside: "SECRET-OUTSIDE-7f3a", git: "SECRET-GIT-91c2", state: "SECRET-STATE-4d1e", home: "SECRET-HOME-b6e0" };
let bridge: Awaited<ReturnType<typeof connectBridge>>;

beforeAll(async () => {
  mkdirSync(join(project, "docs"), { recursive: true });
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(join(project, ".bmad-mcp"), { recursive: true });
  mkdirSync(join(home, ".ssh"), { recursive: true });
  writeFileSync(join(project, "docs/readme.md"), "# Readme\n\nA project under fuzz.\n");
  writeFileSync(join(project, ".git/config"), `[core]\n# ${SECRETS.git}\n`);
  writeFileSync(join(project, ".bmad-mcp/notes"), SECRETS.state);
  writeFileSync(join(tmp.dir, "outside.md"), SECRETS.outside);
  writeFileSync(join(home, ".ssh/id_rsa"), SECRETS.home);
  symlinkSync(join(tmp.dir, "outside.md"), join(project, "docs/link.md"));
  symlinkSync(tmp.dir, join(project, "up"));
  bridge = await connectBridge(inject("bridge"), project, {
    args: ["--toolsets", "all"],
    home,
    env: { NODE_OPTIONS: `--import=${pathToFileURL(join(ROOT, "test/fixtures/fuzz/proto-watch.mjs")).href}`, BMAD_PROTO_REPORT: report },
  });
}, Math.max(60_000, RUNS * 20));
afterAll(async () => {
  await bridge?.close();
  tmp.cleanup();
});

it("answers every tool's generated calls without a crash, a leak or a polluted prototype", async () => {
  const door: FuzzDoor = {
    client: bridge.client,
    secrets: Object.values(SECRETS),
    extra: [join(tmp.dir, "outside.md"), tmp.dir, join(home, ".ssh/id_rsa"), "docs/link.md", "up/outside.md", "up", "docs/readme.md", "docs/**", ".bmad-mcp/notes", ".git/config"],
  };
  const { tools, outcomes } = await fuzzTools(door, { seed: SEED, numRuns: RUNS });
  if (process.env.BMAD_FUZZ_STATS) console.log([...outcomes].sort().map(([k, v]) => `${k}: ${v}`).join("\n"));
  expect(tools.length).toBeGreaterThan(20);
  // The bridge's own Object.prototype, as its process sees it (the preload answers SIGUSR2).
  process.kill(bridge.pid, "SIGUSR2");
  for (const end = Date.now() + 10_000; !existsSync(report) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
  expect(JSON.parse(readFileSync(report, "utf8"))).toEqual([]);
}, Math.max(60_000, RUNS * 20));

it("keeps every version it acknowledged, as written, and changes nothing it was not asked to, in a real BMAD project (review 199)", async () => {
  const seed = wholeNumber("BMAD_FUZZ_SEED", 1);
  expect(await statefulFuzz(STEPS, seed), `BMAD_FUZZ_SEED=${seed}`).toEqual([]);
}, Math.max(120_000, STEPS * 300));

interface Answer {
  ok: boolean;
  text: string;
  /** The last content block: a read's file text (its header is a block of its own). */
  last: string;
  structured: Record<string, any>;
}

/** Every version the bridge kept of what it replaced stays readable while a file has fewer replacements than this, and
 *  the project fewer than `all` (kept-versions.ts: past them, its oldest copies of the model's own content go). */
const KEPT = { perFile: 100, all: 2000 };
const OUTSIDE_SECRET = "SECRET-BESIDE-c81d";

/** What tells a file's change without reading it: inode (a write renames a new one in), size and times. */
function stampOf(abs: string): string | undefined {
  const s = lstatSync(abs, { bigint: true, throwIfNoEntry: false });
  return s && `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}
/** A folder's files, each by what tells a change (`content`: its bytes; else stampOf), symlinks by target. */
function snapshot(root: string, content: boolean, skip: (rel: string) => boolean = () => false): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (skip(path)) continue;
      if (e.isDirectory()) walk(path);
      else if (e.isSymbolicLink()) out.set(path, `link ${readlinkSync(join(root, path))}`);
      else if (content) out.set(path, readFileSync(join(root, path), "latin1"));
      else out.set(path, stampOf(join(root, path))!);
    }
  };
  walk("");
  return out;
}
/** The paths whose entry differs between two snapshots (changed, made or gone). */
const differing = (a: Map<string, string>, b: Map<string, string>) => [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k)).sort();

/** `steps` calls of a model working a real 6.12 install through a real bridge, drawn from `seed`, each checked; then
 *  every version acknowledged is read back. What broke, each with the call that showed it. */
async function statefulFuzz(steps: number, seed: number): Promise<string[]> {
  const rnd = random(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(rnd() * values.length)]!;
  const chance = (p: number) => rnd() < p;
  const base = join(tmp.dir, "stateful");
  const dir = join(base, "acme");
  const outside = join(base, "outside");
  await install("v6.12", dir);
  mkdirSync(join(dir, ".git/refs"), { recursive: true });
  writeFileSync(join(dir, ".git/HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(dir, ".git/config"), `[core]\n# ${SECRETS.git}\n`);
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, "notes.md"), OUTSIDE_SECRET);
  // Beside the project: the folder it sits in (the bridge's home too), and its .git/, read whole before and after each step.
  const besideNow = () => snapshot(base, true, (rel) => rel === "acme");
  const gitNow = () => snapshot(join(dir, ".git"), true);
  const projectNow = () => snapshot(dir, false, (rel) => rel === ".git");
  const [beside, git] = [besideNow(), gitNow()];
  let tree = projectNow();
  const door = await connectBridge(inject("bridge"), dir, { args: ["--toolsets", "all"], home: join(base, "home") });
  const findings: string[] = [];
  /** How each kind of call was answered, for BMAD_FUZZ_STATS: what the run reached past validation. */
  const outcomes = new Map<string, number>();
  let step = 0;
  let lastCall = "";

  /** Any answer that is not one, a JSON-RPC error but invalid params, an error without words, a crash's words, or what
   *  lies beside the project or in its .git/ is a finding. */
  async function call(name: string, args: Record<string, unknown>): Promise<Answer> {
    lastCall = `step ${step}: ${name} ${JSON.stringify(args).slice(0, 200)}`;
    let result: Record<string, any>;
    try {
      result = await door.client.callTool({ name, arguments: args });
    } catch (error) {
      const e = error as { code?: unknown; message?: unknown };
      if (e.code !== -32602) findings.push(`JSON-RPC error ${String(e.code)} for ${lastCall}: ${String(e.message).slice(0, 300)}`);
      return { ok: false, text: String(e.message), last: "", structured: {} };
    }
    const blocks = ((result.content ?? []) as Array<{ text?: string }>).map((c) => c.text ?? "");
    const answer = { ok: result.isError !== true, text: blocks.join("\n"), last: blocks.at(-1) ?? "", structured: (result.structuredContent ?? {}) as Record<string, any> };
    const kind = `${name}${typeof args.action === "string" ? ` ${args.action}` : ""} ${answer.ok ? "answered" : "refused"}`;
    outcomes.set(kind, (outcomes.get(kind) ?? 0) + 1);
    for (const secret of [OUTSIDE_SECRET, SECRETS.git]) if (answer.text.includes(secret)) findings.push(`${secret} in the answer to ${lastCall}`);
    if (!answer.ok && !answer.text.trim()) findings.push(`an error without words for ${lastCall}`);
    if (JS_CRASH.test(answer.text)) findings.push(`a crash's words for ${lastCall}: ${answer.text.slice(0, 300)}`);
    return answer;
  }

  // The model: every version an answer acknowledged (by `path@version`, its content), what each file the model changed
  // holds on disk (null: absent), each file's version as last answered (0: absent), how many of its contents the bridge
  // replaced, and what this step may change.
  const acked = new Map<string, { path: string; version: number; content: string; step: number }>();
  const onDisk = new Map<string, string | null>();
  const head = new Map<string, number>();
  const replaced = new Map<string, number>();
  const mayChange = new Set<string>();
  const versionsOf = (path: string) => [...acked.values()].filter((a) => a.path === path).map((a) => a.version);
  const keptWhole = (path: string) => (replaced.get(path) ?? 0) < KEPT.perFile && [...replaced.values()].reduce((sum, v) => sum + v, 0) < KEPT.all;
  /** What the file holds on disk (null: no file there: a folder, or a name no file system takes). */
  function disk(path: string): string | null {
    try {
      return lstatSync(join(dir, path)).isFile() ? readFileSync(join(dir, path), "utf8") : null;
    } catch {
      return null;
    }
  }

  function ack(path: string, version: number, content: string): void {
    const key = `${path}@${version}`;
    const earlier = acked.get(key);
    if (!earlier) acked.set(key, { path, version, content, step });
    else if (earlier.content !== content) findings.push(`${key}, acknowledged at step ${earlier.step}, acknowledged again for other content: ${lastCall}`);
  }
  /** A change the bridge answered as made: the file's content now (null: deleted) and version (undefined: not known),
   *  the content it replaced counted. */
  function landed(path: string, content: string | null, version: number | undefined): void {
    if (tree.has(path)) replaced.set(path, (replaced.get(path) ?? 0) + 1);
    onDisk.set(path, content);
    if (version === undefined) head.delete(path);
    else head.set(path, version);
    mayChange.add(path);
  }
  function checkText(path: string, version: number, text: string, served: Record<string, any>, how: string): void {
    const a = acked.get(`${path}@${version}`);
    // A config is served without its secret-looking keys, and says so: its bytes are checked on disk.
    if (a && a.content !== text && !served.redacted) findings.push(`${how} of ${path}@${version} (acknowledged at step ${a.step}) gave ${JSON.stringify(text.slice(0, 80))}, not ${JSON.stringify(a.content.slice(0, 80))}: ${lastCall}`);
  }
  const changed = (answer: Answer): answer is Answer & { structured: { version: number } } => answer.ok && typeof answer.structured.version === "number";
  /** The file as read now (its text checked against what was acknowledged for its version), or undefined. */
  async function current(path: string): Promise<{ path: string; version: number; text: string; redacted: boolean } | undefined> {
    const read = await call("bmad-files", { action: "read", path });
    if (!read.ok || typeof read.structured.version !== "number") return undefined;
    const at: string = read.structured.path ?? path;
    checkText(at, read.structured.version, read.last, read.structured, "a read");
    head.set(at, read.structured.version);
    return { path: at, version: read.structured.version, text: read.last, redacted: read.structured.redacted === true };
  }
  /** History names every version acknowledged that the bridge still keeps. */
  async function checkHistory(path: string): Promise<void> {
    const history = await wholeHistory((before) => call("bmad-files", { action: "history", path, ...(before === undefined ? {} : { version: before }) }));
    if (!history || !keptWhole(path)) return;
    const listed = new Set(history.map((v) => v.version));
    for (const v of versionsOf(path)) if (!listed.has(v)) findings.push(`${path}@${v} was acknowledged, and history leaves it out: ${lastCall}`);
  }
  /** An if_version: mostly the file's as last answered, else likely a stale one (0, an earlier version, 999). */
  function ifVersionFor(path: string): number | undefined {
    if (!chance(0.3)) return undefined;
    const now = head.get(path);
    return now !== undefined && chance(0.6) ? now : pick([0, 999, ...versionsOf(path)]);
  }
  /** A change acknowledged with an if_version the file was not at (`at`: its version before, as last answered). */
  function checkIfVersion(ifVersion: number | undefined, at: number | undefined): void {
    if (ifVersion !== undefined && at !== undefined && at !== ifVersion) findings.push(`a change made at if_version ${ifVersion}, the file being at version ${at}: ${lastCall}`);
  }

  // The lines BMAD's rendered skills hold (bmad-run), as this project's path, {project-root} and the folder's URI spell
  // it, each with the memlog it writes; and ones that name a place out of the project or into .git/.
  const WORKSPACES = ["_bmad-output/planning-artifacts", "_bmad-output/planning-artifacts/prds/prd-x", "docs/a b"];
  const memlog = (): { line: string; writes?: string } => {
    const root = pick([dir, "{project-root}", "bmad://projects/acme"]);
    const ws = pick(WORKSPACES);
    const at = ws.includes(" ") ? `"${root}/${ws}"` : `${root}/${ws}`;
    const script = `uv run ${root}/_bmad/scripts/memlog.py`;
    const init = `${script} init --workspace ${at} --field topic="PRD"`;
    const skills = [
      init,
      `${script} append --workspace ${at} --type decision --text "we chose ${pick(["postgres", "sqlite", "é🙂", "$(id)", "'quote"])}"`,
      `${script} append --workspace ${at} --type assumption --by user --text "single user, no sync"`,
      `${script} set --workspace ${at} --key status --value complete`,
      `uv run ${root}/_bmad/scripts/resolve_config.py --project-root ${root}`,
      `uv run ${root}/_bmad/scripts/resolve_customization.py --skill ${root}/.claude/skills/bmad-prd --project-root ${root} --key workflow`,
    ];
    const escaping = [
      `${script} init --workspace ${outside}`,
      `${script} init --workspace ${root}/../outside`,
      `${script} init --workspace ${root}/.git`,
      `${script} init --path .git/x.md`,
      `${script} append --path ../outside/notes.md --text "x"`,
    ];
    // A skill starts its memlog before it appends to it: mostly so here too.
    const line = disk(`${ws}/.memlog.md`) === null && chance(0.7) ? init : pick(chance(0.8) ? skills : escaping);
    return { line, ...(line.includes(`--workspace ${at}`) ? { writes: `${ws}/.memlog.md` } : {}) };
  };
  const hostileOr = (value: string) => (chance(0.07) ? pick(HOSTILE) : value);

  type Step = (path: string) => Promise<void>;
  const write: Step = async (path) => {
    const content = pick(CONTENTS) + (chance(0.5) ? `\nstep ${step}\n` : "");
    const ifVersion = ifVersionFor(path);
    const before = head.get(path);
    const answer = await call("bmad-files", { action: "write", path, content, ...(ifVersion === undefined ? {} : { if_version: ifVersion }) });
    if (!changed(answer)) return;
    const at = answer.structured.path ?? path;
    checkIfVersion(ifVersion, before);
    landed(at, content, answer.structured.version);
    ack(at, answer.structured.version, content);
    if (chance(0.3)) await checkHistory(at);
  };
  const append: Step = async (path) => {
    const before = await current(path);
    const absent = !before && disk(path) === null;
    const content = pick(APPENDS);
    const answer = await call("bmad-files", { action: "append", path, content });
    if (!changed(answer)) return;
    const at = answer.structured.path ?? path;
    // What it appended to (unknown where it was served otherwise or not read), then what it appended: read back at once.
    if (before?.redacted || (!before && !absent)) return void landed(at, disk(at), undefined);
    const next = appendedText(before?.text ?? "", content);
    landed(at, next, answer.structured.version);
    ack(at, answer.structured.version, next);
    await current(at);
  };
  const edit: Step = async (path) => {
    const before = await current(path);
    if (!before) return;
    // Mostly a stretch the file starts with (cut anywhere: half an emoji too), sometimes text it may not hold.
    const old = before.text && chance(0.8) ? before.text.slice(0, 1 + Math.floor(rnd() * before.text.length)) : pick(["# PRD", "nothing-here", "\n"]);
    const content = pick(["# PRD v2", "", "🙂", "{project-root}"]);
    const ifVersion = chance(0.3) ? pick([before.version, before.version, 999]) : undefined;
    const answer = await call("bmad-files", { action: "edit", path, old, content, ...(ifVersion === undefined ? {} : { if_version: ifVersion }) });
    if (!changed(answer)) return;
    checkIfVersion(ifVersion, before.version);
    if (before.redacted) return void landed(before.path, disk(before.path), undefined);
    const times = before.text.split(old).length - 1;
    if (times !== 1 && old !== content) findings.push(`an edit made where "old" is ${times} times: ${lastCall}`);
    const next = before.text.replace(old, () => content);
    landed(before.path, next, answer.structured.version);
    ack(before.path, answer.structured.version, next);
    await current(before.path);
  };
  const remove: Step = async (path) => {
    const ifVersion = ifVersionFor(path);
    const before = head.get(path);
    const answer = await call("bmad-files", { action: "delete", path, ...(ifVersion === undefined ? {} : { if_version: ifVersion }) });
    if (!changed(answer)) return;
    const at = answer.structured.path ?? path;
    // A delete names the version it removed, which stays readable (the bridge keeps it).
    if (before !== undefined && before !== answer.structured.version) findings.push(`a delete named version ${answer.structured.version}, the file being at ${before}: ${lastCall}`);
    checkIfVersion(ifVersion, before);
    landed(at, null, 0);
  };
  const restore: Step = async (path) => {
    const known = versionsOf(path);
    if (!known.length) return;
    const from = acked.get(`${path}@${pick(known)}`)!;
    const ifVersion = ifVersionFor(path);
    const before = head.get(path);
    const answer = await call("bmad-files", { action: "restore", path, version: from.version, ...(ifVersion === undefined ? {} : { if_version: ifVersion }) });
    if (!changed(answer)) return;
    checkIfVersion(ifVersion, before);
    landed(answer.structured.path ?? path, from.content, answer.structured.version);
    ack(answer.structured.path ?? path, answer.structured.version, from.content);
    if (chance(0.3)) await checkHistory(path);
  };
  const look: Step = async (path) => {
    const what = pick(["read", "version", "history", "list"]);
    if (what === "read") await current(path);
    else if (what === "history") await checkHistory(path);
    else if (what === "list") await call("bmad-files", { action: "list", path: pick(["**", "_bmad-output/**", "docs/*", "_bmad-output", path]) });
    else {
      if (!acked.size) return;
      const a = pick([...acked.values()]);
      const read = await call("bmad-files", { action: "read", path: a.path, version: a.version });
      if (read.ok) checkText(a.path, a.version, read.last, read.structured, "a read of the version");
      else if (keptWhole(a.path)) findings.push(`${a.path}@${a.version}, acknowledged at step ${a.step}, unreadable: ${lastCall}: ${read.text.slice(0, 200)}`);
    }
  };
  const run: Step = async () => {
    const { line, writes } = memlog();
    const command = hostileOr(line);
    await call("bmad-run", { command, ...(chance(0.3) ? { project: "acme" } : {}) });
    // The memlog the line names is the script's to write (whatever its exit code); what it holds now is what the model
    // knows of it.
    if (!writes || command !== line) return;
    if (tree.get(writes) !== stampOf(join(dir, writes))) landed(writes, disk(writes), undefined);
    mayChange.add(writes);
  };
  const render: Step = async () => void (await call("bmad", { command: pick(COMMANDS) }));
  const memory: Step = async () => {
    const agent = pick(["architect", "dev", "pm", "__proto__"]);
    const r = rnd();
    if (r < 0.5) {
      const type = pick(MEMORY_TYPES);
      const answer = await call("remember_structured", { type, agent, text: `decided ${pick(["postgres", "REST", "🙂", "NEAR(a b)"])} at ${step % 7}`, tags: chance(0.5) ? [pick(["high", "CC-FAIL"])] : [] });
      // Project memory lives in the project's files (docs/memory.md): the bridge writes its type's file.
      if (answer.ok) mayChange.add(structuredFile(type));
    } else if (r < 0.8) {
      await call("recall_structured", { query: pick(["postgres", "decided", "*", '"x', "NEAR(a b)"]), ...(chance(0.5) ? { type: pick(MEMORY_TYPES) } : {}), ...(chance(0.3) ? { agent } : {}) });
    } else if (r < 0.9) {
      await call("get_agent_memory", { agent, ...(chance(0.5) ? { query: "postgres" } : {}) });
    } else {
      await call("get_project_context", chance(0.5) ? { section: pick(["all", "decisions", "architecture"]) } : {});
    }
  };
  const KINDS: Array<[number, Step]> = [[20, write], [10, append], [8, edit], [6, remove], [6, restore], [12, look], [8, run], [4, render], [6, memory]];
  const total = KINDS.reduce((sum, [weight]) => sum + weight, 0);

  /** After each step: the bridge runs, nothing beside the project or in its .git/ changed, each file the model changed
   *  holds what it was last acknowledged to, and no other file changed but what this step's scripts write. */
  function checkFolder(): void {
    if (!processRuns(door.pid)) findings.push(`the bridge is gone after ${lastCall}: ${door.stderr().slice(-300)}`);
    for (const path of differing(beside, besideNow())) findings.push(`${path}, beside the project, changed: ${lastCall}`);
    for (const path of differing(git, gitNow())) findings.push(`.git/${path} changed: ${lastCall}`);
    const now = projectNow();
    for (const path of differing(tree, now)) if (!mayChange.has(path)) findings.push(`${path} changed, which the model did not change: ${lastCall}`);
    for (const [path, content] of onDisk) if (disk(path) !== content) findings.push(`${path} holds ${JSON.stringify(disk(path)?.slice(0, 80) ?? null)} on disk, not ${JSON.stringify(content?.slice(0, 80) ?? null)} as acknowledged: ${lastCall}`);
    tree = now;
    mayChange.clear();
  }

  try {
    for (step = 1; step <= steps && !findings.length; step++) {
      const path = hostileOr(pick([...PATHS, ...onDisk.keys()]));
      let draw = rnd() * total;
      const [, next] = KINDS.find(([weight]) => (draw -= weight) < 0) ?? KINDS[0]!;
      await next(path);
      checkFolder();
    }
    // Every version still acknowledged read back, and named in its history.
    for (const a of acked.values()) {
      if (!keptWhole(a.path)) continue;
      const read = await call("bmad-files", { action: "read", path: a.path, version: a.version });
      if (read.ok) checkText(a.path, a.version, read.last, read.structured, "the last read");
      else findings.push(`${a.path}@${a.version}, acknowledged at step ${a.step}, unreadable at the end: ${read.text.slice(0, 200)}`);
    }
    for (const path of new Set([...acked.values()].map((a) => a.path))) await checkHistory(path);
    checkFolder();
  } finally {
    await door.close();
  }
  if (process.env.BMAD_FUZZ_STATS) console.log([...outcomes].sort().map(([k, v]) => `${k}: ${v}`).join("\n"));
  return findings.slice(0, 10);
}
