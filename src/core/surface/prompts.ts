// Prompts: `bmad-{agent}` and `bmad-{workflow}`; where names collide the highest-priority record keeps the
// short name and the others are `bmad-{module}-{name}` (seed 000's rule, the one the bmad tool follows).
import type { CatalogRecord } from "../catalog/bundle.js";
import type { Catalog } from "../catalog/catalog.js";
import { shortName, shortNameHolders } from "../catalog/names.js";
import { recordLabel } from "./render.js";

export interface PromptEntry {
  name: string;
  record: CatalogRecord;
  listing: { name: string; title: string; description: string; arguments: Array<{ name: string; description: string; required: boolean }> };
}

/** A few words each: every prompt lists them, and the server instructions say them in full once (review 254). */
const MESSAGE_ARG = [
  { name: "message", description: "First message", required: false },
  { name: "project", description: "Project to render for", required: false },
];

const namesByCatalog = new WeakMap<Catalog, Map<CatalogRecord, string>>();

/** The name clients see for each agent and workflow: prompts and agent tools share it. */
export function recordNames(catalog: Catalog): Map<CatalogRecord, string> {
  let names = namesByCatalog.get(catalog);
  if (names) return names;
  const records = [...catalog.list("agent"), ...catalog.list("workflow")];
  const holders = shortNameHolders(records, shortName, (r) => catalog.priority(r.source));
  names = new Map();
  const taken = new Set<string>();
  // Holders first, so a qualified name never takes a short one.
  for (const record of [...records].sort((a, b) => Number(holders.has(b)) - Number(holders.has(a)))) {
    const name = holders.has(record) ? `bmad-${shortName(record)}` : `bmad-${record.module}-${shortName(record)}`;
    if (taken.has(name)) continue;
    taken.add(name);
    names.set(record, name);
  }
  namesByCatalog.set(catalog, names);
  return names;
}

export function promptEntries(catalog: Catalog): Map<string, PromptEntry> {
  const names = recordNames(catalog);
  const entries = new Map<string, PromptEntry>();
  for (const record of [...catalog.list("agent"), ...catalog.list("workflow")]) {
    const name = names.get(record);
    if (!name) continue;
    const description = `${record.kind === "agent" ? "Agent" : "Workflow"}: ${wordCut(record.description ?? record.title ?? "", 200)}`;
    entries.set(name, { name, record, listing: { name, title: recordLabel(record), description, arguments: MESSAGE_ARG } });
  }
  return entries;
}

/** `text` cut to at most `max` characters at a word's end, marked: a listing's description is not cut mid-word (review 147). */
function wordCut(text: string, max: number): string {
  if (text.length <= max) return text;
  const at = text.lastIndexOf(" ", max - 1);
  return `${text.slice(0, at > max / 2 ? at : max - 1).trimEnd()}…`;
}
