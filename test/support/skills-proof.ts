// The Skills-over-MCP proof both front doors run, with the real SDK SkillsClient: skills/list names every skill
// of the bundle; for each, skills/get gives the file's frontmatter (read here with the yaml package, not the
// SDK's parser), every file's bytes match the manifest's size and digest and the bundle's own sha256, and
// directory reads, walked from the skill's root, list exactly the manifest's files.
import type { Client } from "@modelcontextprotocol/client";
import { DIRECTORY_MIME_TYPE, SkillsClient, type Skill } from "@modelcontextprotocol/client/ext/skills";
import { expect } from "vitest";
import { parse as parseYaml } from "yaml";
import type { Catalog } from "../../src/core/catalog/catalog.js";
import { SKILL_RUNTIME_FILE } from "../../src/core/surface/runtime-block.js";

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The skills of a bundle, by name: what skills/list must hold. */
export function bundleSkills(catalog: Catalog): Map<string, string> {
  const skills = new Map<string, string>();
  for (const kind of ["agent", "workflow", "task", "knowledge"] as const) {
    for (const r of catalog.list(kind)) if (r.skill) skills.set(r.name, r.entry.slice(0, -"/SKILL.md".length));
  }
  return skills;
}

async function walk(skills: SkillsClient, uri: string): Promise<string[]> {
  const { resources } = await skills.readDirectory(uri);
  const files: string[] = [];
  for (const child of resources) files.push(...(child.mimeType === DIRECTORY_MIME_TYPE ? await walk(skills, child.uri) : [child.uri]));
  return files;
}

export async function proveSkills(client: Client, catalog: Catalog): Promise<{ skills: number; files: number }> {
  const skills = new SkillsClient(client);
  expect(skills.supported).toBe(true);
  expect(skills.directoryRead).toBe(true);
  const expected = bundleSkills(catalog);
  const { skills: listed } = await skills.list();
  expect(listed.map((s) => s.frontmatter.name).sort()).toEqual([...expected.keys()].sort());
  let files = 0;
  for (const entry of listed) {
    const { skill } = await skills.get(entry.uri);
    expect(skill).toEqual(entry);
    const dir = expected.get(skill.frontmatter.name)!;
    const root = skill.uri.slice(0, -"/SKILL.md".length);
    const resources = skill.resources as Exclude<Skill["resources"], "dynamic">;
    for (const resource of resources) {
      const read = await skills.read(skill, resource.uri);
      expect(read.verified, resource.uri).toBe(true);
      expect(read.bytes.length, resource.uri).toBe(resource.size);
      expect(`sha256:${await sha256(read.bytes)}`, resource.uri).toBe(resource.digest);
      const rel = decodeURIComponent(resource.uri.slice(root.length + 1));
      if (rel !== SKILL_RUNTIME_FILE) expect(await sha256(read.bytes), resource.uri).toBe(catalog.file(`${dir}/${rel}`)!.sha256);
      if (rel === "SKILL.md") expect(skill.frontmatter).toEqual(parseYaml(/^---\r?\n([\s\S]*?)\r?\n---/.exec(read.text!)![1]!));
      files++;
    }
    expect((await walk(skills, root)).sort()).toEqual(resources.map((r) => r.uri).sort());
  }
  return { skills: listed.length, files };
}
