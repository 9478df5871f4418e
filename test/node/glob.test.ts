import { expect, it } from "vitest";
import { compileGlob, MAX_GLOB_LENGTH, MAX_GLOB_WILDCARDS } from "../../src/core/catalog/glob.js";

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
    expect(performance.now() - started, pattern).toBeLessThan(200);
  }
});

it("refuses patterns over the length or wildcard caps, naming the cap", () => {
  const long = compileGlob("a".repeat(MAX_GLOB_LENGTH + 1));
  expect(!long.ok && long.error).toMatch(`at most ${MAX_GLOB_LENGTH} are allowed`);
  const wild = compileGlob("*a".repeat(MAX_GLOB_WILDCARDS + 1));
  expect(!wild.ok && wild.error).toMatch(`at most ${MAX_GLOB_WILDCARDS} are allowed`);
  expect(compileGlob("*a".repeat(MAX_GLOB_WILDCARDS)).ok).toBe(true);
});
