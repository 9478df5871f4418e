// render_skill.py and its port: every installed skill rendered (or refused) by each on the same tree
// at the same path, then customized and broken renders; output, exit code and every file compared.
import { createHash } from "node:crypto";
import { appendFileSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ScriptResult } from "../../src/core/runtime/context.js";
import { RENDERER_SHA256 } from "../../src/core/runtime/render-skill.js";
import { comparable, install612, tomlReason, resetTree, runPort, runPython, skillNames, snapshot } from "../fixtures/runtime/harness.js";
import { tempDir } from "./helpers.js";

const tmp = tempDir("runtime-render");
const template = join(tmp.dir, "template");
const tree = join(tmp.dir, "Render Proj ✓");
const SCRIPT = "_bmad/scripts/render_skill.py";
let skills: string[] = [];

interface Step {
  args: string[];
  cwd?: string;
  before?: () => void;
}

const skill = (name: string) => join(tree, ".claude/skills", name);
const custom = (name: string, text: string) => writeFileSync(join(tree, "_bmad/custom", name), text);
const generations = (name: string) => {
  const base = join(tree, "_bmad/render", name);
  return readdirSync(base).flatMap((slug) => readdirSync(join(base, slug)).map((gen) => join(base, slug, gen)));
};

function steps(): Step[] {
  const render = (name: string, before?: () => void): Step => ({ args: ["--project-root", tree, "--skill", skill(name)], before });
  return [
    ...skills.map((name) => render(name)),
    // Rendering again verifies the generation that is there.
    render("bmad-build"),
    { args: ["--project-root", ".", "--skill", ".claude/skills/bmad-build-auto/"], cwd: tree },
    // Team and user customization: review layers merged by id, a condition, a disabled layer, lists, {skill-root}.
    render("bmad-build", () => {
      custom(
        "bmad-build.toml",
        [
          "[workflow]",
          'persistent_facts = ["file:{project-root}/docs/*.md", "Team fact\\nwith a second line\\n"]',
          'on_complete = "Tell the team: {skill-root}/done.md"',
          'open_spec = ""',
          "[[workflow.review_layers]]",
          'id = "blind-hunter"',
          'instruction = ""',
          "[[workflow.review_layers]]",
          'id = "security"',
          'name = "Security Sweep"',
          'when = "the diff touches auth"',
          'instruction = "  Read {skill-root}/review-prompts/edge-case-hunter.md and look for secrets.  "',
        ].join("\n"),
      );
      custom("bmad-build.user.toml", '[workflow]\nactivation_steps_append = ["Say hi 👋"]\n[[workflow.review_layers]]\nid = "security"\ninstruction = "User version"\n');
    }),
    render("bmad-build", () => custom("bmad-build.user.toml", "[workflow]\npersistent_facts = [\"\"]\n")),
    render("bmad-build", () => custom("bmad-build.user.toml", "[[workflow.review_layers]]\nid = \"edge-case-hunter\"\ninstruction = \" \"\n[[workflow.review_layers]]\nid = \"verification-gap\"\ninstruction = \"\"\n[[workflow.review_layers]]\nid = \"security\"\ninstruction = \"\"\n")),
    // Broken customization and config: each refused with Python's message.
    render("bmad-build", () => custom("bmad-build.user.toml", "[workflow]\npersistent_facts = \"not a list\"\n")),
    render("bmad-build", () => custom("bmad-build.user.toml", "[workflow]\non_complete = 3\n")),
    render("bmad-build", () => custom("bmad-build.user.toml", '[[workflow.review_layers]]\nid = "x"\nname = ""\ninstruction = "y"\n')),
    render("bmad-build", () => custom("bmad-build.user.toml", '[[workflow.review_layers]]\nid = "x"\ninstruction = "y"\nwhen = " "\n')),
    render("bmad-build", () => custom("bmad-build.user.toml", "[workflow]\nreview_layers = 5\n")),
    render("bmad-build", () => custom("bmad-build.user.toml", '[workflow]\nimplementation_handoff = "   "\n')),
    render("bmad-build", () => custom("bmad-build.user.toml", '[workflow]\nactivation_steps_prepend = ["ok", 1]\n')),
    render("bmad-build", () => custom("bmad-build.user.toml", "[workflow]\nreview_layers = [1]\n")),
    render("bmad-build", () => custom("bmad-build.user.toml", '[workflow]\nreview_layers = [{ name = "no id", instruction = "x" }]\n')),
    render("bmad-build", () => custom("bmad-build.user.toml", "[workflow\n")),
    render("bmad-build", () => {
      rmSync(join(tree, "_bmad/custom/bmad-build.user.toml"));
      custom("config.toml", '[core]\nplanning_artifacts = "elsewhere"\n');
    }),
    render("bmad-build", () => custom("config.toml", "[modules.bmm]\nimplementation_artifacts = 5\n")),
    render("bmad-build", () => custom("config.toml", '[modules.bmm]\nimplementation_artifacts = "x{project-root}"\n')),
    render("bmad-build", () => custom("config.toml", '[modules.bmm]\nimplementation_artifacts = ""\n')),
    render("bmad-build", () => custom("config.toml", '[core]\nuser_skill_level = "expert"\n')),
    // Authored tokens of every kind, and snapshot references that name no source.
    render("bmad-build-auto", () => {
      custom("config.toml", "# reset\n");
      mkdirSync(join(skill("bmad-build-auto"), "notes/deep"), { recursive: true });
      writeFileSync(join(skill("bmad-build-auto"), "notes/deep/a.md"), "{{config.core.user_name}} {{config.modules.bmm.project_knowledge}} {{.user_name}}\r\nsee [[bmad-snapshot:notes/deep/a.md]]\r{workflow.on_complete}\n");
      writeFileSync(join(skill("bmad-build-auto"), "notes/SKILL.md"), "{{.nope}}");
      writeFileSync(join(skill("bmad-build-auto"), "notes-b.md"), "{{config.core.communication_language}}");
    }),
    render("bmad-build-auto", () => writeFileSync(join(skill("bmad-build-auto"), "notes/deep/b.md"), "[[bmad-snapshot:nope.md]]")),
    render("bmad-build-auto", () => writeFileSync(join(skill("bmad-build-auto"), "notes/deep/b.md"), "{{config.core.nope}}")),
    render("bmad-build-auto", () => writeFileSync(join(skill("bmad-build-auto"), "notes/deep/b.md"), "{{.nope}}")),
    render("bmad-build-auto", () => writeFileSync(join(skill("bmad-build-auto"), "notes/deep/b.md"), "{workflow.nope.deeper}")),
    render("bmad-build-auto", () => writeFileSync(join(skill("bmad-build-auto"), "notes/deep/b.md"), Buffer.from([0x61, 0xe2, 0x82]))),
    render("bmad-build-auto", () => rmSync(join(skill("bmad-build-auto"), "notes"), { recursive: true })),
    // A link leading out of the project: refused as escaping, not passed over as missing (review 456).
    render("bmad-build-auto", () => symlinkSync("/etc/hostname", join(skill("bmad-build-auto"), "link.md"))),
    // A linked folder is not gone into, as rglob goes not (review 462: `again -> .` recursed until its path was 4 KB).
    render("bmad-build-auto", () => {
      rmSync(join(skill("bmad-build-auto"), "link.md"));
      symlinkSync(".", join(skill("bmad-build-auto"), "again"));
    }),
    render("bmad-help", () => writeFileSync(join(skill("bmad-help"), "workflow.md"), "{workflow.anything}")),
    render("bmad-help", () => mkdirSync(join(skill("bmad-help"), "dir.md"))),
    // Generations that are there but not as written.
    render("bmad-build", () => {
      custom("bmad-build.toml", "# reset\n");
      rmSync(join(tree, "_bmad/render/bmad-build"), { recursive: true });
    }),
    render("bmad-build", () => appendFileSync(join(generations("bmad-build")[0]!, "workflow.md"), "tampered")),
    render("bmad-build", () => writeFileSync(join(generations("bmad-build")[0]!, "stray.txt"), "x")),
    render("bmad-build", () => writeFileSync(join(generations("bmad-build")[0]!, "manifest.json"), '{"schema_version": 1}')),
    render("bmad-build", () => rmSync(join(generations("bmad-build")[0]!, "manifest.json"))),
    // Missing places and bad arguments.
    { args: ["--project-root", join(tmp.dir, "nowhere/deeper"), "--skill", skill("bmad-build")] },
    { args: ["--project-root", tree, "--skill", skill("nope")] },
    { args: ["--project-root", join(tree, "docs"), "--skill", skill("bmad-build")], before: () => mkdirSync(join(tree, "docs"), { recursive: true }) },
    { args: ["--project-root", tree] },
    { args: ["--skill", "x", "--project-root"] },
    { args: ["--project-root=a", "--skill=b", "c"] },
    { args: ["-h"] },
  ];
}

async function runAll(impl: "python" | "port"): Promise<Array<{ result: ScriptResult; files: Map<string, string> }>> {
  resetTree(template, tree);
  const out = [];
  for (const step of steps()) {
    step.before?.();
    const options = { cwd: step.cwd ?? tree, root: tmp.dir };
    const script = join(tree, SCRIPT);
    const result = impl === "python" ? await runPython(script, step.args, options) : await runPort(script, step.args, options);
    out.push({ result: comparable(result), files: snapshot(tree) });
  }
  return out;
}

beforeAll(async () => {
  await install612(tree, ["bmm.project_knowledge=research"]);
  cpSync(tree, template, { recursive: true });
  skills = skillNames(template);
}, 60_000);
afterAll(() => tmp.cleanup());

it("the port's renderer identity is 6.12's render_skill.py", () => {
  expect(createHash("sha256").update(readFileSync(join(template, SCRIPT))).digest("hex")).toBe(RENDERER_SHA256);
});

it("renders every installed skill that renders, and refuses the rest, byte for byte like Python", async () => {
  const python = await runAll("python");
  const port = await runAll("port");
  const list = steps();
  const view = (runs: typeof python) => runs.map((r, i) => ({ step: list[i]!.args.join(" ").split(tmp.dir).join(""), ...r.result, stdout: tomlReason(r.result.stdout) }));
  expect(view(port)).toEqual(view(python));
  for (let i = 0; i < list.length; i++) {
    const differ = [...new Set([...port[i]!.files.keys(), ...python[i]!.files.keys()])].filter((k) => port[i]!.files.get(k) !== python[i]!.files.get(k));
    expect({ step: i, differ }).toEqual({ step: i, differ: [] });
  }
  const rendered = python.slice(0, skills.length).filter((r) => r.result.stdout.startsWith("read and follow "));
  expect(rendered.length).toBe(2);
  expect(python.slice(0, skills.length).filter((r) => r.result.stdout.startsWith("HALT: render entry is missing")).length).toBe(skills.length - 2);
  expect(python.filter((r) => r.result.stdout.startsWith("read and follow ")).length).toBe(11);
  expect(python.filter((r) => r.result.stdout.startsWith("HALT: ")).length).toBe(list.length - 11 - 4);
}, 60_000);

it("leaves nothing of a generation that fails part-way, as Python's staging folder does", async () => {
  // A source whose path fits below the skill but not below the longer render folder: the publish fails on it
  // (ENAMETOOLONG) after the files that sort before it.
  const deep = (): string => {
    const base = `${skill("bmad-build")}/zz`;
    const parts = [base];
    let length = Buffer.byteLength(base);
    while (4090 - length > 205) {
      parts.push("d".repeat(200));
      length += 201;
    }
    return `${parts.join("/")}/${"x".repeat(4090 - length - 4)}.md`;
  };
  const args = ["--project-root", tree, "--skill", skill("bmad-build")];
  const runs = [];
  for (const impl of ["python", "port"] as const) {
    resetTree(template, tree);
    const source = deep();
    expect(Buffer.byteLength(source)).toBe(4090);
    mkdirSync(dirname(source), { recursive: true });
    writeFileSync(source, "# Deep\n");
    const script = join(tree, SCRIPT);
    const result = impl === "python" ? await runPython(script, args, { cwd: tree }) : await runPort(script, args, { cwd: tree, root: tmp.dir });
    runs.push({ result, files: snapshot(tree) });
  }
  const [python, port] = runs as [(typeof runs)[0], (typeof runs)[0]];
  for (const { result } of runs) {
    expect(result.exitCode, result.stdout).toBe(1);
    expect(result.stdout).toMatch(/^HALT: .*(File name too long|ENAMETOOLONG)/);
  }
  expect([...port.files.keys()].filter((path) => path.startsWith("_bmad/render/bmad-build/"))).toEqual([...python.files.keys()].filter((path) => path.startsWith("_bmad/render/bmad-build/")));
  expect([...port.files.keys()].filter((path) => path.startsWith("_bmad/render/bmad-build/") && !path.endsWith("/"))).toEqual([]);
  expect(port.files).toEqual(python.files);
});
