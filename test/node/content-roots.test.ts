// Issue 29's content roots, on both doors: seed-shaped trees (BMAD_ROOT=/x/bmad, a ~/.bmad laid out as the BMAD
// folder itself, seeds 000 and 002) are served, not skipped; a root that yields nothing, a manifest row without its
// file and a file without a row are said where a client sees them (the instructions, the bmad tool).
// The trees are written here, small and our own: agent `navigator`, workflow `mapquest` (no BMAD release has them).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { LocalWorker } from "../../scripts/local-worker.js";
import { signIn } from "../../scripts/oauth-client.js";
import { buildBundle } from "../../src/compiler/build";
import { TOOL } from "../../src/core/surface/names";
import { connectBridge, localWorker, tempDir, toolText } from "./helpers";

const tmp = tempDir("content-roots");
const closers: Array<() => Promise<void>> = [];
let bridge: string;
let worker: LocalWorker | undefined;
let remote: Client | undefined;

/** Writes `files` (path -> text) under `dir`. */
function tree(dir: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** A v6-alpha BMAD folder as seeds 000 and 002 show it: `_cfg/*.csv` naming `bmad/...` paths. */
function alphaFolder(dir: string, extra: Record<string, string> = {}): string {
  return tree(dir, {
    "_cfg/manifest.yaml": "installation:\n  version: 6.0.0-alpha.0\nmodules:\n  - core\n  - bmm\n",
    "_cfg/agent-manifest.csv": 'name,displayName,title,icon,role,identity,communicationStyle,principles,module,path\n"navigator","Nova","Route Planner","🧭","Planner","Finds ways","Brief","Shortest path first","bmm","bmad/bmm/agents/navigator.md"\n',
    "_cfg/workflow-manifest.csv": 'name,description,module,path\n"mapquest","Plan a route from here to there","bmm","bmad/bmm/workflows/mapquest/workflow.yaml"\n',
    "_cfg/task-manifest.csv": 'name,displayName,description,module,path\n"workflow","Execute Workflow","Runs a workflow config","core","bmad/core/tasks/workflow.xml"\n',
    "bmm/config.yaml": "project_name: trails\nuser_name: Tester\noutput_folder: docs\n",
    "bmm/agents/navigator.md": '# Route Planner\n\n<agent id="bmad/bmm/agents/navigator.md" name="Nova" title="Route Planner" icon="🧭">\n  <persona><role>Plans routes.</role></persona>\n  <menu><item cmd="*mapquest">Plan a route</item></menu>\n</agent>\n',
    "bmm/workflows/mapquest/workflow.yaml": 'name: mapquest\ndescription: "Plan a route from here to there"\nauthor: Rowan\ninstalled_path: "{project-root}/bmad/bmm/workflows/mapquest"\ninstructions: "{installed_path}/instructions.md"\n',
    "bmm/workflows/mapquest/instructions.md": "# Mapquest\n\n<critical>The workflow execution engine is governed by: {project-root}/bmad/core/tasks/workflow.xml</critical>\n\nAsk where the trip starts.\n",
    "core/tasks/workflow.xml": '<task id="bmad/core/tasks/workflow.xml" name="Execute Workflow">\n  <llm>ENGINE-MARKER: run each step in order.</llm>\n</task>\n',
    ...extra,
  });
}

async function bmad(client: Client, command: string, project?: string): Promise<string> {
  return toolText(await client.callTool({ name: TOOL.bmad, arguments: { command, ...(project ? { project } : {}) } }));
}

/** Another signed-in client of the same Worker, with other toolsets. */
async function remoteClient(toolsets: string): Promise<Client> {
  const { access_token } = await signIn(fetch, worker!.url.origin, { scope: "bmad:read bmad:write" });
  const client = new Client({ name: "content-roots-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`/mcp?toolsets=${toolsets}`, worker!.url), { requestInit: { headers: { authorization: `Bearer ${access_token}` } } }));
  closers.push(() => client.close());
  return client;
}

async function bridgeWith(opts: { env?: Record<string, string>; home?: string; args?: string[]; cwd?: string }): Promise<Awaited<ReturnType<typeof connectBridge>>> {
  const cwd = opts.cwd ?? join(tmp.dir, `cwd-${closers.length}`);
  mkdirSync(cwd, { recursive: true });
  const connected = await connectBridge(bridge, cwd, { home: join(tmp.dir, "home-none"), ...opts });
  closers.push(connected.close);
  return connected;
}

const shared = new Map<string, ReturnType<typeof bridgeWith>>();
/** A bridge with only these options, started once for every test that gives them (they only read): a bridge
 *  start costs more CPU than most tests. */
function sharedBridge(opts: { home: string; cwd?: string }): ReturnType<typeof bridgeWith> {
  const key = JSON.stringify(opts);
  if (!shared.has(key)) shared.set(key, bridgeWith(opts));
  return shared.get(key)!;
}

/** The user's customization of navigator (seed 000: ~/.bmad/_cfg/agents/bmm-navigator.customize.yaml). */
const USER_CUSTOMIZE = `agent:\n  metadata:\n    name: "Nova Prime"\npersona:\n  role: "Plans scenic routes."\n  identity: ""\ncritical_actions:\n  - "Ask for the traveller's pace first"\nmemories:\n  - "The user walks, never drives"\nmenu:\n  - trigger: detour\n    workflow: "{project-root}/bmad/bmm/workflows/mapquest/workflow.yaml"\n    description: "Find a detour"\nprompts: []\n`;
/** What BMAD's installer writes for every agent: nothing filled in. */
const TEMPLATE = 'agent:\n  metadata:\n    name: ""\npersona:\n  role: ""\ncritical_actions: []\nmemories: []\nmenu: []\n';

// The remote serves a bundle built from the same seed-shaped folders, as `npm run bundle -- --source project=DIR
// --source user=DIR` builds it: a project whose navigator has only the installer's empty template, and the user's.
const userHome = join(tmp.dir, "home-user");
const userBmad = join(userHome, ".bmad");
const project = join(tmp.dir, "project");
/** A tree whose manifest and folders disagree: a row without its file, an agent and a workflow without rows. */
const drift = join(tmp.dir, "drift/bmad");
/** A custom module's source whose agent shares its short name with BMAD's bmm/analyst, and another's workflow with
 *  BMAD's bmm/prd. */
const custom = join(tmp.dir, "mod1");

beforeAll(async () => {
  bridge = inject("bridge");
  alphaFolder(userBmad, { "_cfg/agents/bmm-navigator.customize.yaml": USER_CUSTOMIZE });
  alphaFolder(join(project, "bmad"), { "_cfg/agents/bmm-navigator.customize.yaml": TEMPLATE });
  tree(drift, {
    "_cfg/agent-manifest.csv": 'name,displayName,title,icon,role,identity,communicationStyle,principles,module,path\n"lost","L","Lost","❓","","","","","bmm","bmad/bmm/agents/lost.md"\n',
    "bmm/agents/orphan.md": '---\nname: orphan\ndescription: "Finds what nobody listed"\n---\n\n<agent name="Olive" title="Lost and Found">ORPHAN-AGENT</agent>\n',
    "bmm/workflows/orphanflow/workflow.yaml": 'name: orphanflow\ndescription: "Gather the unlisted"\nauthor: Wren\n',
    "bmm/workflows/orphanflow/instructions.md": "ORPHAN-FLOW steps\n",
  });
  tree(custom, {
    "src/aaa/module.yaml": "code: aaa\n",
    "src/aaa/bmad-agent-analyst/SKILL.md": "---\nname: bmad-agent-analyst\ndescription: Analyses the aaa way.\n---\n# AAA analyst\n",
    "src/evil/module.yaml": "code: evil\n",
    "src/evil/bmad-prd/SKILL.md": "---\nname: bmad-prd\ndescription: Writes the evil PRD.\n---\n# EVIL-PRD\n",
  });
  const bundleDir = join(tmp.dir, "bundle");
  await buildBundle({ sources: [`project=${project}`, `cli=${custom}`, `user=${userBmad}`, `env=${drift}`], outDir: bundleDir });
  worker = await localWorker({ bundleDir });
  const { access_token } = await signIn(fetch, worker.url.origin, { scope: "bmad:read bmad:write" });
  remote = new Client({ name: "content-roots-test", version: "1.0.0" });
  await remote.connect(new StreamableHTTPClientTransport(new URL("/mcp", worker.url), { requestInit: { headers: { authorization: `Bearer ${access_token}` } } }));
  const created = await remote.callTool({ name: TOOL.bmadProject, arguments: { action: "create", name: "trails" } });
  expect(created.isError, toolText(created)).not.toBe(true);
}, 120_000);
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await remote?.close();
  await worker?.dispose();
  tmp.cleanup();
});

describe("seed-shaped roots", () => {
  it("serves BMAD_ROOT pointing at the bmad folder itself, with nothing on stderr", async () => {
    const envRoot = alphaFolder(join(tmp.dir, "env-root/bmad"));
    const { client, stderr } = await bridgeWith({ env: { BMAD_ROOT: envRoot } });
    const out = await bmad(client, "navigator");
    expect(out).toMatch(/^# BMAD agent: bmm\/navigator\b[^]*?\nOrigin: env \(priority 3, bmad[@)]/);
    expect(out).toContain("Plans routes.");
    expect(await bmad(client, "*mapquest")).toContain("Ask where the trip starts.");
    expect(stderr()).toBe("");
  });

  it("serves a ~/.bmad that is the BMAD folder itself (seed 000), and one holding bmad/ (seed 002)", async () => {
    const nested = join(tmp.dir, "home-nested");
    alphaFolder(join(nested, ".bmad/bmad"));
    for (const home of [userHome, nested]) {
      const { client, stderr } = await sharedBridge({ home });
      expect(await bmad(client, "bmm/navigator")).toMatch(/^# BMAD agent: bmm\/navigator\b[^]*?\nOrigin: user \(priority 4, \.bmad[@)]/);
      expect(stderr()).toBe("");
    }
  });

  it("serves the same folder from the remote bundle", async () => {
    expect(await bmad(remote!, "navigator")).toMatch(/^Resolved bmm\/navigator from project .*Also available: bmm\/navigator from user \(priority 4, \.bmad[@)]/);
    expect(await bmad(remote!, "*mapquest", "trails")).toContain("Ask where the trip starts.");
  });
});

// Review 134: a custom module's bmad-agent-analyst took `analyst` from bmm/analyst, and the answer named nothing else.
// Review 422: its bmad-prd took `prd` from bmm/bmad-prd, said by the bmad tool alone: bmad-workflow, prompts/get and
// bmad://workflows/ served it with no word, BMAD's prompt went to bmad-bmm-prd, and the instructions said nothing.
describe("a custom module's record of a name BMAD's modules have", () => {
  const ANALYST = /^Resolved aaa\/bmad-agent-analyst from cli \(priority 2, mod1\)\. Also available: bmm\/analyst from package\.\n\n# BMAD agent: aaa\/analyst\b/;
  const PRD = /^Resolved evil\/bmad-prd from cli \(priority 2, mod1\)\. Also available: bmm\/prd from package\.\n\n# BMAD workflow: evil\/prd\b[^]*EVIL-PRD/;
  const TAKEN = `2 of BMAD's short names load another module's record, which wins by priority: "analyst" loads aaa/bmad-agent-analyst from cli, BMAD's is bmm/analyst; "prd" loads evil/bmad-prd from cli, BMAD's is bmm/prd.`;
  const namesake = async (client: Client) => {
    expect(client.getInstructions()).toContain(TAKEN);
    // The list says it too (and, on the bridge, is the first answer, so the next are not headed with it).
    expect(await bmad(client, "")).toContain(TAKEN);
    // By any name it is rendered by, it says what else there is.
    expect(await bmad(client, "analyst")).toMatch(ANALYST);
    expect(await bmad(client, "aaa/analyst")).toMatch(ANALYST);
    expect(await bmad(client, "analyst")).toMatch(ANALYST);
    expect(await bmad(client, "bmm/analyst")).toMatch(/^# BMAD agent: bmm\/analyst\b[^]*?\nOrigin: package \(priority 5, bmad-method@6\.12\.0\)\./);
    expect(await bmad(client, "*prd")).toMatch(PRD);
    expect(toolText(await client.callTool({ name: TOOL.bmadWorkflow, arguments: { workflow: "bmad-prd" } }))).toMatch(PRD);
    const prompt = await client.getPrompt({ name: "bmad-prd" });
    expect((prompt.messages[0]!.content as { text: string }).text).toMatch(PRD);
    const resource = await client.readResource({ uri: "bmad://workflows/bmad-prd" });
    expect((resource.contents[0] as { text: string }).text).toMatch(PRD);
    const bmads = await client.readResource({ uri: "bmad://workflows/bmm/prd" });
    expect((bmads.contents[0] as { text: string }).text).toMatch(/^# BMAD workflow: bmm\/prd\b[^]*?\nOrigin: package /);
  };

  it("wins by priority and names the others wherever it is rendered, on both doors, and the instructions say it", async () => {
    const { client } = await bridgeWith({ args: ["--path", custom] });
    await namesake(client);
    await namesake(remote!);
  });
});

describe("a root that yields nothing", () => {
  it("is in the instructions and the first bmad answer, not only on stderr", async () => {
    // Every row names a file the folder does not have.
    const hollow = tree(join(tmp.dir, "hollow/bmad"), {
      "_cfg/agent-manifest.csv": 'name,displayName,title,icon,role,identity,communicationStyle,principles,module,path\n"ghost","G","Gone","👻","","","","","bmm","bmad/bmm/agents/ghost.md"\n',
    });
    const { client, stderr } = await bridgeWith({ env: { BMAD_ROOT: hollow } });
    const said = /skipped BMAD_ROOT=.*hollow\/bmad: The BMAD tree in .* yields no agents, workflows, tasks or skills/;
    expect(client.getInstructions()).toMatch(/Warnings about the BMAD content served:/);
    expect(client.getInstructions()).toMatch(said);
    const first = await client.callTool({ name: TOOL.bmad, arguments: { command: "pm" } });
    const blocks = (first.content as Array<{ text: string }>).map((c) => c.text);
    expect(blocks[0]).toMatch(said);
    expect(blocks[1]).toMatch(/^# BMAD agent: bmm\/pm\b[^]*?\nOrigin: package/);
    // Said once a connection; the list says it every time.
    expect(await bmad(client, "pm")).not.toMatch(said);
    expect(await bmad(client, "")).toMatch(said);
    expect(stderr()).toMatch(said);
  });
});

describe("user-level customization (seed 000)", () => {
  const merged = (out: string) => {
    expect(out).toMatch(/^Resolved bmm\/navigator from project/);
    expect(out).toContain("## Customization: bmad://_cfg/agents/bmm-navigator.customize.yaml from user (.bmad)");
    for (const line of ["- Name: Nova Prime", "- Persona role: Plans scenic routes.", "- Critical action: Ask for the traveller's pace first", "- Memory: The user walks, never drives", "- Menu item: "]) expect(out).toContain(line);
    expect(out).toContain("Find a detour");
    expect(out).not.toContain("Persona identity"); // empty: not set, as the installer skips it
    // After the agent's own file, before anything else.
    expect(out.indexOf("## Customization")).toBeGreaterThan(out.indexOf("## bmm/agents/navigator.md"));
  };

  it("applies the user's customize.yaml to a project agent whose own is the empty template, on both doors", async () => {
    const { client } = await sharedBridge({ home: userHome, cwd: project });
    merged(await bmad(client, "navigator"));
    merged(await bmad(remote!, "navigator"));
  });

  it("lets the project's own customization win, and says nothing the compiled agent holds already", async () => {
    const own = join(tmp.dir, "project-own");
    alphaFolder(join(own, "bmad"), { "_cfg/agents/bmm-navigator.customize.yaml": 'memories:\n  - "Project memory: the trail is closed"\n  - "Plans routes."\n' });
    const { client } = await bridgeWith({ home: userHome, cwd: own });
    const out = await bmad(client, "navigator");
    expect(out).toContain("## Customization: bmad://_cfg/agents/bmm-navigator.customize.yaml from project (project-own)");
    expect(out).toContain("- Memory: Project memory: the trail is closed");
    expect(out).not.toContain("- Memory: Plans routes."); // the agent says it already
    expect(out).not.toContain("Nova Prime");
  });
});

describe("files outside the manifests", () => {
  const unlisted = async (client: Client, project?: string) => {
    expect(await bmad(client, "orphan")).toMatch(/Origin: env[\s\S]*ORPHAN-AGENT/);
    // The workspace by name on the remote; the bridge is its folder, and refuses another name.
    expect(await bmad(client, "*orphanflow", project)).toContain("ORPHAN-FLOW steps");
    const list = await bmad(client, "");
    expect(list).toContain("bmm/orphan");
    expect(list).toContain("*bmm/orphanflow");
    expect(list).toMatch(/Warnings about the BMAD content served:\n/);
    expect(list).toContain("bmad: _cfg/agent-manifest.csv lists agent lost at bmad/bmm/agents/lost.md, which is not in the tree; skipped.");
    expect(list).toContain("bmad: bmm/agents/orphan.md has no row in _cfg/agent-manifest.csv; served as agent bmm/orphan from its own frontmatter.");
    expect(list).toContain("bmad: bmm/workflows/orphanflow/workflow.yaml has no row in _cfg/workflow-manifest.csv; served as workflow bmm/orphanflow");
  };

  it("are found by name and said in the list, on both doors", async () => {
    const { client } = await bridgeWith({ env: { BMAD_ROOT: drift } });
    await unlisted(client);
    expect(client.getInstructions()).toContain("orphan.md has no row");
    await unlisted(remote!, "trails");
    expect(remote!.getInstructions()).toContain("orphan.md has no row");
  });
});

describe("workflow metadata (seed 002: name, description, author, module, path)", () => {
  const described = async (client: Client, project?: string) => {
    const listed = await client.callTool({ name: TOOL.listWorkflows, arguments: { module: "bmm" } });
    const rows = (listed.structuredContent as { workflows: Array<Record<string, string>> }).workflows;
    expect(rows.find((w) => w.name === "mapquest")).toMatchObject({ author: "Rowan", path: "bmad/bmm/workflows/mapquest/workflow.yaml" });
    expect(rows.find((w) => w.name === "orphanflow")).toMatchObject({ author: "Wren" });
    expect(rows.find((w) => w.name === "orphanflow")).not.toHaveProperty("path"); // no row names one
    expect(toolText(listed)).toContain("bmm/mapquest [other]: Plan a route from here to there (author Rowan, path bmad/bmm/workflows/mapquest/workflow.yaml)");
    const details = toolText(await client.callTool({ name: TOOL.getWorkflowDetails, arguments: { workflow_name: "mapquest" } }));
    expect(details).toMatch(/^mapquest \(bmm, other, author Rowan, path bmad\/bmm\/workflows\/mapquest\/workflow\.yaml\)/);
    const resources = toolText(await client.callTool({ name: TOOL.bmadResources, arguments: { operation: "workflows" } }));
    expect(resources).toContain("bmm/mapquest: Plan a route from here to there (author Rowan, path bmad/bmm/workflows/mapquest/workflow.yaml)");
    expect(await bmad(client, "*mapquest", project)).toMatch(/Origin: project \(priority 1, [^)]*\); author Rowan, path bmad\/bmm\/workflows\/mapquest\/workflow\.yaml\./);
  };

  it("goes into the bundle manifest and every workflow answer, on both doors", async () => {
    const { manifest } = await buildBundle({ sources: [`user=${userBmad}`], includeDefault: false });
    expect(manifest.records.find((r) => r.name === "mapquest")).toMatchObject({ author: "Rowan", path: "bmad/bmm/workflows/mapquest/workflow.yaml" });
    const { client } = await bridgeWith({ home: userHome, cwd: project, env: { BMAD_ROOT: drift }, args: ["--toolsets", "default,proxy"] });
    await described(client);
    const proxied = await remoteClient("default,proxy");
    await described(proxied, "trails");
  });
});

describe("the workflow engine (core/tasks/workflow.xml)", () => {
  const inlined = /## core\/tasks\/workflow\.xml\nThe workflow engine these files name as \{project-root\}\/bmad\/core\/tasks\/workflow\.xml, which this project does not hold: bmad:\/\/core\/tasks\/workflow\.xml\.\n`+xml\n<task [^]*ENGINE-MARKER/;

  it("comes with a v6-alpha workflow rendered for a workspace, and on the bridge where the project lacks it", async () => {
    expect(await bmad(remote!, "*mapquest", "trails")).toMatch(inlined);
    const { client } = await sharedBridge({ home: userHome }); // the workflow is the user's; the project has no BMAD tree
    expect(await bmad(client, "*mapquest")).toMatch(inlined);
  });

  it("is left to the project on the bridge when the project holds it", async () => {
    const { client } = await sharedBridge({ home: userHome, cwd: project });
    const out = await bmad(client, "*mapquest");
    expect(out).toContain(`${project}/bmad/core/tasks/workflow.xml`);
    expect(out).not.toContain("ENGINE-MARKER");
  });
});
