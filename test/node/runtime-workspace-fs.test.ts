// The ports over a key-value store of files (no directories, as the remote workspace keeps them)
// against the real Python on a real directory at the same path: same output, same files.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ScriptResult } from "../../src/core/runtime/context.js";
import { comparable, install612, resetTree, runPort, runPython } from "../fixtures/runtime/harness.js";
import { MemoryFs } from "../fixtures/runtime/memory-fs.js";
import { tempDir } from "./helpers.js";

const tmp = tempDir("runtime-kv");
const template = join(tmp.dir, "template");
const tree = join(tmp.dir, "workspace");

/** Every file below dir, by absolute path (directories are not compared: the store has none of its own). */
function files(dir: string, out = new Map<string, string>()): Map<string, string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files(path, out);
    else out.set(path, readFileSync(path).toString("base64"));
  }
  return out;
}

function steps(): Array<[string, string[]]> {
  const ws = join(tree, "_bmad-output/brainstorming/run-1");
  const skill = (name: string) => join(tree, ".claude/skills", name);
  return [
    ["resolve_config.py", ["--project-root", tree]],
    ["resolve_config.py", ["-p", tree, "-k", "modules.bmm.planning_artifacts"]],
    ["resolve_customization.py", ["--skill", skill("bmad-prd"), "--key", "workflow"]],
    ["resolve_customization.py", ["--skill", skill("bmad-agent-pm")]],
    ["memlog.py", ["init", "--workspace", ws, "--field", "topic=Budgeting app"]],
    ["memlog.py", ["init", "--workspace", ws]],
    ["memlog.py", ["append", "--workspace", ws, "--type", "idea", "--by", "user", "--text", "sample data first"]],
    ["memlog.py", ["append", "--path", join(ws, ".memlog.md"), "--text", "plain note"]],
    ["memlog.py", ["set", "--workspace", ws, "--key", "goal", "--value", "retention"]],
    ["memlog.py", ["append", "--workspace", join(tree, "nowhere"), "--text", "x"]],
    ["memlog.py", ["init", "--path", "_bmad/../notes//kv.md", "--field", "a=b"]],
    ["memlog.py", ["append", "--path", "./notes/x/../kv.md", "--text", "relative, with .."]],
    ["render_skill.py", ["--project-root", tree, "--skill", skill("bmad-build")]],
    ["render_skill.py", ["--project-root", tree, "--skill", skill("bmad-build")]],
    ["render_skill.py", ["--project-root", tree, "--skill", skill("bmad-build-auto")]],
    ["render_skill.py", ["--project-root", tree, "--skill", skill("bmad-prd")]],
  ];
}

beforeAll(() => install612(template, ["bmm.project_knowledge=research"]), 60_000);
afterAll(() => tmp.cleanup());

it("runs every ported script over a key-value store of files with Python's output and files", async () => {
  resetTree(template, tree);
  const python: ScriptResult[] = [];
  for (const [script, args] of steps()) python.push(comparable(await runPython(join(tree, "_bmad/scripts", script), args, { cwd: tree })));
  const pythonFiles = files(tree);

  resetTree(template, tree);
  const fs = new MemoryFs();
  for (const [path, data] of files(tree)) fs.files.set(path, Buffer.from(data, "base64"));
  const port: ScriptResult[] = [];
  for (const [script, args] of steps()) port.push(comparable(await runPort(join(tree, "_bmad/scripts", script), args, { cwd: tree, root: tmp.dir, fs })));

  expect(port).toEqual(python);
  const portFiles = new Map([...fs.files].map(([path, data]) => [path, Buffer.from(data).toString("base64")]));
  expect([...portFiles.keys()].sort()).toEqual([...pythonFiles.keys()].sort());
  expect([...portFiles].filter(([path, data]) => pythonFiles.get(path) !== data).map(([path]) => path)).toEqual([]);
  expect(python.map((r) => r.exitCode)).toEqual([0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1]);
  expect([...portFiles.keys()].filter((p) => p.includes("/_bmad/render/")).length).toBeGreaterThan(20);
});
