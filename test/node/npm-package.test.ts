// The npm package as a user gets it: `npm pack` (its prepack builds the bundle and the bridge), installed into an
// empty folder with no registry to reach, then `npx bmad-mcp` there: --list, and tools/list over stdio.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, tempDir } from "./helpers";

const run = promisify(execFile);
const MAX_TARBALL = 5 * 1024 * 1024;
// Nothing answers here, and --offline forbids asking: an install that needs anything beyond the tarball fails.
const OFFLINE = { npm_config_registry: "http://127.0.0.1:9/", npm_config_offline: "true", npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
const DEFAULT_TOOLS = ["bmad", "bmad-files", "bmad-project", "bmad-resources", "bmad-run", "bmad-task", "bmad-workflow", "get_project_context", "get_workflow_status", "list_sessions", "run_completion_contract", "spawn_subagent_task"];

describe("the npm package", () => {
  const tmp = tempDir("npm-package");
  const consumer = join(tmp.dir, "consumer");
  let tarball = "";
  let files: string[] = [];
  const env = () => ({ ...process.env, ...OFFLINE, npm_config_cache: join(tmp.dir, "npm-cache"), HOME: join(tmp.dir, "home") });

  beforeAll(async () => {
    await run("npm", ["pack", "--pack-destination", tmp.dir], { cwd: ROOT, maxBuffer: 16 << 20 });
    tarball = join(tmp.dir, readdirSync(tmp.dir).find((f) => f.endsWith(".tgz"))!);
    files = (await run("tar", ["-tzf", tarball], { maxBuffer: 16 << 20 })).stdout.trim().split("\n");
    mkdirSync(join(tmp.dir, "home"));
    mkdirSync(consumer);
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true }));
    await run("npm", ["install", tarball], { cwd: consumer, env: env(), maxBuffer: 16 << 20 });
  }, 180_000);
  afterAll(() => tmp.cleanup());

  it("is at most 5 MB and holds the built bridge, its chunks, the embedded bundle and the notices", () => {
    expect(statSync(tarball).size).toBeLessThanOrEqual(MAX_TARBALL);
    for (const f of ["package/package.json", "package/README.md", "package/LICENSE", "package/dist/bridge.js", "package/dist/bridge-main.js", "package/dist/bundle/manifest.json", "package/dist/THIRD-PARTY-NOTICES.md"]) {
      expect(files).toContain(f);
    }
    expect(files.some((f) => f.startsWith("package/dist/chunks/"))).toBe(true);
    expect(files.filter((f) => f.startsWith("package/dist/bundle/blobs/")).length).toBeGreaterThan(200);
  });

  it("holds no development files: no sources, tests, scripts, maps or TypeScript", () => {
    const stray = files.filter((f) => !f.startsWith("package/dist/") && !["package/package.json", "package/README.md", "package/LICENSE"].includes(f));
    expect(stray).toEqual([]);
    expect(files.filter((f) => /\.(ts|map)$/.test(f))).toEqual([]);
  });

  it("installs from the tarball alone, with nothing else in node_modules", () => {
    const installed = readdirSync(join(consumer, "node_modules")).filter((d) => !d.startsWith("."));
    expect(installed).toEqual(["bmad-mcp"]);
    expect(existsSync(join(consumer, "node_modules/.bin/bmad-mcp"))).toBe(true);
  });

  it("lists the embedded bundle with `npx bmad-mcp --list`", async () => {
    const { stdout } = await run("npx", ["bmad-mcp", "--list"], { cwd: consumer, env: env(), maxBuffer: 16 << 20 });
    expect(stdout).toMatch(/^agent\s+bmm\/architect\s+package \(bmad-method\)$/m);
    expect(stdout).toMatch(/^workflow\s+bmm\/prd\s+package \(bmad-method\)$/m);
  });

  it("answers tools/list and prompts/list over stdio through `npx bmad-mcp`", async () => {
    const transport = new StdioClientTransport({ command: "npx", args: ["bmad-mcp"], cwd: consumer, env: env() as Record<string, string>, stderr: "pipe" });
    const client = new Client({ name: "npm-package-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(DEFAULT_TOOLS);
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toContain("bmad-architect");
    } finally {
      await client.close();
    }
  });
});
