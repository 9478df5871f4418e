// resolve_customization.py and its port, on real 6.12 installs: every skill × --key agent|workflow|none,
// plain and with team and user overrides (scalars, lists, tables, arrays of tables merged by code/id).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ScriptResult } from "../../src/core/runtime/context.js";
import { comparable, install612, tomlReason, resetTree, runPort, runPython, skillNames, snapshot, treeDiff } from "../fixtures/runtime/harness.js";
import { tempDir } from "./helpers.js";

const tmp = tempDir("runtime-cust");
const plain = join(tmp.dir, "plain");
const custom = join(tmp.dir, "custom");
const SCRIPT = "_bmad/scripts/resolve_customization.py";
let skills: string[] = [];

/** Team and user override files that exercise every merge rule against the skill's own defaults. */
function overrides(skill: string): { team: string; user: string } {
  const defaults = parse(readFileSync(join(plain, ".claude/skills", skill, "customize.toml"), "utf8")) as Record<string, Record<string, unknown>>;
  const section = "agent" in defaults ? "agent" : "workflow";
  const table = defaults[section] ?? {};
  const strings = Object.keys(table).filter((k) => typeof table[k] === "string");
  const lists = Object.keys(table).filter((k) => Array.isArray(table[k]) && (table[k] as unknown[]).every((v) => typeof v === "string"));
  const keyed = Object.keys(table).filter((k) => Array.isArray(table[k]) && (table[k] as unknown[]).length > 0 && (table[k] as unknown[]).every((v) => typeof v === "object"));
  const team = [`[${section}]`, `team_numbers = { int = 42, float = 0.5, big = 1e20, small = 1.5e-7, whole = 3.0, neg = -0.0, yes = true }`, `steps = { intro = "hi", 2 = "b", 1 = { z = 1, 3 = 2 } }`];
  const user = [`[${section}]`];
  if (strings[0]) team.push(`${strings[0]} = "Team ${strings[0]} \\t \\"quoted\\" ✓ 😀 \\u0001"`);
  if (strings[1]) user.push(`${strings[1]} = "User's ${strings[1]}"`);
  if (lists[0]) team.push(`${lists[0]} = ["team: one more"]`), user.push(`${lists[0]} = ["user: and another"]`);
  user.push(`[${section}.team_numbers]`, `int = 7`, `nested = { deep = ["x"] }`);
  // Integer-like keys keep their place in the file, through the merge (a JavaScript object would list them first).
  user.push(`[${section}.steps]`, `10 = "c"`, `later = "d"`);
  for (const key of keyed) {
    const items = table[key] as Array<Record<string, unknown>>;
    const field = items.every((i) => "code" in i) ? "code" : "id";
    team.push(`[[${section}.${key}]]`, `${field} = "${items[0]![field]}"`, `description = "team replaced the first"`);
    team.push(`[[${section}.${key}]]`, `${field} = "team-new"`, `description = "team added"`);
    user.push(`[[${section}.${key}]]`, `${field} = "team-new"`, `description = "user replaced the team's"`);
    user.push(`[[${section}.${key}]]`, `${field} = "user-new"`, `note = "user added"`);
  }
  // A keyed array the defaults lack, merged by id between team and user; and a plain one, appended.
  team.push(`[[${section}.extra_layers]]`, `id = "a"`, `v = 1`, `[[${section}.extra_layers]]`, `id = "b"`, `v = 2`, `[[${section}.mixed]]`, `x = 1`);
  user.push(`[[${section}.extra_layers]]`, `id = "b"`, `v = 20`, `[[${section}.extra_layers]]`, `id = "c"`, `v = 3`, `[[${section}.mixed]]`, `x = 2`);
  return { team: `${team.join("\n")}\n`, user: `${user.join("\n")}\n` };
}

beforeAll(async () => {
  await install612(plain, ["bmm.project_knowledge=research"]);
  skills = skillNames(plain);
  resetTree(plain, custom);
  for (const skill of skills) {
    if (!existsSync(join(plain, ".claude/skills", skill, "customize.toml"))) continue;
    const { team, user } = overrides(skill);
    writeFileSync(join(custom, "_bmad/custom", `${skill}.toml`), team);
    writeFileSync(join(custom, "_bmad/custom", `${skill}.user.toml`), user);
  }
}, 60_000);

afterAll(() => tmp.cleanup());

async function both(tree: string, args: string[], cwd = tree, root = tmp.dir) {
  const script = join(tree, SCRIPT);
  const [python, port] = await Promise.all([runPython(script, args, { cwd }), runPort(script, args, { cwd, root })]);
  return { label: `${tree.slice(tmp.dir.length)} ${args.join(" ")} (cwd ${cwd.slice(tmp.dir.length) || "/"})`, python: comparable(python), port: comparable(port) };
}

function expectSame(runs: Array<Awaited<ReturnType<typeof both>>>) {
  const view = (r: ScriptResult, label: string) => ({ label, ...r, stderr: tomlReason(r.stderr) });
  expect(runs.map((r) => view(r.port, r.label))).toEqual(runs.map((r) => view(r.python, r.label)));
}

it("resolves every installed skill × --key agent|workflow|none like Python, plain and with team and user overrides", async () => {
  const before = [snapshot(plain), snapshot(custom)];
  const cases: Array<[string, string[]]> = [];
  for (const tree of [plain, custom]) {
    for (const skill of skills) {
      const dir = join(tree, ".claude/skills", skill);
      for (const key of [["--key", "agent"], ["--key", "workflow"], []]) cases.push([tree, ["--skill", dir, ...key]]);
    }
  }
  const runs = await Promise.all(cases.map(([tree, args]) => both(tree, args)));
  expect(runs).toHaveLength(skills.length * 6);
  expect(skills.length).toBeGreaterThanOrEqual(29);
  expectSame(runs);
  // The overrides took effect: merged arrays of tables by code and by id.
  const pm = runs.find((r) => r.label.startsWith("/custom") && r.label.includes("bmad-agent-pm --key agent"))!;
  expect(pm.python.stdout).toContain('"description": "team replaced the first"');
  expect(pm.python.stdout).toContain('"note": "user added"');
  expect(pm.python.stdout.replace(/\s+/g, "")).toContain('"steps":{"intro":"hi","2":"b","1":{"z":1,"3":2},"10":"c","later":"d"}');
  expect(runs.filter((r) => r.python.exitCode === 0).length).toBeGreaterThan(skills.length * 5);
  expect([treeDiff(before[0]!, snapshot(plain)), treeDiff(before[1]!, snapshot(custom))]).toEqual([[], []]);
}, 120_000);

it("finds the project root the same way from another directory, short options, dotted and missing keys", async () => {
  const elsewhere = join(tmp.dir, "elsewhere");
  mkdirSync(join(elsewhere, "_bmad"), { recursive: true });
  const pm = join(custom, ".claude/skills/bmad-agent-pm");
  const runs = await Promise.all([
    both(custom, ["-s", pm, "-p", custom, "-k", "agent.menu", "-k", "agent.name", "-k", "agent.nope", "-k", "agent.menu"]),
    both(custom, ["--skill", ".claude/skills/bmad-build", "--key=workflow.review_layers", "--k", "workflow.extra_layers"]),
    both(custom, ["--skill", pm, "--key", "agent"], elsewhere),
    both(custom, ["--skill", pm, "--key", "agent"], tmp.dir),
    both(custom, ["--skill", pm, "--project-root", plain, "--key", "agent"], elsewhere),
    both(custom, ["--skill", join(custom, ".claude/skills/bmad-prd/../bmad-prd"), "-kworkflow"]),
    both(custom, ["--skill", join(custom, ".claude/skills/nope")]),
  ]);
  expectSame(runs);
  expect(runs[2]!.python.stderr).toContain("note: resolved project root");
});

it("chooses the project root like Python: the working directory first, _bmad/ over a nearer .git, a note for a masked override", async () => {
  const home = join(tmp.dir, "home");
  const project = join(tmp.dir, "project");
  const sub = join(project, "vendor/sub");
  const demo = join(home, ".claude/skills/demo-skill");
  const facts = (...entries: string[]) => `[workflow]\npersistent_facts = [${entries.map((e) => `"${e}"`).join(", ")}]\n`;
  mkdirSync(demo, { recursive: true });
  mkdirSync(join(home, "_bmad/custom"), { recursive: true });
  mkdirSync(join(project, "_bmad/custom"), { recursive: true });
  mkdirSync(join(sub, ".git"), { recursive: true });
  mkdirSync(join(tmp.dir, "bare/.git"), { recursive: true });
  writeFileSync(join(demo, "customize.toml"), facts("shipped default"));
  writeFileSync(join(project, "_bmad/custom/demo-skill.toml"), facts("team override"));
  const runs: Array<Awaited<ReturnType<typeof both>>> = await Promise.all([
    both(custom, ["--skill", demo, "--key", "workflow"], project),
    both(custom, ["--skill", demo, "--key", "workflow"], sub),
    both(custom, ["--skill", demo, "--key", "workflow"], join(tmp.dir, "bare")),
    both(custom, ["--skill", demo, "--key", "workflow", "--project-root", home], project),
  ]);
  writeFileSync(join(home, "_bmad/custom/demo-skill.user.toml"), facts("home override"));
  runs.push(await both(custom, ["--skill", demo, "--key", "workflow"], join(project, "_bmad")));
  rmSync(join(project, "_bmad/custom/demo-skill.toml"));
  runs.push(await both(custom, ["--skill", demo, "--key", "workflow"], project));
  expectSame(runs);
  expect(runs[1]!.python.stdout).toContain("team override");
  expect(runs[5]!.python.stderr).toContain("note: resolved project root");
});

it("answers bad arguments and broken layers with Python's messages and exit codes", async () => {
  const broken = join(tmp.dir, "broken");
  resetTree(plain, broken);
  const skill = (name: string) => join(broken, ".claude/skills", name);
  const layer = (name: string, text: string | Buffer) => writeFileSync(join(broken, "_bmad/custom", name), text);
  layer("bmad-agent-pm.toml", '[agent\nname = "x"\n');
  layer("bmad-agent-dev.toml", "[[agent.menu]]\ncode = 7\n");
  layer("bmad-agent-analyst.toml", '[[agent.menu]]\ncode = ""\n');
  mkdirSync(join(broken, "_bmad/custom/bmad-agent-architect.toml"));
  layer("bmad-agent-ux-designer.toml", "[agent]\nwhen = 1979-05-27T07:32:00Z\n");
  layer("bmad-prd.toml", Buffer.from([0x5b, 0x77, 0xff, 0x5d]));
  layer("bmad-build.toml", '\ufeff[workflow]\non_complete = "x"\n');
  const runs = await Promise.all([
    both(broken, ["--skill", skill("bmad-agent-pm")]),
    both(broken, ["--skill", skill("bmad-agent-dev")]),
    both(broken, ["--skill", skill("bmad-agent-analyst")]),
    both(broken, ["--skill", skill("bmad-agent-architect")]),
    both(broken, ["--skill", skill("bmad-agent-ux-designer")]),
    both(broken, ["--skill", skill("bmad-prd")]),
    both(broken, ["--skill", skill("bmad-build")]),
    both(broken, []),
    both(broken, ["--skill"]),
    both(broken, ["--skill", skill("bmad-prd"), "--bogus", "extra"]),
    both(broken, ["-h"]),
    both(broken, ["--skill", skill("bmad-prd"), "--help"]),
    both(broken, ["--skill=x", "-s"]),
  ]);
  expectSame(runs);
  expect(runs.map((r) => r.python.exitCode)).toEqual([1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 0, 0, 2]);
});

it("refuses where tomllib (TOML 1.0) does what smol-toml (TOML 1.1) reads, a lone CR too, and reads the 1.0 look-alikes", async () => {
  const tree = join(tmp.dir, "toml10");
  resetTree(plain, tree);
  const layer = join(tree, "_bmad/custom/bmad-prd.toml");
  const refused = [
    '[workflow]\na = "\\x41"\n',
    '[workflow]\na = """\nok \\e"""\n',
    '[workflow]\n"k\\e" = 1\n',
    "[workflow]\na = { b = 1, }\n",
    "[workflow]\na = {\n  b = 1\n}\n",
    "[workflow]\na = [{ b = 1 # c\n}]\n",
    "[workflow]\nt = 07:32\n",
    "[workflow]\nt = [1, 17:32]\n",
    "[workflow]\nd = 1979-05-27T07:32Z\n",
    "[workflow]\nd = { e = 1979-05-27 07:32 }\n",
    "[workflow]\r\na = 1\r\r\nb = 2\n",
    "# c\r\r\n[workflow]\n",
    '[workflow]\r\na = """x\r\r\ny"""\r\n',
  ];
  // TOML 1.0 all the same: escaped backslashes, literal strings, comments, arrays over lines inside braces, seconds, CRLF.
  const accepted = [
    "[workflow] # { a = 1, } \"\\e\"",
    'a = "C:\\\\xfiles \\\\e \\u00e9"',
    "b = 'C:\\x41 \\e { c = 1, }'",
    "c = '''\\e\r\n'''",
    'd = { e = "{ f = 1, }", g = [1,\r\n  2, # two,\r\n] }',
    // Apart, as JSON has no times: --key workflow leaves them out.
    "[times]",
    "t = { h = 07:32:00, i = 1979-05-27 07:32:00Z }",
  ].join("\r\n");
  const runs = [];
  for (const text of [...refused, accepted]) {
    writeFileSync(layer, text);
    const run = await both(tree, ["--skill", join(tree, ".claude/skills/bmad-prd"), "--key", "workflow"]);
    runs.push({ ...run, label: JSON.stringify(text) });
  }
  expectSame(runs);
  expect(runs.map((r) => r.python.exitCode)).toEqual([...refused.map(() => 1), 0]);
  expect(runs.at(-1)!.python.stdout).toContain('"C:\\\\xfiles \\\\e é"');
});
