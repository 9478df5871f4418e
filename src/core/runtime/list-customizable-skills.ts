// Port of BMAD 6.12 bmad-customize's scripts/list_customizable_skills.py: the skills installed beside it that have a
// customize.toml, by surface (agent, workflow), each with its SKILL.md description and whether the project's
// _bmad/custom/ holds a team or user override for it, as JSON. Paths are not expanded for `~` (no home here).
import { addArgument, createParser, parseArgs } from "./argparse.js";
import { parseToml } from "./config-utils.js";
import type { ScriptContext, ScriptResult } from "./context.js";
import { dumps, PyError, type PyDict, type PyValue } from "./py-json.js";
import { decodeUtf8, isOsError, listDir, readBytes, readText, statPath } from "./py-io.js";
import { joinPath, parentPath, resolvePath } from "./py-path.js";
import { compareCodePoints, isSpace, splitlines, strip } from "./py-str.js";
import { runScript, terminalWidth } from "./process.js";

const SURFACE_KEYS = ["agent", "workflow"] as const;

function parser() {
  const p = createParser(
    "list_customizable_skills.py",
    "List customizable BMad skills installed alongside this one, grouped by surface (agent vs workflow), with override status looked up against {project-root}/_bmad/custom/.",
  );
  addArgument(p, ["--project-root"], { required: true, help: "Absolute path to the project root (the folder containing _bmad/)." });
  addArgument(p, ["--skills-root"], { help: "Override the primary skills directory to scan. Defaults to the directory this script's own skill lives in." });
  addArgument(p, ["--extra-root"], {
    kind: "append",
    defaultValue: [],
    metavar: "PATH",
    help: "Additional skills directory to include (repeatable). Useful when skills live in multiple locations on the same machine (e.g. project-local plus a user-global install).",
  });
  return p;
}

/** FRONTMATTER_RE.match(text)'s group 1, for `^---\s*\n(.*?)\n---\s*\n` (DOTALL), found in one pass: a backtracking
 *  engine tries every newline after the opening dashes with a fresh scan of the rest (quadratic). The body starts
 *  after a newline in the whitespace there, the last one first (`\s*` is greedy); it ends at the first closing at
 *  or after its start: a newline, `---`, then whitespace holding a newline. */
export function frontmatterBody(text: string): string | undefined {
  if (!text.startsWith("---")) return undefined;
  let end = 3;
  while (end < text.length && isSpace(text[end]!)) end++;
  const starts: number[] = [];
  for (let i = 3; i < end; i++) if (text[i] === "\n") starts.push(i + 1);
  const closings: number[] = [];
  for (let at = text.indexOf("\n---"); at >= 0; at = text.indexOf("\n---", at + 1)) {
    // The whitespace after one closing's dashes ends at a non-space, so no two of these runs overlap.
    for (let i = at + 4; i < text.length && isSpace(text[i]!); i++) {
      if (text[i] === "\n") {
        closings.push(at);
        break;
      }
    }
  }
  const last = closings[closings.length - 1];
  for (const start of starts.reverse()) {
    if (last === undefined || last < start) continue;
    return text.slice(start, closings.find((at) => at >= start));
  }
  return undefined;
}

/** read_frontmatter_description: "" when the file is missing, unreadable, or has no description. */
async function description(ctx: ScriptContext, skillMd: string): Promise<string> {
  if ((await statPath(ctx.fs, skillMd)) !== "file") return "";
  let text: string;
  try {
    text = await readText(ctx.fs, skillMd);
  } catch (error) {
    if (isOsError(error) || (error instanceof PyError && error.pyType === "UnicodeDecodeError")) return "";
    throw error;
  }
  const body = frontmatterBody(text);
  if (body === undefined) return "";
  for (const line of splitlines(body)) {
    const stripped = strip(line);
    if (!stripped.startsWith("description:")) continue;
    let value = strip(stripped.slice("description:".length));
    if ((value.startsWith("'") && value.endsWith("'")) || (value.startsWith('"') && value.endsWith('"'))) value = value.slice(1, -1);
    return value;
  }
  return "";
}

/** load_customize: the parsed TOML, or undefined when it cannot be read or parsed. tomllib decodes the bytes itself:
 *  a file that is not UTF-8 escapes as UnicodeDecodeError, as in Python. */
async function loadCustomize(ctx: ScriptContext, path: string): Promise<PyDict | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await readBytes(ctx.fs, path);
  } catch (error) {
    if (isOsError(error)) return undefined;
    throw error;
  }
  try {
    return parseToml(decodeUtf8(bytes));
  } catch (error) {
    if (error instanceof PyError && error.pyType === "TOMLDecodeError") return undefined;
    throw error;
  }
}

async function scanSkills(ctx: ScriptContext, roots: string[], projectRoot: string): Promise<PyDict> {
  const agents: PyValue[] = [];
  const workflows: PyValue[] = [];
  const errors: PyValue[] = [];
  const scanned: PyValue[] = [];
  const seen = new Set<string>();
  const customDir = joinPath(projectRoot, "_bmad", "custom");
  for (const root of roots) {
    if ((await statPath(ctx.fs, root)) !== "dir") {
      errors.push(`skills root does not exist: ${root}`);
      continue;
    }
    scanned.push(root);
    const dirs: string[] = [];
    for (const name of await listDir(ctx.fs, root)) if ((await statPath(ctx.fs, joinPath(root, name))) === "dir") dirs.push(name);
    for (const name of dirs.sort(compareCodePoints)) {
      const skillDir = joinPath(root, name);
      const customizeToml = joinPath(skillDir, "customize.toml");
      if ((await statPath(ctx.fs, customizeToml)) !== "file") continue;
      const data = await loadCustomize(ctx, customizeToml);
      if (!data) {
        errors.push(`failed to parse ${customizeToml}`);
        continue;
      }
      // The first root to have a skill of this name wins.
      if (seen.has(name)) continue;
      seen.add(name);
      const team = joinPath(customDir, `${name}.toml`);
      const user = joinPath(customDir, `${name}.user.toml`);
      const base: Array<[string, PyValue]> = [
        ["name", name],
        ["install_path", skillDir],
        ["skills_root", root],
        ["description", await description(ctx, joinPath(skillDir, "SKILL.md"))],
        ["has_team_override", (await statPath(ctx.fs, team)) === "file"],
        ["has_user_override", (await statPath(ctx.fs, user)) === "file"],
        ["team_override_path", team],
        ["user_override_path", user],
      ];
      const surfaces = SURFACE_KEYS.filter((key) => data.has(key));
      if (!surfaces.length) {
        errors.push(`no [agent] or [workflow] block in ${customizeToml}`);
        continue;
      }
      for (const surface of surfaces) (surface === "agent" ? agents : workflows).push(new Map([...base, ["surface", surface]]));
    }
  }
  return new Map<string, PyValue>([
    ["project_root", projectRoot],
    ["scanned_roots", scanned],
    ["custom_dir", customDir],
    ["agents", agents],
    ["workflows", workflows],
    ["errors", errors],
  ]);
}

export function main(argv: string[], ctx: ScriptContext): Promise<ScriptResult> {
  return runScript(async (out) => {
    const args = parseArgs(parser(), argv, terminalWidth(ctx));
    const projectRoot = await resolvePath(ctx.fs, args.project_root as string, ctx.cwd);
    if ((await statPath(ctx.fs, projectRoot)) !== "dir") {
      out.stderr += `error: project-root does not exist or is not a directory: ${projectRoot}\n`;
      return 2;
    }
    // By default the folder holding this script's skill: {skills_root}/bmad-customize/scripts/list_customizable_skills.py.
    const primary = args.skills_root
      ? await resolvePath(ctx.fs, args.skills_root as string, ctx.cwd)
      : parentPath(parentPath(parentPath(await resolvePath(ctx.fs, ctx.scriptPath ?? "list_customizable_skills.py", ctx.cwd))));
    const roots: string[] = [];
    for (const root of [primary, ...(await Promise.all((args.extra_root as string[]).map((p) => resolvePath(ctx.fs, p, ctx.cwd))))]) {
      if (!roots.includes(root)) roots.push(root);
    }
    out.stdout += `${dumps(await scanSkills(ctx, roots, projectRoot), { indent: 2, sortKeys: true })}\n`;
    return 0;
  });
}
