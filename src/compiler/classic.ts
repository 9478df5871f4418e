// Classic v6 trees: installed `_bmad/_config/*-manifest.csv` (and v6 alpha `bmad/_cfg/`), and the 6.0 source `src/`.
import { agentTags } from "../core/agent-tags.js";
import { addDir, basename, dirname, filesUnder, type ReadContext, recordFiles, type TreeContent, type TreeRecord } from "./types";
import { firstHeading } from "../core/markdown";
import { asObject, csv, frontmatter, str, yaml } from "./parse";
import { readInstallInfo, stripRoot } from "./skills";

type Row = Record<string, string>;

/** `bmad` is the tree-relative dir (`_bmad` or `bmad`); `cfg` its config dir (`_config` or `_cfg`). */
export function readClassicInstalled(ctx: ReadContext, bmad: string, cfg: "_config" | "_cfg"): TreeContent {
  const layout = cfg === "_cfg" ? "v6-alpha" : "v6-classic-installed";
  const out: TreeContent = { layout, files: new Map(), records: [], modules: [], config: Object.create(null) };
  const { tree } = ctx;
  const at = (p: string) => (bmad ? `${bmad}/${p}` : p);
  addDir(ctx, out.files, bmad, "");
  readInstallInfo(ctx, bmad, out, cfg);
  const bmadName = basename(bmad) || "_bmad";
  const rows = (file: string): Row[] => {
    const rel = at(`${cfg}/${file}`);
    if (!tree.exists(rel)) return [];
    const parsed = csv(tree.text(rel) ?? "");
    if (parsed.ok) return parsed.value;
    ctx.warn(`Skipped ${file} records: bad CSV in ${tree.label(rel)}: ${parsed.error}`);
    return [];
  };
  // Rows name paths from the project (`bmad/bmm/agents/pm.md`): a root that is the BMAD folder itself
  // (BMAD_ROOT=/x/bmad, a ~/.bmad laid out like one) holds them without that first folder, whatever it is called.
  const entryOf = (path: string): string => {
    const p = stripRoot(path, bmadName);
    const inner = p.slice(p.indexOf("/") + 1);
    return !bmad && !out.files.has(p) && p.includes("/") && out.files.has(inner) ? inner : p;
  };
  // A row repeated is one record: 20,000 copies of one row made 20,000 records, each listing its folder (1.3 GB, and
  // the tree dropped unnamed: review 35).
  const seen = new Set<string>();
  let repeated = 0;
  const base = (row: Row, kind: TreeRecord["kind"], file: string): TreeRecord | null => {
    const name = row.name;
    const entry = row.path ? entryOf(row.path) : "";
    const key = `${kind}\0${entry}\0${name}`;
    if (seen.has(key)) {
      repeated += 1;
      return null;
    }
    seen.add(key);
    if (!name || !entry || !out.files.has(entry)) {
      if (name) {
        ctx.warn(`Skipped ${kind} ${name}: ${row.path || "no path"} is not in ${tree.label(bmad)}`);
        (out.warnings ??= []).push(`${cfg}/${file} lists ${kind} ${name} at ${row.path || "no path"}, which is not in the tree; skipped.`);
      }
      return null;
    }
    const r: TreeRecord = { kind, module: row.module || entry.split("/")[0]!, name, entry, files: [] };
    if (row.description) r.description = row.description;
    return r;
  };
  for (const row of rows("agent-manifest.csv")) {
    const r = base(row, "agent", "agent-manifest.csv");
    if (!r) continue;
    if (row.displayName) r.displayName = row.displayName;
    if (row.title) r.title = row.title;
    if (row.icon) r.icon = row.icon;
    if (!r.description && row.capabilities) r.description = row.capabilities;
    r.files = recordFiles(r.entry, [`${cfg}/agents/${r.module}-${r.name}.customize.yaml`], out.files);
    out.records.push(r);
  }
  for (const row of rows("workflow-manifest.csv")) {
    const r = base(row, "workflow", "workflow-manifest.csv");
    if (!r) continue;
    r.path = row.path;
    const author = row.author || str(workflowMeta(ctx, out, r.entry)?.author);
    if (author) r.author = author;
    r.files = recordFiles(r.entry, filesUnder(out.files, dirname(r.entry)), out.files);
    out.records.push(r);
  }
  for (const file of ["task-manifest.csv", "tool-manifest.csv"]) {
    for (const row of rows(file)) {
      const r = base(row, "task", file);
      if (!r) continue;
      if (row.displayName && row.displayName !== r.name) r.title = row.displayName;
      r.files = [r.entry];
      out.records.push(r);
    }
  }
  if (repeated) ctx.warn(`Skipped ${repeated} repeated rows of the manifests in ${tree.label(`${bmad ? `${bmad}/` : ""}${cfg}`)}: each names a record already read.`);
  addUnlisted(ctx, out, cfg);
  return out;
}

/** Agents and workflows dropped into the folders without a manifest row: served by their own frontmatter (a name
 *  and description), and said, as is a row without its file. */
function addUnlisted(ctx: ReadContext, out: TreeContent, cfg: string): void {
  const listed = new Set(out.records.map((r) => r.entry));
  for (const path of [...out.files.keys()].sort()) {
    const parts = path.split("/");
    const file = parts.at(-1)!;
    if (listed.has(path) || parts[0]!.startsWith("_")) continue;
    // agents/x.md, or agents/x/x.md for an agent with a folder of its own; workflows as the source layout names them.
    const agent = parts[1] === "agents" && file.endsWith(".md") && (parts.length === 3 || (parts.length === 4 && file === `${parts[2]}.md`));
    const workflow = !agent && parts.includes("workflows") && WORKFLOW_FILE.test(file);
    if (!agent && !workflow) continue;
    const r = agent ? unlistedAgent(ctx, out, path, cfg) : classicWorkflow(ctx, out, path, parts[0]!);
    if (!r) continue;
    const named = str(workflowMeta(ctx, out, path)?.name);
    if (named && SLUG.test(named)) r.name = named;
    out.records.push(r);
    (out.warnings ??= []).push(`${path} has no row in ${cfg}/${r.kind}-manifest.csv; served as ${r.kind} ${r.module}/${r.name} from its own ${path.endsWith(".yaml") ? "fields" : "frontmatter"}.`);
  }
}

const WORKFLOW_FILE = /^workflow(\.yaml|\.md|-.+\.md)$/;
const SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function unlistedAgent(ctx: ReadContext, out: TreeContent, path: string, cfg: string): TreeRecord | null {
  const meta = workflowMeta(ctx, out, path);
  if (!meta) return null;
  const text = ctx.tree.text(out.files.get(path)!) ?? "";
  const tag = agentTags(text).next().value ?? "";
  const attr = (name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1] || undefined;
  const module = path.split("/")[0]!;
  const r: TreeRecord = { kind: "agent", module, name: basename(path).replace(/\.md$/, ""), entry: path, files: [] };
  const fields = { displayName: attr("name"), title: attr("title"), icon: attr("icon"), description: str(meta.description) };
  for (const [k, v] of Object.entries(fields)) if (v) (r as unknown as Record<string, string>)[k] = v;
  const dir = dirname(path);
  r.files = recordFiles(path, [...(basename(dir) === r.name ? filesUnder(out.files, dir) : []), `${cfg}/agents/${module}-${r.name}.customize.yaml`], out.files);
  return r;
}

/** 6.0 source: `base` is the tree-relative `src` dir; bundle paths are relative to it. */
export function readClassicSource(ctx: ReadContext, base: string): TreeContent {
  const out: TreeContent = { layout: "v6-classic-source", files: new Map(), records: [], modules: [], config: Object.create(null) };
  const { tree } = ctx;
  addDir(ctx, out.files, base, "");
  const paths = [...out.files.keys()];
  for (const mod of tree.list(base)) {
    const yamlRel = out.files.get(`${mod}/module.yaml`);
    if (yamlRel === undefined) continue;
    const y = yaml(tree.text(yamlRel) ?? "");
    if (!y.ok) {
      ctx.warn(`Skipped module ${tree.label(yamlRel)}: bad YAML: ${y.error}`);
      continue;
    }
    const data = asObject(y.value);
    const m = { name: str(data.code) ?? mod, title: str(data.name), description: str(data.description) };
    out.modules.push(Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)) as typeof m);
    const defaults: Record<string, unknown> = Object.create(null); // keyed by module.yaml keys
    for (const [k, v] of Object.entries(data)) {
      const o = asObject(v);
      if ("prompt" in o && "default" in o) defaults[k] = o.default;
    }
    if (Object.keys(defaults).length) out.config[m.name] = defaults;
  }
  for (const path of paths) {
    const parts = path.split("/");
    const module = parts[0]!;
    const file = basename(path);
    if (parts[1] === "agents" && file.endsWith(".agent.yaml")) {
      const r = classicAgent(ctx, out, path, module);
      if (r) out.records.push(r);
    } else if (parts.includes("workflows") && WORKFLOW_FILE.test(file)) {
      const r = classicWorkflow(ctx, out, path, module);
      if (r) out.records.push(r);
    } else if (parts[1] === "tasks" && parts.length === 3 && /\.(xml|md)$/.test(file)) {
      const text = tree.text(out.files.get(path)!) ?? "";
      const r: TreeRecord = { kind: "task", module, name: file.replace(/\.(xml|md)$/, ""), entry: path, files: [path] };
      const title = /<task\b[^>]*\bname="([^"]+)"/.exec(text)?.[1] ?? mdTitle(text);
      if (title) r.title = title;
      out.records.push(r);
    }
  }
  return out;
}

function classicAgent(ctx: ReadContext, out: TreeContent, path: string, module: string): TreeRecord | null {
  const rel = out.files.get(path)!;
  const y = yaml(ctx.tree.text(rel) ?? "");
  if (!y.ok) {
    ctx.warn(`Skipped agent ${path}: bad YAML in ${ctx.tree.label(rel)}: ${y.error}`);
    return null;
  }
  const meta = asObject(asObject(asObject(y.value).agent).metadata);
  const name = basename(path).replace(/\.agent\.yaml$/, "");
  const r: TreeRecord = { kind: "agent", module: str(meta.module) ?? module, name, entry: path, files: [] };
  const fields = { displayName: str(meta.name), title: str(meta.title), icon: str(meta.icon), description: str(meta.capabilities) };
  for (const [k, v] of Object.entries(fields)) if (v) (r as unknown as Record<string, string>)[k] = v;
  const dir = dirname(path);
  // An agent in its own folder (agents/tech-writer/) owns the folder.
  const own = basename(dir) === name ? filesUnder(out.files, dir) : [];
  r.files = recordFiles(path, own, out.files);
  return r;
}

/** A workflow.yaml's fields, or a markdown file's frontmatter; null (warned) when they do not parse. */
function workflowMeta(ctx: ReadContext, out: TreeContent, path: string): Record<string, unknown> | null {
  const rel = out.files.get(path)!;
  const text = ctx.tree.text(rel) ?? "";
  if (path.endsWith(".yaml")) {
    const y = yaml(text);
    if (y.ok) return asObject(y.value);
    ctx.warn(`Skipped ${path}: bad YAML in ${ctx.tree.label(rel)}: ${y.error}`);
    return null;
  }
  const fm = frontmatter(text);
  if (fm.ok) return fm.value.data;
  ctx.warn(`Skipped ${path}: bad frontmatter in ${ctx.tree.label(rel)}: ${fm.error}`);
  return null;
}

function classicWorkflow(ctx: ReadContext, out: TreeContent, path: string, module: string): TreeRecord | null {
  const text = ctx.tree.text(out.files.get(path)!) ?? "";
  const file = basename(path);
  const dir = dirname(path);
  const meta = workflowMeta(ctx, out, path);
  if (!meta) return null;
  const name = file.startsWith("workflow-") ? file.slice(9, -3) : basename(dir);
  const r: TreeRecord = { kind: "workflow", module, name, entry: path, files: [] };
  const description = str(meta.description);
  if (description) r.description = description;
  const author = str(meta.author);
  if (author) r.author = author;
  const title = file.endsWith(".md") ? mdTitle(text) : undefined;
  if (title) r.title = title;
  r.files = recordFiles(path, filesUnder(out.files, dir), out.files);
  return r;
}

function mdTitle(text: string): string | undefined {
  const fm = frontmatter(text);
  return firstHeading(fm.ok ? fm.value.body : text);
}
