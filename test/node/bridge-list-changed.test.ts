// The bridge tells its client when a reload changes a list it caches (issue 29): a new skill in the project
// brings prompts/list_changed and resources/list_changed, and an edit to a file's body brings none.
import { appendFileSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, inject, it } from "vitest";
import { LocalBundle } from "../../src/bridge/local-bundle.js";
import { discoverSources } from "../../src/bridge/sources.js";
import { connectBridge, installedProjects, waitFor } from "./helpers.js";

const projects = installedProjects("bridge-list-changed");

describe("the bridge's list_changed notifications", () => {
  it("declares listChanged, tells of a new skill once, and says nothing of an edited body", async () => {
    const dir = projects.project("p");
    const bridge = await connectBridge(inject("bridge"), dir);
    projects.closeAfter(bridge.close);
    const { client } = bridge;
    const caps = client.getServerCapabilities()!;
    expect([caps.tools?.listChanged, caps.prompts?.listChanged, caps.resources?.listChanged]).toEqual([true, true, true]);
    const heard = { tools: 0, prompts: 0, resources: 0 };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void heard.tools++);
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void heard.prompts++);
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void heard.resources++);
    const prompts = async () => (await client.listPrompts()).prompts.map((p) => p.name);
    expect(await prompts()).not.toContain("bmad-quokka");

    // Made beside the watched folder and moved in whole, then listed in BMAD's skill manifest: one reload.
    const staged = join(dir, "quokka-staged");
    mkdirSync(staged);
    writeFileSync(join(staged, "SKILL.md"), "---\nname: bmad-quokka\ndescription: Counts quokkas.\n---\nCount the quokkas.\n");
    renameSync(staged, join(dir, "_bmad/bmm/bmad-quokka"));
    appendFileSync(join(dir, "_bmad/_config/skill-manifest.csv"), '"bmad-quokka","bmad-quokka","Counts quokkas.","bmm","_bmad/bmm/bmad-quokka/SKILL.md"\n');
    // Sent in the order tools, prompts, resources: the last one means the reload's notifications are all in.
    await waitFor("resources/list_changed", () => heard.resources || undefined, 5000);
    expect(await prompts()).toContain("bmad-quokka");
    expect(heard).toEqual({ tools: 0, prompts: 1, resources: 1 });

    // A body edit reloads the bundle (the prompt shows it) but changes no list's names.
    appendFileSync(join(dir, "_bmad/bmm/bmad-quokka/SKILL.md"), "\nQUOKKA MARKER\n");
    const body = async () => ((await client.getPrompt({ name: "bmad-quokka" })).messages[0]!.content as { text: string }).text;
    for (const end = Date.now() + 5000; !(await body()).includes("QUOKKA MARKER") && Date.now() < end; await new Promise((r) => setTimeout(r, 25)));
    expect(await body()).toContain("QUOKKA MARKER");
    expect(heard).toEqual({ tools: 0, prompts: 1, resources: 1 });
  });
});

describe("a reload", () => {
  it("leaves a reader it replaced reading its own bundle whole (a prompt read during a reload found its blob missing)", async () => {
    const dir = projects.project("r");
    // The project's own text, not the embedded one's: a blob only this build holds.
    const skill = join(dir, ".claude/skills/bmad-prd/SKILL.md");
    appendFileSync(skill, "\nPROJECT MARKER\n");
    const found = discoverSources({ project: dir, projectNamed: true, paths: [], env: {} });
    if (!found.ok) throw new Error(found.error);
    const bundle = new LocalBundle(found.value.sources, resolve("bmad-bundle"), () => undefined);
    await bundle.ready();
    const before = bundle.reader;
    const file = before.catalog.manifest.files.find((f) => f.path === "bmm/bmad-prd/SKILL.md" && f.source === 0)!;
    const text = await before.readText(file);
    expect(text).toContain("PROJECT MARKER");
    bundle.watch(found.value.watch);
    projects.closeAfter(async () => bundle.close());
    appendFileSync(skill, "\nRELOAD MARKER\n");
    for (const end = Date.now() + 5000; bundle.reader === before && Date.now() < end; await new Promise((r) => setTimeout(r, 25))) await bundle.ready();
    expect(bundle.reader).not.toBe(before);
    expect(await before.readText(file)).toBe(text);
  });
});
