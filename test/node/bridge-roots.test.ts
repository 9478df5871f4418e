// The roots the bridge layers over its embedded bundle. A root the user named (--path, --project) that
// yields nothing is an error at start-up; an implicit one (BMAD_ROOT, ~/.bmad) is skipped with a warning
// that says what was looked for. Several --path roots are served, ranked in the order given.
import { execFile } from "node:child_process";
import { appendFileSync, cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { connectBridge, install, tempDir, toolText } from "./helpers.js";

const run = promisify(execFile);
const tmp = tempDir("bridge-roots");
let bridge: string;
let pristine: string;
const closers: Array<() => Promise<void>> = [];
const LOOKED_FOR = /Looked for: _bmad\/_config\/skill-manifest\.csv/;

beforeAll(async () => {
  bridge = inject("bridge");
  pristine = join(tmp.dir, "pristine");
  await install("v6.12", pristine);
}, 120_000);
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  tmp.cleanup();
});

function folder(name: string, from?: string): string {
  const dir = join(tmp.dir, name);
  if (from) cpSync(from, dir, { recursive: true });
  else mkdirSync(dir, { recursive: true });
  return dir;
}

/** The CLI's exit code and stderr, for a run expected to stop. */
async function refused(args: string[], cwd: string): Promise<{ code: number; stderr: string }> {
  const out = await run(process.execPath, [bridge, ...args], { cwd, env: { PATH: process.env.PATH!, HOME: join(tmp.dir, "home-empty") }, timeout: 20_000 }).then(
    () => ({ code: 0, stderr: "" }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  );
  return out;
}

describe("roots named on the command line", () => {
  it("stops with exit 2 when --path holds no BMAD tree, saying what was looked for", async () => {
    const empty = folder("no-tree");
    writeFileSync(join(empty, "README.md"), "not BMAD\n");
    for (const args of [["--path", empty], ["--path", empty, "--list"]]) {
      const out = await refused(args, folder("cwd-1"));
      expect(out.code, args.join(" ")).toBe(2);
      expect(out.stderr).toMatch(/bmad-mcp: --path .*no-tree: no BMAD tree found/);
      expect(out.stderr).toMatch(LOOKED_FOR);
      expect(out.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
  });

  it("stops with exit 2, saying how to name the project, when started with none in the home folder or at /", async () => {
    const home = folder("home-empty");
    for (const cwd of [home, "/"]) {
      const out = await refused([], cwd);
      expect(out.code, cwd).toBe(2);
      expect(out.stderr).toContain(`bmad-mcp: not serving ${cwd}: it is ${cwd === "/" ? "the file system's root" : "your home folder"}, where the MCP client started bmad-mcp`);
      expect(out.stderr).toContain('add "--project", "/path/to/project" to bmad-mcp\'s args in the client\'s config (or set BMAD_PROJECT_ROOT)');
    }
  });

  it("stops with exit 2 when a --path tree yields no agents, workflows, tasks or skills", async () => {
    const hollow = folder("hollow");
    mkdirSync(join(hollow, "_bmad/_config"), { recursive: true });
    writeFileSync(join(hollow, "_bmad/_config/skill-manifest.csv"), "canonicalId,name,description,module,path\n");
    const out = await refused(["--path", hollow], folder("cwd-2"));
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/--path .*hollow: .*no agents, workflows, tasks or skills/);
  });

  it("stops with exit 2 when --project has a BMAD folder that yields nothing", async () => {
    const broken = folder("broken-project");
    mkdirSync(join(broken, "_bmad/bmm/agents"), { recursive: true });
    writeFileSync(join(broken, "_bmad/bmm/agents/pm.md"), "# PM\n");
    const out = await refused(["--project", broken], folder("cwd-3"));
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/--project .*broken-project: no BMAD tree found/);
    expect(out.stderr).toMatch(LOOKED_FOR);
  });

  it("serves a --project that holds only the kit's memory, or no BMAD folder at all, from the embedded bundle", async () => {
    const kit = folder("kit-only");
    mkdirSync(join(kit, "_bmad/_memory"), { recursive: true });
    writeFileSync(join(kit, "_bmad/_memory/shared-context.md"), "# Shared\n## Stack\nGo\n");
    for (const [i, dir] of [kit, folder("plain-project")].entries()) {
      const bridgeProcess = await connectBridge(bridge, folder(`cwd-kit-${i}`), { args: ["--project", dir] });
      closers.push(bridgeProcess.close);
      expect(toolText(await bridgeProcess.client.callTool({ name: "bmad", arguments: { command: "pm" } }))).toMatch(/\nOrigin: package /);
      expect(bridgeProcess.stderr()).toBe("");
    }
  });

  it("serves several --path roots, ranked in the order given", async () => {
    const first = folder("path-first", pristine);
    const second = folder("path-second", pristine);
    appendFileSync(join(first, ".claude/skills/bmad-agent-pm/SKILL.md"), "\nLEVEL first\n");
    appendFileSync(join(second, ".claude/skills/bmad-agent-pm/SKILL.md"), "\nLEVEL second\n");
    for (const [a, b] of [[first, second], [second, first]] as const) {
      const { client, close } = await connectBridge(bridge, folder(`cwd-order-${closers.length}`), { args: ["--path", a, "--path", b] });
      closers.push(close);
      const out = toolText(await client.callTool({ name: "bmad", arguments: { command: "pm" } }));
      const [won, lost] = a === first ? ["first", "second"] : ["second", "first"];
      expect(out).toMatch(new RegExp(`^Resolved bmm/bmad-agent-pm from cli \\(priority 2, path-${won}@6\\.12\\.0\\)`));
      expect(out).toContain(`LEVEL ${won}`);
      expect(out).not.toContain(`LEVEL ${lost}`);
      expect(out).toMatch(new RegExp(`Also available: .*from cli \\(priority 2, path-${lost}@6\\.12\\.0\\).*from package`));
    }
  });
});

// Review 35: a --path module whose code is BMAD's own module put a file at a path of BMAD's bmad-prd, and the answer
// said "from package" while serving it.
it("names each file of a skill that another source serves in its place", async () => {
  const module = folder("overlaying-module");
  mkdirSync(join(module, "src/bmm/decoy"), { recursive: true });
  mkdirSync(join(module, "src/bmm/bmad-prd/assets"), { recursive: true });
  writeFileSync(join(module, "src/bmm/module.yaml"), "code: bmm\nname: Decoy\n");
  writeFileSync(join(module, "src/bmm/decoy/SKILL.md"), "---\nname: decoy\ndescription: a decoy\n---\n# Decoy\n");
  writeFileSync(join(module, "src/bmm/bmad-prd/assets/prd-template.md"), "# INJECTED\n");
  const { client, close } = await connectBridge(bridge, folder("cwd-overlay"), { args: ["--path", module] });
  closers.push(close);
  const out = toolText(await client.callTool({ name: "bmad", arguments: { command: "*prd" } }));
  expect(out).toMatch(/^Resolved bmm\/bmad-prd from package \([^)]*\)\. 1 of its files come from elsewhere: bmm\/bmad-prd\/assets\/prd-template\.md from cli \(priority 2, overlaying-module\)\./);
});

describe("implicit roots", () => {
  it("warns about a BMAD_ROOT and a ~/.bmad with no tree, naming what was looked for, and serves the rest", async () => {
    const home = folder("home-with-bmad");
    mkdirSync(join(home, ".bmad"));
    writeFileSync(join(home, ".bmad/notes.txt"), "mine\n");
    const envRoot = folder("env-no-tree");
    const { client, stderr, close } = await connectBridge(bridge, folder("cwd-implicit"), { home, env: { BMAD_ROOT: envRoot } });
    closers.push(close);
    expect(toolText(await client.callTool({ name: "bmad", arguments: { command: "pm" } }))).toMatch(/\nOrigin: package /);
    expect(stderr()).toMatch(/warning: BMAD_ROOT=.*env-no-tree has no BMAD tree; skipped\. Looked for: _bmad\/_config\/skill-manifest\.csv/);
    expect(stderr()).toMatch(/warning: ~\/\.bmad \(.*home-with-bmad\/\.bmad\) has no BMAD tree; skipped\. Looked for: _bmad\/_config\/skill-manifest\.csv/);
  });
});
