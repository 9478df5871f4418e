// bmad-party-mode's resolve_party.py and its port (what the remote runs, where Python cannot), on a real 6.12
// install: the roster plain, with a team override of groups and members, and with its resolvers gone.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { NodeRuntimeFs } from "../../src/bridge/runtime-fs.js";
import { main } from "../../src/core/runtime/resolve-party.js";
import { comparable, install612, runPython } from "../fixtures/runtime/harness.js";
import { tempDir } from "./helpers.js";

const tmp = tempDir("runtime-party");
const project = join(tmp.dir, "project");
const skill = join(project, ".claude/skills/bmad-party-mode");
const script = join(skill, "scripts/resolve_party.py");

beforeAll(async () => {
  await install612(project);
}, 60_000);

const OVERRIDE = `[workflow]
default_party = "crit"
party_mode = ""
party_memory = false

[[workflow.party_groups]]
id = "crit"
name = "Critics ✓"
members = ["analyst", "Vex", "BMAD-AGENT-ARCHITECT", "nobody", 5]
memory = true
scene = "a cold room"

[[workflow.party_groups]]
id = "open"
scene = "figures from a novel"

[[workflow.party_groups]]
name = "no id"

[[workflow.party_members]]
code = "architect"
name = "Winston Prime"
persona = "overrides the installed one"

[[workflow.party_members]]
code = "newbie"
icon = "🆕"

[[workflow.party_members]]
name = "no code"
`;

async function compare(args: string[], cwd = tmp.dir): Promise<void> {
  const fs = await NodeRuntimeFs.create([tmp.dir]);
  const theirs = comparable(await runPython(script, args, { cwd }));
  const ours = comparable(await main(args, { fs, cwd, env: {}, scriptPath: script }));
  expect(ours, args.join(" ")).toEqual(theirs);
}

const base = ["--project-root", project, "--skill", skill];

it("resolves the installed roster, groups and parties as resolve_party.py does", async () => {
  for (const extra of [[], ["--list-groups"], ["--party", "crit"], ["--party", "nope"]]) await compare([...base, ...extra]);
  await compare(["--project-root", "project", "--skill", "project/.claude/skills/bmad-party-mode/"]);
  await compare(["--skill", skill]);
  await compare(["--help"]);
});

it("merges a team override of groups and members as resolve_party.py does", async () => {
  mkdirSync(join(project, "_bmad/custom"), { recursive: true });
  writeFileSync(join(project, "_bmad/custom/bmad-party-mode.toml"), OVERRIDE);
  for (const extra of [[], ["--list-groups"], ["--party", "crit"], ["--party", "open"], ["--party", "no id"]]) await compare([...base, ...extra]);
  rmSync(join(project, "_bmad/custom/bmad-party-mode.toml"));
});

it("falls back as resolve_party.py does when the project's resolvers are gone", async () => {
  rmSync(join(project, "_bmad/scripts/resolve_customization.py"));
  rmSync(join(project, "_bmad/scripts/resolve_config.py"));
  await compare(base);
  await compare([...base, "--list-groups"]);
});
