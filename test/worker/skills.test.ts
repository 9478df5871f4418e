// Skills over MCP on the Worker, with the real SDK v2 client and its SkillsClient: every skill of the bundle,
// byte for byte; a client that uses only skills/get and resources/read can follow bmad-prd's first steps; and
// unknown skills, files and names answer with suggestions.
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { TOOL } from "../../src/core/surface/names.js";
import { SKILL_RUNTIME_FILE } from "../../src/core/surface/runtime-block.js";
import { proveSkills } from "../support/skills-proof.js";
import { authedFetch, ORIGIN } from "./client.js";
import { catalog, seed } from "./setup.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

let client: Client;

async function connectV2(query = ""): Promise<Client> {
  const c = new Client({ name: "skills-test", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp${query}`), { fetch: await authedFetch() }));
  return c;
}

beforeAll(async () => {
  await seed();
  client = await connectV2();
});

const text = (result: unknown) => ((result as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? "").join("\n");

it("serves every skill of the bundle but BMAD's deprecated shims: frontmatter, digests, sizes and directories hold", async () => {
  const proved = await proveSkills(client, catalog);
  // The 29 a default 6.12 install has: the 21 shims its installer leaves out unless --shims are not offered.
  expect(proved.skills).toBe(29);
  expect(proved.files).toBeGreaterThan(proved.skills * 2);
});

it("lists a first page of names and descriptions with no file bodies", async () => {
  const page = (await client.request({ method: "skills/list", params: {} }, (await import("zod")).z.looseObject({}))) as { skills: Array<Record<string, unknown>>; nextCursor?: string };
  expect(page.skills.length).toBeGreaterThan(0);
  expect(page.nextCursor).toBeDefined();
  for (const s of page.skills) {
    expect(Object.keys(s).sort()).toEqual(["_meta", "frontmatter", "resources", "uri"]);
    expect(s._meta).toEqual({ "bmad-mcp/origin": "package (priority 5, bmad-method@6.12.0)" });
  }
  expect(JSON.stringify(page)).not.toContain("## On Activation");
});

it("lets a client with only skills/get and resources/read follow bmad-prd's first steps in a workspace", async () => {
  const skills = new SkillsClient(client);
  const { skill } = await skills.get("skill://bmad-prd/SKILL.md");
  const body = (await skills.read(skill)).text!;
  const runtime = (await skills.read(skill, SKILL_RUNTIME_FILE)).text!;
  expect(runtime).toContain(`run each with the ${TOOL.bmadRun} tool`);
  expect(runtime).toContain("`skill://bmad-prd`");
  expect(runtime).toContain("write `bmad://projects/my-app` for `{project-root}`");
  // Step 1 as BMAD wrote it, filled in the way the runtime file says.
  const step = /`(uv run \{project-root\}\/_bmad\/scripts\/resolve_customization\.py[^`]*)`/.exec(body)![1]!;
  const project = `prd-${crypto.randomUUID().slice(0, 8)}`;
  const created = await client.callTool({ name: TOOL.bmadProject, arguments: { action: "create", name: project } });
  expect(created.isError, text(created)).toBeFalsy();
  const line = step.replaceAll("{skill-root}", "skill://bmad-prd").replaceAll("{project-root}", `bmad://projects/${project}`);
  const ran = await client.callTool({ name: TOOL.bmadRun, arguments: { command: line } });
  expect(ran.isError, text(ran)).toBeFalsy();
  expect(text(ran)).toMatch(/^resolve_customization\.py exited 0/);
  expect(text(ran)).toContain('"activation_steps_prepend"');
});

describe("unknown names and URIs", () => {
  it("answers skills/get, resources/read and directory reads with data.suggestions", async () => {
    const skills = new SkillsClient(client);
    const project = `near-${crypto.randomUUID().slice(0, 8)}`;
    await client.callTool({ name: TOOL.bmadProject, arguments: { action: "create", name: project } });
    const cases: Array<[() => Promise<unknown>, string]> = [
      [() => client.readResource({ uri: `bmad://projects/${project}/_bmad/bmm/config.yml` }), `bmad://projects/${project}/_bmad/bmm/config.yaml`],
      [() => skills.get("skill://bmad-prdd/SKILL.md"), "skill://bmad-prd/SKILL.md"],
      [() => client.readResource({ uri: "skill://bmad-prd/refrences/validate.md" }), "skill://bmad-prd/references/validate.md"],
      [() => client.readResource({ uri: "bmad://bmm/bmad-prd/SKIL.md" }), "bmad://bmm/bmad-prd/SKILL.md"],
      [() => skills.readDirectory("skill://bmad-prdd"), "skill://bmad-prd"],
    ];
    for (const [call, closest] of cases) {
      const error = (await call().then(() => undefined, (e: unknown) => e)) as ProtocolError;
      expect(error, closest).toBeInstanceOf(ProtocolError);
      expect(error.code).toBe(-32602);
      expect((error.data as { suggestions: string[] }).suggestions[0]).toBe(closest);
    }
  });

  it("points a skill's own customize.toml to its bmad:// URI, which serves it as configs are (review 292)", async () => {
    const error = (await client.readResource({ uri: "skill://bmad-prd/customize.toml" }).then(() => undefined, (e: unknown) => e)) as ProtocolError;
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.message).toContain("skill://bmad-prd/customize.toml is a config, served without its secret-looking keys rather than byte for byte: read bmad://bmm/bmad-prd/customize.toml");
    const read = await client.readResource({ uri: "bmad://bmm/bmad-prd/customize.toml" });
    expect((read.contents[0] as { text: string }).text).toContain("[workflow]");
  });

  it("answers a tool's unknown agent or workflow with structuredContent.suggestions", async () => {
    const agent = await client.callTool({ name: TOOL.bmad, arguments: { command: "architekt" } });
    expect(agent.isError).toBe(true);
    expect(agent.structuredContent).toMatchObject({ suggestions: expect.arrayContaining(["architect"]) });
    const workflow = await client.callTool({ name: TOOL.bmadWorkflow, arguments: { workflow: "prdd" } });
    expect(workflow.structuredContent).toMatchObject({ suggestions: expect.arrayContaining(["prd"]) });
  });
});
