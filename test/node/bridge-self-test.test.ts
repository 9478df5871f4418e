// `bmad-mcp --test` on real projects: a fresh 6.12 install passes with every check and toolset ok; a broken one
// (a manifest row whose skill is gone, a BMAD script someone changed, a root with no BMAD tree) exits 1 with one
// FAIL line per problem, naming it and the fix.
import { execFile } from "node:child_process";
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";
import { TOOLSET_NAMES } from "../../src/core/surface/toolsets";
import { installedProjects } from "./helpers.js";

const run = promisify(execFile);
const projects = installedProjects("bridge-self-test");

async function selfTest(cwd: string, args: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, [inject("bridge"), "--test", ...args], { cwd, env: { PATH: process.env.PATH!, HOME: join(projects.dir, "home-empty") }, timeout: 60_000 }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

describe("bmad-mcp --test", () => {
  it("passes on an installed 6.12 project, each check and toolset ok", async () => {
    const out = await selfTest(projects.project("fresh"));
    expect(out.code, out.stdout).toBe(0);
    expect(out.stdout).toMatch(/^ok {4}roots {5}project fresh@6\.12\.0 \(v6-skills-installed\): \d+ records$/m);
    expect(out.stdout).toMatch(/^ok {4}overrides \d+ of the embedded records are overridden, e\.g\. bmm\//m);
    expect(out.stdout).toMatch(/^ok {4}scripts {3}[1-9]\d* vouched for$/m);
    for (const toolset of TOOLSET_NAMES) expect(out.stdout).toMatch(new RegExp(`^ok {4}${toolset} +\\d+ tools?`, "m"));
    expect(out.stdout).not.toMatch(/^(FAIL|warn)/m);
    expect(out.stdout.trim().split("\n").at(-1)).toBe("PASS: ready to serve");
  });

  it("fails with exit 1 naming a manifest row whose skill is gone and a changed BMAD script", async () => {
    const dir = projects.project("broken");
    rmSync(join(dir, ".claude/skills/bmad-prd"), { recursive: true });
    appendFileSync(join(dir, "_bmad/scripts/memlog.py"), "\n# edited\n");
    const out = await selfTest(dir);
    expect(out.code, out.stdout).toBe(1);
    expect(out.stdout).toMatch(/^FAIL {2}bundle {4}broken: Skill bmad-prd listed in _bmad\/_config\/skill-manifest\.csv has no SKILL\.md/m);
    expect(out.stdout).toMatch(/^FAIL {2}scripts {3}_bmad\/scripts\/memlog\.py is not a script BMAD installed.*--allow-project-scripts/m);
    expect(out.stdout.trim().split("\n").at(-1)).toBe("FAIL: 2 problems");
  });

  it("fails with exit 1 when the named project root holds no BMAD tree", async () => {
    const dir = join(projects.dir, "no-tree");
    mkdirSync(join(dir, "_bmad/bmm/agents"), { recursive: true });
    writeFileSync(join(dir, "_bmad/bmm/agents/pm.md"), "# PM\n");
    const out = await selfTest(projects.dir, ["--project", dir]);
    expect(out.code, out.stdout).toBe(1);
    expect(out.stdout).toMatch(/^FAIL {2}bundle {4}--project .*no-tree: no BMAD tree found\. Looked for:/m);
  });

  it("refuses --list and --http beside it: --list exited 0 having checked nothing, --http was ignored", async () => {
    for (const flag of ["--list", "--http"]) {
      const out = await selfTest(projects.dir, [flag]);
      expect(out, flag).toMatchObject({ code: 2, stdout: "", stderr: expect.stringContaining(`--test with ${flag}: --test checks the project and exits 1 on a problem`) });
    }
  });
});
