// --remote: the bridge proxies the remote server's content and state tools, runs the file-system tools and a skill's
// render for this folder locally, and falls back to the local bundle for content (saying so) when the remote cannot
// be reached.
import { Client, ProtocolError as ClientProtocolError, type RequestOptions } from "@modelcontextprotocol/client";
import { InMemoryTransport, ProtocolError, ProtocolErrorCode, Server } from "@modelcontextprotocol/server";
import { RESOURCES_DIRECTORY_READ_METHOD, SKILLS_EXTENSION_ID, SKILLS_GET_METHOD, SKILLS_LIST_METHOD } from "@modelcontextprotocol/server/ext/skills";
import * as z from "zod";
import type { SurfaceDeps } from "../core/surface/deps.js";
import { TOOL } from "../core/surface/names.js";
import { buildServer, clientCapabilities, namingBadParams, SERVER_INFO } from "../core/surface/server.js";
import type { ToolsetName } from "../core/surface/toolsets.js";
import { notThisProject } from "../core/surface/tools/workspace.tools.js";
import type { RemoteLink } from "./remote-link.js";
import { remoteText } from "./bounded-fetch.js";
import { secretsHeldBack, shapedSecretHeldBack } from "./sync-push.js";

/** Run here, where the project's files are (memory lives in them, and bmad-files and bmad-run work on them), or
 *  where the client answers sampling. A remote workspace's files come here with bmad-mcp pull. */
const LOCAL_TOOLS = new Set<string>([
  TOOL.bmadFiles, TOOL.bmadRun, TOOL.runCompletionContract, TOOL.getProjectContext, TOOL.rememberStructured, TOOL.recallStructured, TOOL.getAgentMemory, TOOL.getFailureMuseum, TOOL.delegateToAgent,
]);
/** Render a skill for a project: for this folder (no "project", or its name) here, as without --remote, from its own
 *  files, config and clock; for a workspace on the remote (review 205: the remote's render took "no project" as none,
 *  and offered its workspaces, and the folder's name as a workspace it did not have). A prompt (the user's slash
 *  command) is a render too, by the same rule. */
const RENDER_TOOLS = new Set<string>([TOOL.bmad, TOOL.bmadWorkflow]);
/** Live on the remote only: no fallback, or state would split in two. */
const REMOTE_ONLY_TOOLS = new Set<string>([TOOL.bmadTask, TOOL.getWorkflowStatus, TOOL.listSessions, TOOL.spawnSubagentTask]);
const METHODS = ["tools/list", "tools/call", "prompts/list", "prompts/get", "resources/list", "resources/templates/list", "resources/read", "completion/complete"] as const;
/** The skills extension's methods: checked by the server that answers them; passed through here as they are. */
const SKILL_METHODS = [SKILLS_LIST_METHOD, SKILLS_GET_METHOD, RESOURCES_DIRECTORY_READ_METHOD];
const anyObject = z.looseObject({});
/** How long a request other than a tool call waits for the remote before the local bundle answers it: a list or a read
 *  the remote answers in well under a second, and one held until the SDK's 60 s timeout held a place of --http's
 *  (review 423). A tool call may take its time there (a session's step, a write), and is not cut short. */
const PROXIED_WAIT_MS = 10_000;

/** The bridge's server in remote mode: same methods as buildServer, answered by the remote first. */
export async function buildProxyServer(link: Pick<RemoteLink, "current" | "lost">, deps: SurfaceDeps, toolsets: ToolsetName[]): Promise<Server> {
  // The local surface (embedded bundle, project files) behind an in-memory client.
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await buildServer(deps, toolsets).connect(serverSide);
  const local = new Client({ name: "bmad-mcp-local", version: SERVER_INFO.version });
  await local.connect(clientSide);

  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, prompts: {}, resources: {}, completions: {}, extensions: { [SKILLS_EXTENSION_ID]: { directoryRead: true } } },
  });
  // A question the remote puts to the user (consent to a share or an accept) goes to this proxy's client, which asks
  // them, where that call's client can: a link that says so carries the call. The answer comes back with the call, and
  // goes on with it.
  const forward = async (method: string, params: Record<string, unknown> | undefined, signal: AbortSignal, asks = false): Promise<never> => {
    const tool = method === "tools/call" ? String(params?.name) : undefined;
    // A client's cancel reaches a local tool (the completion contract is killed with it). One naming another project
    // means a workspace on the remote, where it goes (review 189: the remote's render for "acme" said to run its lines
    // with "project": "acme", and this folder refused them).
    if (tool && (LOCAL_TOOLS.has(tool) || RENDER_TOOLS.has(tool))) {
      if (!namesWorkspace(deps, params)) return (await send(local, method, params, { signal })) as never;
      const held = secretSent(params);
      if (held) return { content: [{ type: "text", text: held }], isError: true } as never;
    }
    // A prompt the remote lists that this folder's BMAD lacks is the remote's to render.
    if (method === "prompts/get" && !argumentNamesWorkspace(deps, params)) {
      const here = await send(local, method, params, { signal }).catch(() => undefined);
      if (here) return here as never;
    }
    let reason: string;
    const remote = await link.current(asks && method === "tools/call");
    if (remote.ok) {
      try {
        // `allowInputRequired`: the remote's input_required comes back as it is, for this proxy's server to put to its own client.
        const options = tool ? { allowInputRequired: asks } : { timeout: PROXIED_WAIT_MS };
        const answered = (await send(remote.client, method, params, options)) as { content?: unknown[]; isError?: boolean };
        const note = tool === TOOL.bmadProject && !answered.isError ? sameNameNote(deps, params) : undefined;
        return (note ? { ...answered, content: [...(answered.content ?? []), { type: "text", text: note }] } : answered) as never;
      } catch (error) {
        // The remote answered with an MCP error: that is its answer, not an outage.
        if (error instanceof ClientProtocolError) throw new ProtocolError(error.code, remoteText(error.message), JSON.stringify(error.data ?? null).length <= 16_384 ? error.data : undefined);
        reason = link.lost(error);
      }
    } else reason = remote.error;
    if (tool && REMOTE_ONLY_TOOLS.has(tool)) return { content: [{ type: "text", text: `${tool} keeps its state on the remote server, and ${reason}.` }], isError: true } as never;
    if (method === "prompts/get" && argumentNamesWorkspace(deps, params)) {
      throw new ProtocolError(ProtocolErrorCode.InternalError, `The prompt renders for workspace "${String((params?.arguments as { project?: unknown }).project).slice(0, 100)}" on the remote server, and ${reason}. Without "project" it renders for this folder.`);
    }
    const result = (await send(local, method, params)) as Record<string, unknown>;
    if (method === "tools/call") {
      const content = (result.content as unknown[] | undefined) ?? [];
      result.content = [{ type: "text", text: `Note: ${reason}; this answer comes from the local bundle.` }, ...content];
    }
    // A prompt the user picks says so too, in its first message (the model reads it; it was silent). A copy: the
    // local server may keep the result it gave.
    const messages = method === "prompts/get" ? (result.messages as Array<{ content?: { type?: string; text?: string } }> | undefined) : undefined;
    const first = messages?.[0];
    if (first?.content?.type === "text") {
      const noted = { ...first, content: { ...first.content, text: `Note: ${reason}; this prompt comes from the local bundle.\n\n${first.content.text ?? ""}` } };
      return { ...result, messages: [noted, ...messages!.slice(1)] } as never;
    }
    return result as never;
  };
  // The tools that run here are listed here, beside the remote's: the remote never lists the completion contract, and
  // lists memory only where its toolsets say (review 148: callable through the proxy, never listed).
  const withLocalTools = async (listed: { tools: Array<{ name: string }> }) => {
    const here = (await send(local, "tools/list", undefined)) as { tools: Array<{ name: string }> };
    const names = new Set(listed.tools.map((t) => t.name));
    return { ...listed, tools: [...listed.tools, ...here.tools.filter((t) => LOCAL_TOOLS.has(t.name) && !names.has(t.name))] };
  };
  for (const method of METHODS) {
    server.setRequestHandler(method, async (request, ctx) => {
      const params = (request as { params?: Record<string, unknown> }).params;
      const answers = ctx.mcpReq.inputResponses;
      const state = ctx.mcpReq.requestState<string>();
      const asks = Boolean(clientCapabilities(server, ctx)?.elicitation);
      const answer = forward(method, answers || state !== undefined ? { ...params, ...(answers ? { inputResponses: answers } : {}), ...(state !== undefined ? { requestState: state } : {}) } : params, ctx.mcpReq.signal, asks);
      return method === "tools/list" ? ((await withLocalTools(await answer)) as never) : answer;
    });
  }
  for (const method of SKILL_METHODS) server.setRequestHandler(method, { params: anyObject }, (params, ctx) => forward(method, params, ctx.mcpReq.signal));
  return namingBadParams(server);
}

/** The tools run here that a remote workspace has too, in the toolsets every remote serves: the completion contract
 *  runs on this folder alone, and memory is the remote's only where its URL asks for it (review 191: refused there with
 *  a fix naming this bridge's --toolsets). */
const WORKSPACE_TOOLS = new Set<string>([TOOL.bmadFiles, TOOL.bmadRun, ...RENDER_TOOLS]);

/** Whether a tool call's `project` names something other than this folder: a workspace, the remote's to answer. */
function namesWorkspace(deps: SurfaceDeps, params: Record<string, unknown> | undefined): boolean {
  return WORKSPACE_TOOLS.has(String(params?.name)) && argumentNamesWorkspace(deps, params);
}

/** Whether a request's `project` argument (a tool's, or a prompt's) names something other than this folder. */
function argumentNamesWorkspace(deps: SurfaceDeps, params: Record<string, unknown> | undefined): boolean {
  const project = (params?.arguments as { project?: unknown } | undefined)?.project;
  return typeof project === "string" && deps.workspaces !== undefined && !namesThisFolder(deps, project);
}

/** Whether a project name means this folder here (its name: the file tools' rule, notThisProject). */
const namesThisFolder = (deps: SurfaceDeps, name: string) => deps.workspaces !== undefined && notThisProject(deps.workspaces, name, "") === undefined;

/** A workspace made with this folder's name: through this bridge the name means the folder, said (review 206: the
 *  create answer's bmad-files line, followed here, worked on the folder, and the workspace could not be reached). */
function sameNameNote(deps: SurfaceDeps, params: Record<string, unknown> | undefined): string | undefined {
  const args = params?.arguments as { action?: unknown; name?: unknown } | undefined;
  if (args?.action !== "create" || typeof args.name !== "string" || !namesThisFolder(deps, args.name)) return undefined;
  return `Note: through this bridge, "${args.name}" names this folder: ${TOOL.bmadFiles}, ${TOOL.bmadRun} and ${TOOL.bmad} with "project": "${args.name}" work on the folder here. The workspace's files come here with bmad-mcp pull, and go back with push.`;
}

/** Why a write this bridge would send to a workspace is refused, or undefined: text that push would hold back as a
 *  secret (secretsHeldBack) goes to no remote by either way; a part of a file (an append, an edit's new text) by its
 *  shape alone, as no config parser could judge it whole. */
function secretSent(params: Record<string, unknown> | undefined): string | undefined {
  const args = params?.arguments as { action?: unknown; path?: unknown; content?: unknown } | undefined;
  if (params?.name !== TOOL.bmadFiles || !["write", "append", "edit"].includes(String(args?.action)) || typeof args?.path !== "string" || typeof args.content !== "string") return undefined;
  const why = args.action === "write" ? secretsHeldBack(args.path, args.content, "bmad-mcp") : shapedSecretHeldBack(args.content, "bmad-mcp");
  return why && `${args.path.slice(0, 200)} ${why}.`;
}

/** Spec methods get the SDK's own result checks; the skills methods pass through as the server sent them. */
function send(client: Client, method: string, params: Record<string, unknown> | undefined, options?: RequestOptions): Promise<unknown> {
  if ((SKILL_METHODS as string[]).includes(method)) return client.request({ method, params }, anyObject, options);
  return client.request({ method: method as (typeof METHODS)[number], params }, options);
}
