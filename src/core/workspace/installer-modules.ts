// The installer's questions and how BMAD's installer (6.x, `bmad-cli install --yes`) turns module.yaml
// and answers into module configs. The rules are the installer's, re-expressed: core answers are taken as
// given (the --yes path seeds them, no `result:` template); every other module's unanswered questions take
// their default, resolved against the answers so far and passed through the `result:` template.
import { parseBoundedYaml } from "../yaml.js";
import type { BundleFile } from "../catalog/bundle.js";
import type { BundleReader } from "../surface/reader.js";
import type { Result } from "../result.js";

/** One module of the bundle that has a module.yaml (6.x skills layout). */
export interface ModuleSchema {
  /** The module's directory in the bundle and under `_bmad/` (the installer's module name). */
  name: string;
  /** module.yaml's top-level entries in file order (`__proto__` dropped). */
  data: Record<string, unknown>;
  file: BundleFile;
  /** Version of the bundle source the module.yaml came from. */
  version?: string;
}

export type ModuleConfig = Record<string, unknown>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Modules with a `<module>/module.yaml` from a 6.x skills source: core first, then by name. */
export async function loadModuleSchemas(
  reader: BundleReader,
): Promise<Result<{ modules: ModuleSchema[] }, { reason: "no-core" | "bad-yaml" }>> {
  const { catalog } = reader;
  const files = catalog.paths
    .filter((p) => /^[^/]+\/module\.yaml$/.test(p))
    .map((p) => catalog.file(p)!)
    .filter((f) => catalog.manifest.sources[f.source]?.layout.startsWith("v6-skills"));
  const modules: ModuleSchema[] = [];
  for (const file of files) {
    let parsed: unknown;
    try {
      parsed = parseBoundedYaml(await reader.readText(file));
    } catch (error) {
      return { ok: false, reason: "bad-yaml", error: `${file.path} is not valid YAML: ${(error as Error).message}` };
    }
    if (!isObject(parsed)) return { ok: false, reason: "bad-yaml", error: `${file.path} is not a YAML mapping.` };
    const data = Object.fromEntries(Object.entries(parsed).filter(([k]) => k !== "__proto__"));
    const version = catalog.manifest.sources[file.source]?.version;
    modules.push({ name: file.path.slice(0, file.path.indexOf("/")), data, file, ...(version ? { version } : {}) });
  }
  if (!modules.some((m) => m.name === "core")) {
    return { ok: false, reason: "no-core", error: "This bundle has no core/module.yaml: the installer's files need a BMAD 6 skills bundle." };
  }
  modules.sort((a, b) => (a.name === "core" ? -1 : b.name === "core" ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { ok: true, modules };
}

/** Entries the installer asks about: an object with a truthy `prompt`, in file order. */
export function questionKeys(schema: ModuleSchema): string[] {
  return Object.keys(schema.data).filter((k) => k !== "prompt" && isObject(schema.data[k]) && Boolean((schema.data[k] as Record<string, unknown>).prompt));
}

/** `scope: user` answers go to config.user.toml, everything else to config.toml (keys with a `prompt` entry). */
export function scopes(schema: ModuleSchema): Map<string, "user" | "team"> {
  const out = new Map<string, "user" | "team">();
  for (const [key, value] of Object.entries(schema.data)) {
    if (isObject(value) && "prompt" in value) out.set(key, value.scope === "user" ? "user" : "team");
  }
  return out;
}

export function promptText(item: Record<string, unknown>): string {
  return Array.isArray(item.prompt) ? item.prompt.join("\n") : String(item.prompt);
}

/** single-select entries as the installer lists them: `{ value, label }` objects or plain strings. */
export function choices(item: Record<string, unknown>): Array<{ value: string; label: string }> | undefined {
  const list = item["single-select"];
  if (!Array.isArray(list)) return undefined;
  return list.map((c) =>
    isObject(c) && c.label && c.value !== undefined ? { value: String(c.value), label: String(c.label) } : { value: String(c), label: String(c) },
  );
}

const hasValue = (v: unknown): boolean => v !== undefined && v !== null && v !== "";

const cleanPromptValue = (v: unknown): unknown => (typeof v === "string" && v.startsWith("{project-root}/") ? v.replace("{project-root}/", "") : v);

const PLACEHOLDER = /{([^}]+)}/g;

/** A default the installer computes from answers in the same module: --yes writes nothing for it. */
export const DYNAMIC = Symbol("dynamic default");

/**
 * Module configs as a fresh `install --yes` collects them. `projectName` stands for the install directory's
 * name (`{directory_name}`); when it is undefined the placeholder stays. Core is seeded from its defaults and
 * the given core answers; other modules are collected in order, each default resolved against what came before.
 */
export class ConfigCollector {
  /** module -> config, in collection order (core first). */
  readonly collected = new Map<string, ModuleConfig>();
  /** `${module}_${key}` -> raw answer, as the installer keeps them for cross-references. */
  private readonly allAnswers = new Map<string, unknown>();

  constructor(private readonly projectName: string | undefined) {}

  /** Core's defaults (raw, `{directory_name}` filled), then the given answers over them. */
  seedCore(core: ModuleSchema, answers: Record<string, string>): void {
    const config: ModuleConfig = {};
    for (const key of questionKeys(core)) {
      const value = this.directoryName((core.data[key] as Record<string, unknown>).default);
      if (hasValue(value)) config[key] = value;
    }
    Object.assign(config, answers);
    this.collected.set("core", config);
  }

  /** Collects a non-core module with every question at its default (the installer's --yes path). */
  collectModule(schema: ModuleSchema): void {
    const { name, data } = schema;
    const answers = new Map<string, unknown>();
    const statics: string[] = [];
    const defaults: Array<[string, unknown]> = [];
    for (const key of Object.keys(data)) {
      const item = data[key];
      if (key === "prompt" || !isObject(item)) continue;
      if (!item.prompt && item.result) statics.push(key);
      else if (item.prompt) {
        const value = this.questionDefault(schema, key);
        if (value !== DYNAMIC && hasValue(value)) defaults.push([key, value]);
      }
    }
    for (const key of statics) answers.set(`${name}_${key}`, undefined);
    for (const [key, value] of defaults) answers.set(`${name}_${key}`, value);
    for (const [k, v] of answers) this.allAnswers.set(k, v);

    const config: ModuleConfig = {};
    this.collected.set(name, config);
    for (const [answerKey, value] of answers) {
      const key = answerKey.replace(`${name}_`, "");
      config[key] = this.applyResult(name, data[key] as Record<string, unknown>, value, answers);
    }
  }

  /**
   * The default a question shows and, under --yes, answers with: `{directory_name}` filled, references to
   * other answers resolved (unless they point into the same module: then the installer computes it
   * lazily and --yes skips it), and the first `{project-root}/` dropped (the result template adds it back).
   */
  questionDefault(schema: ModuleSchema, key: string): unknown {
    const item = schema.data[key] as Record<string, unknown>;
    const original = item.default;
    if (typeof original !== "string") return original;
    let value = this.directoryName(original);
    const hasReference = /{([^}]+)}/.test(original);
    const dynamic = hasReference && (value.match(PLACEHOLDER) ?? []).some((m) => Boolean(schema.data[m.slice(1, -1)]));
    if (dynamic) return DYNAMIC;
    value = this.replacePlaceholders(value, schema);
    return value.includes("{project-root}/") ? value.replace("{project-root}/", "") : value;
  }

  /** Placeholders in prompt texts and defaults: `{project-root}`, `{value}` and `{directory_name}` stay. */
  replacePlaceholders(text: string, schema: ModuleSchema): string {
    return text.replaceAll(PLACEHOLDER, (match, key: string) => {
      if (key === "project-root" || key === "value" || key === "directory_name") return match;
      return String(this.resolve(key, schema) || match);
    });
  }

  private resolve(key: string, schema: ModuleSchema): unknown {
    let value = this.allAnswers.get(key) || this.allAnswers.get(`core_${key}`);
    if (!value) value = this.answerEndingWith(key);
    if (!value) value = this.collectedValue(key);
    const item = schema.data[key];
    if (!value && item && isObject(item) && item.default !== undefined) value = item.default;
    return cleanPromptValue(value);
  }

  private applyResult(module: string, item: Record<string, unknown>, value: unknown, answers: Map<string, unknown>): unknown {
    if (Array.isArray(value)) return value;
    if (!item.result) return value;
    let result: unknown = item.result;
    if (typeof result !== "string" || value === undefined) return result;
    if (typeof value === "string") result = result.replace("{value}", value);
    else if (typeof value === "boolean" || typeof value === "number") result = result === "{value}" ? value : result.replace("{value}", String(value));
    else result = value;
    if (typeof result !== "string") return result;
    return result.replaceAll(PLACEHOLDER, (match, key: string) => {
      if (key === "project-root") return "{project-root}";
      if (key === "value") return match;
      let found = answers.get(`${module}_${key}`);
      if (!found) found = this.answerEndingWith(key);
      if (!found) found = this.collectedValue(key);
      return String(found || match);
    });
  }

  private answerEndingWith(key: string): unknown {
    for (const [answerKey, value] of this.allAnswers) if (answerKey.endsWith(`_${key}`)) return value;
    return undefined;
  }

  private collectedValue(key: string): unknown {
    // Own keys only: a {placeholder} in module.yaml may name an object property ({constructor}).
    for (const config of this.collected.values()) if (Object.hasOwn(config, key) && config[key]) return config[key];
    return undefined;
  }

  private directoryName<T>(value: T): T | string {
    return typeof value === "string" && this.projectName !== undefined ? value.replaceAll("{directory_name}", this.projectName) : value;
  }
}
