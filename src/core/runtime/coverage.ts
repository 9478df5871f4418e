// Which `uv run` lines each skill of a bundle has, and where each runs: BMAD's shared scripts are ported
// (both front doors); a skill's own scripts run for real on the bridge, and on the remote where one is ported
// (brain.py). docs/runtime.md's table is this.
import type { BundleReader } from "../surface/reader.js";
import { uvRunScripts } from "./command-line.js";
import { SHARED_SCRIPTS, SKILL_SCRIPTS } from "./scripts.js";

export interface ScriptUse {
  script: string;
  lines: number;
  ported: boolean;
  /** A skill's own script that the remote runs as a port. */
  remote: boolean;
}

export interface SkillCoverage {
  skill: string;
  scripts: ScriptUse[];
}

export async function runtimeCoverage(reader: BundleReader): Promise<SkillCoverage[]> {
  const { catalog } = reader;
  const rows: SkillCoverage[] = [];
  const skills = catalog.manifest.records.filter((r) => r.skill);
  const seen = new Set<string>();
  for (const record of skills) {
    if (seen.has(record.name)) continue; // the winner only
    seen.add(record.name);
    const dir = record.entry.slice(0, record.entry.lastIndexOf("/") + 1);
    const counts = new Map<string, number>();
    for (const path of catalog.paths.filter((p) => p.startsWith(dir) && p.endsWith(".md"))) {
      for (const script of uvRunScripts(await reader.readText(catalog.file(path)!))) counts.set(script, (counts.get(script) ?? 0) + 1);
    }
    const folder = dir.slice(0, -1).split("/").pop();
    const scripts = [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([script, lines]) => ({ script, lines, ported: SHARED_SCRIPTS.has(script), remote: SKILL_SCRIPTS.has(`${folder}/${script}`) }));
    rows.push({ skill: record.name, scripts });
  }
  return rows.sort((a, b) => a.skill.localeCompare(b.skill));
}

export function coverageTable(rows: SkillCoverage[]): string {
  const cell = (uses: ScriptUse[]) => uses.map((u) => `${u.script} ×${u.lines}`).join(", ") || "—";
  const lines = rows.map((r) => {
    const ported = r.scripts.filter((s) => s.ported);
    const own = r.scripts.filter((s) => !s.ported);
    const remote = own.some((s) => !s.remote) ? "ported ones; own scripts need the bridge" : r.scripts.length ? "all (ported)" : "—";
    return `| \`${r.skill}\` | ${r.scripts.reduce((n, s) => n + s.lines, 0)} | ${cell(ported)} | ${cell(own)} | ${r.scripts.length ? "all" : "—"} | ${remote} |`;
  });
  return ["| skill | `uv run` lines | BMAD's shared scripts (ported) | the skill's own scripts (Python) | runs on the bridge | runs on the remote |", "|---|---|---|---|---|---|", ...lines].join("\n");
}
