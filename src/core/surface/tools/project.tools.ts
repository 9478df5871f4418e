// Toolset `kit` (seed 001), the project-file part: the completion contract and the project context.
// They run where the project's files are (the bmad-mcp bridge); elsewhere they say so.
import { z } from "zod";
import { CONTEXT_SECTIONS, STACKS, type SurfaceDeps } from "../deps.js";
import { TOOL } from "../names.js";
import { done, fail } from "../outcome.js";
import { defineTool, READ_ONLY } from "../tool.js";

function noProject(tool: string) {
  return fail(`${tool} needs your project's files: run it through the bmad-mcp bridge in your project (see README, Local bridge).`);
}

export const runCompletionContract = defineTool({
  name: TOOL.runCompletionContract,
  toolset: "kit",
  description: "Run the project's completion contract (_bmad/_config/custom/cc-verify.sh); returns PASS or FAIL with its output.",
  input: z.object({
    stack: z.enum(STACKS).optional().describe("Stack to verify (default auto)"),
    working_dir: z.string().max(1024).optional().describe("Directory inside the project (default: project root)"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ stack, working_dir }, { project }: SurfaceDeps, signal) {
    if (!project) return noProject(TOOL.runCompletionContract);
    const run = await project.runCompletionContract(stack ?? "auto", working_dir, signal);
    if (!run.ok) return fail(run.error);
    return done(`${run.value.status} in ${run.value.duration_ms} ms\n${run.value.output}`, { ...run.value });
  },
});

export const getProjectContext = defineTool({
  name: TOOL.getProjectContext,
  toolset: "kit",
  description: "Get the project's BMAD context (name, stack, agents, decisions, architecture) from _bmad/_memory.",
  input: z.object({ section: z.enum(CONTEXT_SECTIONS).optional().describe("Section (default all)") }),
  annotations: READ_ONLY,
  async run({ section }, { project }: SurfaceDeps) {
    if (!project) return noProject(TOOL.getProjectContext);
    const context = await project.projectContext(section ?? "all");
    if (!context.ok) return fail(context.error);
    return done(JSON.stringify(context.value), context.value);
  },
});

export const projectTools = [getProjectContext, runCompletionContract];
