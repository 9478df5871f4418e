// Toolset `kit` (seed 001), the project-file part: the completion contract (where the project's code is: the
// bmad-mcp bridge) and the project context (the bridge's folder, or a workspace on the remote). A failed
// contract is kept in the failure museum as CC-FAIL.
import * as z from "zod";
import { CONTEXT_SECTIONS, STACKS, type SurfaceDeps } from "../deps.js";
import { BRIDGE, TOOL } from "../names.js";
import { PLANNED_NOTE, projectContext, workspaceReader } from "../../memory/project-context.js";
import { done, fail } from "../outcome.js";
import { defineTool, READ_ONLY } from "../tool.js";
import type { WorkDocument } from "../earlier-work.js";
import { projectState, type PlannedStep } from "../project-state.js";
import { codeSpan } from "../../workspace/paths.js";
import { holdsShapedSecret } from "../../catalog/config.js";
import { lines } from "../../lines.js";
import type { Result } from "../../result.js";
import { memoryLine, newMemory, projectField, shownEntry } from "./memory.tools.js";

function noProject(tool: string) {
  // A command, not a path in this repository, which the user of a remote server has not got (review 213).
  return fail(`${tool} needs your project's files: run it through the bmad-mcp bridge in your project (\`${BRIDGE.command} --project /path/to/project\` in the MCP client's config; ${BRIDGE.from}).`);
}

export const runCompletionContract = defineTool({
  name: TOOL.runCompletionContract,
  toolset: "kit",
  description: "Run the project's completion contract (_bmad/_config/custom/cc-verify.sh): PASS or FAIL with its output.",
  input: z.object({
    stack: z.enum(STACKS).optional().describe("Stack to verify (default auto)"),
    working_dir: z.string().max(1024).optional().describe("Folder in the project (default: its root)"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  // The remote has no project files to run it on (review 117: 558 bytes of every conversation for a call that fails).
  needsProjectFiles: true,
  async run({ stack, working_dir }, deps: SurfaceDeps, signal) {
    if (!deps.project) return noProject(TOOL.runCompletionContract);
    const run = await deps.project.runCompletionContract(stack ?? "auto", working_dir, signal);
    if (!run.ok) return fail(run.error);
    const recorded = run.value.status === "FAIL" ? await recordFailure(deps, stack ?? "auto", working_dir, run.value.output) : undefined;
    const id = recorded?.ok ? recorded.id : undefined;
    const note = !recorded ? "" : recorded.ok ? `\n[recorded in the failure museum as CC-FAIL: ${recorded.id}]` : `\n[not recorded in the failure museum: ${recorded.error}]`;
    // The output goes out once, in the text; structuredContent says what a program needs of it (as bmad-run's answer).
    const { output, ...summary } = run.value;
    return done(`${run.value.status} in ${run.value.duration_ms} ms\n${output}${note}`, { ...summary, output_bytes: new TextEncoder().encode(output).byteLength, ...(id ? { failure_id: id } : {}) });
  },
});

export const getProjectContext = defineTool({
  name: TOOL.getProjectContext,
  toolset: "kit",
  description: "The project's BMAD context (name, stack, agents, decisions, architecture) from _bmad/_memory.",
  input: z.object({ section: z.enum(CONTEXT_SECTIONS).optional().describe("Section (default all)"), project: projectField }),
  annotations: READ_ONLY,
  async run({ section = "all", project }, deps: SurfaceDeps, _signal, call) {
    const access = deps.memory ? await deps.memory(project) : undefined;
    if (access && !access.ok && (project !== undefined || !deps.project)) return fail(access.error);
    const memory = access?.ok ? access : undefined;
    if (!deps.project && !memory) return noProject(TOOL.getProjectContext);
    if (!deps.project) {
      const visible = await memory!.files.stat("");
      if (!visible.ok) return fail(visible.error);
    }
    const remembers = call?.has?.(TOOL.rememberStructured) ?? false;
    const context = deps.project ? await deps.project.projectContext(section, remembers) : await projectContext(workspaceReader(memory!.files), section, remembers);
    if (!context.ok) return fail(context.error);
    const state = await projectState(deps, memory?.project ?? project, call?.has?.(TOOL.bmadRun) ?? false);
    const planned = state && plannedIn(state.steps, context.value, section);
    // Where the project stands is in its BMAD documents: named, and the memory files are not pointed at where they are
    // not there (review 299: a project with a sprint plan was pointed at two files it had not).
    const work = state?.lines.length && !state.fresh ? { work: state.lines.join("\n"), ...("empty" in context.value ? { empty: PLANNED_NOTE } : {}) } : {};
    // What was decided through remember_structured, beside what the files say.
    const decided = memory && (section === "all" || section === "decisions") ? await memory.memory.list({ type: "decisions" }, "recent", 10) : undefined;
    const remembered = decided?.ok ? decided.value.entries.map(shownEntry).map(({ id, agent, text, created_at, by, cut }) => ({ id, agent, text, created_at, ...(by ? { by } : {}), ...(cut ? { cut } : {}) })) : [];
    const base = { ...context.value, ...(remembered.length ? { remembered_decisions: remembered } : {}), ...(planned ? { planning_artifacts: planned } : {}), ...work };
    // Named first, the caller's own too (review 305: {} answered about a project it did not name); a shared project's
    // context is its people's, not the caller's: labelled.
    // (The bridge's one project is its folder: not named.)
    const value = memory && (memory.owner || !deps.project) ? { project: memory.project, ...base, ...(memory.owner ? { shared_by: memory.owner } : {}) } : base;
    return done(contextText(value, planned, decided?.ok ? decided.value.entries.map(memoryLine) : []), value);
  },
});

/** The context as prose, the JSON going out once, in structuredContent (MCP: structured content and a text rendering;
 *  review 315: the same JSON was sent twice): where the project stands (work), then each field given, "none" where null. */
function contextText(value: Record<string, unknown>, planned: Record<string, WorkDocument> | undefined, decisions: string[]): string {
  const { project, shared_by, work, planning_artifacts: _named, remembered_decisions: _decided, ...fields } = value;
  const head = typeof project === "string" ? [`Project ${project}${typeof shared_by === "string" ? ` (shared by ${shared_by})` : ""}:`] : [];
  const documents = planned ? [`planning_artifacts: ${Object.entries(planned).map(([step, d]) => `${step} ${codeSpan(d.path)}${d.status ? ` (status: ${JSON.stringify(d.status)})` : ""}`).join(", ")}`] : [];
  const shown = (v: unknown) => (v === null ? " none" : typeof v !== "string" ? ` ${JSON.stringify(v)}` : v.includes("\n") ? `\n${v}` : ` ${v}`);
  // Remembered decisions as recall lists them, not as JSON (review 321).
  const remembered = decisions.length ? ["remembered_decisions:", ...decisions] : [];
  return [...head, ...(typeof work === "string" ? [work] : []), ...documents, ...Object.entries(fields).flatMap(([key, v]) => (v === undefined ? [] : [`${key}:${shown(v)}`])), ...remembered].join("\n");
}

/** The step of bmad-help.csv whose document holds each field: BMAD 6.12 writes its architecture (ARCHITECTURE-SPINE.md)
 *  and PRD in the project's planning folders, not in _bmad/_memory (review 273: a final spine was answered
 *  "architecture": null). */
const HELD_IN = new Map([["architecture", "architecture"], ["stack", "architecture"], ["decisions", "architecture"], ["name", "prd"]]);

/** Each required step's document (a settled one where there is one), by the step's word: every step's for the whole
 *  context (review 315: epics and the sprint plan were left out), or for one section, the step holding its field where
 *  the context leaves it empty; undefined where there is none. */
function plannedIn(steps: PlannedStep[], value: Record<string, unknown>, section: string): Record<string, WorkDocument> | undefined {
  const wanted = section === "all" ? undefined : new Set(value[section] === null || value[section] === undefined ? [HELD_IN.get(section)] : []);
  const planned = steps.flatMap((s) => (s.shown && (!wanted || wanted.has(s.word)) ? [[s.word, s.shown] as const] : []));
  return planned.length ? Object.fromEntries(planned) : undefined;
}

/** A failed contract as a CC-FAIL memory (the same output again is the same memory): its id, or why it was not stored;
 *  nothing where there is no memory to store it in. A line that looks like a secret is held back: memory is shared and
 *  pushed, and the rest of the output is what the failure is remembered by. */
async function recordFailure(deps: SurfaceDeps, stack: string, workingDir: string | undefined, output: string): Promise<Result<{ id: string }> | undefined> {
  const access = deps.memory ? await deps.memory(undefined) : undefined;
  if (!access?.ok) return undefined;
  const tail = output.length > 4000 ? `…${output.slice(-4000)}` : output;
  const shown = lines(tail).map((line) => (holdsShapedSecret(line) ? "[a line held back: it looks like a secret]" : line)).join("\n");
  const made = await newMemory(deps, {
    type: "failures",
    agent: "cc-verify",
    text: `Completion contract failed (stack ${stack}${workingDir ? `, in ${workingDir}` : ""}):\n${shown.trim() || "(no output)"}`,
    tags: ["CC-FAIL", "high", stack],
  });
  if (!made.ok) return made;
  const stored = await access.memory.remember(made.memory);
  return stored.ok ? { ok: true, id: stored.value.id } : stored;
}

export const projectTools = [getProjectContext, runCompletionContract];
