// One sanitiser for configuration, on every path that serves it: bmad://config/current, config-shaped
// files read as resources, inlined in prompts or read from workspaces, and what bmad-run's ported scripts read.
// Secret-looking keys are removed.
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";

const SECRET_KEY = /(secret|token|password|passwd|api[-_]?key|private[-_]?key|credential|auth)/i;

/** Whether a config key looks like it holds a secret: its value is never served, rendered or given to a script. */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** A copy without secret-looking keys; null-prototype objects, so a "__proto__" key is only data. */
export function sanitizeConfig(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sanitizeConfig);
  if (value && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, unknown> = Object.create(null);
    for (const [k, v] of Object.entries(value)) {
      if (!SECRET_KEY.test(k)) out[k] = sanitizeConfig(v);
    }
    return out;
  }
  return value;
}

function hasSecretKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasSecretKey);
  if (value && typeof value === "object") return Object.entries(value).some(([k, v]) => SECRET_KEY.test(k) || hasSecretKey(v));
  return false;
}

/** Files that hold installation or user settings: `config.yaml`, `config.toml`, `config.user.*`, `custom/*.toml`. */
export function isConfigShaped(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return /^config(\.user)?\.(ya?ml|toml)$/i.test(name) || /(^|\/)custom\/[^/]+\.toml$/i.test(path);
}

export const REDACTED_NOTE = "secret-looking keys removed by bmad-mcp";

/**
 * The text to serve for a file. Config-shaped files without secrets are served as they are (byte for
 * byte); with secrets, re-written without them under a comment saying so; unreadable ones are withheld,
 * since nothing shows they are safe.
 */
export function sanitizeConfigText(path: string, text: string): string {
  if (!isConfigShaped(path)) return text;
  const parsed = parseConfig(path, text);
  if ("error" in parsed) return `# ${path} is not served: it does not parse (${parsed.error}), so secrets cannot be removed from it. Fix the file.\n`;
  return withoutSecrets(path, text, parsed.data);
}

/** A config-shaped file as a ported BMAD script reads it (bmad-run), so that what the script prints holds no
 *  secret either; one that does not parse is left as it is, for the script to report as Python would. */
export function configForScript(path: string, text: string): string {
  if (!isConfigShaped(path)) return text;
  const parsed = parseConfig(path, text);
  return "error" in parsed ? text : withoutSecrets(path, text, parsed.data);
}

const isToml = (path: string) => /\.toml$/i.test(path);

function parseConfig(path: string, text: string): { data: unknown } | { error: string } {
  try {
    return { data: isToml(path) ? parseToml(text) : parseYaml(text) };
  } catch (error) {
    return { error: (error instanceof Error ? error.message : String(error)).split("\n")[0]! };
  }
}

function withoutSecrets(path: string, text: string, data: unknown): string {
  if (!hasSecretKey(data)) return text;
  const clean = sanitizeConfig(data);
  return `# ${REDACTED_NOTE}\n${isToml(path) ? stringifyToml(clean as Record<string, unknown>) : stringifyYaml(clean)}`;
}
