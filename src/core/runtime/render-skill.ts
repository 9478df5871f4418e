// Port of BMAD 6.12 _bmad/scripts/render_skill.py: a skill's Markdown rendered into an immutable,
// content-addressed snapshot under _bmad/render/, and "read and follow <workflow.md>" on stdout.
import { addArgument, createParser, parseArgs } from "./argparse.js";
import { ConfigError, loadCentralConfig, loadCustomization, loadToml } from "./config-utils.js";
import type { ScriptContext, ScriptResult } from "./context.js";
import type { FsEntryKind, RuntimeFs } from "./fs.js";
import { dumps, loads, type PyDict, PyError, pyEquals } from "./py-json.js";
import { createTree, listDir, readBytes, readText, RefusedOsError, statPath } from "./py-io.js";
import { baseName, comparePathParts, joinPath, resolvePath, resolveStrict } from "./py-path.js";
import { compareCodePoints, stripChars } from "./py-str.js";
import { runScript, terminalWidth } from "./process.js";
import { showControls } from "../lines.js";
import { CUSTOM_TOKEN, RenderError, renderSources, resolveReplacements } from "./render-tokens.js";

/** sha256 of 6.12's render_skill.py: the renderer's identity in every generation hash (this port renders as it does). */
export const RENDERER_SHA256 = "8496d0d8b449d64c21b42a9aab3b13fc8a813a430c0695ffd84ad75bb1da7942";

const encoder = new TextEncoder();

export async function sha256(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether `path`, under a real folder, is a link: where the file system has links, its real path is another. */
const isLink = async (fs: RuntimeFs, path: string): Promise<boolean> => (fs.realpath ? (await fs.realpath(path)) !== path : false);

/** Relative POSIX paths of everything below dir whose name matches, like Path.rglob (directories too). An entry listed
 *  but "missing" is kept: a link leading out of the project, which the confined file system shows as nothing there,
 *  is an entry rglob yields, for loadSources to refuse as escaping. */
async function walk(fs: RuntimeFs, dir: string, match: (name: string) => boolean, prefix = ""): Promise<Array<[string, FsEntryKind]>> {
  const found: Array<[string, FsEntryKind]> = [];
  for (const name of await listDir(fs, dir)) {
    const path = joinPath(dir, name);
    const kind = await statPath(fs, path);
    const rel = prefix ? `${prefix}/${name}` : name;
    if (match(name)) found.push([rel, kind]);
    // Not into a linked folder, as rglob goes not (review 462: `again -> .` recursed until the path was 4 KB long).
    if (kind === "dir" && !(await isLink(fs, path))) found.push(...(await walk(fs, path, match, rel)));
  }
  return found;
}

/** The refusal of a skill's entry as the run's answer, with where to put the skill; any other failure as it is. */
function refusedEntry(error: unknown): never {
  if (error instanceof RefusedOsError) throw new RenderError(`${error.refusal} Move the skill to a folder of the project's own.`);
  throw error;
}

async function loadSources(fs: RuntimeFs, skillDir: string): Promise<Map<string, string>> {
  const candidates = (await walk(fs, skillDir, (name) => name.endsWith(".md"))).sort(([a], [b]) => comparePathParts(a, b, compareCodePoints));
  const sources = new Map<string, string>();
  for (const [name] of candidates) {
    if (baseName(name) === "SKILL.md") continue;
    // Where it leads is judged before whether it is there (Python resolves strictly first): a link out of the project
    // is "missing" to the confined file system, and whenever its target exists Python's answer is this one.
    const path = await resolvePath(fs, joinPath(skillDir, name), "/");
    if (path !== skillDir && !path.startsWith(`${skillDir}/`)) throw new RenderError(`render source escapes skill directory: ${name}`);
    // Unlike Python, which renders it: its rendered copy would be a dot-file or in a dot-folder, which no tool writes
    // (paths.ts changeRefusal). Refused here, before anything is made, naming the source (review 456).
    if (name.split("/").some((part) => part.startsWith("."))) throw new RenderError(`render source ${name}: dot-files and dot-folders are not rendered here; rename it.`);
    if ((await statPath(fs, path)) !== "file") {
      // A link to nothing: FileNotFoundError, as Python's strict resolve raises.
      await resolveStrict(fs, path, "/");
      throw new RenderError(`render source is missing or not a file: ${path}`);
    }
    try {
      sources.set(name, await readText(fs, path));
    } catch (error) {
      throw new RenderError(`failed to read render source ${path}: ${(error as Error).message}`);
    }
  }
  if (!sources.has("workflow.md")) {
    const entry = joinPath(skillDir, "workflow.md");
    // There but not listed: in a folder the file system keeps out (a `.git` folder, however spelled), whose read says
    // why; not "missing" of a file that is there (review 475).
    if ((await statPath(fs, entry)) === "file") await readBytes(fs, entry).catch(refusedEntry);
    throw new RenderError(`render entry is missing: ${entry}`);
  }
  return sources;
}

/** A generated file whose bytes are not those its manifest names (`sha256`): changed since it was rendered. */
class OutputChanged extends RenderError {
  constructor(readonly changed: { path: string; sha256: string }) {
    super(`generation output hash mismatch: ${changed.path}`);
  }
}

async function verifyExisting(fs: RuntimeFs, destination: string, manifest: PyDict): Promise<void> {
  let existing;
  try {
    existing = loads(await readText(fs, joinPath(destination, "manifest.json")));
  } catch (error) {
    const message = error instanceof SyntaxError ? `invalid JSON (${error.message})` : (error as Error).message;
    throw new RenderError(`corrupt existing generation ${destination}: ${message}`);
  }
  if (!pyEquals(existing, manifest)) throw new RenderError(`generation collision or corruption at ${destination}`);
  const outputs = manifest.get("outputs") as Map<string, string>;
  const expected = new Set([...outputs.keys(), "manifest.json"]);
  const actual = (await walk(fs, destination, () => true)).filter(([, kind]) => kind === "file").map(([rel]) => rel);
  if (actual.length !== expected.size || !actual.every((rel) => expected.has(rel))) {
    throw new RenderError(`generation contains unexpected or missing files: ${destination}`);
  }
  for (const [name, hash] of outputs) {
    const path = joinPath(destination, name);
    let bytes: Uint8Array;
    try {
      bytes = await readBytes(fs, path);
    } catch (error) {
      throw new RenderError(`failed to verify ${path}: ${(error as Error).message}`);
    }
    if ((await sha256(bytes)) !== hash) throw new OutputChanged({ path, sha256: hash });
  }
}

/** Writes a new generation whole (Python stages a folder and renames it), or verifies the one already there. */
async function publish(fs: RuntimeFs, destination: string, outputs: Map<string, Uint8Array>, manifest: PyDict): Promise<void> {
  // No mkdirs of the parent first, as Python's has: createTree makes it, after refusing a name it would not write, so a
  // refused render leaves no empty folder behind.
  if ((await statPath(fs, destination)) !== "missing") return verifyExisting(fs, destination, manifest);
  const text = dumps(manifest, { ensureAscii: false, indent: 2, sortKeys: true });
  try {
    await createTree(fs, destination, new Map([...outputs, ["manifest.json", encoder.encode(`${text}\n`)]]));
  } catch (error) {
    // Another render published it meanwhile: verified, as Python does when its rename finds the folder there.
    if ((await statPath(fs, destination)) === "missing") throw error;
    await verifyExisting(fs, destination, manifest);
  }
}

/** render(project_root, skill_dir): the rendered workflow.md's path. */
async function render(ctx: ScriptContext, projectRootArg: string, skillArg: string): Promise<string> {
  const { fs } = ctx;
  const projectRoot = await resolveStrict(fs, projectRootArg, ctx.cwd);
  const skillDir = await resolveStrict(fs, skillArg, ctx.cwd);
  if ((await statPath(fs, joinPath(projectRoot, "_bmad"))) !== "dir") throw new RenderError(`project root does not contain _bmad/: ${projectRoot}`);

  const sources = await loadSources(fs, skillDir);
  const central = await loadCentralConfig(fs, projectRoot);
  const hasCustomization = [...sources.values()].some((content) => content.search(CUSTOM_TOKEN) >= 0);
  const defaults = hasCustomization ? await loadToml(fs, joinPath(skillDir, "customize.toml"), true) : undefined;
  const customization = hasCustomization ? await loadCustomization(fs, projectRoot, skillDir) : new Map();
  const [replacements, inputValues] = resolveReplacements(sources, central, customization, defaults, projectRoot);
  const sourceHashes: PyDict = new Map();
  for (const [name, content] of sources) sourceHashes.set(name, await sha256(content));
  const rootHash = (await sha256(projectRoot)).slice(0, 12);
  // Trimmed by hand: `-+$` is tried at every dash of a run.
  let slug = stripChars(baseName(projectRoot).toLowerCase().replace(/[^a-z0-9]+/g, "-"), "-") || "project";
  slug = stripChars(slug.slice(0, 80), "-", "right") || "project";
  const identity: PyDict = new Map<string, string | PyDict>([
    ["project_root", projectRoot],
    ["renderer_sha256", RENDERER_SHA256],
    ["resolved_values", inputValues],
    ["source_sha256", sourceHashes],
  ]);
  const generationHash = (await sha256(dumps(identity, { ensureAscii: false, sortKeys: true, separators: [",", ":"] }))).slice(0, 20);
  const destination = joinPath(projectRoot, "_bmad", "render", baseName(skillDir), `${slug}-${rootHash}`, generationHash);
  const outputs = new Map([...renderSources(sources, replacements, destination)].map(([name, text]) => [name, encoder.encode(text)] as const));
  const outputHashes: PyDict = new Map();
  for (const [name, bytes] of outputs) outputHashes.set(name, await sha256(bytes));
  const manifest: PyDict = new Map<string, string | bigint | PyDict>([
    ["schema_version", 1n],
    ["skill", baseName(skillDir)],
    ["project_root", projectRoot],
    ["project_slug", slug],
    ["root_hash", rootHash],
    ["generation_hash", generationHash],
    ["inputs", identity],
    ["outputs", outputHashes],
  ]);
  await publish(fs, destination, outputs, manifest);
  return joinPath(destination, "workflow.md");
}

/** One line of the answer: a name the project gives (a file's, a skill's) holds no line break or control that would
 *  start a line of its own, in the answer's voice (review 222: a file name forged "render_skill.py exited 0"). */
const line = (text: string) => `${showControls(text)}\n`;

export async function main(argv: string[], ctx: ScriptContext): Promise<ScriptResult> {
  let changed: { path: string; sha256: string } | undefined;
  let halted = false;
  const result = await runScript(async (out) => {
    const p = createParser("render_skill.py", "Render a skill's Markdown sources into an immutable project snapshot.");
    addArgument(p, ["--project-root"], { required: true });
    addArgument(p, ["--skill"], { required: true });
    const args = parseArgs(p, argv, terminalWidth(ctx));
    try {
      out.stdout += line(`read and follow ${await render(ctx, args.project_root as string, args.skill as string)}`);
      return 0;
    } catch (error) {
      // Python catches ConfigError, RenderError, OSError, UnicodeError and ValueError here.
      if (error instanceof ConfigError || error instanceof RenderError) out.stdout += line(`HALT: ${error.message}`);
      else if (error instanceof PyError && error.pyType !== "TypeError") out.stdout += line(`HALT: ${error.message}`);
      else throw error;
      if (error instanceof OutputChanged) changed = error.changed;
      halted = true;
      return 1;
    }
  });
  // A HALT wrote nothing: a generation is written whole (createTree) or not at all.
  return halted ? { ...result, nothingWritten: true, ...(changed ? { generationChanged: changed } : {}) } : result;
}
