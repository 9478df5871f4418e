// Per-bundle, per-toolset-selection data computed once (tool listings, JSON Schemas, prompt names)
// so that a fresh server per request only wires handlers.
import type { CallToolResult, GetPromptResult, ListToolsResult } from "@modelcontextprotocol/server";
import type { Catalog } from "../catalog/catalog.js";
import { promptEntries, type PromptEntry } from "./prompts.js";
import { SKILL_RUNTIME_FILE } from "./runtime-block.js";
import { skillIndex } from "./skills.js";
import { contractTools } from "./tools/contracts.tools.js";
import { agentTools } from "./tools/agents.tools.js";
import { deliveryTools } from "./tools/delivery.tools.js";
import { kitTools } from "./tools/kit.tools.js";
import { delegateToAgent } from "./tools/delegate.tools.js";
import { memoryTools } from "./tools/memory.tools.js";
import { projectTools } from "./tools/project.tools.js";
import { bmadTool } from "./tools/manifest.tools.js";
import { proxyTools } from "./tools/proxy.tools.js";
import { runTools } from "./tools/run.tools.js";
import { workspaceTools } from "./tools/workspace.tools.js";
import { viewTools } from "./tools/views.tools.js";
import { toolListing, type ToolDef } from "./tool.js";
import { treeWarnings } from "./tree-warnings.js";
import { TOOLSETS, type ToolsetName } from "./toolsets.js";
import { TOOL } from "./names.js";

/** Every static tool, in tools/list order. */
export const STATIC_TOOLS: ToolDef[] = [bmadTool, ...proxyTools, ...contractTools, ...deliveryTools, ...projectTools, ...kitTools, ...runTools, ...workspaceTools, ...memoryTools, delegateToAgent, ...viewTools];

export interface Surface {
  tools: Map<string, ToolDef>;
  /** tools/list's result, frozen: the same object on every call (the stdio bridge encodes it once). */
  toolsResult: ListToolsResult;
  /** The same without views' `_meta.ui`, for a client that says it renders none (the same object where no tool has a view). */
  plainToolsResult: ListToolsResult;
  prompts: Map<string, PromptEntry>;
  promptList: Array<PromptEntry["listing"]>;
  /** prompts/get results without a message, frozen: the bundle is immutable, so each renders once. */
  promptResults: Map<string, GetPromptResult>;
  /** tools/call results a tool said to keep (ToolOutcome `kept`), frozen, by tool name and arguments. */
  toolResults: Map<string, CallToolResult>;
  instructions: string;
}

/** Each tool's JSON Schema listing per door (with the project's files or without), built the first time a surface
 *  lists it: building all of them at module scope put every toolset's schemas into the Worker's startup and the
 *  bridge's cold start. */
const listings = { bridge: new WeakMap<ToolDef, ReturnType<typeof toolListing>>(), remote: new WeakMap<ToolDef, ReturnType<typeof toolListing>>() };
function listingOf(def: ToolDef, projectFiles: boolean): ReturnType<typeof toolListing> {
  const door = projectFiles ? listings.bridge : listings.remote;
  let listing = door.get(def);
  if (!listing) door.set(def, (listing = toolListing(def, projectFiles)));
  return listing;
}
const cache = new WeakMap<Catalog, Map<string, Surface>>();

/** `projectFiles`: whether the front door has the project's files (the bridge), which some tools need to be listed. */
export function surfaceFor(catalog: Catalog, toolsets: ToolsetName[], projectFiles = true): Surface {
  const key = `${toolsets.join(",")}${projectFiles ? "" : " (no project files)"}`;
  let perCatalog = cache.get(catalog);
  if (!perCatalog) cache.set(catalog, (perCatalog = new Map()));
  let surface = perCatalog.get(key);
  if (!surface) perCatalog.set(key, (surface = buildSurface(catalog, toolsets, projectFiles)));
  return surface;
}

function buildSurface(catalog: Catalog, toolsets: ToolsetName[], projectFiles: boolean): Surface {
  const chosen = new Set(toolsets);
  const dynamic = chosen.has("agents") ? agentTools(catalog) : [];
  const defs = [...STATIC_TOOLS.filter((t) => chosen.has(t.toolset)), ...dynamic];
  const listed = defs.filter((d) => projectFiles || !d.needsProjectFiles);
  const prompts = promptEntries(catalog);
  const listing = (d: ToolDef) => listingOf(d, projectFiles);
  const toolsResult = deepFreeze({ tools: listed.map(listing) });
  return {
    tools: new Map(defs.map((d) => [d.name, d])),
    toolsResult,
    plainToolsResult: listed.some((d) => d.view) ? deepFreeze({ tools: listed.map((d) => withoutView(listing(d))) }) : toolsResult,
    prompts,
    promptList: [...prompts.values()].map((p) => p.listing),
    promptResults: new Map(),
    toolResults: new Map(),
    instructions: instructions(catalog, toolsets, projectFiles),
  };
}

function withoutView(listing: ReturnType<typeof toolListing>): ReturnType<typeof toolListing> {
  const { _meta: _drop, ...rest } = listing;
  return rest;
}

function instructions(catalog: Catalog, toolsets: ToolsetName[], projectFiles: boolean): string {
  const counts = `${catalog.list("agent").length} agents, ${catalog.list("workflow").length} workflows`;
  // The prompts' two arguments are said here once, not in each of the 29 listings (review 254: 5.5 KB of prompts/list).
  const lines = [`BMAD Method content (${counts}). Prompts bmad-{agent} load an agent or workflow (message: the user's first; project: a bmad-project to render it for); resources bmad://{path} hold every file.`];
  // Where a first call goes (review 117: the instructions listed the toolsets and never said how to start); where the
  // user does not know which workflow, BMAD's help skill says (review 254).
  if (toolsets.includes("workspace") && toolsets.includes("contracts")) {
    lines.push(`To start: ${projectFiles ? "bmad-workflow (e.g. prd), in this project" : "a project (bmad-project list, or create), then bmad-workflow with it (e.g. prd)"}, and follow its text; bmad-workflow help says where to start${toolsets.includes("kit") ? `; returning, ${TOOL.getWorkflowStatus} says where ${projectFiles ? "the project" : "each project"} stands` : ""}.`);
  }
  if (skillIndex(catalog).skills.length) lines.push(`Skills (skills/list): each at skill://{name}/SKILL.md as BMAD ships it; its ${SKILL_RUNTIME_FILE} says how {project-root}, {skill-root} and uv run lines work here.`);
  for (const t of toolsets) {
    const set: { about: string; withProjectFiles?: string } = TOOLSETS[t];
    lines.push(`${t}: ${(projectFiles && set.withProjectFiles) || set.about}.`);
  }
  const warnings = treeWarnings(catalog, 5);
  if (warnings) lines.push(warnings);
  return lines.join("\n");
}

/** Cached results are shared by every request: freezing them makes any later change an error, not a leak. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
