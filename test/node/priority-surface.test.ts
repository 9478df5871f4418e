// Seed 000 through the MCP surface: a project tree overrides the package; the bmad tool says which
// origin won and what else exists; resources serve the winner.
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildBundle } from "../../src/compiler/build";
import type { SurfaceDeps } from "../../src/core/surface/deps";
import { MemoryBundleReader } from "../../src/core/surface/memory-reader";
import { readBmadUri } from "../../src/core/surface/resources";
import { bmadTool } from "../../src/core/surface/tools/manifest.tools";
import { install, tempDir } from "./helpers";

const MARKER = "PROJECT OVERRIDE: John speaks Klingon here.";
const project = tempDir("priority");
let deps: SurfaceDeps;

beforeAll(async () => {
  await install("v6.12", project.dir);
  appendFileSync(join(project.dir, ".claude/skills/bmad-agent-pm/SKILL.md"), `\n${MARKER}\n`);
  writeFileSync(join(project.dir, ".claude/skills/bmad-agent-pm/notes.toString"), "Odd notes.\n");
  const { manifest, blobs } = await buildBundle({ sources: [`project=${project.dir}`] });
  const decoder = new TextDecoder();
  const reader = new MemoryBundleReader(manifest, (sha) => {
    const bytes = blobs.get(sha);
    return bytes && decoder.decode(bytes);
  });
  deps = { reader, owner: "local" };
}, 60_000);
afterAll(() => project.cleanup());

it("loads the project's agent and names the package candidate it overrode", async () => {
  const out = await bmadTool.run({ command: "bmm/pm" }, deps);
  expect(out.ok).toBe(true);
  const text = out.ok ? out.text : "";
  expect(text).toMatch(/^Resolved bmm\/bmad-agent-pm from project \(priority 1, /);
  expect(text).toMatch(/Also available: bmm\/bmad-agent-pm from package \(priority 5, bmad-method@6\.12\.0\)/);
  expect(text).toContain(MARKER);
});

it("fences a companion file whose extension names an object property as plain text", async () => {
  const out = await bmadTool.run({ command: "bmm/pm" }, deps);
  const text = out.ok ? out.text : "";
  expect(text).toMatch(/\n(`{3,})\nOdd notes\.\n\1(\n|$)/);
  expect(text).not.toContain("native code");
});

it("serves the winning file for a path both trees have", async () => {
  const read = await readBmadUri(deps, "bmad://bmm/bmad-agent-pm/SKILL.md");
  expect(read).toMatchObject({ ok: true, text: expect.stringContaining(MARKER) });
  // A file the project did not change is read, without the other file's override.
  const untouched = await readBmadUri(deps, "bmad://bmm/bmad-agent-architect/SKILL.md");
  expect(untouched).toMatchObject({ ok: true, text: expect.stringMatching(/^---\nname: bmad-agent-architect\n/) });
  expect(untouched).toMatchObject({ text: expect.not.stringContaining(MARKER) });
});
