// Toolset `workspace`: bmad-run, the `uv run ...` lines of BMAD's skills, as written. BMAD's shared
// scripts (_bmad/scripts/*.py) run as TypeScript ports on the project's files; a skill's own scripts run
// for real where there is a machine to run them (the bridge), and elsewhere the answer says where they can.
import { todayWhere } from "../../runtime/time-zone.js";
import * as z from "zod";
import { below, fillInFirst, isRunTimePlaceholder, otherProgram, READ_ONLY_GIT_LINES, readOnlyGitLine, runTimePlaceholderIn, splitCommandLine, takesStamp, unfilledPlaceholders, UNTRACKED_FILES, workTreeDiffPaths } from "../../runtime/command-line.js";
import { gitNotes, withholdUnserved, type DiffSides } from "../git-output.js";
import { BUNDLE_MOUNT, bundleRuntime, CONTRACT_SCRIPT, fromFsText, projectRelative, toFsWord, type ProjectRuntime } from "../../runtime/project.js";
import { SCRIPT_READS, SHARED_SCRIPTS, SKILL_SCRIPTS } from "../../runtime/scripts.js";
import { withBudget } from "../../runtime/budget.js";
import type { GitRunner } from "../../runtime/context.js";
import type { RuntimeFs } from "../../runtime/fs.js";
import { generationFix, runAnswer } from "./run-answer.js";
import { composerNote } from "../composer.js";
import { BASELINE_UNSET, contractToDo } from "../runtime-block.js";
import type { SurfaceDeps } from "../deps.js";
import { BRIDGE, TOOL } from "../names.js";
import { fail, type ToolOutcome } from "../outcome.js";
import { customLayers } from "../render.js";
import { baseName } from "../../runtime/py-path.js";
import { CENTRAL_LAYERS } from "../../runtime/config-utils.js";
import { servedText, type BundleReader } from "../reader.js";
import { answersNamedIn, fillConfigValues, othersLayers, projectConfigValues, renderSkillText, skillRenderFor, withheldLayers } from "../skill-render.js";
import type { CatalogRecord } from "../../catalog/bundle.js";
import { skillUriAsBmad } from "../skills.js";
import { defineTool } from "../tool.js";
import { inAnotherProject, inProject } from "./workspace.tools.js";
import type { Result } from "../../result.js";
import { BMAD_SCHEME } from "../../catalog/paths.js";
import { machineryName, PROJECTS_PREFIX, shellWordRefusal, unicodeForms, WORKSPACES_FS_ROOT } from "../../workspace/paths.js";
import { nearPaths } from "../near-paths.js";
import { suggestion } from "../../catalog/closest.js";

/** The file names of the skill scripts ported for where Python cannot run. */
const PORTED_NAMES = new Set([...SKILL_SCRIPTS.keys()].map((key) => key.slice(key.lastIndexOf("/") + 1)));
/** Options whose values are paths: a placeholder left in one is a step the model skipped. */
const PATH_OPTIONS = new Set(["--workspace", "--path", "--skill", "--project-root"]);
const PROJECT_URI = /bmad:\/\/projects\/([^/\s"']+)/g;

export const bmadRunTool = defineTool({
  name: TOOL.bmadRun,
  toolset: "workspace",
  description:
    "Run a BMAD script line as a skill writes it (uv run {project-root}/_bmad/scripts/memlog.py ...). Returns stdout, stderr and the exit code.",
  input: z.object({
    command: z.string().min(1).max(16 * 1024).describe("The command line, as the skill shows it"),
    project: z.string().max(200).optional().describe("Workspace that is {project-root}, unless the line names bmad://projects/NAME"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  run: (args, deps, signal, call) => runCommand(args.command, args.project, deps, signal, call?.showsView?.(TOOL.bmadBrainstorm) ? composerNote : undefined),
});

export const runTools = [bmadRunTool];

/** Whether the word at `i` keeps a run-time placeholder as written: recon_kit.py's own template (`--pattern
 *  "{topic_slug}-{date}"`, which it fills), or free text a memlog records (`--text "pattern prd-{date}"`) but for the
 *  placeholder alone (review 83: a decision about a folder pattern was refused; every other recon_kit word passed). */
function leftToScript(script: string, args: string[], i: number): boolean {
  const option = (args[i - 1] ?? "").toLowerCase();
  const word = args[i]!;
  if (script.endsWith("/recon_kit.py") && option === "--pattern") return true;
  const freeText = FREE_TEXT.has(option) || [...FREE_TEXT].some((o) => word.startsWith(`${o}=`));
  // `--field date={date}` and `--text {date}` are the placeholder alone: the model's to fill.
  const value = word.replace(/^--[^=]*=/, "").replace(/^[\w.-]+=/, "").trim();
  return freeText && !isRunTimePlaceholder(value);
}
/** memlog.py's options whose values are the user's words. */
const FREE_TEXT = new Set(["--text", "--value", "--field"]);

/** Ported scripts that read a git repository's history. */
const NEEDS_GIT = new Set(["git_evidence.py"]);

// As the render says it (review 79: "names {skill-root}" was looked for, and the render says "this skill's root is").
const SKILL_ROOT_FIX = "it is the skill's own folder, which its rendered text gives in its runtime block (\"this skill's root is …\": a folder here, or a bmad:// URI); for a skill loaded over MCP, its skill:// folder.";

/** Where git and the project's code run instead of in a workspace (review 111: dev-story and code-review stalled on a
 *  refusal that said only what bmad-run runs). */
function notInWorkspace(other: "git" | "code"): string {
  return other === "git"
    ? `${NO_GIT_HERE} Git runs in the user's clone, with the bmad-mcp bridge.`
    : `bmad-run runs BMAD's Python scripts; a workspace runs no code (tests, builds): its files are documents. Code runs on the user's machine, with the bmad-mcp bridge (run_completion_contract runs its checks).`;
}

/** A git line the bridge runs not, `why`, in the project `runtime`. */
async function gitRefusal(why: string, runtime: ProjectRuntime | undefined): Promise<string> {
  return `bmad-run runs BMAD's Python scripts and, of git, read-only lines only (${READ_ONLY_GIT_LINES}); ${why}. Ask the user to run the git command and give you its output: the project is their clone. ${(await contractChecks(runtime)).checks}.`;
}

/** What run_completion_contract does in the project `runtime` as the user set it up, and what they do first where it
 *  would refuse (review 213: the model was sent to a contract certain to refuse; review 455: git's refusal said it ran
 *  with no cc-verify.sh). One wording for every refusal on the bridge that names it. */
async function contractChecks(runtime: ProjectRuntime | undefined): Promise<{ ready: boolean; checks: string }> {
  // No project found: nothing is known of its contract, and nothing is promised (review 461).
  if (!runtime) return { ready: false, checks: `${TOOL.runCompletionContract} runs a project's checks where the user has set it up (its ${CONTRACT_SCRIPT}, and the bridge started with --allow-project-scripts)` };
  const setup = await runtime.completionContract?.();
  const toDo = setup && contractToDo(setup);
  return toDo
    ? { ready: false, checks: `${TOOL.runCompletionContract} runs the project's checks once the user has ${toDo}` }
    : { ready: true, checks: `${TOOL.runCompletionContract} runs the project's checks (tests, build: its ${CONTRACT_SCRIPT})` };
}

/** A workspace's git answers start so; what follows depends on the line (workspaceGitAnswer). */
const NO_GIT_HERE = "bmad-run runs BMAD's Python scripts; a workspace has no git repository.";

/** A git line on a workspace, by what the skill wants of it (review 231: NO_VCS, once advised for every git line, was
 *  recorded as dev-story's baseline and kept on the bridge after a pull; a diff was sent to the documents' history). */
function workspaceGitAnswer(line: string): string {
  const words = line.trim().split(/\s+/);
  const sub = words.slice(1).find((w) => !w.startsWith("-"));
  if (sub === "rev-parse" || sub === "log") return `${NO_GIT_HERE} ${BASELINE_UNSET}`;
  if (sub === "diff") return `${NO_GIT_HERE} Ask the user to run it in their clone and paste the diff, or to run the review on the bmad-mcp bridge.`;
  return notInWorkspace("git");
}

/** The project's code on the bridge (`npm test`, `pytest`), in the project `runtime`: its checks run with
 *  run_completion_contract where the user set that up; else the user runs the line (review 213: the model was sent to a
 *  contract certain to refuse). */
async function codeAnswer(line: string, runtime: ProjectRuntime | undefined): Promise<string> {
  const { ready, checks } = await contractChecks(runtime);
  const notCode = "bmad-run runs BMAD's Python scripts, not the project's code.";
  if (ready) return `${notCode} ${checks}; anything else, ask the user to run and give you its output.`;
  return `${notCode} Ask the user to run \`${line.slice(0, 300)}\` and paste its output. (${checks}.)`;
}

/** A git line on the bridge: one of the read-only lines runs through the project's read-only git (git-readonly.ts:
 *  nothing the repository's config names runs, .git is not written); any other is the user's to run (review 161: a
 *  story in Claude Desktop asked the user four times). */
async function gitAnswer(line: string, project: string | undefined, deps: SurfaceDeps): Promise<ToolOutcome> {
  const asSent = readOnlyGitLine(line);
  // A read-only line with `> FILE` (code-review's `git diff HEAD > {diff_file}`) runs without the redirect, which is
  // not done: nothing is written anywhere, and its output is the answer (review 373: a refusal, the same line again,
  // and advice that wrote the diff into the project's tree).
  const alone = !asSent.ok ? asSent.alone : undefined;
  const parsed = alone === undefined ? asSent : readOnlyGitLine(alone);
  const found = await deps.runtime?.(project, { lazy: true });
  const runtime = found?.ok ? found.runtime : undefined;
  // A project not found is said first (review 461: its refusal promised a contract of no project).
  if (found && !found.ok) return fail(parsed.ok ? found.error : `${found.error}\n${await gitRefusal(parsed.why, undefined)}`);
  if (!parsed.ok) return fail(await gitRefusal(parsed.why, runtime));
  if (!runtime?.git) return fail(await gitRefusal("this bridge has no git runner", runtime));
  const git = runtime.git;
  const dir = runtime.fsRoot;
  const ran = await git({ dir, args: parsed.args });
  if (!ran) return fail(await gitRefusal("git is not installed where the bridge runs", runtime));
  // git's door refused it (a git from the project's folders, a .git leading out): no git ran, so no "exited 128".
  if (ran.refused) return notRun(runtime, ran.refused);
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  const paths = workTreeDiffPaths(parsed.args);
  // What git prints of a file passes the rule bmad-files reads by (review 213: git diff printed .env and a key whole),
  // the working tree's file too where the diff read it (review 216: a hard link to a key outside the project).
  const sides: DiffSides = { blob: blobText(git, dir), ...(paths ? { workTree: await workTreeRead(git, dir, runtime.fs) } : {}) };
  const { text: stdout, withheld } = await withholdUnserved(text(ran.stdout), sides);
  // A diff of the working tree leaves out the files dev-story made: named, as git lists them (review 213).
  const others = paths && ran.exitCode === 0 ? await git({ dir, args: [...UNTRACKED_FILES, ...paths] }) : undefined;
  const untracked = others?.exitCode === 0 ? text(others.stdout).split("\0").filter(Boolean) : [];
  const answer = runAnswer(runtime, "git", { stdout, stderr: text(ran.stderr), exitCode: ran.exitCode });
  const notes = [...(alone === undefined ? [] : [redirectNotDone(alone)]), ...gitNotes(withheld, untracked)];
  return answer.ok && notes.length ? { ...answer, text: `${notes.map((n) => `Note: ${n}`).join("\n")}\n${answer.text}` } : answer;
}

/** Said before the output of a git line sent with `> FILE` and run as `alone`. */
const redirectNotDone = (alone: string): string =>
  `ran as "${alone}": bmad-run writes no file for git, so the redirect was not done and no file was written. Its output is the text after "stdout:" below; keep it in the conversation, where a later step that reads the file (code-review's {diff_file}) reads it instead.`;

/** How bmad-files reads a file of the working tree `git` diffs in `dir`, named from the work tree's top as git names it
 *  (which a repository's core.worktree may put below `dir`): through the project's file system, whose read refuses what
 *  bmad-files refuses. Every file is refused where the top is not known. */
async function workTreeRead(git: GitRunner, dir: string, fs: RuntimeFs): Promise<NonNullable<DiffSides["workTree"]>> {
  const asked = await git({ dir, args: ["rev-parse", "--show-toplevel"] });
  const top = asked?.exitCode === 0 ? new TextDecoder().decode(asked.stdout).trim() : "";
  if (!top) return async () => ({ ok: false, error: "the working tree's folder is not known" });
  return (path) => fs.readFile(below(top, path)).then(
    (data) => ({ ok: true, text: data && new TextDecoder().decode(data) }),
    (error: Error) => ({ ok: false, error: error.message }),
  );
}

/** The text of the blob `id` (hex, as an `index` line gives it) in the repository `git` reads in `dir`, undefined
 *  where it holds none. */
const blobText = (git: GitRunner, dir: string) => async (id: string): Promise<string | undefined> => {
  const ran = await git({ dir, args: ["cat-file", "blob", id] });
  return ran?.exitCode === 0 ? new TextDecoder().decode(ran.stdout) : undefined;
};

/** `composerShown`: where brain.py's composer page is shown as a view instead (ScriptContext). */
async function runCommand(line: string, project: string | undefined, deps: SurfaceDeps, signal?: AbortSignal, composerShown?: (shipped: boolean) => string): Promise<ToolOutcome> {
  // A project folder whose path holds a space, as a render fills it in (unquoted, as BMAD's text has it): taken back as
  // {project-root} before the line is split at its spaces (review 98: every line in "My Proj" failed).
  // So is the root typed in another Unicode form than the disk's (review 313: a Mac's `Cafe\u0301`, typed `Caf\u00e9`),
  // and either with its spaces escaped as a shell takes them (review 321: `Caf\u00e9\ Men\u00fc` was "outside").
  const here = (/\s/.test(line) || /[^\x00-\x7f]/.test(line)) && deps.runtime ? await deps.runtime(project, { lazy: true }) : undefined;
  if (here?.ok) {
    for (const root of unicodeForms(here.runtime.root)) {
      for (const typed of new Set([root.replace(/(\s)/g, "\\$1"), root])) if (typed !== here.runtime.root || /\s/.test(root)) line = line.split(typed).join("{project-root}");
    }
  }
  // Before the shell operators: `git diff HEAD > x` is git, run without its redirect (review 111, 373).
  const other = otherProgram(line);
  if (other === "git" && deps.project !== undefined) return gitAnswer(line, project, deps);
  if (other === "code" && deps.project !== undefined) {
    const found = await deps.runtime?.(project, { lazy: true });
    const answer = await codeAnswer(line, found?.ok ? found.runtime : undefined);
    return fail(found && !found.ok ? `${found.error}\n${answer}` : answer);
  }
  if (other === "git") return fail(workspaceGitAnswer(line));
  if (other) return fail(notInWorkspace(other));
  // `<…>` words are refused below, with the placeholders the line leaves unfilled: one answer names them all.
  const parsed = splitCommandLine(line, deps.workspaces && deps.workspaces.folder === undefined ? "workspace" : "folder");
  if (!parsed.ok) return fail(parsed.error);
  const { templates } = parsed;
  if (!deps.runtime) return fail(templates.length ? fillInFirst([], templates) : "This endpoint has no project to run scripts in.");
  // A run works in one project: a path into another (`--workspace bmad://projects/app@1a2b3c4d/…`) is refused, not
  // taken as a folder of this one.
  const projects = [...new Set([...line.matchAll(PROJECT_URI)].map((m) => m[1]!))];
  if (projects.length > 1) return fail(`The line names ${projects.slice(0, 4).map((p) => `bmad://projects/${p}`).join(" and ")}: a run works in one project; give every path from the same one.`);
  const named = projects[0];
  if (project !== undefined && named !== undefined && named !== project) return fail(`The line names bmad://projects/${named}, and "project" is ${project}: give one of them.`);
  // Not checked first: every file call checks access, and one that finds no project answers below (one round trip less).
  // A line that names a skill (`--skill`) gets `_bmad/` and its customization layers looked up in that one call, and
  // one that names a memlog gets it read there, so that its change needs one call more, not two.
  const skill = parsed.args.includes("--skill") ? parsed.args[parsed.args.indexOf("--skill") + 1] : undefined;
  const at = project ?? named;
  const reads = at === undefined ? [] : (SCRIPT_READS.get(baseName(parsed.script))?.(parsed.args) ?? []).flatMap((word) => {
    // A path still holding a config value (`{implementation_artifacts}/…`) is found only once the line is filled.
    if (unfilledPlaceholders([word]).some((p) => p !== "{project-root}")) return [];
    const path = inProject(at, word);
    return path.ok ? [path.path] : [];
  });
  // A line that leaves config values to fill (`--status-file {implementation_artifacts}/…`) reads the project's config
  // layers and its skill's customization below: asked for in the same first call.
  const configured = unfilledPlaceholders([parsed.script, ...parsed.args]).some((p) => p !== "{project-root}" && p !== "{skill-root}");
  const ownSkill = configured ? skillNameOf(deps.reader, parsed.script) : undefined;
  // The config scripts print what the layers hold: read in the first call too, so that the answer can say whose they are.
  const printsConfig = CONFIG_SCRIPTS.has(baseName(parsed.script));
  const preload = [...new Set([
    ...(skill ? ["_bmad", ...customLayers(baseName(skill))] : []),
    ...(configured || printsConfig ? [...CENTRAL_LAYERS, ...(ownSkill ? customLayers(ownSkill) : [])] : []),
    ...reads,
  ])];
  // A name read from the line picks a workspace; in a project folder the line's own check below answers it better.
  const found = await deps.runtime(project ?? (deps.workspaces?.folder ? undefined : named), { lazy: true, ...(preload.length ? { preload } : {}) });
  // A ported skill script needs no project to read BMAD's own files (brain.py's technique library); one given a project's
  // files (a config value to fill, a file it reads) does, and run without one it found none (review 90: sprint_plan.py
  // status answered that an existing sprint-status.yaml did not exist).
  const ported = PORTED_NAMES.has(baseName(parsed.script));
  const portedAlone = ported && !found.ok && project === undefined && named === undefined && !unfilledPlaceholders([parsed.script, ...parsed.args]).some(isConfigValue) && !SCRIPT_READS.has(baseName(parsed.script)) && !readsProjectFile(parsed.args);
  if (!found.ok && templates.length) return fail(fillInFirst([], templates));
  // Every fix the line needs in one answer (review 77: the project first, then {skill-root} on the next call).
  const skillRootToo = parsed.args.some((a) => a.includes("{skill-root}")) ? ` Also fill in {skill-root}: ${SKILL_ROOT_FIX}` : "";
  if (!found.ok && !portedAlone) return (ported ? undefined : await ownScriptAnswer(deps.reader, parsed.script)) ?? fail(`${found.error}${project ?? named ? "" : await yourProjects(deps)}${skillRootToo}`);
  const runtime = found.ok ? found.runtime : bundleRuntime(() => deps.reader);
  // On the bridge the project is its folder, named as bmad-files names it (the folder's name): its URI, as the tool's
  // description offers, is that folder (review 141: `/p/bmad://projects/p/…` was refused as a path with an empty part).
  const folderUri = found.ok && !runtime.root.startsWith(PROJECTS_PREFIX) ? `${PROJECTS_PREFIX}${baseName(runtime.root)}` : undefined;
  // Each project URI of the line is this folder's whole (a folder name may hold a space: review 142).
  const namesFolder = folderUri !== undefined && [...line.matchAll(PROJECT_URI)].every((m) => line.startsWith(folderUri, m.index));
  if (folderUri && named !== undefined && !namesFolder) {
    return fail(`The line names bmad://projects/${named}, and this project is ${folderUri} (the folder ${runtime.root}): give its paths from ${runtime.root}/ or {project-root}/.`);
  }
  // The only project URI left in the line is this one (the check above), whole: no other begins with it.
  const ownUri = (w: string) => (folderUri ? w.split(folderUri).join(runtime.root) : w);
  // A skill loaded over MCP names its folder skill://NAME ({skill-root}): the same folder as bmad://.
  const fill = (w: string) => ownUri(w.split("{project-root}").join(runtime.root)).replace(/skill:\/\/[^\s"'=]+/g, (uri) => skillUriAsBmad(deps.reader.catalog, uri) ?? uri);
  let script = fill(parsed.script);
  const args = parsed.args.map(fill);

  let skillDir: string | undefined;
  if (script.startsWith("{skill-root}/")) {
    const unique = uniqueSkillFor(deps.reader, script.slice("{skill-root}/".length));
    if (!unique.ok) return fail(unique.error);
    skillDir = unique.dir;
    script = (await runtime.skillRoot(skillDir)) + script.slice("{skill-root}".length);
  } else if (/^scripts\/[^/]+\.py$/.test(script)) {
    const unique = uniqueSkillFor(deps.reader, script);
    if (unique.ok) skillDir = unique.dir;
  }
  // A file loaded after the rendered skill keeps its placeholders (`--file {workflow.brain_methods}`, `--status-file
  // {implementation_artifacts}/…`): the script's own skill fills them as its SKILL.md is rendered, else the project's config.
  if (unfilledPlaceholders([script, ...args]).length) {
    const skill = skillOfScript(deps.reader, script, skillDir);
    const ctx = skill ? await skillRenderFor(deps.reader, runtime, skill) : undefined;
    const config = ctx?.config ?? (await projectConfigValues(deps.reader, runtime));
    script = fillConfigValues(script, config);
    for (const [i, word] of args.entries()) args[i] = ctx ? renderSkillText(word, ctx) : fillConfigValues(word, config);
  }
  // What is left in a path is the model's to fill in: a skill's own script would make a folder named
  // `{doc_workspace}`. Other words go as written (recon_kit.py fills its own `--pattern "{topic_slug}-{date}"`).
  const shared = SHARED_SCRIPTS.has(script.slice(script.lastIndexOf("/") + 1));
  const isPath = (word: string, i: number) => PATH_OPTIONS.has(args[i - 1] ?? "") || (!shared && word.includes("/"));
  const unfilled = [...new Set([...unfilledPlaceholders([script, ...args.filter(isPath)]), ...args.flatMap((w, i) => (leftToScript(script, args, i) ? [] : runTimePlaceholderIn(w) ?? []))])];
  if (unfilled.includes("{skill-root}")) return fail(`Fill in {skill-root}${templates.length ? `, ${templates.join(", ")}` : ""}: ${SKILL_ROOT_FIX}`);
  // Today where the scripts write time: the project's zone (review 147: a UTC date named a folder the memlog dated a day on).
  if (unfilled.length || templates.length) return fail(fillInFirst(unfilled, templates, unfilled.includes("{date}") ? await todayWhere(runtime) : undefined, takesStamp(script, args)));
  // A path a shell would expand (`--out ~/b.html`, `-o $HOME/x.json`) names a folder `~` or `$HOME` here: refused as written,
  // the whole path named, before the script makes the folder (the file systems refuse it too, by its first name alone).
  const expanded = parsed.args.map((w, i) => (isPath(args[i]!, i) ? shellWordRefusal(w.replace(/^--?[\w-]+=/, "")) : undefined)).find(Boolean);
  if (expanded) return fail(expanded);

  const fsScript = resolveScript(deps.reader, runtime, toFsWord(runtime, script));
  const fsArgs = args.map((w) => toFsWord(runtime, w));
  // What is still a bmad: or skill: URI (another project's, BMAD:/…, bmad:/…) is no place here: taken as a relative
  // path, it would become a folder named "bmad:".
  const unreachable = [fsScript, ...fsArgs].map((w) => w.replace(/^--[^=]*=/, "")).find((w) => /^(bmad|skill):/i.test(w));
  if (unreachable) return fail(`${unreachable.slice(0, 200)} is no path this run can reach: give paths from ${runtime.root}/, or BMAD's files as bmad://<module>/….`);
  // A workspace's path into another (`/projects/alpha/…`) is refused as bmad-files refuses one, by its form alone
  // (review 271: it was answered as a skill's script that runs on the bridge).
  if (runtime.root.startsWith(PROJECTS_PREFIX) && fsScript.startsWith(WORKSPACES_FS_ROOT) && !fsScript.startsWith(`${runtime.fsRoot}/`)) {
    return fail(inAnotherProject(fsScript.slice(0, 300), runtime.root.slice(PROJECTS_PREFIX.length)));
  }
  const name = fsScript.slice(fsScript.lastIndexOf("/") + 1);
  const dir = fsScript.slice(0, fsScript.lastIndexOf("/"));
  // The port is chosen by the path as written, so a path is taken only as written plainly: `scripts/./brain.py` or
  // `_bmad//scripts/memlog.py` would miss the port and reach the file itself.
  if (fsScript.split("/").some((s, i) => s === "." || s === ".." || (s === "" && i > 0))) {
    return fail(`${fromFsText(runtime, fsScript).slice(0, 300)} has a ".", ".." or empty part: give the script's path plainly, as the skill names it (${SHARED_SCRIPTS.has(name) ? SHARED_PLACE : "{skill-root}/scripts/"}${name}).`);
  }
  // A ported script runs as the port on every door, over the door's confined file system: a path it is given, in
  // whatever form (`-o/abs`, `-o../x`), is confined by where it runs, and no bytes the model wrote are run.
  const isSkillScript = /\/scripts\/[^/]+\.py$/.test(fsScript);
  const sharedPort = SHARED_SCRIPTS.get(name);
  const port =
    sharedPort && (dir === `${runtime.fsRoot}/_bmad/scripts` || dir === `${BUNDLE_MOUNT}/scripts`) ? sharedPort
    : isSkillScript ? SKILL_SCRIPTS.get(`${dir.slice(0, -"/scripts".length).split("/").pop()}/${name}`)
    : undefined;
  if (port) {
    const bounded = withBudget(runtime.fs);
    // The door refusing to start BMAD's original (brain.py html) is said as that, not as the port's exit (review 364).
    let originalRefused: string | undefined;
    const runOriginal =
      runtime.runSkillScript &&
      (async (a: string[]) => {
        const run = await bounded.budget.offClock(() => runtime.runSkillScript!(fsScript, a, signal, true));
        originalRefused ??= run.refused;
        return run;
      });
    const result = await port(fsArgs, { ...bounded, cwd: runtime.fsRoot, scriptPath: fsScript, git: runtime.git && ((r) => bounded.budget.offClock(() => runtime.git!(r))), ...(runOriginal ? { runOriginal } : {}), ...(composerShown ? { composerShown } : {}), ...zoneOf(runtime), ...pathsInFiles(runtime) });
    const refused = runtime.refused?.();
    if (refused) return fail(refused);
    if (originalRefused) return notRun(runtime, originalRefused);
    const answer = runAnswer(runtime, name, result, false, result.generationChanged === undefined ? undefined : await generationFix(runtime, result.generationChanged));
    // A port that needs git where there is none answers as its Python does; where it can run is said beside it
    // (review 77: the retrospective went on without knowing).
    // A change in someone else's project is named as theirs, once (review 179). Whose lines the files read hold is
    // said of content the model is about to read: a run that failed and wrote nothing shows none (review 474).
    const owner = runtime.changeOwner?.();
    const notes = [...(owner ? [`this run changed files in ${runtime.root}, ${owner}'s project.`] : []), ...(result.nothingWritten ? [] : othersLayers(runtime, answer.ok ? answersNamedIn(runtime, answer.text) : [])), ...withheldLayers(runtime, "This run"), ...(runtime.git ? [] : NEEDS_GIT.has(name) ? [`this workspace has no git repository, so ${name} has no history to measure here; the bmad-mcp bridge, in the user's own clone, runs it on their repository.`] : [])];
    return answer.ok && notes.length ? { ...answer, text: `${notes.map((n) => `Note: ${n}`).join("\n")}\n${answer.text}` } : answer;
  }
  // BMAD's shared scripts are in the project's _bmad/scripts/ alone: one named in a skill's folder is nowhere else.
  if (sharedPort) return fail(sharedElsewhere(fromFsText(runtime, fsScript), name));
  if (isSkillScript) {
    const missing = await scriptNotFound(runtime, fsScript);
    if (missing) return fail(missing);
    if (!runtime.runSkillScript) return needsBridge(deps.reader, fsScript, name);
    const result = await runtime.runSkillScript(fsScript, fsArgs, signal);
    if (result.refused) return notRun(runtime, result.refused);
    return runAnswer(runtime, name, result, true);
  }
  // Any other script is the project's code (`python3 manage.py test`), answered as `pytest` is: one that is there, and
  // not inside tools' machinery (review 286: a file planted in .git/hooks, and one that is nowhere, were "recognised",
  // the user asked to run them).
  const machinery = fsScript.startsWith(`${runtime.fsRoot}/`) ? fsScript.slice(runtime.fsRoot.length + 1).split("/").map(machineryName).find(Boolean) : undefined;
  if (machinery) return fail(`${fromFsText(runtime, fsScript).slice(0, 300)} is inside ${machinery}/, tools' machinery rather than the project's code: nothing there is run or offered to run.`);
  const nowhere = await scriptNotFound(runtime, fsScript);
  if (nowhere) return fail(nowhere);
  return fail(
    `Recognised the script ${fromFsText(runtime, fsScript)}, which is none of BMAD's (its shared scripts, {project-root}/_bmad/scripts/${[...SHARED_SCRIPTS.keys()].join(", ")}, and a skill's own, {skill-root}/scripts/*.py): ${deps.project !== undefined ? await codeAnswer(line, runtime) : notInWorkspace("code")}`,
  );
}

/** The door ran nothing (the script, an argument, the interpreter or git is none it starts): the refusal itself, with
 *  no exit code, so that no one debugs a program that never started (reviews 271, 364). */
const notRun = (runtime: ProjectRuntime, why: string): ToolOutcome => fail(`Not run: ${fromFsText(runtime, why)}`);

/** Scripts whose output is the config and customization layers' values. */
const CONFIG_SCRIPTS = new Set(["resolve_config.py", "resolve_customization.py"]);

/** The times a port writes are in the project's time zone, where the runtime has one (a workspace). */
const zoneOf = (runtime: ProjectRuntime) => (runtime.timeZone ? { timeZone: runtime.timeZone } : {});

/** Where the project's root is a place only here (a workspace's), the paths a port writes into files go relative to it. */
const pathsInFiles = (runtime: ProjectRuntime) => (runtime.root !== runtime.fsRoot ? { pathInFile: (path: string) => projectRelative(runtime, path) } : {});

/** A skill's own script named without a project (`{skill-root}/scripts/x.py`, or by its bmad:// or skill:// URI):
 *  where it runs needs no project. */
async function ownScriptAnswer(reader: BundleReader, script: string): Promise<ToolOutcome | undefined> {
  const uri = script.startsWith("skill://") ? skillUriAsBmad(reader.catalog, script) : script;
  if (uri?.startsWith(BMAD_SCHEME) && !uri.startsWith(PROJECTS_PREFIX) && /\/scripts\/[^/]+\.py$/.test(uri)) {
    const rel = uri.slice(BMAD_SCHEME.length);
    if (reader.catalog.file(rel)) return needsBridge(reader, `${BUNDLE_MOUNT}/${rel}`, rel.slice(rel.lastIndexOf("/") + 1));
  }
  const rel = script.startsWith("{skill-root}/") ? script.slice("{skill-root}/".length) : /^scripts\/[^/]+\.py$/.test(script) ? script : undefined;
  if (!rel?.startsWith("scripts/")) return undefined;
  const skill = uniqueSkillFor(reader, rel);
  return skill.ok ? needsBridge(reader, `${BUNDLE_MOUNT}/${skill.dir}/${rel}`, rel.slice("scripts/".length)) : undefined;
}

/** The caller's workspaces, for a line that names none: the one they mean is likely among them. */
/** Whether an argument is a path in a project (`_bmad-output/…/.memlog.md`, `sprint-status.yaml`), not BMAD's own file
 *  (`bmad://…`, `{skill-root}/…`, `{workflow.brain_methods}`): review 93, recon_kit.py and lint_spine.py run with no
 *  project said the project's files did not exist. */
function readsProjectFile(args: string[]): boolean {
  return args.some((word, i) => {
    // Where a script writes is no file it reads (brain.py's `html --out page.html` answers where that runs).
    if (OUTPUT_OPTIONS.has(args[i - 1] ?? "") || /^--out(put)?=/.test(word)) return false;
    const path = word.replace(/^--?[\w-]+=/, "");
    return (path.includes("/") || /\.[A-Za-z]{1,5}$/.test(path)) && !/^(bmad|skill):\/\/|^\{(skill-root|workflow\.)/i.test(path);
  });
}
const OUTPUT_OPTIONS = new Set(["-o", "--out", "--output"]);

/** A placeholder a project's config fills (`{implementation_artifacts}`), not the skill's own (`{workflow.x}`, {skill-root}). */
const isConfigValue = (placeholder: string) => placeholder !== "{project-root}" && placeholder !== "{skill-root}" && !placeholder.startsWith("{workflow.");

async function yourProjects(deps: SurfaceDeps): Promise<string> {
  const projects = (await deps.workspaces?.projects())?.map((p) => p.project) ?? [];
  return projects.length ? ` Yours: ${projects.slice(0, 20).join(", ")}.` : "";
}

/** The name of the skill a script line's script belongs to (`{skill-root}/scripts/x.py`, `…/bmad-x/scripts/x.py`). */
function skillNameOf(reader: BundleReader, script: string): string | undefined {
  const rel = script.startsWith("{skill-root}/") ? script.slice("{skill-root}/".length) : undefined;
  if (rel === undefined) return /([^/]+)\/scripts\/[^/]+$/.exec(script)?.[1];
  const unique = uniqueSkillFor(reader, rel);
  return unique.ok ? baseName(unique.dir) : undefined;
}

/** The skill a script belongs to: by its bundle folder, else by its folder's name (an installed copy). */
function skillOfScript(reader: BundleReader, script: string, bundleDir?: string): CatalogRecord | undefined {
  const dir = bundleDir ?? script.replace(/\/scripts\/[^/]+$/, "");
  const name = dir.slice(dir.lastIndexOf("/") + 1);
  const skills = [...reader.catalog.list("workflow"), ...reader.catalog.list("agent")].filter((r) => r.skill);
  return skills.find((r) => r.entry === `${dir}/SKILL.md`) ?? skills.find((r) => r.entry.endsWith(`/${name}/SKILL.md`));
}

/** Where BMAD's shared scripts are, as the skills name them. */
const SHARED_PLACE = "{project-root}/_bmad/scripts/";
const sharedElsewhere = (script: string, name: string) =>
  `${script.slice(0, 300)} is not where ${name} is: it is BMAD's shared script, in the project's _bmad/scripts/ and in no skill's folder. Give it as the skills do: uv run ${SHARED_PLACE}${name} …`;

/** A bare `scripts/x.py` resolves from the skill root (BMAD's convention); a relative `_bmad/...` from the project,
 *  as does one written from the project root (`./_bmad/...`, as bmad-files takes `./x`), and a shared script named
 *  alone (`memlog.py append …`, as a step file may) from the project's `_bmad/scripts/`. */
function resolveScript(reader: BundleReader, runtime: ProjectRuntime, script: string): string {
  if (script.startsWith("/")) return script;
  if (script.startsWith("./")) return `${runtime.fsRoot}/${script.replace(/^(?:\.\/+)+/, "")}`;
  if (script.startsWith("_bmad/")) return `${runtime.fsRoot}/${script}`;
  if (SHARED_SCRIPTS.has(script)) return `${runtime.fsRoot}/_bmad/scripts/${script}`;
  const skill = uniqueSkillFor(reader, script);
  return skill.ok ? `${BUNDLE_MOUNT}/${skill.dir}/${script}` : `${runtime.fsRoot}/${script}`;
}

/** The one bundle skill folder holding `rel` (e.g. scripts/brain.py), as a bundle directory. */
function uniqueSkillFor(reader: BundleReader, rel: string): Result<{ dir: string }> {
  const dirs = reader.catalog.paths.filter((p) => p.endsWith(`/${rel}`)).map((p) => p.slice(0, -rel.length - 1));
  const skills = dirs.filter((d) => reader.catalog.file(`${d}/SKILL.md`));
  if (skills.length === 1) return { ok: true, dir: skills[0]! };
  if (skills.length) return { ok: false, error: `${rel} is in several skills (${skills.join(", ")}): give the skill's root instead of {skill-root}.` };
  const name = rel.slice(rel.lastIndexOf("/") + 1);
  return { ok: false, error: SHARED_SCRIPTS.has(name) ? sharedElsewhere(`{skill-root}/${rel}`, name) : `No skill has ${rel}: give the script's full path.` };
}

/** Why a skill-shaped script cannot run because it is nowhere, neither in BMAD's files nor in the project, with the
 *  closest names there; undefined where it exists, or where its path is refused or elsewhere (the run answers that).
 *  Said on every door (review 265: a misspelt memlg.py was answered as a script the bridge would run; it fails there). */
async function scriptNotFound(runtime: ProjectRuntime, fsScript: string): Promise<string | undefined> {
  // Only where `fs` holds all there is: a path elsewhere (the bridge's skill cache) is the run's to judge.
  if (![runtime.fsRoot, BUNDLE_MOUNT].some((top) => fsScript.startsWith(`${top}/`))) return undefined;
  const kind = await runtime.fs.stat(fsScript).catch(() => undefined);
  if (kind !== "missing") return undefined;
  // A name there that is no file the run may read (a link out of the project): the run says why, not "no script".
  const slash = fsScript.lastIndexOf("/");
  const names: string[] = await runtime.fs.list(fsScript.slice(0, slash) || "/").catch(() => []);
  if (names.includes(fsScript.slice(slash + 1))) return undefined;
  const refused = runtime.refused?.();
  if (refused) return refused;
  const near = await nearPaths(asFolders(runtime.fs), fsScript, 3).catch(() => []);
  return `No script ${fromFsText(runtime, fsScript).slice(0, 300)}: it is neither one of BMAD's nor a file of the project.${suggestion(near.map((p) => fromFsText(runtime, `/${p}`)))}`;
}

/** `fs` as nearPaths walks folders: by paths from its root, without the leading slash. */
function asFolders(fs: RuntimeFs): Parameters<typeof nearPaths>[0] {
  return {
    stat: async (path) => ({ ok: true, value: await fs.stat(`/${path}`) }),
    children: async (dir) => ({ ok: true, value: await fs.list(`/${dir}`) }),
  };
}

/** A skill's own script where nothing can run it: say where it runs, and quote the skill's own fallback. */
async function needsBridge(reader: BundleReader, fsScript: string, name: string): Promise<ToolOutcome> {
  const bundleDir = fsScript.startsWith(`${BUNDLE_MOUNT}/`) ? fsScript.slice(BUNDLE_MOUNT.length + 1).replace(/\/scripts\/[^/]+$/, "") : undefined;
  const fallback = bundleDir ? await skillFallback(reader, bundleDir, name) : undefined;
  return fail(
    `${name} is the skill's own Python script: it runs on the bmad-mcp bridge in your project (\`${BRIDGE.command}\`, ${BRIDGE.from}), not on this server. ` +
      (fallback ? `The skill's fallback: "${fallback}"` : "The skill gives no fallback for it: do that step by hand as the skill's text describes."),
  );
}

/** How skills say what to do when a script cannot run ("On failure, read … directly and use defaults", "If the
 *  content was pasted or the script cannot run, estimate"). */
const FALLBACK = /\b(on failure|if [^.]{0,60}(?:fails|cannot run|can't run|is unavailable|is not available|isn't available)|fallback|fall back)\b/i;

async function skillFallback(reader: BundleReader, bundleDir: string, script: string): Promise<string | undefined> {
  const { catalog } = reader;
  const texts: string[] = [];
  for (const path of catalog.paths.filter((p) => p.startsWith(`${bundleDir}/`) && p.endsWith(".md"))) texts.push(await servedText(reader, catalog.file(path)!));
  return findFallback(texts, script);
}

/** What a skill's files say to do when `script` cannot run: the sentence on a line of its that names it, else the
 *  first paragraph of a section of its own ("## If the Script Fails"). */
export function findFallback(texts: string[], script: string): string | undefined {
  const files = texts.map((text) => text.split("\n"));
  for (const line of files.flat()) {
    if (!line.includes(script)) continue;
    const sentence = line.split(/(?<=\.)\s+/).find((s) => FALLBACK.test(s));
    if (sentence) return sentence.trim().slice(0, 400);
  }
  for (const lines of files) {
    const heading = lines.findIndex((line) => /^#+ /.test(line) && FALLBACK.test(line));
    const paragraph = heading < 0 ? undefined : lines.slice(heading + 1).find((line) => line.trim() && !line.startsWith("#"));
    if (paragraph) return paragraph.trim().slice(0, 400);
  }
  return undefined;
}

