// bmad-customize's list_customizable_skills.py beside its port, on a real 6.12 install (its own skills root, found
// from where the script is) and on the trees BMAD's own unit tests build (agent, workflow and dual surfaces, no
// customize.toml, team and user overrides, no surface block, malformed TOML, several roots, the first of a name
// winning, a missing root, a missing project root), plus frontmatter and file edges. And in linear time.
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { NodeRuntimeFs } from "../../src/bridge/runtime-fs.js";
import { frontmatterBody, main } from "../../src/core/runtime/list-customizable-skills.js";
import { SKILL_SCRIPTS } from "../../src/core/runtime/scripts.js";
import { expectSameAsPython, install612, PYTHON } from "../fixtures/runtime/harness.js";
import { MemoryFs } from "../fixtures/runtime/memory-fs.js";
import { tempDir } from "./helpers.js";

const tmp = tempDir("runtime-customize");
const project = join(tmp.dir, "project");
const script = join(project, ".claude/skills/bmad-customize/scripts/list_customizable_skills.py");
const compare = (cases: string[][]) => expectSameAsPython(script, main, cases, { cwd: tmp.dir });

beforeAll(async () => {
  await install612(project);
}, 60_000);

/** A skill folder with a customize.toml (text or bytes) and, if given, a SKILL.md. */
function skill(root: string, name: string, toml: string | Buffer | undefined, skillMd?: string | Buffer): void {
  mkdirSync(join(root, name), { recursive: true });
  if (toml !== undefined) writeFileSync(join(root, name, "customize.toml"), toml);
  if (skillMd !== undefined) writeFileSync(join(root, name, "SKILL.md"), skillMd);
}

it("is the port bmad-run runs for the skill's script", () => {
  expect(SKILL_SCRIPTS.get("bmad-customize/list_customizable_skills.py")).toBe(main);
});

it("lists the installed skills as list_customizable_skills.py does, with team and user overrides", async () => {
  await compare([["--project-root", project], ["--project-root", "project"], ["--project-root", "project/", "--extra-root", "project/.claude/skills"]]);
  const custom = join(project, "_bmad/custom");
  mkdirSync(custom, { recursive: true });
  writeFileSync(join(custom, "bmad-agent-pm.toml"), "[agent]\n");
  writeFileSync(join(custom, "bmad-agent-pm.user.toml"), "[agent]\n");
  writeFileSync(join(custom, "bmad-prd.user.toml"), "[workflow]\n");
  mkdirSync(join(custom, "bmad-agent-dev.toml")); // a folder is no override
  await compare([["--project-root", project]]);
  // Not two equal failures: the install's agents and workflows, the overrides found.
  const listed = JSON.parse((await main(["--project-root", project], { fs: await NodeRuntimeFs.create([tmp.dir]), cwd: tmp.dir, scriptPath: script })).stdout);
  const pm = listed.agents.find((a: { name: string }) => a.name === "bmad-agent-pm");
  expect([listed.agents.length > 3, listed.workflows.length > 10, pm.has_team_override, pm.has_user_override]).toEqual([true, true, true, true]);
  await compare([["--project-root", join(tmp.dir, "nowhere")], ["--project-root", join(project, "_bmad/custom/bmad-agent-pm.toml")], [], ["--help"], ["--extra-root"]]);
});

it("scans the trees BMAD's own tests build, and their edges, as the Python does", async () => {
  const root = join(tmp.dir, "unit");
  const skills = join(root, "skills");
  const extra = join(root, "extra-skills");
  const odd = join(root, "odd-skills");
  mkdirSync(join(root, "_bmad/custom"), { recursive: true });
  skill(skills, "bmad-agent-pm", '[agent]\nicon = "🧠"\n', "---\nname: bmad-agent-pm\ndescription: Product manager.\n---\n");
  skill(skills, "bmad-create-prd", "[workflow]\npersistent_facts = []\n", "---\nname: bmad-create-prd\ndescription: 'Create a PRD.'\n---\n");
  skill(skills, "bmad-dual", '[agent]\nicon = "x"\n\n[workflow]\npersistent_facts = []\n', "---\nname: bmad-dual\ndescription: Dual.\n---\n");
  skill(skills, "bmad-plain", undefined, "# plain\n");
  skill(skills, "bmad-broken", "[not_a_surface]\nfoo = 1\n");
  skill(skills, "bmad-bad", "this is not [valid toml\n");
  skill(skills, "bmad-q", '[agent]\nicon = "x"\n', '---\nname: bmad-q\ndescription: "Double-quoted desc."\n---\n');
  writeFileSync(join(root, "_bmad/custom/bmad-agent-pm.toml"), "[agent]\n");
  skill(extra, "bmad-agent-pm", '[agent]\nicon = "duplicate"\n', "---\nname: bmad-agent-pm\ndescription: Duplicate.\n---\n");
  skill(extra, "bmad-agent-dev", '[agent]\nicon = "y"\n', "---\nname: bmad-agent-dev\ndescription: Dev.\n---\n");
  // Edges: quotes, frontmatter shapes, line ends, bytes that are not UTF-8, a BOM, folders where files belong.
  skill(odd, "a-lone-quote", "[agent]\n", "---\ndescription: '\n---\n");
  skill(odd, "b-mixed-quotes", "[workflow]\n", "---\ndescription: 'half\"\n---\n");
  skill(odd, "c-empty-body", "[workflow]\n", "---\n\n---\ndescription: outside\n---\n");
  skill(odd, "d-crlf", "[workflow]\r\nx = 1\r\n", "---\r\ndescription:   Windows ✓ \r\n---\r\n");
  skill(odd, "e-no-close", "[workflow]\n", "---\ndescription: never closed\n");
  skill(odd, "f-latin1", "[agent]\n", Buffer.from("---\ndescription: caf\xe9\n---\n", "latin1"));
  skill(odd, "g-bom", "\ufeff[agent]\n", "---\ndescription: bom\n---\n");
  skill(odd, "h-spaces", "[agent]\n", "---  \t\n\n  description:  \u3000spaced\u3000\n---   \n");
  skill(odd, "i-no-description", "[agent]\n", "---\nname: x\n---\n");
  skill(odd, "j-empty-toml", "", "---\ndescription: empty\n---\n");
  skill(odd, "k-dashes-in-body", "[workflow]\n", "---\ndescription: first\n---x\n---\n");
  skill(odd, "l-md-folder", "[agent]\n");
  mkdirSync(join(odd, "l-md-folder/SKILL.md"));
  skill(odd, "m-toml-folder", undefined);
  mkdirSync(join(odd, "m-toml-folder/customize.toml"));
  skill(odd, "n-separators", "[workflow]\n", "---\nname: x\u2028description: split by a line separator\n---\n");
  skill(odd, "Z-upper", "[agent]\n", "---\ndescription: sorts first\n---\n");
  writeFileSync(join(odd, "a-file"), "not a skill");
  symlinkSync(join(extra, "bmad-agent-dev"), join(odd, "o-linked"));
  const badUtf8 = join(root, "bad-utf8");
  skill(badUtf8, "bmad-x", Buffer.from([0x5b, 0x61, 0x5d, 0x0a, 0xff]));

  const base = ["--project-root", root, "--skills-root", skills];
  await compare([
    base,
    [...base, "--extra-root", extra],
    [...base, "--extra-root", extra, "--extra-root", skills, "--extra-root", join(root, "does-not-exist")],
    ["--project-root", root, "--skills-root", join(root, "does-not-exist"), "--extra-root", extra],
    ["--project-root", "unit", "--skills-root", "unit/odd-skills", "--extra-root=unit/./skills/../extra-skills"],
    ["--project-root", root, "--skills-root", "", "--extra-root", odd],
    ["--project-root", join(root, "does-not-exist"), "--skills-root", skills],
    ["--project-root", root, "--skills-root", badUtf8],
  ]);
});

it("finds frontmatter in linear time on a 1 MiB hostile SKILL.md", async () => {
  const hostile = ["---" + "\n".repeat(1 << 20), "---\n" + "\n--- \t x".repeat(1 << 17), "---" + " \n".repeat(1 << 19) + "x"];
  const fs = new MemoryFs();
  hostile.forEach((text, i) => {
    fs.files.set(`/skills/s${i}/customize.toml`, new TextEncoder().encode("[agent]\n"));
    fs.files.set(`/skills/s${i}/SKILL.md`, new TextEncoder().encode(text));
  });
  const started = performance.now();
  const result = await main(["--project-root", "/skills", "--skills-root", "/skills"], { fs, cwd: "/" });
  expect(performance.now() - started).toBeLessThan(2000);
  expect(result.exitCode).toBe(0);
  expect(JSON.parse(result.stdout).agents.map((a: { description: string }) => a.description)).toEqual(["", "", ""]);
  // What the pattern finds, where a backtracking engine would take minutes.
  expect(frontmatterBody("---\n\n---\n")).toBe("");
  expect(frontmatterBody("---\n\ndescription: x\n---\n")).toBe("description: x");
});

it("finds the frontmatter FRONTMATTER_RE finds, on 3,000 strings of dashes, spaces and line breaks", () => {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pieces = ["---", "-", "\n", " ", "\t", "x", "\r", "\u3000"];
  const texts = Array.from({ length: 3000 }, () => "---" + Array.from({ length: Math.floor(next() * 14) }, () => pieces[Math.floor(next() * pieces.length)]).join(""));
  const python = `import json, re, sys\nR = re.compile(r"^---\\s*\\n(.*?)\\n---\\s*\\n", re.DOTALL)\nprint(json.dumps([(lambda m: m and m.group(1))(R.match(t)) for t in json.load(sys.stdin)]))`;
  const theirs = JSON.parse(execFileSync(PYTHON, ["-c", python], { input: JSON.stringify(texts), encoding: "utf8" })) as Array<string | null>;
  expect(texts.map((t) => frontmatterBody(t) ?? null)).toEqual(theirs);
});
