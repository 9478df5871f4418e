// The bmad-mcp CLI, spawned for real and driven with the SDK client over stdio, in temporary projects
// built from real trees (6.12 and classic 6.0.4 installed by their offline installers).
import { chmodSync, cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync, appendFileSync, existsSync } from "node:fs";
import { execFile, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdioTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { cachedInstall, csvRows, install, madeOnce, PKG, tempDir, toolText } from "./helpers.js";
import { TOOLSET_NAMES } from "../../src/core/surface/toolsets.js";

const tmp = tempDir("bridge");
let bridge: string;
let pristine: string; // a 6.12 install, copied for each project
const clients: Client[] = [];

beforeAll(async () => {
  bridge = inject("bridge");
  pristine = join(tmp.dir, "pristine");
  await install("v6.12", pristine);
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  tmp.cleanup();
});

function project(name: string): string {
  const dir = join(tmp.dir, name);
  cpSync(pristine, dir, { recursive: true });
  return dir;
}

async function spawnBridge(cwd: string, args: string[] = [], env: Record<string, string> = {}): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bridge, ...args], cwd, env: { PATH: process.env.PATH!, HOME: join(tmp.dir, "home-empty"), ...env }, stderr: "pipe" });
  let err = "";
  transport.stderr?.on("data", (d) => (err += d));
  const client = new Client({ name: "bridge-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return { client, stderr: () => err };
}

/** One project and a bridge on it, made at first use, for the tests whose files do not touch what another
 *  asserts on: a bridge start costs more CPU than most tests. Everything the bridge reads at start is laid out
 *  first: the completion contract and memory the file-system tools use, a malformed customize.toml and
 *  symlinks out of _bmad for the bad-input tests. */
const sharedProject = madeOnce(async () => {
  const dir = project("shared");
  mkdirSync(join(dir, "_bmad/_config/custom"), { recursive: true });
  mkdirSync(join(dir, "sub"));
  writeFileSync(join(dir, "_bmad/_config/custom/cc-verify.sh"), 'echo "verify $1 in $(basename "$PWD")"\nif [ -f FAIL ]; then echo broken >&2; exit 3; fi\nif [ -f HANG ]; then echo started; sleep 30; fi\n');
  chmodSync(join(dir, "_bmad/_config/custom/cc-verify.sh"), 0o755);
  mkdirSync(join(dir, "_bmad/_memory"), { recursive: true });
  writeFileSync(join(dir, "_bmad/_memory/shared-context.md"), "# Shared\n## Stack\nTypeScript on Workers\n## Decisions\n- KV for bundles\n");
  writeFileSync(join(dir, "_bmad/_memory/project-context.yaml"), "name: demo\nagents: [pm, architect]\n");
  symlinkSync("/tmp", join(dir, "outside"));
  writeFileSync(join(dir, ".claude/skills/bmad-agent-pm/customize.toml"), "[agent\nname = ");
  symlinkSync("/etc/passwd", join(dir, "_bmad/bmm/leak.md"));
  symlinkSync("/etc", join(dir, "_bmad/bmm/outside"));
  appendFileSync(join(dir, ".claude/skills/bmad-agent-pm/SKILL.md"), "\nPROJECT MARKER\n");
  // The completion contract is the project's own script: it runs where the user allowed the project's scripts.
  return { dir, ...(await spawnBridge(dir, ["--allow-project-scripts"], { BMAD_CONTRACT_TIMEOUT_MS: "1500" })) };
});

const text = (r: unknown) => ((r as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? "").join("\n");
const call = async (c: Client, name: string, args: Record<string, unknown>) => c.callTool({ name, arguments: args });
const run = promisify(execFile);

/** The project renders the skill: every line of it without a placeholder comes through unchanged (emoji too). */
function expectRenderedFrom(served: string, file: string): void {
  const kept = file.split("\n").filter((line) => line.trim() && !/\{[^}\s]+\}/.test(line));
  expect(kept.some((line) => /[^\x00-\x7f]/.test(line))).toBe(true);
  for (const line of kept) expect(served).toContain(line);
}

describe("the local bridge", () => {
  it("serves the project's own agent over the embedded one, and picks up an edit on the next call", async () => {
    const dir = project("override");
    const skill = join(dir, ".claude/skills/bmad-agent-pm/SKILL.md");
    appendFileSync(skill, "\nPROJECT MARKER ONE: quokkas\n");
    const { client } = await spawnBridge(dir);
    const first = (await client.getPrompt({ name: "bmad-pm" })).messages[0]!.content as { text: string };
    expect(first.text).toContain("PROJECT MARKER ONE");
    // The bmad tool's answer is kept after the first call, until the bundle changes.
    const tool = async () => text(await call(client, "bmad", { command: "pm" }));
    for (let i = 0; i < 2; i++) expect(await tool()).toContain("PROJECT MARKER ONE");
    // Search reads the project's words too (its index is made when a search first needs it).
    const search = async (query: string) => text(await call(client, "bmad-resources", { operation: "search", query })).split("\n")[0];
    expect(await search("quokkas")).toMatch(/^agent bmm\/pm /);
    appendFileSync(skill, "\nPROJECT MARKER TWO: wombats\n");
    // The edit reaches the bridge through a file-system event: ask until it shows, for at most 5 s.
    let second = "";
    for (const end = Date.now() + 5000; !second.includes("PROJECT MARKER TWO") && Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
      second = ((await client.getPrompt({ name: "bmad-pm" })).messages[0]!.content as { text: string }).text;
    }
    expect(second).toContain("PROJECT MARKER TWO");
    expect(await tool()).toContain("PROJECT MARKER TWO");
    expect(await search("wombats")).toMatch(/^agent bmm\/pm /);
  });

  it("ranks project > --path > BMAD_ROOT > ~/.bmad > embedded, showing every candidate", async () => {
    const levels = { project: project("p-project"), cli: project("p-cli"), env: project("p-env"), user: join(tmp.dir, "home", ".bmad") };
    cpSync(pristine, levels.user, { recursive: true });
    for (const [level, dir] of Object.entries(levels)) appendFileSync(join(dir, ".claude/skills/bmad-agent-pm/SKILL.md"), `\nLEVEL ${level}\n`);
    const { client } = await spawnBridge(levels.project, ["--path", levels.cli], { BMAD_ROOT: levels.env, HOME: join(tmp.dir, "home") });
    const out = text(await call(client, "bmad", { command: "pm" }));
    expect(out).toMatch(/^Resolved bmm\/bmad-agent-pm from project \(priority 1/);
    expect(out).toContain("LEVEL project");
    expect(out).not.toContain("LEVEL cli");
    expect(out).toMatch(/Also available: .*from cli \(priority 2.*from env \(priority 3.*from user \(priority 4.*from package \(priority 5, bmad-method@6\.12\.0\)/);
  });

  it("lists BMAD's deprecated shims where the project installed them (--shims), and else loads them by name only", async () => {
    const workflows = async (c: Client) => text(await call(c, "bmad", { command: "" })).match(/^Workflows: (.*)$/m)![1]!.split(", ");
    // A default install leaves the shims out: so do the listings, though the embedded bundle holds them.
    const { client: plain } = await sharedProject();
    expect(await workflows(plain)).not.toContain("*bmm/domain-research");
    expect((await plain.listPrompts()).prompts.map((p) => p.name)).not.toContain("bmad-domain-research");
    expect(text(await call(plain, "bmad", { command: "*domain-research" }))).toMatch(/^# BMAD workflow: bmm\/domain-research\b[^]*?\nOrigin: package \(priority 5[^]*DEPRECATED — forwards to bmad-deep-recon/);
    const dir = join(tmp.dir, "with-shims");
    await cachedInstall(join(PKG, "bmad-method/tools/installer/bmad-cli.js"), ["install", "--modules", "bmm", "--tools", "claude-code", "--yes", "--shims"], dir);
    const { client } = await spawnBridge(dir);
    const listed = await workflows(client);
    for (const shim of ["*bmm/domain-research", "*bmm/create-prd", "*core/editorial-review"]) expect(listed).toContain(shim);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain("bmad-domain-research");
    expect(text(await call(client, "bmad", { command: "*domain-research" }))).toMatch(/^Resolved bmm\/bmad-domain-research from project \(priority 1/);
  });

  it("serves a classic 6.0.4 installed project: every agent of its manifest", async () => {
    const dir = join(tmp.dir, "classic");
    await install("v6.0", dir);
    const { client } = await spawnBridge(dir);
    const listed = text(await call(client, "bmad-resources", { operation: "agents" }));
    for (const row of csvRows(join(dir, "_bmad/_config/agent-manifest.csv"))) expect(listed).toContain(`${row.module}/${row.name}`);
  });

  it("keeps offline sessions in the project, with artifacts where seed 003 puts them", async () => {
    const { dir, client } = await sharedProject();
    const start = (await call(client, "bmad-task", { action: "start", objective: "Build user auth" })).structuredContent as { session_id: string; task_name: string; role_prompt: string };
    expect(start.role_prompt).toContain("John");
    await call(client, "bmad-task", { action: "submit", session_id: start.session_id, claude_result: JSON.stringify({ prd_draft: "# Offline PRD", quality_score: 95 }) });
    await call(client, "bmad-task", { action: "confirm", session_id: start.task_name });
    expect(readFileSync(join(dir, ".claude/specs/build-user-auth/01-product-requirements.md"), "utf8")).toBe("# Offline PRD");
    expect(existsSync(join(dir, `.bmad-task/session-${start.session_id}.json`))).toBe(true);
  });
});

describe("file-system tools", () => {
  let client: Client;
  let dir: string;
  beforeAll(async () => {
    ({ dir, client } = await sharedProject());
  }, 60_000);

  it("runs the completion contract: PASS, FAIL with output, killed at the timeout", async () => {
    const pass = await call(client, "run_completion_contract", { stack: "typescript", working_dir: "sub" });
    expect(pass.structuredContent).toMatchObject({ status: "PASS", output_bytes: "verify typescript in sub\n".length });
    expect(toolText(pass)).toMatch(/^PASS in \d+ ms\nverify typescript in sub\n$/);
    writeFileSync(join(dir, "FAIL"), "");
    const failed = await call(client, "run_completion_contract", {});
    expect(failed.structuredContent).toMatchObject({ status: "FAIL" });
    expect(toolText(failed)).toContain("broken");
    await run("rm", [join(dir, "FAIL")]);
    writeFileSync(join(dir, "HANG"), "");
    const hangs = await call(client, "run_completion_contract", {});
    const hung = hangs.structuredContent as { status: string; duration_ms: number };
    expect(hung).toMatchObject({ status: "FAIL" });
    expect(toolText(hangs)).toMatch(/started[\s\S]*\[killed after 1\.5 s\]/);
    expect(hung.duration_ms).toBeLessThan(10_000);
    await run("rm", [join(dir, "HANG")]);
  }, 30_000);

  it("keeps working_dir inside the project", async () => {
    for (const working_dir of ["..", "../..", "/etc", "outside"]) {
      const r = await call(client, "run_completion_contract", { working_dir });
      expect(r.isError, working_dir).toBe(true);
      expect(text(r)).toMatch(/must stay inside the project|does not exist/);
    }
  });

  it("returns the project context by section", async () => {
    const all = (await call(client, "get_project_context", {})).structuredContent as Record<string, unknown>;
    expect(all).toMatchObject({ name: "demo", agents: ["pm", "architect"], stack: "TypeScript on Workers", decisions: "- KV for bundles" });
    expect((await call(client, "get_project_context", { section: "stack" })).structuredContent).toEqual({ stack: "TypeScript on Workers" });
  });

  it("skips a malformed project-context.yaml with a warning naming it, keeping the rest", async () => {
    writeFileSync(join(dir, "_bmad/_memory/project-context.yaml"), "name: [unclosed\n");
    const context = (await call(client, "get_project_context", {})).structuredContent as { stack: string; warnings: string[] };
    expect(context.stack).toBe("TypeScript on Workers");
    expect(context.warnings).toEqual([expect.stringContaining("skipped _bmad/_memory/project-context.yaml")]);
  });
});

describe("bad input and the command line", () => {
  it("skips a malformed customize.toml with a warning naming it, serving everything else", async () => {
    const { client, stderr } = await sharedProject(); // its pm's customize.toml is "[agent\nname = "
    const out = text(await call(client, "bmad", { command: "architect" }));
    expect(out).toContain("from project");
    expect(stderr()).toMatch(/bmad-agent-pm[^\n]*customize\.toml/);
  });

  it("refuses a symlink that leaves the project, naming it, and still serves the rest of the project", async () => {
    // Its _bmad/bmm/leak.md links to /etc/passwd, _bmad/bmm/outside to /etc; its pm's SKILL.md ends "PROJECT MARKER".
    const { client, stderr } = await sharedProject();
    expect(text(await call(client, "bmad", { command: "pm" }))).toContain("PROJECT MARKER");
    expect(stderr()).toMatch(/Refused symlink .*bmm\/leak\.md/);
    expect(stderr()).toMatch(/Refused symlink .*bmm\/outside/);
    for (const uri of ["bmad://bmm/leak.md", "bmad://bmm/outside/passwd"]) {
      expect(await client.readResource({ uri }).catch((e: Error) => e)).toBeInstanceOf(Error);
    }
  });

  it("writes each response as one ASCII line that decodes to the files' own characters", async () => {
    const dir = project("wire");
    const file = readFileSync(join(dir, ".claude/skills/bmad-agent-analyst/SKILL.md"), "utf8");
    expect(file).toMatch(/[^\x00-\x7f]/); // the agent file has emoji: the case worth testing
    const child = spawn(process.execPath, [bridge], { cwd: dir, env: { PATH: process.env.PATH!, HOME: join(tmp.dir, "home-empty") }, stdio: ["pipe", "pipe", "ignore"] });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const rpc = async (id: number | string, method: string, params: object) => {
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      const line = (await lines.next()).value as string;
      expect(line).toMatch(/^[\x20-\x7e]+$/);
      const message = JSON.parse(line) as { id: number | string; result?: Record<string, any>; error?: { message: string } };
      expect(message.id).toBe(id);
      return message;
    };
    try {
      await rpc(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "wire", version: "1" } });
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
      // Twice: the second answer comes from the bytes encoded the first time.
      for (const id of [2, 3]) expectRenderedFrom((await rpc(id, "prompts/get", { name: "bmad-analyst" })).result!.messages[0].content.text, file);
      // The same text under two URIs: each answer names its own.
      for (const [id, uri] of [[4, "bmad://bmm/bmad-agent-analyst/SKILL.md"], [40, "skill://bmad-agent-analyst/SKILL.md"], [41, "bmad://bmm/bmad-agent-analyst/SKILL.md"]] as const) {
        expect((await rpc(id, "resources/read", { uri })).result!.contents[0]).toEqual({ uri, mimeType: "text/markdown", text: file });
      }
      // Twice as well: a tool's answer is known by its text the second time.
      for (const id of [5, 50]) expectRenderedFrom((await rpc(id, "tools/call", { name: "bmad", arguments: { command: "analyst" } })).result!.content[0].text, file);
      expect((await rpc(6, "prompts/get", { name: "bmad-analyts" })).error!.message).toMatch(/Unknown prompt "bmad-analyts".*bmad-analyst/);
      expect((await rpc("réponse-7", "prompts/list", {})).result!.prompts.length).toBeGreaterThan(5); // a string id, not ASCII
    } finally {
      child.kill();
    }
  });

  it("serves a 2026-07-28 client as well as a 2025 one", async () => {
    const dir = project("modern");
    const file = readFileSync(join(dir, ".claude/skills/bmad-agent-analyst/SKILL.md"), "utf8");
    const client = new ModernClient({ name: "bridge-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new ModernStdioTransport({ command: process.execPath, args: [bridge], cwd: dir, env: { PATH: process.env.PATH!, HOME: join(tmp.dir, "home-empty") } }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("bmad-task");
      for (let i = 0; i < 2; i++) expectRenderedFrom(((await client.getPrompt({ name: "bmad-analyst" })).messages[0]!.content as { text: string }).text, file);
      await expect(client.getPrompt({ name: "bmad-analyts" })).rejects.toThrow(/Closest: bmad-analyst/);
    } finally {
      await client.close();
    }
  });

  it("prints help, version and what it sees; a bad --path or --project is a clear error", async () => {
    const help = (await run(process.execPath, [bridge, "--help"])).stdout;
    expect(help).toContain("Usage: bmad-mcp");
    // Every toolset it takes, named (review 163: views, which docs/views.md says to add, was missing).
    expect(help).toContain(`--toolsets LIST    comma separated: ${TOOLSET_NAMES.join(",")}, all, default`);
    expect(TOOLSET_NAMES).toContain("views");
    expect((await run(process.execPath, [bridge, "--version"])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const dir = project("list");
    // A skill name the model may write: escape sequences that retitle the window and print a green "all checks passed"
    // over the warning, and a bidi override (review 27). The terminal is shown their escapes, never the characters.
    appendFileSync(join(dir, "_bmad/_config/skill-manifest.csv"), '"e","\x1b]0;PWNED\x07\x1b[2K\x1b[32mall checks passed\u202e","d","core","_bmad/core/nothere/SKILL.md"\n');
    const { stdout: listed, stderr: warned } = await run(process.execPath, [bridge, "--list"], { cwd: dir });
    expect(listed).toMatch(/agent\s+bmm\/pm\s+project \(list\)\s+also: package/);
    expect(warned).toContain("Skill \\u001b]0;PWNED\\u0007\\u001b[2K\\u001b[32mall checks passed\\u202e listed in");
    expect(warned).not.toMatch(/[\x1b\x07\u202e]/);
    const bad = await run(process.execPath, [bridge, "--path", join(tmp.dir, "nope")]).catch((e) => e);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--path .*nope: no such directory/);
    const badProject = await run(process.execPath, [bridge, "--project", join(tmp.dir, "nope")]).catch((e) => e);
    expect(badProject.code).toBe(2);
    expect(badProject.stderr).toMatch(/--project .*nope: no such directory/);
    const flag = await run(process.execPath, [bridge, "--bogus"]).catch((e) => e);
    expect(flag.stderr).toMatch(/^bmad-mcp: Unknown option --bogus\. Closest: [^\n]*\. bmad-mcp --help lists the options\.\n$/);
    // A slip is named with the closest option, not followed by the whole usage (review 431); -h is --help.
    const slip = await run(process.execPath, [bridge, "--tset"]).catch((e) => e);
    expect(slip.stderr).toMatch(/^bmad-mcp: Unknown option --tset\. Closest: --test\b/);
    expect((await run(process.execPath, [bridge, "-h"])).stdout).toMatch(/^Usage: bmad-mcp/);
  });
});
