// What bmad-party-mode's resolve_party.py and bmad-forge-idea's resolve_personas.py share: running the project's
// resolvers as they shell out to them (the ports here), and an installed agent's short alias.
import type { ScriptContext, ScriptMain, ScriptResult } from "./context.js";
import { isDict, loads, type PyDict, type PyValue } from "./py-json.js";
import { get, lower, truthy } from "./py-ops.js";
import { statPath } from "./py-io.js";
import { joinPath } from "./py-path.js";
import { strip } from "./py-str.js";
import { loadToml } from "./config-utils.js";
import { main as resolveConfig } from "./resolve-config.js";
import { main as resolveCustomization } from "./resolve-customization.js";

/** A resolver run as `python script …`, its JSON stdout read back; undefined on any failure, as in _run_json. */
async function runJson(ctx: ScriptContext, main: ScriptMain, script: string, args: string[]): Promise<PyValue | undefined> {
  if ((await statPath(ctx.fs, script)) !== "file") return undefined; // python cannot open the file: exit 2
  const out: ScriptResult = await main(args, { ...ctx, scriptPath: script });
  if (out.exitCode !== 0 || !strip(out.stdout)) return undefined;
  try {
    return loads(out.stdout);
  } catch {
    return undefined;
  }
}

/** `resolve_config.py --project-root ROOT --key agents`, read back; undefined on any failure. */
export function installedAgents(ctx: ScriptContext, root: string): Promise<PyValue | undefined> {
  return runJson(ctx, resolveConfig, joinPath(root, "_bmad", "scripts", "resolve_config.py"), ["--project-root", root, "--key", "agents"]);
}

/** `resolve_customization.py --skill SKILL --project-root ROOT --key workflow`, read back; undefined on any failure. */
export function resolvedWorkflow(ctx: ScriptContext, root: string, skill: string): Promise<PyValue | undefined> {
  return runJson(ctx, resolveCustomization, joinPath(root, "_bmad", "scripts", "resolve_customization.py"), ["--skill", skill, "--project-root", root, "--key", "workflow"]);
}

/** _load_toml: a TOML file's table, {} when it is missing or unreadable (OSError, TOMLDecodeError). */
export async function tomlTable(ctx: ScriptContext, path: string): Promise<PyDict> {
  if ((await statPath(ctx.fs, path)) === "missing") return new Map();
  try {
    return await loadToml(ctx.fs, path);
  } catch {
    return new Map();
  }
}

/** bmad-agent-analyst -> analyst */
export function alias(code: string): string {
  for (const prefix of ["bmad-agent-", "bmad-"]) if (code.startsWith(prefix)) return code.slice(prefix.length);
  return code;
}

/** A custom party member as both scripts apply it: over the installed entry it names (by code, alias or name),
 *  keeping what it leaves out; undefined for one with no code. */
export function customMember(m: PyValue, entries: Map<string, PyDict>, index: Map<string, string>): [string, PyDict] | undefined {
  if (!isDict(m)) return undefined;
  const code = m.get("code");
  if (!truthy(code)) return undefined;
  const canonical = index.get(code as string) || index.get(lower(code!)) || (code as string);
  const entry: PyDict = new Map(entries.get(canonical) ?? []);
  entry.set("code", canonical).set("source", "custom");
  for (const field of ["name", "icon", "title", "persona", "capabilities", "model"]) {
    const value = m.get(field);
    if (value !== undefined && value !== null) entry.set(field, value);
  }
  if (!entry.has("name")) entry.set("name", canonical);
  return [canonical, entry];
}

/** An installed agent's entry: the name (its code when it has none), these fields of its config, and its source. */
export function installedEntry(code: string, info: PyValue, fields: string[]): PyDict {
  return new Map<string, PyValue>([["code", code], ["name", get(info, "name", code)!], ...fields.map((f): [string, PyValue] => [f, get(info, f, "")!]), ["source", "installed"]]);
}
