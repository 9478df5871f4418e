// bmad-mcp --remote keeps its sign-in bound to the authorization server that issued it. A small local
// server plays the MCP server and two authorization servers, and changes which one its resource metadata
// names: the saved refresh token goes to no other, the saved sign-in is dropped, and the bridge asks the user
// to sign in again at the server now named.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, expect, inject, it } from "vitest";
import { connectBridge, tempDir, waitFor } from "./helpers.js";
import { FileOAuthProvider, LoopbackCallback } from "../../src/bridge/credentials.js";

const tmp = tempDir("remote-issuer");
let bridge: string;
let server: Server;
let origin: string;
let remote: string;
/** Which authorization server the resource metadata names now. */
let named: "as-a" | "as-b" | "as-f" | "as-l";
/** Every token request: which server got it and its form fields. */
let tokenRequests: Array<{ server: string; form: Record<string, string> }>;
let registrations: string[];
const closers: Array<() => Promise<void>> = [];

const issuer = (as: string) => `${origin}/${as}`;

async function body(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text;
}

beforeAll(async () => {
  bridge = inject("bridge");
  server = createServer(async (req, res) => {
    const url = new URL(req.url!, origin);
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(value));
    if (url.pathname === "/.well-known/oauth-protected-resource/mcp") return json(200, { resource: remote, authorization_servers: [issuer(named)] });
    const metadata = /^\/\.well-known\/oauth-authorization-server\/(as-[abfl])$/.exec(url.pathname);
    if (metadata) {
      const base = issuer(metadata[1]!);
      // as-f names a file to open as its sign-in page (on a desktop, a launcher: mcp-remote's CVE-2025-6514 class).
      // as-l names one 20,000 characters long (review 31: 15 MB went to the terminal on one line).
      const authorize = metadata[1] === "as-f" ? "file:///tmp/bmad-evil.desktop" : metadata[1] === "as-l" ? `${base}/authorize?pad=${"x".repeat(20_000)}` : `${base}/authorize`;
      return json(200, {
        issuer: base, authorization_endpoint: authorize, token_endpoint: `${base}/token`, registration_endpoint: `${base}/register`,
        response_types_supported: ["code"], grant_types_supported: ["authorization_code", "refresh_token"], code_challenge_methods_supported: ["S256"], token_endpoint_auth_methods_supported: ["none"],
      });
    }
    const endpoint = /^\/(as-[abfl])\/(token|register)$/.exec(url.pathname);
    if (endpoint && endpoint[2] === "token") {
      const form = Object.fromEntries(new URLSearchParams(await body(req)));
      tokenRequests.push({ server: endpoint[1]!, form });
      // Refresh tokens are honoured only by the server that issued them.
      if (form.grant_type === "refresh_token" && form.refresh_token === `rt-${endpoint[1]}`) return json(200, { access_token: `fresh-${endpoint[1]}`, token_type: "Bearer", expires_in: 3600 });
      return json(400, { error: "invalid_grant" });
    }
    if (endpoint) {
      const client = JSON.parse(await body(req)) as Record<string, unknown>;
      registrations.push(endpoint[1]!);
      return json(201, { ...client, client_id: `client-${endpoint[1]}-${registrations.length}` });
    }
    if (url.pathname === "/mcp") {
      return json(401, { error: "invalid_token" }, { "www-authenticate": `Bearer error="invalid_token", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` });
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  remote = `${origin}/mcp`;
}, 60_000);
beforeEach(() => {
  tokenRequests = [];
  registrations = [];
});
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  server?.close();
  tmp.cleanup();
});

/** A config folder whose credentials.json holds a sign-in made at authorization server A. */
function savedSignIn(name: string, stamped: boolean): { config: string; file: string } {
  const config = join(tmp.dir, name);
  const file = join(config, "bmad-mcp", "credentials.json");
  mkdirSync(join(config, "bmad-mcp"), { recursive: true });
  const stamp = stamped ? { issuer: issuer("as-a") } : {};
  const entry = {
    client: { client_id: "client-as-a", redirect_uris: ["http://127.0.0.1:1/callback"], token_endpoint_auth_method: "none", ...stamp },
    tokens: { access_token: "expired-a", token_type: "Bearer", refresh_token: "rt-as-a", ...stamp },
  };
  writeFileSync(file, JSON.stringify({ [remote]: entry }), { mode: 0o600 });
  return { config, file };
}

async function startRemote(config: string) {
  const project = join(tmp.dir, `project-${closers.length}`);
  mkdirSync(project, { recursive: true });
  const bridgeProcess = await connectBridge(bridge, project, { args: ["--remote", remote], env: { XDG_CONFIG_HOME: config, BMAD_MCP_BROWSER: "none" } });
  closers.push(bridgeProcess.close);
  return bridgeProcess;
}

const signInUrl = (stderr: string) => /sign in to \S+ in your browser: (\S+)/.exec(stderr)?.[1];

for (const stamped of [true, false]) {
  it(`sends a saved refresh token to no other authorization server, and signs in again at the new one (${stamped ? "stamped" : "saved by an older bridge"})`, async () => {
    named = "as-b";
    const { config, file } = savedSignIn(`config-${stamped}`, stamped);
    const { stderr } = await startRemote(config);
    const link = await waitFor("the sign-in link", () => signInUrl(stderr()), 15_000);
    expect(link.startsWith(`${issuer("as-b")}/authorize?`)).toBe(true);
    expect(tokenRequests.filter((r) => r.form.refresh_token === "rt-as-a")).toEqual([]);
    expect(new URL(link).searchParams.get("client_id")).not.toBe("client-as-a");
    expect(registrations).toEqual(["as-b"]);
    // The old sign-in is gone from disk, and the user is told why.
    expect(readFileSync(file, "utf8")).not.toContain("rt-as-a");
    expect(stderr()).toMatch(stamped
      ? new RegExp(`the saved sign-in for ${remote} was issued by ${issuer("as-a")}, but the server now names ${issuer("as-b")}; signing in again`)
      : new RegExp(`the saved sign-in for ${remote} does not record which authorization server issued it; signing in again`));
  }, 30_000);
}

it("refreshes a saved sign-in at the authorization server that issued it", async () => {
  named = "as-a";
  const { config } = savedSignIn("config-same", true);
  const { stderr } = await startRemote(config);
  await waitFor("a refresh at A", () => (tokenRequests.length ? true : undefined), 15_000);
  expect(tokenRequests[0]).toMatchObject({ server: "as-a", form: { grant_type: "refresh_token", refresh_token: "rt-as-a", client_id: "client-as-a" } });
  expect(tokenRequests.every((r) => r.server === "as-a")).toBe(true);
  expect(stderr()).not.toMatch(/signing in again/);
}, 30_000);

/** The bridge's stderr once it refused the sign-in page the authorization server `as` names. */
async function refusedSignIn(as: typeof named, configName: string): Promise<string> {
  named = as;
  const config = join(tmp.dir, configName);
  mkdirSync(config, { recursive: true });
  const { stderr } = await startRemote(config);
  await waitFor("the refusal", () => (/refused to open it/.test(stderr()) ? true : undefined), 15_000);
  return stderr();
}

it("opens no sign-in page that is not a web address over https (or http on this machine)", async () => {
  const stderr = await refusedSignIn("as-f", "config-file-url");
  expect(stderr).toContain(`${remote} named a sign-in page that is not a web address over https (file://…)`);
  expect(signInUrl(stderr)).toBeUndefined();
}, 30_000);

it("opens and shows no sign-in page longer than a sign-in address needs", async () => {
  const stderr = await refusedSignIn("as-l", "config-long-url");
  expect(stderr).toMatch(new RegExp(`${remote.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} named a sign-in page \\d+ characters long, more than a sign-in address needs \\(8192\\)`));
  expect(stderr).not.toContain("x".repeat(100));
}, 30_000);

it("keeps no token a request header cannot carry, and forgets one kept before (review 125: every later run failed, quoting it)", () => {
  const config = join(tmp.dir, "header-unsafe");
  mkdirSync(config, { recursive: true });
  const file = join(config, "credentials.json");
  const provider = new FileOAuthProvider(remote, new LoopbackCallback(), () => {}, file);
  expect(() => provider.saveTokens({ access_token: "abc\r\nX-Evil: 1", token_type: "Bearer" })).toThrow(/characters no request header carries .* it was not saved/);
  expect(provider.tokens()).toBeUndefined();
  writeFileSync(file, JSON.stringify({ [remote]: { tokens: { access_token: "abc\nX-Evil: 1", token_type: "Bearer" } } }), { mode: 0o600 });
  expect(provider.tokens()).toBeUndefined();
  provider.saveTokens({ access_token: "good-token", token_type: "Bearer" });
  expect(provider.tokens()).toMatchObject({ access_token: "good-token" });
});
