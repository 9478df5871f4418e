// The bridge's project as the runtime sees it: `{project-root}` is the project directory, the ported
// scripts work on its files (confined to it), BMAD's own files are mounted read-only beside it, and a
// skill's own Python scripts run for real, bounded in time and killed with everything they started.
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { BUNDLE_MOUNT, bundleFs, withBundle, type ProjectRuntime, type SkillScriptRun } from "../core/runtime/project.js";
import type { BundleReader } from "../core/surface/reader.js";
import { confinedTarget, isInside, resolveConfined } from "./confined-fs.js";
import { runBounded } from "./run-bounded.js";
import type { NodeRuntimeFs } from "./runtime-fs.js";
import type { Result } from "../core/result.js";

/** Where installed 6.3+ skills live in a project (as in sources.ts). */
const SKILL_HOMES = [".claude/skills", ".cursor/skills", ".agents/skills"];
/** A skill script's time limit; BMAD_RUN_TIMEOUT_MS lowers or raises it. */
const RUN_TIMEOUT_MS = Number(process.env.BMAD_RUN_TIMEOUT_MS) > 0 ? Number(process.env.BMAD_RUN_TIMEOUT_MS) : 120_000;

export async function localProjectRuntime(root: string, reader: () => BundleReader, projectFs: NodeRuntimeFs): Promise<ProjectRuntime> {
  return {
    root,
    fsRoot: root,
    label: root,
    rendersFollowBundle: true, // the bundle is rebuilt when _bmad/ or an installed skill changes
    fs: withBundle(projectFs, bundleFs(reader)),
    async skillRoot(bundleDir) {
      const name = bundleDir.slice(bundleDir.lastIndexOf("/") + 1);
      const installed = SKILL_HOMES.map((home) => join(root, home, name)).find((dir) => existsSync(join(dir, "SKILL.md")));
      return installed ?? `bmad://${bundleDir}`;
    },
    runSkillScript: (script, args, signal) => runSkillScript(root, reader(), script, args, signal),
  };
}

async function runSkillScript(root: string, reader: BundleReader, fsScript: string, fsArgs: string[], signal?: AbortSignal): Promise<SkillScriptRun> {
  const bundled = fsScript.startsWith(`${BUNDLE_MOUNT}/`) ? await materialise(reader, fsScript) : undefined;
  const script = bundled?.script ?? fsScript;
  const bases = [root, skillCache()];
  const where = await confinedScript(script, bases);
  if (!where.ok) return refused(where.error);
  const args = bundled ? fsArgs.map(bundled.local) : fsArgs;
  for (const arg of args) {
    const inside = await confinedArgument(arg, root, bases);
    if (!inside.ok) return refused(inside.error);
  }
  const uv = onPath("uv");
  const python = onPath("python3");
  if (!uv && !python) return refused("Neither uv nor python3 is on PATH: install uv (https://docs.astral.sh/uv/, which also installs the script's dependencies) or Python 3.11+.");
  const argv = uv ? [uv, "run", "--no-cache", "--quiet", script, ...args] : [python!, script, ...args];
  const run = await runBounded(argv, { cwd: root, timeoutMs: RUN_TIMEOUT_MS, signal });
  let stderr = run.stderr;
  const missing = uv ? undefined : /No module named '([^']+)'/.exec(stderr)?.[1];
  if (missing) {
    stderr += `\nThis script needs the Python module ${missing}, one of the dependencies it declares for uv (the "# dependencies" lines at its top): install uv (https://docs.astral.sh/uv/) and run it again, or install them for python3.`;
  }
  if (run.timedOut) stderr += `\nKilled after ${RUN_TIMEOUT_MS / 1000} s (BMAD_RUN_TIMEOUT_MS sets the limit).`;
  if (run.cancelled) stderr += "\nCancelled by the client.";
  return { stdout: run.stdout, stderr, exitCode: run.exitCode ?? 1, timedOut: run.timedOut };
}

/** A script that is a regular file inside one of `bases`, after `..` and symlinks: the project's skills, or
 *  the cache of bundle skills. Anything else (`{project-root}/../x`, a link out) is refused, never run. */
async function confinedScript(script: string, bases: string[]): Promise<Result> {
  const path = resolve(script);
  const base = bases.find((b) => isInside(b, path));
  if (!base) return { ok: false, error: `${script} is outside the project; only the project's skills and BMAD's own run here.` };
  const found = await resolveConfined(base, relative(base, path));
  if (!found.ok) return { ok: false, error: found.code === "missing" ? `No such script: ${script}.` : `Refused to run ${found.error}` };
  if (found.isDir) return { ok: false, error: `${script} is a folder, not a script.` };
  return { ok: true };
}

/** A path a script is given (an argument, or an option's value) stays in the project or the skill's folder,
 *  after `..` and symlinks, so the model cannot point a script at files elsewhere. Words that are no path
 *  resolve inside the project and pass. The script itself is the project's code and runs as the user. */
async function confinedArgument(arg: string, root: string, bases: string[]): Promise<Result> {
  const value = arg.startsWith("-") ? arg.slice(arg.indexOf("=") + 1 || arg.length) : arg;
  if (!value) return { ok: true };
  if (value.startsWith(`${BUNDLE_MOUNT}/`)) return { ok: false, error: `${value.slice(BUNDLE_MOUNT.length + 1)} is a BMAD file outside this skill's folder; give the script paths in the project or its own folder.` };
  const base = isAbsolute(value) ? bases.find((b) => isInside(b, value)) : root;
  if (!base) return { ok: false, error: `${value} is outside the project (${root}): a skill's script works on the project's files; give a path inside it.` };
  const target = await confinedTarget(base, relative(base, resolve(base, value)));
  return target.ok ? { ok: true } : { ok: false, error: `Refused to run the script with ${target.error}` };
}

function refused(message: string): SkillScriptRun {
  return { stdout: "", stderr: message, exitCode: 2 };
}

let cacheDir: string | undefined;

/** A folder of this process's own (mode 0700, a fresh name), removed at exit: a shared, predictable path in
 *  the temp folder would let another local user plant the scripts that run here. */
function skillCache(): string {
  if (cacheDir) return cacheDir;
  const dir = mkdtempSync(join(tmpdir(), "bmad-mcp-skills-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return (cacheDir = dir);
}

/** A skill that is only in the bundle gets its folder written to this process's cache, keyed by content, to run
 *  there; `local` maps the skill's bundle paths in its arguments (`--skill {skill-root}`) to that copy. */
async function materialise(reader: BundleReader, fsScript: string): Promise<{ script: string; local: (arg: string) => string }> {
  const path = fsScript.slice(BUNDLE_MOUNT.length + 1);
  const skillDir = path.replace(/\/scripts\/[^/]+$/, "");
  const { catalog } = reader;
  const files = catalog.paths.filter((p) => p.startsWith(`${skillDir}/`));
  const key = (catalog.file(path)?.sha256 ?? "missing").slice(0, 16);
  const base = join(skillCache(), key);
  for (const p of files) {
    const target = join(base, p);
    if (existsSync(target) && statSync(target).size === catalog.file(p)!.size) continue;
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, await reader.readText(catalog.file(p)!));
  }
  const mounted = `${BUNDLE_MOUNT}/${skillDir}`;
  const local = (arg: string): string => {
    const at = arg.startsWith("-") ? arg.indexOf("=") + 1 : 0; // a value, or --option=value
    const value = arg.slice(at);
    return value === mounted || value.startsWith(`${mounted}/`) ? arg.slice(0, at) + join(base, skillDir) + value.slice(mounted.length) : arg;
  };
  return { script: join(base, path), local };
}

function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, command);
    if (dir && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}
