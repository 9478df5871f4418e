// Toolset `manifest` (seed 000): one `bmad` command that loads agents and workflows by name.
import * as z from "zod";
import type { RecordKind } from "../../catalog/bundle.js";
import { shortName } from "../../catalog/names.js";
import { TOOL } from "../names.js";
import { done, fail } from "../outcome.js";
import { asServed, followsBundle, pickAProject, renderRecord, renderTarget } from "../render.js";
import { forConnection } from "../runtime-block.js";
import { defineTool, READ_ONLY } from "../tool.js";
import { treeWarnings } from "../tree-warnings.js";

export const bmadTool = defineTool({
  name: TOOL.bmad,
  toolset: "manifest",
  description:
    "Load a BMAD agent (`architect`, `bmm/architect`) or workflow (`*prd`) as raw files with loading instructions; empty command lists what exists.",
  input: z.object({
    command: z.string().max(300).default("").describe("Agent name, or * then workflow name; module/ prefix optional; empty lists all"),
    project: z.string().max(100).optional().describe("Workspace to render it for (bridge: its project)"),
  }),
  annotations: READ_ONLY,
  async run({ command, project }, deps, _signal, call) {
    const { reader } = deps;
    const { catalog } = reader;
    const trimmed = command.trim();
    if (!trimmed) {
      const list = (kind: RecordKind, star: string) => catalog.list(kind).map((r) => `${star}${r.module}/${shortName(r)}`).join(", ");
      const warnings = treeWarnings(catalog, 200);
      return done(
        `Agents: ${list("agent", "")}\nWorkflows: ${list("workflow", "*")}\n${catalog.list("task").length ? `Tasks: ${list("task", "")}\n` : ""}` +
          'Usage: bmad "architect" loads an agent; bmad "*prd" runs a workflow.' +
          (warnings ? `\n\n${warnings}` : ""),
      );
    }
    // A slash command (`/bmad-prd`, as Claude Code names an installed skill; `/*prd` too) runs what it names, agent or
    // workflow (review 140: "/bmad-prd" was offered the pm agent).
    const slash = trimmed.startsWith("/");
    const isWorkflow = trimmed.startsWith("*");
    const kind: RecordKind = isWorkflow || slash ? "workflow" : "agent";
    const name = trimmed.replace(/^\/?\*?/, "");
    let found = catalog.resolve(kind, name);
    // A workflow's words after its name (`*review lenses=structure,prose`, a `skill:NAME args` directive followed as
    // the runtime block says) are its context, as bmad-workflow's "context" (review 481: "Unknown workflow"), where the
    // whole is no name and its first word is one (`*check implementation readiness` is still looked up whole).
    const space = kind === "workflow" && !found.ok ? trimmed.search(/\s/) : -1;
    const first = space < 0 ? undefined : catalog.resolve(kind, trimmed.slice(0, space).replace(/^\/?\*?/, ""));
    const context = first?.ok ? { heading: "Context", body: trimmed.slice(space).trim() } : undefined;
    if (first?.ok) found = first;
    if (!found.ok) {
      // A workflow typed without "*" (or the reverse) is a common slip: say so.
      const other = catalog.resolve(kind === "workflow" ? "agent" : "workflow", name);
      if (other.ok && slash) found = other;
      else if (other.ok) return fail(`${found.error} "${trimmed}" is ${isWorkflow ? "an agent: drop the *" : `a workflow: use "*${name}"`}.`, [isWorkflow ? name : `*${name}`]);
      else return fail(found.error, kind === "workflow" ? found.closest.map((n) => `*${n}`) : found.closest);
    }
    const { record } = found;
    const target = await renderTarget(deps, project, record);
    if (target && typeof target === "object" && "error" in target) return fail(target.error);
    const pick = target === "none" ? await pickAProject(deps, record, (name) => `${TOOL.bmad} again with {"command": "${trimmed}", "project": "${name}"}`) : undefined;
    if (pick) return done(pick);
    // The render says which origin won and what else there is (recordOrigin). The project's files from earlier phases
    // follow the project, and today's date the day: added to the kept render, never kept.
    const served = await asServed(reader, record, target, renderRecord(reader, record, context, target));
    return { ok: true, text: forConnection(served.text, call?.has), kept: followsBundle(target) && !served.watched };
  },
});
