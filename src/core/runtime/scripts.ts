// BMAD 6.12's shared scripts (_bmad/scripts/*.py), ported, by file name. config_utils.py is a
// library module with no command line: its port (config-utils.ts) serves the others.
import type { ScriptMain } from "./context.js";
import { main as brain } from "./brain.js";
import { main as gitEvidence } from "./git-evidence.js";
import { main as listCustomizableSkills } from "./list-customizable-skills.js";
import { main as lintSpine } from "./lint-spine.js";
import { main as memlog, memlogNamed } from "./memlog.js";
import { main as pickMethods } from "./pick-methods.js";
import { main as reconKit } from "./recon-kit.js";
import { main as renderSkill } from "./render-skill.js";
import { main as resolveParty } from "./resolve-party.js";
import { main as resolvePersonas } from "./resolve-personas.js";
import { main as sprintPlan, sprintPlanReads } from "./sprint-plan.js";
import { main as sprintStatus } from "./sprint-status.js";
import { main as wordMetrics, wordMetricsReads } from "./word-metrics.js";
import { centralLayersNamed, main as resolveConfig } from "./resolve-config.js";
import { main as resolveCustomization } from "./resolve-customization.js";

export type { ScriptContext, ScriptMain, ScriptResult } from "./context.js";

export const SHARED_SCRIPTS: ReadonlyMap<string, ScriptMain> = new Map([
  ["memlog.py", memlog],
  ["render_skill.py", renderSkill],
  ["resolve_config.py", resolveConfig],
  ["resolve_customization.py", resolveCustomization],
]);

/** Whether the file at `path` (a bundle or project path: `…/bmad-brainstorming/scripts/brain.py`,
 *  `_bmad/scripts/memlog.py`) is a script with a port: its bytes never run for real, under any name. */
export function isPortedScriptPath(path: string): boolean {
  const parts = path.split("/");
  const name = parts[parts.length - 1]!;
  if (parts[parts.length - 2] !== "scripts") return false;
  return SHARED_SCRIPTS.has(name) || SKILL_SCRIPTS.has(`${parts[parts.length - 3]}/${name}`);
}

/** Where a script belongs, as BMAD places it: the folder holding its `scripts/` folder and the path below that
 *  (`bmad-review/scripts/word_metrics.py`; `_bmad` for BMAD's shared `scripts/`), whatever tree it is in. BMAD's bytes
 *  vouch for a script only at their own place: a test of BMAD's copied elsewhere would import the model's files. */
export function scriptPlace(path: string): string | undefined {
  const parts = path.split("/");
  const at = parts.lastIndexOf("scripts");
  if (at < 0 || at === parts.length - 1) return undefined;
  return [at > 0 ? parts[at - 1] : "_bmad", ...parts.slice(at)].join("/");
}

/** BMAD's scripts by place (scriptPlace), each place with the sha256 of the bytes BMAD put there. */
export type BmadScripts = ReadonlyMap<string, ReadonlySet<string>>;

export function bmadScriptsOf(files: Iterable<{ path: string; sha256: string }>): BmadScripts {
  const out = new Map<string, Set<string>>();
  for (const { path, sha256 } of files) {
    const place = scriptPlace(path);
    if (place) out.set(place, (out.get(place) ?? new Set()).add(sha256));
  }
  return out;
}

/** What a script's command line says it will read, by file name: read in the run's first call. */
export const SCRIPT_READS: ReadonlyMap<string, (argv: string[]) => string[]> = new Map([
  ["memlog.py", memlogNamed],
  ["resolve_config.py", centralLayersNamed],
  ["sprint_plan.py", sprintPlanReads],
  ["word_metrics.py", wordMetricsReads],
]);

/** A skill's own scripts, ported, by skill folder and file name. Both doors run the port, never the file: the model
 *  can change the file, not the port. */
export const SKILL_SCRIPTS: ReadonlyMap<string, ScriptMain> = new Map([
  ["bmad-brainstorming/brain.py", brain],
  ["bmad-party-mode/resolve_party.py", resolveParty],
  ["bmad-forge-idea/resolve_personas.py", resolvePersonas],
  ["bmad-architecture/lint_spine.py", lintSpine],
  ["bmad-review/word_metrics.py", wordMetrics],
  ["bmad-advanced-elicitation/pick_methods.py", pickMethods],
  ["bmad-deep-recon/recon_kit.py", reconKit],
  ["bmad-sprint-planning/sprint_plan.py", sprintPlan],
  ["bmad-retrospective/sprint_status.py", sprintStatus],
  ["bmad-customize/list_customizable_skills.py", listCustomizableSkills],
  ["bmad-retrospective/git_evidence.py", gitEvidence],
]);
