import type { Client } from "@modelcontextprotocol/client";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { manifestKey, POINTER_KEY } from "../../src/core/catalog/bundle.js";
import { TOOL } from "../../src/core/surface/names.js";
import { withBearer } from "../../scripts/oauth-client.js";
import { authedFetch, connect, ORIGIN, text, token, workerFetch } from "./client.js";
import { seed } from "./setup.js";
import { rawCall, signInAs, unique } from "./workspace-users.js";

let client: Client;

beforeAll(async () => {
  await seed();
  client = await connect("?toolsets=default,proxy");
});

async function toolError(name: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError).toBe(true);
  return text(result);
}

describe("unknown names answer with the closest ones", () => {
  it("agents, workflows and tasks", async () => {
    expect(await toolError(TOOL.bmad, { command: "archtect" })).toMatch(/Unknown agent "archtect"\. Closest: architect/);
    expect(await toolError(TOOL.bmad, { command: "*prdd" })).toMatch(/Unknown workflow "prdd"\. Closest: prd/);
    expect(await toolError(TOOL.bmad, { command: "prd" })).toContain('a workflow: use "*prd"');
    // Another case names the same; a slash command runs what it names (review 140: both were offered the pm agent).
    expect(await toolError(TOOL.bmad, { command: "PRD" })).toContain('a workflow: use "*PRD"');
    for (const command of ["/bmad-prd", "*PRD", "/*prd"]) expect(text(await client.callTool({ name: TOOL.bmad, arguments: { command } })), command).toMatch(/^bmm\/prd \(BMad PRD\) runs in a project/);
    expect(text(await client.callTool({ name: TOOL.bmad, arguments: { command: "/bmad-agent-pm" } }))).toMatch(/^# BMAD agent: bmm\/pm\b[^]*?\nOrigin: package /);
    // 6.x has no tasks: the answer says so and where the name leads (review 140: "Unknown task", nothing to go on).
    expect(await toolError(TOOL.executeTask, { task_name: "help" })).toBe(`This bundle has no tasks; "help" is a workflow: ${TOOL.executeWorkflow} with {"workflow_name": "help"}.`);
    expect(await toolError(TOOL.executeTask, { task_name: "HELP" })).toContain('"HELP" is a workflow');
    expect(await toolError(TOOL.executeTask, { task_name: "shard-doc" })).toBe(`This bundle has no tasks: ${TOOL.listWorkflows} lists its workflows.`);
    // A phrase a skill says it is used for leads to that skill first (review 90: readiness is sprint-planning's).
    for (const command of ["*check-implementation-readiness", "*bmad-check-implementation-readiness", "*check implementation readiness"]) {
      expect(await toolError(TOOL.bmad, { command }), command).toMatch(/\. Closest: sprint-planning, /);
    }
    // A persona's name leads to its agent first (review 117: "talk to John" is the pm's); a sentence's first word does not.
    for (const [command, agent] of [["John", "pm"], ["mary", "analyst"], ["Winston", "architect"]]) expect(await toolError(TOOL.bmad, { command }), command).toMatch(new RegExp(`\\. Closest: ${agent}, `));
    expect(await toolError(TOOL.bmad, { command: "Use" })).not.toMatch(/Closest: analyst, architect/);
    expect(await toolError(TOOL.executeWorkflow, { workflow_name: "brainstormin" })).toMatch(/Closest: brainstorming/);
    expect(await toolError(TOOL.bmadWorkflow, { workflow: "architecure" })).toMatch(/Closest: architecture/);
    expect(await toolError(TOOL.listWorkflows, { module: "bmx" })).toContain("Modules: bmm, core");
  });

  it("resources, prompts and tools", async () => {
    await expect(client.readResource({ uri: "bmad://bmm/bmad-agent-pm/SKIL.md" })).rejects.toThrow(/Closest: bmad:\/\/bmm\/bmad-agent-pm\/SKILL\.md/);
    await expect(client.getPrompt({ name: "bmad-archtect" })).rejects.toThrow(/Closest: bmad-architect/);
    await expect(client.callTool({ name: "bmad-resource", arguments: {} })).rejects.toThrow(/Unknown tool "bmad-resource"\. Closest: bmad-resources/);
    // A tool of a toolset this connection did not choose is a tool result the model reads, saying how to add it (review
    // 373: as a protocol error, the SDK client threw it); a name no toolset has stays a protocol error, as the spec has it.
    expect(await toolError(TOOL.bmadBoard, { project: "x" })).toBe(`${TOOL.bmadBoard} is in the "views" toolset, which this connection does not use: add it, e.g. /mcp?toolsets=default,views, bmad-mcp --toolsets default,views, or BMAD_TOOLSETS.`);
  });

  it("a file path where a URI goes: named as the URI it is, never served by a guess", async () => {
    const read = (uri: string) => toolError(TOOL.bmadResources, { operation: "read", uri });
    expect(await read("assets/prd-template.md")).toBe(
      `"assets/prd-template.md" is a file path, and this reads URIs: it is bmad://bmm/bmad-prd/assets/prd-template.md. Files of the user's project: bmad-files.`,
    );
    expect(await read("/home/me/app/.claude/skills/bmad-prd/assets/prd-template.md")).toContain("it is bmad://bmm/bmad-prd/assets/prd-template.md.");
    expect(await read("checklist.md")).toMatch(/; it may be bmad:\/\/bmm\/bmad-correct-course\/checklist\.md, bmad:\/\/bmm\/bmad-create-story\/checklist\.md, /);
    expect(await read("/etc/passwd")).toMatch(/is a file path, and this reads URIs, e\.g\. bmad:/);
    // A file URI gets its path's answer, decoded, and is never read (review 160: "URI must start with bmad://" alone).
    expect(await read("file:///home/me/app/_bmad/render/bmad-build/step-02-plan.md")).toBe(
      `"/home/me/app/_bmad/render/bmad-build/step-02-plan.md" is a file path, and this reads URIs: it is bmad://bmm/bmad-build/step-02-plan.md. Files of the user's project: bmad-files.`,
    );
    expect(await read("file:///home/me/my%20app/.claude/skills/bmad-prd/assets/prd-template.md")).toContain('"/home/me/my app/.claude/skills/bmad-prd/assets/prd-template.md" is a file path, and this reads URIs: it is bmad://bmm/bmad-prd/assets/prd-template.md.');
    expect(await read("file:///etc/passwd")).toBe(await read("/etc/passwd"));
    await expect(client.readResource({ uri: "file:///etc/passwd" })).rejects.toThrow(/"\/etc\/passwd" is a file path, and this reads URIs/);
    // A page for a browser is not read into the conversation by the tool (resources/read still serves it whole).
    const page = "bmad://core/bmad-brainstorming/assets/brain-selector.html";
    expect(await read(page)).toMatch(/^bmad:\/\/core\/bmad-brainstorming\/assets\/brain-selector\.html is \d{3} KB, a file for a browser or the user rather than for reading here\./);
    expect(((await client.readResource({ uri: page })).contents[0] as { text: string }).text.length).toBeGreaterThan(128 * 1024);
    // A step file's relative link: refused, never normalised, and named.
    const link = "bmad://bmm/bmad-create-epics-and-stories/steps/../templates/epics-template.md";
    expect(await read(link)).toBe(`Refused ${link}: Paths with '.', '..' or empty segments are refused. Read bmad://bmm/bmad-create-epics-and-stories/templates/epics-template.md, where it leads.`);
    await expect(client.readResource({ uri: "bmad://bmm/bmad-prd/./SKILL.md" })).rejects.toThrow(/Read bmad:\/\/bmm\/bmad-prd\/SKILL\.md, where it leads/);
  });
});

describe("paths that leave the bundle are refused", () => {
  const escapes = ["bmad://../x", "bmad://bmm/../../etc/passwd", "bmad://%2e%2e/x", "bmad://bmm/%2E%2E/%2e%2e/x", "bmad:///etc/passwd", "bmad://C:/x", "bmad://bmm\\..\\x", "bmad://bmm/%00", "bmad://bmm/\u0000x", "file:///etc/%ZZ"];

  it.each(escapes)("%s via resources/read and bmad-resources", async (uri) => {
    await expect(client.readResource({ uri })).rejects.toThrow(/Refused|must start with bmad/);
    expect(await toolError(TOOL.bmadResources, { operation: "read", uri })).toMatch(/Refused/);
  });

  it("glob patterns that climb out are refused too", async () => {
    expect(await toolError(TOOL.bmadResources, { operation: "list", pattern: "**/".repeat(40) + "x" })).toMatch(/Pattern refused: Pattern has 40 wildcards; at most 32/);
    expect(await toolError(TOOL.bmadResources, { operation: "list", pattern: "../**" })).toMatch(/Pattern refused/);
  });
});

describe("arguments are validated at the edge", () => {
  it("refuses arguments over 64 KB", async () => {
    expect(await toolError(TOOL.bmadResources, { operation: "search", query: "x".repeat(70 * 1024) })).toMatch(/exceed 64 KB/);
  });

  it("names the field with the wrong type", async () => {
    expect(await toolError(TOOL.bmadResources, { operation: 5 })).toMatch(/"operation": Invalid option: expected one of/);
    expect(await toolError(TOOL.executeWorkflow, { workflow_name: ["prd"] })).toMatch(/"workflow_name": Invalid input: expected string/);
    expect(await toolError(TOOL.bmadResources, { operation: "read" })).toMatch(/needs "uri"/);
  });

  // Review 465: an unknown key was dropped unsaid: a misspelled guard wrote anyway, a "pattern" for list listed all.
  it("refuses a key the tool does not take, naming the one it is near and what the tool takes", async () => {
    const writer = await signInAs(`${unique("speller")}@example.com`);
    const project = unique("spelled");
    expect((await writer.project({ action: "create", name: project })).isError).toBe(false);
    expect((await writer.files({ action: "write", project, path: "docs/c.md", content: "one" })).isError).toBe(false);
    const takes = "It takes: action, project, path, content, old, version, if_version.";
    const write = await writer.files({ action: "write", project, path: "docs/c.md", content: "two", ifVersion: 99 });
    expect(write).toMatchObject({ isError: true, text: `Invalid arguments for bmad-files: unknown argument "ifVersion" (did you mean "if_version"?). ${takes}` });
    expect((await writer.files({ action: "write", project, path: "docs/c.md", content: "two", expected_version: 99 })).text).toBe(`Invalid arguments for bmad-files: unknown argument "expected_version". ${takes}`);
    expect((await writer.files({ action: "list", project, pattern: "docs/*.md" })).text).toBe(`Invalid arguments for bmad-files: unknown argument "pattern". ${takes}`);
    expect((await writer.files({ action: "read", project, path: "docs/c.md", verison: 1, constructor: 1 })).text).toBe(`Invalid arguments for bmad-files: unknown arguments "verison" (did you mean "version"?), "constructor". ${takes}`);
    // Nothing was written past the misspelled guard.
    expect((await writer.files({ action: "read", project, path: "docs/c.md" })).text).toMatch(/\none$/);
    expect(await toolError(TOOL.bmadResources, { operation: "list", glob: "core/**" })).toBe('Invalid arguments for bmad-resources: unknown argument "glob". It takes: operation, uri, pattern, query, type.');
  });

  it("refuses a bad pagination cursor, in every list (review 131: tools/list and prompts/list ignored it)", async () => {
    for (const list of [() => client.listResources({ cursor: "not-a-cursor" }), () => client.listTools({ cursor: "not-a-cursor" }), () => client.listPrompts({ cursor: "not-a-cursor" }), () => client.listResourceTemplates({ cursor: "not-a-cursor" })]) {
      await expect(list()).rejects.toThrow(/Invalid cursor "not-a-cursor": pass the nextCursor of the previous page\./);
    }
  });
});

describe("the HTTP edge", () => {
  const initialize = async (headers: Record<string, string>, url = `${ORIGIN}/mcp`) =>
    (await authedFetch())(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }),
    });

  it("answers a loopback client", async () => {
    expect((await initialize({})).status).toBe(200);
  });

  it("refuses a foreign Origin or Host with 403", async () => {
    expect((await initialize({ origin: "https://evil.example" })).status).toBe(403);
    const foreignHost = await initialize({ host: "evil.example" }, "http://evil.example/mcp");
    expect(foreignHost.status).toBe(403);
    expect(await foreignHost.text()).toMatch(/does not answer for evil\.example/);
  });

  it("names an unknown toolset and the closest ones, answering the request's id (review 186: null)", async () => {
    const res = await initialize({}, `${ORIGIN}/mcp?toolsets=contract`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: expect.stringMatching(/^Unknown toolset "contract".*Closest: contracts/) } });
    // A batch names no one id, so its answer's is null.
    const post = async (body: unknown) => (await authedFetch())(`${ORIGIN}/mcp?toolsets=bogus`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(body) });
    expect(await (await post({ jsonrpc: "2.0", id: "list-7", method: "tools/list" })).json()).toMatchObject({ id: "list-7", error: { code: -32602 } });
    expect(await (await post([{ jsonrpc: "2.0", id: 8, method: "tools/list" }])).json()).toMatchObject({ id: null, error: { code: -32602 } });
  });

  it.each(["__proto__", "constructor", "toString", "hasOwnProperty"])("refuses ?toolsets=%s as an unknown toolset", async (name) => {
    const res = await initialize({}, `${ORIGIN}/mcp?toolsets=${name}`);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(`Unknown toolset \\"${name}\\"`);
  });
});

describe("badly shaped requests, as a client without an SDK sends them (review 131)", () => {
  /** One JSON-RPC request to /mcp in protocol `era`, with the headers a 2026-07-28 request carries: its answer. */
  async function rpc(era: "2025-11-25" | "2026-07-28", method: string, params: Record<string, unknown>) {
    const modern = era === "2026-07-28";
    const name = params.name ?? params.uri;
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": era, ...(modern ? { "mcp-method": method, ...(typeof name === "string" ? { "mcp-name": name } : {}) } : {}) };
    const meta = { "io.modelcontextprotocol/protocolVersion": era, "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
    const res = await (await authedFetch())(`${ORIGIN}/mcp`, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: modern ? { ...params, _meta: meta } : params }) });
    const body = await res.text();
    return JSON.parse(body.startsWith("event:") ? body.slice(body.indexOf("data: ") + 6) : body) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
  }

  it.each(["2025-11-25", "2026-07-28"] as const)("get invalid params on one line naming each field, not an internal error quoting zod (%s)", async (era) => {
    const refusals: Array<[string, Record<string, unknown>, string]> = [
      ["prompts/get", { name: "bmad-analyst", arguments: { project: 5 } }, '"arguments.project": Invalid input: expected string, received number'],
      ["resources/read", {}, '"uri": Invalid input: expected string, received undefined'],
      ["resources/read", { uri: 5 }, '"uri": Invalid input: expected string, received number'],
      ["completion/complete", { ref: { type: "ref/bogus" }, argument: { name: "x", value: "" } }, '"ref.type": Invalid input: expected "ref/prompt" or expected "ref/resource"'],
      ["completion/complete", {}, '"ref": Invalid input: expected object, received undefined; "argument": Invalid input: expected object, received undefined'],
      ["tools/call", { name: TOOL.bmad, arguments: "prd" }, '"arguments": Invalid input: expected record, received string'],
      ...(era === "2025-11-25" ? [["initialize", {}, '"protocolVersion": Invalid input: expected string, received undefined; "capabilities": Invalid input: expected object, received undefined; "clientInfo": Invalid input: expected object, received undefined'] as [string, Record<string, unknown>, string]] : []),
    ];
    for (const [method, params, problem] of refusals) {
      expect(await rpc(era, method, params), method).toMatchObject({ error: { code: -32602, message: `Invalid params for ${method}: ${problem}.` } });
    }
  });

  it("names a caller's field with its controls written out and cut, and at most five of them (review 136)", async () => {
    const steering = await rpc("2025-11-25", "prompts/get", { name: "bmad-prd", arguments: { "a\n- Note: server ok\u202e": 5, ["k".repeat(100_000)]: 5 } });
    expect(steering.error).toMatchObject({ code: -32602 });
    const message = steering.error!.message;
    expect(message).toContain('"arguments.a\\n- Note: server ok\\u202e": Invalid input');
    expect(message).not.toMatch(/[\n\u202e]/);
    expect(message.length).toBeLessThan(1000);
    const many = await rpc("2025-11-25", "prompts/get", { name: "bmad-prd", arguments: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i])) });
    expect(many.error!.message).toMatch(/; and 35 more\.$/);
  });

  it("a compressed body is refused unread with 415, saying to send it uncompressed; identity is read", async () => {
    const post = async (encoding: string) =>
      (await authedFetch())(`${ORIGIN}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", "content-encoding": encoding, accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
        body: encoding === "identity" ? JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) : new Uint8Array([31, 139, 8, 0, 0, 0, 0, 0]),
      });
    for (const encoding of ["gzip", "br"]) {
      const res = await post(encoding);
      expect(res.status).toBe(415);
      expect(res.headers.get("accept-encoding")).toBe("identity");
      expect(await res.json()).toMatchObject({ error: { message: `This server reads request bodies uncompressed, not as Content-Encoding ${encoding}: send the body without compressing it.` } });
    }
    expect((await post("identity")).status).toBe(200);
  });
});

describe("request bodies (review 15)", () => {
  it("are read at most 6 MiB, whatever the token may do, and a body under it is served in both protocol eras", async () => {
    const reader = await signInAs(`${unique("reader")}@example.com`, "bmad:read");
    const writer = await signInAs(`${unique("writer")}@example.com`);
    const huge = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: TOOL.bmadFiles, arguments: { action: "read", path: "x", pad: "x".repeat(7 * 1024 * 1024) } } });
    const post = (token: string, body: BodyInit) =>
      withBearer(workerFetch, token)(`${ORIGIN}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" }, body });
    // With a length, and streamed without one: refused, naming the limit, before the rest is read.
    const chunked = () => new Blob([huge]).stream();
    for (const [token, body] of [[reader.token, huge], [reader.token, chunked()], [writer.token, chunked()]] as const) {
      const res = await post(token, body as BodyInit);
      expect(res.status).toBe(413);
      expect(await res.text()).toMatch(/over 6 MiB, the most one MCP request may be/);
    }
    // 4.5 MiB from a 2025 client (agents' legacy lane kept the SDK's 4 MiB and answered "Unsupported protocol version").
    expect((await writer.project({ action: "create", name: unique("big") })).isError).toBe(false);
    const project = ((await writer.project({ action: "list" })).structured.projects as Array<{ project: string }>)[0]!.project;
    const big = await rawCall(writer.token, "tools/call", { name: TOOL.bmadFiles, arguments: { action: "write", project, path: "big.md", content: "x".repeat(4.5 * 1024 * 1024) } });
    expect(big.status).toBe(200);
    expect(await big.text()).toMatch(/Arguments for bmad-files exceed 3072 KB; send less/);
    // Nor 300,000 keys in 4 MB, which the SDK's checks spent about a second on (review 84).
    const keys = Object.fromEntries(Array.from({ length: 300_000 }, (_, i) => [`k${i}`, 1]));
    const many = await post(writer.token, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: keys }));
    expect(many.status).toBe(413);
    expect(await many.text()).toContain("holds more than 20,000 JSON values, far past any call's");
    const items = await post(writer.token, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { a: new Array(1_000_000).fill(0) } }));
    expect(items.status).toBe(413);
    // Nor 2,000 levels of nesting, which overflowed the SDK's stack (review 95); 60 levels are still served.
    const nested = (levels: number) => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", clientInfo: { name: "deep", version: "1" }, capabilities: { experimental: JSON.parse(`${"{\"a\":".repeat(levels)}1${"}".repeat(levels)}`) } } });
    const deep = await post(writer.token, nested(2000));
    expect(deep.status).toBe(400);
    expect(await deep.json()).toMatchObject({ error: { code: -32602, message: "This request nests JSON more than 64 levels deep, far past any call's: send flatter arguments." } });
    expect((await post(writer.token, nested(60))).status).toBe(200);
  });

  // Review 219: the SDK answers a POST once every request id in it is answered. A batch that cancelled its own request
  // kept the response open for good (over 3 minutes), and a repeated id answered the first request only.
  it("refuse a batch that cancels its own request or repeats a request id, and serve one that does neither", async () => {
    const writer = await signInAs(`${unique("batcher")}@example.com`);
    const post = (batch: object[]) =>
      withBearer(workerFetch, writer.token)(`${ORIGIN}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" }, body: JSON.stringify(batch.map((m) => ({ jsonrpc: "2.0", ...m }))), signal: AbortSignal.timeout(10_000) });
    const cancels = await post([{ id: 5, method: "ping" }, { method: "notifications/cancelled", params: { requestId: 5 } }]);
    expect(cancels.status).toBe(400);
    expect(await cancels.json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "This batch cancels its own request 5, which would leave it unanswered and the response open: send notifications/cancelled in a POST of its own, after the request's." } });
    const repeats = await post([{ id: "one", method: "ping" }, { id: "one", method: "tools/list" }]);
    expect(repeats.status).toBe(400);
    expect(await repeats.json()).toMatchObject({ id: null, error: { code: -32600, message: 'Request id "one" is repeated in this batch; give each request its own id.' } });
    // 5 and "5" are different ids, and a cancel of another POST's request is a cancel like any.
    const fine = await post([{ id: 5, method: "ping" }, { id: "5", method: "ping" }, { method: "notifications/cancelled", params: { requestId: 9 } }]);
    expect(fine.status).toBe(200);
    expect(await fine.text()).toMatch(/"id":"5"[^]*"id":5|"id":5[^]*"id":"5"/);
  });

  // Review 465: one 13 KB POST of 100 prompts/get with a message cost up to a second of the isolate's CPU.
  it("refuse a batch of more than 10 tool calls, prompt renders and resource reads, and serve one of 10", async () => {
    const writer = await signInAs(`${unique("costly")}@example.com`);
    const post = (batch: object[]) =>
      withBearer(workerFetch, writer.token)(`${ORIGIN}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" }, body: JSON.stringify(batch.map((m, id) => ({ jsonrpc: "2.0", id, ...m }))), signal: AbortSignal.timeout(10_000) });
    const prompt = { method: "prompts/get", params: { name: "bmad-architect", arguments: { message: "Plan it", project: "none" } } };
    const many = await post(Array.from({ length: 100 }, () => prompt));
    expect(many.status).toBe(400);
    expect(await many.json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "This batch holds more than 10 tools/call, prompts/get and resources/read requests, the most one batch may: split it into several POSTs, or send them one at a time." } });
    const mixed = [...Array.from({ length: 4 }, () => ({ method: "tools/call", params: { name: TOOL.listWorkflows, arguments: {} } })), ...Array.from({ length: 4 }, () => ({ method: "resources/read", params: { uri: "bmad://bmm/bmad-agent-pm/SKILL.md" } })), ...Array.from({ length: 3 }, () => prompt)];
    expect((await post(mixed)).status).toBe(400);
    // Ten, and any number of cheap ones beside them, are served.
    const fine = await post([...mixed.slice(1), ...Array.from({ length: 20 }, () => ({ method: "ping" }))]);
    expect(fine.status).toBe(200);
    expect((await fine.text()).match(/"jsonrpc":"2\.0"/g)).toHaveLength(30);
  });

  it("are read capped on the sign-in endpoints too, which take them from anyone (review 19: 90 MB was buffered whole)", async () => {
    const pad = `grant_type=refresh_token&refresh_token=x&pad=${"x".repeat(1024 * 1024)}`;
    const form = { "content-type": "application/x-www-form-urlencoded" };
    for (const body of [pad, new Blob([pad]).stream()]) {
      const token = await workerFetch(`${ORIGIN}/oauth/token`, { method: "POST", headers: form, body, duplex: "half" } as RequestInit);
      expect(token.status).toBe(413);
      expect(await token.text()).toMatch(/A token request is at most 64 KB/);
    }
    // Nor past 32 fields (review 21: 13,000 keys in 64 KB cost 1.2 s a request, quadratic, before any sign-in).
    const many = `grant_type=refresh_token&${Array.from({ length: 5000 }, (_, i) => `k${i}=1`).join("&")}`;
    const fields = await workerFetch(`${ORIGIN}/oauth/token`, { method: "POST", headers: form, body: many });
    expect(fields.status).toBe(400);
    expect(await fields.text()).toMatch(/A token request has at most 32 fields/);
    const consent = await workerFetch(`${ORIGIN}/authorize`, { method: "POST", headers: form, body: `handle=x&decision=approve&pad=${"x".repeat(1024 * 1024)}` });
    expect(consent.status).toBe(400);
    expect(await consent.text()).toMatch(/a form of at most 16 KB/);
  });
});

describe("a damaged bundle manifest", () => {
  it("is a 503 that names the bundle and the fix, not a 500 with a stack, and the next good pointer serves (review 154)", async () => {
    const good = (await env.BUNDLE_KV.get(POINTER_KEY))!;
    const damaged = "e".repeat(64);
    const access = await token();
    const status = async () => {
      const res = await rawCall(access, "tools/list", {});
      return { status: res.status, body: await res.text() };
    };
    try {
      for (const manifest of ["{not json", JSON.stringify({ id: damaged })]) {
        await env.BUNDLE_KV.put(manifestKey(damaged), manifest);
        await env.BUNDLE_KV.put(POINTER_KEY, damaged);
        // The pointer is read again at most every 10 s: the clock moved past that, not waited for.
        vi.useFakeTimers({ now: Date.now() + 11_000, toFake: ["Date"] });
        const answer = await status();
        expect(answer.status, answer.body).toBe(503);
        expect(answer.body).toMatch(/Bundle eeeeeeeeeeee's manifest in KV is not (JSON|a bundle manifest); re-run npm run bundle:upload\./);
        expect(answer.body).not.toMatch(/ at |TypeError|SyntaxError/);
        await env.BUNDLE_KV.put(POINTER_KEY, good);
        vi.setSystemTime(Date.now() + 11_000);
        expect((await status()).status).toBe(200);
        vi.useRealTimers();
      }
    } finally {
      vi.useRealTimers();
      await env.BUNDLE_KV.put(POINTER_KEY, good);
    }
  });
});
