import { expect, it } from "vitest";
import { compileGlob, literalFolder, MAX_GLOB_LENGTH, MAX_GLOB_WILDCARDS, tooCostly } from "../../src/core/catalog/glob.js";

function glob(pattern: string) {
  const compiled = compileGlob(pattern);
  if (!compiled.ok) throw new Error(compiled.error);
  return compiled.glob;
}

it("matches globs per segment: ** any depth, * within a segment, ? one character", () => {
  const cases: Array<[string, string, boolean]> = [
    ["bmm/**/*.md", "bmm/a/b/c.md", true],
    ["bmm/**/*.md", "bmm/c.md", true],
    ["bmm/**/*.md", "bmmx/c.md", false],
    ["bmm/*.md", "bmm/a/c.md", false],
    ["bmm/*.md", "bmm/.md", true],
    ["**", "a/b/c", true],
    ["**", "", true],
    ["**/SKILL.md", "SKILL.md", true],
    ["**/SKILL.md", "a/b/SKILL.md", true],
    ["**/SKILL.md", "a/bSKILL.md", false],
    ["a/**", "a/b/c", true],
    ["a/**", "a", false],
    ["a**b", "a/x/b", true],
    ["a?c", "abc", true],
    ["a?c", "a/c", false],
    ["*.yaml", "config.yaml", true],
    ["*.yaml", "bmm/config.yaml", false],
    ["core/*/SKILL.md", "core/bmad-help/SKILL.md", true],
    ["a.b", "aXb", false],
    ["(x)+[y]", "(x)+[y]", true],
    ["***/x", "a/b/x", true],
    ["ab*ba", "aba", false],
    ["ab*ba", "abba", true],
    ["a/**", "a/", true],
    ["docs/**", "docs2/x", false],
  ];
  for (const [pattern, path, expected] of cases) expect(glob(pattern).test(path), `${pattern} ~ ${path}`).toBe(expected);
});

/** The fastest of `runs` timings of each function, taken in turns so that the machine's load falls on both alike. */
function fastest(runs: number, ...fns: Array<() => void>): number[] {
  const best = fns.map(() => Infinity);
  for (let r = 0; r < runs; r++) {
    fns.forEach((fn, i) => {
      const started = performance.now();
      fn();
      best[i] = Math.min(best[i]!, performance.now() - started);
    });
  }
  return best;
}

it("matches hostile patterns in linear time", () => {
  // Each pattern ends in a wildcard, so the matcher walks the whole path (a literal end would decide it at once).
  const paths = ["bmm/" + "a/".repeat(400) + "x.md", "a".repeat(800) + ".md"];
  for (const pattern of ["**************Q*", "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*Q*", "**/**/**/**/**/**/**/**/**/**/**/Q/**", "?*?*?*?*?*?*?*?*?*?*?*?*?*Q*"]) {
    // The floor: a plain pattern of the same length that also walks every character. A ratio, not a clock, so
    // other test files' load cannot fail it: linear costs a few times the floor, backtracking millions.
    const plain = `**${"Z".repeat(pattern.length - 4)}**`;
    for (const path of paths) {
      const twenty = (p: string) => () => {
        for (let i = 0; i < 20; i++) expect(glob(p).test(path)).toBe(false);
      };
      const [hostile, floor] = fastest(3, twenty(pattern), twenty(plain));
      // +1 ms: a pattern that stops at the first "/" takes microseconds, where a timer's tick would decide.
      expect(hostile, `${pattern} on ${path.slice(0, 8)}…: ${hostile!.toFixed(2)} ms vs ${floor!.toFixed(2)} ms`).toBeLessThan(20 * floor! + 1);
    }
  }
});

it("refuses patterns over the length or wildcard caps, naming the cap", () => {
  const long = compileGlob("a".repeat(MAX_GLOB_LENGTH + 1));
  expect(!long.ok && long.error).toMatch(`at most ${MAX_GLOB_LENGTH} are allowed`);
  const wild = compileGlob("*a".repeat(MAX_GLOB_WILDCARDS + 1));
  expect(!wild.ok && wild.error).toMatch(`at most ${MAX_GLOB_WILDCARDS} are allowed`);
  expect(compileGlob("*a".repeat(MAX_GLOB_WILDCARDS)).ok).toBe(true);
});

it("stops a long pattern over thousands of long paths within its work budget, so the listing is refused whole", () => {
  // 5,000 paths of 500 characters (a full workspace) against a 256-character, 32-wildcard pattern: linear, but
  // 100 million steps to walk them all (each "**" crosses the paths' "/", so every step stays live).
  const tail = `${"b".repeat(MAX_GLOB_LENGTH - 3 * MAX_GLOB_WILDCARDS - 3)}.md`;
  const paths = Array.from({ length: 5000 }, (_, i) => `${"ab/".repeat(100)}${String(i).padStart(4, "0")}/a${tail}`);
  const pattern = `${"**a".repeat(MAX_GLOB_WILDCARDS)}${tail}`;
  let hostile = glob(pattern);
  let ordinary = glob("**/*.md");
  // Timed against what people list over the same paths, not a clock: other test files' load falls on both. The
  // budget stops it at about 1.6x the ordinary listing (measured); walking all of it takes about 8x. Each timing
  // compiles its pattern anew: the budget is per compiled pattern, and a spent one answers at once.
  const refuse = () => {
    hostile = glob(pattern);
    paths.forEach((p) => hostile.test(p));
  };
  const list = () => {
    ordinary = glob("**/*.md");
    expect(paths.filter((p) => ordinary.test(p))).toHaveLength(5000);
  };
  const [refused, listed] = fastest(3, refuse, list);
  expect(refused, `${refused!.toFixed(1)} ms vs ${listed!.toFixed(1)} ms`).toBeLessThan(5 * listed!);
  expect(hostile.exhausted).toBe(true);
  expect(tooCostly(hostile, "my-app's files")).toMatch(/costs too much to match against my-app's files: give it a longer literal start/);
  // What people list stays well inside it.
  expect(ordinary.exhausted).toBe(false);
});

it("names the folder every match lies in, so that a listing walks only it", () => {
  expect(literalFolder("docs/prd.md")).toBe("docs");
  expect(literalFolder("_bmad-output/planning-artifacts/**/prd.md")).toBe("_bmad-output/planning-artifacts");
  expect(literalFolder("docs/pr?/x.md")).toBe("docs");
  expect(literalFolder("prd.md")).toBe("");
  expect(literalFolder("**/*.md")).toBe("");
});
