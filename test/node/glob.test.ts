import { expect, it } from "vitest";
import { compileGlob, MAX_GLOB_LENGTH, MAX_GLOB_WILDCARDS, tooCostly } from "../../src/core/catalog/glob.js";

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

it("matches hostile patterns in linear time", () => {
  const path = "bmm/" + "a/".repeat(400) + "x.md";
  for (const pattern of ["**************Q", "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*Q", "**/**/**/**/**/**/**/**/**/**/**/Q", "?*?*?*?*?*?*?*?*?*?*?*?*?*Q"]) {
    const started = performance.now();
    for (let i = 0; i < 100; i++) expect(glob(pattern).test(path)).toBe(false);
    expect(performance.now() - started, pattern).toBeLessThan(1000); // backtracking takes minutes; the margin is for a loaded machine
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
  // about 650 million steps to walk them all.
  const tail = `${"b".repeat(MAX_GLOB_LENGTH - 2 * MAX_GLOB_WILDCARDS - 3)}.md`;
  const paths = Array.from({ length: 5000 }, (_, i) => `${"ab/".repeat(100)}${String(i).padStart(4, "0")}/a${tail}`);
  const pattern = `${"*a".repeat(MAX_GLOB_WILDCARDS)}${tail}`;
  const hostile = glob(pattern);
  const started = performance.now();
  paths.forEach((p) => hostile.test(p));
  expect(performance.now() - started).toBeLessThan(1000);
  expect(hostile.exhausted).toBe(true);
  expect(tooCostly(hostile, "my-app's files")).toMatch(/costs too much to match against my-app's files: give it a longer literal start/);
  // What people list stays well inside it.
  const ordinary = glob("**/*.md");
  expect(paths.filter((p) => ordinary.test(p))).toHaveLength(5000);
  expect(ordinary.exhausted).toBe(false);
});
