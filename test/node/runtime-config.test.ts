// resolve_config.py and its port on a real 6.12 install: the full dump and every key in it, with
// the installer's answers, team and user overrides, and the script's argument errors.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { comparable, install612, resetTree, runPort, runPython, snapshot, treeDiff } from "../fixtures/runtime/harness.js";
import { tempDir } from "./helpers.js";

const tmp = tempDir("runtime-config");
const tree = join(tmp.dir, "My Project ✓");
const SCRIPT = "_bmad/scripts/resolve_config.py";

beforeAll(async () => {
  await install612(tree, ["bmm.project_knowledge=research", "bmm.user_skill_level=expert", "bmm.planning_artifacts={output_folder}/plans"]);
  writeFileSync(
    join(tree, "_bmad/custom/config.toml"),
    [
      "[core]",
      'document_output_language = "Français"',
      "[agents.bmad-agent-pm]",
      'description = "Prefers short, bulleted PRDs."',
      "[agents.bmad-agent-custom]",
      'name = "Zed"',
      "menu = [{ code = \"A\", d = 1 }, { code = \"B\", d = 2 }]",
      // Integer-like keys keep their place in the file (a JavaScript object would list them first, ascending).
      "[agents.10]",
      'name = "Ten"',
      "[agents.2]",
      'name = "Two"',
      "[workflow.steps]",
      'intro = "hi"',
      '2 = "b"',
      '1 = { z = 1, 3 = 2 }',
      "[limits]",
      "ratio = 0.25",
      "tiny = 1e-9",
      "count = 3",
      'tags = ["team"]',
    ].join("\n"),
  );
  writeFileSync(
    join(tree, "_bmad/custom/config.user.toml"),
    // Saved with Windows line endings, a multi-line string among them (tomllib reads CRLF as LF).
    ["[core]", 'user_name = "Ada L."', "[agents.bmad-agent-custom]", 'menu = [{ code = "B", d = 20 }, { code = "C", d = 3 }]', "[limits]", 'tags = ["user"]', "enabled = false", 'notes = """first', 'second"""'].join("\r\n"),
  );
}, 60_000);

afterAll(() => tmp.cleanup());

async function both(args: string[], cwd = tree, env: Record<string, string> = {}) {
  const script = join(tree, SCRIPT);
  const [python, port] = await Promise.all([runPython(script, args, { cwd, env }), runPort(script, args, { cwd, env, root: tmp.dir })]);
  return { label: args.join(" "), python: comparable(python), port: comparable(port) };
}

function expectSame(runs: Array<Awaited<ReturnType<typeof both>>>) {
  expect(runs.map((r) => ({ label: r.label, ...r.port }))).toEqual(runs.map((r) => ({ label: r.label, ...r.python })));
}

/** Every dotted path in a JSON value: tables and leaves. */
function dottedKeys(value: unknown, prefix = ""): string[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const key = prefix ? `${prefix}.${k}` : k;
    return [key, ...dottedKeys(v, key)];
  });
}

it("dumps the merged config and resolves every key in it like Python", async () => {
  const before = snapshot(tree);
  const [full] = await Promise.all([both(["--project-root", tree])]);
  expectSame([full!]);
  const keys = dottedKeys(JSON.parse(full!.python.stdout));
  expect(keys.length).toBeGreaterThan(40);
  expect(keys).toContain("limits.ratio");
  const runs = await Promise.all([
    ...keys.map((key) => both(["--project-root", tree, "--key", key])),
    both(["-p", tree, "-k", "core.user_name", "-k", "nope", "-k", "agents.bmad-agent-custom.menu", "-k", "core.user_name", "-k", "core..x", "-k", ""]),
    both(["-p", ".", "--key=modules.bmm"]),
    both(["--proj", "./_bmad/..", "--k", "core"], join(tree, "_bmad")),
  ]);
  expectSame(runs);
  expect(runs.find((r) => r.label.endsWith("--key limits.tags"))!.python.stdout).toBe('{\n  "limits.tags": [\n    "team",\n    "user"\n  ]\n}\n');
  expect(runs.find((r) => r.label.endsWith("--key workflow.steps"))!.python.stdout.replace(/\s+/g, "")).toBe('{"workflow.steps":{"intro":"hi","2":"b","1":{"z":1,"3":2}}}');
  expect(treeDiff(before, snapshot(tree))).toEqual([]);
});

it("answers a missing project, broken layers and bad arguments with Python's messages and exit codes", async () => {
  const broken = join(tmp.dir, "broken");
  resetTree(tree, broken);
  writeFileSync(join(broken, "_bmad/config.user.toml"), "[core]\nwhen = 2026-06-07\n");
  const other = join(tmp.dir, "other");
  mkdirSync(join(other, "_bmad/custom/config.user.toml"), { recursive: true });
  writeFileSync(join(other, "_bmad/config.toml"), '[core]\nname = "x"\n');
  // TOML 1.1's \x escape, which tomllib (TOML 1.0) refuses.
  const toml11 = join(tmp.dir, "toml11");
  resetTree(tree, toml11);
  writeFileSync(join(toml11, "_bmad/custom/config.toml"), 'F9q = "\\x41"\n');
  const runs = await Promise.all([
    both(["--project-root", join(tmp.dir, "nowhere")]),
    both(["--project-root", broken]),
    both(["--project-root", other]),
    both(["--project-root", toml11]),
    both([]),
    both(["-p"]),
    both(["-p", tree, "stray"]),
    both(["-h"]),
    both(["--help"], tree, { COLUMNS: "50" }),
    both(["--help"], tree, { COLUMNS: "130" }),
    both(["-x"], tree, { COLUMNS: "40" }),
  ]);
  expectSame(runs);
  expect(runs.map((r) => r.python.exitCode)).toEqual([1, 1, 1, 1, 2, 2, 2, 0, 0, 0, 2]);
});
