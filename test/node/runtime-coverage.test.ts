// The README's runtime coverage table is generated from the default bundle and must be current.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runtimeCoverage } from "../../src/core/runtime/coverage.js";
import { MemoryBundleReader } from "../../src/core/surface/memory-reader.js";
import { loadBundleFromDir } from "../../src/compiler/read.js";
import { RUNTIME_DOC, withCoverageTable } from "../../scripts/readme-tools.js";
import { PKG } from "./helpers.js";

function findMarkdown(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? findMarkdown(path) : name.endsWith(".md") ? [path] : [];
  });
}

it("keeps the docs' runtime coverage table current (npm run docs)", async () => {
  const readme = readFileSync(RUNTIME_DOC, "utf8");
  expect(await withCoverageTable(readme)).toBe(readme);
});

it("counts every uv run line of bmad-prd and says where each runs", async () => {
  const { manifest, blobs } = loadBundleFromDir("bmad-bundle");
  const reader = new MemoryBundleReader(manifest, (sha) => (blobs.has(sha) ? new TextDecoder().decode(blobs.get(sha)) : undefined));
  const rows = await runtimeCoverage(reader);
  const prd = rows.find((r) => r.skill === "bmad-prd")!;
  expect(prd.scripts.every((s) => s.ported)).toBe(true);
  // Every `uv run` in the package's own bmad-prd folder is counted.
  const dir = join(PKG, "bmad-method/src/bmm-skills/plan/bmad-prd");
  const inPackage = findMarkdown(dir).reduce((n, f) => n + (readFileSync(f, "utf8").match(/uv run /g) ?? []).length, 0);
  expect(prd.scripts.reduce((n, s) => n + s.lines, 0)).toBe(inPackage);
  const brainstorming = rows.find((r) => r.skill === "bmad-brainstorming")!;
  expect(brainstorming.scripts.find((s) => s.script === "brain.py")).toMatchObject({ ported: false });
  expect(rows.filter((r) => r.scripts.length).length).toBeGreaterThanOrEqual(29);
});
