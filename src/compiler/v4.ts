// BMAD v4: bmad-core/ (package) or .bmad-core/ (installed), expansion packs as extra modules.
import { addDir, type ReadContext, type TreeContent, type TreeModule, type TreeRecord } from "./types";
import { firstHeading } from "../core/markdown";
import { asObject, str, yaml, yamlBlock } from "./parse";

/** `core` is the tree-relative core dir (`bmad-core`, `.bmad-core`, or "" when the root is the core). */
export function readV4(ctx: ReadContext, core: string): TreeContent {
  const out: TreeContent = { layout: "v4", files: new Map(), records: [], modules: [], config: Object.create(null) };
  const { tree } = ctx;
  const at = (dir: string, p: string) => (dir ? `${dir}/${p}` : p);
  const packs: Array<{ dir: string; module: string }> = [{ dir: core, module: "bmad-core" }];
  if (core === "bmad-core") {
    for (const p of tree.list("expansion-packs")) {
      if (tree.isDir(`expansion-packs/${p}`)) packs.push({ dir: `expansion-packs/${p}`, module: p });
    }
  } else if (core === ".bmad-core") {
    for (const d of tree.list("")) {
      if (d !== ".bmad-core" && d.startsWith(".") && tree.exists(`${d}/config.yaml`) && tree.isDir(`${d}/agents`)) {
        packs.push({ dir: d, module: d.slice(1) });
      }
    }
  }
  const manifest = tree.exists(at(core, "install-manifest.yaml")) ? yaml(tree.text(at(core, "install-manifest.yaml")) ?? "") : null;
  if (manifest?.ok) {
    const v = str(asObject(manifest.value).version);
    if (v) out.version = v;
  }
  const coreConfig = yaml(tree.text(at(core, "core-config.yaml")) ?? "");
  if (coreConfig.ok) out.config["bmad-core"] = asObject(coreConfig.value);
  else ctx.warn(`Skipped config ${tree.label(at(core, "core-config.yaml"))}: bad YAML: ${coreConfig.error}`);

  for (const { dir, module } of packs) {
    addDir(ctx, out.files, dir, module);
    const mod: TreeModule = { name: module };
    if (module === "bmad-core") {
      if (out.version) mod.version = out.version;
    } else if (tree.exists(at(dir, "config.yaml"))) {
      const y = yaml(tree.text(at(dir, "config.yaml")) ?? "");
      if (!y.ok) ctx.warn(`Ignored ${tree.label(at(dir, "config.yaml"))}: bad YAML: ${y.error}`);
      const c = y.ok ? asObject(y.value) : {};
      const fields = { title: str(c.title) ?? str(c.name), description: str(c.description), version: str(c.version) };
      for (const [k, v] of Object.entries(fields)) if (v) (mod as Record<string, string>)[k] = v;
    }
    out.modules.push(mod);
    for (const file of tree.list(at(dir, "agents")).filter((f) => f.endsWith(".md"))) {
      const r = v4Agent(ctx, at(dir, `agents/${file}`), module, `${module}/agents/${file}`);
      if (r) out.records.push(r);
    }
    for (const file of tree.list(at(dir, "tasks")).filter((f) => f.endsWith(".md"))) {
      const entry = `${module}/tasks/${file}`;
      if (!out.files.has(entry)) continue;
      const r: TreeRecord = { kind: "task", module, name: file.slice(0, -3), entry, files: [entry] };
      const title = firstHeading(tree.text(at(dir, `tasks/${file}`)) ?? "");
      if (title) r.title = title;
      out.records.push(r);
    }
    for (const file of tree.list(at(dir, "workflows")).filter((f) => /\.ya?ml$/.test(f))) {
      const rel = at(dir, `workflows/${file}`);
      const entry = `${module}/workflows/${file}`;
      const y = yaml(tree.text(rel) ?? "");
      if (!y.ok) {
        ctx.warn(`Skipped workflow ${entry}: bad YAML in ${tree.label(rel)}: ${y.error}`);
        continue;
      }
      const wf = asObject(asObject(y.value).workflow);
      const r: TreeRecord = { kind: "workflow", module, name: str(wf.id) ?? file.replace(/\.ya?ml$/, ""), entry, files: [entry] };
      const title = str(wf.name);
      const description = str(wf.description);
      if (title) r.title = title;
      if (description) r.description = description;
      out.records.push(r);
    }
  }
  return out;
}

function v4Agent(ctx: ReadContext, rel: string, module: string, entry: string): TreeRecord | null {
  const text = ctx.tree.text(rel);
  if (text === null) return null;
  const name = entry.slice(entry.lastIndexOf("/") + 1, -3);
  const r: TreeRecord = { kind: "agent", module, name, entry, files: [entry] };
  const block = yamlBlock(text);
  if (block && !block.ok) {
    ctx.warn(`Skipped agent ${entry}: bad YAML block in ${ctx.tree.label(rel)}: ${block.error}`);
    return null;
  }
  const agent = asObject(block?.ok ? block.value.agent : undefined);
  r.name = str(agent.id) ?? name;
  const fields = { displayName: str(agent.name), title: str(agent.title), icon: str(agent.icon), description: str(agent.whenToUse) };
  for (const [k, v] of Object.entries(fields)) if (v) (r as unknown as Record<string, string>)[k] = v;
  return r;
}
