// Seed 000's priority chain for local trees: project > --path (each, in the order given) > BMAD_ROOT >
// ~/.bmad (> the embedded bundle). Roots the user named (--path, --project) are marked explicit: one that
// yields nothing stops the bridge at start-up; the implicit ones are skipped with a warning.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { SKIP_DIRS } from "../compiler/files.js";
import { isGitLocation, parseGitSpec } from "../compiler/git.js";
import { csv } from "../compiler/parse.js";
import type { LocalSource } from "./local-bundle.js";
import type { Result } from "../core/result.js";

const PROJECT_TREES = ["_bmad", "bmad", ".bmad-core"];
/** The folders of a --path, BMAD_ROOT or ~/.bmad tree that hold what a build reads (compiler/detect.ts's layouts):
 *  watched, the rest of the tree not (review 214: a --path holding node_modules took 37,696 inotify watches). */
const TREE_FOLDERS = [...PROJECT_TREES, "bmad-core", "expansion-packs", "src"];
/** What the kit and BMAD's scripts write under _bmad/ in a project that has no BMAD tree of its own. */
const KIT_ENTRIES = new Set(["_memory", "_config", "render"]);

/** A folder to watch for edits, and the source root it must really be in (a link out of it is not watched). */
export interface WatchedFolder {
  folder: string;
  source: string;
}

export interface Discovered {
  sources: LocalSource[];
  /** Folders to watch for edits: those a build reads, never a whole project (node_modules and .git stay out). */
  watch: WatchedFolder[];
  warnings: string[];
}

export interface DiscoverOptions {
  project: string;
  /** --project was given (not the current directory by default). */
  projectNamed?: boolean;
  /** How it was named, for messages: "--project" (default) or "BMAD_PROJECT_ROOT". */
  projectFrom?: string;
  /** --path, each as given, highest rank first. */
  paths?: string[];
  env: NodeJS.ProcessEnv;
}

export function discoverSources(opts: DiscoverOptions): Result<{ value: Discovered }> {
  // The project holds sessions and the completion contract: a mistyped one must not go unnoticed.
  const from = opts.projectFrom ?? "--project";
  if (!isDir(opts.project)) return { ok: false, error: `${from} ${opts.project}: no such directory. Give your project's folder (the default is the current directory).` };
  const out: Discovered = { sources: [], watch: [], warnings: [] };
  // Each source's own folders are watched before any's other dot-folders (watchedFolders).
  const extra: WatchedFolder[] = [];
  const watchAll = (found: { own: WatchedFolder[]; extra: WatchedFolder[] }) => {
    out.watch.push(...found.own);
    extra.push(...found.extra);
  };
  const trees = PROJECT_TREES.map((t) => join(opts.project, t)).filter(isDir);
  const label = opts.projectNamed ? `${from} ${opts.project}` : `the project (${opts.project})`;
  // A workspace `bmad-mcp pull` made (or an install for a tool whose folder is not here) holds BMAD's config, not its
  // skills: no tree to layer, as a kit-only _bmad/ (the embedded BMAD's skills are served; its scripts read the config).
  if (trees.length && !skillsElsewhere(opts.project)) {
    // A project whose _bmad/ holds only the kit's files (memory, the contract) has no tree to layer: not an error.
    out.sources.push({ spec: `project=${opts.project}`, path: opts.project, label, explicit: opts.projectNamed === true, quietIfNoTree: kitOnly(opts.project) });
    watchAll(watchedFolders(opts.project, PROJECT_TREES));
  }
  const seen = new Set<string>();
  for (const given of opts.paths ?? []) {
    // A git URL is fetched into the cache when the bundle is built (git-sources.ts); it is not watched.
    if (isGitLocation(given)) {
      let label: string;
      try {
        label = parseGitSpec(given).label; // never the URL as given: it may carry credentials
      } catch (error) {
        return { ok: false, error: `--path ${given}: ${(error as Error).message}. Give git+https://host/repo.git#ref:/subdir.` };
      }
      if (!seen.has(given)) out.sources.push({ spec: `cli=${given}`, path: given, label: `--path ${label}`, explicit: true });
      seen.add(given);
      continue;
    }
    const dir = resolve(given);
    if (!isDir(dir)) return { ok: false, error: `--path ${given}: no such directory. Give a BMAD tree (a folder with _bmad/, bmad/, .bmad-core/ or src/*/module.yaml) or a git URL (git+https://host/repo.git#ref).` };
    if (seen.has(dir)) continue;
    seen.add(dir);
    out.sources.push({ spec: `cli=${dir}`, path: dir, label: `--path ${given}`, explicit: true });
    watchAll(watchedFolders(dir, TREE_FOLDERS));
  }
  const envRoot = opts.env.BMAD_ROOT;
  if (envRoot) {
    if (isDir(resolve(envRoot))) {
      out.sources.push({ spec: `env=${resolve(envRoot)}`, path: resolve(envRoot), label: `BMAD_ROOT=${envRoot}`, explicit: false });
      watchAll(watchedFolders(resolve(envRoot), TREE_FOLDERS));
    } else out.warnings.push(`BMAD_ROOT=${envRoot} is not a directory; ignored`);
  }
  const user = join(opts.env.HOME ?? homedir(), ".bmad");
  if (isDir(user)) {
    out.sources.push({ spec: `user=${user}`, path: user, label: `~/.bmad (${user})`, explicit: false });
    watchAll(watchedFolders(user, TREE_FOLDERS));
  }
  out.watch.push(...extra);
  return { ok: true, value: out };
}

/** What to watch of `root`: the `trees` it holds and the dot-folders a build reads beside them, or the root itself
 *  when it holds none of them (a BMAD folder named directly: BMAD_ROOT=…/_bmad; a project without one is no source). */
function watchedFolders(root: string, trees: string[]): { own: WatchedFolder[]; extra: WatchedFolder[] } {
  const found = trees.map((t) => join(root, t)).filter(isDir);
  if (!found.length) return { own: [{ folder: root, source: root }], extra: [] };
  // An IDE's skills/ (6.3+ installs skills in .claude/skills, .cursor/skills, …), and a v4 expansion pack installed
  // beside .bmad-core (.bmad-2d-phaser-game-dev: its config.yaml and agents/).
  const skills: string[] = [];
  for (const name of readdirSync(root).sort()) {
    const dot = join(root, name);
    if (!name.startsWith(".") || trees.includes(name) || SKIP_DIRS.has(name)) continue;
    if (isDir(join(dot, "skills"))) skills.push(join(dot, "skills"));
    else if (isDir(join(dot, "agents")) && existsSync(join(dot, "config.yaml"))) found.push(dot);
  }
  // Those holding a skill the skill manifest lists are the tree's own; the others are watched after every source's own,
  // so the watch's limit, met in one of them, leaves those watched (review 448: `.a/skills`, listed before `.claude`,
  // took it all).
  const listed = new Set(listedSkills(root) ?? []);
  const own = skills.filter((dir) => folderNames(dir).some((n) => listed.has(n)));
  const watched = (folder: string) => ({ folder, source: root });
  return { own: [...found, ...own].map(watched), extra: skills.filter((dir) => !own.includes(dir)).map(watched) };
}

/** The skills `root`'s skill manifest lists (plain names, the first MAX_LISTED_SKILLS), or undefined without one. */
function listedSkills(root: string): string[] | undefined {
  const manifest = join(root, "_bmad/_config/skill-manifest.csv");
  if (!isSmallFile(manifest)) return undefined;
  const rows = csv(readFileSync(manifest, "utf8"));
  if (!rows.ok) return undefined;
  return [...new Set(rows.value.map((r) => r.name || r.canonicalId || ""))].filter((n) => PLAIN_NAME.test(n)).slice(0, MAX_LISTED_SKILLS);
}

/** The names in `dir` (none if it cannot be read). */
function folderNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Whether the project's only BMAD folder is _bmad/, a skills install (its skill manifest), with none of the skills it
 *  lists there: not in _bmad/, nor in an IDE's skills/ folder by its name (review 300: a pulled workspace named with
 *  --project stopped the bridge, one warning per skill; review 309: so did one with the user's own skills beside it). */
function skillsElsewhere(project: string): boolean {
  if (isDir(join(project, "bmad")) || isDir(join(project, ".bmad-core"))) return false;
  const names = listedSkills(project);
  if (!names) return false;
  const ides = readdirSync(project).filter((name) => name.startsWith(".") && !SKIP_DIRS.has(name) && isDir(join(project, name, "skills")));
  return !ides.some((ide) => names.some((n) => existsSync(join(project, ide, "skills", n, "SKILL.md")))) && !holdsSkill(join(project, "_bmad"));
}

/** A manifest past this is no pulled workspace's (a few KB): the tree reader judges it. */
const MAX_MANIFEST_BYTES = 1 << 20;
const MAX_LISTED_SKILLS = 1000;
const PLAIN_NAME = /^(?!\.\.?$)[\w.-]+$/;

/** Whether a SKILL.md is anywhere below `dir` (stops at the first; links not followed; a folder that cannot be read,
 *  or went meanwhile, holds none). */
function holdsSkill(dir: string): boolean {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  for (const entry of entries) {
    if (entry.isFile() && entry.name === "SKILL.md") return true;
    if (entry.isDirectory() && !SKIP_DIRS.has(entry.name) && holdsSkill(join(dir, entry.name))) return true;
  }
  return false;
}

/** Whether the project's only BMAD folder is _bmad/ and it holds nothing but the kit's own files. */
function kitOnly(project: string): boolean {
  if (isDir(join(project, "bmad")) || isDir(join(project, ".bmad-core"))) return false;
  const entries = readdirSync(join(project, "_bmad"));
  const config = join(project, "_bmad", "_config");
  return entries.every((e) => KIT_ENTRIES.has(e)) && (!isDir(config) || readdirSync(config).every((e) => e === "custom"));
}

/** A regular file (never a FIFO, whose read waits for a writer) of at most MAX_MANIFEST_BYTES. */
function isSmallFile(path: string): boolean {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat !== undefined && stat.isFile() && stat.size <= MAX_MANIFEST_BYTES;
}

function isDir(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}
