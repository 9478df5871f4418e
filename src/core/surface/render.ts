// The file proxy (seed 002): raw files, never parsed or merged, with short loading instructions.
// The entry file and its same-folder companions are inlined; deeper files are listed as bmad:// links
// so the client loads them lazily.
import type { CatalogRecord } from "../catalog/bundle.js";
import type { Catalog } from "../catalog/catalog.js";
import { shortName } from "../catalog/names.js";
import { bmadUri } from "../catalog/paths.js";
import { done, fail, type ToolOutcome } from "./outcome.js";
import { servedText, type BundleReader } from "./reader.js";

const INLINE_BUDGET = 64 * 1024;

const LANGUAGE: Record<string, string> = { md: "markdown", yaml: "yaml", yml: "yaml", xml: "xml", csv: "csv", toml: "toml", json: "json" };

function fence(text: string, path: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const ticks = "`".repeat(longest + 1);
  const ext = path.slice(path.lastIndexOf(".") + 1);
  return `${ticks}${LANGUAGE[ext] ?? ""}\n${text}${text.endsWith("\n") ? "" : "\n"}${ticks}`;
}

function dirOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/") + 1);
}

export function recordLabel(r: CatalogRecord): string {
  const who = [r.displayName, r.title].filter(Boolean).join(", ");
  return `${r.module}/${shortName(r)}${who ? ` (${who})` : ""}`;
}

const HOW_TO: Record<CatalogRecord["kind"], string> = {
  agent: "Adopt this agent: read the files below and follow the entry file's activation steps; stay in persona until the user dismisses it.",
  workflow: "Run this workflow: follow the entry file's steps in order, asking the user where it says to.",
  task: "Run this task: follow the entry file's instructions exactly.",
  knowledge: "Reference knowledge: use it to ground your answers; it is not a set of instructions.",
};

/** Renders a record as its raw files plus loading instructions. */
export async function renderRecord(reader: BundleReader, record: CatalogRecord, extra?: { heading: string; body: string }): Promise<string> {
  const { catalog } = reader;
  const root = dirOf(record.entry);
  const lines = [
    `# BMAD ${record.kind}: ${recordLabel(record)}`,
    "",
    HOW_TO[record.kind],
    `Paths in these files are relative to bmad://${root} ({skill-root}, bare paths); {project-root} is the user's project. Load listed files on demand with resources/read or the bmad-resources tool (operation "read").`,
    `Origin: ${catalog.originLabel(record)}.`,
  ];
  let budget = INLINE_BUDGET;
  const later: string[] = [];
  for (const path of record.files) {
    const file = catalog.file(path);
    if (!file) continue;
    const companion = dirOf(path) === root || record.kind === "knowledge";
    if (path === record.entry || (companion && file.size <= budget)) {
      budget -= file.size;
      lines.push("", `## ${path}`, fence(await servedText(reader, file), path));
    } else later.push(`- ${bmadUri(path)} (${file.size} bytes)`);
  }
  if (later.length) lines.push("", "## More files (load on demand)", ...later);
  if (extra) lines.push("", `## ${extra.heading}`, extra.body);
  return lines.join("\n");
}

/** Resolves a name and renders the record, or the unknown-name error with the closest names. */
export async function loadRecord(reader: BundleReader, kind: CatalogRecord["kind"], name: string, extra?: { heading: string; body: string }): Promise<ToolOutcome> {
  const found = reader.catalog.resolve(kind, name);
  if (!found.ok) return fail(found.error);
  return done(await renderRecord(reader, found.record, extra));
}

/** Which origin won and which others were there (seed 000 transparency). */
export function originReport(catalog: Catalog, candidates: CatalogRecord[]): string {
  const [winner, ...others] = candidates;
  if (!winner) return "";
  const rest = others.map((r) => `${r.module}/${r.name} from ${catalog.originLabel(r)}`);
  return `Resolved ${winner.module}/${winner.name} from ${catalog.originLabel(winner)}.${rest.length ? ` Also available: ${rest.join("; ")}.` : ""}`;
}
