// v6.3+ skill trees: the package source (src/*/module.yaml + SKILL.md dirs) and installed _bmad/ + .<ide>/skills/.
import { addDir, basename, dirname, filesUnder, folderIndex, MODULE_NAME, type ReadContext, recordFiles, type TreeContent, type TreeModule, type TreeRecord } from "./types";
import { firstHeading } from "../core/markdown";
import { asObject, csv, frontmatter, str, toml, yaml } from "./parse";

/** Builds the record for one skill whose files are already in `files` under bundle dir `dir`. */
/** `under`: the paths in `files` below `dir`. */
export function skillRecord(ctx: ReadContext, files: Map<string, string>, dir: string, module: string, under: Iterable<string>): TreeRecord | null {
  const entry = `${dir}/SKILL.md`;
  const skillRel = files.get(entry);
  const text = skillRel === undefined ? null : ctx.tree.text(skillRel);
  if (text === null) return null;
  const fm = frontmatter(text);
  if (!fm.ok) {
    ctx.warn(`Skipped skill ${dir}: bad frontmatter in ${ctx.tree.label(skillRel)}: ${fm.error}`);
    return null;
  }
  const folder = basename(dir);
  const name = str(fm.value.data.name) ?? folder;
  // BMAD names each skill's folder after it (all of 6.12's do): a SKILL.md in another folder that takes a name (a
  // planted evil1/ calling itself bmad-help) would answer for it unsaid.
  if (name !== folder) ctx.warn(`Skill ${dir} calls itself ${JSON.stringify(name.slice(0, 100))} in ${ctx.tree.label(skillRel)}, not its folder's name: served by that name. Rename one to match.`);
  const record: TreeRecord = { kind: "workflow", module, name, skill: true, entry, files: [] };
  const description = str(fm.value.data.description);
  if (description) record.description = description;
  // BMAD's installer reads the marker so (shim-policy.js isShimSkill): `metadata: { lifecycle: shim }`.
  if (asObject(fm.value.data.metadata).lifecycle === "shim") record.shim = true;

  const customRel = files.get(`${dir}/customize.toml`);
  const customText = customRel === undefined ? null : ctx.tree.text(customRel);
  let agent: Record<string, unknown> | undefined;
  if (customText !== null) {
    const t = toml(customText);
    if (!t.ok) {
      ctx.warn(`Skipped skill ${dir}: bad TOML in ${ctx.tree.label(customRel)}: ${t.error}`);
      return null;
    }
    if (t.value.agent && typeof t.value.agent === "object") agent = asObject(t.value.agent);
  }
  if (agent || name.startsWith("bmad-agent-")) {
    record.kind = "agent";
    const displayName = str(agent?.name);
    const title = str(agent?.title);
    const icon = str(agent?.icon);
    if (displayName) record.displayName = displayName;
    if (title) record.title = title;
    if (icon) record.icon = icon;
  } else {
    const title = firstHeading(fm.value.body);
    if (title) record.title = title;
  }
  record.files = recordFiles(entry, under, files);
  return record;
}

/** module.yaml -> module info and the `default:` of each prompt entry. */
function readModuleYaml(ctx: ReadContext, rel: string): { module: TreeModule; defaults: Record<string, unknown> } | null {
  const y = yaml(ctx.tree.text(rel) ?? "");
  if (!y.ok) {
    ctx.warn(`Skipped module ${ctx.tree.label(rel)}: bad YAML: ${y.error}`);
    return null;
  }
  const data = asObject(y.value);
  const folder = basename(dirname(rel));
  const given = str(data.code);
  // The code names the module's bundle folder: one plain word, or the module's own folder name (review 35).
  if (given !== undefined && !MODULE_NAME.test(given)) ctx.warn(`Module ${ctx.tree.label(rel)}: code ${JSON.stringify(given.slice(0, 80))} is not one plain word; used its folder's name, "${folder}".`);
  const code = given !== undefined && MODULE_NAME.test(given) ? given : folder;
  const module: TreeModule = { name: code };
  const title = str(data.name);
  const description = str(data.description);
  if (title) module.title = title;
  if (description) module.description = description;
  const defaults: Record<string, unknown> = Object.create(null); // keyed by module.yaml keys
  for (const [key, value] of Object.entries(data)) {
    const entry = asObject(value);
    if ("prompt" in entry && "default" in entry) defaults[key] = entry.default;
  }
  return { module, defaults };
}

/** `base` is the tree-relative dir holding `<group>/module.yaml` (usually `src`). */
export function readSkillsSource(ctx: ReadContext, base: string): TreeContent {
  const out: TreeContent = { layout: "v6-skills-source", files: new Map(), records: [], modules: [], config: Object.create(null) };
  const { tree } = ctx;
  const join = (a: string, b: string) => (a ? `${a}/${b}` : b);
  const all = tree.walk(base);
  const moduleDirs = tree.list(base).filter((d) => tree.exists(join(join(base, d), "module.yaml")));
  const moduleOf = new Map<string, string>();
  for (const d of moduleDirs) {
    const info = readModuleYaml(ctx, join(join(base, d), "module.yaml"));
    const code = info?.module.name ?? d;
    moduleOf.set(d, code);
    if (info) {
      out.modules.push(info.module);
      if (Object.keys(info.defaults).length) out.config[code] = info.defaults;
    }
  }
  // Skill dirs: every dir holding a SKILL.md; a file belongs to the deepest one above it.
  const skillDirs = all.filter((p) => basename(p) === "SKILL.md").map(dirname);
  const skillDirSet = new Set(skillDirs);
  const skills: Array<{ dir: string; module: string }> = [];
  for (const rel of all) {
    const sub = base ? rel.slice(base.length + 1) : rel;
    const [group, ...rest] = sub.split("/");
    const code = moduleOf.get(group!);
    if (code === undefined) {
      out.files.set(sub, rel); // e.g. src/scripts/x.py -> scripts/x.py
      continue;
    }
    let skillDir: string | undefined;
    for (let d = dirname(rel); d.length > base.length; d = dirname(d)) {
      if (skillDirSet.has(d)) {
        skillDir = d;
        break;
      }
    }
    if (skillDir === undefined) {
      out.files.set(`${code}/${rest.join("/")}`, rel); // module-level file, grouping folders kept
    } else {
      out.files.set(`${code}/${basename(skillDir)}/${rel.slice(skillDir.length + 1)}`, rel);
    }
  }
  for (const dir of skillDirs) {
    const group = (base ? dir.slice(base.length + 1) : dir).split("/")[0]!;
    const code = moduleOf.get(group);
    if (code !== undefined) skills.push({ dir: `${code}/${basename(dir)}`, module: code });
  }
  for (const s of skills) {
    const r = skillRecord(ctx, out.files, s.dir, s.module, filesUnder(out.files, s.dir));
    if (r) out.records.push(r);
  }
  addPhases(ctx, out);
  return out;
}

/** Each module's module-help.csv names a skill's delivery phase (`plan`, `2-planning`, `ship`, `anytime`). */
function addPhases(ctx: ReadContext, out: TreeContent): void {
  for (const module of new Set(out.records.map((r) => r.module))) {
    const rel = out.files.get(`${module}/module-help.csv`);
    if (rel === undefined) continue;
    const rows = csv(ctx.tree.text(rel) ?? "");
    if (!rows.ok) {
      ctx.warn(`Ignored phases in ${ctx.tree.label(rel)}: bad CSV: ${rows.error}`);
      continue;
    }
    const phases = new Map<string, string>();
    for (const row of rows.value) if (row.skill && row.phase && !phases.has(row.skill)) phases.set(row.skill, row.phase);
    for (const r of out.records) {
      const phase = r.module === module ? phases.get(r.name) : undefined;
      if (phase) r.phase = phase;
    }
  }
}

/** Rows of a skill manifest that name no skill, at most, before the rest of it is left unread. */
const MAX_MISSES = 1000;
/** Dot-folders holding a skills/ folder that are looked in, at most: BMAD's installer knows about 25 (.claude, .cursor, …). */
const MAX_IDE_FOLDERS = 64;

/** Installed skills live in an IDE folder, <root>/.<ide>/skills/<name>/: returns the folder a skill name is found in,
 *  the first such dot-folder's, or null. Each dot-folder's skills are listed once and each name looked for once (review
 *  134: every row looked in every dot-folder at the root, 20,000 rows and 200 empty dot-folders held a start for 92 s). */
function ideSkillFinder(ctx: ReadContext, manifestRel: string): (name: string) => string | null {
  const { tree } = ctx;
  const ides = tree.list("").filter((d) => d.startsWith(".") && tree.isDir(`${d}/skills`));
  if (ides.length > MAX_IDE_FOLDERS) {
    ctx.warn(`Looked for the skills ${tree.label(manifestRel)} names in the first ${MAX_IDE_FOLDERS} of ${ides.length} dot-folders holding a skills/ folder (${ides[MAX_IDE_FOLDERS]} and after were not read): remove the ones no tool uses.`);
  }
  const listedIn = new Map<string, string[]>(); // skill name -> the dot-folders whose skills/ lists it, in order
  for (const ide of ides.slice(0, MAX_IDE_FOLDERS)) {
    for (const name of tree.list(`${ide}/skills`)) {
      const at = listedIn.get(name);
      if (at) at.push(ide);
      else listedIn.set(name, [ide]);
    }
  }
  const found = new Map<string, string | null>();
  return (name) => {
    let dir = found.get(name);
    if (dir === undefined) {
      const ide = listedIn.get(name)?.find((d) => tree.exists(`${d}/skills/${name}/SKILL.md`));
      dir = ide === undefined ? null : `${ide}/skills/${name}`;
      found.set(name, dir);
    }
    return dir;
  };
}

/** Installed 6.3+: `bmad` is the tree-relative `_bmad` dir; skills are found via skill-manifest.csv. */
export function readSkillsInstalled(ctx: ReadContext, bmad: string): TreeContent {
  const out: TreeContent = { layout: "v6-skills-installed", files: new Map(), records: [], modules: [], config: Object.create(null) };
  const { tree } = ctx;
  addDir(ctx, out.files, bmad, "");
  readInstallInfo(ctx, bmad, out);
  const manifestRel = `${bmad ? `${bmad}/` : ""}_config/skill-manifest.csv`;
  const rows = csv(tree.text(manifestRel) ?? "");
  if (!rows.ok) {
    ctx.warn(`Skipped skill records: bad CSV in ${tree.label(manifestRel)}: ${rows.error}`);
    return out;
  }
  const bmadName = basename(bmad) || "_bmad";
  const read = new Set<string>();
  // Each bundle folder's paths: those the BMAD folder gave it (_bmad/bmm/bmad-prd/extra.md for a skill read from
  // .claude/skills/), then its skill folders' as they are added (two installed folders may make one); filesUnder's
  // index would be made again after each.
  const installed = folderIndex(out.files);
  const under = new Map<string, readonly string[]>();
  const looked = new Set<string>(); // [folder, name] of each row looked for: a repeated row is looked for once
  // Rows naming no skill are looked for at most MAX_MISSES times (review 35: 175,000 rows of missing skills cost 25 s
  // a rebuild, each listing the root again).
  const ideSkill = ideSkillFinder(ctx, manifestRel);
  let misses = 0;
  for (const row of rows.value) {
    if (tree.cut) break; // said by the build: no folder a further row names is read
    if (misses === MAX_MISSES) {
      ctx.warn(`Stopped reading ${tree.label(manifestRel)} after ${MAX_MISSES} rows that name no skill here: reinstall BMAD to rewrite it.`);
      break;
    }
    const name = row.name || row.canonicalId;
    // A nameless row, or one whose path is not plain, names no skill either (review 340: 600,000 of them cost 4.7 s).
    if (!name || !row.path) {
      misses += 1;
      continue;
    }
    const path = stripRoot(row.path, bmadName);
    const installedDir = dirname(path);
    // A row names a folder below the BMAD folder, plainly, and a skill by a plain name: the tree reads no other path
    // either (files.ts), and each folder once (200 rows naming one big folder made a bundle of 648,035 files).
    if (!/^[^/]+\/./.test(installedDir) || installedDir.split("/").some((p) => p === "." || p === "..") || name.includes("/") || name === "." || name === "..") {
      ctx.warn(`Skipped skill ${name.slice(0, 100)} in ${tree.label(manifestRel)}: its path ${row.path.slice(0, 200)} does not name a folder inside ${bmadName}/ plainly`);
      misses += 1;
      continue;
    }
    // Grouping folders (agents/, plan/) are dropped, as in the source layout: bmm/agents/x -> bmm/x.
    const dir = `${installedDir.split("/")[0]}/${basename(installedDir)}`;
    const key = JSON.stringify([installedDir, name]);
    if (looked.has(key)) continue;
    looked.add(key);
    let rel = `${bmad ? `${bmad}/` : ""}${installedDir}`;
    if (!tree.exists(`${rel}/SKILL.md`)) {
      const ide = ideSkill(name);
      if (ide === null) {
        misses += 1;
        ctx.warn(`Skill ${name} listed in ${tree.label(manifestRel)} has no SKILL.md at ${row.path} or .*/skills/${name}/`);
        continue;
      }
      rel = ide;
    }
    if (read.has(rel)) continue;
    read.add(rel);
    const added = addDir(ctx, out.files, rel, dir);
    const paths = (under.get(dir) ?? installed.get(dir) ?? []).concat(added);
    under.set(dir, paths);
    const record = skillRecord(ctx, out.files, dir, row.module || dir.split("/")[0]!, paths);
    if (record) out.records.push(record);
  }
  addPhases(ctx, out);
  return out;
}

/** Strips `{project-root}/` and the leading `_bmad/` (or `bmad/`) from a manifest path. */
export function stripRoot(path: string, bmadName: string): string {
  let p = path.replace(/^\{project-root\}\//, "").replace(/^\.\//, "");
  if (p.startsWith(`${bmadName}/`)) p = p.slice(bmadName.length + 1);
  return p;
}

/** Installed trees: `<module>/config.yaml` into config, `_config/manifest.yaml` (or `_cfg`) into modules. */
export function readInstallInfo(ctx: ReadContext, bmad: string, out: TreeContent, cfgDir = "_config"): void {
  const { tree } = ctx;
  const at = (p: string) => (bmad ? `${bmad}/${p}` : p);
  for (const d of tree.list(bmad)) {
    if (d.startsWith("_") || !tree.exists(at(`${d}/config.yaml`))) continue;
    const y = yaml(tree.text(at(`${d}/config.yaml`)) ?? "");
    if (!y.ok) ctx.warn(`Skipped config ${tree.label(at(`${d}/config.yaml`))}: bad YAML: ${y.error}`);
    else out.config[d] = asObject(y.value);
  }
  const manifest = yaml(tree.text(at(`${cfgDir}/manifest.yaml`)) ?? "");
  if (!manifest.ok) {
    ctx.warn(`Ignored ${tree.label(at(`${cfgDir}/manifest.yaml`))}: bad YAML: ${manifest.error}`);
    return;
  }
  const data = asObject(manifest.value);
  const version = str(asObject(data.installation).version);
  if (version) out.version = version;
  const mods = Array.isArray(data.modules) ? data.modules : [];
  for (const m of mods) {
    const o = asObject(m);
    const name = str(o.name) ?? (typeof m === "string" ? m : undefined);
    if (!name) continue;
    const mod: TreeModule = { name };
    const v = str(o.version) ?? version;
    if (v) mod.version = v;
    out.modules.push(mod);
  }
  if (!mods.length) {
    for (const name of Object.keys(out.config)) out.modules.push(version ? { name, version } : { name });
  }
}
