// Port of BMAD 6.12 _bmad/scripts/resolve_config.py: the four central TOML layers as JSON.
import { addArgument, createParser, parseArgs } from "./argparse.js";
import { below, optionValues } from "./command-line.js";
import { CENTRAL_LAYERS, ConfigError, extractKey, loadCentralConfig } from "./config-utils.js";
import type { ScriptContext, ScriptResult } from "./context.js";
import { dumps, type PyDict } from "./py-json.js";
import { resolvePath } from "./py-path.js";
import { runScript, terminalWidth, type Output } from "./process.js";

function parser() {
  const p = createParser("resolve_config.py", "Resolve BMad central config using four-layer TOML merge.");
  addArgument(p, ["--project-root", "-p"], { required: true, help: "Absolute project root containing _bmad/" });
  addArgument(p, ["--key", "-k"], { kind: "append", defaultValue: [], help: "Dotted field path to resolve (repeatable). Omit for full dump." });
  return p;
}

/** The merged value, or only the requested dotted keys that exist, as Python's json.dumps(indent=2, ensure_ascii=False). */
export function selectKeys(merged: PyDict, keys: string[]): PyDict {
  if (!keys.length) return merged;
  const output: PyDict = new Map();
  for (const key of keys) {
    const value = extractKey(merged, key);
    if (value !== undefined) output.set(key, value);
  }
  return output;
}

/** Both resolvers' ending: merge the layers, then print the requested keys; a bad layer is exit 1, as in Python. */
export async function printMerged(out: Output, load: () => Promise<PyDict>, keys: string[]): Promise<number> {
  let merged: PyDict;
  try {
    merged = await load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    out.stderr += `error: ${error.message}\n`;
    return 1;
  }
  out.stdout += `${dumps(selectKeys(merged, keys), { indent: 2, ensureAscii: false })}\n`;
  return 0;
}

/** The layers the command line's project root holds, as written: read in the run's first call (one, not eight). */
export function centralLayersNamed(argv: string[]): string[] {
  const root = optionValues(argv, ["--project-root", "-p"])[0];
  return root === undefined ? [] : CENTRAL_LAYERS.map((layer) => below(root, layer));
}

export function main(argv: string[], ctx: ScriptContext): Promise<ScriptResult> {
  return runScript(async (out) => {
    const args = parseArgs(parser(), argv, terminalWidth(ctx));
    const root = await resolvePath(ctx.fs, args.project_root as string, ctx.cwd);
    return printMerged(out, () => loadCentralConfig(ctx.fs, root), args.key as string[]);
  });
}
