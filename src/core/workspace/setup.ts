// A new project's files and its config rewrites, from BMAD's installer (installer.ts) and the bundle.
import type { BundleReader } from "../surface/reader.js";
import { type InstallerAnswers, installerFiles, installerQuestions, installerScripts } from "./installer.js";
import type { Result } from "../result.js";
import { INSTALL_RECORD } from "./paths.js";

export type FilesResult = Result<{ files: Map<string, string> }>;

/** What `bmad-cli install --yes` with these answers writes under `_bmad/`, plus `_bmad/scripts/*` from the bundle. */
export async function initialFiles(reader: BundleReader, projectName: string, answers: InstallerAnswers, now?: Date): Promise<FilesResult> {
  let asked: number;
  try {
    asked = (await installerQuestions(reader, { projectName })).length;
  } catch (error) {
    return { ok: false, error: `The installer cannot run on this bundle: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!asked) {
    // A bundle without BMAD 6 modules: nothing to install, an empty project.
    return Object.keys(answers).length ? { ok: false, error: "This server's BMAD content asks no installer questions: create the project without answers." } : { ok: true, files: new Map() };
  }
  const out = await installerFiles(reader, { projectName, answers, ...(now ? { now } : {}) });
  if (!out.ok) return out;
  for (const script of installerScripts(reader)) {
    const file = reader.catalog.file(script.bundlePath);
    if (file) out.files.set(script.path, await reader.readText(file));
  }
  return out;
}

/** New answers over the stored ones: module by module, key by key. Null-prototype objects: "__proto__" is only data. */
export function mergeAnswers(before: InstallerAnswers, given: InstallerAnswers): InstallerAnswers {
  const out: InstallerAnswers = Object.create(null);
  for (const source of [before, given]) {
    for (const [module, values] of Object.entries(source)) out[module] = Object.assign(Object.create(null), out[module], values);
  }
  return out;
}

/** A config file the new answers change: `text`, as they make it; `before`, as the old answers made it, so that edits
 *  made to it by hand since are kept (config-merge.ts). No `before` (they made none, or the file is the install record,
 *  the hashes of what the installer wrote, nobody's text): written whole. */
export interface ConfigFile {
  text: string;
  before?: string;
}

/** The installer's files that depend on the answers, as the new answers make them and the old ones made them. Both
 *  runs share the project's creation time, so only what the answers change differs (config files, the files manifest). */
export async function configFiles(reader: BundleReader, projectName: string, createdAt: string, before: InstallerAnswers, after: InstallerAnswers): Promise<Result<{ files: Map<string, ConfigFile> }>> {
  const now = new Date(createdAt);
  const [old, next] = await Promise.all([installerFiles(reader, { projectName, answers: before, now }), installerFiles(reader, { projectName, answers: after, now })]);
  if (!next.ok) return next;
  const made = old.ok ? old.files : new Map<string, string>();
  const files = new Map<string, ConfigFile>();
  for (const [path, text] of next.files) {
    const was = made.get(path);
    if (was !== text) files.set(path, was === undefined || path === INSTALL_RECORD ? { text } : { text, before: was });
  }
  return { ok: true, files };
}
