// 6.12 trees: the bmad-method package source and a real installed project.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBundle, type BuildResult } from "../../src/compiler/build";
import { csvRows, findFiles, install, PKG, tempDir } from "./helpers";

const tmp = tempDir("skills");
const installed = join(tmp.dir, "installed");
const project = join(tmp.dir, "project");

beforeAll(async () => {
  await install("v6.12", installed);
  cpSync(installed, project, { recursive: true });
  const skill = join(project, ".claude/skills/bmad-agent-pm/SKILL.md");
  writeFileSync(skill, readFileSync(skill, "utf8").replace("# John — Product Manager", "# John — Project override"));
});
afterAll(() => tmp.cleanup());

describe("6.12 package source (default build)", () => {
  // One build serves every test here; budgets.test.ts times one on an idle machine.
  let built: BuildResult;
  const out = join(tmp.dir, "default");
  beforeAll(async () => {
    built = await buildBundle({ sources: [], outDir: out });
  }, 60_000);

  it("builds one skill record per SKILL.md", () => {
    const skills = findFiles(join(PKG, "bmad-method/src"), "SKILL.md");
    const records = built.manifest.records.filter((r) => r.skill);
    expect(records).toHaveLength(skills.length);
    expect(built.manifest.sources).toEqual([
      { kind: "npm", name: "bmad-method", version: "6.12.0", origin: "package", priority: 5, layout: "v6-skills-source" },
    ]);
  });

  it("serves the bmad-help catalog BMAD's installer assembles, byte for byte, though the source tree has none", () => {
    const file = built.manifest.files.find((f) => f.path === "_config/bmad-help.csv")!;
    expect(file).toMatchObject({ mime: "text/csv" });
    expect(new TextDecoder().decode(built.blobs.get(file.sha256))).toBe(readFileSync(join(installed, "_bmad/_config/bmad-help.csv"), "utf8"));
  });

  it("classifies agent and workflow skills", () => {
    const { manifest } = built;
    const agents = manifest.records.filter((r) => r.kind === "agent").map((r) => r.name);
    for (const a of ["analyst", "architect", "pm", "dev", "ux-designer"]) expect(agents).toContain(`bmad-agent-${a}`);
    const pm = manifest.records.find((r) => r.name === "bmad-agent-pm")!;
    expect(pm).toMatchObject({ module: "bmm", displayName: "John", title: "Product Manager", entry: "bmm/bmad-agent-pm/SKILL.md" });
    expect(pm.files).toEqual(["bmm/bmad-agent-pm/SKILL.md", "bmm/bmad-agent-pm/customize.toml"]);
    const prd = manifest.records.find((r) => r.name === "bmad-prd")!;
    expect(prd.kind).toBe("workflow");
    expect(prd.files[0]).toBe("bmm/bmad-prd/SKILL.md");
    expect(prd.files).toContain("bmm/bmad-prd/customize.toml");
    const paths = new Set(manifest.files.map((f) => f.path));
    for (const p of ["bmm/module.yaml", "bmm/module-help.csv", "core/module.yaml", "scripts/resolve_config.py"]) expect(paths).toContain(p);
    expect([...paths].some((p) => p.includes("__pycache__"))).toBe(false);
    expect(manifest.config.core?.output_folder).toBe("_bmad-output");
  });

  it("indexes the entry body of each record", () => {
    const index = JSON.parse(new TextDecoder().decode(built.blobs.get(built.manifest.searchIndex))) as { terms: Array<Record<string, number>> };
    expect(index.terms).toHaveLength(built.manifest.records.length);
    const i = built.manifest.records.findIndex((r) => r.name === "bmad-prd");
    expect(index.terms[i]!.requirements).toBeGreaterThan(0);
    expect(index.terms[i]!.the).toBeUndefined();
  });

  it("is deterministic: same id and identical manifest.json bytes", async () => {
    const again = join(tmp.dir, "again");
    const rebuilt = await buildBundle({ sources: [], outDir: again });
    expect(rebuilt.manifest.id).toBe(built.manifest.id);
    expect(readFileSync(join(again, "manifest.json")).equals(readFileSync(join(out, "manifest.json")))).toBe(true);
    expect(readFileSync(join(out, "manifest.json"), "utf8")).not.toContain(tmp.dir);
  });
});

describe("6.12 installed project", () => {
  it("has one skill record per skill-manifest.csv row, files taken from .claude/skills", async () => {
    const rows = csvRows(join(installed, "_bmad/_config/skill-manifest.csv"));
    const { manifest } = await buildBundle({ sources: [installed], includeDefault: false });
    expect(manifest.sources[0]).toMatchObject({ layout: "v6-skills-installed", origin: "cli", priority: 2, version: "6.12.0" });
    expect(manifest.records.filter((r) => r.skill)).toHaveLength(rows.length);
    const pm = manifest.records.find((r) => r.name === "bmad-agent-pm")!;
    expect(pm.files).toEqual(["bmm/bmad-agent-pm/SKILL.md", "bmm/bmad-agent-pm/customize.toml"]);
    expect(manifest.config.bmm?.user_skill_level).toBe("intermediate");
    expect(manifest.files.map((f) => f.path)).toContain("_config/skill-manifest.csv");
  });

  it("keeps both records when a project tree overrides the package", async () => {
    const { manifest } = await buildBundle({ sources: [`project=${project}`] });
    expect(manifest.sources.map((s) => [s.origin, s.priority])).toEqual([["project", 1], ["package", 5]]);
    const pms = manifest.records.filter((r) => r.name === "bmad-agent-pm");
    expect(pms.map((r) => manifest.sources[r.source]!.origin)).toEqual(["project", "package"]);
    const entries = manifest.files.filter((f) => f.path === "bmm/bmad-agent-pm/SKILL.md");
    expect(entries.map((f) => f.source)).toEqual([0, 1]);
    expect(entries[0]!.sha256).not.toBe(entries[1]!.sha256);
  });

  it("keeps the config of a module whose name is also an object property's", async () => {
    const odd = join(tmp.dir, "odd-module");
    cpSync(installed, odd, { recursive: true });
    mkdirSync(join(odd, "_bmad/constructor"));
    writeFileSync(join(odd, "_bmad/constructor/config.yaml"), "greeting: hello\n");
    const { manifest } = await buildBundle({ sources: [odd], includeDefault: false });
    expect(Object.hasOwn(manifest.config, "constructor") && manifest.config.constructor).toEqual({ greeting: "hello" });
  });
});
