// What BMAD's installer copies into `_bmad/<module>/` from a module's tree, which of those directories it
// registers as skills (and removes again once the IDE has them), and what stays behind. The bundle keeps
// a module's files under `<module>/`; directories are walked in sorted order, as the installer's readdir does.
import { agentTags } from "../agent-tags.js";
import { parseBoundedYaml } from "../yaml.js";
import type { BundleFile } from "../catalog/bundle.js";
import type { BundleReader } from "../surface/reader.js";

export interface InstalledSkill {
  canonicalId: string;
  name: string;
  description: string;
  module: string;
  /** `_bmad/<module>/<dir>/SKILL.md` */
  path: string;
}

export interface ModuleTree {
  /** Files the installer copies, module-relative path -> bundle file, in its copy order. */
  copied: Array<[string, BundleFile]>;
  skills: InstalledSkill[];
  /** Copied files outside every registered skill directory: they stay in `_bmad/<module>/`. */
  kept: Array<[string, BundleFile]>;
  /** Module-relative directories of the deprecated shim skills left out. */
  shims: string[];
}

/** Directory listing over a set of relative file paths. */
class Tree {
  readonly files = new Set<string>();
  private readonly dirs = new Map<string, Set<string>>();

  constructor(paths: Iterable<string>) {
    for (const path of paths) {
      this.files.add(path);
      const parts = path.split("/");
      for (let i = 0; i < parts.length - 1; i++) {
        const parent = parts.slice(0, i).join("/");
        const set = this.dirs.get(parent) ?? new Set<string>();
        set.add(parts[i]!);
        this.dirs.set(parent, set);
      }
    }
  }

  /** Subdirectories of `dir` the installer's walks enter: sorted, not starting with "." or "_". */
  subdirs(dir: string): string[] {
    return [...(this.dirs.get(dir) ?? [])].filter((d) => !d.startsWith(".") && !d.startsWith("_")).sort(byName).map((d) => join(dir, d));
  }
}

const join = (dir: string, name: string) => (dir ? `${dir}/${name}` : name);
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const basename = (path: string) => path.slice(path.lastIndexOf("/") + 1);
const dirname = (path: string) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "");

/** Depth-first in sorted directory order (what a recursive readdir yields): compares path segments, not whole strings. */
export function readdirOrder(a: string, b: string): number {
  const x = a.split("/");
  const y = b.split("/");
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return byName(x[i]!, y[i]!);
  return x.length - y.length;
}

/** SKILL.md frontmatter as the installer reads it (CRLF normalised, `---` fences), or null. */
function frontmatter(text: string): Record<string, unknown> | null {
  const match = /^---\n([\s\S]*?)\n---/.exec(text.replaceAll("\r\n", "\n").replaceAll("\r", "\n"));
  if (!match) return null;
  try {
    const data: unknown = parseBoundedYaml(match[1]!);
    return typeof data === "object" && data !== null ? (data as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const isShim = (meta: Record<string, unknown> | null) => {
  const metadata = meta?.metadata;
  return typeof metadata === "object" && metadata !== null && (metadata as Record<string, unknown>).lifecycle === "shim";
};

/** Collapses whitespace as the installer does for CSV descriptions. */
const cleanForCsv = (text: string) => (text ? text.trim().replaceAll(/\s+/g, " ") : "");

/** The bundle files of one module (winning copies, 6.x skills sources), module-relative. */
function moduleFiles(reader: BundleReader, module: string): Map<string, BundleFile> {
  const { catalog } = reader;
  const prefix = `${module}/`;
  const out = new Map<string, BundleFile>();
  for (const path of catalog.paths) {
    if (!path.startsWith(prefix)) continue;
    const file = catalog.file(path)!;
    if (catalog.manifest.sources[file.source]?.layout.startsWith("v6-skills")) out.set(path.slice(prefix.length), file);
  }
  return out;
}

/**
 * A fresh install of one module without the deprecated shim skills (what `install --yes` does): every file
 * but module.yaml, the root config.yaml, `sub-modules/`, `*-sidecar/` directories and shim skill directories.
 */
export async function moduleTree(reader: BundleReader, module: string): Promise<ModuleTree> {
  const files = moduleFiles(reader, module);
  const source = new Tree(files.keys());
  const reads = new Map<string, Promise<string>>();
  const text = (rel: string) => {
    let read = reads.get(rel);
    if (!read) reads.set(rel, (read = reader.readText(files.get(rel)!)));
    return read;
  };

  const shimDirs: string[] = [];
  const findShims = async (dir: string): Promise<void> => {
    const skill = join(dir, "SKILL.md");
    if (source.files.has(skill)) {
      if (isShim(frontmatter(await text(skill)))) shimDirs.push(dir);
      return;
    }
    for (const sub of source.subdirs(dir)) await findShims(sub);
  };
  await findShims("");

  const copied: Array<[string, BundleFile]> = [];
  for (const rel of [...files.keys()].sort(readdirOrder)) {
    if (shimDirs.some((d) => d === "" || rel === d || rel.startsWith(`${d}/`))) continue;
    if (rel.startsWith("sub-modules/") || rel === "module.yaml" || rel === "config.yaml") continue;
    if ((dirname(rel) || ".").split("/").some((d) => d.toLowerCase().endsWith("-sidecar"))) continue;
    if (rel.startsWith("agents/") && rel.endsWith(".md") && skipsLocally(await text(rel))) continue;
    copied.push([rel, files.get(rel)!]);
  }

  const installed = new Tree(copied.map(([rel]) => rel));
  const skills: InstalledSkill[] = [];
  const skillDirs: string[] = [];
  const findSkills = async (dir: string): Promise<void> => {
    const skill = join(dir, "SKILL.md");
    const meta = installed.files.has(skill) ? frontmatter(await text(skill)) : null;
    const dirName = dir ? basename(dir) : module;
    if (meta && typeof meta.name === "string" && typeof meta.description === "string" && meta.name && meta.description && meta.name === dirName) {
      skills.push({ canonicalId: dirName, name: meta.name, description: cleanForCsv(meta.description), module, path: `_bmad/${module}/${skill}` });
      skillDirs.push(dir);
      return;
    }
    for (const sub of installed.subdirs(dir)) await findSkills(sub);
  };
  await findSkills("");

  const kept = copied.filter(([rel]) => !skillDirs.some((d) => d === "" || rel.startsWith(`${d}/`)));
  return { copied, skills, kept, shims: shimDirs };
}

/** `_bmad/scripts/*`: the bundle's shared `scripts/` without tests and Python caches. */
export function sharedScripts(reader: BundleReader): BundleFile[] {
  const { catalog } = reader;
  return catalog.paths
    .filter((p) => p.startsWith("scripts/"))
    .map((p) => catalog.file(p)!)
    .filter((f) => catalog.manifest.sources[f.source]?.layout.startsWith("v6-skills"))
    .filter((f) => !f.path.split("/").some((part) => part === "tests" || part === "__pycache__" || part === ".pytest_cache" || part.endsWith(".pyc")))
    .sort((a, b) => readdirOrder(a.path, b.path));
}

/** Whether an agent file's `<agent …>` tag says localskip="true" (agent-tags.ts: each tag looked at once). */
function skipsLocally(text: string): boolean {
  for (const tag of agentTags(text)) if (/\slocalskip="true"/.test(tag)) return true;
  return false;
}
