// Toolset `contracts` (seed 004): bmad-workflow and bmad-resources.
import * as z from "zod";
import type { RecordKind } from "../../catalog/bundle.js";
import { shortName } from "../../catalog/names.js";
import { compileGlob, literalSyntaxNote, tooCostly, type Glob } from "../../catalog/glob.js";
import { bmadUri, checkBundlePath } from "../../catalog/paths.js";
import { search } from "../../catalog/search.js";
import { TOOL } from "../names.js";
import { done, fail } from "../outcome.js";
import { loadRecord, recordLabel, workflowFacts } from "../render.js";
import { readBmadUri } from "../resources.js";
import { bmadUriField } from "../schemas.js";
import { defineTool, READ_ONLY } from "../tool.js";

const LIST_LIMIT = 500;

export const bmadWorkflowTool = defineTool({
  name: TOOL.bmadWorkflow,
  toolset: "contracts",
  description: "Run a BMAD workflow by name (prd, architecture, ...): its files and instructions.",
  input: z.object({
    workflow: z.string().min(1).max(200).describe("Workflow name (without the * prefix)"),
    context: z.string().max(16000).optional().describe("Context or parameters for it"),
    project: z.string().max(200).optional().describe("Workspace to render it for"),
  }),
  annotations: READ_ONLY,
  run: ({ workflow, context, project }, deps, _signal, call) => {
    const name = workflow.replace(/^\*/, "");
    return loadRecord(deps, "workflow", name, context ? { heading: "Context", body: context } : undefined, project, (p) => `${TOOL.bmadWorkflow} again with {"workflow": "${name}", "project": "${p}"}`, call);
  },
});

const OPERATIONS = ["read", "list", "modules", "agents", "workflows", "search"] as const;
/** The most bmad-resources "read" returns: every text a skill is meant to read is far smaller. */
const MAX_TOOL_READ = 128 * 1024;

export const bmadResourcesTool = defineTool({
  name: TOOL.bmadResources,
  toolset: "contracts",
  description:
    "BMAD content: read a bmad:// URI, list files (glob), show modules, agents or workflows, or search them.",
  input: z.object({
    operation: z.enum(OPERATIONS).describe("What to do"),
    uri: bmadUriField.optional().describe("For read: bmad:// URI"),
    pattern: z.string().max(300).optional().describe('For list: glob, e.g. "bmm/**/*.md"'),
    query: z.string().max(300).optional().describe("For search: the words"),
    type: z.enum(["agents", "workflows", "all"]).optional().describe("For search: what to search (default all)"),
  }),
  annotations: READ_ONLY,
  async run(args, deps) {
    const { reader } = deps;
    const { catalog } = reader;
    switch (args.operation) {
      case "read": {
        if (!args.uri) return fail('Operation "read" needs "uri", e.g. bmad://bmm/module.yaml.');
        const out = await readBmadUri(deps, args.uri);
        if (!out.ok) return fail(out.error, out.suggestions);
        // A page for a browser (bmad-brainstorming's 265 KB composer) would cost a conversation its context.
        if (out.text.length > MAX_TOOL_READ) return fail(`${out.uri} is ${Math.round(out.text.length / 1024)} KB, a file for a browser or the user rather than for reading here. resources/read serves it whole to a client that wants it; the skill's way in chat needs none of it.`);
        return out.about ? { ok: true, header: out.about, text: out.text } : done(out.text);
      }
      case "list": {
        let matcher: Glob | undefined;
        if (args.pattern) {
          const check = checkBundlePath(args.pattern.replace(/\*/g, "x").replace(/\?/g, "x"));
          if (!check.ok) return fail(`Pattern refused: ${check.error}`);
          const compiled = compileGlob(args.pattern);
          if (!compiled.ok) return fail(`Pattern refused: ${compiled.error}`);
          matcher = compiled.glob;
        }
        const paths = matcher ? catalog.paths.filter((p) => matcher.test(p)) : catalog.paths;
        if (matcher?.exhausted) return fail(tooCostly(matcher, "the bundle's files"));
        const shown = paths.slice(0, LIST_LIMIT).map(bmadUri);
        const more = paths.length > LIST_LIMIT ? `\n(${paths.length - LIST_LIMIT} more; narrow the pattern)` : "";
        // Kept: the same pattern lists the same files until the bundle changes.
        const syntax = shown.length ? undefined : literalSyntaxNote(args.pattern ?? "");
        if (syntax) return fail(`No files match "${args.pattern}".${syntax}`);
        return { ok: true, text: (shown.join("\n") || `No files match "${args.pattern}".`) + more, kept: true };
      }
      case "modules": {
        const lines = catalog.moduleNames().map((m) => {
          const count = (k: RecordKind) => catalog.list(k).filter((r) => r.module === m).length;
          return `${m}: ${count("agent")} agents, ${count("workflow")} workflows, ${count("task")} tasks`;
        });
        return done(lines.join("\n"));
      }
      case "agents":
      case "workflows": {
        const kind = args.operation === "agents" ? "agent" : "workflow";
        return done(catalog.list(kind).map((r) => `${recordLabel(r)}: ${r.description ?? ""}${workflowFacts(r) ? ` (${workflowFacts(r)})` : ""}`).join("\n"));
      }
      case "search": {
        if (!args.query?.trim()) return fail('Operation "search" needs "query", e.g. "product requirements".');
        const kinds: RecordKind[] = args.type === "agents" ? ["agent"] : args.type === "workflows" ? ["workflow"] : ["agent", "workflow", "task"];
        const hits = search(catalog, await reader.searchIndex(), args.query, kinds);
        if (!hits.length) return done(`Nothing matches "${args.query}".`);
        return done(hits.map((h) => `${h.record.kind} ${h.record.module}/${shortName(h.record)} (score ${h.score}): ${h.record.description ?? h.record.title ?? ""}`).join("\n"));
      }
    }
  },
});

export const contractTools = [bmadWorkflowTool, bmadResourcesTool];
