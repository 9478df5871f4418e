// One naming rule (seed 000) for prompts, agent tools and skills: among records that share a name, the one the
// bmad tool resolves (the highest priority) keeps the short name; the others are qualified by their module.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBundle } from "../../src/compiler/build";
import type { CatalogRecord } from "../../src/core/catalog/bundle";
import { Catalog } from "../../src/core/catalog/catalog";
import { shortName } from "../../src/core/catalog/names";
import { MemoryBundleReader } from "../../src/core/surface/memory-reader";
import { promptEntries } from "../../src/core/surface/prompts";
import { buildServer } from "../../src/core/surface/server";
import { ORIGIN_META, skillIndex } from "../../src/core/surface/skills";
import { agentTools } from "../../src/core/surface/tools/agents.tools";
import { install, tempDir } from "./helpers";

const tmp = tempDir("names");
afterAll(() => tmp.cleanup());

async function catalogOf(sources: string[], includeDefault = true): Promise<{ catalog: Catalog; reader: MemoryBundleReader }> {
  // In memory as the bridge keeps one: no search index until asked for (naming never asks).
  const { manifest, blobs } = await buildBundle({ sources, includeDefault, indexLater: true });
  const decoder = new TextDecoder();
  const reader = new MemoryBundleReader(manifest, (sha) => {
    const bytes = blobs.get(sha);
    return bytes && decoder.decode(bytes);
  });
  return { catalog: reader.catalog, reader };
}

const origin = (catalog: Catalog, r: CatalogRecord) => catalog.manifest.sources[r.source]!.origin;

/** Every short prompt and agent tool name is the record the bmad tool resolves; every record has a name. */
function expectOneRule(catalog: Catalog): void {
  const prompts = promptEntries(catalog);
  const records = [...catalog.list("agent"), ...catalog.list("workflow")];
  expect(prompts.size).toBe(records.length);
  for (const [name, { record }] of prompts) {
    const short = `bmad-${shortName(record)}`;
    const resolved = catalog.resolve(record.kind, shortName(record));
    if (name === short) expect(resolved.ok && resolved.record, name).toBe(record);
    else {
      expect(name).toBe(`bmad-${record.module}-${shortName(record)}`);
      expect(prompts.get(short)?.record, `${name} lost ${short} to a higher-priority record`).toBeDefined();
      expect(catalog.priority(prompts.get(short)!.record.source)).toBeLessThanOrEqual(catalog.priority(record.source));
    }
  }
  const tools = new Map(agentTools(catalog).map((t) => [t.name, t]));
  for (const [name, { record }] of prompts) if (record.kind === "agent") expect(tools.has(name), `agent tool ${name}`).toBe(true);
}

describe("a v4 project over the embedded 6.12 bundle", () => {
  let catalog: Catalog;
  beforeAll(async () => {
    await install("v4", join(tmp.dir, "v4"));
    ({ catalog } = await catalogOf([`project=${join(tmp.dir, "v4")}`]));
  }, 120_000);

  it("keeps /bmad-analyst, /bmad-architect, /bmad-pm and /bmad-dev for the project's agents", () => {
    const prompts = promptEntries(catalog);
    for (const agent of ["analyst", "architect", "pm", "dev"]) {
      expect(prompts.get(`bmad-${agent}`)?.record, agent).toMatchObject({ module: "bmad-core", name: agent });
      expect(origin(catalog, prompts.get(`bmad-${agent}`)!.record)).toBe("project");
      expect(prompts.get(`bmad-bmm-${agent}`)?.record.name).toBe(`bmad-agent-${agent}`);
    }
    expect([...prompts.keys()].filter((n) => n.startsWith("bmad-bmad-core-"))).toEqual([]);
    expectOneRule(catalog);
  });

  it("serves only the 6.12 skills as skills: v4 agents have no SKILL.md", () => {
    const skills = skillIndex(catalog).skills;
    expect(skills.length).toBeGreaterThan(0);
    expect(skills.filter((s) => s.record.module === "bmad-core" || origin(catalog, s.record) === "project")).toEqual([]);
  });

  it("names the agent tools the same way", () => {
    const names = agentTools(catalog).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["bmad-analyst", "bmad-pm", "bmad-bmm-analyst", "bmad-bmm-pm"]));
  });
});

it("gives a multi-source bundle's short names to its highest-priority source", async () => {
  const { catalog } = await catalogOf(["user=bmad-v4"]);
  expect(catalog.manifest.sources.map((s) => s.origin)).toEqual(["user", "package"]);
  const prompts = promptEntries(catalog);
  expect(prompts.get("bmad-architect")?.record.module).toBe("bmad-core");
  expect(prompts.get("bmad-bmm-architect")?.record.name).toBe("bmad-agent-architect");
  expectOneRule(catalog);
}, 60_000);

it("breaks a tie between packs of one source the way the bmad tool does", async () => {
  const { catalog } = await catalogOf(["bmad-v4"], false);
  const records = [...catalog.list("agent"), ...catalog.list("workflow")];
  expect(records.some((r) => records.filter((o) => shortName(o) === shortName(r)).length > 1), "the v4 package has agents of one name in several packs").toBe(true);
  expectOneRule(catalog);
}, 60_000);

describe("6.12 with a project override", () => {
  const MARKER = "PROJECT OVERRIDE: John speaks Klingon here.";
  let reader: MemoryBundleReader;
  beforeAll(async () => {
    const dir = join(tmp.dir, "v612");
    await install("v6.12", dir);
    appendFileSync(join(dir, ".claude/skills/bmad-agent-pm/SKILL.md"), `\n${MARKER}\n`);
    ({ reader } = await catalogOf([`project=${dir}`]));
  }, 120_000);

  it("serves the override under the short prompt name, once", () => {
    const prompts = promptEntries(reader.catalog);
    expect(origin(reader.catalog, prompts.get("bmad-pm")!.record)).toBe("project");
    expect(prompts.has("bmad-bmm-pm")).toBe(false);
    expectOneRule(reader.catalog);
  });

  it("serves the override as skill://bmad-agent-pm once, its origin in _meta and its bytes verified", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await buildServer({ reader, owner: "local" }, ["manifest"]).connect(serverSide);
    const client = new Client({ name: "names-test", version: "1" });
    await client.connect(clientSide);
    const skills = new SkillsClient(client);
    const { skills: listed } = await skills.list();
    const pm = listed.filter((s) => s.frontmatter.name === "bmad-agent-pm");
    expect(pm.map((s) => s.uri)).toEqual(["skill://bmad-agent-pm/SKILL.md"]);
    expect(pm[0]!._meta?.[ORIGIN_META]).toMatch(/^project \(priority 1, /);
    const file = await skills.read(pm[0]!);
    expect(file.verified).toBe(true);
    expect(file.text).toContain(MARKER);
    await client.close();
  });
});

it("lists each agent tool name once, whatever characters the agents' names hold (review 14)", () => {
  const agent = (name: string, module = "custom"): CatalogRecord => ({ kind: "agent", module, name, source: 0, entry: `${module}/${name}.md`, files: [`${module}/${name}.md`] });
  const long = "x".repeat(70);
  const catalog = new Catalog({
    format: 1, id: "names", searchIndex: "", config: Object.create(null), modules: [],
    sources: [{ kind: "directory", name: "t", origin: "cli", priority: 2, layout: "v4" }],
    records: [agent("a b"), agent("a/b"), agent("a-b"), agent(`${long}1`), agent(`${long}2`), agent("task")],
    files: [],
  });
  const names = agentTools(catalog).map((t) => t.name);
  expect(new Set(names).size).toBe(names.length);
  expect(names).not.toContain("bmad-task");
  expect(names.every((n) => /^[A-Za-z0-9_.-]{1,64}$/.test(n))).toBe(true);
});
