// bmad-advanced-elicitation's pick_methods.py beside its port (what the remote runs, where Python cannot): the method
// catalog's commands, errors and help, an --extra overlay as a literal and as a file, and the random draws' shape.
import { cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { NodeRuntimeFs } from "../../src/bridge/runtime-fs.js";
import { main } from "../../src/core/runtime/pick-methods.js";
import { expectSameAsPython, runPython } from "../fixtures/runtime/harness.js";
import { tempDir } from "./helpers.js";

const tmp = tempDir("runtime-pick-methods");
const skill = join(tmp.dir, "bmad-advanced-elicitation");
cpSync(join(process.cwd(), "node_modules/bmad-method/src/core-skills/bmad-advanced-elicitation"), skill, { recursive: true });
const script = join(skill, "scripts/pick_methods.py");
const EXTRA = '[{"method_name": "tree of thoughts", "description": "retuned", "category": "advanced"}, {"method_name": "Brand New", "category": "mine", "num": "", "output_pattern": 5}, {"method_name": "Numbered", "num": "900", "category": [1, 2.5]}]';

it("answers every command, error and help as pick_methods.py does", async () => {
  writeFileSync(join(tmp.dir, "extra.json"), `\uFEFF${EXTRA}`);
  writeFileSync(join(tmp.dir, "not-a-list.json"), '{"a": 1}');
  writeFileSync(join(tmp.dir, "odd.csv"), "num,category,method_name\r\n,x,No Num\r\n7,X,Seven\r\n7,y,Also Seven\r\n");
  // A blank first line is the header, so every row's fields are empty (review 456).
  writeFileSync(join(tmp.dir, "blank-header.csv"), "\n\u00e9\r\n\nnum,category,method_name\r\n7,x,Seven\n");
  const cases = [
    ["categories"],
    ["--json", "categories"],
    ["list", "--category", "advanced"],
    ["--json", "list", "--category", "ADVANCED", "--category", "core"],
    ["list", "--all"],
    ["list"],
    ["show", "1", "tree of thoughts", " Graph of Thoughts ", "nope"],
    ["--json", "show", "2"],
    ["show", "nothing"],
    ["show"],
    ["random", "-n", "2.5"],
    // -n as int() reads it: any decimal digits, U+0085 stripped; U+FEFF and U+001C-U+001F are no whitespace to it.
    ["random", "-n", "\u0085\u0660_\u0660 "],
    ["random", "-n", "-\u0661"],
    ["random", "-n", "\ufeff0"],
    ["random", "-n", "\u001c0"],
    ["random", "--category", "nope"],
    ["random", "--exclude", "x", "--category", "none"],
    ["--extra", EXTRA, "list", "--category", "mine", "--category", "advanced"],
    ["--extra", "extra.json", "--json", "show", "Brand New", "900", "tree of thoughts"],
    ["--extra", "missing.json", "categories"],
    ["--extra", "not-a-list.json", "categories"],
    ["--extra", "[1]", "categories"],
    // json.loads reads Python's constants, and a new method's number follows the largest exactly (review 137).
    ["--extra", '[{"method_name":"Inf","description":Infinity,"num":-Infinity},{"method_name":"Big","num":12345678901234567890},{"method_name":"Next"}]', "show", "inf", "next"],
    // A num in any decimal digits counts toward the next free one, as isdigit() and int() read it.
    ["--extra", '[{"method_name":"Arabic","num":"\u0669\u0660\u0660"},{"method_name":"After"}]', "show", "after"],
    ["--file", "odd.csv", "list", "--all"],
    ["--file", "odd.csv", "--extra", '[{"method_name": "late"}]', "show", "7", "8", "no num"],
    ["--file", "missing.csv", "categories"],
    ["--file", "blank-header.csv", "categories"],
    ["--file", "blank-header.csv", "--json", "list", "--all"],
    ["bogus"],
    ["--help"],
    ["random", "--help"],
  ];
  await expectSameAsPython(script, main, cases, { cwd: tmp.dir });
});

it("draws distinct methods at random, and with --spread one per category until they run out", async () => {
  const fs = await NodeRuntimeFs.create([tmp.dir]);
  const all = (await runPython(script, ["list", "--all"], { cwd: tmp.dir })).stdout.trim().split("\n");
  const categories = new Set(all.map((line) => line.split("\t")[1]));
  for (const args of [["-n", "5"], ["-n", "5", "--spread"], ["-n", String(categories.size + 3), "--spread"], ["-n", "-1"], ["-n", "3", "--exclude", all[0]!.split("\t")[2]!]]) {
    const drawn = await main(["random", ...args], { fs, cwd: tmp.dir, env: {}, scriptPath: script });
    const lines = drawn.stdout.split("\n").slice(0, -1).filter(Boolean);
    expect(drawn.exitCode, args.join(" ")).toBe(0);
    // As many as asked, clamped to the methods left to draw from (a negative -n draws none).
    const pool = all.filter((line) => !args.includes("--exclude") || line.split("\t")[2] !== args.at(-1));
    expect(lines.length, args.join(" ")).toBe(Math.max(0, Math.min(Number(args[1]), pool.length)));
    expect(new Set(lines).size).toBe(lines.length);
    for (const line of lines) expect(all).toContain(line);
    if (args.includes("--spread")) {
      const cats = lines.map((line) => line.split("\t")[1]);
      expect(new Set(cats.slice(0, categories.size)).size, args.join(" ")).toBe(Math.min(lines.length, categories.size));
    }
    if (args.includes("--exclude")) expect(lines.some((line) => line.split("\t")[2] === args.at(-1))).toBe(false);
  }
});
