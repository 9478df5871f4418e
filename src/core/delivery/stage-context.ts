// The render context for a delivery stage's skill text. {project-root} stands for the session, config values
// come from the bundle's defaults, outputs are the session's artifacts, and customization is the skill's own
// customize.toml, with or without a project: a session saves what is submitted. A session's project is named, with
// its files from earlier phases, under "This session" (role-prompt.ts); rendering the skill for the project itself
// would make `stageRender` `skillRenderFor(reader, runtime, record)` (skill-render.ts).
import type { CatalogRecord } from "../catalog/bundle.js";
import { sanitizeConfig } from "../catalog/config.js";
import { loadCustomization, toPy } from "../runtime/config-utils.js";
import { BUNDLE_MOUNT, bundleFs } from "../runtime/project.js";
import type { PyDict, PyValue } from "../runtime/py-json.js";
import type { BundleReader } from "../surface/reader.js";
import { expandConfigRefs, isScalar, type SkillRender } from "../surface/skill-render.js";

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
  return expandConfigRefs(out, root);
}

/** The skill's own customize.toml, read the way resolve_customization reads it (no project overrides). */
async function customization(reader: BundleReader, record: CatalogRecord, notes: string[]): Promise<PyDict> {
  const dir = record.entry.slice(0, record.entry.lastIndexOf("/"));
  if (!reader.catalog.file(`${dir}/customize.toml`)) return new Map();
  try {
    return await loadCustomization(bundleFs(() => reader), undefined, `${BUNDLE_MOUNT}/${dir}`);
  } catch (error) {
    notes.push(`${dir}/customize.toml does not parse (${(error as Error).message.split("\n")[0]}); its defaults are not applied.`);
    return new Map();
  }
}
