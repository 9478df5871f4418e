// Prompts: `bmad-{agent}` and `bmad-{workflow}`, `bmad-{module}-{name}` where names collide.
import type { CatalogRecord } from "../catalog/bundle.js";
import type { Catalog } from "../catalog/catalog.js";
import { shortName } from "../catalog/names.js";
import { recordLabel } from "./render.js";

export interface PromptEntry {
  name: string;
  record: CatalogRecord;
  listing: { name: string; title: string; description: string; arguments: Array<{ name: string; description: string; required: boolean }> };
}

const MESSAGE_ARG = [
  { name: "message", description: "Optional first message for the agent or workflow", required: false },
  { name: "project", description: "Optional workspace to render it for (bmad-project)", required: false },
];

export function promptEntries(catalog: Catalog): Map<string, PromptEntry> {
  const records = [...catalog.list("agent"), ...catalog.list("workflow")];
  const counts = new Map<string, number>();
  for (const r of records) counts.set(shortName(r), (counts.get(shortName(r)) ?? 0) + 1);
  const entries = new Map<string, PromptEntry>();
  for (const record of records) {
    const short = shortName(record);
    const name = counts.get(short) === 1 ? `bmad-${short}` : `bmad-${record.module}-${short}`;
    const description = `${record.kind === "agent" ? "Agent" : "Workflow"}: ${(record.description ?? record.title ?? "").slice(0, 200)}`;
    entries.set(name, { name, record, listing: { name, title: recordLabel(record), description, arguments: MESSAGE_ARG } });
  }
  return entries;
}
