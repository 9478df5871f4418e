// Sign-in in local mode (loopback host, no identity provider): discovery, registration, consent, tokens,
// refresh, revocation, scopes, and each way a request can be wrong.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { authorize, exchange, pkce, refresh, register, signIn, tickedScopes, withBearer } from "../../scripts/oauth-client.js";
import { ORIGIN, workerFetch } from "./client.js";
import { TOOL } from "../../src/core/surface/names.js";
import { seed } from "./setup.js";
import { signInAs, unique } from "./workspace-users.js";

const RPC = (method: string, params: Record<string, unknown> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
});

async function toolsList(token?: string, url = `${ORIGIN}/mcp`): Promise<Response> {
  return (token ? withBearer(workerFetch, token) : workerFetch)(url, RPC("tools/list"));
}

/** A client registered, before registration refused it (review 285), with `redirectUri` alone: its stored record
 *  given that redirect_uri, as an older server kept it. */
async function registeredBefore(redirectUri: string): Promise<{ client_id: string }> {
  const { client_id } = await register(workerFetch, ORIGIN, { redirect_uris: ["https://app.example/cb"] });
  const record = await env.OAUTH_KV.get<Record<string, unknown>>(`client:${client_id}`, "json");
  await env.OAUTH_KV.put(`client:${client_id}`, JSON.stringify({ ...record, redirectUris: [redirectUri] }));
  return { client_id };
}

describe("discovery", { timeout: 60_000 }, () => {
  it("answers /mcp without a token with 401 naming the protected-resource metadata", async () => {
    const res = await toolsList();
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain(`resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/mcp"`);
    // What a client asks for, as MCP's scope selection has it: with bmad:read alone, an SDK client never wrote (review 203).
    expect(res.headers.get("www-authenticate")).toContain('scope="bmad:read bmad:write"');
  });

  it("publishes RFC 9728 and RFC 8414 metadata: S256 only, registration, scopes", async () => {
    const resource = await (await workerFetch(`${ORIGIN}/.well-known/oauth-protected-resource/mcp`)).json<Record<string, unknown>>();
    expect(resource).toMatchObject({ resource: `${ORIGIN}/mcp`, authorization_servers: [ORIGIN], scopes_supported: ["bmad:read", "bmad:write"] });
    const as = await (await workerFetch(`${ORIGIN}/.well-known/oauth-authorization-server`)).json<Record<string, unknown>>();
    expect(as).toMatchObject({ issuer: ORIGIN, code_challenge_methods_supported: ["S256"], registration_endpoint: `${ORIGIN}/oauth/register` });
    expect(as.scopes_supported).toEqual(expect.arrayContaining(["bmad:read", "bmad:write"]));
    expect(as.client_id_metadata_document_supported).toBe(true);
  });

  it("registers clients with both Claude callback URLs", async () => {
    const claude = await register(workerFetch, ORIGIN, { redirect_uris: ["https://claude.ai/api/mcp/auth_callback", "https://claude.com/api/mcp/auth_callback"], client_name: "Claude" });
    expect(claude.status).toBe(201);
    for (const redirectUri of ["https://claude.ai/api/mcp/auth_callback", "https://claude.com/api/mcp/auth_callback"]) {
      const outcome = await authorize(workerFetch, ORIGIN, { clientId: claude.client_id, redirectUri });
      expect(outcome.ok && outcome.location.startsWith(redirectUri)).toBe(true);
    }
  });

  // Review 203: Cursor's app scheme was refused alone, and stored but unusable beside its https and loopback callbacks.
  it("signs in an app by its own scheme (RFC 8252), saying on the page that access goes to an app on the computer", async () => {
    const cursor = "cursor://anysphere.cursor-mcp/oauth/callback";
    const app = await register(workerFetch, ORIGIN, { redirect_uris: [cursor], client_name: "Cursor" });
    expect(app.status).toBe(201);
    const query = new URLSearchParams({ response_type: "code", client_id: app.client_id, redirect_uri: cursor, code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256", state: "s" });
    const page = await workerFetch(`${ORIGIN}/authorize?${query}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Access will be sent to the app on your computer that opens <strong>cursor:</strong> links.</p>\n<p><strong>This sends access to an app on your computer.</strong>");
    const outcome = await authorize(workerFetch, ORIGIN, { clientId: app.client_id, redirectUri: cursor });
    expect(outcome.ok && outcome.location.startsWith(`${cursor}?code=`)).toBe(true);
    // Deny (and Allow) leave a page that opens the app and says so: the consent page stayed up, and a second click
    // said the sign-in was not started in this browser (review 209).
    const consent = await workerFetch(`${ORIGIN}/authorize?${query}`);
    const cookie = consent.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const handle = /name="handle" value="([^"]+)"/.exec(await consent.text())![1]!;
    const denied = await workerFetch(`${ORIGIN}/authorize`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: ORIGIN }, body: new URLSearchParams({ handle, decision: "deny" }) });
    expect(denied.status).toBe(200);
    const opens = await denied.text();
    expect(opens).toContain("Your app opens now with your answer.");
    expect(opens).toMatch(/<meta http-equiv="refresh" content="0;url=cursor:\/\/anysphere\.cursor-mcp\/oauth\/callback\?error=access_denied&#38;state=s&#38;iss=/);
    for (const unsafe of ["javascript:alert(1)", "data:text/html,x", "file:///etc/passwd"]) expect((await register(workerFetch, ORIGIN, { redirect_uris: [unsafe] })).status).toBe(400);
    // Review 206: schemes the browser or the system opens (a website, a page) were called an app on the computer.
    // Review 285: such a registration was taken, and every sign-in then refused; one with no other is refused now, with
    // the same words, and the sign-in still refuses such a redirect_uri.
    for (const web of ["x-safari-https://evil.example/cb", "googlechrome://evil.example/cb", "web+foo://evil.example/cb", "intent://evil.example/cb", "ftp://evil.example/cb", "about:blank", "view-source:https://evil.example/"]) {
      const registering = await register(workerFetch, ORIGIN, { redirect_uris: [web] });
      expect(registering.status, web).toBe(400);
      // Beside a usable one it is taken: the sign-in with that one works.
      expect((await register(workerFetch, ORIGIN, { redirect_uris: ["https://app.example/cb", web] })).status, web).toBe(201);
      expect(registering.json).toMatchObject({ error: "invalid_client_metadata", error_description: expect.stringContaining(`redirect_uris: This app's redirect_uri, a ${new URL(web).protocol} address, is not one this server sends access to: it sends it to https, http on a loopback address, or an app's own scheme`) });
      const client = await registeredBefore(web);
      const refused = await workerFetch(`${ORIGIN}/authorize?${new URLSearchParams({ response_type: "code", client_id: client.client_id, redirect_uri: web, code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256", state: "s" })}`);
      expect(refused.status, web).toBe(400);
      expect(await refused.text()).toContain("is not one this server sends access to: it sends it to https, http on a loopback address, or an app&#39;s own scheme");
    }
    const reverse = await register(workerFetch, ORIGIN, { redirect_uris: ["com.example.planner:/oauth"] });
    expect((await authorize(workerFetch, ORIGIN, { clientId: reverse.client_id, redirectUri: "com.example.planner:/oauth" })).ok).toBe(true);
  });

  // Review 210: a request the provider refused sent the browser to a refused scheme with the error, and to an app's
  // scheme by a bare redirect; and Cursor's other links (an MCP install link carrying someone's config) passed as its callback.
  it("sends an error the way it sends an answer: an app's scheme by its page, a refused scheme nowhere", async () => {
    const cursor = "cursor://anysphere.cursor-mcp/oauth/callback";
    const app = await register(workerFetch, ORIGIN, { redirect_uris: [cursor] });
    const query = { response_type: "token", client_id: app.client_id, redirect_uri: cursor, code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256", state: "s" };
    const wrong = await workerFetch(`${ORIGIN}/authorize?${new URLSearchParams(query)}`);
    expect(wrong.status).toBe(200);
    expect(await wrong.text()).toMatch(/<meta http-equiv="refresh" content="0;url=cursor:\/\/anysphere\.cursor-mcp\/oauth\/callback\?error=unsupported_response_type/);
    const deepLink = "cursor://anysphere.cursor-deeplink/mcp/install?name=x&config=eyJ1cmwiOiJodHRwczovL2V2aWwuZXhhbXBsZSJ9";
    for (const web of [deepLink, "cursor://anysphere.cursor-mcp/oauth/other", "x-safari-https://evil.example/", "web+foo://evil.example/"]) {
      const client = await registeredBefore(web);
      const good = { response_type: "code", client_id: client.client_id, redirect_uri: web, code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256", state: "s" };
      for (const bad of [{}, { response_type: "token" }, { resource: "https://other.example/mcp" }, { code_challenge_method: "plain" }] as Record<string, string>[]) {
        const refused = await workerFetch(`${ORIGIN}/authorize?${new URLSearchParams({ ...good, ...bad })}`);
        expect(refused.status, `${web} ${JSON.stringify(bad)}`).toBe(400);
        expect(refused.headers.get("location")).toBeNull();
        expect(await refused.text()).toContain("is not one this server sends access to: it sends it to https, http on a loopback address, or an app&#39;s own scheme");
      }
    }
  });

  it("offers bmad:read beside bmad:write to a client that asked for write alone, so that its token can initialize (review 206)", async () => {
    await seed();
    const tokens = await signIn(workerFetch, ORIGIN, { scope: "bmad:write", approveScopes: ["bmad:read", "bmad:write"] });
    expect(tokens.scope.split(" ").sort()).toEqual(["bmad:read", "bmad:write"]);
    expect((await toolsList(tokens.access_token)).status).toBe(200);
    // Nor can the user untick it (review 209): a form without it still grants it, and the page offers no box for it.
    const unticked = await signIn(workerFetch, ORIGIN, { scope: "bmad:read bmad:write", approveScopes: [] });
    expect(unticked.scope).toBe("bmad:read");
    expect((await toolsList(unticked.access_token)).status).toBe(200);
  });

  /** The consent page for a client registered with `fields`, asking for `query`'s changes to a good request. */
  async function consentFor(fields: Parameters<typeof register>[2], query: Record<string, string> = {}): Promise<Response> {
    const client = await register(workerFetch, ORIGIN, fields);
    const redirect_uri = fields?.redirect_uris?.[0] ?? "http://127.0.0.1:33418/callback";
    const good = { response_type: "code", client_id: client.client_id, redirect_uri, code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256", state: "s", scope: "bmad:read bmad:write" };
    const url = new URL(`${ORIGIN}/authorize`);
    for (const [k, v] of Object.entries({ ...good, ...query })) if (v !== "") url.searchParams.set(k, v);
    return workerFetch(url, { redirect: "manual" });
  }

  // Review 332: a read-only token reads every file of the user's projects and those shared with them, and their memory.
  it("says what bmad:read reads: sessions, memory and the files of every project owned or shared", async () => {
    const page = await (await consentFor({})).text();
    expect(page).toContain("bmad:read: read BMAD content, your sessions and memory, and the files of every project you own or that is shared with you (always: every call needs it)");
  });

  // Review 332: an app scheme's URI names a host (claude.ai) that access never goes to.
  it("names an app's scheme, never its URI's host, as where access goes", async () => {
    const page = await (await consentFor({ redirect_uris: ["ai.claude.desktop://claude.ai/api/mcp/auth_callback"], client_name: "Claude" })).text();
    expect(page).toContain("Access will be sent to the app on your computer that opens <strong>ai.claude.desktop:</strong> links.");
    expect(page).not.toContain("claude.ai</strong>");
  });

  // Review 332: Hangul fillers, a braille blank and piled combining marks reached the page.
  it("shows a client's name without what shows as nothing, blanks collapsed and marks not piled", async () => {
    const names: Array<[string, string]> = [
      [`Claude${"\u3164".repeat(18)}(claude.ai, verified)`, "Claude(claude.ai, verified)"],
      ["\u115F\u1160\uFFA0\u3164", "An unnamed app"],
      ["\u2800\u2800\u2800", "An unnamed app"],
      [`Cl\u2800\u2800\u2800aude`, "Cl aude"],
      [`Claude${"\u0336".repeat(150)}`, `Claude${"\u0336".repeat(4)}`],
      ["Claude \u202Eevil\u200B", "Claude evil"],
      ["Claude\n\u200D(claude.ai,\u00ADverified)", "Claude (claude.ai,verified)"],
      // Review 336: the joins a script or emoji is written with stay; so do a pointed letter's four marks.
      ["I \u2764\uFE0F BMAD", "I \u2764\uFE0F BMAD"],
      ["\u{1F468}\u200D\u{1F469}\u200D\u{1F467} Family", "\u{1F468}\u200D\u{1F469}\u200D\u{1F467} Family"],
      ["\u06A9\u062A\u0627\u0628\u200C\u062E\u0627\u0646\u0647", "\u06A9\u062A\u0627\u0628\u200C\u062E\u0627\u0646\u0647"],
      ["\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F} Scots", "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F} Scots"],
      ["\u05D1\u05BC\u05B0\u05E8\u05B5\u05D0\u05E9\u05C1\u05B4\u0596\u05D9\u05EA", "\u05D1\u05BC\u05B0\u05E8\u05B5\u05D0\u05E9\u05C1\u05B4\u0596\u05D9\u05EA"],
    ];
    for (const [name, shown] of names) {
      const page = await (await consentFor({ client_name: name })).text();
      expect(page, JSON.stringify(name)).toContain(`<p><strong>${shown}</strong> asks to use the BMAD MCP server`);
    }
  });

  // Review 332: a code_challenge without its method was told "The plain PKCE method is not allowed".
  it("tells an app that sent no code_challenge_method that it must send S256", async () => {
    const missing = await consentFor({}, { code_challenge_method: "" });
    expect(missing.status).toBe(302);
    const location = new URL(missing.headers.get("location")!);
    expect(location.searchParams.get("error")).toBe("invalid_request");
    expect(location.searchParams.get("error_description")).toBe("This app sent a code_challenge without a code_challenge_method: it must send code_challenge_method=S256. Update the app, or ask its makers to.");
    expect(location.searchParams.get("state")).toBe("s");
    const plain = new URL((await consentFor({}, { code_challenge_method: "plain" })).headers.get("location")!);
    expect(plain.searchParams.get("error_description")).toBe("The plain PKCE method is not allowed. Use S256 instead.");
  });

  it("names the scopes it ignores only where they are scope tokens, and counts the others (review 210)", async () => {
    const client = await register(workerFetch, ORIGIN);
    const query = { response_type: "code", client_id: client.client_id, redirect_uri: "http://127.0.0.1:33418/callback", code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256", state: "s", scope: 'bmad:read "><img src=x> \u202Ebmad:write' };
    const page = await (await workerFetch(`${ORIGIN}/authorize?${new URLSearchParams(query)}`)).text();
    expect(page).toContain("<p>Not offered here, not granted: src=x&#62;; 2 other scopes.</p>");
    expect(page).not.toContain("\u202E");
  });
});

describe("a signed-in client", { timeout: 60_000 }, () => {
  it("gets tools with its token, refreshes it, and loses access when it is revoked", async () => {
    await seed();
    const tokens = await signIn(workerFetch, ORIGIN);
    expect((await toolsList(tokens.access_token)).status).toBe(200);
    const refreshed = await refresh(workerFetch, ORIGIN, tokens.client_id, tokens.refresh_token!);
    expect(refreshed.status).toBe(200);
    expect((await toolsList(refreshed.json.access_token)).status).toBe(200);
    const revoked = await workerFetch(`${ORIGIN}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: refreshed.json.access_token, token_type_hint: "access_token", client_id: tokens.client_id }),
    });
    expect(revoked.status).toBe(200);
    expect((await toolsList(refreshed.json.access_token)).status).toBe(401);
  });

  it("is refused writing tools with a read-only token: 403 insufficient_scope", async () => {
    await seed();
    const readOnly = await signIn(workerFetch, ORIGIN, { scope: "bmad:read", approveScopes: ["bmad:read"] });
    expect(readOnly.scope).toBe("bmad:read");
    const call = (name: string, args: Record<string, unknown>) => withBearer(workerFetch, readOnly.access_token)(`${ORIGIN}/mcp`, RPC("tools/call", { name, arguments: args }));
    const write = await call("bmad-task", { action: "start", objective: "x" });
    expect(write.status).toBe(403);
    expect(write.headers.get("www-authenticate")).toMatch(/error="insufficient_scope".*scope="bmad:read bmad:write"/);
    // In words too, for a client that shows them (review 117).
    expect(JSON.stringify(await write.json())).toContain("This token carries bmad:read only: a tool that changes files, projects or sessions needs bmad:write. Sign in again and allow bmad:write.");
    expect((await call("bmad", { command: "" })).status).toBe(200);
    // A session's status is a read (review 48: it needed bmad:write).
    const status = await call("bmad-task", { action: "status", session_id: "no-such-session" });
    expect(status.status).toBe(200);
    expect(await status.text()).toContain("isError");
  });

  it("is granted no scope the consent page did not offer, whatever the form posts (an eleventh review)", async () => {
    const tokens = await signIn(workerFetch, ORIGIN, { scope: "bmad:read", approveScopes: ["bmad:read", "bmad:write", "offline_access"] });
    expect(tokens.scope).toBe("bmad:read");
  });

  it("gets a refresh token only where the person left \"stay signed in\" ticked, or was not asked (review 55)", async () => {
    const unticked = await signIn(workerFetch, ORIGIN, { scope: "bmad:read offline_access", approveScopes: ["bmad:read"] });
    expect(unticked.scope).toBe("bmad:read");
    expect(unticked.refresh_token).toBeUndefined();
    const ticked = await signIn(workerFetch, ORIGIN, { scope: "bmad:read offline_access", approveScopes: ["bmad:read", "offline_access"] });
    expect(ticked.refresh_token).toBeDefined();
    const notAsked = await signIn(workerFetch, ORIGIN, { scope: "bmad:read", approveScopes: ["bmad:read"] });
    expect(notAsked.refresh_token).toBeDefined();
  });

  it("is refused everything without bmad:read: a token a refresh narrowed to offline_access gets 403 insufficient_scope (the consent page always grants bmad:read)", async () => {
    await seed();
    // The consent page grants bmad:read whatever the form posts (review 209); a refresh that asks for less makes such a token.
    const tokens = await signIn(workerFetch, ORIGIN, { scope: "offline_access", approveScopes: ["offline_access"] });
    expect(tokens.scope).toBe("bmad:read offline_access");
    expect((await toolsList(tokens.access_token)).status).toBe(200);
    const none = await signIn(workerFetch, ORIGIN, { scope: "offline_access", approveScopes: [] });
    expect(none.scope).toBe("bmad:read");
    const less = await exchange(workerFetch, ORIGIN, { grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: tokens.client_id, scope: "offline_access" });
    expect(less.json.scope).toBe("offline_access");
    const res = await toolsList(less.json.access_token);
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toMatch(/error="insufficient_scope".*scope="bmad:read"/);
  });
});

describe("the consent page", { timeout: 60_000 }, () => {
  async function consentHtml(scope?: string): Promise<string> {
    const client = await register(workerFetch, ORIGIN);
    const { challenge } = await pkce();
    const url = new URL(`${ORIGIN}/authorize`);
    const query: Record<string, string> = { response_type: "code", client_id: client.client_id, redirect_uri: "http://127.0.0.1:33418/callback", code_challenge: challenge, code_challenge_method: "S256", state: "s", resource: `${ORIGIN}/mcp` };
    if (scope !== undefined) query.scope = scope;
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    return (await workerFetch(url)).text();
  }

  it("says what bmad:write lets an app do: change, run and share, not only keep state (review 147)", async () => {
    expect(await consentHtml("bmad:read bmad:write")).toContain("bmad:write: change your projects: write, delete and restore files, run BMAD&#39;s scripts on them, share them with others, keep sessions");
  });

  it("says that an app which asked for no choice stays signed in (review 61)", async () => {
    expect(await consentHtml("bmad:read")).toContain("stays signed in for up to 30 days");
    expect(await consentHtml("bmad:read offline_access")).not.toContain("stays signed in for up to 30 days");
  });

  it("is shown only to apps that use PKCE, confidential ones too (review 15)", async () => {
    const client = await register(workerFetch, ORIGIN, { token_endpoint_auth_method: "client_secret_basic" });
    expect(client.status).toBe(201);
    const url = new URL(`${ORIGIN}/authorize`);
    for (const [k, v] of Object.entries({ response_type: "code", client_id: client.client_id, redirect_uri: "http://127.0.0.1:33418/callback", state: "s", resource: `${ORIGIN}/mcp` })) url.searchParams.set(k, v);
    // Sent back to the app, whose redirect_uri is registered (review 417: a page the app never saw).
    const res = await workerFetch(url);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(location.origin + location.pathname).toBe("http://127.0.0.1:33418/callback");
    expect(location.searchParams.get("error")).toBe("invalid_request");
    expect(location.searchParams.get("error_description")).toContain("this server signs in only apps that use PKCE (S256)");
    expect(location.searchParams.get("state")).toBe("s");
  });

  it("ticks only the scopes the client asked for, and bmad:read when it asked for none", async () => {
    expect(tickedScopes(await consentHtml("bmad:read"))).toEqual(["bmad:read"]);
    expect(tickedScopes(await consentHtml("bmad:read bmad:write offline_access"))).toEqual(["bmad:read", "bmad:write", "offline_access"]);
    expect(tickedScopes(await consentHtml())).toEqual(["bmad:read"]);
    expect(await consentHtml("bmad:read")).not.toContain("bmad:write");
  });

  it("grants a read-only client read access when the user allows the page as shown", async () => {
    await seed();
    const tokens = await signIn(workerFetch, ORIGIN, { scope: "bmad:read" });
    expect(tokens.scope).toBe("bmad:read");
    expect((await toolsList(tokens.access_token)).status).toBe(200);
  });

  it("offers local development a \"Sign in as\" field: an email signs in a separate local user, anything else is refused", async () => {
    const html = await consentHtml("bmad:read");
    expect(html).toMatch(/<label>Sign in as \(optional\): <input type="email" name="user"[^>]*><\/label><br>\n<small>Local development only: /);
    await seed();
    // Grace (signed in through the field) and the local user are two people: her project is hers alone.
    const grace = await signInAs("grace@example.com");
    const name = unique("graces");
    expect((await grace.project({ action: "create", name })).isError).toBe(false);
    expect((await grace.project({ action: "list" })).text).toContain(`${name} (yours)`);
    const local = new Client({ name: "local-user", version: "1.0.0" });
    await local.connect(new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), { fetch: withBearer(workerFetch, (await signIn(workerFetch, ORIGIN, { scope: "bmad:read" })).access_token) }));
    const listed = await local.callTool({ name: TOOL.bmadProject, arguments: { action: "list" } });
    expect(listed.isError).not.toBe(true);
    expect(JSON.stringify(listed.content)).not.toContain(name);
    const client = await register(workerFetch, ORIGIN);
    for (const user of ["grace", "a@b\u0000", "a\u202e@b.example"]) {
      const refused = await authorize(workerFetch, ORIGIN, { clientId: client.client_id, user });
      expect(refused, JSON.stringify(user)).toMatchObject({ ok: false, status: 400, body: expect.stringContaining("must be an email address, or empty for the local user") });
    }
  });

  it("refuses an approval posted from another origin with 403 and issues no code", async () => {
    const client = await register(workerFetch, ORIGIN);
    for (const origin of ["https://evil.example", "null", "http://127.0.0.1:9999"]) {
      const outcome = await authorize(workerFetch, ORIGIN, { clientId: client.client_id, origin });
      expect({ origin, ok: outcome.ok, status: !outcome.ok && outcome.status }).toEqual({ origin, ok: false, status: 403 });
      expect(!outcome.ok && outcome.body).toContain(`sent from ${origin}`);
    }
    expect((await authorize(workerFetch, ORIGIN, { clientId: client.client_id })).ok).toBe(true);
  });
});

describe("bad tokens and bad requests", { timeout: 60_000 }, () => {
  it("refuses a bogus token", async () => {
    expect((await toolsList("not-a-token")).status).toBe(401);
    expect((await toolsList("a".repeat(64))).status).toBe(401);
  });

  it("refuses a token at another resource", async () => {
    const { access_token } = await signIn(workerFetch, ORIGIN);
    expect((await toolsList(access_token, "http://localhost:8787/mcp")).status).toBe(401);
    const client = await register(workerFetch, ORIGIN);
    const other = await authorize(workerFetch, ORIGIN, { clientId: client.client_id, resource: "https://other.example/mcp" });
    expect(other).toMatchObject({ ok: false, error: "invalid_target" });
  });

  it("refuses a code without the PKCE verifier, or with the wrong one", async () => {
    const client = await register(workerFetch, ORIGIN);
    const { verifier } = await pkce();
    for (const code_verifier of [undefined, "wrong-verifier-".padEnd(50, "x")]) {
      const outcome = await authorize(workerFetch, ORIGIN, { clientId: client.client_id, verifier });
      if (!outcome.ok) throw new Error(outcome.body);
      const body: Record<string, string> = { grant_type: "authorization_code", code: outcome.code, redirect_uri: "http://127.0.0.1:33418/callback", client_id: client.client_id, resource: `${ORIGIN}/mcp` };
      if (code_verifier) body.code_verifier = code_verifier;
      const token = await exchange(workerFetch, ORIGIN, body);
      expect(token.status).toBe(400);
      expect(token.json.error).toMatch(/invalid_(grant|request)/);
    }
  });

  it("names the resource it refuses and this server's, at /authorize and the token endpoint (review 417)", async () => {
    const client = await register(workerFetch, ORIGIN);
    const query = { response_type: "code", client_id: client.client_id, redirect_uri: "http://127.0.0.1:33418/callback", code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256", state: "s", resource: "https://other.example/mcp" };
    const refused = await workerFetch(`${ORIGIN}/authorize?${new URLSearchParams(query)}`);
    const told = `The resource parameter, https://other.example/mcp, is not this server's MCP endpoint: send resource=${ORIGIN}/mcp, exactly`;
    expect(new URL(refused.headers.get("location")!).searchParams.get("error_description")).toContain(told);
    const tokens = await signIn(workerFetch, ORIGIN);
    const answer = await exchange(workerFetch, ORIGIN, { grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: tokens.client_id, resource: "https://other.example/mcp" });
    expect(answer).toMatchObject({ status: 400, json: { error: "invalid_target", error_description: expect.stringContaining(told) } });
  });

  it("tells a token request from an unknown client_id to register again, naming it (review 417)", async () => {
    const answer = await exchange(workerFetch, ORIGIN, { grant_type: "refresh_token", refresh_token: `local:${"g".repeat(16)}:${"s".repeat(32)}`, client_id: "no-such-client" });
    expect(answer).toMatchObject({ status: 401, json: { error: "invalid_client", error_description: expect.stringMatching(/client_id, no-such-client, is not registered on this server.*add it again, so that the app registers anew/) } });
  });

  it("refuses a code_challenge or a state the app cannot use the way it answers: the challenge back to the app, an overlong state on a page (review 417)", async () => {
    const client = await register(workerFetch, ORIGIN);
    const query = { response_type: "code", client_id: client.client_id, redirect_uri: "http://127.0.0.1:33418/callback", code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256", state: "s" };
    const short = await workerFetch(`${ORIGIN}/authorize?${new URLSearchParams({ ...query, code_challenge: "c".repeat(42) })}`);
    expect(short.status).toBe(302);
    const location = new URL(short.headers.get("location")!);
    expect([location.searchParams.get("error"), location.searchParams.get("state")]).toEqual(["invalid_request", "s"]);
    expect(location.searchParams.get("error_description")).toContain("not an S256 challenge (43 characters of base64url, RFC 7636)");
    const long = await workerFetch(`${ORIGIN}/authorize?${new URLSearchParams({ ...query, state: "s".repeat(600) })}`);
    expect(long.status).toBe(400);
    expect(long.headers.get("location")).toBeNull();
    expect(await long.text()).toContain("This app sent a state longer than 512 characters");
  });

  it("renders an unregistered redirect URI locally, never redirecting to it", async () => {
    const client = await register(workerFetch, ORIGIN);
    const outcome = await authorize(workerFetch, ORIGIN, { clientId: client.client_id, redirectUri: "https://attacker.example/cb" });
    expect(outcome).toMatchObject({ ok: false, status: 400 });
    expect(outcome).not.toHaveProperty("location");
  });

  // Review 285: the page said only "Invalid redirect URI" or "Invalid client_id".
  it("names the redirect_uri or client_id it refuses, the rule, and that a registration ends", async () => {
    const client = await register(workerFetch, ORIGIN);
    const text = async (clientId: string, redirectUri: string) => {
      const outcome = await authorize(workerFetch, ORIGIN, { clientId, redirectUri });
      expect(outcome).toMatchObject({ ok: false, status: 400 });
      return outcome.ok ? "" : outcome.body;
    };
    const localhost = await text(client.client_id, "http://localhost:33418/callback");
    expect(localhost).toContain("This app&#39;s redirect_uri, http://localhost:33418/callback, is not one it registered here");
    expect(localhost).toContain("match a registered one exactly, character for character: only on a loopback address may the port differ, and localhost is not 127.0.0.1.");
    expect(localhost).toContain("a registration is kept for 90 days, renewed each time the app gets tokens");
    const hostile = await text(client.client_id, `https://evil.example/<script>${"a".repeat(300)}`);
    expect(hostile).toContain(`https://evil.example/&#60;script&#62;${"a".repeat(171)}…, is not one`);
    expect(hostile).not.toContain("<script>");
    const unknown = await text("no-such-client", "http://127.0.0.1:33418/callback");
    expect(unknown).toContain("This app&#39;s client_id, no-such-client, is not registered on this server: it never registered here, or its registration has ended (a registration is kept for 90 days, renewed each time the app gets tokens).");
  });

  it("refuses a consent form without the browser's cookie (CSRF) or with a bad handle", async () => {
    const forged = await workerFetch(`${ORIGIN}/authorize`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "handle=abc&decision=approve&scope=bmad%3Aread" });
    expect(forged.status).toBe(400);
  });

  it("serves a consent page that cannot be framed nor sent on as Referer, with __Host- cookies", async () => {
    const client = await register(workerFetch, ORIGIN);
    const { challenge } = await pkce();
    const url = new URL(`${ORIGIN}/authorize`);
    for (const [k, v] of Object.entries({ response_type: "code", client_id: client.client_id, redirect_uri: "http://127.0.0.1:33418/callback", code_challenge: challenge, code_challenge_method: "S256", state: "s", resource: `${ORIGIN}/mcp` })) url.searchParams.set(k, v);
    const page = await workerFetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    // Its URL holds the request, and its form leads to other sites: none sent on as Referer (review 416).
    expect(page.headers.get("referrer-policy")).toBe("same-origin");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const cookie = page.headers.getSetCookie().join("; ");
    expect(cookie).toMatch(/__Host-/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/Secure/i);
    expect(cookie).toMatch(/SameSite=(Lax|Strict)/i);
    expect(await page.text()).toContain("an app on your computer");
  });
});
