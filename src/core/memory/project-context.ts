// get_project_context (seed 001): `_bmad/_memory/shared-context.md` and `project-context.yaml`, read as
// structured JSON. The same on both front doors: the bridge reads the project folder, the Worker a workspace.
import { YAMLParseError } from "yaml";
import { parseBoundedYaml } from "../yaml.js";
import type { ContextSection } from "../surface/deps.js";
import { TOOL } from "../surface/names.js";
import type { WorkspaceFiles } from "../workspace/store.js";
import { cutAt, lines } from "../lines.js";
import { count } from "../count.js";
import { othersNamed } from "../workspace/line-authors.js";
import { MEMORY_DIR, PROJECT_CONTEXT_FILE, SHARED_CONTEXT_FILE } from "./files.js";
import type { MemResult } from "./model.js";
import type { Result } from "../result.js";

/** A memory file's text; `missing` when it is not there (anything else is a warning naming the problem). */
export type ContextRead = Result<{ text: string; by?: string }, { missing: boolean }>;

/** A workspace's files as the context reads them (the caller checked the workspace is there); `by`: the other members
 *  who wrote lines of it, and which. */
export function workspaceReader(files: WorkspaceFiles): (rel: string) => Promise<ContextRead> {
  return async (rel) => {
    const read = await files.read(rel);
    const by = read.ok && read.value.others?.length ? othersNamed(read.value.others) : undefined;
    if (read.ok) return { ok: true, text: new TextDecoder().decode(read.value.data), ...(by ? { by } : {}) };
    return { ok: false, missing: read.kind === "not_found", error: read.error };
  };
}

/** `remembers`: the caller has remember_structured (the memory toolset is served), so the empty note may name it. */
export async function projectContext(read: (rel: string) => Promise<ContextRead>, section: ContextSection, remembers = false): Promise<MemResult<Record<string, unknown>>> {
  const warnings: string[] = [];
  const byOthers: Record<string, string> = {};
  const text = async (rel: string) => {
    const file = await read(rel);
    if (file.ok && file.by) byOthers[rel] = file.by;
    if (file.ok) return file.text;
    if (!file.missing) warnings.push(`skipped ${file.error}`);
    return undefined;
  };
  const shared = await text(SHARED_CONTEXT_FILE);
  const yamlText = await text(PROJECT_CONTEXT_FILE);
  // Neither file could be read: an error naming why. Neither is there: a new project, which is no error.
  if (shared === undefined && yamlText === undefined && warnings.length) return { ok: false, error: `No project context could be read (${warnings.join("; ")}).` };
  let data = new Map<string, unknown>();
  if (yamlText !== undefined) {
    const parsed = yamlObject(yamlText);
    if (!parsed.ok) warnings.push(`skipped ${PROJECT_CONTEXT_FILE}: ${parsed.error}`);
    else data = parsed.value;
  }
  const sections = markdownSections(shared ?? "");
  // Each field from project-context.yaml's keys, else from shared-context.md's section: which file it came from (where
  // to read it whole), and which sections were given as fields (the rest of the file is given as shared_context).
  const fileOf = new Map<string, string>();
  const taken = new Set<string>();
  const pick = (field: string, keys = [field], heading = field) => {
    const given = keys.map((key) => data.get(key)).find((v) => v !== undefined && v !== null);
    if (given !== undefined) {
      fileOf.set(field, PROJECT_CONTEXT_FILE);
      return given;
    }
    const text = sections.get(heading);
    if (text !== undefined) {
      fileOf.set(field, SHARED_CONTEXT_FILE);
      taken.add(heading);
    }
    return text;
  };
  const all = { name: pick("name", ["name", "project"], "project"), stack: pick("stack"), agents: pick("agents"), decisions: pick("decisions"), architecture: pick("architecture") };
  fileOf.set("shared_context", SHARED_CONTEXT_FILE);
  const value: Record<string, unknown> = section === "all" ? { ...all, shared_context: shared === undefined ? null : sharedRest(shared, taken) } : { [section]: all[section] ?? null };
  const cut = cutFields(value, fileOf);
  if (cut) value.cut = cut;
  if (warnings.length) value.warnings = warnings;
  // A shared workspace's context files another member last changed are theirs (review 43: a writer's shared-context.md
  // read as the project's own decisions).
  if (Object.keys(byOthers).length) value.last_changed_by_others = byOthers;
  if (shared === undefined && yamlText === undefined) value.empty = emptyNote(remembers);
  return { ok: true, value };
}

/** What fills an empty context. BMAD 6.12 keeps its own elsewhere: said, so a model does not write a file BMAD never
 *  reads. remember_structured is named only where the caller has it (review 273: it is not in the default toolsets). */
export function emptyNote(remembers: boolean): string {
  const remembered = remembers ? `, and decisions kept with ${TOOL.rememberStructured}` : "";
  return `No context files yet: ${MEMORY_DIR}/project-context.yaml (name:, stack:, agents:) or shared-context.md (## Stack, ## Decisions, ## Architecture) fill it${remembered}. BMAD's own project context is the block the bmad-project-context skill writes into AGENTS.md at the project root.`;
}

/** The empty note where the project has BMAD documents, which get_project_context names in `work`: no file that is not
 *  there is pointed at (review 299). */
export const PLANNED_NOTE = `No context files in ${MEMORY_DIR}: the project's BMAD documents (work) say where it stands.`;

/** A YAML mapping (a Map: its keys are file content), or the error with its line. */
function yamlObject(text: string): MemResult<Map<string, unknown>> {
  try {
    // Bounded: a collaborator's file of 50,000 keys took 52 s to parse, and stalled the Worker meanwhile (review 14).
    const value: unknown = parseBoundedYaml(text);
    if (value === null || value === undefined) return { ok: true, value: new Map() };
    if (typeof value !== "object" || Array.isArray(value)) return { ok: false, error: "line 1: not a mapping of keys (name:, stack:, ...)" };
    return { ok: true, value: new Map(Object.entries(value)) };
  } catch (error) {
    const line = error instanceof YAMLParseError ? error.linePos?.[0]?.line : undefined;
    const message = String((error as Error).message).split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    return { ok: false, error: `${line ? `line ${line}: ` : ""}${message}` };
  }
}

/** Longest a field of the context is served (in characters; where it is no string, its JSON's): past it, cut (review
 *  186: a collaborator's 1 MB of decisions made every call 2 MB, text and structured content alike). */
const MAX_FIELD = 8 * 1024;

/** The fields of `value` past MAX_FIELD, cut in place (one given as YAML, a list or a mapping, as its JSON's text), and
 *  for each, where to read it whole; undefined where none is. */
function cutFields(value: Record<string, unknown>, fileOf: Map<string, string>): Record<string, string> | undefined {
  const cut: Record<string, string> = {};
  for (const [field, v] of Object.entries(value)) {
    const text = v === null || v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v);
    if (text.length <= MAX_FIELD) continue;
    value[field] = `${cutAt(text, MAX_FIELD)}…`;
    cut[field] = `${count(text.length)} characters, cut at ${count(MAX_FIELD)}: read ${fileOf.get(field)} with ${TOOL.bmadFiles} for the whole`;
  }
  return Object.keys(cut).length ? cut : undefined;
}

/** shared-context.md without the sections given as fields (`taken`): each one's heading stays, naming its field, so
 *  that no text is sent twice. Line breaks stay as the file has them. */
function sharedRest(text: string, taken: Set<string>): string {
  if (!taken.size) return text;
  const parts = text.split(/(\r\n|[\n\r\u2028\u2029])/); // lines, each followed by its break
  let out = "";
  let skipping = false;
  for (let i = 0; i < parts.length; i += 2) {
    const [line, end] = [parts[i]!, parts[i + 1] ?? ""];
    const heading = /^##\s+(.+)$/.exec(line);
    if (heading) {
      const key = sectionKey(heading[1]!);
      skipping = taken.has(key);
      out += skipping ? `${line}${end || "\n"}(given as ${key === "project" ? "name" : key})${end}` : line + end;
    } else if (!skipping) out += line + end;
  }
  return out;
}

/** A level-2 heading's section: its first word, lower-cased, letters only (`## Decisions made` is decisions). */
const sectionKey = (heading: string) => heading.trim().toLowerCase().split(/\s+/)[0]!.replace(/[^a-z]/g, "");

/** `## Stack` ... -> stack: "..." (lower-cased first word of each level-2 heading; a Map, as headings are file content). */
function markdownSections(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let key: string | undefined;
  for (const line of lines(text)) {
    const heading = /^##\s+(.+)$/.exec(line);
    if (heading) key = sectionKey(heading[1]!);
    else if (key) out.set(key, `${out.get(key) ?? ""}${line}\n`);
  }
  for (const [k, v] of out) out.set(k, v.trim());
  return out;
}
