// render_skill.py's token resolution: {{config.*}}, {{.key}}, {workflow.*} and [[bmad-snapshot:*.md]],
// with the same validation messages. Pure functions over the loaded sources and merged TOML.
import { type PyDict, type PyValue, isDict, typeName } from "./py-json.js";
import { splitlines, strip } from "./py-str.js";

/** Rendering cannot safely publish a snapshot (Python: RenderError(ValueError)). */
export class RenderError extends Error {}

export const CONFIG_TOKEN = /\{\{config\.([A-Za-z0-9_.-]+)\}\}/g;
export const SHORT_CONFIG_TOKEN = /\{\{\.([A-Za-z0-9_]+)\}\}/g;
export const CUSTOM_TOKEN = /\{workflow\.([A-Za-z0-9_.-]+)\}/g;
const SNAPSHOT_TOKEN = "\\[\\[bmad-snapshot:([A-Za-z0-9_./-]+\\.md)\\]\\]";

function lookup(data: PyDict, dottedPath: string, label: string): PyValue {
  let current: PyValue = data;
  for (const part of dottedPath.split(".")) {
    if (!isDict(current) || !current.has(part)) throw new RenderError(`missing ${label} \`${dottedPath}\``);
    current = current.get(part)!;
  }
  return current;
}

function requireString(value: PyValue | undefined, label: string, allowEmpty = false): string {
  if (typeof value !== "string") throw new RenderError(`${label} must be a string, got ${typeName(value)}`);
  if (!allowEmpty && !strip(value)) throw new RenderError(`${label} must not be empty`);
  return value;
}

function requireStringList(value: PyValue, label: string): string[] {
  if (!Array.isArray(value)) throw new RenderError(`${label} must be a list, got ${typeName(value)}`);
  return value.map((item, i) => requireString(item, `${label}[${i}]`));
}

type Layer = Map<string, string>;

function requireReviewLayers(value: PyValue, label: string): Layer[] {
  if (!Array.isArray(value)) throw new RenderError(`${label} must be a list of tables`);
  const seen = new Set<string>();
  return value.map((item, i) => {
    const itemLabel = `${label}[${i}]`;
    if (!isDict(item)) throw new RenderError(`${itemLabel} must be a table`);
    const id = requireString(item.get("id"), `${itemLabel}.id`);
    if (seen.has(id)) throw new RenderError(`duplicate review layer id \`${id}\``);
    seen.add(id);
    const layer: Layer = new Map([
      ["id", id],
      ["name", requireString(item.has("name") ? item.get("name") : id, `${itemLabel}.name`)],
      ["instruction", requireString(item.get("instruction"), `${itemLabel}.instruction`, true)],
    ]);
    if (item.has("when")) layer.set("when", requireString(item.get("when"), `${itemLabel}.when`));
    return layer;
  });
}

function resolveConfigValue(value: PyValue, label: string, projectRoot: string): string {
  const text = requireString(value, label);
  if (!text.includes("{project-root}")) return text;
  const resolved = text.split("{project-root}").join(projectRoot);
  if (!resolved.startsWith("/")) throw new RenderError(`${label} must resolve to an absolute path: ${resolved}`);
  return resolved;
}

function findConfigValues(data: PyValue, key: string, prefix = ""): Array<[string, PyValue]> {
  const matches: Array<[string, PyValue]> = [];
  if (!isDict(data)) return matches;
  for (const [name, value] of data) {
    const path = prefix ? `${prefix}.${name}` : name;
    if (name === key && !isDict(value) && !Array.isArray(value)) matches.push([path, value]);
    matches.push(...findConfigValues(value, key, path));
  }
  return matches;
}

function resolveShortConfig(central: PyDict, key: string, projectRoot: string): [string, string] {
  const matches = findConfigValues(central, key);
  if (!matches.length) throw new RenderError(`missing config value \`${key}\``);
  if (matches.length > 1) throw new RenderError(`ambiguous config value \`${key}\` found at: ${matches.map(([p]) => p).join(", ")}`);
  const [path, value] = matches[0]!;
  return [path, resolveConfigValue(value, `config.${path}`, projectRoot)];
}

function formatMarkdownList(items: string[]): string {
  if (!items.length) return "_None._";
  const rendered: string[] = [];
  for (const item of items) {
    const lines = splitlines(item);
    if (!lines.length) lines.push("");
    rendered.push(`- ${lines[0]}`, ...lines.slice(1).map((line) => `  ${line}`));
  }
  return rendered.join("\n");
}

function formatReviewLayers(layers: Layer[]): string {
  const active = layers.filter((layer) => strip(layer.get("instruction")!));
  if (!active.length) return "No active review layers. HALT with blocking condition `no active review layers`.";
  return active
    .map((layer) => {
      const section = [`#### ${layer.get("name")} (\`${layer.get("id")}\`)`];
      if (layer.get("when")) section.push("", `Run only when: ${layer.get("when")}`);
      section.push("", strip(layer.get("instruction")!));
      return section.join("\n");
    })
    .join("\n\n");
}

function resolveCustomizationValue(value: PyValue, defaultValue: PyValue, label: string): [PyValue, string] {
  if (typeof defaultValue === "string") {
    const allowEmpty = !strip(defaultValue) || label === "customization.workflow.open_spec";
    const resolved = requireString(value, label, allowEmpty);
    return [resolved, resolved];
  }
  if (Array.isArray(defaultValue)) {
    if (defaultValue.length && defaultValue.every(isDict)) {
      const layers = requireReviewLayers(value, label);
      return [layers, formatReviewLayers(layers)];
    }
    const items = requireStringList(value, label);
    return [items, formatMarkdownList(items)];
  }
  throw new RenderError(`${label} has unsupported default type ${typeName(defaultValue)}`);
}

/** Token -> replacement text, and the resolved inputs that identify a generation. */
export function resolveReplacements(
  sources: Map<string, string>,
  central: PyDict,
  customization: PyDict,
  defaults: PyDict | undefined,
  projectRoot: string,
): [Map<string, string>, PyDict] {
  const replacements = new Map<string, string>();
  const inputs: PyDict = new Map();
  for (const content of sources.values()) {
    for (const m of content.matchAll(SHORT_CONFIG_TOKEN)) {
      const [path, resolved] = resolveShortConfig(central, m[1]!, projectRoot);
      replacements.set(m[0], resolved);
      inputs.set(`config.${path}`, resolved);
    }
    for (const m of content.matchAll(CONFIG_TOKEN)) {
      const source = `config.${m[1]}`;
      const resolved = resolveConfigValue(lookup(central, m[1]!, "config value"), source, projectRoot);
      replacements.set(m[0], resolved);
      inputs.set(source, resolved);
    }
    for (const m of content.matchAll(CUSTOM_TOKEN)) {
      if (defaults === undefined) throw new RenderError("customization tokens require customize.toml");
      const path = `workflow.${m[1]}`;
      const source = `customization.${path}`;
      const [resolved, rendered] = resolveCustomizationValue(lookup(customization, path, "customization value"), lookup(defaults, path, "customization default"), source);
      replacements.set(m[0], rendered);
      inputs.set(source, resolved);
    }
  }
  return [replacements, inputs];
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/** Every authored token replaced in one pass; inserted text is never scanned again. */
export function renderSources(sources: Map<string, string>, replacements: Map<string, string>, destination: string): Map<string, string> {
  const bound = new Map([...replacements].map(([token, value]) => [token, token.startsWith("{workflow.") ? value.split("{skill-root}").join(destination) : value]));
  const tokens = [...bound.keys()].sort((a, b) => b.length - a.length);
  const pattern = new RegExp([...tokens.map(escapeRegExp), SNAPSHOT_TOKEN].join("|"), "g");
  const snapshot = new RegExp(`^${SNAPSHOT_TOKEN}$`);
  const rendered = new Map<string, string>();
  for (const [name, content] of sources) {
    rendered.set(
      name,
      content.replace(pattern, (token) => {
        if (bound.has(token)) return bound.get(token)!;
        const target = snapshot.exec(token)?.[1];
        if (target === undefined) throw new RenderError(`unsupported render token: ${token}`);
        if (!sources.has(target)) throw new RenderError(`snapshot reference targets undeclared source: ${target}`);
        return `${destination}/${target}`;
      }),
    );
  }
  return rendered;
}
