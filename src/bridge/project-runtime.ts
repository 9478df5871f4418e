// The bridge's project as the runtime sees it: `{project-root}` is the project directory, the ported
// scripts work on its files (confined to it), BMAD's own files are mounted read-only beside it, and a
// skill's own Python scripts run for real, bounded in time and killed with everything they started.
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, relative, resolve } from "node:path";
import { BUNDLE_MOUNT, bundleFs, withBundle, type ProjectRuntime, type SkillScriptRun } from "../core/runtime/project.js";
import type { BundleReader } from "../core/surface/reader.js";
import { isInside, resolveConfined } from "./confined-fs.js";
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

async function runSkillScript(root: string, reader: BundleReader, fsScript: string, args: string[], signal?: AbortSignal): Promise<SkillScriptRun> {
  const script = fsScript.startsWith(`${BUNDLE_MOUNT}/`) ? await materialise(reader, fsScript) : fsScript;
  const where = await confinedScript(script, [root, skillCache()]);
  if (!where.ok) return refused(where.error);
  const uv = onPath("uv");
  const python = onPath("python3");
  if (!uv && !python) return refused("Neither uv nor python3 is on PATH: install uv (https://docs.astral.sh/uv/, which also installs the script's dependencies) or Python 3.11+.");
  const argv = uv ? [uv, "run", "--no-cache", "--quiet", script, ...args] : [python!, script, ...args];
  const run = await runBounded(argv, { cwd: root, timeoutMs: RUN_TIMEOUT_MS, signal });
  let stderr = run.stderr;
  if (!uv && /ModuleNotFoundError|No module named/.test(stderr)) {
    stderr += "\nThis script declares its dependencies for uv (inline script metadata): install uv (https://docs.astral.sh/uv/) and run it again.";
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

/** A skill that is only in the bundle gets its folder written to this process's cache, keyed by content, to run there. */
async function materialise(reader: BundleReader, fsScript: string): Promise<string> {
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
  return join(base, path);
}

function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, command);
    if (dir && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}
