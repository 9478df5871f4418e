// Seed rows (docs/seeds.md) whose core code the Worker's tests prove, proven again on the bridge: the built bridge
// spawned over stdio in a real installed project, called the way the seeds call it. One bridge on a 6.12 project
// with the opt-in proxy and agents toolsets and BMAD v4's bmad-core as a --path root (agents of the same names in
// another module); one on a classic 6.0.4 project, which has tasks, knowledge and the seed's qa, sm and tech-writer.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { SessionView } from "../../src/core/delivery/view.js";
import { RESOURCE, TOOL } from "../../src/core/surface/names.js";
import { connectBridge, csvRows, install, PKG, tempDir, toolText } from "./helpers.js";

const tmp = tempDir("seed-rows");
afterAll(() => tmp.cleanup());

type Bridge = Awaited<ReturnType<typeof connectBridge>>;
const read = async (client: Client, uri: string) => ((await client.readResource({ uri })).contents[0] as { text: string; mimeType?: string }).text;
const structured = <T>(result: unknown) => (result as { structuredContent: T }).structuredContent;

/** A tool call on the client `get` gives once it is connected: its text, whether it failed, and the result. */
const caller = (get: () => Client) => async (name: string, args: Record<string, unknown>) => {
  const result = await get().callTool({ name, arguments: args });
  return { text: toolText(result), isError: result.isError === true, result };
};

describe("a 6.12 project, --toolsets default,proxy,agents --path bmad-core", () => {
  const dir = join(tmp.dir, "v612");
  const TEMPLATE = ".claude/skills/bmad-prd/assets/prd-template.md";
  const MARKER = "Our team's own PRD template.";
  let bridge: Bridge;
  let client: Client;
  const call = caller(() => client);

  beforeAll(async () => {
    await install("v6.12", dir);
    writeFileSync(join(dir, TEMPLATE), `# PRD\n${MARKER}\n`);
    bridge = await connectBridge(inject("bridge"), dir, { args: ["--toolsets", "default,proxy,agents", "--path", join(PKG, "bmad-v4/bmad-core")] });
    client = bridge.client;
  }, 120_000);
  afterAll(() => bridge?.close());

  it("lists workflows by category, details one, and executes it from its raw files with its params", async () => {
    const planning = structured<{ workflows: Array<{ name: string; category: string }> }>((await call(TOOL.listWorkflows, { category: "planning" })).result).workflows;
    expect(planning.length).toBeGreaterThan(0);
    expect(planning.every((w) => w.category === "planning")).toBe(true);
    expect(planning.map((w) => w.name)).toContain("prd");
    const all = structured<{ workflows: unknown[] }>((await call(TOOL.listWorkflows, {})).result).workflows;
    expect(all.length).toBeGreaterThan(planning.length);
    const details = (await call(TOOL.getWorkflowDetails, { workflow_name: "prd" })).text;
    expect(details).toContain("bmm/bmad-prd from project");
    expect(details).toContain("bmad://bmm/bmad-prd/SKILL.md");
    const run = (await call(TOOL.executeWorkflow, { workflow_name: "bmm/prd", params: { fast: true } })).text;
    expect(run).toContain("## bmm/bmad-prd/SKILL.md");
    expect(run).toContain(readFileSync(join(dir, ".claude/skills/bmad-prd/SKILL.md"), "utf8").split("\n## ")[1]!.split("{")[0]);
    expect(run).toContain('## Parameters\n{"fast":true}');
  });

  it("runs a workflow by name with bmad-workflow, its context under a Context heading", async () => {
    const context = "Create a PRD for a task management app";
    const out = await call(TOOL.bmadWorkflow, { workflow: "prd", context });
    expect(out.isError, out.text).toBe(false);
    // The project's copy wins over BMAD's embedded one, and says so here as the bmad tool does (review 422).
    expect(out.text).toMatch(/^Resolved bmm\/bmad-prd from project \(priority 1, [^)]*\)\. Also available: bmm\/bmad-prd from package \(priority 5, [^)]*\)\.\n\n# BMAD workflow: bmm\/prd /);
    expect(out.text).toContain("\nOrigin: project (priority 1, ");
    expect(out.text).toContain(`## Context\n${context}`);
    expect((await call(TOOL.bmadWorkflow, { workflow: "*prd" })).text).not.toContain("## Context");
  });

  it("adds one tool per agent, named like its prompt, each taking a message", async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["bmad-analyst", "bmad-architect", "bmad-dev", "bmad-pm", "bmad-ux-designer"]));
    const out = await call("bmad-pm", { message: "Draft a PRD for a todo app" });
    expect(out.isError, out.text).toBe(false);
    expect(out.text).toContain("## User message\nDraft a PRD for a todo app");
    expect(out.text).toContain("bmm/bmad-agent-pm/SKILL.md");
  });

  it("shows modules with bmad-resources", async () => {
    const modules = (await call(TOOL.bmadResources, { operation: "modules" })).text;
    expect(modules).toMatch(/^bmm: 5 agents, \d+ workflows/m);
    expect(modules).toMatch(/^core: /m);
  });

  it("lists every file once across pages after the generated resources, and reads the manifests and the config", async () => {
    const uris: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listResources(cursor ? { cursor } : {});
      uris.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBeGreaterThan(1);
    expect(uris.slice(0, 5)).toEqual([`${RESOURCE.manifestPrefix}agents`, `${RESOURCE.manifestPrefix}workflows`, `${RESOURCE.manifestPrefix}tasks`, `${RESOURCE.manifestPrefix}skills`, RESOURCE.configCurrent]);
    expect(new Set(uris).size).toBe(uris.length);
    expect(uris).toContain("bmad://bmm/bmad-prd/assets/prd-template.md");

    const agents = (await read(client, `${RESOURCE.manifestPrefix}agents`)).trim().split("\n");
    expect(agents[0]).toBe("name,displayName,title,icon,capabilities,role,identity,communicationStyle,principles,module,path");
    expect(agents.slice(1).map((l) => l.split(",")[0])).toEqual(expect.arrayContaining(['"bmad-agent-pm"', '"bmad-agent-architect"']));
    const workflows = (await read(client, `${RESOURCE.manifestPrefix}workflows`)).trim().split("\n");
    expect(workflows[0]).toBe("name,description,module,path");
    expect(workflows).toContainEqual(expect.stringMatching(/^"bmad-prd",".+","bmm","bmm\/bmad-prd\/SKILL\.md"$/));
    const config = JSON.parse(await read(client, RESOURCE.configCurrent)) as Record<string, Record<string, unknown>>;
    expect(config.core?.output_folder).toBeDefined();
  });

  it("serves the project's copy of a supporting file over the embedded one", async () => {
    const uri = "bmad://bmm/bmad-prd/assets/prd-template.md";
    expect(await read(client, uri)).toBe(`# PRD\n${MARKER}\n`);
    expect((await call(TOOL.bmadResources, { operation: "read", uri })).text).toBe(`# PRD\n${MARKER}\n`);
  });

  it("lists deeper files as bmad:// links instead of inlining them", async () => {
    const out = (await call(TOOL.bmad, { command: "*prd" })).text;
    // Named by its path from the skill's root where the text names it (the block says where those resolve), else listed.
    expect(out).toMatch(/`assets\/prd-template\.md`|bmad:\/\/bmm\/bmad-prd\/assets\/prd-template\.md/);
    expect(out).not.toContain(MARKER);
  });

  it("marks content tools read-only and the tools that change state not", async () => {
    const writers: string[] = [TOOL.bmadTask, TOOL.spawnSubagentTask, TOOL.runCompletionContract, TOOL.bmadRun, TOOL.bmadProject, TOOL.bmadFiles];
    const { tools } = await client.listTools();
    for (const t of tools) expect(t.annotations?.readOnlyHint, t.name).toBe(!writers.includes(t.name));
    for (const content of [TOOL.bmad, TOOL.bmadWorkflow, TOOL.bmadResources, TOOL.listWorkflows, TOOL.executeWorkflow, "bmad-pm"]) expect(tools.map((t) => t.name)).toContain(content);
  });

  it.each(["bmad://../x", "bmad://bmm/../../etc/passwd", "bmad://%2e%2e/x", "bmad://bmm/%2E%2E/%2e%2e/x", "bmad:///etc/passwd", "bmad://bmm\\..\\x", "bmad://bmm/%00", "file:///etc/%ZZ"])(
    "refuses %s via resources/read and bmad-resources",
    async (uri) => {
      await expect(client.readResource({ uri })).rejects.toThrow(/Refused|must start with bmad/);
      const out = await call(TOOL.bmadResources, { operation: "read", uri });
      expect(out.isError).toBe(true);
      expect(out.text).toMatch(/Refused/);
    },
  );

  it("keeps the short names for the project's agents and qualifies bmad-core's by module", async () => {
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(prompts).toEqual(expect.arrayContaining(["bmad-analyst", "bmad-pm", "bmad-bmad-core-analyst", "bmad-bmad-core-pm", "bmad-po"]));
    const text = async (name: string) => (await client.getPrompt({ name })).messages.map((m) => (m.content as { text?: string }).text ?? "").join("\n");
    expect(await text("bmad-pm")).toContain("bmm/bmad-agent-pm/SKILL.md");
    expect(await text("bmad-bmad-core-pm")).toContain(readFileSync(join(PKG, "bmad-v4/bmad-core/agents/pm.md"), "utf8").split("\n").find((l) => l.includes("name:"))!);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(["bmad-pm", "bmad-bmad-core-pm"]));
  });

  it("walks a delivery session: both engines, confirm_save, approval, sprint scope, earlier artifacts, status and the answer fields", async () => {
    const task = async (args: Record<string, unknown>) => {
      const out = await call(TOOL.bmadTask, args);
      expect(out.isError, out.text).toBe(false);
      return structured<SessionView>(out.result);
    };
    const json = (value: unknown) => JSON.stringify(value);
    let view = await task({ action: "start", objective: "Build user authentication, use codex too" });
    expect(view).toMatchObject({ current_stage: "po", current_state: "generating", requires_user_confirmation: true, interaction_type: "awaiting_generation", engines: ["claude", "codex"] });
    expect(view.user_message).toEqual(expect.any(String));
    const id = view.session_id;
    // status: the light state, without the role prompt; get_workflow_status carries it, to resume from.
    const status = await task({ action: "status", session_id: id });
    expect(status).toMatchObject({ session_id: id, current_stage: "po", current_state: "generating" });
    expect(status.role_prompt).toBeUndefined();
    const resume = structured<SessionView>((await call(TOOL.getWorkflowStatus, {})).result);
    expect(resume).toMatchObject({ session_id: id, current_state: "generating", role_prompt: view.role_prompt });

    const claude = json({ prd_draft: "# PRD draft (claude)", quality_score: 72, questions: [{ id: "q1", question: "Which identity providers?" }] });
    view = await task({ action: "submit", session_id: id, claude_result: claude, codex_result: json({ prd_draft: "# PRD (codex)", quality_score: 64 }) });
    expect(view).toMatchObject({ current_state: "clarifying", score: 72, pending_user_actions: ["answer"] });
    expect((await task({ action: "status", session_id: view.task_name })).current_state).toBe("clarifying");

    await task({ action: "answer", session_id: id, answers: { q1: "GitHub" } });
    view = await task({ action: "submit", session_id: id, claude_result: json({ prd_updated: "# PRD\nSign in with GitHub.", quality_score: 93 }) });
    expect(view).toMatchObject({ current_state: "awaiting_confirmation", requires_user_confirmation: true, interaction_type: "user_decision", pending_user_actions: ["confirm", "reject"] });
    expect(view.user_message).toContain("confirm");
    view = await task({ action: "confirm_save", session_id: id });
    expect(view).toMatchObject({ current_stage: "architect", current_state: "generating", engines: ["claude", "codex"] });
    expect(view.role_prompt).toContain("# PRD\nSign in with GitHub."); // the PRD, which the architect reads

    view = await task({ action: "submit", session_id: id, claude_result: "# Architecture\nQuality Score: 95/100" });
    view = await task({ action: "confirm_save", session_id: id });
    expect(view.current_stage).toBe("sm");
    view = await task({ action: "submit", session_id: id, claude_result: "# Sprint plan\nSprint 1: login. Sprint 2: MFA." });
    expect(view).toMatchObject({ current_state: "awaiting_approval", pending_user_actions: ["approve", "reject"] });
    view = await task({ action: "approve", session_id: id });
    expect(view).toMatchObject({ current_stage: "dev", pending_user_actions: ["specify_sprint_scope_then_generate"], engines: ["codex"] });
    expect(view.role_prompt).toContain("- Sprint 1: login");
    expect(view.role_prompt).toContain("# Architecture");
    expect(readFileSync(join(dir, ".claude/specs", view.task_name, "02-system-architecture.md"), "utf8")).toBe("# Architecture\nQuality Score: 95/100");
  });
});

describe("a classic 6.0.4 project, --toolsets default,proxy,memory", () => {
  const dir = join(tmp.dir, "v604");
  let bridge: Bridge;
  let client: Client;
  const call = caller(() => client);

  beforeAll(async () => {
    await install("v6.0", dir);
    bridge = await connectBridge(inject("bridge"), dir, { args: ["--toolsets", "default,proxy,memory"] });
    client = bridge.client;
  }, 120_000);
  afterAll(() => bridge?.close());

  it("lists the tasks of the project's task manifest and runs one with its params", async () => {
    const manifest = csvRows(join(dir, "_bmad/_config/task-manifest.csv"));
    const tasks = structured<{ tasks: Array<{ name: string; module: string }> }>((await call(TOOL.listTasks, {})).result).tasks;
    expect(tasks.map((t) => `${t.module}/${t.name}`).sort()).toEqual(manifest.map((r) => `${r.module}/${r.name}`).sort());
    const out = await call(TOOL.executeTask, { task_name: "shard-doc", params: { document: "docs/prd.md" } });
    expect(out.isError, out.text).toBe(false);
    expect(out.text).toMatch(/^# BMAD task: core\/shard-doc /);
    expect(out.text).toContain("\nOrigin: project (priority 1, ");
    expect(out.text).toContain(readFileSync(join(dir, "_bmad/core/tasks/shard-doc.xml"), "utf8").split("\n")[0]);
    expect(out.text).toContain('## Parameters\n{"document":"docs/prd.md"}');
    const rows = (await read(client, `${RESOURCE.manifestPrefix}tasks`)).trim().split("\n");
    expect(rows[0]).toBe("name,displayName,description,module,path,standalone");
    expect(rows).toContainEqual(expect.stringMatching(/^"shard-doc",.*,"core","core\/tasks\/shard-doc\.xml","true"$/));
  });

  it("loads a knowledge domain, and names the domains there are for one it lacks", async () => {
    const missing = await call(TOOL.getKnowledge, { domain: "testarch" });
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/^Unknown knowledge domain "testarch"\..* Domains: bmm\.$/);
    const bmm = await call(TOOL.getKnowledge, { domain: "bmm" });
    expect(bmm.isError, bmm.text).toBe(false);
    expect(bmm.text).toContain(`## bmm/data/project-context-template.md\n\`\`\`markdown\n${readFileSync(join(dir, "_bmad/bmm/data/project-context-template.md"), "utf8")}`);
  });

  it("delegates to the seed's analyst, architect, qa, sm and tech-writer with their personas", async () => {
    const agents = new Map(csvRows(join(dir, "_bmad/_config/agent-manifest.csv")).map((r) => [r.name, r]));
    for (const agent_id of ["analyst", "architect", "qa", "sm", "tech-writer"]) {
      const out = await call(TOOL.delegateToAgent, { agent_id, task: "Summarise the project in one line." });
      expect(out.isError, `${agent_id}: ${out.text}`).toBe(false);
      // A client without sampling gets the persona-framed task to run itself.
      expect(out.text, agent_id).toContain(`## Persona: ${agents.get(agent_id)!.displayName}, ${agents.get(agent_id)!.title} `);
      expect(out.text, agent_id).toContain("## Task\nTask: Summarise the project in one line.");
    }
  });
});
