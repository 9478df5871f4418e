// Role prompts for delivery stages (seed 003), built to be followed literally: the stage skill's headless
// mode where it ships one, the parts of the skill that carry its substance, the agent's persona in brief,
// the earlier artifacts' content and the submit contract. At most STAGE_PROMPT_BYTES; larger files are links.
import type { CatalogRecord } from "../catalog/bundle.js";
import { enginesFor, nextStage, PIPELINE, stageSpec, type StageSpec } from "./pipeline.js";
import { formatFinding } from "./rubric.js";
import { openRejection, SPECS_DIR, type SessionState } from "./session.js";
import type { BundleReader } from "../surface/reader.js";
import { artifactUri } from "../surface/resources.js";
import { stageMethodText } from "./stage-method.js";
import { allot, byteLength, escapeClosing, parseSprints, quoted, quoteOverhead, STAGE_PROMPT_BYTES, truncateBytes } from "./stage-inputs.js";
import { stagePersona } from "./stage-persona.js";
import { stageRender } from "./stage-context.js";
import type { SkillRender } from "../surface/skill-render.js";
import { TOOL } from "../surface/names.js";

/** Where a stage's earlier documents are read from: the session store, and the project the session saves in. */
export interface StageSources {
  /** Stored content by its ref: drafts, and the copy of each artifact as the user confirmed it. */
  content(ref: string): Promise<string | undefined>;
  /** Its name as bmad-files takes it, and the runtime block's line naming its files from the phases before `record`'s. */
  project?: { name: string; earlierWork(record: CatalogRecord): Promise<string | undefined> };
}

function firstFound(reader: BundleReader, kind: "agent" | "workflow", names: string[]): CatalogRecord | undefined {
  for (const name of names) {
    const found = reader.catalog.resolve(kind, name);
    if (found.ok) return found.record;
  }
  return undefined;
}

interface Flexible {
  kind: "artifact" | "refine";
  title: string;
  text: string;
  rest: string;
  weight: number;
}

/** How a prompt is sent. `draftSent`: it answers the submit of the stage's draft, which the model has; it is not quoted
 *  back (a 46 KB submit was answered with 5 KB of itself: review 291). `followUp`: it answers the model's own step in
 *  the session, which has had every earlier answer. A status call or a resume elsewhere gets the prompt whole. */
export interface Sending {
  draftSent?: boolean;
  followUp?: boolean;
}

export async function rolePrompt(reader: BundleReader, state: SessionState, sources?: StageSources, { draftSent = false, followUp = false }: Sending = {}): Promise<string> {
  const spec = stageSpec(state.current_stage);
  const record = state.stages[state.current_stage];
  const refining = record.iteration > 0;
  // A stage's later refines send only the refine block: the rest is as its first refine sent it, word for word (30
  // submits answered with 229 KB of the same 6.5 KB: review 329). Nor is the previous draft quoted again.
  const refineOnly = followUp && record.iteration > 1;
  const agent = firstFound(reader, "agent", spec.agents);
  const workflow = firstFound(reader, "workflow", spec.workflows);
  const contexts = new Map<CatalogRecord, Promise<SkillRender>>();
  const render = (r: CatalogRecord) => {
    if (!contexts.has(r)) contexts.set(r, stageRender(reader, r, state));
    return contexts.get(r)!;
  };
  const ctx = workflow ? await render(workflow) : undefined;

  const header = [
    `# BMAD delivery, stage ${PIPELINE.indexOf(spec) + 1}/${PIPELINE.length}: ${spec.title}`,
    `Task: ${state.task_name}.`,
    `Engines: ${enginesFor(spec, state.objective).join(" + ")}.`,
  ];
  const language = ctx?.config.get("communication_language");
  const docLanguage = ctx?.config.get("document_output_language");
  if (language && docLanguage) header.push(`Speak ${language} with the user; write documents in ${docLanguage}.`);
  // The user's words, quoted as every other text of theirs: raw, an objective holding "## Output" read as the server's
  // own section in every stage's prompt (review 464).
  header.push(quoted("The objective", state.objective, 1500, "The user gave it whole when the session started."));

  // Not read for a refine block alone, which leaves them out.
  const persona = refineOnly ? "" : agent ? await stagePersona(reader, agent, await render(agent)) : `## Role\n${spec.role}`;
  const project = sources?.project && !refineOnly ? { name: sources.project.name, files: workflow ? await sources.project.earlierWork(workflow) : undefined } : undefined;
  const session = sessionRules(spec, state, ctx?.projectRoot ?? `bmad://sessions/${state.session_id}`, project);
  const method = (lean: 0 | 1 | 2) => stageMethodText(reader, spec, workflow, render, refining, lean);

  // Flexible parts: the user's answers, the previous draft, the earlier artifacts.
  const flexible: Flexible[] = [];
  const refineLines: string[] = [];
  if (refining) {
    refineLines.push(`## Refine (iteration ${record.iteration + 1})`, `Previous score: ${record.score ?? "none"}${spec.gate.kind === "score" ? ` (gate ${spec.gate.min})` : ""}.${record.gaps?.length ? "" : " Gaps: none."}`);
    if (record.gaps?.length) refineLines.push(quoted("The gaps and assumptions you noted", record.gaps.map((g) => `- ${g}`).join("\n"), 1200, "The rest are in the session's gaps."));
    if (record.findings?.length) {
      refineLines.push(`By the stage's rubric the draft lacks (with the points each is worth): ${truncateBytes(record.findings.map(formatFinding).join("; "), 1500)}.`);
    }
    const rejections = state.history.filter((h) => h.stage === state.current_stage).reverse();
    if (openRejection(state)) refineLines.push("The user rejected your last draft: revise it to answer their reason below, keeping what they did not object to.");
    if (rejections.length) {
      const reasons = rejections.map((h) => `- ${h.file}${h.score !== undefined ? ` (score ${h.score})` : ""}: ${h.reason}`).join("\n");
      flexible.push({ kind: "refine", title: "Why the user rejected drafts (newest first)", text: reasons, rest: "The user gave the rest in this conversation.", weight: 4 });
    }
    const questions = new Map((record.questions ?? []).map((q) => [q.id, q.question]));
    const answers = Object.entries(record.answers ?? {}).map(([id, a]) => `- ${id}: ${a}${questions.has(id) ? ` (asked: ${questions.get(id)})` : ""}`);
    if (answers.length) flexible.push({ kind: "refine", title: "The user's answers", text: answers.join("\n"), rest: "The user gave them in this conversation.", weight: 3 });
    const quoteDraft = !draftSent && !refineOnly;
    const draft = quoteDraft && record.final_result_ref && (await sources?.content(record.final_result_ref.ref));
    if (!quoteDraft) refineLines.push(`Revise the draft you ${draftSent ? "just submitted" : "submitted last"}; it is not repeated here (${TOOL.getWorkflowStatus} with run_id: the session id quotes it, for resuming elsewhere).`);
    else if (draft) flexible.push({ kind: "refine", title: "Your previous draft", text: draft, rest: "The rest is the draft you submitted last.", weight: 2 });
    else if (record.final_result_ref) refineLines.push(quoted("How your previous draft begins", record.final_result_ref.summary, 1200, ""));
  }
  if (refineOnly) {
    refineLines.push(`The rest of this stage's role prompt is unchanged since its first refine: follow it still, and submit as its Output says, the document in "${spec.output.updated}". Lost it? ${TOOL.getWorkflowStatus} with run_id: the session id gives it whole.`);
  }
  const inputs: string[] = [];
  for (const [i, file] of refineOnly ? [] : state.artifacts.entries()) {
    const uri = artifactUri(state.session_id, file);
    const text = await confirmedText(state, file, sources);
    if (text === undefined) inputs.push(`- ${uri}`);
    else flexible.push({ kind: "artifact", title: file, text, rest: `The whole document: ${uri}`, weight: i === state.artifacts.length - 1 ? 2 : 1 });
  }
  const sprints = spec.stage === "dev" && !refineOnly ? sprintScope(state, await confirmedText(state, "03-sprint-plan.md", sources)) : undefined;
  const output = outputContract(spec, state, refining);

  // Each sized as quoted() shows it, closing tags escaped: counted raw, a text with room to spare lost its end (review 464).
  const inert = flexible.map((f) => escapeClosing(f.text));
  const inertSizes = inert.map(byteLength);
  const inputsHead = state.artifacts.length && !refineOnly ? "## Inputs\nThe earlier stages' artifacts, as the user confirmed them:" : "";
  /** The prompt's sections, the flexible documents sized to what the others leave of the budget. */
  const layout = async (lean: 0 | 1 | 2): Promise<string[]> => {
    const methodText = refineOnly ? "" : await method(lean);
    const stable = refineOnly ? [] : [header.join("\n"), session, persona, methodText];
    const fixed = [...stable, inputsHead, ...inputs, refineLines.join("\n"), sprints ?? "", refineOnly ? "" : output].filter(Boolean);
    const overhead = flexible.reduce((n, f) => n + quoteOverhead(f.title, f.rest), 0);
    const available = STAGE_PROMPT_BYTES - byteLength(fixed.join("\n\n")) - overhead - 16;
    const shares = allot(
      inertSizes,
      flexible.map((f) => f.weight),
      available,
    );
    const blocks = (kind: Flexible["kind"]) => flexible.flatMap((f, i) => (f.kind === kind ? [quoted(f.title, inert[i]!, shares[i]!, f.rest)] : []));
    return [
      ...stable,
      ...(inputsHead ? [[inputsHead, ...inputs, ...blocks("artifact")].join("\n\n")] : []),
      ...(refineLines.length ? [[refineLines.join("\n"), ...blocks("refine")].join("\n\n")] : []),
      ...(sprints ? [sprints] : []),
      ...(refineOnly ? [] : [output]),
    ];
  };
  // Quoted skill text gives way to links when it alone would not fit; as a last resort, cut before the
  // output contract, never into it. No stage of the default bundle comes near either.
  let parts: string[] = [];
  for (const lean of [0, 1, 2] as const) {
    parts = await layout(lean);
    const prompt = parts.join("\n\n");
    if (byteLength(prompt) <= STAGE_PROMPT_BYTES) return prompt;
  }
  const last = parts[parts.length - 1]!;
  return `${truncateBytes(parts.slice(0, -1).join("\n\n"), STAGE_PROMPT_BYTES - byteLength(last) - 2)}\n\n${last}`;
}

/** An artifact as the user confirmed it: its stage's final draft as the session stored it, not the copy in a project,
 *  which anyone (the model with bmad-files) may have rewritten since (review 212). */
async function confirmedText(state: SessionState, file: string, sources: StageSources | undefined): Promise<string | undefined> {
  const stage = PIPELINE.find((s) => s.artifact === file)?.stage;
  const ref = stage && state.artifacts.includes(file) ? state.stages[stage].final_result_ref?.ref : undefined;
  return ref === undefined ? undefined : sources?.content(ref);
}

function approvalWord(spec: StageSpec): string {
  return spec.gate.kind === "approval" ? "approves" : "confirms";
}

/** `project`: the one the session saves in, with the line naming its earlier files, where it has one. */
function sessionRules(spec: StageSpec, state: SessionState, projectRoot: string, project?: { name: string; files: string | undefined }): string {
  const saved = spec.artifact ? ` and saved as ${spec.artifact} when the user ${approvalWord(spec)} it` : "";
  const human =
    spec.gate.kind === "score"
      ? "put what needs a human decision in questions (this session's clarification point)"
      : `name what needs a human decision in the document, for the user to settle when ${spec.gate.kind === "approval" ? "approving" : "confirming"}`;
  const where = project
    ? `This stage runs headless in bmad-task session ${state.task_name} for project "${project.name}": in the quoted text below, \`${projectRoot}\` stands for the session's own folder, and nothing is written there. What you produce is submitted with bmad-task${saved}${spec.artifact ? `, in the project's ${SPECS_DIR}/${state.task_name}/ too` : ""}.`
    : `This stage runs headless in bmad-task session ${state.task_name}. There is no BMAD project here: in the quoted text below, \`${projectRoot}\` stands for the project root, and nothing is written there. What you produce is submitted with bmad-task${saved}.`;
  return [
    "## This session",
    where,
    ...(project?.files ? [`${project.files} Read those that bear on this stage with ${TOOL.bmadFiles} (project "${project.name}").`] : []),
    `Where the method below asks the user, writes files, runs scripts or ends with its own JSON, these rules win: decide from the inputs, record what you inferred in gaps, ${human}, and submit as under Output.`,
  ].join("\n");
}

function sprintScope(state: SessionState, plan: string | undefined): string {
  const uri = artifactUri(state.session_id, "03-sprint-plan.md");
  const sprints = plan === undefined ? [] : parseSprints(plan);
  const listed: string[] = [];
  for (const s of sprints) {
    const line = `- Sprint ${s.number}${s.title ? `: ${s.title}` : ""}`;
    if (listed.length === 40 || byteLength([...listed, line].join("\n")) > 2500) break;
    listed.push(line);
  }
  const more = sprints.length > listed.length ? ` The first ${listed.length} are quoted here; the rest are in ${uri}.` : "";
  const lines = [`## Sprints`];
  if (!sprints.length) lines.push(`The sprint plan (${uri}) names no "Sprint N" sections: implement the whole plan.`);
  else {
    // Their titles are the plan's text, quoted as the plan is: a heading is no instruction of the server's.
    lines.push(`The approved sprint plan has ${sprints.length} sprint${sprints.length === 1 ? "" : "s"}.${more}`, quoted("Its sprints", listed.join("\n"), 2500, ""));
    lines.push(
      'Ask the user which of these sprints to implement (the session\'s sprint-scope point, pending action "specify_sprint_scope_then_generate"); unless they name some, implement all of them. Name the sprints you implemented at the top of the submission.',
    );
  }
  return lines.join("\n");
}

function outputContract(spec: StageSpec, state: SessionState, refining: boolean): string {
  const key = refining ? spec.output.updated : spec.output.draft;
  const engines = enginesFor(spec, state.objective);
  const call = `bmad-task {"action": "submit", "session_id": "${state.session_id}", ${engines.map((e) => `"${e}_result": "<the JSON below, as a string>"`).join(", ")}}`;
  const lines = ["## Output", `Show the user the result, then submit it: ${call}.`];
  if (spec.gate.kind === "score") {
    lines.push(
      `The JSON: {"${key}": "<the whole document, markdown>", "quality_score": <0-100>, "gaps": ["<assumption or gap>"], "questions": [{"id": "q1", "question": "...", "context": "why it matters"}]}`,
      `Score honestly against the quality bar above. ${spec.gate.min} or more means ready: the user then confirms, and it is saved as ${spec.artifact}. Below ${spec.gate.min}, ask 3-5 questions; the user answers them and you refine. The headless mode's assumptions go in gaps and its open questions in questions; where intent stays ambiguous after inference, submit what you have with a low score and the questions that would settle it.`,
    );
  } else {
    lines.push(`The JSON: {"${key}": "<the whole document, markdown>"}`);
    const then = spec.gate.kind === "approval" ? "development starts" : nextStage(spec.stage) ? "the next stage reads it" : "the session is complete";
    lines.push(`The user ${approvalWord(spec)} it, it is saved as ${spec.artifact}, and ${then}.`);
  }
  return lines.join("\n");
}
