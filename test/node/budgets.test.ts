// The wall-clock budgets a user would feel, each measured on the real thing: the default bundle build, and hostile
// globs on the bridge and on the Worker (which must cost what plain ones do, and not hold up other requests).
// npm test runs this file alone, after the files that run side by side, so that their load does not spend it.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { LocalWorker } from "../../scripts/local-worker.js";
import { signIn } from "../../scripts/oauth-client.js";
import { buildBundle } from "../../src/compiler/build";
import { holdsSecrets, holdsShapedSecret, servedProjectText } from "../../src/core/catalog/config";
import { connectBridge, install, localWorker, tempDir, toolText } from "./helpers";

const tmp = tempDir("budgets");
afterAll(() => tmp.cleanup());

const HOSTILE = ["**************Q", "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*Q", "**/**/**/**/**/**/**/**/**/**/**/Q", "bmm/**?**?**?**?**?**?**?**?**?Q"];
const list = (pattern: string) => ({ name: "bmad-resources", arguments: { operation: "list", pattern } });
// Each server answers a plain glob first: the first call also builds what later ones reuse, which is not the
// glob's cost.
const PLAIN = "**/SKILL.md";

/** Seed 002's performance targets (list_prompts < 100 ms, get_prompt < 1 s, list_workflows < 500 ms, execute_workflow
 *  < 2 s), each call timed on its own, for a client with the proxy toolset. */
async function seedTargets(client: { listPrompts(): Promise<unknown>; getPrompt(p: { name: string }): Promise<unknown>; callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown> }): Promise<void> {
  const timed = async (what: string, bound: number, call: () => Promise<unknown>) => {
    const started = performance.now();
    const out = (await call()) as { isError?: boolean };
    expect(out.isError, what).not.toBe(true);
    expect(performance.now() - started, what).toBeLessThan(bound);
  };
  await timed("list_prompts", 100, () => client.listPrompts());
  await timed("get_prompt", 1000, () => client.getPrompt({ name: "bmad-pm" }));
  await timed("list_workflows", 500, () => client.callTool({ name: "list_workflows", arguments: {} }));
  await timed("execute_workflow", 2000, () => client.callTool({ name: "execute_workflow", arguments: { workflow_name: "bmm/prd", params: {} } }));
}

it("builds the default bundle within 3 s, its manifest under 256 KB", async () => {
  const result = await buildBundle({ sources: [], outDir: join(tmp.dir, "bundle") });
  expect(result.ms).toBeLessThan(3000);
  expect(result.manifestSize).toBeLessThan(256 * 1024);
});

describe("the bridge, serving an installed 6.12 project", () => {
  let bridge: Awaited<ReturnType<typeof connectBridge>>;
  beforeAll(async () => {
    const project = join(tmp.dir, "project");
    await install("v6.12", project);
    bridge = await connectBridge(inject("bridge"), project, { args: ["--toolsets", "default,proxy"] });
    expect(toolText(await bridge.client.callTool(list(PLAIN)))).toContain("bmad-prd/SKILL.md");
  }, 120_000);
  afterAll(() => bridge?.close());

  it("meets seed 002's performance targets for prompts and workflows", () => seedTargets(bridge.client));

  it.each(HOSTILE)("answers %s within 100 ms", async (pattern) => {
    const started = performance.now();
    const listed = toolText(await bridge.client.callTool(list(pattern)));
    expect(performance.now() - started).toBeLessThan(100);
    expect(listed).toBe(`No files match "${pattern}".`);
  });
});

// Review 182: a collaborator's bmad-help.csv of 70,000 rows chained by preceded-by (7.8 MB, under the 8 MiB a file may
// have) held every answer past 120 s: each skill's earlier phases were found by filtering every row, for every skill.
describe("the bridge, serving a project whose bmad-help.csv a collaborator filled", () => {
  let bridge: Awaited<ReturnType<typeof connectBridge>>;
  let leftOut = 0;
  beforeAll(async () => {
    const project = join(tmp.dir, "planted-help");
    await install("v6.12", project);
    const catalog = join(project, "_bmad/_config/bmad-help.csv");
    leftOut = readFileSync(catalog, "utf8").split("\n").slice(1).filter((line) => line.trim()).length + 70_000 - 2000;
    const rows = Array.from({ length: 70_000 }, (_, i) => `BMad Method,bmad-x${i},X${i},X${i},"d${i}",,,2-planning,bmad-x${i - 1},bmad-x${i + 1},false,planning_artifacts,prd`);
    appendFileSync(catalog, `\n${rows.join("\n")}`);
    bridge = await connectBridge(inject("bridge"), project);
  }, 120_000);
  afterAll(() => bridge?.close());

  it("renders a skill within 3 s (it took over 120), and tools/list sent beside it is not held up", async () => {
    const started = performance.now();
    const [prd, tools] = await Promise.all([
      bridge.client.callTool({ name: "bmad-workflow", arguments: { workflow: "prd" } }).then((r) => ({ r, at: performance.now() - started })),
      bridge.client.listTools().then((r) => ({ r, at: performance.now() - started })),
    ]);
    expect(toolText(prd.r)).toContain("## Running this skill here");
    expect(prd.at).toBeLessThan(3000);
    expect(tools.r.tools.length).toBeGreaterThan(0);
    expect(tools.at).toBeLessThan(3000);
  });

  it("reads the first 2,000 rows of it, and says the rest are left out", async () => {
    const help = toolText(await bridge.client.callTool({ name: "bmad", arguments: { command: "*help" } }));
    expect(help).toContain(`${leftOut} rows of _config/bmad-help.csv left out: a help catalog gives at most 2000, rows naming a skill served here first. Remove the rows that do not belong there.`);
  });
});

// Review 223: a line of a project's own skill (the model writes those on the bridge; a member writes a config value the
// render fills in on the remote) held the bridge for seconds to minutes: patterns that looked from each of its phrases
// to the line's end were quadratic in it.
describe("the bridge, rendering a project skill with hostile lines", () => {
  let bridge: Awaited<ReturnType<typeof connectBridge>>;
  beforeAll(async () => {
    const project = join(tmp.dir, "hostile-lines");
    await install("v6.12", project);
    const lines = ["Replace `a` with the absolute path ", "resolve_customization.py --key ", "Replace `a` with the absolute path `b"].map((unit, i) => `${i === 1 ? "`uv run x " : ""}${unit.repeat(Math.floor(256_000 / unit.length))}`);
    appendFileSync(join(project, ".claude/skills/bmad-agent-analyst/SKILL.md"), `\n${lines.join("\n")}\n`);
    bridge = await connectBridge(inject("bridge"), project);
  }, 120_000);
  afterAll(() => bridge?.close());

  it("renders it within 3 s (over 10 before)", async () => {
    const started = performance.now();
    const analyst = toolText(await bridge.client.callTool({ name: "bmad", arguments: { command: "analyst" } }));
    expect(performance.now() - started).toBeLessThan(3000);
    expect(analyst).toContain("## Running this skill here");
  });
});

// Review 225: the secret check every push, linked write and remembered memory passes trimmed a word's end with patterns
// like /[,;]+$/, which try the run from each of its starts: a note holding one word of 64 KiB of semicolons held the
// bridge for 15 s (the remote's engine falls back to a linear one; Node's does not).
it("judges a note of one 64 KiB hostile word for secrets within 1 s, every closing character (15 s each before)", () => {
  const started = performance.now();
  for (const closing of ";,.)]}>!") {
    const text = `- password: ${closing.repeat(64 * 1024)}a`;
    expect(holdsShapedSecret(text)).toBe(false);
    holdsSecrets("docs/notes.md", text);
  }
  expect(performance.now() - started).toBeLessThan(1000);
});

// Review 227: a config value of line breaks (one line of JSON, each an escaped "\n") made the Authorization check go from
// each line start over every break after it: a member's 393 KB settings file held a shared project 51 s a read.
it("serves a config whose value is 64 K line breaks within 1 s (over 6 s before)", () => {
  const started = performance.now();
  const served = servedProjectText("docs/settings.json", new TextEncoder().encode(JSON.stringify({ k: `${"\n".repeat(64 * 1024)}x` })));
  expect(performance.now() - started).toBeLessThan(1000);
  expect(served).toBeDefined();
});

// Review 229: a key's check for a story's name (`1-2-login`) tried every split of a long key of such parts: a member's
// 512 KB key in a config-shaped JSON held a shared project 60 s a read.
it("serves a config whose key is 64 K of a story key's parts within 1 s (2.2 s before)", () => {
  const started = performance.now();
  const served = servedProjectText("_bmad-output/config.json", new TextEncoder().encode(JSON.stringify({ [`${"1-".repeat(32 * 1024)}!`]: "x" })));
  expect(performance.now() - started).toBeLessThan(1000);
  expect(served).toBeDefined();
});

// Review 243: an agent file the model wrote, 40,000 `<agent ` with no `>`, held the bridge 12 s a rebuild: its tag was
// looked for by a pattern that scanned to the end from every `<agent`.
it("builds a classic tree holding an agent file of 40,000 unclosed <agent tags within 2 s (12 s before)", async () => {
  const tree = join(tmp.dir, "agent-tags");
  mkdirSync(join(tree, "_bmad/_config"), { recursive: true });
  mkdirSync(join(tree, "_bmad/bmm/agents"), { recursive: true });
  writeFileSync(join(tree, "_bmad/_config/agent-manifest.csv"), "name,displayName,module,path\npm,PM,bmm,_bmad/bmm/agents/pm.md\n");
  writeFileSync(join(tree, "_bmad/bmm/agents/pm.md"), '---\nname: pm\ndescription: pm\n---\n<agent id="pm" name="John" title="PM">\n</agent>\n');
  writeFileSync(join(tree, "_bmad/bmm/agents/evil.md"), `---\nname: evil\ndescription: evil\n---\n${"<agent ".repeat(40_000)}`);
  const started = performance.now();
  const { manifest } = await buildBundle({ sources: [tree], includeDefault: false });
  expect(performance.now() - started).toBeLessThan(2000);
  expect(manifest.records.some((r) => r.name === "evil")).toBe(true);
});

describe("the Worker", () => {
  let worker: LocalWorker;
  let client: Client;
  beforeAll(async () => {
    worker = await localWorker();
    const { access_token } = await signIn(fetch, worker.url.origin);
    client = new Client({ name: "budgets-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL("/mcp?toolsets=default,proxy", worker.url), { requestInit: { headers: { authorization: `Bearer ${access_token}` } } }));
    expect(toolText(await client.callTool(list(PLAIN)))).toContain("bmad-prd/SKILL.md");
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await worker?.dispose();
  });

  it("meets seed 002's performance targets for prompts and workflows", () => seedTargets(client));

  it.each(HOSTILE)("answers %s within 100 ms while /healthz answers beside it", async (pattern) => {
    const started = performance.now();
    const [listed, health] = await Promise.all([
      client.callTool(list(pattern)),
      fetch(new URL("/healthz", worker.url)).then((r) => ({ status: r.status, at: performance.now() - started })),
    ]);
    expect(performance.now() - started).toBeLessThan(100);
    expect(toolText(listed)).toBe(`No files match "${pattern}".`);
    expect(health.status).toBe(200);
    expect(health.at).toBeLessThan(100);
  });
});
