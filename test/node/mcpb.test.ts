// The Claude Desktop bundle: `mcpb validate` accepts its manifest, and the packed .mcpb, unpacked and started the
// way its manifest says (${__dirname}, ${user_config.*} filled in), serves exactly the tools and prompts it declares.
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildMcpb, MCPB_CLI, MCPB_STAGE } from "../../scripts/build-mcpb.js";
import { connectBridge, tempDir } from "./helpers";

const run = promisify(execFile);

interface Manifest {
  server: { entry_point: string; mcp_config: { command: string; args: string[] } };
  user_config: Record<string, { type: string; required?: boolean; default?: string }>;
  tools: Array<{ name: string; description: string }>;
  prompts: Array<{ name: string; description: string; arguments: string[]; text: string }>;
}

describe("the .mcpb bundle", () => {
  const tmp = tempDir("mcpb");
  let archive = "";
  let manifest: Manifest;

  beforeAll(async () => {
    ({ archive } = await buildMcpb());
    manifest = JSON.parse(readFileSync(join(MCPB_STAGE, "manifest.json"), "utf8")) as Manifest;
  }, 120_000);
  afterAll(() => tmp.cleanup());

  it("passes `mcpb validate`", async () => {
    const { stdout } = await run(process.execPath, [MCPB_CLI, "validate", join(MCPB_STAGE, "manifest.json")]);
    expect(stdout).toContain("Manifest schema validation passes!");
  });

  it("asks for the project folder and the toolsets", () => {
    expect(manifest.user_config.project).toMatchObject({ type: "directory", required: true });
    expect(manifest.user_config.toolsets).toMatchObject({ type: "string", default: "default" });
    expect(manifest.server.mcp_config.args).toEqual(["${__dirname}/server/bridge.js", "--project", "${user_config.project}", "--toolsets", "${user_config.toolsets}"]);
  });

  it("serves, once unpacked and started as declared, exactly the tools and prompts its manifest lists", async () => {
    const unpacked = join(tmp.dir, "unpacked");
    const project = join(tmp.dir, "project");
    mkdirSync(project);
    await run(process.execPath, [MCPB_CLI, "unpack", archive, unpacked]);
    const fill = (arg: string) =>
      arg.replace("${__dirname}", unpacked).replace("${user_config.project}", project).replace("${user_config.toolsets}", manifest.user_config.toolsets!.default!);
    const [entry, ...args] = manifest.server.mcp_config.args.map(fill);
    expect(manifest.server.mcp_config.command).toBe("node");
    expect(entry).toBe(join(unpacked, manifest.server.entry_point));
    const bridge = await connectBridge(entry!, tmp.dir, { args });
    try {
      const { tools } = await bridge.client.listTools();
      expect(manifest.tools).toEqual(tools.map((t) => ({ name: t.name, description: t.description })));
      expect(manifest.tools.map((t) => t.name)).toContain("bmad");
      const { prompts } = await bridge.client.listPrompts();
      expect(manifest.prompts.map((p) => p.name)).toEqual(prompts.map((p) => p.name));
      expect(manifest.prompts.find((p) => p.name === "bmad-architect")).toMatchObject({ arguments: ["message", "project"] });
    } finally {
      await bridge.close();
    }
  });
});
