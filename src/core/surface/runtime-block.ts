// The short block in front of a rendered skill: what was substituted, and how this server carries out
// the lines BMAD's text asks for (`uv run ...`, `skill:NAME`, files under {project-root}).
import { READ_ONLY_GIT_LINES, runsStampDate, stampedIn, todayHint, uvRunScripts, type Stamped } from "../runtime/command-line.js";
import { CONTRACT_SCRIPT, type ContractSetup } from "../runtime/project.js";
import { dumps } from "../runtime/py-json.js";
import { selectKeys } from "../runtime/resolve-config.js";
import { SHARED_SCRIPTS, SKILL_SCRIPTS } from "../runtime/scripts.js";
import { isOneLine } from "../lines.js";
import { BRIDGE, TOOL } from "./names.js";
import { workspaceFsRoot } from "../workspace/paths.js";
import { customValueLine, type SkillRender } from "./skill-render.js";

/** Where files under {project-root} are read and written: a workspace by name (with, for bmad-help, the skills it may
 *  recommend that run on the bridge, and the /mcp URL the bridge pulls it from), or the local project (with, for a
 *  skill that works on code, how far its completion contract is set up). */
export type FilesAccess = { kind: "workspace"; project: string; bridgeSkills?: CodeSkill[]; pullFrom?: string } | { kind: "local"; contract?: ContractSetup };

/** A skill with steps on code: all of it, or only the flows (`flows`) its entry loads a file for by intent. */
export interface CodeSkill {
  name: string;
  flows?: Array<{ flow: string; file: string }>;
}

/** bmad-help's lines on the skills it may recommend that work on code: wholly the bridge's, or but for a flow. */
function bridgeSkillLines(skills: CodeSkill[]): string[] {
  const whole = skills.filter((s) => !s.flows).map((s) => s.name);
  const parts = skills.flatMap((s) => (s.flows ? `${s.name} runs here but for its ${s.flows.map((f) => `"${f.flow}" flow (${f.file})`).join(" and ")}` : []));
  return [
    ...(whole.length ? [`- ${whole.join(", ")} have steps on code (git, builds, tests), which run on the bmad-mcp bridge in the user's clone, not here: say so when you recommend one.`] : []),
    ...(parts.length ? [`- ${parts.join("; ")}: ${skills.flatMap((s) => s.flows ?? []).length > 1 ? "those have" : "it has"} steps on code, which run on the bmad-mcp bridge in the user's clone: say so when you recommend it.`] : []),
  ];
}

/** What the skill's files name from the scripts a render marks as run, and which the rendered text does not show:
 *  given in the runtime block, or the line is left to run (review 132: bmad-deep-recon's references named seven
 *  `{workflow.*}` values and bmad-help's `modules.bmm.project_knowledge`, none of them given). */
export interface LaterValues {
  /** `{workflow.preset}` and the like that files loaded later name and no rendered text filled in: [key, value]. */
  custom: Array<[string, string]>;
  /** Config keys the skill's files name bare (`modules.bmm.project_knowledge`, bmad-help.csv's `planning_artifacts`),
   *  then, where room is left, those files loaded later name braced (`{planning_artifacts}`). */
  config: string[];
  /** The keys the skill's own resolve_customization lines in files loaded later ask for (`--key workflow.on_complete`),
   *  with what the script prints for each: [key, printed]. */
  resolved: Array<[string, string]>;
  /** Whether they all fit in the block; where they do not, the script's line is not marked run. */
  customGiven: boolean;
  configGiven: boolean;
  /** Whether a file loaded later, or a value given for one, asks for today's date (asksDate). */
  dated: boolean;
  /** Whether a file loaded later has the model write sprint-status.yaml's last_updated (writesLastUpdated). */
  lastUpdated: boolean;
  /** Whether a file loaded later runs a script whose --date takes a stamp (runsStampDate). */
  stampsDate: boolean;
  /** Whether a file loaded later keeps scratch files in the system temp directory (keepsScratchInTemp). */
  tempScratch: boolean;
}

export const NOTHING_LATER: LaterValues = { custom: [], config: [], resolved: [], customGiven: true, configGiven: true, dated: false, lastUpdated: false, stampsDate: false, tempScratch: false };

/** The block's heading, by which a served render finds it (earlier-work.ts adds a line, withToday its date). */
export const BLOCK_HEADING = "## Running this skill here\n";
/** Whether a text asks for today's date: `{date}`, as the model fills it in (bmad-run refuses `{{date}}` and `{DATE}`
 *  too), or in words (review 183: create-story's "Update last_updated field to current date"). */
export const asksDate = (text: string): boolean => /\{date\}|\bcurrent date\b|\btoday's date\b/i.test(text);
/** Whether a text has the model write sprint-status.yaml's last_updated (create-story's and dev-story's "Update
 *  last_updated field to current date", code-review's step-04): its form is the file's, not one the text gives. */
export const writesLastUpdated = (text: string): boolean => /\blast_updated\b/.test(text) && /sprint[-_]status/.test(text);
/** Whether a text keeps a scratch file in the system temp directory (code-review's and bmad-build's {diff_file}). */
const keepsScratchInTemp = (text: string): boolean => text.includes("{diff_file}") || text.includes("system temp directory");
/** Whether a text has the model record the commit its code work starts from, or NO_VCS where git is unavailable
 *  (dev-story's step 4); one that only reads a recorded one (walkthrough's baseline_commit) needs no word. */
const recordsBaseline = (text: string): boolean => /\bNO_VCS\b/.test(text);

/** Where a workspace is asked for a commit to record: in the words of bmad-run's refusal of `git rev-parse` (review
 *  231: NO_VCS was recorded as dev-story's baseline and kept on the bridge after a pull). */
export const BASELINE_UNSET = "Leave the commit a skill records (baseline_commit) unset here, not NO_VCS: the bmad-mcp bridge, in the user's clone, records the real one.";
/** Scratch text BMAD puts in the system's temp folder, which bmad-files does not reach; a step hands it on by its path
 *  (review 213: code-review's reviewers read {diff_file}, which keeping it in the conversation left them without); kept
 *  till the workflow ends (review 231: code-review's later steps read the diff again). */
export const SCRATCH_ADVICE = `Keep the scratch text (a diff, a claims list) in the conversation. Where a step hands it on by its path (code-review's {diff_file}), write it with ${TOOL.bmadFiles} to a file under {implementation_artifacts}, give that file's full path, and delete it when the workflow ends.`;

/** Longest a value given for files loaded later is, and each kind's all together: past them the script prints them
 *  (review 136: a collaborator's 26 config keys made the block 10 KB). */
const MAX_LATER_VALUE = 300;
const MAX_LATER_VALUES = 1024;
/** A customization value the block can give for files loaded later: one line, short. */
const givenInBlock = (value: string) => value.length <= MAX_LATER_VALUE && isOneLine(value);
const fits = (pairs: Array<[string, string]>) => pairs.reduce((n, [k, v]) => n + k.length + v.length, 0) <= MAX_LATER_VALUES;

/** `rendered`: the rendered files' own text (before rendering); `later`: the text of the skill's files loaded later. */
export function laterValues(ctx: SkillRender, rendered: string[], later: string[]): LaterValues {
  const filled = new Set(rendered.flatMap((text) => [...text.matchAll(CUSTOM_KEY)].map((m) => m[1]!)));
  // A later resolve_customization line of the skill's own (create-epics' step-04: `--key workflow.on_complete`, review
  // 139) is said to be run, with what it prints: given as a value, it was still passed to bmad-run with its {skill-root}
  // (review 265: refused, then sent again filled in).
  const asked = [...new Set(later.flatMap((text) => askedKeys(text, ctx)))];
  const printed = asked.flatMap((key): Array<[string, string]> => {
    const answer = printedFor(ctx, key);
    return answer === undefined ? [] : [[key, answer]];
  });
  const resolved = fits(printed) ? printed : [];
  const named = new Set(later.flatMap((text) => [...text.matchAll(CUSTOM_KEY)].map((m) => m[1]!)));
  const values = [...named]
    .filter((key) => ctx.customization.has(key.slice(0, key.indexOf("."))))
    .flatMap((key): Array<{ pair: [string, string]; shownAbove: boolean }> => {
      const value = customValueLine(ctx, key);
      if (value === undefined) return [];
      // A value the rendered text filled in stands there without its name: named again for the files that use it.
      // A list or table (review 143: architecture's reviewer gate names {workflow.finalize_reviewers}, a list SKILL.md
      // shows inlined), pointed to where it is long; a short scalar (review 170: bmad-prd's validate.md names
      // {workflow.validation_checklist_template}, a path) where room is left, as the text above has it already.
      if (filled.has(key) && /^[[{]/.test(value)) return [{ pair: [key, value.length <= 20 ? value : "(inlined in the skill's text)"], shownAbove: false }];
      if (filled.has(key)) return givenInBlock(value) ? [{ pair: [key, value], shownAbove: true }] : [];
      return [{ pair: [key, value], shownAbove: false }];
    });
  const pairs = values.map((v) => v.pair);
  const custom = fits(pairs) ? pairs : values.filter((v) => !v.shownAbove).map((v) => v.pair);
  const bare = (text: string) => [...text.matchAll(BARE_NAME)].filter((m) => !m[1] && m[2]!.includes("_") && ctx.config.has(m[2]!)).map((m) => m[2]!);
  const config = [...new Set([...rendered, ...later].flatMap(bare))];
  const configPairs = (keys: string[]) => keys.map((key): [string, string] => [key, ctx.config.get(key)!]);
  const configGiven = config.every((key) => givable(ctx.config.get(key)!)) && fits(configPairs(config));
  // A config key a file loaded later names braced, which rendering filled in everywhere it showed (review 470:
  // sprint-planning's SKILL.md step 4 read "Resolve `BMad`, …, `bmad://projects/shop/_bmad-output/planning-artifacts`",
  // then readiness-gate.md said scan `{planning_artifacts}`): named with its value where room is left. Not needed to
  // mark the config line run (bmad-files and bmad-run fill them in paths), so one that does not fit leaves it marked.
  const braced = [...new Set(later.flatMap((text) => [...text.matchAll(BRACED_NAME)].map((m) => m[1]!)))]
    .filter((key) => !config.includes(key) && ctx.config.has(key) && givable(ctx.config.get(key)!));
  const withBraced = [...config, ...braced];
  return {
    custom,
    config: configGiven ? (fits(configPairs(withBraced)) ? withBraced : config) : [],
    resolved,
    customGiven: custom.every(([, v]) => givenInBlock(v)) && fits(custom) && resolved.length === asked.length,
    configGiven,
    dated: later.some(asksDate) || custom.some(([, v]) => asksDate(v)),
    lastUpdated: later.some(writesLastUpdated),
    stampsDate: later.some(runsStampDate),
    tempScratch: later.some(keepsScratchInTemp),
  };
}

const PLACEHOLDER_KEY = /^[A-Za-z][A-Za-z0-9_]*$/;
const CUSTOM_KEY = /\{((?:workflow|agent)\.[A-Za-z0-9_.-]+)\}/g;
/** A key a later resolve_customization line asks for: each `--key` after the script's name in one code span or line
 *  (askedKeys). */
const ASKED_KEY = /--key ((?:workflow|agent)\.[A-Za-z0-9_-]+)/g;
/** The longest a script's printed answer given for it is. */
const MAX_PRINTED = 300;
const RESOLVE_CUSTOMIZATION = "resolve_customization.py ";
/** A word, as a key's name; group 1 is the brace of a `{placeholder}`, which rendering, bmad-files and bmad-run fill in. */
const BARE_NAME = /(\{?)(\w+)/g;
/** A config key as a `{placeholder}` names it. */
const BRACED_NAME = /\{([A-Za-z][A-Za-z0-9_]*)\}/g;
/** A config value the block gives: one line (a config file written by hand may hold a line break), and short. */
const givable = (value: string) => value.length <= MAX_LATER_VALUE && isOneLine(value) && !value.includes("`");

/** What some file of the skill does (its reference files too: brainstorming's finalize hands work to a subagent). */
export interface SkillTraits { delegates: boolean; worksOnCode: boolean; namesSkills: boolean }
const NO_TRAITS: SkillTraits = { delegates: false, worksOnCode: false, namesSkills: true };

// Memory is an opt-in toolset: named for the connections that have it (withoutMemoryLine), never a reason to stop and ask.
const MEMORY_LINE = `- Project memory, if you have ${TOOL.rememberStructured}: remember decisions and learnings with it; ${TOOL.recallStructured} and ${TOOL.getFailureMuseum} find earlier ones. Without them, go on.`;

/** A served render as a connection sees it (`has`: whether it has a tool; unknown: it keeps all): without the memory
 *  tools, the block's line naming them costs every render (bmad, bmad-workflow and prompts/get alike: review 410). */
export const forConnection = (text: string, has: ((tool: string) => boolean) | undefined): string =>
  has?.(TOOL.rememberStructured) === false ? text.replace(`\n${MEMORY_LINE}`, "") : text;

/** `today`: where the skill's text asks for it (asksDate), today's date and time as todayWhere says them. */
export function runtimeBlock(ctx: SkillRender, files: FilesAccess, renderedTexts: string[], later = NOTHING_LATER, traits = NO_TRAITS, today?: string): string {
  const scripts = new Set<string>();
  for (const text of renderedTexts) for (const script of uvRunScripts(text)) scripts.add(script);
  // Said where to run: a shared script with a line left to run (one marked already run needs no word).
  const toRun = new Set(renderedTexts.flatMap((text) => uvRunScripts(text.split("\n").filter((line) => !line.includes(RUN_MARK)).join("\n"))));
  const shared = [...scripts].filter((s) => SHARED_SCRIPTS.has(s) && toRun.has(s));
  // A ported one (brain.py, sprint_status.py) runs as its port on both doors; the rest need the bridge, which runs them
  // with Python (review 213: the bridge's block said a ported one needed Python).
  const folder = ctx.skillRoot.slice(ctx.skillRoot.lastIndexOf("/") + 1);
  const ownHere = [...scripts].filter((s) => SKILL_SCRIPTS.has(`${folder}/${s}`));
  const own = [...scripts].filter((s) => !SHARED_SCRIPTS.has(s) && !ownHere.includes(s));
  // Where the resolve_customization line is left to run, the values files loaded later need come from it, not from
  // below (review 224: "filled in below" beside a line to run, which a literal model ran anyway).
  const customToRun = ctx.customization.size > 0 && !customMarked(renderedTexts);
  const lines = [
    BLOCK_HEADING.trimEnd(),
    `- The project root is \`${ctx.projectRoot}\` and this skill's root is \`${ctx.skillRoot}\` (bare paths in its files are relative to it). ${customToRun ? "They and the config values" : "They, the config values and the customization values"} are filled in below. Files you load later keep their placeholders: ${configNames(ctx.config, later.config)}bmad-files and bmad-run fill config values in paths${customToRun ? "; their `{workflow.*}` values come from the resolve_customization.py line, run as written" : customNames(later)}.`,
  ];
  // In the words of bmad-run's and bmad-files' refusal of a path or line holding it: the first write is right (review
  // 170: correct-course's sprint-change-proposal-{date}.md cost a refused call).
  if (today !== undefined) lines.push(`- ${todayHint(today, stampFor(renderedTexts, later))}.`);
  if (later.resolved.length) lines.push(`- In files you load later, ${later.resolved.map(([key, printed]) => `\`resolve_customization.py … --key ${key}\` is already run here: it printed ${printed}`).join("; ")}.`);
  if (scripts.size) {
    lines.push(
      `- Run each \`uv run …\` line${renderedTexts.some((t) => t.includes(RUN_MARK)) ? " not marked already run" : ""} with the ${TOOL.bmadRun} tool, exactly as written: {"command": "<the line>"${files.kind === "workspace" ? `, "project": "${files.project}"` : ""}}.` +
        (shared.length ? ` ${shared.join(", ")}: BMAD's shared scripts, run here on the project's files.` : "") +
        (ownHere.length ? ` ${ownHere.join(", ")}: this skill's own, ported to run here.` : "") +
        (own.length ? ` ${own.join(", ")}: this skill's own, run by the bmad-mcp bridge (Python).` : ""),
    );
  }
  lines.push(
    files.kind === "workspace"
      ? // Renders and scripts here see the root as this path, and write it into files (review 247): named once.
        `- Files in the project: ${TOOL.bmadFiles} with "project": "${files.project}" and the path inside it (read, write, append, list); \`${workspaceFsRoot(files.project)}/X\` in a file is the project's \`X\`.`
      : // No name to give: the folder's may not be {project_name} (review 248: a pulled folder's config says the workspace's).
        `- Files in the project: your own file tools, or ${TOOL.bmadFiles} with the path inside it and no "project".`,
    MEMORY_LINE,
  );
  // A workspace's name too: through a linked bridge, a call with none renders for the user's folder (review 205). Said
  // only where the skill names another (review 224: code-review names none, and its setup was over budget).
  if (traits.namesSkills) lines.splice(lines.length - 1, 0, `- \`skill:NAME\` or "invoke the bmad-NAME skill": call ${TOOL.bmad} with {"command": "*NAME"${files.kind === "workspace" ? `, "project": "${files.project}"` : ""}} (an agent: "NAME").`);
  // The one tool named like it queues work on a delivery session: a skill's subagent is not that (review 127).
  // A skill's own way without subagents first (review 213: code-review's step-02 writes the reviewers' prompts for the
  // user to run elsewhere).
  if (traits.delegates) lines.push(`- Subagent work: to your own subagents if you have them; else the skill's way without them where it gives one, or do it yourself, in turn (${TOOL.spawnSubagentTask} is for bmad-task sessions).`);
  // Said up front: a literal model otherwise spent 20 calls planning a change it could not build or test (review 151).
  if (traits.worksOnCode) lines.push(codeWorkLine(files, folder, renderedTexts.some(recordsBaseline)));
  // bmad-files reaches no temp folder: said before the write it would refuse (review 435: code-review's {diff_file}).
  if (files.kind === "workspace" && (later.tempScratch || renderedTexts.some(keepsScratchInTemp))) lines.push(`- Nothing here reaches the system temp directory, where the skill keeps scratch files. ${SCRATCH_ADVICE}`);
  if (files.kind === "workspace" && files.bridgeSkills?.length) lines.push(...bridgeSkillLines(files.bridgeSkills));
  // On a workspace nothing opens a page for the user; bmad-brainstorming's composer page is a view, where the host shows views.
  if (files.kind === "workspace" && renderedTexts.some((t) => t.includes("xdg-open"))) {
    const composer = renderedTexts.some((t) => t.includes("brain-selector.html"))
      ? ` The brainstorming composer page: if your tools include ${TOOL.bmadBrainstorm}, call it instead (the host shows the page, and its Copy prompt sends the user's choice to you as their message).`
      : "";
    lines.push(`- Nothing here opens a page or file for the user (\`open\`, \`xdg-open\`).${composer} Otherwise, where the skill offers a way in chat, take it.`);
  }
  for (const note of ctx.notes) lines.push(`- Note: ${note}`);
  return lines.join("\n");
}

/** Where a code skill's git, tests and builds run (review 213: on the bridge a literal model sent git and `npm test` to
 *  tools that refused them, then ran a contract the project did not have). On a workspace, the whole loop in the
 *  user's clone, each command as typed (review 299: the pull alone was named, not how to get bmad-mcp nor the push that
 *  brings the story back), and that a story goes to review or done only on the user's word or board click (review 231:
 *  dev-story's story was called done here); in-progress as its work starts, as dev-story says (review 435: "move a
 *  story only when the user says" read as contradicting its step 4). `baseline`: the skill records a baseline commit. */
function codeWorkLine(files: FilesAccess, skill: string, baseline: boolean): string {
  if (files.kind === "workspace") return `- This workspace holds documents, not code: steps on code, git, builds, tests run in the user's clone. Say so before one, with the loop (B: \`${BRIDGE.command}\`, ${BRIDGE.from}): \`B pull --remote ${files.pullFrom ?? "<this server's /mcp URL>"} --project ${files.project}\`, ${skill} with B as MCP server, \`B push\` (same arguments) sends changes back. Never say code work was done here: a story may go in-progress as its work starts, and to review or done only when the user says its code work in the clone is done.${baseline ? ` ${BASELINE_UNSET}` : ""}`;
  // How the user sets up the contract is bmad-run's answer to a test line, not every render's (context is paid for).
  const checks = files.contract && !contractToDo(files.contract)
    ? `tests and builds: ${TOOL.runCompletionContract} runs this project's checks (its ${CONTRACT_SCRIPT})`
    : "tests and builds: ask the user to run them and paste the output";
  return `- Code work: git's read-only lines (${READ_ONLY_GIT_LINES}) run with ${TOOL.bmadRun}, as written; any other git, the user runs; ${checks}.`;
}

/** The stamp the block's date line gives the form of: a script's --date where the skill runs one (review 435:
 *  sprint-planning's status line was refused for it), else sprint-status.yaml's last_updated where the model writes it. */
function stampFor(renderedTexts: string[], later: LaterValues): Stamped | undefined {
  if (later.stampsDate || renderedTexts.some(runsStampDate)) return "--date";
  return later.lastUpdated || renderedTexts.some(writesLastUpdated) ? "last_updated" : undefined;
}

/** What the user does before run_completion_contract runs the project's checks; undefined where it runs them. */
export function contractToDo(setup: ContractSetup): string | undefined {
  const steps = [
    ...(setup.script ? [] : [`created ${CONTRACT_SCRIPT} (a script that exits 0 when the work is complete; no tool writes one)`]),
    ...(setup.allowed ? [] : ["started the bridge with --allow-project-scripts (in the MCP client's config)"]),
  ];
  return steps.length ? steps.join(" and ") : undefined;
}

/** A served render with today's date and time in its block's line for `{date}` (and last_updated's stamp, where the
 *  line gives it), which a kept render holds as of when it was made; `text` itself where the block has no such line. */
export function withToday(text: string, today: string): string {
  const at = todayAt(text);
  if (at === undefined) return text;
  const start = at - TODAY_LINE.length;
  const end = text.indexOf("\n", at);
  const line = text.slice(start, end < 0 ? undefined : end);
  return `${text.slice(0, start)}\n- ${todayHint(today, stampedIn(line))}.${end < 0 ? "" : text.slice(end)}`;
}

/** Whether the block gives today's date and time: an answer holding it is not kept. */
export const givesToday = (text: string): boolean => todayAt(text) !== undefined;

/** Where the date and time in the block's line for `{date}` start; undefined where the block has none. */
function todayAt(text: string): number | undefined {
  const block = text.indexOf(BLOCK_HEADING);
  if (block < 0) return undefined;
  const end = text.indexOf("\n\n", block);
  const line = text.slice(block, end < 0 ? undefined : end).indexOf(TODAY_LINE);
  return line < 0 ? undefined : block + line + TODAY_LINE.length;
}
/** The line's words before the date. */
const TODAY_LINE = `\n- ${todayHint("\0").split("\0")[0]}`;

/** The skill's own resolve_customization.py line for a table this render filled in (`--key workflow`), marked as run:
 *  the runtime block says to run the other `uv run` lines, and a literal model would run this one too. */
export function markResolved(text: string, ctx: SkillRender, later = NOTHING_LATER): string {
  return text
    // Each `uv run` span, judged whole: a pattern running `[^`\n]*` to the line's end from every script name was
    // quadratic in a hostile line (review 223).
    .replace(/`uv run [^`\n]*`/g, (span) => {
      if (!span.includes(RESOLVE_CUSTOMIZATION)) return span;
      const key = / --key (\S+)`$/.exec(span)?.[1];
      if (key === undefined || !span.includes(` --skill ${ctx.skillRoot} `)) return span;
      if (ctx.customization.has(key)) return later.customGiven ? `${span}${ALREADY_RUN}` : span;
      // One field of a table this render resolved (`--key workflow.on_complete`, create-story's last step): what the
      // script prints, given here (review 90: a literal model spent a call on it).
      const printed = printedFor(ctx, key);
      return printed !== undefined ? `${span}${RUN_MARK}: it printed ${printed})` : span;
    })
    // A module's config.yaml to load: the render filled its values in throughout (review 107: a literal model read it
    // again in every skill, and the config.user.yaml beside it that none has).
    .replace(/`([^`\n]*\/_bmad\/[\w-]+\/config\.yaml)`( \(\+ `config\.user\.yaml` if present\))?/g, (span, path: string) => (later.configGiven && path.startsWith(`${ctx.projectRoot}/`) ? `${span}${CONFIG_READ}` : span))
    // The central config's values a render fills in throughout (`From the merged JSON resolve {user_name}, …`); a line
    // for another part of it (`--key agents`, the roster) is left to run (review 98: 2.7 KB a literal model read again).
    .replace(/`uv run [^`\n]*resolve_config\.py --project-root (\S+)( --key core)?`/g, (span, root: string) => (later.configGiven && root === ctx.projectRoot ? `${span}${ALREADY_RUN}` : span))
    // "Replace `{project-root}` with the absolute path …": rendered, the paths are filled in already, and the line runs
    // as written (review 77: the two read as contradicting each other).
    .replace(PATHS_PHRASE_LINE, markPathsFilled);
}

/** A line holding "Replace `X` with the absolute path", and the phrase in it. */
const PATHS_PHRASE_LINE = /^.*Replace `[^`\n]+` with the absolute path.*$/gm;
const PATHS_PHRASE = /Replace `[^`\n]+` with the absolute path/g;
/** What follows a phrase up to its sentence's end: words and whole code spans (a path's dots are no end). */
const TO_SENTENCE_END = /^(?:[^.:`]|`[^`]*`)*/;

/** Each phrase of a line marked done at its sentence's end (its first "." or ":" outside code spans), looked for only
 *  up to the next phrase: one pattern that looked to the line's end from every phrase took seconds for a config value
 *  of 140 KB, minutes for a 1 MB line of a project's own skill (review 223). */
function markPathsFilled(line: string): string {
  const phrases = [...line.matchAll(PATHS_PHRASE)];
  let out = "";
  let from = 0;
  phrases.forEach((phrase, i) => {
    const after = phrase.index + phrase[0].length;
    const until = phrases[i + 1]?.index ?? line.length;
    const end = after + TO_SENTENCE_END.exec(line.slice(after, until))![0].length;
    if (end < until && (line[end] === "." || line[end] === ":")) {
      out += line.slice(from, end) + PATHS_FILLED;
      from = end;
    }
  });
  return out + line.slice(from);
}

/** The `--key` values of the skill's own resolve_customization lines (`--skill {skill-root}`, or its root filled in): a
 *  key after the script's name in one code span or line, each span looked at once (review 223: one pattern from the
 *  name to the line's end, at every name, was quadratic). */
function askedKeys(text: string, ctx: SkillRender): string[] {
  return text.split(/[`\n]/).flatMap((span) => {
    const at = span.indexOf(RESOLVE_CUSTOMIZATION);
    if (at < 0 || !(span.includes(" --skill {skill-root} ") || span.includes(` --skill ${ctx.skillRoot} `))) return [];
    return [...span.slice(at).matchAll(ASKED_KEY)].map((m) => m[1]!);
  });
}

/** What resolve_customization.py prints for one field of a table this render resolved (`workflow.on_complete`), where
 *  it is short enough to give in its stead. */
function printedFor(ctx: SkillRender, key: string): string | undefined {
  if (!key.includes(".") || !ctx.customization.has(key.slice(0, key.indexOf(".")))) return undefined;
  const printed = dumps(selectKeys(ctx.customization, [key]), { ensureAscii: false });
  return printed.length <= MAX_PRINTED ? printed : undefined;
}

const PATHS_FILLED = " (done here: the paths below are filled in; run the line as written)";

const RUN_MARK = " (already run here";
const CONFIG_READ = " (read here: its values are filled in throughout)";
const ALREADY_RUN = `${RUN_MARK}: its values are filled in throughout)`;

/** The config values that are words, not paths, as files loaded later name them: rendering erased the names. Then
 *  those the skill's files name bare (`modules.bmm.project_knowledge`), paths too: nothing fills those in; and those
 *  files loaded later name braced, whose names rendering erased where the text above showed them. */
function configNames(config: Map<string, string>, named: string[]): string {
  // Only a key that can be a placeholder: one a config file names otherwise is that file's text, which could write
  // this block's own lines (review 144: a key holding "\n\n## Running this skill here\n- Note: …").
  const words = [...config].filter(([k, v]) => PLACEHOLDER_KEY.test(k) && v && !v.includes("/") && v.length <= 40 && givable(v)).slice(0, 8);
  const given = [...words, ...named.filter((k) => !words.some(([w]) => w === k)).map((k): [string, string] => [k, config.get(k)!])];
  // Quoted: a value is the project's text, never this block's own words (review 60: "Olivia; skip review" read as such).
  return given.length ? `${given.map(([k, v]) => `{${k}} is ${JSON.stringify(v)}`).join(", ")}; ` : "";
}

/** Whether the skill's resolve_customization line is marked run. Only markResolved writes this after the line's key;
 *  looked for alone, in linear time (review 223). */
const customMarked = (renderedTexts: string[]) => renderedTexts.some((t) => /--key (?:workflow|agent)` \(already run here/.test(t));

/** The `{workflow.*}` values files loaded later name, given here once the script's line is marked run. */
function customNames(later: LaterValues): string {
  const tables = [...new Set(later.custom.map(([key]) => key.slice(0, key.indexOf("."))))];
  return tables.map((table) => `; their \`{${table}.*}\` values: ${later.custom.filter(([k]) => k.startsWith(`${table}.`)).map(([k, v]) => `${k.slice(table.length + 1)} = ${v}`).join(", ")}`).join("");
}

/** For a skill served without a project: it writes files, and this is how to get somewhere to write them. */
export function noWorkspaceBlock(command: string): string {
  return `## Where this skill writes\nThis skill reads its project's config (_bmad/) and writes files in the project ({project-root}), and no project is given. Use the user's project: ${TOOL.bmadProject} {"action": "list"} shows them, and {"action": "create", "name": "my-app"} makes one. Then call ${TOOL.bmad} with {"command": "${command}", "project": "<name>"}. (On your machine, the bmad-mcp bridge uses your project folder.)`;
}

/** The file generated into every skill served over MCP (SKILL.md stays as BMAD wrote it): what the runtime
 *  block says for a rendered skill, for a client that loads the raw files itself. */
export const SKILL_RUNTIME_FILE = "bmad-mcp-runtime.md";

export const SKILL_RUNTIME_TEXT = `# Running BMAD skills on bmad-mcp

Generated by the bmad-mcp server, the same in every skill it serves; the skill's other files are exactly as BMAD ships them. This is how to do here what they ask for.

- \`{skill-root}\` is this skill's folder: its SKILL.md URI without "/SKILL.md" (for skill://bmad-prd/SKILL.md, \`skill://bmad-prd\`). Bare paths in the skill resolve from it; read its files with resources/read.
- \`{project-root}\` is the user's project. With the bmad-mcp bridge it is the project folder: use your own file tools, or ${TOOL.bmadFiles} with the path inside it and no "project". On a remote bmad-mcp server it is a workspace: create one with ${TOOL.bmadProject} {"action": "create", "name": "my-app"} (or pick one from {"action": "list"}), write \`bmad://projects/my-app\` for \`{project-root}\`, and read and write its files with ${TOOL.bmadFiles} {"project": "my-app", ...}.
- \`uv run …\` lines: run each with the ${TOOL.bmadRun} tool, as written but with \`{skill-root}\` filled in as above: {"command": "<the line>"}. On the bridge \`{project-root}\` may stay as written. BMAD's shared scripts (${[...SHARED_SCRIPTS.keys()].join(", ")}) run here on the project's files; a skill's own scripts (scripts/*.py) run on the bridge, and brain.py, lint_spine.py, pick_methods.py, recon_kit.py, resolve_party.py, resolve_personas.py and word_metrics.py here too.
- Config values the skill names ({user_name}, {planning_artifacts}, ...) are in \`{project-root}/_bmad/<module>/config.yaml\`; customization (\`{workflow.*}\`, \`{agent.*}\`) is what resolve_customization.py prints; a skill's own \`customize.toml\` is read at its bmad:// URI (for skill://bmad-prd, bmad://bmm/bmad-prd/customize.toml), as configs are served, without secret-looking keys.
- \`skill:NAME\` or "invoke the NAME skill": load skill://NAME/SKILL.md the same way, or call ${TOOL.bmad} with {"command": "*NAME"}.
`;
