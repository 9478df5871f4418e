// One server factory for both front doors (Worker and stdio bridge). Tools register through the
// surface (tool.ts), so validation, size limits and error mapping cannot be bypassed.
import { inputRequired, McpServer, ProtocolError, ProtocolErrorCode, Server } from "@modelcontextprotocol/server";
import type { CallToolRequest, CallToolResult, ClientCapabilities, GetPromptResult, InputRequiredResult, ListResourcesResult, ServerContext } from "@modelcontextprotocol/server";
import * as z from "zod";
import type { Catalog } from "../catalog/catalog.js";
import { SkillsExtension } from "@modelcontextprotocol/server/ext/skills";
import { closest, suggestion } from "../catalog/closest.js";
import type { SurfaceDeps } from "./deps.js";
import { bmadUri } from "../catalog/paths.js";
import { changedLists } from "./list-changes.js";
import { parseCursor } from "./cursor.js";
import { RESOURCE_TEMPLATES, completePromptArgument, completeResource, readBmadUri, shortNames, staticResources } from "./resources.js";
import { asServed, renderRecord, renderTarget } from "./render.js";
import { forConnection } from "./runtime-block.js";
import { skillSource } from "./skills.js";
import { deepFreeze, STATIC_TOOLS, surfaceFor } from "./surface.js";
import { describeIssues, halfCharacter, parseArguments } from "./tool.js";
import type { ConfirmRequest } from "./outcome.js";
import { readView, rendersViews, VIEW_PREFIX } from "./views.js";
import { TOOL } from "./names.js";
import { treeWarnings } from "./tree-warnings.js";
import type { ToolsetName } from "./toolsets.js";

import { SERVER_INFO } from "./server-info.js";

export { SERVER_INFO };
export const MAX_ARGUMENT_BYTES = 64 * 1024;
export const RESOURCE_PAGE_SIZE = 200;
/** Kept tool results per bundle: a client repeats a few commands; other spellings of them are run each time. */
const MAX_KEPT_RESULTS = 256;
/** resources/list pages kept per bundle, by where they start (any cursor may be asked). */
const MAX_KEPT_PAGES = 64;
const resourcePages = new WeakMap<Catalog, Map<number, ListResourcesResult>>();

const invalid = (message: string, data?: Record<string, unknown>) => new ProtocolError(ProtocolErrorCode.InvalidParams, message, data);

/** An unknown name or URI: the message names the closest, and data.suggestions carries them. */
function unknown(what: string, name: string, pool: Iterable<string>, limit?: number): ProtocolError {
  const suggestions = closest(name, pool, limit);
  return invalid(`Unknown ${what} "${name.slice(0, 100)}".${suggestion(suggestions)}`, { suggestions });
}

/** A tool of a toolset this connection did not choose, said as a tool result the model reads (review 373: as a
 *  protocol error, SDK clients threw it and the model never saw how to add it); undefined for a name no toolset has. */
function notChosenTool(name: string): string | undefined {
  const elsewhere = STATIC_TOOLS.find((t) => t.name === name);
  return elsewhere && `${name} is in the "${elsewhere.toolset}" toolset, which this connection does not use: add it, e.g. /mcp?toolsets=default,${elsewhere.toolset}, bmad-mcp --toolsets default,${elsewhere.toolset}, or BMAD_TOOLSETS.`;
}

export function buildServer(deps: SurfaceDeps, toolsets: ToolsetName[]): Server {
  const projectFiles = deps.project !== undefined;
  // The skills extension attaches to an McpServer; everything else is answered by the handlers below, which
  // replace the McpServer's own resource handlers (resources/read serves skill:// files too).
  // Lists change only where the bundle reloads (the bridge): there the client is told which ones did.
  const reloads = deps.onReload;
  const changes = reloads ? { listChanged: true } : {};
  const mcp = new McpServer(SERVER_INFO, {
    capabilities: { resources: { listChanged: reloads !== undefined } },
    instructions: surfaceFor(deps.reader.catalog, toolsets, projectFiles).instructions,
  });
  new SkillsExtension({ source: skillSource(deps) }).attach(mcp);
  const server = mcp.server;
  server.registerCapabilities({ tools: changes, prompts: changes, completions: {} });
  if (reloads) {
    const stop = reloads((before, after) => {
      const send = { tools: () => server.sendToolListChanged(), prompts: () => server.sendPromptListChanged(), resources: () => server.sendResourceListChanged() };
      // A server not (or no longer) connected has no one to tell.
      for (const list of changedLists(before.catalog, after.catalog, toolsets)) send[list]().catch(() => {});
    });
    const closed = server.onclose;
    server.onclose = () => {
      stop();
      closed?.();
    };
  }
  // The bundle is looked up per request: the bridge swaps it when project files change.
  const current = async () => {
    await deps.ready?.();
    const { reader } = deps;
    return { reader, catalog: reader.catalog, surface: surfaceFor(reader.catalog, toolsets, projectFiles) };
  };

  // Without the agents toolset the tool list does not depend on the bundle: no need to wait for it.
  const fixed = toolsets.includes("agents") ? undefined : surfaceFor(deps.reader.catalog, toolsets, projectFiles);
  server.setRequestHandler("tools/list", async (request) => {
    // The list is one page; a cursor is still checked, as every list checks it.
    parseCursor(request.params?.cursor);
    const surface = fixed ?? (await current()).surface;
    // MCP Apps negotiation: a client that declared its capabilities without the ui extension gets no views in its
    // listing; one whose capabilities this request does not know (a stateless 2025-era request) gets them, and a
    // host that does not render views ignores them. Every view tool answers in text as well.
    const capabilities = server.getClientCapabilities();
    return capabilities && !rendersViews(capabilities) ? surface.plainToolsResult : surface.toolsResult;
  });

  // Where a server lives as long as its connection (the bridge's, which hears reloads), its first bmad answer says what
  // is wrong with the trees served; a server per request (the Worker) would say it in every answer: there the
  // instructions and the bmad list say it.
  let warned = !reloads;
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const result = await callTool(request, ctx);
    if (warned || request.params.name !== TOOL.bmad) return result;
    warned = true;
    const warnings = String(request.params.arguments?.command ?? "").trim() ? treeWarnings(deps.reader.catalog, 10) : "";
    return warnings && Array.isArray(result.content) ? { ...result, content: [{ type: "text", text: warnings }, ...(result.content as CallToolResult["content"])] } : result;
  });

  async function callTool(request: CallToolRequest, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    const { surface } = await current();
    const { name, arguments: args = {} } = request.params;
    const tool = surface.tools.get(name);
    if (!tool) {
      // An unknown name stays a protocol error, as the spec has it; the closest names are in it.
      const notChosen = notChosenTool(name);
      if (notChosen) return errorResult(notChosen);
      throw unknown("tool", name, surface.tools.keys(), 3);
    }
    const limit = tool.maxArgumentBytes ?? MAX_ARGUMENT_BYTES;
    const json = JSON.stringify(args);
    if (json.length > limit) return errorResult(`Arguments for ${name} exceed ${limit / 1024} KB; send less.`);
    // Before any tool sees them: half a character would be stored as U+FFFD, and acknowledged as sent.
    const half = halfCharacter(name, args);
    if (half) return errorResult(half);
    const key = `${name}\0${json}`;
    const kept = surface.toolResults.get(key);
    if (kept) return kept;
    const parsed = parseArguments(name, tool.input, args);
    if (!parsed.ok) return errorResult(parsed.error);
    try {
      // Sampling: asked for in the result (2026-07-28 clients answer and call again; for 2025-era clients the SDK
      // sends sampling/createMessage itself and calls the handler again), only of clients that declare it.
      const capabilities = clientCapabilities(server, ctx);
      // Views: as tools/list gives them to this client (all, unless it said it renders none).
      const showsView = (name: string) => Boolean(surface.tools.get(name)?.view) && !(capabilities && !rendersViews(capabilities));
      const call = { sampling: Boolean(capabilities?.sampling), elicitation: Boolean(capabilities?.elicitation), showsView, has: (name: string) => surface.tools.has(name), inputResponses: ctx.mcpReq.inputResponses };
      const outcome = await tool.run(parsed.data, deps, ctx.mcpReq.signal, call);
      if (!outcome.ok) return errorResult(outcome.error, outcome.suggestions);
      if (outcome.sample) return inputRequired({ inputRequests: { [outcome.sample.key]: inputRequired.createMessage(outcome.sample.params) } });
      if (outcome.confirm) return inputRequired({ inputRequests: { [outcome.confirm.key]: inputRequired.elicit(confirmForm(outcome.confirm)) } });
      const text = { type: "text" as const, text: outcome.text };
      const result: CallToolResult = { content: outcome.header === undefined ? [text] : [{ type: "text", text: outcome.header }, text] };
      if (outcome.structured) result.structuredContent = outcome.structured;
      if (outcome.isError) result.isError = true;
      if (outcome.kept && surface.toolResults.size < MAX_KEPT_RESULTS) surface.toolResults.set(key, deepFreeze(result));
      return result;
    } catch (error) {
      // Unexpected: name it, never leak a stack trace.
      return errorResult(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  server.setRequestHandler("prompts/list", async (request) => {
    parseCursor(request.params?.cursor);
    return { prompts: (await current()).surface.promptList };
  });

  server.setRequestHandler("prompts/get", async (request) => {
    const { reader, surface } = await current();
    const { name, arguments: args } = request.params;
    const entry = surface.prompts.get(name);
    if (!entry) throw unknown("prompt", name, surface.prompts.keys());
    const message = args?.message;
    if (message !== undefined && (typeof message !== "string" || message.length > MAX_ARGUMENT_BYTES)) {
      throw invalid(`Prompt argument "message" must be a string under ${MAX_ARGUMENT_BYTES / 1024} KB.`);
    }
    const project = args?.project;
    if (project !== undefined && (typeof project !== "string" || project.length > 100)) throw invalid('Prompt argument "project" must be a workspace name.');
    // Without a message or a workspace, a prompt depends only on the bundle (and, on the bridge, the project's
    // _bmad/, whose edits bring a new bundle): it renders once.
    const cacheable = !message && project === undefined;
    const cached = cacheable ? surface.promptResults.get(name) : undefined;
    if (cached) return cached;
    const target = await renderTarget(deps, project, entry.record);
    if (target && typeof target === "object" && "error" in target) throw invalid(target.error);
    const { text, watched } = await asServed(reader, entry.record, target, renderRecord(reader, entry.record, message ? { heading: "User message", body: message } : undefined, target));
    const shown = forConnection(text, (tool) => surface.tools.has(tool));
    const result: GetPromptResult = { description: entry.listing.description, messages: [{ role: "user", content: { type: "text", text: shown } }] };
    if (cacheable && !watched) surface.promptResults.set(name, deepFreeze(result));
    return result;
  });

  server.setRequestHandler("resources/list", async (request) => {
    const { catalog } = await current();
    const start = parseCursor(request.params?.cursor);
    // A page depends on the bundle alone: made once per bundle.
    let pages = resourcePages.get(catalog);
    if (!pages) resourcePages.set(catalog, (pages = new Map()));
    const kept = pages.get(start);
    if (kept) return kept;
    const fixed = staticResources();
    const total = fixed.length + catalog.paths.length;
    const page = [];
    for (let i = start; i < Math.min(total, start + RESOURCE_PAGE_SIZE); i++) {
      if (i < fixed.length) page.push(fixed[i]!);
      else {
        const file = catalog.file(catalog.paths[i - fixed.length]!)!;
        page.push({ uri: bmadUri(file.path), name: shortNames(catalog.paths).get(file.path)!, mimeType: file.mime, size: file.size });
      }
    }
    const next = start + RESOURCE_PAGE_SIZE;
    const result = deepFreeze({ resources: page, ...(next < total ? { nextCursor: String(next) } : {}) });
    if (pages.size < MAX_KEPT_PAGES) pages.set(start, result);
    return result;
  });

  server.setRequestHandler("resources/templates/list", (request) => {
    parseCursor(request.params?.cursor); // one page, its cursor checked as every list's (review 148)
    return { resourceTemplates: RESOURCE_TEMPLATES };
  });

  server.setRequestHandler("resources/read", async (request) => {
    await current();
    const { uri } = request.params;
    if (uri.startsWith(VIEW_PREFIX)) {
      const view = await readView(deps.reader, uri);
      if (!view.ok) throw invalid(view.error, { uri: uri.slice(0, 1100) });
      return { contents: view.contents };
    }
    const out = await readBmadUri(deps, uri);
    if (!out.ok) throw invalid(out.error, { uri: uri.slice(0, 1100), ...(out.suggestions ? { suggestions: out.suggestions } : {}) });
    // Who else wrote a project file's text, as a part of its own after it: the file's part stays its text whole, and
    // first, for a client that takes the first part as the file.
    return { contents: [{ uri: out.uri, mimeType: out.mimeType, text: out.text }, ...(out.about ? [{ uri: `${out.uri}#written-by`, mimeType: "text/plain", text: out.about }] : [])] };
  });

  server.setRequestHandler("completion/complete", async (request) => {
    const { surface } = await current();
    const { ref, argument, context } = request.params;
    let values: string[] = [];
    if (ref.type === "ref/resource") {
      const template = RESOURCE_TEMPLATES.find((t) => t.uriTemplate === ref.uri);
      if (template) values = await completeResource(deps, argument.name.replace(/^\+/, ""), argument.value, context?.arguments, template.uriTemplate);
    } else if (ref.type === "ref/prompt") {
      if (!surface.prompts.has(ref.name)) throw unknown("prompt", ref.name, surface.prompts.keys());
      values = await completePromptArgument(deps, argument.name, argument.value);
    }
    return { completion: { values, hasMore: false } };
  });

  return namingBadParams(server);
}

/** A tool's failure; for an unknown name or URI, structuredContent.suggestions holds the closest that exist. */
function errorResult(text: string, suggestions?: string[]): CallToolResult {
  return { content: [{ type: "text", text }], isError: true, ...(suggestions ? { structuredContent: { error: text, suggestions } } : {}) };
}

const Segment = z.union([z.string(), z.number()]);
const Issue = z.object({ path: z.array(Segment), message: z.string() });
/** A request's params as the SDK's schema refused them: zod's issues, each under "params". */
const ParamsIssues = z.array(Issue.extend({ path: z.tuple([z.literal("params")], Segment), errors: z.array(z.array(Issue)).optional() })).min(1);

/**
 * The SDK checks a request against the protocol's schema before any handler runs, and answers a mismatch as an
 * internal error (tools/call: invalid params) whose message is zod's issues over many lines. Here every handler of
 * `server`, the SDK's own (initialize) too, answers it as invalid params, on one line naming each field. The SDK has
 * no hook that reaches the handlers it sets itself, so its table is wrapped, once every handler is set.
 */
export function namingBadParams(server: Server): Server {
  const handlers: unknown = server["_requestHandlers"];
  if (!(handlers instanceof Map)) throw new Error("The MCP SDK keeps its request handlers elsewhere now: update namingBadParams.");
  for (const [method, handle] of handlers) {
    handlers.set(method, async (request: unknown, ctx: unknown) => {
      try {
        return await handle(request, ctx);
      } catch (error) {
        throw badParams(method, error) ?? error;
      }
    });
  }
  return server;
}

/** The SDK's refusal of `method`'s params (zod's issues as JSON, for tools/call after "Invalid tools/call request: ")
 *  as invalid params naming each field; undefined for any other error. */
function badParams(method: string, error: unknown): ProtocolError | undefined {
  if (!(error instanceof Error)) return undefined;
  const prefix = `Invalid ${method} request: `;
  const dump = !(error instanceof ProtocolError) ? error.message : error.message.startsWith(prefix) ? error.message.slice(prefix.length) : "";
  if (!dump.startsWith("[")) return undefined;
  let issues: ReturnType<typeof ParamsIssues.safeParse>;
  try {
    issues = ParamsIssues.safeParse(JSON.parse(dump));
  } catch {
    return undefined;
  }
  return issues.success ? invalid(`Invalid params for ${method}: ${describeIssues(issues.data, "params", 1)}.`) : undefined;
}

/** A yes the user gives by ticking one box: a form every client that elicits can draw. */
function confirmForm(confirm: ConfirmRequest) {
  return {
    message: confirm.message,
    requestedSchema: { type: "object" as const, properties: { confirm: { type: "boolean" as const, title: confirm.label, default: false } }, required: ["confirm"] },
  };
}

/** What the client of this request declared it can do: a 2026-07-28 request says so itself (its envelope), a 2025-era
 *  client said so once, at initialize (review 40: a 2026 client through the bridge's proxy never initializes). */
export function clientCapabilities(server: Server, ctx: ServerContext): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return (envelope?.["io.modelcontextprotocol/clientCapabilities"] as ClientCapabilities | undefined) ?? server.getClientCapabilities();
}
