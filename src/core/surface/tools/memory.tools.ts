// Toolset `memory` (seed 001): remember_structured, recall_structured, get_agent_memory, get_failure_museum.
// The project's memory: a workspace's on the remote, the project folder's `_bmad/_memory/` on the bridge.
import * as z from "zod";
import { canonicalAgent, checkTags, checkText, FAILURE_CATEGORIES, memoryId, MEMORY_TYPES, type Memory, type MemoryEntry, type MemoryHit } from "../../memory/model.js";
import { queryWords } from "../../memory/text.js";
import type { MemoryAccess, SurfaceDeps } from "../deps.js";
import { TOOL } from "../names.js";
import { done, fail, type ToolOutcome } from "../outcome.js";
import { defineTool, READ_ONLY } from "../tool.js";
import type { Result } from "../../result.js";
import { count as n } from "../../count.js";
import { asOneLine, cutAt } from "../../lines.js";
import { structuredFile } from "../../memory/files.js";

export const projectField = z.string().max(100).optional().describe("Workspace (remote)");
const type = z.enum(MEMORY_TYPES).describe("Collection");

async function withMemory(deps: SurfaceDeps, project: string | undefined, run: (access: Extract<MemoryAccess, { ok: true }>) => Promise<ToolOutcome>): Promise<ToolOutcome> {
  if (!deps.memory) return fail("This endpoint keeps no project memory.");
  const access = await deps.memory(project);
  return access.ok ? run(access) : fail(access.error);
}

/** Longest a memory's text goes out, in its line and in structured content alike: an answer lists up to 200, each of
 *  up to 32 KB (review 186: 50 recalled made 47 KB of text and 1 MB of structured content beside it). */
const SHOWN_TEXT = 300;

/** An entry as an answer carries it: its text cut past SHOWN_TEXT, and then `cut` says where to read it whole (a hand
 *  file's line, else the structured file remember_structured keeps it in). */
export function shownEntry<T extends MemoryEntry>(e: T): T & { cut?: string } {
  if (e.text.length <= SHOWN_TEXT) return e;
  const at = /^(.+):(\d+)$/.exec(e.source ?? "");
  const file = at ? `${at[1]} (line ${at[2]})` : structuredFile(e.type);
  return { ...e, text: `${cutAt(e.text, SHOWN_TEXT)}…`, cut: `${n(e.text.length)} characters: read ${file} with ${TOOL.bmadFiles} for the whole` };
}

/** Hits as answers carry them, best first, without the store's score (MemoryHit.score). */
const shownHits = (hits: MemoryHit[]) => hits.map(({ score: _order, ...hit }) => shownEntry(hit));

/** One line per entry: what a caller reads; the entries (shownEntry) go out as structured content. */
/** A memory as the text answers list it: number, type, agent, date, the text, tags, where it is and whose. */
export function memoryLine(e: MemoryEntry | MemoryHit, i: number): string {
  // Every part a file gave is put on one line (review 81: a museum's agent and tags kept NEL and bidi controls).
  const head = asOneLine(`${i + 1}. [${e.type}${e.category ? ` ${e.category}` : ""}${e.severity && e.type === "failures" ? ` ${e.severity}` : ""}] ${e.agent}${e.created_at ? ` ${e.created_at.slice(0, 10)}` : ""}`);
  const body = "snippet" in e ? e.snippet : shownEntry(e).text;
  const by = e.by ? `, by ${JSON.stringify(e.by.slice(0, 100))}, not you` : "";
  return `${head}: ${asOneLine(body)}${e.tags.length ? asOneLine(` #${e.tags.join(" #")}`) : ""} (${asOneLine(e.source ?? e.id)}${by})`;
}

/** Where the memories come from, when not the caller's own project: named as its owner's, and which are others' (a
 *  list of the caller's own under "written by its members, not by you" read as no one's, review 188). */
const whose = (a: { project: string; owner?: string }) => (a.owner ? ` [from "${a.project}", ${a.owner}'s project shared with you: items marked "by …" are other members']` : "");
const origin = (a: { project: string; owner?: string }) => ({ project: a.project, ...(a.owner ? { shared_by: a.owner } : {}) });

/** Memory files' problems as every answer tells them: how many, and the first, once in the text and once in structured
 *  content (review 436: ten lines of them, 2 KB to say "no learnings yet", and the whole list again beside). Fixing the
 *  first shows the next. */
function problems(warnings: string[]): { text: string; structured: { problems?: { count: number; first: string } } } {
  if (!warnings.length) return { text: "", structured: {} };
  const first = asOneLine(cutAt(warnings[0]!, 300));
  const more = warnings.length > 1 ? `; fix it (${TOOL.bmadFiles} reads and writes the file) to see the next` : "";
  return { text: `\nMemory files: ${n(warnings.length)} problem${warnings.length === 1 ? "" : "s"}, the rest is served. First: ${first}${more}`, structured: { problems: { count: warnings.length, first } } };
}

/** A memory from a tool's arguments, checked, with its id; or why it is refused. Nothing is stored here. */
export async function newMemory(deps: SurfaceDeps, args: { type: Memory["type"]; agent: string; text: string; tags?: string[] }): Promise<Result<{ memory: Memory }>> {
  const text = checkText(args.text);
  if (!text.ok) return text;
  const tags = checkTags(args.tags ?? []);
  if (!tags.ok) return tags;
  const agent = canonicalAgent(args.agent);
  if (!agent.ok) return agent;
  const id = await memoryId(args.type, agent.value, text.value);
  return { ok: true, memory: { id, type: args.type, agent: agent.value, text: text.value, tags: tags.value, created_at: new Date().toISOString() } };
}

export const rememberStructured = defineTool({
  name: TOOL.rememberStructured,
  toolset: "memory",
  description: "Remember a decision, learning, failure, story or shared context for this project. Same text again: same id, stored once.",
  input: z.object({
    type,
    agent: z.string().max(200).describe("Agent, e.g. dev, architect, forge"),
    text: z.string().describe("What to remember (max 32 KB)"),
    tags: z.array(z.string()).optional().describe("Tags; failures: a category (CC-FAIL...) and severity (critical|high|medium|low)"),
    project: projectField,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  // 32 KB of text as JSON, escaped: the text limit is the one a caller meets, named.
  maxArgumentBytes: 256 * 1024,
  run: (args, deps) =>
    withMemory(deps, args.project, async ({ memory, ...where }) => {
      const made = await newMemory(deps, args);
      if (!made.ok) return fail(`${TOOL.rememberStructured}: ${made.error} Nothing was stored.`);
      const stored = await memory.remember(made.memory);
      if (!stored.ok) return fail(stored.error);
      const { id, created, tags } = stored.value;
      // Where it was stored, alone: the caller wrote it, whoever's project it is in (review 188: "written by its members,
      // not by you" answered the caller's own memory).
      const shared = where.owner ? ` in "${where.project}", ${where.owner}'s project shared with you` : "";
      const text = created ? `Remembered as ${id} (${args.type}, ${made.memory.agent})${shared || ` in ${where.project}`}.` : `Already remembered as ${id}${shared}${tags.length > made.memory.tags.length || args.tags?.length ? `; tags now ${tags.join(", ") || "none"}` : ""}.`;
      return done(text, { id, created, type: args.type, agent: made.memory.agent, tags, ...origin(where) });
    }),
});

export const recallStructured = defineTool({
  name: TOOL.recallStructured,
  toolset: "memory",
  description: "Search this project's memory across collections (or one); returns text, type, agent, tags and a snippet, best first.",
  input: z.object({
    query: z.string().max(4000).describe("What you are looking for, in words"),
    type: type.optional(),
    agent: z.string().max(200).optional().describe("Only this agent's"),
    limit: z.number().int().min(1).max(50).default(5),
    project: projectField,
  }),
  annotations: READ_ONLY,
  run: (args, deps) =>
    withMemory(deps, args.project, async ({ memory, project, owner }) => {
      const agent = args.agent === undefined ? undefined : canonicalAgent(args.agent);
      if (agent && !agent.ok) return fail(agent.error);
      const found = await memory.search(args.query, { ...(args.type ? { type: args.type } : {}), ...(agent ? { agent: agent.value } : {}) }, args.limit);
      if (!found.ok) return fail(found.error);
      const { mode, hits, warnings } = found.value;
      const how = mode === "hybrid" ? "BM25 and vector similarity, fused" : "BM25 full-text ranking";
      const none = queryWords(args.query).length ? `Nothing in ${project}'s memory matches "${args.query.slice(0, 80)}" (${how}).` : "The query has no words to search for: give some.";
      const head = hits.length ? `${hits.length} memor${hits.length === 1 ? "y" : "ies"} in ${project} (${how}):` : none;
      const told = problems(warnings);
      return done([head + whose({ project, owner }), ...hits.map(memoryLine)].join("\n") + told.text, { mode, hits: shownHits(hits), ...origin({ project, owner }), ...told.structured });
    }),
});

export const getAgentMemory = defineTool({
  name: TOOL.getAgentMemory,
  toolset: "memory",
  description: "Get an agent's learnings: the newest last_n, or those matching query.",
  input: z.object({
    agent: z.string().max(200).describe("Agent, e.g. dev, architect, qa"),
    query: z.string().max(4000).optional().describe("Words to match"),
    last_n: z.number().int().min(1).max(200).optional().describe("How many (default 10)"),
    project: projectField,
  }),
  annotations: READ_ONLY,
  run: (args, deps) =>
    withMemory(deps, args.project, async ({ memory, ...where }) => {
      const agent = canonicalAgent(args.agent);
      if (!agent.ok) return fail(agent.error);
      const limit = args.last_n ?? 10;
      const filter = { type: "agent-learnings" as const, agent: agent.value };
      if (args.query?.trim()) {
        const found = await memory.search(args.query, filter, limit);
        if (!found.ok) return fail(found.error);
        const { hits, warnings } = found.value;
        const head = hits.length ? `${agent.value}'s learnings matching "${args.query.slice(0, 80)}":` : `No learning of ${agent.value} matches "${args.query.slice(0, 80)}".`;
        const told = problems(warnings);
        return done([head + whose(where), ...hits.map(memoryLine)].join("\n") + told.text, { agent: agent.value, learnings: shownHits(hits), ...origin(where), ...told.structured });
      }
      const listed = await memory.list(filter, "recent", limit);
      if (!listed.ok) return fail(listed.error);
      const { entries, total, warnings } = listed.value;
      const head = entries.length ? `${agent.value}'s learnings, newest first (${entries.length} of ${n(total)}):` : `No learnings of ${agent.value} yet: ${TOOL.rememberStructured} with type "agent-learnings" keeps one, or _bmad/_memory/agent-learnings/${agent.value}.md.`;
      const told = problems(warnings);
      return done([head + whose(where), ...entries.map(memoryLine)].join("\n") + told.text, { agent: agent.value, learnings: entries.map(shownEntry), total, ...origin(where), ...told.structured });
    }),
});

export const getFailureMuseum = defineTool({
  name: TOOL.getFailureMuseum,
  toolset: "memory",
  description: "Get the project's past failures, worst first, then newest: check them before repeating a step that failed.",
  input: z.object({
    category: z.enum(["all", ...FAILURE_CATEGORIES]).optional().describe("Default all"),
    top_n: z.number().int().min(1).max(200).optional().describe("How many (default 10)"),
    project: projectField,
  }),
  annotations: READ_ONLY,
  run: (args, deps) =>
    withMemory(deps, args.project, async ({ memory, ...where }) => {
      const category = args.category && args.category !== "all" ? args.category : undefined;
      const listed = await memory.list({ type: "failures", ...(category ? { category } : {}) }, "severity", args.top_n ?? 10);
      if (!listed.ok) return fail(listed.error);
      const { entries, total, warnings } = listed.value;
      const head = entries.length ? `Failure museum${category ? ` (${category})` : ""}, worst first (${entries.length} of ${n(total)}):` : `No failures recorded${category ? ` as ${category}` : ""}.`;
      const told = problems(warnings);
      return done([head + whose(where), ...entries.map(memoryLine)].join("\n") + told.text, { failures: entries.map(shownEntry), total, ...origin(where), ...told.structured });
    }),
});

export const memoryTools = [rememberStructured, recallStructured, getAgentMemory, getFailureMuseum];
