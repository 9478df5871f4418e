// The bridge's project as the runtime sees it: `{project-root}` is the project directory, the ported
// scripts work on its files (confined to it), BMAD's own files are mounted read-only beside it, and a
// skill's own Python script with no port runs for real, bounded in time and killed with everything it
// started, only when BMAD vouches for its bytes (or the user allowed their own scripts when starting the bridge).
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, realpathSync, rmSync, statSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { BUNDLE_MOUNT, bundleFs, CONTRACT_SCRIPT, withBundle, type ProjectRuntime, type SkillScriptRun } from "../core/runtime/project.js";
import type { BundleReader } from "../core/surface/reader.js";
import { OUTPUT_FILE } from "../core/runtime/context.js";
import { bmadScriptsOf, isPortedScriptPath, scriptPlace, type BmadScripts } from "../core/runtime/scripts.js";
import { isSecretFile, isSecretKey } from "../core/catalog/config.js";
import { changeRefusal, isScriptPath } from "../core/workspace/paths.js";
import { confinedTarget, isInside, landingRefusal, readConfined, resolveConfined } from "./confined-fs.js";
import { findProgram, insideProject } from "./find-program.js";
import { readonlyGit } from "./git-readonly.js";
import { runBounded } from "./run-bounded.js";
import { loadState } from "./sync-state.js";
import { walkFiles } from "./sync.js";
import type { NodeRuntimeFs } from "./runtime-fs.js";
import type { Result } from "../core/result.js";

/** Where installed 6.3+ skills live in a project (as in sources.ts). */
const SKILL_HOMES = [".claude/skills", ".cursor/skills", ".agents/skills"];
/** A skill script's time limit; BMAD_RUN_TIMEOUT_MS lowers or raises it. */
const RUN_TIMEOUT_MS = Number(process.env.BMAD_RUN_TIMEOUT_MS) > 0 ? Number(process.env.BMAD_RUN_TIMEOUT_MS) : 120_000;

/** Which scripts with no port may run: BMAD's own bytes (the embedded bundle's digests, or the project's install
 *  record), or any, when the user started the bridge with --allow-project-scripts. */
export interface ScriptVouching {
  /** The scripts of the bundle this bridge ships, by place. */
  bmadScripts: () => BmadScripts;
  /** The sha256 of the embedded bundle's ported scripts: bytes that run only as their port. */
  portedDigests: () => ReadonlySet<string>;
  allowProjectScripts: boolean;
  /** The project's install record vouches for the scripts it lists: the user's word that its installer wrote it (a
   *  cloned repository's committed one is its author's, and vouched for its own Python: review 35). */
  trustInstallRecord?: boolean;
}

/** BMAD's install record: the sha256 of every file the installer wrote. Tools cannot change it (paths.ts). */
const INSTALL_RECORD = "_bmad/_config/files-manifest.csv";

/** The project for one call (a render or a run): what it read with something withheld is that call's to say. */
export function localProjectRuntime(root: string, reader: () => BundleReader, projectFs: NodeRuntimeFs, vouching: ScriptVouching = { bmadScripts: () => new Map(), portedDigests: () => new Set(), allowProjectScripts: false }, store?: ProjectRuntime["store"]): ProjectRuntime {
  const withheld = new Map<string, string>();
  return {
    root,
    fsRoot: root,
    label: root,
    ...(store ? { store } : {}),
    rendersFollowBundle: true, // the bundle is rebuilt when _bmad/ or an installed skill changes
    withheld,
    fs: withBundle(projectFs, bundleFs(reader), { withheld }),
    async skillRoot(bundleDir) {
      const name = bundleDir.slice(bundleDir.lastIndexOf("/") + 1);
      const installed = SKILL_HOMES.map((home) => join(root, home, name)).find((dir) => existsSync(join(dir, "SKILL.md")));
      return installed ?? `bmad://${bundleDir}`;
    },
    runSkillScript: (script, args, signal, byPort) => runSkillScript(root, reader(), vouching, script, args, signal, byPort),
    git: readonlyGit(root, { timeoutMs: RUN_TIMEOUT_MS }),
    completionContract: async () => ({ script: (await projectFs.stat(join(root, CONTRACT_SCRIPT)).catch(() => "missing")) === "file", allowed: vouching.allowProjectScripts }),
  };
}

async function runSkillScript(root: string, reader: BundleReader, given: ScriptVouching, fsScript: string, fsArgs: string[], signal?: AbortSignal, byPort = false): Promise<SkillScriptRun> {
  // --allow-project-scripts is for the project's own scripts: a content tree's (--path, a git source, BMAD_ROOT,
  // ~/.bmad), served from the bundle's mount or named by its copy in the skill cache, still runs only with BMAD's bytes
  // (review 59: a stranger's git source ran; review 62: so did its cached copy, named by its path).
  const fromTree = fsScript.startsWith(`${BUNDLE_MOUNT}/`) || isInside(skillCache(), resolvedReal(fsScript));
  const vouching = fromTree ? { ...given, allowProjectScripts: false } : given;
  const vouched = await vouchedBytes(root, vouching);
  const keep: KeepForRun = vouching.allowProjectScripts ? () => true : keepForRun(vouched);
  const bundled = fsScript.startsWith(`${BUNDLE_MOUNT}/`) ? await materialise(reader, fsScript, keep) : undefined;
  if (typeof bundled === "string") return refused(bundled);
  const script = bundled?.script ?? fsScript;
  const bases = [root, skillCache()];
  // Where the script is decides whether anything runs: said as a refusal, not as the script's exit (review 271).
  const where = await confinedScript(script, bases);
  if (!where.ok) return refused(where.error);
  const digest = await scriptDigest(script, bases);
  if (!digest.ok) return refused(digest.error);
  if (!byPort) {
    const ported = await portedRefusal(root, reader, vouching, script, digest.digest);
    if (ported) return refused(ported);
  }
  const trusted = await vouchedFor(root, script, bases, vouching, digest.digest, vouched);
  if (!trusted.ok) return refused(trusted.error);
  const args = bundled ? fsArgs.map(bundled.local) : fsArgs;
  const ownFolder = relative(root, resolve(script, "../.."));
  for (const arg of args) {
    if (arg === OUTPUT_FILE) continue;
    const inside = await confinedArgument(arg, root, bases, ownFolder);
    if (!inside.ok) return refused(inside.error);
  }
  // A project's script runs from a copy of its skill folder holding only the code BMAD vouches for (the bundle's are
  // written so already); with --allow-project-scripts, where it is.
  const copy = bundled || vouching.allowProjectScripts ? undefined : await copyForRun(root, script, keep);
  if (copy && !copy.ok) return refused(copy.error);
  const run = copy ? { script: copy.script, args: args.map(copy.local) } : { script, args };
  try {
    return await runVouched(root, run.script, run.args, signal);
  } finally {
    if (copy) await rm(copy.dir, { recursive: true, force: true });
  }
}

/** Runs a script that passed every check (it, its arguments, the folder it runs from) with uv or python3. */
async function runVouched(root: string, script: string, args: string[], signal?: AbortSignal): Promise<SkillScriptRun> {
  // Neither from the project's own folders: an interpreter there (a virtual environment) loads what its site-packages
  // hold, which a tool may have written (`venv/lib/…/x.pth`).
  const found = findProgram("uv", root) ?? findProgram("python3", root);
  if (!found) return refused("Neither uv nor python3 is on PATH: install uv (https://docs.astral.sh/uv/, which also installs the script's dependencies) or Python 3.11+.");
  if ("inside" in found) return refused(insideRefusal(found.inside));
  const uv = basename(found.path) === "uv" ? found.path : undefined;
  const python = uv ? undefined : await realInterpreter(found.path);
  if (python && !python.ok) return refused(python.error);
  const pythonInside = python && insideProject(python.path, root);
  if (pythonInside) return refused(insideRefusal(pythonInside));
  // A file the script writes for its port, in a private folder: the port writes it into the project itself.
  const outputDir = args.includes(OUTPUT_FILE) ? await mkdtemp(join(skillCache(), "output-")) : undefined;
  const outputPath = outputDir && join(outputDir, "output");
  // uv finds no project, settings or environment here: a pyproject.toml or uv.toml the model wrote would name a build
  // backend (code uv runs) or an index to install from, and the project's .venv loads what it holds (an editable
  // install's src/sitecustomize.py); no .env file (UV_ENV_FILE) sets the script's environment. The script runs in an environment of its own inline dependencies alone. Python
  // takes no PYTHON* variables (-E: a relative PYTHONPATH would import the project's files) and no user site (-s).
  const argv = (python ? [python.path, "-I", "-S", "-c", PYTHON_BOOT, script] : [uv!, "run", "--isolated", "--no-project", "--no-config", "--no-env-file", "--no-cache", "--quiet", script]).concat(args.map((a) => (a === OUTPUT_FILE ? outputPath! : a)));
  try {
    const run = await runBounded(argv, { cwd: root, timeoutMs: RUN_TIMEOUT_MS, signal, env: scriptEnv() });
    let stderr = run.stderr;
    const missing = uv ? undefined : /No module named '([^']+)'/.exec(stderr)?.[1];
    if (missing) {
      stderr += `\nThis script needs the Python module ${missing}, one of the dependencies it declares for uv (the "# dependencies" lines at its top): install uv (https://docs.astral.sh/uv/) and run it again, or install them for python3.`;
    }
    if (run.timedOut) stderr += `\nKilled after ${RUN_TIMEOUT_MS / 1000} s (BMAD_RUN_TIMEOUT_MS sets the limit).`;
    if (run.cancelled) stderr += "\nCancelled by the client.";
    const data = outputPath ? await readFile(outputPath).catch(() => undefined) : undefined;
    return { stdout: run.stdout, stderr, exitCode: run.exitCode ?? 1, timedOut: run.timedOut, truncated: run.truncated, ...(data ? { output: { data, path: outputPath! } } : {}) };
  } finally {
    if (outputDir) await rm(outputDir, { recursive: true, force: true });
  }
}

/** What BMAD vouches for, by place (scriptPlace) and sha256: the bytes of the bundle this bridge ships, and those the
 *  project's install record lists, unless a pull brought the record (the remote's word, not this machine's installer's). */
interface Vouched {
  at(place: string, digest: string): boolean;
  pulled: boolean;
}

async function vouchedBytes(root: string, vouching: ScriptVouching): Promise<Vouched> {
  const record = vouching.trustInstallRecord ? await readConfined(root, INSTALL_RECORD) : undefined;
  const pulled = record?.ok === true && (await broughtByPull(root, record.bytes));
  const recorded: BmadScripts = record?.ok && !pulled ? recordedScripts(record.bytes) : new Map();
  const embedded = vouching.bmadScripts();
  return { pulled, at: (place, digest) => embedded.get(place)?.has(digest) === true || recorded.get(place)?.has(digest) === true };
}

/** A script with no port runs only as BMAD shipped it: its bytes are a file of the bundle this bridge ships, or one
 *  the project's install record lists. One the model wrote or changed is neither (tools cannot write scripts or the
 *  record, paths.ts), so it never runs; the user's own scripts run when they start the bridge allowing them. */
export async function vouchedFor(root: string, script: string, bases: string[], vouching: ScriptVouching, known?: string, vouched?: Vouched): Promise<Result> {
  if (vouching.allowProjectScripts) return { ok: true };
  const read = known === undefined ? await scriptDigest(script, bases) : { ok: true as const, digest: known };
  if (!read.ok) return read;
  // BMAD's bytes at BMAD's place for them: the same bytes elsewhere (a test of BMAD's beside files the model wrote)
  // are not what BMAD shipped.
  const place = scriptPlace(resolve(script).split(sep).join("/"));
  const { at, pulled } = vouched ?? (await vouchedBytes(root, vouching));
  if (place && at(place, read.digest)) return { ok: true };
  const shown = isInside(root, resolve(script)) ? relative(root, resolve(script)) : script;
  return {
    ok: false,
    error:
      `${shown} is not a script BMAD installed: its bytes match neither this bridge's BMAD nor ${vouching.trustInstallRecord ? `the project's ${INSTALL_RECORD}` : `a trusted install record (the project's ${INSTALL_RECORD} vouches only for a bridge started with --trust-install-record: a cloned repository may have committed one)`}${pulled ? " (the one here came with bmad-mcp pull, and a pulled record vouches for nothing; BMAD's installer run here writes one that does)" : ""}, so a model may have written or changed it, and it does not run. ` +
      "If the record is your installer's (a custom module, another BMAD version), start the bridge with --trust-install-record; if the script is yours and you trust it, with --allow-project-scripts (in your MCP client's config); to get BMAD's own back, reinstall BMAD.",
  };
}

/** Files that run or load as code: Python's own (a module beside a script shadows the standard library's), shared
 *  libraries, .pth files, and other scripts a script may start. */
const CODE_FILE = /\.(py[cdow]?|so|dylib|dll|pth|sh|bash|zsh|[cm]?js|ts|rb|pl|exe|bat|cmd|ps1)$/i;
/** The most of a skill folder copied to run one of its scripts. */
const MAX_RUN_COPY_BYTES = 64 * 1024 * 1024;
const MAX_RUN_COPY_FILES = 2000;

/** Which files of a script's skill folder go into the copy it runs from (`path`: where BMAD would place it, `digest`:
 *  its bytes' sha256). A script's folder is first on Python's import path, so a `csv.py` beside BMAD's own brain.py ran
 *  as Python's csv (review 20, from a git source or a cloned repository): under a `scripts/` folder only the bytes BMAD
 *  vouches for at that place; elsewhere anything but code. */
type KeepForRun = (path: string, digest: string) => boolean;

const keepForRun = (vouched: Vouched): KeepForRun => (path, digest) => {
  const place = scriptPlace(path);
  return place ? vouched.at(place, digest) : !CODE_FILE.test(path);
};

/** A private copy (this process's 0700 cache) of the project skill folder holding `script`, of the files `keep` lets
 *  in, for the script to run from; `local` maps paths into that folder (its arguments) to the copy. Removed after. */
async function copyForRun(root: string, script: string, keep: KeepForRun): Promise<Result<{ script: string; local: (arg: string) => string; dir: string }>> {
  const skillDir = resolve(script, "../..");
  const skillRel = relative(root, skillDir).split(sep).join("/");
  const listed = (await walkFiles(root, skillRel)).files;
  // A skill folder holds dozens of files: past that, no copy (18,000 planted files cost 5 s a run, then cut the script
  // from the list: review 21).
  if (listed.length > MAX_RUN_COPY_FILES) return { ok: false, error: `${skillRel || "The project"} holds over ${MAX_RUN_COPY_FILES} files, more than a skill folder: a script runs from a copy of its skill's folder, so keep the skill's files apart.` };
  const dir = await mkdtemp(join(skillCache(), "run-"));
  let bytes = 0;
  for (const rel of listed) {
    const read = await readConfined(root, rel);
    if (!read.ok) continue; // what no tool reads (a secrets file, a link out) is no part of the run
    bytes += read.bytes.byteLength;
    if (bytes > MAX_RUN_COPY_BYTES) {
      await rm(dir, { recursive: true, force: true });
      return { ok: false, error: `${skillRel || "The project"} holds over ${MAX_RUN_COPY_BYTES / 1024 / 1024} MiB, more than a skill folder: a script runs from a copy of its skill's folder, so keep the skill's files apart.` };
    }
    if (rel !== relative(root, script).split(sep).join("/") && !keep(rel, createHash("sha256").update(read.bytes).digest("hex"))) continue;
    await mkdir(dirname(join(dir, rel)), { recursive: true, mode: 0o700 });
    await writeFile(join(dir, rel), read.bytes, { mode: 0o600 });
  }
  return { ok: true, script: join(dir, relative(root, script)), local: movedUnder(skillDir, sep, join(dir, skillRel)), dir };
}

/** The sha256 of a script's bytes, read through the confined reader from the base it is in. */
async function scriptDigest(script: string, bases: string[]): Promise<Result<{ digest: string }>> {
  const base = bases.find((b) => isInside(b, resolve(script)))!;
  const bytes = await readConfined(base, relative(base, resolve(script)));
  if (!bytes.ok) return { ok: false, error: `Refused to run ${bytes.error}` };
  return { ok: true, digest: createHash("sha256").update(bytes.bytes).digest("hex") };
}

const portedInCatalog = new WeakMap<BundleReader["catalog"], ReadonlySet<string>>();

/** Why `script` may not run for real: its bytes are a ported script's (BMAD's brain.py reached through a link, a
 *  copy under another folder or name), and those run only as the port, whose reads and writes are confined. */
async function portedRefusal(root: string, reader: BundleReader, vouching: ScriptVouching, script: string, digest: string): Promise<string | undefined> {
  const { catalog } = reader;
  let inCatalog = portedInCatalog.get(catalog);
  if (!inCatalog) portedInCatalog.set(catalog, (inCatalog = new Set(catalog.paths.filter(isPortedScriptPath).map((p) => catalog.file(p)!.sha256))));
  if (!vouching.portedDigests().has(digest) && !inCatalog.has(digest) && !(await recordedPortDigests(root)).has(digest)) return undefined;
  const shown = isInside(root, resolve(script)) ? relative(root, resolve(script)) : script;
  return `${shown} holds the bytes of one of BMAD's ported scripts, which bmad-run runs only as its port: name it as its skill does ({skill-root}/scripts/${shown.slice(shown.lastIndexOf("/") + 1)}, in the skill's own folder).`;
}

/** The files BMAD's install record lists (`"py",…,"<path>","<sha256>"` rows; paths from `_bmad/`). */
function recordedFiles(record: Buffer): Array<{ path: string; sha256: string }> {
  const files: Array<{ path: string; sha256: string }> = [];
  for (const line of record.toString("utf8").split("\n")) {
    const row = /"([^"]*)","([0-9a-f]{64})"\s*$/.exec(line);
    if (row) files.push({ path: row[1]!, sha256: row[2]! });
  }
  return files;
}

const recordedScripts = (record: Buffer): BmadScripts => bmadScriptsOf(recordedFiles(record));

/** The sha256 of each ported script the project's install record lists. */
async function recordedPortDigests(root: string): Promise<Set<string>> {
  const record = await readConfined(root, INSTALL_RECORD);
  return new Set(record.ok ? recordedFiles(record.bytes).filter((f) => isPortedScriptPath(f.path)).map((f) => f.sha256) : []);
}

/** Whether `bytes` are, byte for byte, a file the folder's last pull wrote, under any name (`_BMAD/…` is `_bmad/…` on
 *  macOS). A state that cannot be read counts as a pull: trust is not given on a broken record of where files came from. */
async function broughtByPull(root: string, bytes: Uint8Array): Promise<boolean> {
  const loaded = await loadState(root);
  // A record this user's bridge did not write may hide a pull: the record vouches for nothing then either.
  if (!loaded.ok || loaded.ignored) return true;
  const digest = createHash("sha256").update(bytes).digest("hex");
  return [...(loaded.state?.files.values() ?? [])].some((file) => file.sha256 === digest);
}

/** A script that is a regular file inside one of `bases`, after `..` and symlinks: the project's skills, or
 *  the cache of bundle skills. Anything else (`{project-root}/../x`, a link out) is refused, never run. */
async function confinedScript(script: string, bases: string[]): Promise<Result> {
  const path = resolve(script);
  const base = bases.find((b) => isInside(b, path));
  if (!base) return { ok: false, error: `${script} is outside the project; only the project's skills and BMAD's own run here: give a script in the project ({project-root}/…), or BMAD's by its URI (bmad://<module>/<skill>/scripts/<name>.py).` };
  const found = await resolveConfined(base, relative(base, path));
  if (!found.ok) return { ok: false, error: found.code === "missing" ? `No such script: ${script}.` : `Refused to run ${found.error}` };
  if (found.isDir) return { ok: false, error: `${script} is a folder, not a script.` };
  return { ok: true };
}

/** A path a script is given (an argument, or an option's value) stays in the project or the skill's folder,
 *  after `..` and symlinks, so the model cannot point a script at files elsewhere; in the project it is no file
 *  a tool could not read or change (a secrets file, git's store, a script, a tool's settings) but in the script's
 *  own skill folder (`ownFolder`, from the project root), which it may read. Words that are no path resolve inside
 *  the project and pass. */
async function confinedArgument(arg: string, root: string, bases: string[], ownFolder: string): Promise<Result> {
  // A short option takes its value glued on (`-o/abs`, as argparse reads it): judged as that value.
  if (/^-[^-\d]./.test(arg) && /[/\\.~]/.test(arg.slice(2))) return { ok: false, error: `${arg.slice(0, 200)}: give a short option and its value as two words (${arg.slice(0, 2)} <path>).` };
  const value = arg.startsWith("-") ? arg.slice(arg.indexOf("=") + 1 || arg.length) : arg;
  if (!value) return { ok: true };
  if (value.startsWith(`${BUNDLE_MOUNT}/`)) return { ok: false, error: `${value.slice(BUNDLE_MOUNT.length + 1)} is a BMAD file outside this skill's folder; give the script paths in the project or its own folder.` };
  const base = isAbsolute(value) ? bases.find((b) => isInside(b, value)) : root;
  if (!base) return { ok: false, error: `${value} is outside the project (${root}): a skill's script works on the project's files; give a path inside it.` };
  const rel = relative(base, resolve(base, value));
  const target = await confinedTarget(base, rel);
  if (!target.ok) return { ok: false, error: `Refused to run the script with ${target.error}` };
  if (base !== root) return { ok: true };
  // Where it really lands, after symlinks: judged as a change would be (the script may write there), except that
  // the script's own skill folder is its to read.
  const own = (real: string) => real === ownFolder || (real.startsWith(`${ownFolder}/`) && !isScriptPath(real));
  const landed = await landingRefusal(root, rel, { refuse: (real) => (isSecretFile(real) ? "holds secrets, which no tool reads" : own(real) ? undefined : changeRefusal(real)) });
  return landed ? { ok: false, error: `Refused to run the script with ${landed.error}` } : { ok: true };
}

/** Nothing ran, and why: bmad-run answers the refusal itself, not a script's exit (review 364). stderr and the exit
 *  code say it too, for a port that passes on what its original answered. */
function refused(message: string): SkillScriptRun {
  return { stdout: "", stderr: message, exitCode: 2, refused: message };
}

let cacheDir: string | undefined;

/** A path with its links resolved as far as it exists (as the skill cache's is). */
function resolvedReal(path: string): string {
  try {
    return realpathSync(resolve(path));
  } catch {
    return resolve(path);
  }
}

/** A folder of this process's own (mode 0700, a fresh name), removed at exit: a shared, predictable path in
 *  the temp folder would let another local user plant the scripts that run here. Its real path (the temp folder may
 *  be behind a link), so that a script named by it is known for the cache's. */
function skillCache(): string {
  if (cacheDir) return cacheDir;
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "bmad-mcp-skills-")));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return (cacheDir = dir);
}

/** A skill that is only in the bundle gets its folder written to this process's cache, keyed by content, to run
 *  there; `local` maps the skill's bundle paths in its arguments (`--skill {skill-root}`) to that copy. */
async function materialise(reader: BundleReader, fsScript: string, keep: KeepForRun): Promise<{ script: string; local: (arg: string) => string } | string> {
  const path = fsScript.slice(BUNDLE_MOUNT.length + 1);
  const skillDir = path.replace(/\/scripts\/[^/]+$/, "");
  const { catalog } = reader;
  // The script itself is judged by the checks after; of the rest, what `keep` lets in (a bundle built from a git
  // source or a folder holds whatever was there).
  const files = catalog.paths.filter((p) => p.startsWith(`${skillDir}/`) && (p === path || keep(p, catalog.file(p)!.sha256)));
  const key = (catalog.file(path)?.sha256 ?? "missing").slice(0, 16);
  const base = join(skillCache(), key);
  for (const p of files) {
    const target = join(base, p);
    // Only inside the cache, whatever a bundle path says (bundles are checked as built: this holds for any).
    if (!isInside(base, target)) return `bmad://${p.slice(0, 200)} would be copied outside this run's folder; refused, and nothing run.`;
    if (existsSync(target) && statSync(target).size === catalog.file(p)!.size) continue;
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, await reader.readText(catalog.file(p)!));
  }
  const mounted = `${BUNDLE_MOUNT}/${skillDir}`;
  return { script: join(base, path), local: movedUnder(mounted, "/", join(base, skillDir)) };
}

/** An argument (a value, or --option=value) that names `from` or a path below it (`slash` between names), named under
 *  `to` instead: a skill's paths in a script's arguments, mapped to the copy it runs from. */
function movedUnder(from: string, slash: string, to: string): (arg: string) => string {
  return (arg) => {
    const at = arg.startsWith("-") ? arg.indexOf("=") + 1 : 0;
    const value = arg.slice(at);
    return value === from || value.startsWith(`${from}${slash}`) ? arg.slice(0, at) + to + value.slice(from.length) : arg;
  };
}

/** python3 without uv: isolated (-I: no PYTHON* variables, no user site, and no working folder on the path, which `-c`
 *  would put first, before even the boot's own imports, where a model-written sysconfig.py would run) and no site
 *  module (-S: an environment's .pth files may put the project's src/ on the path); its site-packages are added
 *  plainly, with no .pth read, and the script's folder first, as `python3 script` has it. */
const PYTHON_BOOT = [
  "import os, runpy, sys, sysconfig",
  "script = sys.argv[1]",
  "sys.argv = sys.argv[1:]",
  "sys.path.insert(0, os.path.dirname(os.path.abspath(script)))",
  "sys.path.extend(p for p in dict.fromkeys(sysconfig.get_paths()[k] for k in ('purelib', 'platlib')) if p not in sys.path)",
  "runpy.run_path(script, run_name='__main__')",
].join("\n");

/** The bridge's environment for a script, less what would choose its Python or what Python loads (an active virtual
 *  or conda environment, the project's perhaps; PYTHON* variables; uv's project environment) and less what looks like
 *  a secret (the bridge's own BMAD_MCP_TOKEN, an API key in the user's shell): no BMAD script needs one (review 20). */
function scriptEnv(): Record<string, undefined> {
  const out: Record<string, undefined> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(PYTHON|CONDA_|UV_PROJECT)/.test(name) || name === "VIRTUAL_ENV" || isSecretKey(name, value)) out[name] = undefined;
  }
  return out;
}

const insideRefusal = (inside: string) => `${inside} is inside the project: bmad-run runs BMAD's scripts with no interpreter from the project's own folders (files there may be the model's). Put uv or Python 3.11+ from outside it first on PATH.`;

/** The interpreter each python3 found is, once a lookup has said it: a failed one is asked again next run. */
const interpreters = new Map<string, Promise<Result<{ path: string }>>>();
/** How long python3 may take to say which interpreter it is; a lower BMAD_RUN_TIMEOUT_MS lowers it too. */
const LOOKUP_TIMEOUT_MS = Math.min(10_000, RUN_TIMEOUT_MS);

/** The interpreter `python3` is, asked from a neutral folder: a version manager's shim (pyenv's) picks one by the working
 *  folder's `.python-version`, and the project's chose Python 3.6 for BMAD's scripts (review 327). */
function realInterpreter(python3: string): Promise<Result<{ path: string }>> {
  let asked = interpreters.get(python3);
  if (!asked) {
    asked = lookUpInterpreter(python3).then((found) => {
      // A slow first start (a version manager's) or a broken shim fixed since must not stick for the bridge's life.
      if (!found.ok) interpreters.delete(python3);
      return found;
    });
    interpreters.set(python3, asked);
  }
  return asked;
}

async function lookUpInterpreter(python3: string): Promise<Result<{ path: string }>> {
  const run = await runBounded([python3, "-I", "-S", "-c", "import sys; print(sys.executable)"], { cwd: tmpdir(), timeoutMs: LOOKUP_TIMEOUT_MS, env: scriptEnv() });
  const path = run.stdout.trim();
  if (run.exitCode === 0 && isAbsolute(path)) return { ok: true, path };
  if (run.timedOut) return { ok: false, error: `${python3} took over ${LOOKUP_TIMEOUT_MS / 1000} s to say which interpreter it is (a version manager's first start?): run it again.` };
  const ended = run.signal ? `killed by ${run.signal}` : run.exitCode === null ? "did not start" : `exit ${run.exitCode}`;
  return { ok: false, error: `${python3} did not say which Python it runs (${ended}${run.stderr ? `: ${run.stderr.trim().slice(0, 300)}` : ""}): install Python 3.11+ or uv (https://docs.astral.sh/uv/).` };
}
