// Failures: unrecognised trees, escaping symlinks, malformed files, bad CLI arguments.
import { execFileSync } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBundle } from "../../src/compiler/build";
import { parseCli } from "../../scripts/build-bundle";
import { PKG, ROOT, tempDir } from "./helpers";

const tmp = tempDir("errors");
const skills = join(tmp.dir, "skills");

beforeAll(() => {
  cpSync(join(PKG, "bmad-method/src"), join(skills, "src"), { recursive: true });
  // One skill with broken TOML, one with broken frontmatter YAML.
  appendFileSync(join(skills, "src/bmm-skills/plan/bmad-prd/customize.toml"), "\n[broken\n");
  const ux = join(skills, "src/bmm-skills/plan/bmad-ux/SKILL.md");
  writeFileSync(ux, "---\nname: [unclosed\n---\n# UX\n");
});
afterAll(() => tmp.cleanup());

const only = (source: string) => buildBundle({ sources: [source], includeDefault: false });

describe("build errors", () => {
  it("names what it looked for in an empty dir", async () => {
    const empty = join(tmp.dir, "empty");
    mkdirSync(empty);
    await expect(only(empty)).rejects.toThrow(/No BMAD tree recognised in .*empty\. Looked for: _bmad\/_config\/skill-manifest\.csv.*bmad-core\/core-config\.yaml/);
  });

  it("refuses a named source whose tree yields nothing, from the CLI too (exit 1, nothing written)", async () => {
    const hollow = join(tmp.dir, "hollow");
    mkdirSync(join(hollow, "_bmad/_config"), { recursive: true });
    writeFileSync(join(hollow, "_bmad/_config/skill-manifest.csv"), "canonicalId,name,description,module,path\n");
    await expect(only(hollow)).rejects.toThrow(/The BMAD tree in .*hollow \(v6-skills-installed\) yields no agents, workflows, tasks or skills/);
    const out = join(tmp.dir, "hollow-out");
    let err: { status?: number; stderr?: Buffer } = {};
    try {
      execFileSync(process.execPath, [join(ROOT, "node_modules/tsx/dist/cli.mjs"), join(ROOT, "scripts/build-bundle.ts"), "--source", hollow, "--out", out], { stdio: "pipe" });
    } catch (e) {
      err = e as typeof err;
    }
    expect(err.status).toBe(1);
    expect(String(err.stderr)).toMatch(/bundle failed: The BMAD tree in .*hollow .*yields no agents, workflows, tasks or skills/);
    expect(existsSync(out)).toBe(false);
  });

  it("fails clearly on a missing path", async () => {
    await expect(only(join(tmp.dir, "nope"))).rejects.toThrow(/Cannot read source .*nope/);
  });

  it("refuses a symlink that leaves the tree, naming it", async () => {
    const tree = join(tmp.dir, "escape");
    cpSync(join(ROOT, "test/fixtures/v6-alpha"), tree, { recursive: true });
    symlinkSync("/etc", join(tree, "bmad/bmm/outside"));
    await expect(only(tree)).rejects.toThrow(/Refused symlink bmad\/bmm\/outside/);
  });

  it("follows symlinks inside the tree", async () => {
    const tree = join(tmp.dir, "inside");
    cpSync(join(ROOT, "test/fixtures/v6-alpha"), tree, { recursive: true });
    symlinkSync("../workflows", join(tree, "bmad/bmm/agents/linked"));
    const { manifest } = await only(tree);
    expect(manifest.files.map((f) => f.path)).toContain("bmm/agents/linked/prd/workflow.yaml");
  });

  it("warns about a symlink that points nowhere and a FIFO, naming each, and builds the rest", async () => {
    const tree = join(tmp.dir, "dangling");
    cpSync(join(ROOT, "test/fixtures/v6-alpha"), tree, { recursive: true });
    symlinkSync("../nowhere.md", join(tree, "bmad/bmm/agents/gone.md"));
    execFileSync("mkfifo", [join(tree, "bmad/bmm/agents/pipe.md")]);
    const result = await only(tree);
    expect(result.warnings).toEqual(expect.arrayContaining([
      expect.stringMatching(/Skipped bmad\/bmm\/agents\/gone\.md in .*: a symlink that points nowhere/),
      expect.stringMatching(/Skipped bmad\/bmm\/agents\/pipe\.md in .*: not a regular file/),
    ]));
    const clean = await only(join(ROOT, "test/fixtures/v6-alpha"));
    expect(result.manifest.records.map((r) => r.name)).toEqual(clean.manifest.records.map((r) => r.name));
  });

  it("warns about malformed TOML and YAML, naming the file, and builds the rest", async () => {
    const result = await only(skills);
    expect(result.warnings.some((w) => w.includes("bmad-prd/customize.toml") && w.includes("bad TOML"))).toBe(true);
    expect(result.warnings.some((w) => w.includes("bmad-ux/SKILL.md") && w.includes("bad frontmatter"))).toBe(true);
    const names = result.manifest.records.map((r) => r.name);
    expect(names).not.toContain("bmad-prd");
    expect(names).toContain("bmad-agent-pm");
    expect(result.manifest.files.map((f) => f.path)).toContain("bmm/bmad-prd/SKILL.md");
  });

  // Review 214: a skill named `a/../../b` or `x?uri=…` was served at a skill:// URI no read could reach.
  it("leaves out a skill whose name is not plain, naming it, and serves the rest", async () => {
    const tree = join(tmp.dir, "pathy-names");
    mkdirSync(join(tree, "src/acme"), { recursive: true });
    writeFileSync(join(tree, "src/acme/module.yaml"), 'code: acme\nname: "Acme"\ndescription: "Team skills"\n');
    const names = ["acme-lint.v2", "a/../../b", "x?uri=bmad://../../etc", "acme..up", "."];
    names.forEach((name, i) => {
      mkdirSync(join(tree, `src/acme/s${i}`));
      writeFileSync(join(tree, `src/acme/s${i}/SKILL.md`), `---\nname: ${JSON.stringify(name)}\ndescription: d\n---\n# S\n`);
    });
    const result = await only(tree);
    expect(result.manifest.records.map((r) => r.name)).toEqual(["acme-lint.v2"]);
    // After the five "calls itself …, not its folder's name" (s0 to s4).
    expect(result.manifest.warnings).toHaveLength(6);
    expect(result.manifest.warnings!.at(-1)).toBe(`pathy-names: 4 agents, workflows or skills left out: "a/../../b", "x?uri=bmad://../../etc", "acme..up", ".". A name holds no "/" (module/name is how one is qualified), and a skill's is letters, digits, "-", "_" and "." (not ".."), as BMAD's are: rename it in its SKILL.md or manifest row.`);
  });

  it("warns about a malformed manifest CSV and keeps the other manifests", async () => {
    const tree = join(tmp.dir, "badcsv");
    cpSync(join(ROOT, "test/fixtures/v6-alpha"), tree, { recursive: true });
    writeFileSync(join(tree, "bmad/_cfg/task-manifest.csv"), 'name,path\n"workflow,"oops\n');
    const result = await only(tree);
    expect(result.warnings.some((w) => w.includes("task-manifest.csv") && w.includes("bad CSV"))).toBe(true);
    expect(result.manifest.records.map((r) => r.name)).toEqual(["pm", "prd"]);
  });
});

describe("CLI arguments", () => {
  it("parses sources, out and --no-default", () => {
    expect(parseCli(["--source", "project=./x", "--source=bmad-v4", "--out", "o", "--no-default"])).toEqual({
      sources: ["project=./x", "bmad-v4"],
      out: "o",
      includeDefault: false,
    });
  });

  it("rejects unknown flags and prints usage from the CLI", () => {
    expect(() => parseCli(["--bogus"])).toThrow(/Unknown argument "--bogus"/);
    let err: { status?: number; stderr?: Buffer } = {};
    try {
      execFileSync(process.execPath, [join(ROOT, "node_modules/tsx/dist/cli.mjs"), join(ROOT, "scripts/build-bundle.ts"), "--bogus"], { stdio: "pipe" });
    } catch (e) {
      err = e as typeof err;
    }
    expect(err.status).toBe(2);
    expect(String(err.stderr)).toMatch(/Unknown argument "--bogus"[\s\S]*usage: npm run bundle/);
  });
});
