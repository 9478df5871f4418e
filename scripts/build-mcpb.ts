// npm run mcpb: the Claude Desktop bundle, build/bmad-mcp-<version>.mcpb. It holds the built bridge (as dist/ has
// it, in server/) and a manifest.json whose tools and prompts come from the registry and the embedded bundle, never
// typed by hand; user_config asks for the project folder and the toolsets.
import { execFile } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { surfaceFor } from "../src/core/surface/surface.js";
import { DEFAULT_TOOLSETS, TOOLSET_NAMES } from "../src/core/surface/toolsets.js";
import { buildBridge } from "./build-bridge.js";
import { bundleReaderFromDir } from "../src/compiler/read.js";

const ROOT = resolve(import.meta.dirname, "..");
export const MCPB_STAGE = join(ROOT, "build/mcpb");
/** The mcpb command line (pack, validate, unpack), run with this Node. */
export const MCPB_CLI = join(ROOT, "node_modules/@anthropic-ai/mcpb/dist/cli/cli.js");

interface PackageJson {
  name: string;
  version: string;
  description: string;
  license: string;
  keywords: string[];
  engines: { node: string };
}

/** The manifest for the bundle in `bundleDir`: what a default install serves (toolsets can add tools). */
export function mcpbManifest(bundleDir = join(ROOT, "bmad-bundle")): { name: string; version: string } & Record<string, unknown> {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as PackageJson;
  const surface = surfaceFor(bundleReaderFromDir(bundleDir).catalog, DEFAULT_TOOLSETS);
  return {
    manifest_version: "0.2",
    name: pkg.name,
    display_name: "BMAD Method",
    version: pkg.version,
    description: "BMAD Method agents, workflows and skills as MCP prompts, tools and resources, from your project folder",
    long_description:
      "Serves the BMAD Method over MCP, offline: every agent and workflow as a prompt, every file as a bmad:// resource, " +
      "bmad-task delivery sessions and BMAD's scripts run with bmad-run. Your project's own BMAD files (_bmad/, .claude/skills/) " +
      "win over the embedded bmad-method. This project is independent. It is not made, endorsed or supported by BMad Code, LLC; " +
      '"BMad" and "BMAD" are their trademarks. BMAD content comes from the MIT-licensed bmad-method package.',
    author: { name: "bmad-mcp contributors" },
    license: pkg.license,
    keywords: pkg.keywords,
    server: {
      type: "node",
      entry_point: "server/bridge.js",
      mcp_config: {
        command: "node",
        args: ["${__dirname}/server/bridge.js", "--project", "${user_config.project}", "--toolsets", "${user_config.toolsets}"],
      },
    },
    user_config: {
      project: {
        type: "directory",
        title: "Project folder",
        description: "Your project: its BMAD files win over the embedded ones, and sessions and artifacts are saved there.",
        required: true,
      },
      toolsets: {
        type: "string",
        title: "Toolsets",
        description: `Comma separated: ${TOOLSET_NAMES.join(", ")}, all, default.`,
        default: "default",
        required: false,
      },
    },
    tools: surface.toolsResult.tools.map((t) => ({ name: t.name, description: t.description })),
    // Other toolsets (agents: one tool per agent) add tools at run time.
    tools_generated: true,
    prompts: surface.promptList.map((p) => ({
      name: p.name,
      description: p.description,
      arguments: p.arguments.map((a) => a.name),
      text: `${p.description}\n\n\${arguments.message}`,
    })),
    compatibility: { platforms: ["darwin", "linux"], runtimes: { node: pkg.engines.node } },
  };
}

/** Builds the bridge into build/mcpb/server/, stages it there with the manifest, and packs
 *  build/<name>-<version>.mcpb with `mcpb pack` (which validates the manifest first); returns the archive and
 *  what mcpb printed. */
export async function buildMcpb(): Promise<{ archive: string; log: string }> {
  const manifest = mcpbManifest();
  rmSync(MCPB_STAGE, { recursive: true, force: true });
  await buildBridge(join(MCPB_STAGE, "server"));
  writeFileSync(join(MCPB_STAGE, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  const out = join(ROOT, "build", `${manifest.name}-${manifest.version}.mcpb`);
  const { stdout } = await promisify(execFile)(process.execPath, [MCPB_CLI, "pack", MCPB_STAGE, out], { maxBuffer: 16 << 20 });
  return { archive: out, log: stdout };
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const { log } = await buildMcpb();
  console.log(log.trim());
}
