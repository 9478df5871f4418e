// Decides which layout a source tree has and reads it. A root may be the BMAD tree itself or contain it.
import { readClassicInstalled, readClassicSource } from "./classic";
import { readSkillsInstalled, readSkillsSource } from "./skills";
import { MODULE_NAME, type ReadContext, recordFiles, type TreeContent, type TreeRecord } from "./types";
import { checkBundlePath } from "../core/catalog/paths";
import { showName } from "../core/lines";
import { readV4 } from "./v4";

export const EVIDENCE = [
  "_bmad/_config/skill-manifest.csv (v6-skills-installed)",
  "_bmad/_config/agent-manifest.csv (v6-classic-installed)",
  "bmad/_cfg/agent-manifest.csv (v6-alpha)",
  "src/*/module.yaml with SKILL.md files below (v6-skills-source)",
  "src/core/agents/*.agent.yaml (v6-classic-source)",
  "bmad-core/core-config.yaml or .bmad-core/ (v4)",
];

/** `said`: what the tree's warnings have said so far (a thing skipped), as clients are told it. */
export function readTree(ctx: ReadContext, said: readonly string[] = []): TreeContent {
  const content = detectAndRead(ctx);
  // A named tree that serves nothing is a mistake to report, not an empty layer to build quietly; what was skipped
  // first is most often why (review 340: a skill manifest over 8 MiB, said on stderr alone).
  if (!content.records.length) {
    const why = said[0] === undefined ? "" : ` First skipped: ${said[0]}.`;
    throw new Error(`The BMAD tree in ${ctx.tree.label()} (${content.layout}) yields no agents, workflows, tasks or skills.${why} Point at an installed project's folder or a module's source`);
  }
  addKnowledge(content);
  return servable(content, ctx.warn);
}

/** Only what a bundle path can name: each file's path, and each record's entry, files and module, plain parts (no
 *  `.`, `..`, empty or absolute, no control or format character) and a module of one word. Every layout's reader
 *  builds paths from what the tree says (a module.yaml `code`, a manifest's columns), and a path that left the bundle
 *  was written out of the bridge's cache on the next run of a script (review 35: `code: "a/b/../../../../home/u"`
 *  wrote `.bashrc`). */
function servable(content: TreeContent, warn: (message: string) => void): TreeContent {
  const bad = (path: string) => !checkBundlePath(path).ok;
  const badModule = (name: string) => !MODULE_NAME.test(name) || name === "." || name === "..";
  const dropped = [...content.files.keys()].filter(bad);
  for (const path of dropped) content.files.delete(path);
  const records = content.records.filter((r) => !badModule(r.module) && !bad(r.entry) && content.files.has(r.entry));
  for (const r of records) r.files = r.files.filter((f) => content.files.has(f));
  const modules = content.modules.filter((m) => !badModule(m.name));
  const refused = dropped.length + content.records.length - records.length + content.modules.length - modules.length;
  if (refused) {
    // The first one named, with why (review 422: a name with ESC was said to have "." or ".." parts).
    const record = content.records.find((r) => !records.includes(r));
    const path = dropped[0] ?? (record && !badModule(record.module) ? record.entry : undefined);
    const checked = path === undefined ? undefined : checkBundlePath(path);
    const example = path ?? record?.module ?? content.modules.find((m) => !modules.includes(m))?.name ?? "";
    const why = checked === undefined ? 'a module\'s name is one word of letters, digits, ".", "_" and "-"' : checked.ok ? "its file is not served" : checked.error;
    warn(`Skipped ${refused} files, records or modules whose paths or module names no bundle path can hold, e.g. ${JSON.stringify(showName(example).slice(0, 120))}: ${why}`);
  }
  const config: TreeContent["config"] = Object.create(null);
  for (const [name, values] of Object.entries(content.config)) if (!badModule(name)) config[name] = values;
  return { ...content, records, modules, config };
}

function detectAndRead(ctx: ReadContext): TreeContent {
  const { tree } = ctx;
  for (const bmad of ["_bmad", ""]) {
    const at = (p: string) => (bmad ? `${bmad}/${p}` : p);
    if (tree.exists(at("_config/skill-manifest.csv"))) return readSkillsInstalled(ctx, bmad);
    if (tree.exists(at("_config/agent-manifest.csv"))) return readClassicInstalled(ctx, bmad, "_config");
  }
  for (const bmad of ["bmad", ""]) {
    if (tree.exists(bmad ? `${bmad}/_cfg/agent-manifest.csv` : "_cfg/agent-manifest.csv")) return readClassicInstalled(ctx, bmad, "_cfg");
  }
  for (const src of ["src", ""]) {
    const at = (p: string) => (src ? `${src}/${p}` : p);
    const groups = tree.list(src).filter((d) => tree.exists(at(`${d}/module.yaml`)));
    if (groups.some((d) => tree.walk(at(d)).some((p) => p.endsWith("/SKILL.md")))) return readSkillsSource(ctx, src);
    if (tree.list(at("core/agents")).some((f) => f.endsWith(".agent.yaml"))) return readClassicSource(ctx, src);
  }
  if (tree.exists("bmad-core/core-config.yaml")) return readV4(ctx, "bmad-core");
  if (tree.isDir(".bmad-core")) return readV4(ctx, ".bmad-core");
  if (tree.exists("core-config.yaml") && tree.isDir("agents")) return readV4(ctx, "");
  throw new Error(`No BMAD tree recognised in ${tree.label()}. Looked for: ${EVIDENCE.join("; ")}`);
}

/** Module-level `data/` dirs (named after the module) and any `knowledge/` dir (named after its parent). */
function addKnowledge(content: TreeContent): void {
  const groups = new Map<string, { module: string; name: string; dir: string; paths: string[] }>();
  for (const path of [...content.files.keys()].sort()) {
    const parts = path.split("/");
    let dir: string | undefined;
    let name: string | undefined;
    if (parts.length > 2 && parts[1] === "data" && !parts[0]!.startsWith("_")) {
      dir = `${parts[0]}/data`;
      name = parts[0];
    } else {
      const k = parts.indexOf("knowledge");
      if (k >= 1 && k < parts.length - 1) {
        dir = parts.slice(0, k + 1).join("/");
        name = parts[k - 1];
      }
    }
    if (!dir || !name) continue;
    const g = groups.get(dir) ?? { module: parts[0]!, name, dir, paths: [] };
    g.paths.push(path);
    groups.set(dir, g);
  }
  for (const g of groups.values()) {
    const entry = g.paths[0]!;
    const record: TreeRecord = { kind: "knowledge", module: g.module, name: g.name, entry, files: recordFiles(entry, g.paths, content.files) };
    content.records.push(record);
  }
}
