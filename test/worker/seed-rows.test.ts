// Seed rows (docs/seeds.md) whose core code the bridge's tests prove, proven again on the Worker in workerd through a
// real SDK client signed in through the real OAuth flow, called the way the seeds call it. Tasks, knowledge and the
// seed's qa, sm and tech-writer are not in 6.12: those run against a classic bundle (bmad-method 6.0.4's source tree,
// built by global-setup.ts), seeded the way bundle:upload seeds one and put back afterwards.
import { Client, StreamableHTTPClientTransport, type CallToolResult } from "@modelcontextprotocol/client";
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { withBearer } from "../../scripts/oauth-client.js";
import { shortName } from "../../src/core/catalog/names.js";
import { Catalog } from "../../src/core/catalog/catalog.js";
import { RESOURCE, TOOL } from "../../src/core/surface/names.js";
import { ORIGIN, text, workerFetch } from "./client.js";
import { seedBundle } from "./seed.js";
import { bundle, catalog, fileText, seed } from "./setup.js";
import { signInAs, unique, type Person } from "./workspace-users.js";

let person: Person;
let client: Client;

/** The person's client on /mcp with the proxy and memory toolsets too. */
async function connectWith(token: string): Promise<Client> {
  const c = new Client({ name: "seed-rows-test", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp?toolsets=default,proxy,memory`), { fetch: withBearer(workerFetch, token) }));
  return c;
}

async function call(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean; structured: Record<string, any> }> {
  const out = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { text: text(out), isError: out.isError === true, structured: (out.structuredContent ?? {}) as Record<string, any> };
}

const read = async (uri: string) => ((await client.readResource({ uri })).contents[0] as { text: string }).text;

beforeAll(async () => {
  await seed();
  person = await signInAs(`${unique("seed-rows")}@example.com`);
  client = await connectWith(person.token);
});

describe("the default bundle", () => {
  it("gives get_agent_memory's last_n newest learnings of a workspace", async () => {
    const project = unique("learn");
    await person.project({ action: "create", name: project });
    const learnings = "# Dev learnings\n\n## 2026-01-10\n- Run migrations before deploying.\n\n## 2026-02-14\n- Mock nothing the tests can run for real.\n\n## 2026-03-02\n- Tax is rounded per line item.\n";
    expect((await person.files({ action: "write", project, path: "_bmad/_memory/agent-learnings/dev.md", content: learnings })).isError).toBe(false);
    const newest = await call(TOOL.getAgentMemory, { project, agent: "dev", last_n: 2 });
    expect(newest.isError, newest.text).toBe(false);
    expect(newest.structured.learnings.map((l: { text: string }) => l.text)).toEqual(["Tax is rounded per line item.", "Mock nothing the tests can run for real."]);
    expect(newest.structured.total).toBe(3);
    // A count is a whole number, as every other count's (review 399: 1.5 was taken).
    expect((await call(TOOL.getAgentMemory, { project, agent: "dev", last_n: 1.5 })).isError).toBe(true);
  });

  it("gives get_failure_museum's top_n most critical failures first", async () => {
    const project = unique("museum");
    await person.project({ action: "create", name: project });
    const museum = [
      "# Failure museum",
      "## PROCESS-SKIP: skipped the retro\nseverity: low\nThe same problem came back.",
      "## HALLUCINATION: invented an API\nseverity: critical\nThe method did not exist.",
      "## CC-FAIL: merged with tests skipped\nseverity: high\nThe build broke.",
      "## WRONG-ASSUMPTION: assumed UTC\nseverity: medium\nTimes were off.",
    ].join("\n\n");
    await person.files({ action: "write", project, path: "_bmad/_memory/failure-museum.md", content: `${museum}\n` });
    const top = await call(TOOL.getFailureMuseum, { project, top_n: 2 });
    expect(top.isError, top.text).toBe(false);
    expect(top.structured.failures.map((f: { category: string; severity: string }) => `${f.category}/${f.severity}`)).toEqual(["HALLUCINATION/critical", "CC-FAIL/high"]);
    expect((await call(TOOL.getFailureMuseum, { project })).structured.failures).toHaveLength(4);
  });

  it("reads bmad://manifests/workflows: a classic row per workflow", async () => {
    const rows = (await read(`${RESOURCE.manifestPrefix}workflows`)).trim().split("\n");
    expect(rows[0]).toBe("name,description,module,path");
    expect(rows).toHaveLength(1 + catalog.list("workflow").length);
    const prd = catalog.list("workflow").find((w) => w.name === "bmad-prd")!;
    expect(rows).toContain(`"bmad-prd","${prd.description!.replace(/"/g, '""')}","bmm","bmm/bmad-prd/SKILL.md"`);
  });

  it("runs a workflow for a workspace with bmad-workflow, its context under a Context heading", async () => {
    const project = unique("context");
    await person.project({ action: "create", name: project });
    const context = "target_platform: web, team_size: 5, timeline: 3_months";
    const out = await call(TOOL.bmadWorkflow, { workflow: "prd", context, project });
    expect(out.isError, out.text).toBe(false);
    expect(out.text).toMatch(/^# BMAD workflow: bmm\/prd /);
    expect(out.text).toContain(`## bmm/bmad-prd/SKILL.md\n\`\`\`markdown\n${fileText("bmm/bmad-prd/SKILL.md").split("\n## ")[0]}`);
    expect(out.text).toContain(`## Context\n${context}`);
    expect((await call(TOOL.bmadWorkflow, { workflow: "prd", project })).text).not.toContain("## Context");
  });
});

describe("BMAD's own files", () => {
  it("are never written: not by bmad-files, not by a script bmad-run runs, not by a skill-root path", async () => {
    const project = unique("readonly");
    await person.project({ action: "create", name: project });
    const skill = "bmad://bmm/bmad-prd/SKILL.md";
    const before = await read(skill);
    const write = await call(TOOL.bmadFiles, { action: "write", project, path: skill, content: "planted" });
    expect(write).toMatchObject({ isError: true, text: expect.stringContaining("is BMAD's file, not the project's") });
    const init = await call(TOOL.bmadRun, { command: "uv run {project-root}/_bmad/scripts/memlog.py init --workspace bmad://bmm/bmad-prd", project });
    expect(init).toMatchObject({ isError: true, text: expect.stringContaining("is BMAD's own content and read-only") });
    const skillRoot = await call(TOOL.bmadFiles, { action: "write", project, path: "{skill-root}/SKILL.md", content: "planted" });
    expect(skillRoot.isError).toBe(true);
    expect(await read(skill)).toBe(before);
    expect(await read("bmad://bmm/bmad-prd/.memlog.md").then(() => "served", () => "absent")).toBe("absent");
  });
});

describe("a classic bundle (bmad-method 6.0.4)", () => {
  const classic = inject("classicBundle");
  const classicCatalog = new Catalog(classic.manifest);
  let moves = 0;

  /** Test files share one isolate, which keeps the bundle pointer it read for a few seconds: moves the clock past
   *  that and makes one request, so the isolate serves the bundle seeded last from now on. */
  async function servePointer(): Promise<void> {
    vi.setSystemTime(Date.now() + (moves += 1) * 60_000);
    await client.listTools();
    vi.useRealTimers();
  }

  beforeAll(async () => {
    await seedBundle(env, classic);
    await servePointer();
  });
  // The next test file may run in this same isolate: it gets the bundle every other file has.
  afterAll(async () => {
    await seedBundle(env, bundle);
    await servePointer();
  });

  it("lists the bundle's tasks and runs one with its params, and reads bmad://manifests/tasks", async () => {
    const tasks = classicCatalog.list("task");
    expect(tasks.length).toBeGreaterThan(0);
    const listed = await call(TOOL.listTasks, {});
    expect(listed.structured.tasks.map((t: { module: string; name: string }) => `${t.module}/${t.name}`)).toEqual(tasks.map((t) => `${t.module}/${t.name}`));
    const shard = tasks.find((t) => t.name === "shard-doc")!;
    const out = await call(TOOL.executeTask, { task_name: "shard-doc", params: { document: "docs/prd.md" } });
    expect(out.isError, out.text).toBe(false);
    expect(out.text).toContain(classic.blobs[classicCatalog.file(shard.entry)!.sha256]!);
    expect(out.text).toContain('## Parameters\n{"document":"docs/prd.md"}');
    const unknown = await call(TOOL.executeTask, { task_name: "shard-docs" });
    expect(unknown).toMatchObject({ isError: true, text: expect.stringMatching(/Closest: .*shard-doc/) });

    const rows = (await read(`${RESOURCE.manifestPrefix}tasks`)).trim().split("\n");
    expect(rows[0]).toBe("name,displayName,description,module,path,standalone");
    expect(rows).toHaveLength(1 + tasks.length);
    expect(rows).toContainEqual(expect.stringMatching(/^"shard-doc",.*,"core","core\/tasks\/shard-doc\.xml","true"$/));
  });

  it("loads a knowledge domain, and names the domains there are for one it lacks", async () => {
    const missing = await call(TOOL.getKnowledge, { domain: "testarch" });
    expect(missing).toMatchObject({ isError: true, text: expect.stringMatching(/^Unknown knowledge domain "testarch"\..* Domains: bmm\.$/) });
    const knowledge = classicCatalog.list("knowledge").find((k) => k.name === "bmm")!;
    const bmm = await call(TOOL.getKnowledge, { domain: "bmm" });
    expect(bmm.isError, bmm.text).toBe(false);
    for (const path of knowledge.files) expect(bmm.text).toContain(`## ${path}\n`);
    expect(bmm.text).toContain(classic.blobs[classicCatalog.file(knowledge.entry)!.sha256]!);
  });

  it("delegates to the seed's analyst, architect, qa, sm and tech-writer with their personas", async () => {
    for (const agent_id of ["analyst", "architect", "qa", "sm", "tech-writer"]) {
      const agent = classicCatalog.list("agent").find((a) => shortName(a) === agent_id)!;
      const out = await call(TOOL.delegateToAgent, { agent_id, task: "Summarise the project in one line." });
      expect(out.isError, `${agent_id}: ${out.text}`).toBe(false);
      // This client does not offer sampling: it gets the persona-framed task to run itself.
      expect(out.text, agent_id).toContain(`## Persona: ${agent.displayName}, ${agent.title} `);
      expect(out.text, agent_id).toContain("## Task\nTask: Summarise the project in one line.");
    }
  });
});
