// Every port's pattern-heavy paths on hostile input up to 1 MiB (long runs of what a pattern would backtrack on): each
// answers in linear time, seconds below what a quadratic pattern costs. A regex tried at every position of such a run costs the square of its length (recon_kit's
// Markdown link took 9 s on a 192,000-character cell) or worse (the docstring's blank lines, exponentially). The
// hand-written scanners that replace them are checked against the regexes on many small strings.
import { expect, it } from "vitest";
import { usageParts } from "../../src/core/runtime/argparse-format.js";
import { MAX_COMMAND_LENGTH } from "../../src/core/runtime/command-line.js";
import type { ScriptMain } from "../../src/core/runtime/context.js";
import { moduleDocstring } from "../../src/core/runtime/py-catalog.js";
import { markdownLink } from "../../src/core/runtime/recon-kit.js";
import { SHARED_SCRIPTS, SKILL_SCRIPTS } from "../../src/core/runtime/scripts.js";
import { MemoryFs } from "../fixtures/runtime/memory-fs.js";

const MIB = 1 << 20;
/** The sweep's size: enough for a pattern that costs the square of its input to be the slowest run by far (recon_kit's
 *  link: 53 s on 256 KB, 3 s on 64 KB), at a sixteenth of the time of a 1 MiB sweep; each case's slowest run is then
 *  proven at 1 MiB, where a quadratic one takes minutes. */
const SWEEP = MIB / 16;
const fill = (unit: string, head = "", tail = "", size = MIB) => head + unit.repeat(Math.ceil((size - head.length - tail.length) / unit.length)) + tail;
/** Runs of what the patterns (links, markers, table rows, headings, fences, tokens, whitespace) backtrack on. */
const UNITS = ["[", "[](", "[a](x", "(", "]", ")", "`", "```x", "#", "##AD-1 ", "\n", " ", "\t", "-", "{a", "|", "| [1] | [", "http://", "- (a by ", "status=", '"', "\n\n#", "TBDa", "similar to AD-", "\r"];
const WORDS = "the quick brown fox ".repeat(4);

const port = (name: string): ScriptMain => SHARED_SCRIPTS.get(name) ?? [...SKILL_SCRIPTS].find(([key]) => key.endsWith(`/${name}`))![1];

async function timed(main: ScriptMain, argv: string[], files: Record<string, string>): Promise<{ ms: number; exitCode: number }> {
  const fs = new MemoryFs();
  for (const [path, text] of Object.entries(files)) fs.files.set(path, new TextEncoder().encode(text));
  const started = performance.now();
  const result = await main(argv, { fs, cwd: "/p", scriptPath: files["/p/s/scripts/x.py"] === undefined ? undefined : "/p/s/scripts/x.py" });
  return { ms: performance.now() - started, exitCode: result.exitCode };
}

/** Half the input, for a frame that holds it twice: the file stays at the size under test. */
const half = (body: string) => body.slice(0, body.length >> 1);
/** [port, argv, the file the input goes in, how the input is framed]. */
const CASES: Array<[string, string[], string, (body: string) => string]> = [
  ["recon_kit.py", ["citations", "r.md"], "/p/r.md", (b) => b],
  ["recon_kit.py", ["escape-sources", "r.md"], "/p/r.md", (b) => `| [1] | ${b.replace(/\n/g, " ")} |\n`],
  ["recon_kit.py", ["tally", "r.md"], "/p/r.md", (b) => `---\n---\n${b}`],
  ["lint_spine.py", ["--workspace", "w", "-o", "out.json"], "/p/w/ARCHITECTURE-SPINE.md", (b) => b],
  ["lint_spine.py", ["--workspace", "w", "-o", "out.json"], "/p/w/ARCHITECTURE-SPINE.md", (b) => `---\n${half(b)}\n---\n## Stack\n| name | version |\n${half(b)}`],
  ["word_metrics.py", ["d.md", "-o", "out.json"], "/p/d.md", (b) => b],
  ["pick_methods.py", ["--file", "m.csv", "categories"], "/p/m.csv", (b) => `num,category,method_name\n${b}`],
  ["brain.py", ["--file", "m.csv", "categories"], "/p/m.csv", (b) => `category,technique_name\n${b}`],
];

// Bounds far above a linear run (a second or two for 1 MiB, four on a loaded 2-core machine) and far below a
// quadratic one (minutes at 1 MiB: the finding took 9 s at 192,000 characters), so that the load of the other test
// files cannot decide them.
it.each(CASES.map((c, i) => [i, ...c] as const))("case %i: %s %j answers hostile inputs in linear time, up to 1 MiB", async (_i, name, argv, path, frame) => {
  const slow: string[] = [];
  let slowest = { unit: UNITS[0]!, ms: -1 };
  for (const unit of UNITS) {
    const { ms } = await timed(port(name), argv, { [path]: frame(fill(unit, "", "", SWEEP)) });
    if (ms > 5000) slow.push(`${JSON.stringify(unit)}: ${Math.round(ms)} ms`);
    if (ms > slowest.ms) slowest = { unit, ms };
  }
  expect(slow).toEqual([]);
  const { ms } = await timed(port(name), argv, { [path]: frame(fill(slowest.unit)) });
  expect(ms, `1 MiB of ${JSON.stringify(slowest.unit)}`).toBeLessThan(15_000);
}, 120_000);

it("answers --help on a hostile docstring in linear time, for every port", async () => {
  const slow: string[] = [];
  for (const [key, main] of [...SHARED_SCRIPTS, ...SKILL_SCRIPTS]) {
    for (const unit of ["\n", " \n", "#\n", "\t\n\n", "(", "["]) {
      const { ms } = await timed(main, ["--help"], { "/p/s/scripts/x.py": `${fill(unit, "", "", SWEEP)}"""${WORDS}\n${fill(unit === "\n" ? " -" : unit, "", "", SWEEP)}"""\n` });
      if (ms > 5000) slow.push(`${key} ${JSON.stringify(unit)}: ${Math.round(ms)} ms`);
    }
  }
  expect(slow).toEqual([]);
}, 120_000);

it("parses 8,000 hostile arguments (a 16 KB command line's worth) in linear time, for every port", async () => {
  const slow: string[] = [];
  for (const [key, main] of [...SHARED_SCRIPTS, ...SKILL_SCRIPTS]) {
    for (const args of [Array(8000).fill("x"), Array(8000).fill("-"), Array(8000).fill("--"), ["show", ...Array(8000).fill("x")]]) {
      const { ms } = await timed(main, args, {});
      if (ms > 6000) slow.push(`${key} ${args[0]}…: ${Math.round(ms)} ms`);
    }
  }
  expect(slow).toEqual([]);
}, 120_000);

it("finds the slug of a run four times the longest command line, and a 1 MiB run's link and usage parts, in linear time", async () => {
  const recon = port("recon_kit.py");
  // An argument comes in a bmad-run command line, at most MAX_COMMAND_LENGTH characters.
  for (const unit of ["-", " ", "!", "a-"]) expect((await timed(recon, ["slug", fill(unit, "", "", 4 * MAX_COMMAND_LENGTH), "--type", "t"], {})).ms).toBeLessThan(8000);
  for (const unit of ["[", "[](", "[a](x", "]("]) {
    const started = performance.now();
    markdownLink(fill(unit));
    usageParts(fill(unit));
    expect(performance.now() - started, unit).toBeLessThan(8000);
  }
});

// The scanners against the patterns they replace, on every short string of the characters that matter.
let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
const sample = (alphabet: string[], max: number) => Array.from({ length: Math.floor(random() * max) }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");

it("finds what argparse's part regexp, the docstring pattern and the link pattern find", () => {
  const PARTS = /\(.*?\)+(?=\s|$)|\[.*?\]+(?=\s|$)|\S+/g;
  const DOC = /^(?:#[^\n]*\n|\s*\n)*"""([\s\S]*?)"""/;
  const LINK = /\[([^\]]*)\]\((\S+?)\)/u;
  // Differences are gathered and compared once: 90,000 expect() calls cost ten times the checks themselves.
  const differ: string[] = [];
  const same = (what: string, input: string, ours: unknown, theirs: unknown) => {
    if (JSON.stringify(ours) !== JSON.stringify(theirs)) differ.push(`${what} ${JSON.stringify(input)}: ${JSON.stringify(ours)} != ${JSON.stringify(theirs)}`);
  };
  for (let n = 0; n < 30_000; n++) {
    const parts = sample(["(", ")", "[", "]", " ", "\n", "a", "\u00a0", "))", "]]"], 14);
    same("usage parts", parts, usageParts(parts), parts.match(PARTS) ?? []);
    const doc = sample(["#", "\n", " ", "\t", '"""', '"', "a", "\r", "\u00a0", "# x\n", "\n\n"], 12);
    same("docstring", doc, moduleDocstring(doc), DOC.exec(doc)?.[1]);
    const cell = sample(["[", "]", "(", ")", " ", "a", "\n", "](", "\ud83d\ude00", "\ud83d"], 14);
    const m = LINK.exec(cell);
    const found = markdownLink(cell);
    same("link", cell, found && [found.index, found.whole, found.label, found.target], m ? [m.index, m[0], m[1], m[2]] : undefined);
  }
  expect(differ.slice(0, 20)).toEqual([]);
});

// A review finding: JSON nested deeper than the stack answered with JavaScript's RangeError in a Python traceback.
it("answers JSON nested deeper than the stack as Python does: a RecursionError", async () => {
  const fs = new MemoryFs();
  fs.files.set("/p/claims.json", new TextEncoder().encode("[".repeat(200_000)));
  const result = await port("recon_kit.py")(["staleness", "claims.json", "--windows", "{}"], { fs, cwd: "/p" });
  expect(result.exitCode).toBe(1);
  expect(result.stderr).toMatch(/\nRecursionError: maximum recursion depth exceeded while decoding a JSON array from a unicode string\n$/);
  expect(result.stderr).not.toContain("RangeError");
});
