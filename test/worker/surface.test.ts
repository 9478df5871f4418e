import type { Client } from "@modelcontextprotocol/client";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { shortName } from "../../src/core/catalog/names.js";
import { TOOL } from "../../src/core/surface/names.js";
import { deepFreeze, surfaceFor } from "../../src/core/surface/surface.js";
import { parseToolsets } from "../../src/core/surface/toolsets.js";
import { currentBundle } from "../../src/worker/bundle-store.js";
import { connect, text } from "./client.js";
import { catalog, fileText, seed } from "./setup.js";
import { signInAs, unique, type Person } from "./workspace-users.js";

let client: Client;

beforeAll(async () => {
  await seed();
  client = await connect("?toolsets=default,proxy");
});


describe("tools/list", () => {
  it("serves exactly the default toolsets' tools, read-only unless they change state, within 8 KB", async () => {
    const fresh = await connect();
    // Its instructions say where a first call goes (review 117),
    // and, for a user who does not know which workflow, where BMAD's help skill is (review 254).
    expect(fresh.getInstructions()).toContain("To start: a project (bmad-project list, or create), then bmad-workflow with it (e.g. prd), and follow its text; bmad-workflow help says where to start; returning, get_workflow_status says where each project stands.");
    // No completion contract here: it runs where the project's files are, the bridge (review 399).
    expect(fresh.getInstructions()).toContain("\nkit: project context, runs and sessions, sub-task queue.\n");
    const listed = await fresh.listTools();
    // Written out: the default a first-time user gets (seed-002 proxy tools are opt-in; run_completion_contract is the
    // bridge's, where the project's files are).
    const expected = ["bmad", "bmad-workflow", "bmad-resources", "bmad-task", "get_project_context", "get_workflow_status", "list_sessions", "spawn_subagent_task", "bmad-run", "bmad-project", "bmad-files"];
    expect(listed.tools.map((t) => t.name)).toEqual(expected);
    const writers: string[] = [TOOL.bmadTask, TOOL.spawnSubagentTask, TOOL.runCompletionContract, TOOL.bmadRun, TOOL.bmadProject, TOOL.bmadFiles];
    for (const t of listed.tools) expect(t.annotations?.readOnlyHint, t.name).toBe(!writers.includes(t.name));
    // As a client receives it: the JSON-RPC answer, envelope included (what the bench counts).
    expect(new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: 1, result: listed })).length).toBeLessThanOrEqual(8 * 1024);
  });

  it("offers delegate_to_agent no list of agents this bundle may not have (review 399: three of the seed's five were refused)", async () => {
    const memory = await connect("?toolsets=memory");
    const delegate = (await memory.listTools()).tools.find((t) => t.name === TOOL.delegateToAgent)!;
    expect((delegate.inputSchema.properties as Record<string, unknown>).agent_id).toEqual({ type: "string", description: "Agent, e.g. architect or bmm/dev" });
  });

  it("lists bmad-doc with a workspace's versions and no git commits, and still refuses a commit sent anyway (review 399)", async () => {
    const views = await connect("?toolsets=default,views");
    const doc = (await views.listTools()).tools.find((t) => t.name === TOOL.bmadDoc)!;
    expect(Object.keys(doc.inputSchema.properties ?? {})).toEqual(["project", "path", "version", "before"]);
    expect(doc.inputSchema.properties?.before).toMatchObject({ type: "integer" });
    expect(doc.description).not.toMatch(/bridge|commit/);
    const project = unique("doc-door");
    expect((await views.callTool({ name: TOOL.bmadProject, arguments: { action: "create", name: project } })).isError).not.toBe(true);
    expect((await views.callTool({ name: TOOL.bmadFiles, arguments: { action: "write", project, path: "docs/prd.md", content: "# PRD" } })).isError).not.toBe(true);
    const atCommit = await views.callTool({ name: TOOL.bmadDoc, arguments: { project, path: "docs/prd.md", commit: "a".repeat(40) } });
    expect(atCommit.isError).toBe(true);
    expect(text(atCommit)).toMatch(/^"commit" names a git commit of a project folder on the bridge; .* keeps its own versions: pass "version"/);
  });

  it("adds one tool per agent, named like its prompt, with ?toolsets=agents", async () => {
    const agents = await connect("?toolsets=agents");
    const names = (await agents.listTools()).tools.map((t) => t.name);
    // Written out: bmad-method 6.12's five agents, each the only one of its name, so the short name.
    expect(names).toEqual(["bmad-analyst", "bmad-architect", "bmad-dev", "bmad-pm", "bmad-ux-designer"]);
    const reply = await agents.callTool({ name: "bmad-pm", arguments: { message: "Draft a PRD for a todo app" } });
    expect(text(reply)).toContain(fileText("bmm/bmad-agent-pm/SKILL.md"));
    expect(text(reply)).toContain("Draft a PRD for a todo app");
  });
});

describe("the bmad tool", () => {
  // A user with no workspace is told how to make one, and gets a workflow that writes rendered for it (see workspace-runtime).
  let newcomer: Person;
  let project: string;
  beforeAll(async () => {
    newcomer = await signInAs(`${unique("surface")}@example.com`);
    project = unique("surface");
  });

  it("loads an agent by short, full and module-qualified name and says which origin won", async () => {
    for (const command of ["architect", "bmad-agent-architect", "bmm/architect"]) {
      const out = text(await client.callTool({ name: TOOL.bmad, arguments: { command } }));
      expect(out).toMatch(/^# BMAD agent: bmm\/architect\b[^]*?\nOrigin: package \(priority 5, bmad-method@/);
      expect(out).toContain(fileText("bmm/bmad-agent-architect/SKILL.md"));
      expect(out).toContain(fileText("bmm/bmad-agent-architect/customize.toml"));
    }
  });

  it("runs workflows with * and lists everything on an empty command", async () => {
    expect((await newcomer.call(TOOL.bmad, { command: "*prd" })).text).toContain("Its files as BMAD ships them: bmad://bmm/bmad-prd/SKILL.md.");
    expect((await newcomer.project({ action: "create", name: project })).isError).toBe(false);
    expect((await newcomer.call(TOOL.bmad, { command: "*prd", project })).text).toContain("## bmm/bmad-prd/SKILL.md\n```markdown\n---\nname: bmad-prd\n");
    expect((await newcomer.call(TOOL.bmad, { command: "*core/brainstorming" })).text).toContain("bmad-brainstorming");
    const all = text(await client.callTool({ name: TOOL.bmad, arguments: { command: "" } }));
    for (const a of catalog.list("agent")) expect(all).toContain(`${a.module}/${shortName(a)}`);
    // A bundle without tasks lists no empty "Tasks:" line (review 147).
    expect(all).not.toContain("Tasks:");
  });

  it("lists what BMAD's default install installs, leaving out its deprecated shims, and still loads one by name", async () => {
    const all = text(await client.callTool({ name: TOOL.bmad, arguments: { command: "" } }));
    // Written out: bmad-method 6.12's workflows but the 21 SKILL.md folders marked `metadata: { lifecycle: shim }`
    // (bmm/domain-research, bmm/create-prd, core/editorial-review, ...), which its installer leaves out unless --shims.
    expect(all.match(/^Workflows: (.*)$/m)![1]!.split(", ")).toEqual([
      "*bmm/architecture", "*bmm/build", "*bmm/build-auto", "*bmm/code-review", "*bmm/correct-course", "*bmm/create-epics-and-stories",
      "*bmm/prd", "*bmm/prfaq", "*bmm/product-brief", "*bmm/project-context", "*bmm/qa-generate-e2e-tests", "*bmm/retrospective",
      "*bmm/spec", "*bmm/sprint-planning", "*bmm/ux", "*bmm/walkthrough", "*core/advanced-elicitation", "*core/brainstorming",
      "*core/customize", "*core/deep-recon", "*core/forge-idea", "*core/help", "*core/party-mode", "*core/review",
    ]);
    // An old invocation still loads the shim, whose own text says where it went.
    const old = (await newcomer.call(TOOL.bmad, { command: "*domain-research", project })).text;
    expect(old).toMatch(/\nOrigin: package \(priority 5, bmad-method@/);
    expect(old).toContain("DEPRECATED — forwards to bmad-deep-recon (domain type)");
    expect(old).toContain("`bmad-domain-research` is deprecated and forwards to `bmad-deep-recon` with the domain type.");
  });

  it("lists deeper files as bmad:// links instead of inlining them", async () => {
    const out = (await newcomer.call(TOOL.bmad, { command: "*prd", project })).text;
    // Named by its path from the skill's root where the text names it (the block says where those resolve), else listed.
    expect(out).toMatch(/`assets\/prd-template\.md`|bmad:\/\/bmm\/bmad-prd\/assets\/prd-template\.md/);
    expect(out).not.toContain(fileText("bmm/bmad-prd/assets/prd-template.md"));
  });
});

describe("proxy tools", () => {
  it("lists workflows with structured content, filtered by module and category", async () => {
    const all = await client.callTool({ name: TOOL.listWorkflows, arguments: {} });
    const workflows = (all.structuredContent as { workflows: Array<{ name: string; module: string; category: string }> }).workflows;
    expect(workflows.length).toBe(catalog.list("workflow").length);
    const core = await client.callTool({ name: TOOL.listWorkflows, arguments: { module: "core" } });
    expect((core.structuredContent as { workflows: unknown[] }).workflows.length).toBe(catalog.list("workflow").filter((w) => w.module === "core").length);
    const planning = await client.callTool({ name: TOOL.listWorkflows, arguments: { category: "planning" } });
    const planned = (planning.structuredContent as { workflows: Array<{ name: string; category: string }> }).workflows;
    expect(planned.every((w) => w.category === "planning")).toBe(true);
    expect(planned.map((w) => w.name)).toContain("prd"); // module-help.csv says phase 2-planning
  });

  it("details and executes a workflow from its raw files", async () => {
    const details = text(await client.callTool({ name: TOOL.getWorkflowDetails, arguments: { workflow_name: "prd" } }));
    expect(details).toContain("bmad://bmm/bmad-prd/SKILL.md");
    const run = text(await client.callTool({ name: TOOL.executeWorkflow, arguments: { workflow_name: "bmm/prd", params: { fast: true } } }));
    expect(run).toContain(fileText("bmm/bmad-prd/SKILL.md"));
    expect(run).toContain('{"fast":true}');
  });

  it("says plainly when a bundle has no tasks or knowledge", async () => {
    expect(catalog.list("task")).toHaveLength(0);
    expect(text(await client.callTool({ name: TOOL.listTasks, arguments: {} }))).toBe("This bundle has no tasks.");
    const knowledge = await client.callTool({ name: TOOL.getKnowledge, arguments: { domain: "testarch" } });
    expect(knowledge.isError).toBe(true);
    expect(text(knowledge)).toContain("no knowledge domains");
  });
});

describe("bmad-resources", () => {
  const call = (args: Record<string, unknown>) => client.callTool({ name: TOOL.bmadResources, arguments: args });

  it("reads files, lists by glob and shows modules, agents and workflows", async () => {
    expect(text(await call({ operation: "read", uri: "bmad://bmm/module.yaml" }))).toBe(fileText("bmm/module.yaml"));
    const listed = text(await call({ operation: "list", pattern: "bmm/bmad-agent-*/SKILL.md" })).split("\n");
    expect(listed).toHaveLength(catalog.list("agent").length);
    expect(text(await call({ operation: "modules" }))).toMatch(/bmm: 5 agents/);
    expect(text(await call({ operation: "agents" }))).toContain("bmm/pm (John, Product Manager)");
    expect(text(await call({ operation: "workflows" }))).toContain("bmm/prd");
  });

  it("finds prd for 'product requirements'", async () => {
    const hits = text(await call({ operation: "search", query: "product requirements" })).split("\n");
    expect(hits[0]).toMatch(/^workflow bmm\/prd /);
  });

  it("takes \"constructor\", a property of every object, as a word like any other", async () => {
    const hits = text(await call({ operation: "search", query: "constructor prd" })).split("\n");
    expect(hits[0]).toMatch(/^workflow bmm\/prd /);
  });
});

describe("prompts", () => {
  it("offers bmad-{agent} for the 6.12 agents and one prompt per workflow", async () => {
    const names = (await client.listPrompts()).prompts.map((p) => p.name);
    for (const agent of ["bmad-analyst", "bmad-architect", "bmad-pm", "bmad-dev", "bmad-ux-designer"]) expect(names).toContain(agent);
    expect(names).toHaveLength(catalog.list("agent").length + catalog.list("workflow").length);
    expect(names).toContain("bmad-prd");
    // BMAD's deprecated shims are not installed by default, so not offered as prompts (the bmad tool loads them by name).
    expect(names).not.toContain("bmad-domain-research");
    // Every prompt's two arguments in a few words; the server instructions say them in full once (review 254: the same
    // two descriptions made 5.5 KB of a 14 KB list).
    const listed = (await client.listPrompts()).prompts;
    for (const p of listed) expect(p.arguments, p.name).toEqual([{ name: "message", description: "First message", required: false }, { name: "project", description: "Project to render for", required: false }]);
    expect(client.getInstructions()).toContain("Prompts bmad-{agent} load an agent or workflow (message: the user's first; project: a bmad-project to render it for)");
    // A long description is cut at a word's end, and says so (review 147: "…works from a spec, a raw i").
    const { prompts } = await client.listPrompts();
    const cut = prompts.filter((p) => p.description!.endsWith("…"));
    expect(cut.length).toBeGreaterThan(0);
    const descriptions = [...catalog.list("agent"), ...catalog.list("workflow")].map((r) => r.description ?? "");
    for (const p of cut) {
      const kept = p.description!.replace(/^(Agent|Workflow): /, "").slice(0, -1);
      expect(descriptions.some((d) => d.startsWith(`${kept} `)), p.name).toBe(true);
    }
    for (const p of cut) expect(p.description!.length, p.name).toBeLessThanOrEqual(210);
  });

  it("serves the raw agent files with loading instructions and the optional message", async () => {
    const prompt = await client.getPrompt({ name: "bmad-pm", arguments: { message: "hello John" } });
    const body = (prompt.messages[0]!.content as { text: string }).text;
    expect(body).toContain(fileText("bmm/bmad-agent-pm/SKILL.md"));
    expect(body).toContain("Adopt this agent");
    expect(body).toContain("hello John");
  });

  it("renders a prompt without a message once, and serves it again from the isolate's cache", async () => {
    // The Worker's own cache: the same isolate, bundle and toolset selection as `client`.
    const selection = parseToolsets("default,proxy");
    if (!selection.ok) throw new Error(selection.error);
    const cache = surfaceFor((await currentBundle(env)).catalog, selection.toolsets, false).promptResults;
    cache.delete("bmad-pm");
    const first = await client.getPrompt({ name: "bmad-pm" });
    expect((first.messages[0]!.content as { text: string }).text).toContain(fileText("bmm/bmad-agent-pm/SKILL.md"));
    const cached = cache.get("bmad-pm");
    expect(cached && Object.isFrozen(cached)).toBe(true);
    expect(first).toEqual(JSON.parse(JSON.stringify(cached)));
    // What the cache holds is what the next request gets: a marked entry comes back as it is.
    cache.set("bmad-pm", deepFreeze({ ...cached!, description: "from the cache" }));
    expect((await client.getPrompt({ name: "bmad-pm" })).description).toBe("from the cache");
    cache.delete("bmad-pm");
  });
});

describe("resources", () => {
  it("lists every bundle file once, across pages, after the generated resources", async () => {
    const uris: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor ? { cursor } : {});
      uris.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
    } while (cursor);
    expect(uris.slice(0, 5)).toEqual(["bmad://manifests/agents", "bmad://manifests/workflows", "bmad://manifests/tasks", "bmad://manifests/skills", "bmad://config/current"]);
    expect(uris.length - 5).toBe(catalog.paths.length);
    expect(new Set(uris).size).toBe(uris.length);
    // Each file's name is the shortest tail of its path no other file ends with: its URI already spells the path out
    // (review 254: 8 KB of the list repeated it).
    const named = new Map<string, string>();
    for (let cursor: string | undefined, first = true; first || cursor; first = false) {
      const page = await client.listResources(cursor ? { cursor } : {});
      for (const r of page.resources) named.set(r.uri, r.name);
      cursor = page.nextCursor;
    }
    expect(named.get("bmad://bmm/bmad-prd/SKILL.md")).toBe("bmad-prd/SKILL.md");
    expect(named.get("bmad://manifests/agents")).toBe("manifests/agents");
    const files = [...named].filter(([uri]) => catalog.paths.includes(uri.slice("bmad://".length)));
    for (const [uri, name] of files) expect(uri.endsWith(`/${name}`) || uri === `bmad://${name}`, uri).toBe(true);
    expect(new Set(files.map(([, name]) => name)).size).toBe(files.length);
  });

  it("reads a file with its MIME type", async () => {
    const read = await client.readResource({ uri: "bmad://bmm/bmad-agent-pm/customize.toml" });
    expect(read.contents[0]).toMatchObject({ mimeType: "application/toml", text: fileText("bmm/bmad-agent-pm/customize.toml") });
    expect((await client.readResource({ uri: "bmad://bmm/bmad-agent-pm/SKILL.md" })).contents[0]!.mimeType).toBe("text/markdown");
  });

  it("generates classic CSV manifests for the skills layout", async () => {
    const agents = (await client.readResource({ uri: "bmad://manifests/agents" })).contents[0] as { text: string };
    const lines = agents.text.trim().split("\n");
    expect(lines[0]).toBe("name,displayName,title,icon,capabilities,role,identity,communicationStyle,principles,module,path");
    expect(lines).toHaveLength(1 + catalog.list("agent").length);
    const skills = (await client.readResource({ uri: "bmad://manifests/skills" })).contents[0] as { text: string };
    // As a default 6.12 install writes its skill-manifest.csv: 29 skills, without the deprecated shims.
    expect(skills.text.trim().split("\n")).toHaveLength(1 + 29);
  });

  it("serves the configuration as JSON", async () => {
    const config = JSON.parse(((await client.readResource({ uri: "bmad://config/current" })).contents[0] as { text: string }).text);
    expect(config.core.output_folder).toBe("_bmad-output");
  });

  it("offers templates with completions for agents and workflows", async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain("bmad://agents/{agent}");
    const done = await client.complete({ ref: { type: "ref/resource", uri: "bmad://agents/{agent}" }, argument: { name: "agent", value: "arch" } });
    expect(done.completion.values).toContain("architect");
    const read = await client.readResource({ uri: "bmad://agents/architect" });
    expect((read.contents[0] as { text: string }).text).toContain(fileText("bmm/bmad-agent-architect/SKILL.md"));
  });
});
