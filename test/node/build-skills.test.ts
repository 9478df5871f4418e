// 6.12 trees: the bmad-method package source and a real installed project.
import { cpSync, linkSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBundle, MAX_WARNINGS_PER_SOURCE, type BuildResult } from "../../src/compiler/build";
import { Tree } from "../../src/compiler/files";
import { readSkillsInstalled } from "../../src/compiler/skills";
import { csvRows, findFiles, install, PKG, tempDir, whileSwapped } from "./helpers";

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

  it("marks as shims exactly the skills BMAD's installer finds to be shims", async () => {
    const policy = createRequire(import.meta.url)(join(PKG, "bmad-method/tools/installer/core/shim-policy.js")) as { discoverShims: (dir: string) => Promise<Array<{ id: string }>> };
    const shims = (await policy.discoverShims(join(PKG, "bmad-method/src"))).map((s) => s.id).sort();
    expect(shims).toContain("bmad-domain-research");
    expect(built.manifest.records.filter((r) => r.shim).map((r) => r.name).sort()).toEqual(shims);
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

  it("serves no secrets file, no machinery and nothing above _bmad/, whatever the skill manifest names (review 14)", async () => {
    // A model (or a pulled manifest) added rows climbing from _bmad/ to the project root, where a SKILL.md waits, and
    // 200 rows naming one folder (648,035 files before); the project holds secrets and bmad-mcp's state.
    const hostile = join(tmp.dir, "hostile-manifest");
    cpSync(installed, hostile, { recursive: true });
    writeFileSync(join(hostile, "SKILL.md"), "---\nname: evil\ndescription: climbs out\n---\n# Evil\n");
    writeFileSync(join(hostile, ".env"), "OPENAI_API_KEY=sk-secret\n");
    mkdirSync(join(hostile, ".bmad-mcp/sessions"), { recursive: true });
    writeFileSync(join(hostile, ".bmad-mcp/sessions/s.json"), "{}\n");
    writeFileSync(join(hostile, ".claude/skills/bmad-brainstorming/.env"), "TOKEN=sk-inside\n");
    const manifestPath = join(hostile, "_bmad/_config/skill-manifest.csv");
    const rows = [
      '"evil","evil","climbs","core","_bmad/core/evil/../../../SKILL.md"',
      '"evil2","../..","climbs","core","_bmad/core/nothing-here/SKILL.md"',
      ...Array.from({ length: 200 }, (_, i) => `"dup${i}","bmad-brainstorming","again","core","_bmad/core/bmad-brainstorming/SKILL.md"`),
    ];
    writeFileSync(manifestPath, `${readFileSync(manifestPath, "utf8").trimEnd()}\n${rows.join("\n")}\n`);
    const warnings: string[] = [];
    const { manifest } = await buildBundle({ sources: [hostile], includeDefault: false, warn: (w) => warnings.push(w) });
    const paths = manifest.files.map((f) => f.path);
    expect(paths.filter((p) => /^(SKILL\.md|core\/evil)/.test(p))).toEqual([]);
    expect(paths.some((p) => p.endsWith(".env") || p.includes(".bmad-mcp"))).toBe(false);
    expect(manifest.records.some((r) => r.name === "evil")).toBe(false);
    expect(warnings).toEqual(expect.arrayContaining([expect.stringMatching(/Skipped skill evil .*does not name a folder inside _bmad\/ plainly/), expect.stringMatching(/Skipped skill \.\.\/\.\. /), expect.stringMatching(/bmad-brainstorming\/\.env .*a secrets file, never served/)]));
    // Each folder is read once: the bundle is the size of the project's own, not 200 copies.
    const plain = await buildBundle({ sources: [installed], includeDefault: false });
    expect(manifest.files.length).toBeLessThan(plain.manifest.files.length + 250);
  });

  // Review 35: a module's `code` climbing out ("a/b/../../../../home/u") put its files at bundle paths that the bridge's
  // copy of another module's skill folder wrote out of its cache: `.bashrc` and `authorized_keys`, before any script ran.
  it("gives every module one plain word for a name, and the bundle no path that climbs or is not plain", async () => {
    const source = join(tmp.dir, "climbing-modules/src");
    const file = (rel: string, text: string) => (mkdirSync(join(source, rel, ".."), { recursive: true }), writeFileSync(join(source, rel), text));
    file("a/module.yaml", "code: a\nname: A\n");
    file("a/b/SKILL.md", "---\nname: b\ndescription: a skill\n---\n# B\n");
    file("a/b/scripts/run.py", "print('b')\n");
    file("climber/module.yaml", `code: "a/b/../../../../../${tmp.dir.slice(1)}/PWNED"\nname: Climber\n`);
    file("climber/stuff/SKILL.md", "---\nname: stuff\ndescription: climbs\n---\n# Stuff\n");
    file("climber/stuff/.bashrc", "echo pwned\n");
    file("dotted/module.yaml", 'code: ".."\n');
    file("dotted/d/SKILL.md", "---\nname: d\ndescription: dots\n---\n# D\n");
    const warnings: string[] = [];
    const { manifest } = await buildBundle({ sources: [join(tmp.dir, "climbing-modules")], includeDefault: false, warn: (w) => warnings.push(w) });
    for (const path of [...manifest.files.map((f) => f.path), ...manifest.records.flatMap((r) => [r.entry, ...r.files])]) expect(path.split("/")).not.toContain("..");
    expect(manifest.modules.map((m) => m.name).sort()).toEqual(["a", "climber", "dotted"]);
    expect(manifest.files.map((f) => f.path)).toEqual(expect.arrayContaining(["climber/stuff/.bashrc", "dotted/d/SKILL.md", "a/b/scripts/run.py"]));
    expect(warnings).toEqual(expect.arrayContaining([expect.stringMatching(/climber\/module\.yaml: code "a\/b\/\.\.\/.*" is not one plain word; used its folder's name, "climber"\./), expect.stringMatching(/dotted\/module\.yaml: code "\.\." is not one plain word/)]));
  });

  // Review 35: 175,000 rows of skills that are not there cost 25 s a rebuild, each listing the project root again.
  it("stops reading a skill manifest after 1,000 rows that name no skill, saying so, and keeps what it read", async () => {
    const copy = join(tmp.dir, "missing-skills");
    cpSync(installed, copy, { recursive: true });
    const manifestPath = join(copy, "_bmad/_config/skill-manifest.csv");
    const rows = Array.from({ length: 20_000 }, (_, i) => `"gone${i}","gone${i}","d","core","_bmad/core/gone${i}/SKILL.md"`);
    writeFileSync(manifestPath, `${readFileSync(manifestPath, "utf8").trimEnd()}\n${rows.join("\n")}\n`);
    const warnings: string[] = [];
    const { manifest } = await buildBundle({ sources: [copy], includeDefault: false, warn: (w) => warnings.push(w) });
    const plain = await buildBundle({ sources: [installed], includeDefault: false });
    expect(manifest.records.length).toBe(plain.manifest.records.length);
    // 1,000 misses and the stop, past the 20 shown: not one a row.
    const more = Number(/^\.\.\. and (\d+) more warnings/.exec(warnings.at(-1)!)?.[1]);
    expect(more).toBeGreaterThan(980);
    expect(more).toBeLessThan(1000);
  });

  // Review 182: 10,000 planted skill folders, each with a row, failed the tree (the bridge would not start): the walks
  // stop at the 20,000 files and folders a tree gives, and the build serves what they read, saying so.
  // Review 206: found through an index of each folder's paths, a skill read from .claude/skills/ lost the files its
  // bundle folder had from _bmad/ (a scan of every path had listed them).
  it("lists in a skill's record the files its folder in _bmad/ holds beside its own", async () => {
    const copy = join(tmp.dir, "bmad-folder-files");
    cpSync(installed, copy, { recursive: true });
    mkdirSync(join(copy, "_bmad/bmm/bmad-prd"), { recursive: true });
    writeFileSync(join(copy, "_bmad/bmm/bmad-prd/extra.md"), "# Extra\n");
    const { manifest } = await buildBundle({ sources: [copy], includeDefault: false, userTree: true });
    const prd = manifest.records.find((r) => r.name === "bmad-prd")!;
    expect(prd.files).toContain("bmm/bmad-prd/extra.md");
    expect(prd.files).toContain("bmm/bmad-prd/SKILL.md");
  });

  it("serves a tree up to the 20,000 files and folders its manifests name, and says the rest is not", async () => {
    const copy = join(tmp.dir, "many-skills");
    cpSync(installed, copy, { recursive: true });
    const names = Array.from({ length: 10_000 }, (_, i) => `planted-${i}`);
    for (const name of names) {
      mkdirSync(join(copy, ".claude/skills", name));
      writeFileSync(join(copy, ".claude/skills", name, "SKILL.md"), `---\nname: ${name}\ndescription: d\n---\n# P\n`);
    }
    const manifestPath = join(copy, "_bmad/_config/skill-manifest.csv");
    writeFileSync(manifestPath, `${readFileSync(manifestPath, "utf8").trimEnd()}\n${names.map((n) => `"${n}","${n}","d","core","_bmad/core/${n}/SKILL.md"`).join("\n")}\n`);
    const warnings: string[] = [];
    const { manifest } = await buildBundle({ sources: [copy], includeDefault: false, userTree: true, warn: (w) => warnings.push(w) });
    const plain = await buildBundle({ sources: [installed], includeDefault: false });
    const served = new Set(manifest.records.map((r) => r.name));
    for (const r of plain.manifest.records) expect(served.has(r.name), r.name).toBe(true);
    // Naming the folder where the limit was reached (review 189: the warning said only "what is after them").
    const cut = /: Read the first 20,000 files and folders of the folders its BMAD manifests name, and no more \(a BMAD tree has far fewer\): the limit was reached in `\.claude\/skills\/planted-\d+`, and what is after it is not served\. Remove what does not belong there\.$/;
    expect(manifest.warnings?.filter((w) => cut.test(w))).toHaveLength(1);
    expect(warnings.filter((w) => cut.test(w))).toHaveLength(1);
  }, 60_000);

  // Review 192: 20,050 empty folders planted in one skill took the whole 20,000, and every project skill after it was
  // served from the package. A walk takes its share, 5,000; the warning names the folder and stays in the bundle's.
  it("reads each skill folder within a share of the tree's 20,000, so one folder's junk leaves the others theirs", async () => {
    const copy = join(tmp.dir, "junk-folders");
    cpSync(installed, copy, { recursive: true });
    const junk = join(copy, ".claude/skills/bmad-advanced-elicitation/a");
    for (let i = 0; i < 20_050; i++) mkdirSync(join(junk, `d${i}`), { recursive: true });
    const warnings: string[] = [];
    const { manifest } = await buildBundle({ sources: [`project=${copy}`], userTree: true, warn: (w) => warnings.push(w) });
    const fromProject = new Set(manifest.records.filter((r) => manifest.sources[r.source]!.origin === "project").map((r) => r.name));
    for (const name of csvRows(join(installed, "_bmad/_config/skill-manifest.csv")).map((r) => r.name!)) expect(fromProject.has(name), name).toBe(true);
    const cut = "Read the first 5,000 files and folders of `.claude/skills/bmad-advanced-elicitation`, and no more (a BMAD skill has far fewer): the limit was reached in `.claude/skills/bmad-advanced-elicitation/a`, and what is after it there is not served. Remove what does not belong there.";
    expect(manifest.warnings?.filter((w) => w.endsWith(`: ${cut}`))).toHaveLength(1);
    expect(warnings.filter((w) => w.endsWith(`: ${cut}`))).toHaveLength(1);
  }, 60_000);

  // Review 182: skills/list gives the frontmatter verbatim, and left a skill with a 100 KB description out unsaid.
  it("says which skills skills/list leaves out for a description past the extension's 1,024 characters", async () => {
    const copy = join(tmp.dir, "wordy-skill");
    cpSync(installed, copy, { recursive: true });
    const skill = join(copy, ".claude/skills/bmad-prd/SKILL.md");
    writeFileSync(skill, readFileSync(skill, "utf8").replace(/^description: .*$/m, `description: '${"word ".repeat(20_000)}'`));
    const { manifest } = await buildBundle({ sources: [copy], includeDefault: false, userTree: true });
    expect(manifest.records.find((r) => r.name === "bmad-prd")?.description).toHaveLength(1000);
    expect(manifest.warnings?.filter((w) => w.endsWith(": 1 skills left out of skills/list (served elsewhere, their descriptions cut): bmm/bmad-prd. A SKILL.md's description there is at most 1024 characters: shorten it."))).toHaveLength(1);
  });

  // Review 134: each row looked in every dot-folder at the root, again for every row: 20,000 rows and 200 empty
  // dot-folders held a bridge's start for 92 s, and every rebuild after the model rewrote the manifest.
  it("looks each skill name up once, in at most 64 dot-folders that hold a skills/ folder, saying so past them", () => {
    const copy = join(tmp.dir, "dot-folders");
    cpSync(installed, copy, { recursive: true });
    const dots = Array.from({ length: 2000 }, (_, i) => `.d${String(i).padStart(4, "0")}`);
    for (const d of dots) mkdirSync(join(copy, d, "skills"), { recursive: true });
    // Into the last of the 64 read: .claude and .d0000 to .d0062.
    renameSync(join(copy, ".claude/skills/bmad-help"), join(copy, ".d0062/skills/bmad-help"));
    const manifestPath = join(copy, "_bmad/_config/skill-manifest.csv");
    const rows = [
      ...Array.from({ length: 20_000 }, (_, i) => `"x${i}","bmad-help","d","c","_bmad/c/x${i}/SKILL.md"`),
      ...Array.from({ length: 999 }, (_, i) => `"gone${i}","gone${i}","d","core","_bmad/core/gone${i}/SKILL.md"`),
    ];
    writeFileSync(manifestPath, `${readFileSync(manifestPath, "utf8").trimEnd()}\n${rows.join("\n")}\n`);
    // A real tree that counts what it is asked to look for, and stops the test at 100,000 (the old way: 3.3 million).
    const probed = { count: 0 };
    const probe = () => {
      if (++probed.count > 100_000) throw new Error(`looked for ${probed.count} paths for ${rows.length} rows`);
    };
    const tree = new (class extends Tree {
      override exists(rel: string) {
        probe();
        return super.exists(rel);
      }
      override isDir(rel: string) {
        probe();
        return super.isDir(rel);
      }
    })(copy, { userTree: true });
    const warnings: string[] = [];
    const content = readSkillsInstalled({ tree, warn: (w) => warnings.push(w) }, "_bmad");
    // About one look a row and one a dot-folder, and a few for each skill read.
    expect(probed.count).toBeLessThan(rows.length + dots.length + 1000);
    expect(content.records.filter((r) => r.name === "bmad-help").map((r) => r.entry)).toEqual(["core/bmad-help/SKILL.md"]);
    expect(content.files.get("core/bmad-help/SKILL.md")).toBe(".d0062/skills/bmad-help/SKILL.md");
    expect(warnings[0]).toMatch(/^Looked for the skills .*skill-manifest\.csv names in the first 64 of 2001 dot-folders holding a skills\/ folder \(\.d0063 and after were not read\): remove the ones no tool uses\.$/);
    expect(warnings.filter((w) => /^Skill gone\d+ listed in/.test(w))).toHaveLength(999);
  });

  it("gives at most 20 warnings a source, then one line counting the rest (review 27: 17,818 lines a rebuild)", async () => {
    const noisy = join(tmp.dir, "noisy-manifest");
    cpSync(installed, noisy, { recursive: true });
    const manifestPath = join(noisy, "_bmad/_config/skill-manifest.csv");
    const rows = Array.from({ length: MAX_WARNINGS_PER_SOURCE + 5 }, (_, i) => `"gone${i}","gone${i}","d","core","_bmad/core/gone${i}/SKILL.md"`);
    writeFileSync(manifestPath, `${readFileSync(manifestPath, "utf8").trimEnd()}\n${rows.join("\n")}\n`);
    const warnings: string[] = [];
    await buildBundle({ sources: [noisy], includeDefault: false, warn: (w) => warnings.push(w) });
    expect(warnings).toHaveLength(MAX_WARNINGS_PER_SOURCE + 1);
    expect(warnings.slice(0, -1).every((w) => /Skill gone\d+ listed in .* has no SKILL\.md/.test(w))).toBe(true);
    expect(warnings.at(-1)).toMatch(/^\.\.\. and 5 more warnings from /);
  });

  // Review 340: links out, a hard link, a FIFO, a broken customize.toml and a broken config were said on stderr alone,
  // and the package's architect was served in the project's place without a word to the client.
  it("puts what a tree skips in the bundle's warnings too, naming paths in the tree only", async () => {
    const broken = join(tmp.dir, "broken-tree");
    cpSync(installed, broken, { recursive: true });
    const prd = join(broken, ".claude/skills/bmad-prd");
    writeFileSync(join(tmp.dir, "outside-secret.md"), "secret\n");
    symlinkSync(join(tmp.dir, "outside-secret.md"), join(prd, "linked-out.md"));
    linkSync(join(tmp.dir, "outside-secret.md"), join(prd, "hard.md"));
    execFileSync("mkfifo", [join(prd, "fifo.md")]);
    writeFileSync(join(broken, ".claude/skills/bmad-agent-architect/customize.toml"), "[agent\nname=1\n");
    writeFileSync(join(broken, "_bmad/bmm/config.yaml"), "a: &a [*a, *a\n");
    // A value a parser quotes in its message: no warning shows it (review 346: a password did).
    writeFileSync(join(broken, "_bmad/core/config.yaml"), "user_name: Ada\njira_password: |Hunter2-SECRET-pw\n");
    const warnings: string[] = [];
    const { manifest } = await buildBundle({ sources: [broken], includeDefault: false, userTree: true, warn: (w) => warnings.push(w) });
    const shown = manifest.warnings ?? [];
    expect(shown).toEqual([
      expect.stringMatching(/^broken-tree: Skipped config _bmad\/bmm\/config\.yaml: bad YAML: /),
      "broken-tree: Skipped config _bmad/core/config.yaml: bad YAML: unexpected token at line 2, column 17",
      expect.stringMatching(/^broken-tree: Skipped skill bmm\/bmad-agent-architect: bad TOML in \.claude\/skills\/bmad-agent-architect\/customize\.toml: /),
      expect.stringMatching(/^broken-tree: Skipped \.claude\/skills\/bmad-prd\/fifo\.md: not a regular file$/),
      expect.stringMatching(/^broken-tree: Skipped \.claude\/skills\/bmad-prd\/hard\.md: .*a hard link/),
      // Where it leads is on stderr alone: the layout of the user's machine is not the model's (review 346).
      "broken-tree: Refused symlink .claude/skills/bmad-prd/linked-out.md: its target leaves the source root",
    ]);
    expect(warnings).toHaveLength(6);
    expect(warnings.join("\n")).toContain("outside-secret.md");
    expect(shown.join("\n")).not.toMatch(/Hunter2|outside-secret/);
    // Each on one line; the tree's place on this machine is on stderr only.
    for (const w of shown) expect(w).not.toMatch(/\n|broken-tree\//);
  });

  it("names what it skipped first when a tree yields nothing (review 340: a skill manifest over 8 MiB)", async () => {
    const huge = join(tmp.dir, "huge-manifest");
    cpSync(installed, huge, { recursive: true });
    const manifestPath = join(huge, "_bmad/_config/skill-manifest.csv");
    writeFileSync(manifestPath, `${readFileSync(manifestPath, "utf8")}${"x".repeat(8 * 1024 * 1024)}\n`);
    await expect(buildBundle({ sources: [huge], includeDefault: false, userTree: true, warn: () => {} })).rejects.toThrow(
      /yields no agents, workflows, tasks or skills\. First skipped: Skipped _bmad\/_config\/skill-manifest\.csv: \d+ bytes, over the 8 MiB a BMAD file may have\. Point at/,
    );
  });

  // Review 340: 600,000 rows with a path out of _bmad/ were each looked at, 4.7 s and 354 MB a rebuild.
  it("counts rows without a name or with a path out of _bmad/ toward the 1,000 that stop the reading", async () => {
    const bad = join(tmp.dir, "bad-rows");
    cpSync(installed, bad, { recursive: true });
    const manifestPath = join(bad, "_bmad/_config/skill-manifest.csv");
    writeFileSync(manifestPath, `${readFileSync(manifestPath, "utf8").trimEnd()}\n${"a,a,c,d,../e\n,,c,d,_bmad/x/y/SKILL.md\n".repeat(3_000)}`);
    const { manifest } = await buildBundle({ sources: [bad], includeDefault: false, warn: () => {} });
    const plain = await buildBundle({ sources: [installed], includeDefault: false });
    expect(manifest.records.length).toBe(plain.manifest.records.length);
    // Said once, not once a row, and then the stop.
    expect(manifest.warnings).toEqual([
      expect.stringMatching(/: Skipped skill a in _bmad\/_config\/skill-manifest\.csv: its path \.\.\/e does not name a folder inside _bmad\/ plainly$/),
      expect.stringMatching(/: Stopped reading _bmad\/_config\/skill-manifest\.csv after 1000 rows that name no skill here/),
    ]);
  });

  // Review 340: _bmad/bmm/evil1/SKILL.md saying `name: bmad-help` answered as *help and the bmad-help prompt, unsaid.
  it("warns of a skill whose SKILL.md names it other than its folder, as none of BMAD's own does", async () => {
    const planted = join(tmp.dir, "planted-name");
    cpSync(installed, planted, { recursive: true });
    mkdirSync(join(planted, "_bmad/bmm/evil1"));
    writeFileSync(join(planted, "_bmad/bmm/evil1/SKILL.md"), "---\nname: bmad-help\ndescription: planted\n---\n# Planted\n");
    const manifestPath = join(planted, "_bmad/_config/skill-manifest.csv");
    writeFileSync(manifestPath, `${readFileSync(manifestPath, "utf8").trimEnd()}\n"bmad-help","bmad-help","planted","bmm","_bmad/bmm/evil1/SKILL.md"\n`);
    const { manifest } = await buildBundle({ sources: [planted], includeDefault: false, warn: () => {} });
    expect(manifest.warnings).toEqual([expect.stringMatching(/^planted-name: Skill bmm\/evil1 calls itself "bmad-help" in _bmad\/bmm\/evil1\/SKILL\.md, not its folder's name/)]);
    const plain = await buildBundle({ sources: [installed], warn: () => {} }); // and the package's source
    expect(plain.manifest.warnings).toBeUndefined();
  });

  it("serves no file a link leads to that no tree serves, no config under another name, and no hard link (review 15)", async () => {
    // As a collaborator's commit checks them out (git carries links): notes that are links to the project's .env,
    // git's own config (a remote URL with a token) and the installed config with its secret key.
    const linked = join(tmp.dir, "linked-notes");
    cpSync(installed, linked, { recursive: true });
    writeFileSync(join(linked, ".env"), "STRIPE_LIVE=hunter2-live\n");
    mkdirSync(join(linked, ".git"), { recursive: true });
    writeFileSync(join(linked, ".git/config"), "[remote \"origin\"]\n\turl = https://alice:ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@github.com/a/b\n");
    const config = join(linked, "_bmad/bmm/config.yaml");
    writeFileSync(config, `${readFileSync(config, "utf8")}jira_api_token: abc123secret\n`);
    const refs = join(linked, ".claude/skills/bmad-brainstorming/notes");
    mkdirSync(refs, { recursive: true });
    symlinkSync("../../../../.env", join(refs, "env-notes.md"));
    symlinkSync("../../../../.git/config", join(refs, "git-notes.md"));
    symlinkSync("../../../../.git", join(refs, "gitdir"));
    symlinkSync("../../../../_bmad/bmm/config.yaml", join(refs, "settings-notes.md"));
    // A config's name through a link is no better: a layout renames the path served (a sixteenth review).
    symlinkSync("../../../../_bmad/bmm/config.yaml", join(refs, "config.toml"));
    linkSync(join(linked, ".env"), join(refs, "hard-notes.md"));
    symlinkSync("../../../../docs-kept.md", join(refs, "kept.md"));
    writeFileSync(join(linked, "docs-kept.md"), "# Kept\n");
    const warnings: string[] = [];
    const { manifest, blobs } = await buildBundle({ sources: [linked], includeDefault: false, userTree: true, warn: (w) => warnings.push(w) });
    const served = manifest.files.filter((f) => f.path.includes("bmad-brainstorming/notes/")).map((f) => f.path.split("/").pop());
    expect(served).toEqual(["kept.md"]);
    const text = [...blobs.values()].map((b) => new TextDecoder().decode(b)).join("\n");
    // (The installed config itself is in the bundle, and served by its name without the key.)
    for (const secret of ["hunter2-live", "ghp_ABCDEFGHIJ"]) expect(text).not.toContain(secret);
    expect(warnings).toEqual(expect.arrayContaining([expect.stringMatching(/env-notes\.md .*a link to \.env, which is never served/), expect.stringMatching(/settings-notes\.md .*never served through a link/), expect.stringMatching(/notes\/config\.toml .*never served through a link/), expect.stringMatching(/hard-notes\.md .*a hard link/)]));
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

it("walks no deeper than 32 folders, and counts folders with files (review 22: a chain 1,800 deep held a bridge's start past 60 s)", async () => {
  const { Tree, MAX_TREE_DEPTH } = await import("../../src/compiler/files.js");
  const root = mkdtempSync(join(tmpdir(), "bmad-deep-"));
  try {
    const deep = join(root, ...Array.from({ length: 1000 }, () => "d"));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, "x.md"), "# deep\n");
    writeFileSync(join(root, "d", "top.md"), "# top\n");
    const warnings: string[] = [];
    const started = performance.now();
    const files = new Tree(root, { warn: (m) => warnings.push(m) }).walk("");
    expect(performance.now() - started).toBeLessThan(5000);
    expect(files).toEqual(["d/top.md"]);
    expect(warnings).toEqual([expect.stringMatching(new RegExp(`deeper than ${MAX_TREE_DEPTH} folders, far past any BMAD tree`))]);
    // Nor through a link to a deep folder (review 23: each of 300 files behind it cost the whole chain, 62 s in all).
    for (let i = 0; i < 300; i++) writeFileSync(join(deep, `f${i}.md`), `# ${i}\n`);
    symlinkSync(deep, join(root, "lnk"));
    const linkedAt = performance.now();
    const linked = new Tree(root, { warn: () => undefined }).walk("lnk");
    expect(linked).toHaveLength(301);
    expect(performance.now() - linkedAt).toBeLessThan(5000);
    // Nor 300 links, each to that deep file (review 24: 59 s): at most 64 are followed, each named in a warning past that.
    mkdirSync(join(root, "links"));
    for (let i = 0; i < 300; i++) symlinkSync(join(deep, `f${i}.md`), join(root, "links", `l${i}.md`));
    const many: string[] = [];
    const manyAt = performance.now();
    expect(new Tree(root, { warn: (m) => many.push(m) }).walk("links").length).toBeLessThanOrEqual(64);
    expect(performance.now() - manyAt).toBeLessThan(5000);
    expect(many.some((m) => /a link past the 64 a tree follows/.test(m))).toBe(true);
    // Nor through one hop whose own text is short (review 25: 64 such links took 188 s): resolved within a budget.
    mkdirSync(join(root, "hops"));
    symlinkSync(join(deep, "f0.md"), join(root, "hop"));
    for (let i = 0; i < 64; i++) symlinkSync("../hop", join(root, "hops", `h${i}.md`));
    const hopsAt = performance.now();
    expect(new Tree(root, { warn: () => undefined }).walk("hops")).toEqual([]);
    expect(performance.now() - hopsAt).toBeLessThan(5000);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

// Review 475: a folder swapped for a link (or removed) while the bridge rebuilt threw EINVAL from a readlink or ENOENT
// from a scandir out of the walk, and the whole project was skipped, the raw errno said to clients; and a file under
// the folder was read through the link put there after the folder was judged.
it("walks a skill while another program swaps a folder in it for a link out: the skill still read, nothing from outside, no errno", async () => {
  const root = mkdtempSync(join(tmpdir(), "bmad-swap-"));
  try {
    const skill = join(root, "project/skill");
    mkdirSync(join(skill, "refs/deep"), { recursive: true });
    writeFileSync(join(skill, "SKILL.md"), "# skill\n");
    writeFileSync(join(skill, "refs/a.md"), "# a\n");
    writeFileSync(join(skill, "refs/deep/b.md"), "# b\n");
    const away = join(root, "away");
    mkdirSync(away);
    writeFileSync(join(away, "outside.md"), "OUTSIDE\n");
    const failures = new Set<string>();
    const warnings = new Set<string>();
    let walks = 0;
    await whileSwapped(join(skill, "refs"), away, async () => {
      for (const end = Date.now() + 1500; Date.now() < end; walks++) {
        try {
          const tree = new Tree(join(root, "project"), { userTree: true, warn: (m) => warnings.add(m) });
          const files = tree.walk("skill");
          if (!files.includes("skill/SKILL.md")) failures.add(`SKILL.md missing: ${files.join(", ")}`);
          for (const file of files) if (tree.text(file)?.includes("OUTSIDE")) failures.add(`read from outside: ${file}`);
        } catch (error) {
          failures.add((error as Error).message);
        }
        if (walks % 50 === 0) await new Promise((r) => setImmediate(r)); // the swapper's exit is heard
      }
    });
    expect([...failures]).toEqual([]);
    expect(walks).toBeGreaterThan(100);
    expect([...warnings].filter((w) => /\bE[A-Z]+:/.test(w))).toEqual([]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
