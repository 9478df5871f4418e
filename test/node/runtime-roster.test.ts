// bmad-party-mode's resolve_party.py and bmad-forge-idea's resolve_personas.py beside their ports (what the remote
// runs, where Python cannot), on a real 6.12 install: plain, with team and user overrides of groups and members, with
// the project's resolvers gone, and (the forge) with party mode not installed.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, it } from "vitest";
import type { ScriptMain } from "../../src/core/runtime/context.js";
import { main as party } from "../../src/core/runtime/resolve-party.js";
import { main as personas } from "../../src/core/runtime/resolve-personas.js";
import { expectSameAsPython, install612 } from "../fixtures/runtime/harness.js";
import { tempDir } from "./helpers.js";

const tmp = tempDir("runtime-party");
const project = join(tmp.dir, "project");
const skill = join(project, ".claude/skills/bmad-party-mode");
const forge = join(project, ".claude/skills/bmad-forge-idea");
const PARTY: [string, ScriptMain] = [join(skill, "scripts/resolve_party.py"), party];
const FORGE: [string, ScriptMain] = [join(forge, "scripts/resolve_personas.py"), personas];

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

const USER_OVERRIDE = `[workflow]
default_party = "open"

[[workflow.party_members]]
code = "Vex"
title = "Renamed by the user"

[[workflow.party_members]]
code = "user-only"
name = "Mary"
`;

/** Each case by the Python, then by the port: one copy of the project set aside per call, not per case. */
const compare = ([script, main]: [string, ScriptMain], cases: string[][]) => expectSameAsPython(script, main, cases, { cwd: tmp.dir });

const base = ["--project-root", project, "--skill", skill];
const forgeArgs = ["--project-root", project, "--skill", forge];

it("resolves the installed roster, groups and parties as resolve_party.py and resolve_personas.py do", async () => {
  await compare(PARTY, [
    ...[[], ["--list-groups"], ["--party", "crit"], ["--party", "nope"], ["--party", ""], ["--party="]].map((extra) => [...base, ...extra]),
    ["--project-root", "project", "--skill", "project/.claude/skills/bmad-party-mode/"],
    ["--skill", skill],
    ["--help"],
  ]);
  await compare(FORGE, [forgeArgs, ["--project-root", "project", "--skill", "project/.claude/skills/bmad-forge-idea"], ["--help"]]);
});

it("merges team and user overrides of groups and members as they do", async () => {
  mkdirSync(join(project, "_bmad/custom"), { recursive: true });
  writeFileSync(join(project, "_bmad/custom/bmad-party-mode.toml"), OVERRIDE);
  writeFileSync(join(project, "_bmad/custom/bmad-party-mode.user.toml"), USER_OVERRIDE);
  await compare(PARTY, [[], ["--list-groups"], ["--party", "crit"], ["--party", "open"], ["--party", "no id"], ["--party", ""]].map((extra) => [...base, ...extra]));
  await compare(FORGE, [forgeArgs]);
});

it("falls back as they do when the project's resolvers are gone, and the forge when party mode is not installed", async () => {
  rmSync(join(project, "_bmad/scripts/resolve_customization.py"));
  rmSync(join(project, "_bmad/scripts/resolve_config.py"));
  await compare(PARTY, [base, [...base, "--list-groups"]]);
  await compare(FORGE, [forgeArgs]);
  rmSync(skill, { recursive: true });
  await compare(FORGE, [forgeArgs]);
});
