// A new project's files and its config rewrites, from BMAD's installer (installer.ts) and the bundle.
import type { BundleReader } from "../surface/reader.js";
import { type InstallerAnswers, installerFiles, installerQuestions, installerScripts } from "./installer.js";
import type { Result } from "../result.js";

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

/** The installer's files that depend on the answers, as the new answers make them. Both runs share the
 *  project's creation time, so only what the answers change differs (config files, the files manifest). */
export async function configFiles(reader: BundleReader, projectName: string, createdAt: string, before: InstallerAnswers, after: InstallerAnswers): Promise<FilesResult> {
  const now = new Date(createdAt);
  const [old, next] = await Promise.all([installerFiles(reader, { projectName, answers: before, now }), installerFiles(reader, { projectName, answers: after, now })]);
  if (!next.ok) return next;
  if (!old.ok) return { ok: true, files: next.files };
  return { ok: true, files: new Map([...next.files].filter(([path, text]) => old.files.get(path) !== text)) };
}
