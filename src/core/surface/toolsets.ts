// Toolsets are declared here and chosen the same way everywhere: `/mcp?toolsets=a,b`, BMAD_TOOLSETS, bridge --toolsets.
import { closest, suggestion } from "../catalog/closest.js";
import type { Result } from "../result.js";

export const TOOLSETS = {
  manifest: { byDefault: true, about: "load any agent or workflow by name" },
  // Opt-in: `bmad` reaches the same content, and every conversation pays for the listing.
  proxy: { byDefault: false, about: "discover and run workflows, tasks and knowledge" },
  contracts: { byDefault: true, about: "run workflows; read, list and search all content" },
  agents: { byDefault: false, about: "one tool per agent, taking a message" },
  delivery: { byDefault: true, about: "bmad-task: a PO -> Architect -> SM -> Dev -> Review -> QA delivery session" },
  // The completion contract runs only where the project's files are (review 399: the remote's instructions said it too).
  kit: { byDefault: true, about: "project context, runs and sessions, sub-task queue", withProjectFiles: "project context, completion contract, runs and sessions, sub-task queue" },
  workspace: { byDefault: true, about: "a project root for skills: its files, and BMAD's scripts run with bmad-run" },
  // Opt-in: five more tools would take the default tools/list past its 8 KB budget; rendered skills name it.
  memory: { byDefault: false, about: "project memory: remember, recall, agent learnings, failure museum; delegate_to_agent" },
  // Opt-in: a host that renders MCP Apps shows these as pages (ui:// views); others get their text.
  views: { byDefault: false, about: "pictures for hosts that render MCP Apps: project map, document with versions, sprint board, delivery session, brainstorming composer" },
} as const;

export type ToolsetName = keyof typeof TOOLSETS;
export const TOOLSET_NAMES = Object.keys(TOOLSETS) as ToolsetName[];
export const DEFAULT_TOOLSETS = TOOLSET_NAMES.filter((t) => TOOLSETS[t].byDefault);

function isToolsetName(name: string): name is ToolsetName {
  return (TOOLSET_NAMES as string[]).includes(name);
}

export type ToolsetSelection = Result<{ toolsets: ToolsetName[] }>;

/** `undefined`/empty -> defaults; `all` -> every toolset; `default` adds the defaults; names are comma separated. */
export function parseToolsets(raw: string | null | undefined): ToolsetSelection {
  const parts = (raw ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  if (!parts.length) return { ok: true, toolsets: DEFAULT_TOOLSETS };
  const chosen = new Set<ToolsetName>();
  for (const part of parts) {
    if (part === "all") TOOLSET_NAMES.forEach((t) => chosen.add(t));
    else if (part === "default") DEFAULT_TOOLSETS.forEach((t) => chosen.add(t));
    // A list lookup, not `in`: "__proto__" and "constructor" are keys of every object.
    else if (isToolsetName(part)) chosen.add(part);
    else {
      const near = closest(part, [...TOOLSET_NAMES, "all", "default"], 3);
      return { ok: false, error: `Unknown toolset "${part.slice(0, 50)}". Toolsets: ${TOOLSET_NAMES.join(", ")}, all, default.${suggestion(near)}` };
    }
  }
  return { ok: true, toolsets: TOOLSET_NAMES.filter((t) => chosen.has(t)) };
}
