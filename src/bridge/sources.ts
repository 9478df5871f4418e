// Seed 000's priority chain for local trees: project > --path > BMAD_ROOT > ~/.bmad (> the embedded bundle).
import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { LocalSource } from "./local-bundle.js";

const PROJECT_TREES = ["_bmad", "bmad", ".bmad-core"];
/** Where installed trees keep files that matter besides the BMAD folder (6.3+ skills live in the IDE folder). */
const PROJECT_EXTRAS = [".claude/skills", ".cursor/skills", ".agents/skills"];

export interface Discovered {
  sources: LocalSource[];
  /** Directories to watch for edits (not whole projects: node_modules stays out). */
  watch: string[];
  warnings: string[];
}

export function discoverSources(opts: { project: string; path?: string; env: NodeJS.ProcessEnv }): { ok: true; value: Discovered } | { ok: false; error: string } {
  // The project holds sessions and the completion contract: a mistyped one must not go unnoticed.
  if (!isDir(opts.project)) return { ok: false, error: `--project ${opts.project}: no such directory. Give your project's folder (the default is the current directory).` };
  const out: Discovered = { sources: [], watch: [], warnings: [] };
  const trees = PROJECT_TREES.map((t) => join(opts.project, t)).filter(isDir);
  if (trees.length) {
    out.sources.push({ spec: `project=${opts.project}`, path: opts.project });
    out.watch.push(...trees, ...PROJECT_EXTRAS.map((t) => join(opts.project, t)).filter(isDir));
  }
  if (opts.path !== undefined) {
    const dir = resolve(opts.path);
    if (!isDir(dir)) return { ok: false, error: `--path ${opts.path}: no such directory. Give a BMAD tree (a folder with _bmad/, bmad/, .bmad-core/ or src/*/module.yaml).` };
    out.sources.push({ spec: `cli=${dir}`, path: dir });
    out.watch.push(dir);
  }
  const envRoot = opts.env.BMAD_ROOT;
  if (envRoot) {
    if (isDir(resolve(envRoot))) {
      out.sources.push({ spec: `env=${resolve(envRoot)}`, path: resolve(envRoot) });
      out.watch.push(resolve(envRoot));
    } else out.warnings.push(`BMAD_ROOT=${envRoot} is not a directory; ignored`);
  }
  const user = join(opts.env.HOME ?? homedir(), ".bmad");
  if (isDir(user)) {
    out.sources.push({ spec: `user=${user}`, path: user });
    out.watch.push(user);
  }
  return { ok: true, value: out };
}

function isDir(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}
