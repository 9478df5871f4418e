// Several signed-in people in one workerd test: each signs in through the real OAuth flow on the local
// (loopback-only) consent page, typing their email in its "Sign in as" field.
import { Client, StreamableHTTPClientTransport, type CallToolResult } from "@modelcontextprotocol/client";
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import type { WorkspaceProject } from "../../src/worker/workspace-do.js";
import { signIn, withBearer } from "../../scripts/oauth-client.js";
import { TOOL } from "../../src/core/surface/names.js";
import { DurableWorkspaceStore, workspaceCaller } from "../../src/worker/workspace-store.js";
import { withStreams } from "../shared/run-output.js";
import { ORIGIN, text, workerFetch } from "./client.js";

export interface Person {
  email: string;
  /** The user id sign-in gives them. */
  id: string;
  token: string;
  client: Client;
  /** A tool call's text and whether it failed. */
  call(tool: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean; structured: Record<string, any> }>;
  project(args: Record<string, unknown>): ReturnType<Person["call"]>;
  files(args: Record<string, unknown>): ReturnType<Person["call"]>;
  /** Their workspace store, as the Worker builds it for them (for seeding and restarts). */
  store(): DurableWorkspaceStore;
}

export async function signInAs(email: string, scope = "bmad:read bmad:write"): Promise<Person> {
  const { access_token } = await signIn(workerFetch, ORIGIN, { scope, approveScopes: scope.split(" "), user: email });
  const client = new Client({ name: "bmad-workspace-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), { fetch: withBearer(workerFetch, access_token) }));
  const call: Person["call"] = async (tool, args) => {
    const out = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
    const structured = (out.structuredContent ?? {}) as Record<string, any>;
    // bmad-run's output is in its text only: read back into `structured` for the tests.
    return { text: text(out), isError: out.isError === true, structured: tool === TOOL.bmadRun ? withStreams(text(out), structured)! : structured };
  };
  const id = `local/${email}`;
  return {
    email, id, token: access_token, client, call,
    project: (args) => call(TOOL.bmadProject, args),
    files: (args) => call(TOOL.bmadFiles, args),
    store: () => new DurableWorkspaceStore(env, workspaceCaller({ userId: id, upstream: "local", email, emailVerified: true })),
  };
}

/** A raw JSON-RPC POST to /mcp (with `query`, e.g. ?toolsets=views) with this token: the HTTP status and body, as a
 *  client without an SDK sees them. */
export async function rawCall(token: string, method: string, params: Record<string, unknown>, query = ""): Promise<Response> {
  return withBearer(workerFetch, token)(`${ORIGIN}/mcp${query}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
}

/** A fresh name per run, so test files never meet each other's projects. */
export function unique(prefix: string): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}

/** The four people of a sharing test, each newly signed in: the owner, and whom they share with for writing,
 *  for reading, and not at all. */
export async function signInTeam(): Promise<{ owner: Person; writer: Person; reader: Person; stranger: Person }> {
  const [owner, writer, reader, stranger] = await Promise.all(["owner", "writer", "reader", "stranger"].map((who) => signInAs(`${unique(who)}@example.com`)));
  return { owner: owner!, writer: writer!, reader: reader!, stranger: stranger! };
}

/** The Durable Object of `owner`'s project `name`, addressed as the Worker addresses it (for inspecting and restarts). */
export function projectStub(owner: string, name: string) {
  return env.WORKSPACE_PROJECT.get(env.WORKSPACE_PROJECT.idFromName(`${owner}|${name}`));
}

/** The project's alarm, run as if its 7 days to undo a purge or delete had passed: what was purged or deleted goes. */
export async function pastUndo(owner: string, name: string): Promise<void> {
  const stub = projectStub(owner, name);
  await runInDurableObject(stub, (instance: WorkspaceProject) => void (instance.files.undoMs = -24 * 60 * 60 * 1000));
  if (!(await runDurableObjectAlarm(stub))) throw new Error(`No alarm was set in ${name}`);
}

/** `owner` shares `name` with `person`, who accepts it (a share grants nothing until its recipient accepts). */
export async function shareAccepted(owner: Person, name: string, person: Person, access: "read" | "write", withWho = person.email): Promise<void> {
  const offered = await owner.project({ action: "share", name, with: withWho, access });
  if (offered.isError) throw new Error(offered.text);
  const offers = (await person.project({ action: "list" })).structured.offers as Array<{ project: string; name: string; owner: string }> | undefined;
  const offer = offers?.find((o) => o.name === name && o.owner === owner.email);
  // Already accepted before (a change of access): nothing to answer.
  if (!offer) return;
  const accepted = await person.project({ action: "accept", name: offer.project });
  if (accepted.isError) throw new Error(accepted.text);
}
