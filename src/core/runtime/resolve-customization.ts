// Port of BMAD 6.12 _bmad/scripts/resolve_customization.py: a skill's default, team and user TOML layers as JSON.
import { addArgument, createParser, parseArgs } from "./argparse.js";
import { loadCustomization } from "./config-utils.js";
import type { ScriptContext, ScriptResult } from "./context.js";
import type { RuntimeFs } from "./fs.js";
import { statPath } from "./py-io.js";
import { baseName, joinPath, parentPath, resolvePath } from "./py-path.js";
import { runScript, terminalWidth } from "./process.js";
import { printMerged } from "./resolve-config.js";

function parser() {
  const p = createParser("resolve_customization.py", "Resolve skill customization using three-layer TOML merge.");
  addArgument(p, ["--skill", "-s"], { required: true, help: "Absolute path to the skill directory" });
  addArgument(p, ["--project-root", "-p"], { help: "Explicit project root containing _bmad/ (recommended)" });
  addArgument(p, ["--key", "-k"], { kind: "append", defaultValue: [], help: "Dotted field path to resolve (repeatable). Omit for full dump." });
  return p;
}

/** Nearest ancestor holding `_bmad/`, falling back to the nearest holding `.git`. */
async function findProjectRoot(fs: RuntimeFs, start: string, cwd: string): Promise<string | undefined> {
  let gitRoot: string | undefined;
  let current = await resolvePath(fs, start, cwd);
  for (;;) {
    if ((await statPath(fs, joinPath(current, "_bmad"))) === "dir") return current;
    if (gitRoot === undefined && (await statPath(fs, joinPath(current, ".git"))) !== "missing") gitRoot = current;
    if (parentPath(current) === current) return gitRoot;
    current = parentPath(current);
  }
}

/** The project root implied by the script's own path, {project-root}/_bmad/scripts/X.py. */
async function scriptProjectRoot(ctx: ScriptContext): Promise<string | undefined> {
  if (ctx.scriptPath === undefined) return undefined;
  const scripts = parentPath(await resolvePath(ctx.fs, ctx.scriptPath, ctx.cwd));
  const bmad = parentPath(scripts);
  if (scripts === "/" || bmad === "/") return undefined;
  return baseName(scripts) === "scripts" && baseName(bmad) === "_bmad" ? parentPath(bmad) : undefined;
}

async function hasOverride(fs: RuntimeFs, root: string, skill: string): Promise<boolean> {
  // Both asked at once (one round trip where files are remote), answered in order as one after the other would be.
  const kinds = await Promise.allSettled([`${skill}.toml`, `${skill}.user.toml`].map((name) => statPath(fs, joinPath(root, "_bmad", "custom", name))));
  for (const kind of kinds) {
    if (kind.status === "rejected") throw kind.reason;
    if (kind.value === "file") return true;
  }
  return false;
}

export function main(argv: string[], ctx: ScriptContext): Promise<ScriptResult> {
  return runScript(async (out) => {
    const args = parseArgs(parser(), argv, terminalWidth(ctx));
    const { fs, cwd } = ctx;
    const skillDir = await resolvePath(fs, args.skill as string, cwd);
    let projectRoot: string | undefined;
    if (args.project_root) projectRoot = await resolvePath(fs, args.project_root as string, cwd);
    else {
      const candidates: string[] = [];
      for (const root of [await findProjectRoot(fs, cwd, cwd), await scriptProjectRoot(ctx), await findProjectRoot(fs, skillDir, cwd)]) {
        if (root !== undefined && !candidates.includes(root)) candidates.push(root);
      }
      projectRoot = candidates[0];
      const skill = baseName(skillDir);
      if (projectRoot !== undefined && !(await hasOverride(fs, projectRoot, skill))) {
        for (const root of candidates.slice(1)) {
          if (!(await hasOverride(fs, root, skill))) continue;
          out.stderr += `note: resolved project root ${projectRoot} has no customization for \`${skill}\`, but ${root} does. Using ${projectRoot}; pass --project-root to select the other explicitly.\n`;
          break;
        }
      }
    }
    return printMerged(out, () => loadCustomization(fs, projectRoot, skillDir), args.key as string[]);
  });
}
