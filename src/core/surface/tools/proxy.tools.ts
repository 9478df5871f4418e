// Toolset `proxy` (seed 002): discover and load workflows, tasks and knowledge as raw files.
import * as z from "zod";
import type { CatalogRecord } from "../../catalog/bundle.js";
import { closest } from "../../catalog/closest.js";
import { shortName } from "../../catalog/names.js";
import { bmadUri } from "../../catalog/paths.js";
import { TOOL } from "../names.js";
import { done, fail } from "../outcome.js";
import { loadRecord, originReport, renderRecord, workflowFacts } from "../render.js";
import { params, taskName, workflowName } from "../schemas.js";
import { defineTool, READ_ONLY } from "../tool.js";

export const CATEGORIES = ["analysis", "planning", "solutioning", "implementation"] as const;

/** Category from the tree's phase or folder names (classic `1-analysis`, 6.12 `plan`/`ship`). */
export function categoryOf(r: CatalogRecord): string {
  const hint = `${r.phase ?? ""} ${r.entry}`.toLowerCase();
  if (/analysis|research|brief|brainstorm/.test(hint)) return "analysis";
  if (/solutioning|architect/.test(hint)) return "solutioning";
  if (/plan/.test(hint)) return "planning";
  if (/implementation|ship|dev|story|review|sprint/.test(hint)) return "implementation";
  return "other";
}

export const listWorkflows = defineTool({
  name: TOOL.listWorkflows,
  toolset: "proxy",
  description: `List BMAD workflows, optionally by category or module. Load one with ${TOOL.executeWorkflow}.`,
  input: z.object({
    category: z.enum(CATEGORIES).optional().describe("Filter by category"),
    module: z.string().max(100).optional().describe("Filter by module, e.g. core, bmm"),
  }),
  annotations: READ_ONLY,
  async run({ category, module }, { reader: { catalog } }) {
    if (module && !catalog.moduleNames().includes(module)) return fail(`Unknown module "${module}". Modules: ${catalog.moduleNames().join(", ")}.`, closest(module, catalog.moduleNames()));
    const records = catalog.list("workflow").filter((r) => (!module || r.module === module) && (!category || categoryOf(r) === category));
    const workflows = records.map((r) => ({ name: shortName(r), module: r.module, description: r.description ?? r.title ?? "", category: categoryOf(r), uri: bmadUri(r.entry), ...(r.author ? { author: r.author } : {}), ...(r.path ? { path: r.path } : {}) }));
    const facts = records.map(workflowFacts);
    const text = workflows.map((w, i) => `${w.module}/${w.name} [${w.category}]: ${w.description}${facts[i] ? ` (${facts[i]})` : ""}`).join("\n");
    return done(text || "No workflows match.", { workflows });
  },
});

export const getWorkflowDetails = defineTool({
  name: TOOL.getWorkflowDetails,
  toolset: "proxy",
  description: "Get a workflow's metadata, origin and file list without loading its content.",
  input: z.object({ workflow_name: workflowName }),
  annotations: READ_ONLY,
  async run({ workflow_name }, { reader: { catalog } }) {
    const found = catalog.resolve("workflow", workflow_name);
    if (!found.ok) return fail(found.error, found.closest);
    const r = found.record;
    const files = r.files.map((p) => `- ${bmadUri(p)}`).join("\n");
    return done(
      `${shortName(r)} (${[r.module, categoryOf(r), workflowFacts(r)].filter(Boolean).join(", ")})\n${r.description ?? r.title ?? ""}\n${originReport(catalog, found)}\nFiles:\n${files}`,
    );
  },
});

export const executeWorkflow = defineTool({
  name: TOOL.executeWorkflow,
  toolset: "proxy",
  description: "Load a BMAD workflow's raw files with execution instructions, then follow them.",
  input: z.object({ workflow_name: workflowName, params }),
  annotations: READ_ONLY,
  run: ({ workflow_name, params: p }, deps, _signal, call) => loadRecord(deps, "workflow", workflow_name, p && { heading: "Parameters", body: JSON.stringify(p) }, undefined, undefined, call),
});

export const listTasks = defineTool({
  name: TOOL.listTasks,
  toolset: "proxy",
  description: `List BMAD tasks. Run one with ${TOOL.executeTask}.`,
  input: z.object({}),
  annotations: READ_ONLY,
  async run(_args, { reader: { catalog } }) {
    const tasks = catalog.list("task").map((r) => ({ name: r.name, module: r.module, description: r.description ?? r.title ?? "", uri: bmadUri(r.entry) }));
    return done(tasks.map((t) => `${t.module}/${t.name}: ${t.description}`).join("\n") || "This bundle has no tasks.", { tasks });
  },
});

export const executeTask = defineTool({
  name: TOOL.executeTask,
  toolset: "proxy",
  description: "Load a BMAD task's raw file with instructions, then follow it.",
  input: z.object({ task_name: taskName, params: params.describe("Optional task parameters") }),
  annotations: READ_ONLY,
  async run({ task_name, params: p }, deps, _signal, call) {
    const { catalog } = deps.reader;
    // A bundle without tasks (BMAD 6.x: they became skills) says so, and names the workflow the name reaches (review 140:
    // "Unknown task" with nothing to go on).
    if (!catalog.list("task").length) {
      const workflow = catalog.resolve("workflow", task_name);
      return fail(`This bundle has no tasks${workflow.ok ? `; "${task_name}" is a workflow: ${TOOL.executeWorkflow} with {"workflow_name": "${task_name}"}` : `: ${TOOL.listWorkflows} lists its workflows`}.`);
    }
    return loadRecord(deps, "task", task_name, p && { heading: "Parameters", body: JSON.stringify(p) }, undefined, undefined, call);
  },
});

export const getKnowledge = defineTool({
  name: TOOL.getKnowledge,
  toolset: "proxy",
  description: "Load a knowledge domain's files (a module's data/ or a knowledge/ folder).",
  input: z.object({ domain: z.string().min(1).max(200).describe("Knowledge domain, e.g. bmm or testarch; unknown names list the available ones") }),
  annotations: READ_ONLY,
  async run({ domain }, { reader }) {
    const found = reader.catalog.resolve("knowledge", domain);
    if (!found.ok) {
      // Each domain once: its short name, module-qualified where the name is not the module's own.
      const all = [...new Set(reader.catalog.list("knowledge").map((r) => (shortName(r) === r.module ? r.module : `${r.module}/${shortName(r)}`)))];
      return fail(`${found.error}${all.length ? ` Domains: ${all.join(", ")}.` : " This bundle has no knowledge domains."}`, found.closest);
    }
    return done(await renderRecord(reader, found.record));
  },
});

export const proxyTools = [listWorkflows, getWorkflowDetails, executeWorkflow, listTasks, executeTask, getKnowledge];
