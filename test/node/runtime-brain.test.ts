// bmad-brainstorming's brain.py and its port (what the remote runs, where Python cannot): the technique library's
// read-only commands run by each on the same files, compared on output and exit code.
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { NodeRuntimeFs } from "../../src/bridge/runtime-fs.js";
import { main } from "../../src/core/runtime/brain.js";
import { expectSameAsPython, runPython } from "../fixtures/runtime/harness.js";
import { tempDir } from "./helpers.js";

const tmp = tempDir("runtime-brain");
const skill = join(tmp.dir, "bmad-brainstorming");
cpSync(join(process.cwd(), "node_modules/bmad-method/src/core-skills/bmad-brainstorming"), skill, { recursive: true });
const script = join(skill, "scripts/brain.py");

// A catalog with what the shipped one lacks: a BOM, CRLF, quoted commas, quotes and newlines, a detail file,
// a missing one, a short row, a duplicate name, and a category with capitals.
mkdirSync(join(tmp.dir, "odd/details"), { recursive: true });
writeFileSync(
  join(tmp.dir, "odd/odd.csv"),
  '\uFEFFcategory,technique_name,description,detail,extra\r\n' +
    'Alpha,"Quoted, Name","Say ""yes""\nthen more",details/q.md,x\r\n' +
    "alpha,Plain,  padded gist  ,details/missing.md\r\n" +
    "\r\n" +
    'beta,Short\r\n' +
    'beta,plain,"a ""b"" c"d,,\r\n' +
    'gamma,Ünïcode ✓,ça va 😀,,\n' +
    'gamma,Crlf,"one\r\ntwo\rthree",,\r\n',
);
writeFileSync(join(tmp.dir, "odd/details/q.md"), "\n# Detail\n\nMore words.\n\n");
writeFileSync(
  join(tmp.dir, "extra.json"),
  '[{"category": "mine", "technique_name": "plain", "description": "replaced", "detail": null}, {"category": "mine", "technique_name": "New One", "description": 5},' +
    ' {"category": ["a", 1.0, null, {"k": true}], "technique_name": "Floaty", "description": 1.5, "detail": [], "provenance": 0, "good_for": {}}]',
);
writeFileSync(join(tmp.dir, "not-a-list.json"), JSON.stringify({ category: "x" }));
// A blank first line is the header, so every row's fields are empty (review 456).
writeFileSync(join(tmp.dir, "blank-header.csv"), "\n\u00e9\r\n\ncategory,technique_name\r\nx,y\n");
writeFileSync(join(tmp.dir, "bad-entry.json"), JSON.stringify([{ category: "x" }, "just a string"]));

const cases: string[][] = [
  ["categories"],
  ["--json", "categories"],
  ["list", "--category", "creative"],
  ["list", "--category", "CREATIVE", "--category", "deep", "--category", "nope"],
  ["--json", "list", "--category", "wild"],
  ["list", "--all"],
  ["--json", "list", "--all"],
  ["list"],
  ["show", "Yes And Building", "  idea hot potato ", "No Such Technique"],
  ["--json", "show", "Yes And Building"],
  ["show", "Nothing"],
  ["show"],
  ["random", "-n", "x"],
  ["random", "--category", "nope"],
  ["bogus"],
  [],
  ["--help"],
  ["show", "--help"],
  ["--file", "missing.csv", "categories"],
  ["--file", "odd/odd.csv", "categories"],
  ["--file", "odd/odd.csv", "--json", "list", "--all"],
  ["--file", "odd/odd.csv", "list", "--category", "ALPHA"],
  ["--file", "odd/odd.csv", "show", "quoted, name", "plain", "short"],
  ["--file", "odd/odd.csv", "--json", "show", "Quoted, Name", "Ünïcode ✓", "crlf"],
  ["--file", "odd/odd.csv", "--extra", "extra.json", "list", "--all"],
  ["--file", "odd/odd.csv", "--extra", "missing.json", "categories"],
  ["--file", "odd/odd.csv", "--extra", "not-a-list.json", "categories"],
  ["--file", "odd/odd.csv", "--extra", "bad-entry.json", "categories"],
  ["--file", "blank-header.csv", "categories"],
  ["--file", "blank-header.csv", "--json", "list", "--all"],
];

it("answers every read-only command, error and help as brain.py does", async () => {
  await expectSameAsPython(script, main, cases, { cwd: tmp.dir });
});

it("draws distinct techniques at random from the categories asked for", async () => {
  const fs = await NodeRuntimeFs.create([tmp.dir]);
  const creative = (await runPython(script, ["list", "--category", "creative"], { cwd: tmp.dir })).stdout.trim().split("\n");
  for (const n of ["3", "0", "999", "-2"]) {
    const drawn = await main(["random", "--category", "creative", "-n", n], { fs, cwd: tmp.dir, env: {}, scriptPath: script });
    const lines = drawn.stdout.split("\n").slice(0, -1).filter(Boolean);
    expect(drawn.exitCode).toBe(0);
    expect(lines.length).toBe(Math.max(0, Math.min(Number(n), creative.length)));
    expect(new Set(lines).size).toBe(lines.length);
    for (const line of lines) expect(creative).toContain(line);
  }
});

it("says html is the bridge's, where this port runs", async () => {
  const fs = await NodeRuntimeFs.create([tmp.dir]);
  const html = await main(["html", "--out", join(tmp.dir, "page.html")], { fs, cwd: tmp.dir, env: {}, scriptPath: script });
  expect(html).toEqual({ stdout: "", exitCode: 2, stderr: expect.stringMatching(/^error: `html` writes the composer page, .* run this line on the bmad-mcp bridge\./) });
});
