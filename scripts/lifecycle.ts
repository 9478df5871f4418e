// BMAD's planning lifecycle as a literal model walks it: create a project, then bmad-product-brief, bmad-prd (Create,
// to status: final), bmad-ux, bmad-architecture (a spine lint_spine.py passes), bmad-create-epics-and-stories,
// bmad-sprint-planning (sprint_plan.py), bmad-create-story for the first story, then bmad-code-review up to finding its
// target (the diff is git's, in the user's clone) and bmad-retrospective of epic 1 (sprint_status.py). One script for two doors: the MCP
// calls of a client with nothing else (test/node/lifecycle.test.ts, and the context bench), and what BMAD in Claude
// Code reads for the same path in an installed project (the bench's native baseline, scripts/lifecycle-doors.ts).
// Every `uv run` line comes from the text the skill shows, with only the model's own placeholders filled in.
import * as answers from "./lifecycle-answers.js";

export const PLAN = "_bmad-output/planning-artifacts";
export const IMPL = "_bmad-output/implementation-artifacts";

export type Phase = "brief" | "prd" | "ux" | "architecture" | "epics" | "sprint" | "story" | "review" | "retro";
export const PHASES: Phase[] = ["brief", "prd", "ux", "architecture", "epics", "sprint", "story", "review", "retro"];

/** One call the model made, and the bytes of its answer the model reads. */
export interface Entry {
  phase: Phase | "setup";
  call: string;
  bytes: number;
}

/** How a phase found an earlier phase's output: listed in the skill's text (with its status), or by a search. */
export interface Found {
  phase: Phase;
  path: string;
  how: "listed" | "search";
  status?: string;
}

export interface RunResult {
  exit: number;
  stdout: string;
  text: string;
}

/** Where the model works: the remote's MCP tools, or Claude Code's files and shell in an installed project. */
export interface Door {
  /** What `{project-root}` is in the text the skill shows. */
  readonly root: string;
  readonly ledger: Entry[];
  phase: Phase | "setup";
  /** The skill as the model first reads it. */
  skill(name: string): Promise<string>;
  /** A skill's own file, by its path from the skill's root. */
  load(skill: string, path: string): Promise<string>;
  read(path: string): Promise<string>;
  write(path: string, content: string): Promise<void>;
  /** One `uv run …` line. */
  run(line: string): Promise<RunResult>;
  /** Where an earlier phase's output is, when the skill's text does not say: a search. */
  search(path: string): Promise<void>;
  /** The status the skill's text gives `path` when it lists it (undefined: not listed). */
  listed(text: string, path: string): string | undefined;
}

export interface Lifecycle {
  date: string;
  /** Each phase's outputs, project-relative. */
  outputs: Record<Phase, string[]>;
  found: Found[];
  /** Every `uv run` line run, as sent, with its exit code. */
  runs: Array<{ phase: Phase | "setup"; line: string; exit: number; stdout: string }>;
}

/** Every `uv run …` line in a text, a line continued with `\` kept whole. */
export function uvLines(text: string): string[] {
  return [...text.matchAll(/uv run (?:[^`\n\\]|\\\n|\\(?!\n))+/g)].map((m) => m[0].trim());
}

/** The one line `text` shows that matches `pattern`. */
export function shown(text: string, pattern: RegExp): string {
  const line = uvLines(text).find((l) => pattern.test(l));
  if (!line) throw new Error(`the skill shows no uv run line matching ${pattern}`);
  return line;
}

/** The line as written, with the model's placeholders filled: the run folder, <choices>, "…" and <named> values. */
export function fill(line: string, values: { workspace?: string; type?: string; text?: string; fields?: Record<string, string>; epicFile?: string; date?: string }): string {
  let out = line;
  if (values.workspace) out = out.replaceAll("{doc_workspace}", values.workspace);
  if (values.type) out = out.replace(/--type <[^>]*>/, `--type ${values.type}`);
  if (values.text) out = out.replace(/--text "(<[^>]*>|…)"/, `--text "${values.text}"`);
  for (const [field, value] of Object.entries(values.fields ?? {})) out = out.replace(new RegExp(`--field ${field}="(<[^>]*>|…)"`), `--field ${field}="${value}"`);
  if (values.epicFile) out = out.replace(/--epic-file <path> \[--epic-file <path> \.\.\.\]/, `--epic-file ${values.epicFile}`);
  if (values.date) out = out.replaceAll("{date}", values.date);
  const left = /\{doc_workspace\}|<[^>\s]*>|"…"/.exec(out);
  if (left) throw new Error(`the model left ${left[0]} in: ${out}`);
  return out;
}

type Step = (d: Door, l: Lifecycle) => Promise<void>;

/** Runs `line`; a non-zero exit stops the model, as it would stop a user. */
async function run(d: Door, l: Lifecycle, line: string): Promise<RunResult> {
  const result = await d.run(line);
  l.runs.push({ phase: d.phase, line, exit: result.exit, stdout: result.stdout });
  if (result.exit !== 0) throw new Error(`${line}\nexited ${result.exit}: ${result.text}`);
  return result;
}

/** The earlier phases' outputs this skill needs: listed in its text, or searched for; then read. */
async function inputs(d: Door, l: Lifecycle, text: string, paths: string[]): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const path of paths) {
    const status = d.listed(text, path);
    l.found.push(status === undefined ? { phase: d.phase as Phase, path, how: "search" } : { phase: d.phase as Phase, path, how: "listed", status });
    if (status === undefined) await d.search(path);
    texts.set(path, await d.read(path));
  }
  return texts;
}

/** A line the rendered text marks as already run (its values are filled in): a literal model skips it. */
const ALREADY_RUN = "` (already run here";

/** The line shown that `pattern` finds, run unless the text says it ran. */
async function runUnlessRan(d: Door, l: Lifecycle, text: string, pattern: RegExp): Promise<void> {
  const line = shown(text, pattern);
  if (!text.includes(`${line}${ALREADY_RUN}`)) await run(d, l, line);
}

/** Step 1 of every 6.12 skill: resolve customization with the line shown, unless the text says it ran. */
const resolveCustomization = (d: Door, l: Lifecycle, text: string) => runUnlessRan(d, l, text, /resolve_customization\.py .*--key workflow$/);

/** Activation, the same in most 6.12 skills: resolve customization, load the module's config. */
async function activate(d: Door, l: Lifecycle, text: string): Promise<void> {
  await resolveCustomization(d, l, text);
  // Unless the text says it was read, its values filled in (the remote's and the bridge's renders).
  if (!/config\.yaml`[^\n]*\(read here/.test(text)) await d.read("_bmad/bmm/config.yaml");
}

const at = (d: Door, path: string) => `${d.root}/${path}`;

export const brief: Step = async (d, l) => {
  const text = await d.skill("bmad-product-brief");
  await activate(d, l, text);
  await d.load("bmad-product-brief", "assets/brief-template.md");
  const ws = `${PLAN}/briefs/brief-todo-${l.date}`;
  await d.write(`${ws}/brief.md`, answers.brief("draft", l.date));
  await run(d, l, fill(shown(text, /memlog\.py init .*--field topic=/), { workspace: at(d, ws), fields: { topic: answers.PRODUCT } }));
  const append = shown(text, /memlog\.py append .*--type <decision/);
  await run(d, l, fill(append, { workspace: at(d, ws), type: "decision", text: answers.USER.brainDump }));
  await d.write(`${ws}/brief.md`, answers.brief("final", l.date));
  l.outputs.brief = [`${ws}/brief.md`];
};

export const prd: Step = async (d, l) => {
  const text = await d.skill("bmad-prd");
  await activate(d, l, text);
  await inputs(d, l, text, l.outputs.brief);
  // Create: earlier runs not final are offered for resume; a listing of the project's artifacts already says there are none.
  if (!l.found.some((f) => f.phase === "prd" && f.how === "listed")) await d.search(`${PLAN}/prds`);
  await d.load("bmad-prd", "assets/prd-template.md");
  const ws = `${PLAN}/prds/prd-todo-${l.date}`;
  await d.write(`${ws}/prd.md`, answers.prd("draft", l.date));
  await run(d, l, fill(shown(text, /memlog\.py init .*--field topic=/), { workspace: at(d, ws), fields: { topic: answers.PRODUCT } }));
  const append = shown(text, /memlog\.py append .*--type <decision/);
  await run(d, l, fill(append, { workspace: at(d, ws), type: "decision", text: answers.USER.decisions[0] }));
  await run(d, l, fill(append, { workspace: at(d, ws), type: "assumption", text: answers.USER.decisions[1] }));
  await d.write(`${ws}/prd.md`, answers.prd("final", l.date));
  await run(d, l, fill(shown(text, /--text "PRD finalized"/), { workspace: at(d, ws) }));
  l.outputs.prd = [`${ws}/prd.md`];
};

export const ux: Step = async (d, l) => {
  const text = await d.skill("bmad-ux");
  await activate(d, l, text);
  await inputs(d, l, text, l.outputs.prd);
  const ws = `${PLAN}/ux-designs/ux-todo-${l.date}`;
  await run(d, l, fill(shown(text, /memlog\.py init .*--field topic=/), { workspace: at(d, ws), fields: { topic: answers.PRODUCT } }));
  await d.write(`${ws}/DESIGN.md`, answers.design("draft", l.date));
  await d.write(`${ws}/EXPERIENCE.md`, answers.experience("draft", l.date));
  await run(d, l, fill(shown(text, /memlog\.py append .*--type <decision/), { workspace: at(d, ws), type: "decision", text: "calm, plain, one accent colour" }));
  await d.write(`${ws}/DESIGN.md`, answers.design("final", l.date));
  await d.write(`${ws}/EXPERIENCE.md`, answers.experience("final", l.date));
  await run(d, l, fill(shown(text, /--text "spines finalized"/), { workspace: at(d, ws) }));
  l.outputs.ux = [`${ws}/DESIGN.md`, `${ws}/EXPERIENCE.md`];
};

export const architecture: Step = async (d, l) => {
  const text = await d.skill("bmad-architecture");
  await resolveCustomization(d, l, text);
  await runUnlessRan(d, l, text, /resolve_config\.py/);
  await inputs(d, l, text, [...l.outputs.prd, ...l.outputs.ux]);
  await d.load("bmad-architecture", "assets/spine-template.md");
  const ws = `${PLAN}/architecture/architecture-todo-${l.date}`;
  await d.write(`${ws}/ARCHITECTURE-SPINE.md`, answers.spine("draft", l.date));
  await run(d, l, fill(shown(text, /memlog\.py init /), { workspace: at(d, ws), fields: answers.USER.architecture }));
  const append = shown(text, /memlog\.py append .*--type <decision/);
  await run(d, l, fill(append, { workspace: at(d, ws), type: "decision", text: "layered; only storage touches IndexedDB" }));
  // Finalize: the reviewer gate's file, whose deterministic pass is lint_spine.py.
  const gate = await d.load("bmad-architecture", "references/reviewer-gate.md");
  await d.write(`${ws}/ARCHITECTURE-SPINE.md`, answers.spine("final", l.date));
  const lint = await run(d, l, fill(shown(gate, /lint_spine\.py/), { workspace: at(d, ws) }));
  if (!(JSON.parse(lint.stdout) as { ok: boolean }).ok) throw new Error(`lint_spine.py found problems: ${lint.stdout}`);
  await run(d, l, fill(append, { workspace: at(d, ws), type: "event", text: "spine finalized" }));
  l.outputs.architecture = [`${ws}/ARCHITECTURE-SPINE.md`];
};

export const epics: Step = async (d, l) => {
  const skill = "bmad-create-epics-and-stories";
  const text = await d.skill(skill);
  await activate(d, l, text);
  await d.load(skill, "steps/step-01-validate-prerequisites.md");
  const wanted = [...l.outputs.prd, ...l.outputs.architecture, ...l.outputs.ux];
  await inputs(d, l, text, wanted);
  await d.load(skill, "templates/epics-template.md");
  const out = `${PLAN}/epics.md`;
  await d.write(out, answers.epics(wanted));
  for (const step of ["step-02-design-epics.md", "step-03-create-stories.md", "step-04-final-validation.md"]) await d.load(skill, `steps/${step}`);
  l.outputs.epics = [out];
};

/** sprint_plan.py's --date: `MM-DD-YYYY HH:MM`, the format its staleness check parses. */
const sprintDate = (date: string) => `${date.slice(5, 7)}-${date.slice(8, 10)}-${date.slice(0, 4)} 09:00`;

export const sprint: Step = async (d, l) => {
  const skill = "bmad-sprint-planning";
  const text = await d.skill(skill);
  await activate(d, l, text);
  await d.load(skill, "references/readiness-gate.md");
  await inputs(d, l, text, l.outputs.epics);
  const generate = await d.load(skill, "references/generate-tracking.md");
  const line = fill(shown(generate, /sprint_plan\.py generate/), { epicFile: at(d, l.outputs.epics[0]!), date: sprintDate(l.date) });
  const report = JSON.parse((await run(d, l, line)).stdout) as { ok: boolean };
  if (!report.ok) throw new Error(`sprint_plan.py generate: ${JSON.stringify(report)}`);
  l.outputs.sprint = [`${IMPL}/sprint-status.yaml`];
};

export const story: Step = async (d, l) => {
  const skill = "bmad-create-story";
  const text = await d.skill(skill);
  await activate(d, l, text);
  const read = await inputs(d, l, text, [...l.outputs.sprint, ...l.outputs.epics]);
  await d.load(skill, "template.md");
  const status = read.get(l.outputs.sprint[0]!)!;
  const key = /^ {2}(\d+-\d+-[a-z0-9-]+): backlog$/m.exec(status)?.[1];
  if (key !== "1-1-add-a-todo") throw new Error(`the first backlog story in sprint-status.yaml is ${key}`);
  const out = `${IMPL}/${key}.md`;
  await d.write(out, answers.story());
  await d.write(l.outputs.sprint[0]!, status.replace(`  ${key}: backlog`, `  ${key}: ready-for-dev`).replace("  epic-1: backlog", "  epic-1: in-progress"));
  const onComplete = shown(text, /--key workflow\.on_complete$/);
  if (!text.includes(`${onComplete}${ALREADY_RUN}`)) await run(d, l, onComplete);
  l.outputs.story = [out];
};

/** Step 1 of code review, on documents alone: its Tier 3 looks in sprint status for a story in review. What follows
 *  (writing the diff) is git's, in the user's clone: the model stops here on both doors. */
export const review: Step = async (d, l) => {
  const skill = "bmad-code-review";
  const text = await d.skill(skill);
  await activate(d, l, text);
  await d.load(skill, "steps/step-01-gather-context.md");
  await inputs(d, l, text, l.outputs.sprint);
  l.outputs.review = [];
};

/** Epic 1's retrospective without git evidence (none here): detect the epic, read its story, load each phase's
 *  reference, write the document, mark the retro done with sprint_status.py. */
export const retro: Step = async (d, l) => {
  const skill = "bmad-retrospective";
  const text = await d.skill(skill);
  await activate(d, l, text);
  if (!/core\/config\.yaml`[^\n]*\(read here/.test(text)) await d.read("_bmad/core/config.yaml");
  const detect = JSON.parse((await run(d, l, shown(text, /detect-epic .*--epic <N>/).replace("<N>", "1"))).stdout) as { pending_stories?: string[] };
  if (detect.pending_stories?.[0] !== "1-1-add-a-todo") throw new Error(`detect-epic: ${JSON.stringify(detect)}`);
  await inputs(d, l, text, [...l.outputs.epics, ...l.outputs.story]);
  for (const ref of ["evidence-gathering.md", "aggregate-views.md", "acceptance-verdict.md"]) await d.load(skill, `references/${ref}`);
  const finalize = await d.load(skill, "references/retro-document.md");
  const out = `${IMPL}/epic-1-retro-${l.date}.md`;
  await d.write(out, answers.retro(l.date));
  const update = shown(finalize, /sprint_status\.py update[^]*--set-retro-done/)
    .replaceAll("{{epic_number}}", "1")
    .replace(/--add-action '[^']*'/, `--add-action '[{"action":"Build story 1-1 on the bridge","owner":"Ada"}]'`)
    .replace(/--verdict "<[^"]*>"/, '--verdict "rejected"')
    .replace('--date "{date}"', `--date "${sprintDate(l.date)}"`);
  const report = JSON.parse((await run(d, l, fill(update, { date: l.date }))).stdout) as { ok: boolean; retro_key_found?: boolean };
  if (!report.ok || !report.retro_key_found) throw new Error(`sprint_status.py update: ${JSON.stringify(report)}`);
  l.outputs.retro = [out];
};

export const STEPS: Record<Phase, Step> = { brief, prd, ux, architecture, epics, sprint, story, review, retro };

/** Walks the phases in order, up to and including `until` (or the phases listed), on a project the door already has. */
export async function walk(d: Door, until: Phase | Phase[] = "story", date = new Date().toISOString().slice(0, 10)): Promise<Lifecycle> {
  const phases = Array.isArray(until) ? until : PHASES.slice(0, PHASES.indexOf(until) + 1);
  const l: Lifecycle = { date, outputs: { brief: [], prd: [], ux: [], architecture: [], epics: [], sprint: [], story: [], review: [], retro: [] }, found: [], runs: [] };
  for (const phase of phases) {
    d.phase = phase;
    await STEPS[phase](d, l);
  }
  return l;
}
