// Skills over MCP on the real CLI over stdio, with the real SDK v2 client and its SkillsClient: every skill of the
// embedded bundle byte for byte, and in a 6.12 project a client that uses only skills/get and resources/read
// follows bmad-prd's first steps (bmad-run runs its `uv run` line on the project).
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { loadBundleFromDir } from "../../src/compiler/read.js";
import { Catalog } from "../../src/core/catalog/catalog.js";
import { TOOL } from "../../src/core/surface/names.js";
import { SKILL_RUNTIME_FILE } from "../../src/core/surface/runtime-block.js";
import { proveSkills } from "../support/skills-proof.js";
import { install, ROOT, tempDir, toolText } from "./helpers.js";

const tmp = tempDir("bridge-skills");
let bridge: string;
const clients: Client[] = [];

beforeAll(async () => {
  bridge = inject("bridge");
  await install("v6.12", join(tmp.dir, "v612"));
}, 180_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  tmp.cleanup();
});

async function connect(cwd: string): Promise<Client> {
  const client = new Client({ name: "bridge-skills", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bridge], cwd, env: { PATH: process.env.PATH!, HOME: join(tmp.dir, "home") }, stderr: "pipe" }));
  clients.push(client);
  return client;
}

it("serves every skill of the embedded bundle but BMAD's deprecated shims: frontmatter, digests, sizes and directories hold", async () => {
  const catalog = new Catalog(loadBundleFromDir(join(ROOT, "bmad-bundle")).manifest);
  const proved = await proveSkills(await connect(tmp.dir), catalog);
  // The 29 a default 6.12 install has: the 21 shims its installer leaves out unless --shims are not offered.
  expect(proved.skills).toBe(29);
  expect(proved.files).toBeGreaterThan(proved.skills * 2);
}, 120_000);

it("lets a client with only skills/get and resources/read follow bmad-prd's first steps in a 6.12 project", async () => {
  const client = await connect(join(tmp.dir, "v612"));
  const skills = new SkillsClient(client);
  const { skill } = await skills.get("skill://bmad-prd/SKILL.md");
  expect(skill._meta?.["bmad-mcp/origin"]).toMatch(/^project \(priority 1, /);
  const body = (await skills.read(skill)).text!;
  const runtime = (await skills.read(skill, SKILL_RUNTIME_FILE)).text!;
  expect(runtime).toContain("On the bridge `{project-root}` may stay as written");
  const step = /`(uv run \{project-root\}\/_bmad\/scripts\/resolve_customization\.py[^`]*)`/.exec(body)![1]!;
  const ran = await client.callTool({ name: TOOL.bmadRun, arguments: { command: step.replaceAll("{skill-root}", "skill://bmad-prd") } });
  expect(ran.isError, toolText(ran)).toBeFalsy();
  expect(toolText(ran)).toMatch(/^resolve_customization\.py exited 0/);
  expect(toolText(ran)).toContain('"activation_steps_prepend"');
}, 60_000);
