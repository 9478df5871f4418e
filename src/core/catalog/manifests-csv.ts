// bmad://manifests/{agents,workflows,tasks,skills}: CSV in the classic v6 column order, for every layout.
import type { CatalogRecord } from "./bundle.js";
import type { Catalog } from "./catalog.js";

export const MANIFEST_NAMES = ["agents", "workflows", "tasks", "skills"] as const;
export type ManifestName = (typeof MANIFEST_NAMES)[number];

const COLUMNS: Record<ManifestName, string[]> = {
  agents: ["name", "displayName", "title", "icon", "capabilities", "role", "identity", "communicationStyle", "principles", "module", "path"],
  workflows: ["name", "description", "module", "path"],
  tasks: ["name", "displayName", "description", "module", "path", "standalone"],
  skills: ["canonicalId", "name", "description", "module", "path"],
};

function cell(value: string | undefined): string {
  return `"${(value ?? "").replace(/"/g, '""')}"`;
}

function row(name: ManifestName, r: CatalogRecord): string[] {
  switch (name) {
    case "agents":
      return [r.name, r.displayName ?? "", r.title ?? "", r.icon ?? "", "", "", "", "", "", r.module, r.entry];
    case "workflows":
      return [r.name, r.description ?? "", r.module, r.entry];
    case "tasks":
      return [r.name, r.displayName ?? r.title ?? "", r.description ?? "", r.module, r.entry, "true"];
    case "skills":
      return [r.name, r.name, r.description ?? "", r.module, r.entry];
  }
}

export function manifestCsv(catalog: Catalog, name: ManifestName): string {
  const records =
    name === "skills"
      ? [...catalog.list("agent"), ...catalog.list("workflow"), ...catalog.list("task")].filter((r) => r.skill)
      : catalog.list(name === "agents" ? "agent" : name === "workflows" ? "workflow" : "task");
  const lines = [COLUMNS[name].join(","), ...records.map((r) => row(name, r).map(cell).join(","))];
  return lines.join("\n") + "\n";
}
