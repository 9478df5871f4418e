// The render context for a delivery stage's skill text. A session has no project today: {project-root}
// stands for the session, config values come from the bundle's defaults, outputs are the session's
// artifacts, and customization is the skill's own customize.toml. When a session is tied to a project
// workspace, `stageRender` becomes `skillRenderFor(reader, runtime, record)` (skill-render.ts).
import { parse } from "smol-toml";
import type { CatalogRecord } from "../catalog/bundle.js";
import { sanitizeConfig } from "../catalog/config.js";
import type { PyDict, PyValue } from "../runtime/py-json.js";
import { servedText, type BundleReader } from "./reader.js";
import type { SkillRender } from "./skill-render.js";

/** What of a session the context needs. */
export interface StageSession {
  session_id: string;
  task_name: string;
  created_at: string;
}

export function sessionRoot(sessionId: string): string {
  return `bmad://sessions/${sessionId}`;
}

/** Where a session keeps what skills would write under {planning_artifacts} and friends. */
export function sessionArtifactsRoot(sessionId: string): string {
  return `${sessionRoot(sessionId)}/artifacts`;
}

/** The folder URI of a record's skill: `bmad://bmm/bmad-prd`. */
export function skillFolderUri(record: CatalogRecord): string {
  return `bmad://${record.entry.slice(0, record.entry.lastIndexOf("/"))}`;
}

/** The one place a stage's render context is built. */
export function stageRender(reader: BundleReader, record: CatalogRecord, session: StageSession): Promise<SkillRender> {
  return sessionSkillRender(reader, record, session);
}

async function sessionSkillRender(reader: BundleReader, record: CatalogRecord, session: StageSession): Promise<SkillRender> {
  const projectRoot = sessionRoot(session.session_id);
  const notes: string[] = [];
  const config = sanitizeConfig(reader.catalog.manifest.config) as Record<string, Record<string, unknown>>;
  return {
    projectRoot,
    skillRoot: skillFolderUri(record),
    config: flatConfig(config, record.module, projectRoot, session),
    central: centralConfig(config),
    customization: await customization(reader, record, notes),
    notes,
  };
}

/** The shape of _bmad/config.toml: [core] and [modules.<name>]. */
function centralConfig(config: Record<string, Record<string, unknown>>): PyDict {
  const modules: PyDict = new Map();
  for (const [name, table] of Object.entries(config)) if (name !== "core") modules.set(name, toPy(table));
  return new Map<string, PyValue>([
    ["core", toPy(config.core ?? {})],
    ["modules", modules],
  ]);
}

/** The record's module values, then core's; session bindings for the project's name, date and outputs. */
function flatConfig(config: Record<string, Record<string, unknown>>, module: string, root: string, session: StageSession): Map<string, string> {
  const out = new Map<string, string>();
  for (const table of [config[module], config.core]) {
    for (const [k, v] of Object.entries(table ?? {})) if (!out.has(k) && isScalar(v)) out.set(k, String(v));
  }
  const artifacts = sessionArtifactsRoot(session.session_id);
  for (const key of ["output_folder", "planning_artifacts", "implementation_artifacts", "doc_workspace"]) out.set(key, artifacts);
  out.set("project_name", session.task_name);
  out.set("date", session.created_at.slice(0, 10));
  for (const [k, v] of out) out.set(k, v.replace(/\{([a-z_-]+)\}/g, (m, name: string) => (name === "project-root" ? root : name !== k && out.has(name) ? out.get(name)! : m)));
  return out;
}

async function customization(reader: BundleReader, record: CatalogRecord, notes: string[]): Promise<PyDict> {
  const path = `${record.entry.slice(0, record.entry.lastIndexOf("/"))}/customize.toml`;
  const file = reader.catalog.file(path);
  if (!file) return new Map();
  try {
    return toPy(parse(await servedText(reader, file), { integersAsBigInt: true })) as PyDict;
  } catch (error) {
    notes.push(`${path} does not parse (${(error as Error).message.split("\n")[0]}); its defaults are not applied.`);
    return new Map();
  }
}

/** As tomllib returns TOML (config-utils.ts): tables as Maps. */
function toPy(value: unknown): PyValue {
  if (Array.isArray(value)) return value.map(toPy);
  if (value instanceof Date || value === null || typeof value !== "object") return value as PyValue;
  return new Map(Object.entries(value).map(([k, v]) => [k, toPy(v)]));
}

function isScalar(v: unknown): v is string | number | boolean | bigint {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean" || typeof v === "bigint";
}
