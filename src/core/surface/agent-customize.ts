// A classic agent's customize.yaml (`_cfg/agents/<module>-<name>.customize.yaml`, `_config/...` since 6.0), applied as
// seed 000 says: the highest-priority root whose file customizes the agent wins (the project's own, else the user's
// ~/.bmad, ...); a file with nothing filled in (the installer's template) counts as none. It is merged as BMAD's
// classic installer merged it when compiling the agent: persona and metadata fields that are set replace the agent's,
// critical actions, memories, menu items and prompts come after its own. What the compiled agent already holds (it
// was installed with it) is not said again.
import { parseBoundedYaml } from "../yaml.js";
import * as z from "zod";
import type { CatalogRecord } from "../catalog/bundle.js";
import { bmadUri } from "../catalog/paths.js";
import { servedText, type BundleReader } from "./reader.js";

const list = z.array(z.unknown()).nullish();
const Customize = z.looseObject({
  agent: z.looseObject({ metadata: z.record(z.string(), z.unknown()).nullish() }).nullish(),
  persona: z.record(z.string(), z.unknown()).nullish(),
  critical_actions: list,
  memories: list,
  menu: list,
  commands: list, // the installer's legacy name for menu
  prompts: list,
});

export function customizePaths(record: CatalogRecord): string[] {
  return ["_cfg", "_config"].map((cfg) => `${cfg}/agents/${record.module}-${record.name}.customize.yaml`);
}

/** The section to add after the agent's own file ("" when no root customizes it). `entry`: the agent file's text. */
export async function customizationSection(reader: BundleReader, record: CatalogRecord, entry: string): Promise<string> {
  if (record.kind !== "agent" || record.skill) return "";
  const { catalog } = reader;
  const paths = new Set(customizePaths(record));
  const files = catalog.manifest.files.filter((f) => paths.has(f.path)).sort((a, b) => catalog.priority(a.source) - catalog.priority(b.source));
  for (const file of files) {
    const origin = catalog.manifest.sources[file.source];
    const where = `${bmadUri(file.path)}${origin ? ` from ${origin.origin} (${origin.name})` : ""}`;
    let data: unknown;
    try {
      data = parseBoundedYaml(await servedText(reader, file));
    } catch (error) {
      return `## Customization not applied: ${where}\nIts YAML does not parse (${(error as Error).message.split("\n")[0]}); fix it to apply it.`;
    }
    const parsed = Customize.safeParse(data ?? {});
    if (!parsed.success) return `## Customization not applied: ${where}\nIt is not shaped as BMAD's agent customization (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}).`;
    const overlay = effective(parsed.data, entry);
    if (overlay.length) {
      return [
        `## Customization: ${where}`,
        "Merged into the agent above as BMAD's installer merges it: these persona and name fields replace the agent's own; critical actions, memories, menu items and prompts come after its own.",
        ...overlay,
      ].join("\n");
    }
  }
  return "";
}

/** The set values, as lines, that the compiled agent does not hold already. */
function effective(c: z.infer<typeof Customize>, entry: string): string[] {
  const has = (text: string) => entry.includes(text) || entry.includes(escapeXml(text));
  const lines: string[] = [];
  const name = c.agent?.metadata?.name;
  if (isSet(name) && !has(`name="${String(name)}"`)) lines.push(`- Name: ${String(name)}`);
  for (const [key, value] of Object.entries(c.persona ?? {})) {
    if (isSet(value) && !has(asText(value))) lines.push(`- Persona ${key}: ${asText(value)}`);
  }
  const added = (label: string, items: unknown[] | null | undefined, text: (item: unknown) => string) => {
    for (const item of items ?? []) if (isSet(item) && !has(text(item))) lines.push(`- ${label}: ${asText(item)}`);
  };
  added("Critical action", c.critical_actions, asText);
  added("Memory", c.memories, asText);
  added("Menu item", c.menu ?? c.commands, (item) => field(item, "description") ?? asText(item));
  added("Prompt", c.prompts, (item) => (field(item, "id") ? `id="${field(item, "id")}"` : asText(item)));
  return lines;
}

function field(item: unknown, key: string): string | undefined {
  const value = item && typeof item === "object" ? (item as Record<string, unknown>)[key] : undefined;
  return typeof value === "string" ? value : undefined;
}

/** As the installer's filter: empty strings, null and empty lists are not set. */
function isSet(value: unknown): boolean {
  return value !== "" && value !== null && value !== undefined && !(Array.isArray(value) && !value.length);
}

function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.join(" ");
  return JSON.stringify(value);
}

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");
}
