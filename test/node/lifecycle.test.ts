// The planning lifecycle end to end, as a Claude.ai conversation would take it: a real MCP client on the real Worker
// over HTTP, only MCP calls, playing a literal model with a fixed script of user answers (scripts/lifecycle.ts, which
// the context bench replays too). A new project, then bmad-product-brief, bmad-prd (Create, to final), bmad-ux,
// bmad-architecture (lint_spine.py clean), bmad-create-epics-and-stories, bmad-sprint-planning (sprint_plan.py) and
// bmad-create-story for the first story. Then `bmad-mcp pull`, and BMAD's own Python on the pulled tree.
import { execFile, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { McpDoor } from "../../scripts/lifecycle-doors.js";
import { IMPL, walk, type Lifecycle } from "../../scripts/lifecycle.js";
import type { LocalWorker } from "../../scripts/local-worker.js";
import { signIn, tickedScopes } from "../../scripts/oauth-client.js";
import { PY_DEPS } from "../fixtures/runtime/python-deps.js";
import { localWorker, PKG, tempDir } from "./helpers.js";

const tmp = tempDir("lifecycle");
const PROJECT = "todo";
const SKILLS = join(PKG, "bmad-method/src/bmm-skills");
let worker: LocalWorker;
let client: Client;
let door: McpDoor;
let lifecycle: Lifecycle;

beforeAll(async () => {
  worker = await localWorker();
  const { access_token } = await signIn(fetch, worker.url.origin, { scope: "bmad:read bmad:write" });
  client = new Client({ name: "lifecycle-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", worker.url), { requestInit: { headers: { authorization: `Bearer ${access_token}` } } }));
  door = new McpDoor((name, args) => client.callTool({ name, arguments: args }) as never, PROJECT);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await worker?.dispose();
  tmp.cleanup();
});

/** A project file's frontmatter, as YAML. */
const frontmatter = (text: string) => parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(text)?.[1] ?? "") as Record<string, unknown>;

describe("the planning lifecycle with MCP calls only", () => {
  it("goes from a new project to the first story, each skill finding the phase before it", async () => {
    const created = await door.call("bmad-project create", "bmad-project", { action: "create", name: PROJECT, answers: { core: { user_name: "Ada" } } });
    expect(created.isError, created.text).toBeFalsy();
    lifecycle = await walk(door);

    // Every uv run line came from the text the skill showed (walk takes no other), ran through bmad-run, exited 0.
    expect(lifecycle.runs.map((r) => r.exit)).toEqual(lifecycle.runs.map(() => 0));
    const scripts = lifecycle.runs.map((r) => /(\w+)\.py/.exec(r.line)![1]);
    expect(scripts).toEqual(expect.arrayContaining(["memlog", "lint_spine", "sprint_plan"]));
    // Not the lines the text marks as run, their values filled in throughout (review 98: resolve_config.py's 2.7 KB).
    expect(scripts).not.toContain("resolve_config");
    // Each earlier output the skill needs is in its rendered text, with its status: no search.
    expect(lifecycle.found.filter((f) => f.how !== "listed").map((f) => `${f.phase}: ${f.path}`)).toEqual([]);
    expect(lifecycle.found.filter((f) => f.status === "final").length, JSON.stringify(lifecycle.found)).toBeGreaterThan(0);
    expect(door.ledger.filter((e) => e.call.includes("(search)"))).toEqual([]);

    const read = async (path: string) => (await door.call("read", "bmad-files", { action: "read", project: PROJECT, path })).content!.slice(1).map((c) => c.text).join("\n");
    for (const path of [...lifecycle.outputs.brief, ...lifecycle.outputs.prd, ...lifecycle.outputs.ux, ...lifecycle.outputs.architecture]) {
      expect(frontmatter(await read(path)), path).toMatchObject({ status: "final" });
    }
    expect(frontmatter(await read(lifecycle.outputs.epics[0]!))).toMatchObject({ stepsCompleted: [1, 2, 3, 4], inputDocuments: [...lifecycle.outputs.prd, ...lifecycle.outputs.architecture, ...lifecycle.outputs.ux] });
    const status = parseYaml(await read(`${IMPL}/sprint-status.yaml`)) as { project: string; development_status: Record<string, string> };
    expect(status.project).toBe(PROJECT);
    expect(status.development_status).toEqual({
      "epic-1": "in-progress",
      "1-1-add-a-todo": "ready-for-dev",
      "1-2-keep-todos-offline": "backlog",
      "epic-1-retrospective": "optional",
      "epic-2": "backlog",
      "2-1-complete-and-clear-todos": "backlog",
      "epic-2-retrospective": "optional",
    });
    expect(await read(`${IMPL}/1-1-add-a-todo.md`)).toMatch(/^# Story 1\.1: Add a todo\n\nStatus: ready-for-dev\n/);
  }, 30_000);

  it("pulls the workspace, where BMAD's own Python carries on", async () => {
    expect(lifecycle, "the walk above ran").toBeDefined();
    const dir = join(tmp.dir, "repo");
    const pulled = await pull(dir);
    expect(pulled.code, pulled.stderr).toBe(0);
    const python = (argv: string[]) =>
      promisify(execFile)("python3", argv, { cwd: dir, env: { PATH: process.env.PATH!, PYTHONPATH: PY_DEPS } }).then((r) => ({ code: 0, ...r }), (e: { code: number; stdout: string; stderr: string }) => e);

    const prdRun = join(dir, lifecycle.outputs.prd[0]!, "..");
    const appended = await python(["_bmad/scripts/memlog.py", "append", "--workspace", prdRun, "--type", "event", "--text", "pulled to a laptop"]);
    expect(appended.code, appended.stderr).toBe(0);
    expect(readFileSync(join(prdRun, ".memlog.md"), "utf8")).toMatch(/topic: Todo app[\s\S]*- \(decision\) web first; mobile later\n- \(assumption\) single user, no sync\n- \(event\) PRD finalized\n- \(event\) pulled to a laptop\n/);

    const statusFile = join(dir, IMPL, "sprint-status.yaml");
    const detected = await python([join(SKILLS, "ship/bmad-retrospective/scripts/sprint_status.py"), "detect-epic", "--file", statusFile, "--epic", "1"]);
    expect(detected.code, detected.stderr).toBe(0);
    expect(JSON.parse(detected.stdout)).toMatchObject({ epic: 1, story_count: 2, done_stories: [], retro_key: "epic-1-retrospective" });
    const validated = await python([join(SKILLS, "plan/bmad-sprint-planning/scripts/sprint_plan.py"), "validate", "--status-file", statusFile]);
    expect(validated.code, validated.stderr).toBe(0);
    expect(JSON.parse(validated.stdout)).toMatchObject({ ok: true, valid: true, problems: [] });
    // Where its stories are is a folder of the clone, not the remote's own root (review 247: /projects/<name>/…).
    const { story_location } = parseYaml(readFileSync(statusFile, "utf8")) as { story_location: string };
    expect(story_location).toBe(IMPL);
    expect(existsSync(join(dir, story_location, "1-1-add-a-todo.md"))).toBe(true);

    const resolved = await python(["_bmad/scripts/resolve_config.py", "--project-root", dir, "--key", "core.user_name", "--key", "core.project_name"]);
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(JSON.parse(resolved.stdout)).toEqual({ "core.user_name": "Ada", "core.project_name": PROJECT });
  }, 30_000);
});

/** `bmad-mcp pull` of the project into `dir`, the sign-in approved as the user's browser would (bridge-pull-push.test.ts). */
function pull(dir: string): Promise<{ code: number | null; stderr: string }> {
  const remote = new URL("/mcp", worker.url).href;
  const env = { PATH: process.env.PATH!, HOME: tmp.dir, XDG_CONFIG_HOME: join(tmp.dir, "config"), BMAD_MCP_BROWSER: "none" };
  const child = spawn(process.execPath, [inject("bridge"), "pull", "--remote", remote, "--project", PROJECT, "--dir", dir], { env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  const approving: Array<Promise<void>> = [];
  child.stderr.on("data", (d) => {
    const before = stderr;
    stderr += d;
    const link = /sign in to \S+ in your browser: (\S+)/.exec(stderr)?.[1];
    if (link && !/sign in to \S+ in your browser: \S+/.test(before)) approving.push(approve(link));
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => void Promise.all(approving).then(() => resolve({ code, stderr }), reject));
  });
}

async function approve(authorizeUrl: string): Promise<void> {
  const consent = await fetch(authorizeUrl, { redirect: "manual" });
  const cookie = consent.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const page = await consent.text();
  const handle = /name="handle" value="([^"]+)"/.exec(page)?.[1];
  if (!handle) throw new Error(`no consent form at ${authorizeUrl}`);
  const approved = await fetch(new URL("/authorize", authorizeUrl), {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: new URL(authorizeUrl).origin },
    body: new URLSearchParams([["handle", handle], ["decision", "approve"], ...tickedScopes(page).map((scope) => ["scope", scope])]),
  });
  await (await fetch(approved.headers.get("location")!)).text();
}
