// Sign-in end to end against a small real OpenID Connect provider run by the test (RS256 JWTs),
// with the Worker in workerd: registration -> authorize -> consent -> upstream -> callback -> token ->
// MCP -> refresh; denied email, upstream refusal, state mismatch; fail-closed configuration.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { cpSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startLocalWorker, type LocalWorker } from "../../scripts/local-worker.js";
import { localWorker, tempDir } from "./helpers";
import { authConfig, isAllowed, ownerNoLongerAllowed, type AccessRules, type AuthConfig } from "../../src/worker/auth/config.js";
import type { Env } from "../../src/worker/env.js";
import { authorize, pkce, refresh, register, signIn, withBearer } from "../../scripts/oauth-client.js";
import { startIdp, type Idp } from "../support/oidc-idp.js";

let idp: Idp;
let worker: LocalWorker;
let base: string;
/** The Worker's storage, kept across a restart (a redeploy with other access rules). */
const state = tempDir("auth-oidc");

/** The Worker on this file's storage, with these access rules; on `port` to keep its tokens' resource URL. */
function startWorker(rules: Record<string, string>, port?: number): Promise<LocalWorker> {
  const bindings = { AUTH_UPSTREAM: "oidc", OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: idp.clientId, OIDC_CLIENT_SECRET: idp.clientSecret, ...rules };
  return startLocalWorker({ scriptPath: inject("workerScript"), persistTo: state.dir, seed: false, bindings, ...(port ? { port } : {}) });
}

beforeAll(async () => {
  idp = await startIdp();
  cpSync(inject("workerState"), state.dir, { recursive: true });
  worker = await startWorker({ ALLOWED_EMAIL_DOMAINS: "example.com", ALLOWED_EMAILS: "victor@elsewhere.test" });
  base = worker.url.origin;
}, 120_000);
afterAll(async () => {
  await worker?.dispose();
  await idp?.close();
  state.cleanup();
});

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: "oidc-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { fetch: withBearer(fetch, token) }));
  return client;
}

const sessionsOf = async (client: Client) =>
  ((await client.callTool({ name: "list_sessions", arguments: {} })).structuredContent as { sessions: Array<{ task_name: string }> }).sessions.map((s) => s.task_name);

describe("with an OpenID Connect provider", () => {
  it("signs a user in through the provider, serves MCP under their identity, and refreshes", async () => {
    idp.user = { sub: "ada", email: "ada@example.com", email_verified: true, name: "Ada" };
    const tokens = await signIn(fetch, base);
    expect(idp.requests).toEqual(expect.arrayContaining(["/.well-known/openid-configuration", "/authorize", "/token", "/jwks"]));
    const ada = await connect(tokens.access_token);
    await ada.callTool({ name: "bmad-task", arguments: { action: "start", objective: "Ada's private plan" } });
    expect(await sessionsOf(ada)).toContain("adas-private-plan");

    // Another user of the same provider sees none of it.
    idp.user = { sub: "grace", email: "grace@example.com", email_verified: true };
    const grace = await connect((await signIn(fetch, base)).access_token);
    expect(await sessionsOf(grace)).not.toContain("adas-private-plan");

    const refreshed = await refresh(fetch, base, tokens.client_id, tokens.refresh_token!);
    expect(refreshed.status).toBe(200);
    expect(await sessionsOf(await connect(refreshed.json.access_token))).toContain("adas-private-plan");
  });

  // Review 210: a page said so, and the app (bridge pull) waited for its callback until its timeout.
  it("tells the app of a user outside the access rules (access_denied, without the email), and issues no code", async () => {
    idp.user = { sub: "eve", email: "eve@elsewhere.test", email_verified: true };
    const client = await register(fetch, base);
    const outcome = await authorize(fetch, base, { clientId: client.client_id });
    expect(outcome).toMatchObject({ ok: false, status: 302, error: "access_denied", location: expect.stringMatching(/^http:\/\/127\.0\.0\.1:33418\/callback\?/), body: "The account you signed in with is not allowed on this server. Ask its administrator to add you." });
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? "" : outcome.location).not.toContain("eve");
  });

  it("offers no \"Sign in as\" field, and refuses a consent form that brings one: the provider says who signs in", async () => {
    idp.user = { sub: "ada", email: "ada@example.com", email_verified: true, name: "Ada" };
    const client = await register(fetch, base);
    expect(await authorize(fetch, base, { clientId: client.client_id, user: "grace@example.com" })).toMatchObject({ ok: false, body: expect.stringContaining('no "Sign in as" field') });
    // A form posted with the field anyway (as the local page's would be).
    const withUser: typeof fetch = (input, init) =>
      fetch(input, init?.method === "POST" && String(input).endsWith("/authorize") ? { ...init, body: `${String(init.body)}&user=grace%40example.com` } : init);
    const asked = idp.requests.length;
    const outcome = await authorize(withUser, base, { clientId: client.client_id });
    expect(outcome).toMatchObject({ ok: false, status: 400, body: expect.stringContaining('The "user" field picks a local user on the local development sign-in (loopback only)') });
    expect(idp.requests.slice(asked)).toEqual([]); // no hand-off to the provider
    expect((await authorize(fetch, base, { clientId: client.client_id })).ok).toBe(true);
  });

  it("ignores an unverified email", async () => {
    idp.user = { sub: "mallory", email: "mallory@example.com", email_verified: false };
    const client = await register(fetch, base);
    expect(await authorize(fetch, base, { clientId: client.client_id })).toMatchObject({ ok: false, error: "access_denied" });
  });

  it("counts an ID token without email_verified as unverified, says so, and issues no code", async () => {
    idp.user = { sub: "trudy", email: "trudy@example.com" }; // the provider sends no email_verified claim
    const client = await register(fetch, base);
    const outcome = await authorize(fetch, base, { clientId: client.client_id });
    expect(outcome).toMatchObject({ ok: false, error: "access_denied" });
    expect(!outcome.ok && outcome.body).toContain("The identity provider did not confirm this account's email as verified (email_verified)");
  });

  it("lets a listed email in only when the provider confirms it (ALLOWED_EMAILS, as ALLOWED_EMAIL_DOMAINS)", async () => {
    for (const claim of [{}, { email_verified: false }]) {
      idp.user = { sub: "victor", email: "victor@elsewhere.test", ...claim };
      const outcome = await authorize(fetch, base, { clientId: (await register(fetch, base)).client_id });
      expect(outcome, JSON.stringify(claim)).toMatchObject({ ok: false, error: "access_denied" });
    }
    idp.user = { sub: "victor", email: "victor@elsewhere.test", email_verified: true };
    expect(await authorize(fetch, base, { clientId: (await register(fetch, base)).client_id })).toMatchObject({ ok: true });
  });

  it("passes a refusal at the provider back to the client as access_denied", async () => {
    idp.user = { sub: "ada", email: "ada@example.com", email_verified: true };
    idp.deny = true;
    try {
      const client = await register(fetch, base);
      expect(await authorize(fetch, base, { clientId: client.client_id })).toMatchObject({ ok: false, error: "access_denied" });
    } finally {
      idp.deny = false;
    }
  });

  it("tells the app when the provider's token answer is no JSON, naming the provider, never what it sent (review 210)", async () => {
    idp.user = { sub: "ada", email: "ada@example.com", email_verified: true };
    idp.html = ["/token"];
    try {
      const outcome = await authorize(fetch, base, { clientId: (await register(fetch, base)).client_id });
      expect(outcome).toMatchObject({ ok: false, error: "server_error", body: `The identity provider at ${new URL(idp.issuer).host} answered with something that is not its token JSON (with an id_token).` });
    } finally {
      idp.html = [];
    }
  });

  it("refuses a callback whose state does not match the browser's", async () => {
    const client = await register(fetch, base);
    const { challenge } = await pkce();
    const url = new URL(`${base}/authorize`);
    const query = { response_type: "code", client_id: client.client_id, redirect_uri: "http://127.0.0.1:33418/callback", code_challenge: challenge, code_challenge_method: "S256", state: "s", resource: `${base}/mcp`, scope: "bmad:read" };
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const consent = await fetch(url, { redirect: "manual" });
    const cookies = consent.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const handle = /name="handle" value="([^"]+)"/.exec(await consent.text())![1]!;
    const approved = await fetch(`${base}/authorize`, {
      method: "POST", redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookies, origin: base },
      body: new URLSearchParams({ handle, decision: "approve", scope: "bmad:read" }),
    });
    expect(approved.status).toBe(302);
    const upstreamCookies = [cookies, ...approved.headers.getSetCookie().map((c) => c.split(";")[0])].join("; ");
    const back = new URL((await fetch(approved.headers.get("location")!, { redirect: "manual" })).headers.get("location")!);
    back.searchParams.set("state", `${back.searchParams.get("state")}x`);
    const callback = await fetch(back, { redirect: "manual", headers: { cookie: upstreamCookies } });
    expect(callback.status).toBe(400);
    expect(callback.headers.get("location")).toBeNull();
  });

  it("signs a user in to the connections page through the provider, there only in the browser that began it, and lists her connections", async () => {
    idp.user = { sub: "lin", email: "lin@example.com", email_verified: true };
    const tokens = await signIn(fetch, base);
    const started = await fetch(`${base}/connections/sign-in`, { method: "POST", redirect: "manual", headers: { origin: base } });
    expect(started.status).toBe(302);
    const stateCookie = started.headers.get("set-cookie")!.split(";")[0]!;
    const back = (await fetch(started.headers.get("location")!, { redirect: "manual" })).headers.get("location")!;
    // Another browser (no state cookie) brought back to the callback: not signed in (login CSRF).
    expect((await fetch(back, { redirect: "manual" })).status).toBe(400);
    const callback = await fetch(back, { redirect: "manual", headers: { cookie: stateCookie } });
    expect(callback.status).toBe(303);
    const cookie = callback.headers.getSetCookie().find((c) => c.startsWith("bmad_connections="))!.split(";")[0]!;
    const list = await (await fetch(`${base}/connections`, { headers: { cookie } })).text();
    expect(list).toContain(`value="${tokens.access_token.split(":")[1]}"`);
  });

  // Last here: it redeploys this file's Worker with narrower rules.
  it("cuts off a member the rules no longer allow at her next request, and revokes her sign-in when she refreshes", async () => {
    idp.user = { sub: "mallory", email: "mallory@example.com", email_verified: true };
    const mallory = await signIn(fetch, base);
    await (await connect(mallory.access_token)).callTool({ name: "bmad-task", arguments: { action: "start", objective: "Mallory's plan" } });
    idp.user = { sub: "ada", email: "ada@example.com", email_verified: true, name: "Ada" };
    const ada = await signIn(fetch, base);

    // The operator lists Ada alone and redeploys: same storage, same origin.
    const port = Number(worker.url.port);
    await worker.dispose();
    worker = await startWorker({ ALLOWED_EMAILS: "ada@example.com" }, port);

    const removed = "mallory@example.com is no longer allowed on this server: its access rules changed since this sign-in. Ask its administrator to add you.";
    for (let i = 0; i < 2; i++) { // the second from this isolate's token cache
      const call = await fetch(`${base}/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${mallory.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(call.status).toBe(401);
      expect(call.headers.get("www-authenticate")).toContain('error="invalid_token"');
      expect(await call.json()).toMatchObject({ error: "invalid_token", error_description: removed });
    }
    expect(await refresh(fetch, base, mallory.client_id, mallory.refresh_token!)).toMatchObject({ status: 400, json: { error: "invalid_grant", error_description: `${removed} The sign-in is revoked.` } });
    // Revoked: the provider no longer knows the grant, whatever the rules say next.
    expect(await refresh(fetch, base, mallory.client_id, mallory.refresh_token!)).toMatchObject({ status: 400, json: { error: "invalid_grant", error_description: "This sign-in has ended (signed out, revoked, or expired): sign in again." } });

    // Ada, still listed, keeps her sign-in.
    expect(await sessionsOf(await connect(ada.access_token))).not.toContain("mallorys-plan");
    const refreshed = await refresh(fetch, base, ada.client_id, ada.refresh_token!);
    expect(refreshed.status).toBe(200);
    expect(await sessionsOf(await connect(refreshed.json.access_token))).not.toContain("mallorys-plan");
  });

  // Review 392: members were told only the owner could share, delete or purge, as though she still could sign in.
  it("tells the members of a project whose owner the rules no longer allow, wherever an answer names her, what is left to them", async () => {
    const port = Number(worker.url.port);
    const redeploy = async (rules: Record<string, string>) => {
      await worker.dispose();
      worker = await startWorker(rules, port);
    };
    const as = async (sub: string) => {
      idp.user = { sub, email: `${sub}@example.com`, email_verified: true };
      const client = await connect((await signIn(fetch, base, { scope: "bmad:read bmad:write", approveScopes: ["bmad:read", "bmad:write"] })).access_token);
      return async (name: string, args: Record<string, unknown>) => {
        const out = await client.callTool({ name, arguments: args });
        return { ok: !out.isError, text: (out.content as Array<{ text: string }>)[0]!.text };
      };
    };
    await redeploy({ ALLOWED_EMAILS: "priya@example.com,arjun@example.com,nina@example.com" });
    const priya = await as("priya"), arjun = await as("arjun");
    expect((await priya("bmad-project", { action: "create", name: "todo" })).ok).toBe(true);
    for (const who of ["arjun@example.com", "nina@example.com"]) expect((await priya("bmad-project", { action: "share", name: "todo", with: who, access: "write" })).ok).toBe(true);
    expect((await arjun("bmad-project", { action: "accept", name: "todo" })).ok).toBe(true);
    expect((await arjun("bmad-project", { action: "list" })).text).toBe("todo (write, shared by priya@example.com)");

    await redeploy({ ALLOWED_EMAILS: "arjun@example.com,nina@example.com" });
    const note = (left: string) => `priya@example.com is no longer allowed on this server: only its administrator adding them back lets anyone share, delete or purge "todo"; ${left}, or copy its files into a project of your own.`;
    const member = note("you can go on reading and writing it");
    expect((await arjun("bmad-project", { action: "list" })).text).toBe(`todo (write, shared by priya@example.com). ${member}`);
    expect(await arjun("bmad-project", { action: "share", name: "todo", with: "sam@example.com", access: "read" })).toEqual({ ok: false, text: `Only the owner of "todo" (priya@example.com) can share or delete it. ${member}` });
    expect(await arjun("bmad-project", { action: "delete", name: "todo", confirm: "todo" })).toEqual({ ok: false, text: `Only the owner of "todo" (priya@example.com) can share or delete it. ${member}` });
    expect(await arjun("bmad-files", { action: "purge", project: "todo", path: "**" })).toEqual({ ok: false, text: `Only the owner of "todo" (priya@example.com) can purge its history. ${member}` });
    expect((await arjun("bmad-files", { action: "write", project: "todo", path: "notes.md", content: "still ours\n" })).text).not.toContain("no longer allowed");

    // A newcomer is told before and when she accepts the offer the removed owner left.
    const nina = await as("nina");
    expect((await nina("bmad-project", { action: "list" })).text).toContain(`todo (PENDING: priya@example.com offers write). ${note("you can still accept it and read and write it")}`);
    expect(await nina("bmad-project", { action: "accept", name: "todo" })).toEqual({ ok: true, text: `Accepted: you can now write "todo", shared by priya@example.com. ${member}` });

    // Allowed again by another rule: nothing said.
    await redeploy({ ALLOWED_EMAIL_DOMAINS: "example.com" });
    expect((await arjun("bmad-project", { action: "list" })).text).toBe("todo (write, shared by priya@example.com)");
    expect((await arjun("bmad-project", { action: "delete", name: "todo", confirm: "todo" })).text).toBe(`Only the owner of "todo" (priya@example.com) can share or delete it.`);
  });
});

// Review 210: Allow answered a bare 500 and used up the consent (Allow again said it had expired or was used), and an
// HTML answer's parser error, with its first bytes, reached the page.
describe("with an identity provider out of reach at Allow", () => {
  it("names it on a 502 page whose Try again, with the same consent, signs in once it is back", async () => {
    const spare = await startIdp();
    const port = Number(new URL(spare.issuer).port);
    const spareState = tempDir("auth-oidc-spare");
    const spareWorker = await startLocalWorker({ scriptPath: inject("workerScript"), persistTo: spareState.dir, seed: false, bindings: { AUTH_UPSTREAM: "oidc", OIDC_ISSUER: spare.issuer, OIDC_CLIENT_ID: spare.clientId, OIDC_CLIENT_SECRET: spare.clientSecret } });
    let back: Idp | undefined;
    try {
      const origin = spareWorker.url.origin;
      const client = await register(fetch, origin);
      const { challenge } = await pkce();
      const query = { response_type: "code", client_id: client.client_id, redirect_uri: "http://127.0.0.1:33418/callback", code_challenge: challenge, code_challenge_method: "S256", state: "s", resource: `${origin}/mcp`, scope: "bmad:read" };
      const consent = await fetch(`${origin}/authorize?${new URLSearchParams(query)}`, { redirect: "manual" });
      const cookie = consent.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
      const handle = /name="handle" value="([^"]+)"/.exec(await consent.text())![1]!;
      const allow = (form: URLSearchParams) => fetch(`${origin}/authorize`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin }, body: form });
      /** The page's Try again form, as the browser would post it. */
      const tryAgain = (html: string) => new URLSearchParams([...html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!.replace(/&#(\d+);/g, (_, d: string) => String.fromCharCode(Number(d)))]));
      const at = `The identity provider at 127.0.0.1:${port}`;

      spare.html = ["/.well-known/openid-configuration"];
      const html = await allow(new URLSearchParams({ handle, decision: "approve", scope: "bmad:read" }));
      expect(html.status).toBe(502);
      const htmlPage = await html.text();
      expect(htmlPage).toContain(`${at} answered with something that is not its OpenID metadata JSON (/.well-known/openid-configuration).`);
      expect(htmlPage).not.toMatch(/secret|Unexpected token/);

      await spare.close();
      const down = await allow(tryAgain(htmlPage));
      expect(down.status).toBe(502);
      const downPage = await down.text();
      expect(downPage).toContain(`${at} could not be reached.`);

      back = await startIdp({ port, clientId: spare.clientId, clientSecret: spare.clientSecret });
      const resumed = await allow(tryAgain(downPage));
      expect(resumed.status).toBe(302);
      expect(resumed.headers.get("location")).toMatch(new RegExp(`^${back.issuer}/authorize\\?`));
      const upstreamCookies = [cookie, ...resumed.headers.getSetCookie().map((c) => c.split(";")[0])].join("; ");
      const callback = (await fetch(resumed.headers.get("location")!, { redirect: "manual" })).headers.get("location")!;
      const answer = await fetch(callback, { redirect: "manual", headers: { cookie: upstreamCookies } });
      expect(answer.headers.get("location")).toMatch(/^http:\/\/127\.0\.0\.1:33418\/callback\?code=/);
    } finally {
      await spareWorker.dispose();
      await back?.close();
      spareState.cleanup();
    }
  }, 120_000);
});

describe("configuration fails closed", () => {
  const env = (vars: Partial<Env>) => vars as Env;

  it("serves no tokens on a public host without an identity provider", () => {
    expect(authConfig(env({ PUBLIC_URL: "https://bmad.example.com" }), "bmad.example.com")).toMatchObject({ ok: false, error: expect.stringMatching(/No identity provider is configured/) });
    expect(authConfig(env({ AUTH_UPSTREAM: "oidc", OIDC_ISSUER: "https://idp.example.com" }), "bmad.example.com")).toMatchObject({ ok: false, error: expect.stringMatching(/OIDC_CLIENT_ID/) });
    expect(authConfig(env({ AUTH_UPSTREAM: "github", GITHUB_CLIENT_ID: "a", GITHUB_CLIENT_SECRET: "b" }), "bmad.example.com")).toMatchObject({ ok: false, error: expect.stringMatching(/needs an access rule/) });
    expect(authConfig(env({}), "127.0.0.1")).toMatchObject({ ok: true, config: { upstream: { kind: "local" } } });
    // The provider refuses a lifetime under KV's 60 s minimum on every request (review 95: each answered 500).
    expect(authConfig(env({ ACCESS_TOKEN_TTL: "59" }), "127.0.0.1")).toMatchObject({ ok: false, error: "Sign-in is misconfigured: ACCESS_TOKEN_TTL: must be at least 60 seconds (Workers KV's shortest expiry)." });
    expect(authConfig(env({ ACCESS_TOKEN_TTL: "60" }), "127.0.0.1")).toMatchObject({ ok: true, config: { accessTokenTTL: 60 } });
  });

  it("applies access rules: emails, domains, GitHub org; unverified emails never match", () => {
    const rules = { emails: ["ada@partner.test"], domains: ["example.com"], githubOrg: "bmad-org" };
    expect(isAllowed(rules, { email: "Ada@Partner.test", emailVerified: true })).toBe(true);
    expect(isAllowed(rules, { email: "grace@example.com" })).toBe(false); // not said to be verified
    expect(isAllowed(rules, { email: "grace@example.com", emailVerified: true })).toBe(true);
    expect(isAllowed(rules, { email: "grace@example.com", emailVerified: false })).toBe(false);
    expect(isAllowed(rules, { email: "eve@evil.test", memberOf: "BMAD-Org" })).toBe(true); // GitHub org logins ignore case
    expect(isAllowed(rules, { email: "eve@evil.test", memberOf: "other-org" })).toBe(false); // a member of the org the rule named before
    expect(isAllowed(rules, { email: "eve@evil.test" })).toBe(false);
    expect(isAllowed(rules, {})).toBe(false);
    expect(isAllowed({ emails: [], domains: [] }, {})).toBe(true); // no rule: the identity provider is the boundary
  });

  it("judges a project's owner on what the project recorded of them, and only where that can tell", () => {
    const rules = (access: Partial<AccessRules>, kind: "oidc" | "github" | "local" = "oidc") =>
      ({ upstream: kind === "oidc" ? { kind, issuer: "https://idp.test", clientId: "c", clientSecret: "s" } : kind === "github" ? { kind, clientId: "c", clientSecret: "s", web: "", api: "" } : { kind }, access: { emails: [], domains: [], ...access }, accessTokenTTL: 3600 }) as AuthConfig;
    const priya = { id: "oidc/priya", label: "priya@example.com" };
    expect(ownerNoLongerAllowed(rules({ emails: ["arjun@example.com"] }), priya)).toBe(true);
    expect(ownerNoLongerAllowed(rules({ domains: ["example.com"] }), priya)).toBe(false);
    expect(ownerNoLongerAllowed(rules({}), priya)).toBe(false); // no rule
    // No verified email recorded (her label is her id): no email rule can let her in.
    expect(ownerNoLongerAllowed(rules({ domains: ["example.com"] }), { id: "oidc/trudy", label: "oidc/trudy" })).toBe(true);
    // GitHub org membership is recorded in a sign-in, not in a project: not judged.
    expect(ownerNoLongerAllowed(rules({ githubOrg: "bmad-org" }, "github"), { id: "github/7", label: "github:gwen" })).toBe(false);
    expect(ownerNoLongerAllowed(rules({ emails: ["ada@example.com"] }, "github"), { id: "github/7", label: "github:gwen" })).toBe(true);
    expect(ownerNoLongerAllowed(rules({ emails: ["ada@example.com"] }, "local"), { id: "local/priya@example.com", label: "priya@example.com" })).toBe(false);
    expect(ownerNoLongerAllowed(rules({ emails: ["ada@example.com"] }, "github"), priya)).toBe(false); // another upstream's: notAdmitted's case
  });

  it("refuses the local consent page on a non-loopback host, even when configured", async () => {
    const publicWorker = await localWorker({ bindings: { PUBLIC_URL: "https://bmad.example.com", AUTH_UPSTREAM: "local" } });
    try {
      const page = await publicWorker.miniflare.dispatchFetch("https://bmad.example.com/authorize?response_type=code&client_id=x");
      expect(page.status).toBe(503);
      expect(await page.text()).toContain("only serves loopback hosts");
      const foreign = await publicWorker.miniflare.dispatchFetch("https://evil.example/authorize");
      expect(foreign.status).toBe(403);
    } finally {
      await publicWorker.dispose();
    }
  }, 60_000);
});
