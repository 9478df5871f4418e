// A project's `_bmad/` as BMAD's installer (6.x `bmad-cli install --yes`) writes it, from the bundle alone:
// the questions it asks (from each module's module.yaml) and the files it writes for a set of answers.
// An answer is taken the way `--set <module>.<key>=<value>` takes it: written as given (no `result:` template),
// and a module with answers gets its config.yaml re-serialised as that patch leaves it. Core answers also feed
// the defaults of later modules, as `--user-name` and `--output-folder` do. Unanswered questions take the values
// a fresh `--yes` install writes. Skill directories and `_bmad/scripts/*` are copies the workspace takes from
// the bundle itself (installerScripts lists the scripts).
import type { BundleReader } from "../surface/reader.js";
import { centralConfig, moduleConfigYaml, SEEDED_FILES, setAnswer, setModuleYamlAnswers, TRACKED_SEEDS } from "./installer-config.js";
import { bmadHelpCsv, filesManifestCsv, manifestYaml, sha256Hex, skillManifestCsv, type TrackedFile } from "./installer-manifests.js";
import { choices, ConfigCollector, loadModuleSchemas, type ModuleSchema, promptText, questionKeys, scopes } from "./installer-modules.js";
import { moduleTree, sharedScripts } from "./installer-tree.js";
import type { Result } from "../result.js";

export interface InstallerQuestion {
  /** Module code, e.g. `core`, `bmm`. */
  module: string;
  /** Config key, e.g. `user_name`, `planning_artifacts`. */
  key: string;
  /** The installer's prompt text (multi-line prompts joined with "\n"). */
  prompt: string;
  /**
   * The value written when the question is not answered, as the installer computes it: `{directory_name}`
   * becomes the project name, references to other answers use their defaults, and non-core modules' `result:`
   * template applies (`{project-root}/_bmad-output/planning-artifacts`). Absent when the installer writes nothing.
   * Defaults that refer to other answers are shown for their defaults; installerFiles resolves them against the
   * actual answers. `core.user_name` shows module.yaml's "BMad" (the CLI's --yes takes the OS user's name).
   */
  default?: unknown;
  /** `user` answers go to `_bmad/config.user.toml`, `team` answers to `_bmad/config.toml`. */
  scope: "user" | "team";
  /** For single-select questions, the values an answer must be one of. */
  choices?: Array<{ value: string; label: string }>;
}

/** Answers keyed module -> key -> value (a string, written as given). */
export type InstallerAnswers = Record<string, Record<string, unknown>>;

export interface InstallerInput {
  /** The project's name: what the installer takes from the directory name (`{directory_name}`). */
  projectName: string;
  answers: InstallerAnswers;
  /** Install time for the `Date:`/`installDate` lines; defaults to now. */
  now?: Date;
  /** Tool/IDE ids for manifest.yaml's `ides` (the installer's `--tools`); none by default. */
  ides?: string[];
}

export type InstallerFilesResult = Result<{ files: Map<string, string> }>;

/**
 * The questions BMAD's installer asks, core first, each with the default it writes when unanswered. Empty for a
 * bundle without BMAD 6 modules; throws if a module.yaml in the bundle does not parse (a broken bundle).
 */
export async function installerQuestions(reader: BundleReader, options: { projectName?: string } = {}): Promise<InstallerQuestion[]> {
  const loaded = await loadModuleSchemas(reader);
  if (!loaded.ok && loaded.reason === "no-core") return [];
  if (!loaded.ok) throw new Error(loaded.error);
  const collector = new ConfigCollector(options.projectName);
  const questions: InstallerQuestion[] = [];
  for (const schema of loaded.modules) {
    const keys = questionKeys(schema);
    // Prompts are filled from the answers before this module, as the installer builds them.
    const prompts = keys.map((key) => collector.replacePlaceholders(promptText(schema.data[key] as Record<string, unknown>), schema));
    if (schema.name === "core") collector.seedCore(schema, {});
    else collector.collectModule(schema);
    const config = collector.collected.get(schema.name)!;
    const scopeOf = scopes(schema);
    for (const [i, key] of keys.entries()) {
      const item = schema.data[key] as Record<string, unknown>;
      const question: InstallerQuestion = { module: schema.name, key, prompt: prompts[i]!, scope: scopeOf.get(key) ?? "team" };
      if (Object.hasOwn(config, key)) question.default = config[key];
      const list = choices(item);
      if (list) question.choices = list;
      questions.push(question);
    }
  }
  return questions;
}

/** `_bmad/scripts/*` as the installer copies them: bundle path -> project path. */
export function installerScripts(reader: BundleReader): Array<{ bundlePath: string; path: string }> {
  return sharedScripts(reader).map((f) => ({ bundlePath: f.path, path: `_bmad/${f.path}` }));
}

type Validated = Result<{ answers: Map<string, Record<string, string>> }>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function validateAnswers(modules: ModuleSchema[], answers: unknown): Validated {
  if (!isRecord(answers)) return { ok: false, error: "answers must be an object keyed by module, then by question key." };
  const out = new Map<string, Record<string, string>>();
  const names = modules.map((m) => m.name);
  for (const [module, values] of Object.entries(answers)) {
    const schema = modules.find((m) => m.name === module);
    if (!schema) return { ok: false, error: `Unknown module "${module.slice(0, 100)}" in answers. Modules: ${names.join(", ")}.` };
    if (!isRecord(values)) return { ok: false, error: `answers.${module} must be an object keyed by question key.` };
    const keys = questionKeys(schema);
    const checked: Record<string, string> = {};
    for (const [key, value] of Object.entries(values)) {
      if (!keys.includes(key)) return { ok: false, error: `Unknown question "${module}.${key.slice(0, 100)}". ${module} asks: ${keys.join(", ")}.` };
      if (typeof value !== "string") return { ok: false, error: `Answer ${module}.${key} must be a string.` };
      const allowed = choices(schema.data[key] as Record<string, unknown>);
      if (allowed && !allowed.some((c) => c.value === value)) {
        return { ok: false, error: `Answer ${module}.${key} must be one of: ${allowed.map((c) => c.value).join(", ")}.` };
      }
      checked[key] = value;
    }
    out.set(module, checked);
  }
  return { ok: true, answers: out };
}

/**
 * The files BMAD's installer writes under `_bmad/` for these answers, paths relative to the project root:
 * config.toml, config.user.toml, `<module>/config.yaml`, `_config/{manifest.yaml,skill-manifest.csv,
 * files-manifest.csv,bmad-help.csv}`, `custom/{config.toml,config.user.toml,.gitignore}`, `render/.gitignore`,
 * and the module files that stay in `_bmad/<module>/` (module-help.csv, v6-shims/README.md). Not included:
 * the skills (the installer moves them to the IDE's folder) and `_bmad/scripts/*` (see installerScripts).
 * The manifests name skill files where the bundle keeps them (`_bmad/bmm/bmad-prd/SKILL.md`); the package
 * nests them in grouping folders (`bmm/plan/bmad-prd`) that the bundle does not keep.
 */
export async function installerFiles(reader: BundleReader, input: InstallerInput): Promise<InstallerFilesResult> {
  const loaded = await loadModuleSchemas(reader);
  if (!loaded.ok) return { ok: false, error: loaded.error };
  const { modules } = loaded;
  if (typeof input.projectName !== "string" || !input.projectName) return { ok: false, error: "projectName must be a non-empty string." };
  const validated = validateAnswers(modules, input.answers);
  if (!validated.ok) return validated;
  const { answers } = validated;
  const date = (input.now ?? new Date()).toISOString();
  const version = modules[0]!.version ?? null;

  const collector = new ConfigCollector(input.projectName);
  for (const schema of modules) {
    if (schema.name === "core") collector.seedCore(schema, answers.get("core") ?? {});
    else collector.collectModule(schema);
  }
  const configs = collector.collected;
  const core = configs.get("core") ?? {};
  const yamls = new Map(modules.map((m) => [m.name, moduleConfigYaml(m.name, configs.get(m.name) ?? {}, core, String(version), date)]));
  const firstToml = centralConfig(modules, configs);
  const trees = await Promise.all(modules.map((m) => moduleTree(reader, m.name)));
  const scripts = sharedScripts(reader);

  const files = new Map<string, string>();
  const manifest = manifestYaml({
    version,
    date,
    modules: modules.map((m) => ({ name: m.name, version: m.version ?? null })),
    ides: input.ides ?? [],
    shimsAvailable: trees.some((t) => t.shims.length > 0),
  });
  files.set("_bmad/_config/manifest.yaml", manifest);
  files.set("_bmad/_config/skill-manifest.csv", skillManifestCsv(trees.flatMap((t) => t.skills)));

  // files-manifest.csv hashes what the installer had written when it ran: before the --set patch below.
  const tracked: TrackedFile[] = scripts.map((f) => ({ path: f.path, sha256: f.sha256 }));
  for (const path of TRACKED_SEEDS) tracked.push({ path: path.slice("_bmad/".length), sha256: await sha256Hex(SEEDED_FILES.get(path)!) });
  modules.forEach((m, i) => trees[i]!.copied.forEach(([rel, file]) => tracked.push({ path: `${m.name}/${rel}`, sha256: file.sha256 })));
  for (const name of [...yamls.keys()].sort()) tracked.push({ path: `${name}/config.yaml`, sha256: await sha256Hex(yamls.get(name)!) });
  tracked.push({ path: "_config/manifest.yaml", sha256: await sha256Hex(manifest) });
  tracked.push({ path: "config.toml", sha256: await sha256Hex(firstToml.team) });
  tracked.push({ path: "config.user.toml", sha256: await sha256Hex(firstToml.user) });
  files.set("_bmad/_config/files-manifest.csv", filesManifestCsv(tracked));

  let toml = firstToml;
  for (const [module, values] of answers) {
    if (!Object.keys(values).length) continue;
    for (const [key, value] of Object.entries(values)) toml = setAnswer(toml, module, key, value);
    yamls.set(module, setModuleYamlAnswers(yamls.get(module)!, values));
  }
  files.set("_bmad/config.toml", toml.team);
  files.set("_bmad/config.user.toml", toml.user);
  for (const [name, text] of yamls) files.set(`_bmad/${name}/config.yaml`, text);
  for (const [path, text] of SEEDED_FILES) files.set(path, text);

  const helps: Array<[string, string]> = [];
  for (const [i, m] of modules.entries()) {
    for (const [rel, file] of trees[i]!.kept) files.set(`_bmad/${m.name}/${rel}`, await reader.readText(file));
    const help = files.get(`_bmad/${m.name}/module-help.csv`);
    if (help !== undefined) helps.push([m.name, help]);
  }
  files.set("_bmad/_config/bmad-help.csv", bmadHelpCsv(helps));
  return { ok: true, files: new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) };
}
