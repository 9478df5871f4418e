// Revocation takes effect on the next request: a revoked grant, a replayed authorization code and a replayed
// refresh token end every token of the sign-in at once, although this isolate caches validated tokens.
// Refresh tokens rotate; the one just replaced and every older one revoke the whole grant when they come back, but
// the same client's second use within the reuse window (two at once, a retry) is given the first use's tokens. A refresh never widens
// the grant's scopes; failures say why and what to do.
import { env } from "cloudflare:workers";
import { listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { authorize, exchange, pkce, refresh, register, revoke, signIn, withBearer } from "../../scripts/oauth-client.js";
import { ORIGIN, workerFetch } from "./client.js";
import { seed } from "./setup.js";
import { MAX_CLAIMS_PER_GRANT, REFRESH_REUSE_WINDOW_MS } from "../../src/worker/owner-do.js";

const TOOLS_LIST = {
  method: "POST",
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
};

/** The refresh claims kept for the user `token` names: of all their sign-ins, or of the one it belongs to. */
function claimsOf(token: string, only: "user" | "grant" = "user"): Promise<number> {
  const [userId, grantId] = token.split(":") as [string, string];
  const owner = env.OWNER_SESSIONS.get(env.OWNER_SESSIONS.idFromName(userId));
  return runInDurableObject(owner, (_, state) => (only === "user"
    ? state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM refresh_claims")
    : state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM refresh_claims WHERE grant_id = ?", grantId)).one().n);
}

/** The provider's id of a refresh token, its SHA-256, which its claim is kept under. */
async function tokenHash(token: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The Durable Object that claims the refresh tokens of the user `token` names. */
const ownerOf = (token: string) => env.OWNER_SESSIONS.get(env.OWNER_SESSIONS.idFromName(token.split(":")[0]!));

/** Moves a refresh token's claim back past the reuse window, as if its first use were older. */
async function pastReuseWindow(token: string): Promise<void> {
  const hash = await tokenHash(token);
  await runInDurableObject(ownerOf(token), (_, state) => {
    state.storage.sql.exec("UPDATE refresh_claims SET claimed_at = claimed_at - ? WHERE token_hash = ?", REFRESH_REUSE_WINDOW_MS, hash);
  });
}

/** The status /mcp answers tools/list with for this token. */
async function mcpStatus(token: string): Promise<number> {
  const res = await withBearer(workerFetch, token)(`${ORIGIN}/mcp`, TOOLS_LIST);
  await res.body?.cancel();
  return res.status;
}

// Each test signs in several times; the first request of a file loads the whole Worker in workerd.
describe("revocation reaches tokens in use", { timeout: 60_000 }, () => {
  it("says a token issued at another address of this server is for that address, and to sign in here (review 401)", async () => {
    const tokens = await signIn(workerFetch, ORIGIN);
    const elsewhere = await withBearer(workerFetch, tokens.access_token)(ORIGIN.replace("127.0.0.1", "localhost") + "/mcp", TOOLS_LIST);
    const body = await elsewhere.text();
    expect(elsewhere.status).toBe(401);
    expect(JSON.parse(body)).toMatchObject({ error: "invalid_token", error_description: expect.stringMatching(/^This access token was issued for another address of this server .*: sign in again at the address you use here, ending in \/mcp\.$/) });
  });

  it("answers a path under /mcp with a JSON-RPC error naming the endpoint (review 401: a bare 404)", async () => {
    const tokens = await signIn(workerFetch, ORIGIN);
    const slash = await withBearer(workerFetch, tokens.access_token)(`${ORIGIN}/mcp/`, TOOLS_LIST);
    expect(slash.status).toBe(404);
    expect(await slash.json()).toMatchObject({ jsonrpc: "2.0", error: { message: `No MCP endpoint at /mcp/: this server's is ${ORIGIN}/mcp.` } });
    // A token past what the server issues, there too: never the provider's KV key (review 408: it answered 500).
    const long = await withBearer(workerFetch, `u:${"g".repeat(600)}:s`)(`${ORIGIN}/mcp/x`, TOOLS_LIST);
    expect(long.status).toBe(404);
    expect(await long.json()).toMatchObject({ jsonrpc: "2.0", error: { message: `No MCP endpoint at /mcp/x: this server's is ${ORIGIN}/mcp.` } });
  });

  it("refuses an access token on the next request once its sign-in is revoked through the refresh token", async () => {
    await seed();
    const tokens = await signIn(workerFetch, ORIGIN);
    expect(await mcpStatus(tokens.access_token)).toBe(200);
    expect(await mcpStatus(tokens.access_token)).toBe(200); // now served from this isolate's cache
    expect((await revoke(workerFetch, ORIGIN, tokens.client_id, tokens.refresh_token!, "refresh_token")).status).toBe(200);
    expect(await mcpStatus(tokens.access_token)).toBe(401);
  });

  it("ends the whole sign-in when a client revokes one of its access tokens, and leaves another client's alone (review 154)", async () => {
    await seed();
    const tokens = await signIn(workerFetch, ORIGIN);
    const renewed = await refresh(workerFetch, ORIGIN, tokens.client_id, tokens.refresh_token!);
    expect(await mcpStatus(tokens.access_token)).toBe(200);
    // Another client naming this token: answered 200 (RFC 7009), and nothing of the sign-in ends.
    const other = await register(workerFetch, ORIGIN);
    expect((await revoke(workerFetch, ORIGIN, other.client_id, renewed.json.access_token, "access_token")).status).toBe(200);
    expect(await mcpStatus(renewed.json.access_token)).toBe(200);
    // Its own client signing out with the newer access token: the older one, and the refresh token, end with it.
    expect((await revoke(workerFetch, ORIGIN, tokens.client_id, renewed.json.access_token, "access_token")).status).toBe(200);
    expect(await mcpStatus(renewed.json.access_token)).toBe(401);
    expect(await mcpStatus(tokens.access_token)).toBe(401);
    expect((await refresh(workerFetch, ORIGIN, tokens.client_id, renewed.json.refresh_token)).status).toBe(400);
  });

  it("refuses an access token on the next request once its authorization code is replayed", async () => {
    await seed();
    const client = await register(workerFetch, ORIGIN);
    const { verifier } = await pkce();
    const outcome = await authorize(workerFetch, ORIGIN, { clientId: client.client_id, verifier });
    if (!outcome.ok) throw new Error(outcome.body);
    const body = { grant_type: "authorization_code", code: outcome.code, redirect_uri: "http://127.0.0.1:33418/callback", client_id: client.client_id, code_verifier: verifier, resource: `${ORIGIN}/mcp` };
    const first = await exchange(workerFetch, ORIGIN, body);
    expect(first.status).toBe(200);
    expect(await mcpStatus(first.json.access_token)).toBe(200);
    const replay = await exchange(workerFetch, ORIGIN, body);
    // Review 417: said only "Authorization code already used", while the sign-in was ended.
    expect(replay).toMatchObject({ status: 400, json: { error: "invalid_grant", error_description: expect.stringMatching(/already exchanged.*the sign-in it began was ended\. Sign in again\./) } });
    expect(await mcpStatus(first.json.access_token)).toBe(401);
  });
});

describe("refresh token rotation", { timeout: 60_000 }, () => {
  it("keeps a client that always uses its newest refresh token signed in", async () => {
    await seed();
    const tokens = await signIn(workerFetch, ORIGIN);
    let current = tokens.refresh_token!;
    for (let i = 0; i < 3; i++) {
      const next = await refresh(workerFetch, ORIGIN, tokens.client_id, current);
      expect(next.status).toBe(200);
      expect(next.json.refresh_token).not.toBe(current);
      expect(await mcpStatus(next.json.access_token)).toBe(200);
      current = next.json.refresh_token;
    }
  });

  it("revokes the sign-in when the refresh token it just replaced comes back after the reuse window", async () => {
    await seed();
    const tokens = await signIn(workerFetch, ORIGIN);
    const rotated = await refresh(workerFetch, ORIGIN, tokens.client_id, tokens.refresh_token!);
    expect(rotated.status).toBe(200);
    expect(await mcpStatus(rotated.json.access_token)).toBe(200);
    await pastReuseWindow(tokens.refresh_token!);
    const replay = await refresh(workerFetch, ORIGIN, tokens.client_id, tokens.refresh_token!);
    expect(replay).toMatchObject({ status: 400, json: { error: "invalid_grant", error_description: expect.stringContaining("used twice") } });
    // Thief and client both lose the sign-in: the newest refresh token and its access token are dead too.
    expect((await refresh(workerFetch, ORIGIN, tokens.client_id, rotated.json.refresh_token)).status).toBe(400);
    expect(await mcpStatus(rotated.json.access_token)).toBe(401);
    expect(await mcpStatus(tokens.access_token)).toBe(401);
  });

  it("revokes the sign-in when an older refresh token comes back after several rotations", async () => {
    await seed();
    const tokens = await signIn(workerFetch, ORIGIN);
    const second = await refresh(workerFetch, ORIGIN, tokens.client_id, tokens.refresh_token!);
    const third = await refresh(workerFetch, ORIGIN, tokens.client_id, second.json.refresh_token);
    expect(third.status).toBe(200);
    expect(await mcpStatus(third.json.access_token)).toBe(200);
    await pastReuseWindow(tokens.refresh_token!);
    expect((await refresh(workerFetch, ORIGIN, tokens.client_id, tokens.refresh_token!)).status).toBe(400);
    expect((await refresh(workerFetch, ORIGIN, tokens.client_id, third.json.refresh_token)).status).toBe(400);
    expect(await mcpStatus(third.json.access_token)).toBe(401);
  });

  it("keeps at most the newest claims of a sign-in refreshed 50 times, still telling a reuse, and drops a sign-in's claims when its client revokes it (review 236)", async () => {
    await seed();
    const user = `claims-${crypto.randomUUID()}@example.com`;
    const tokens = await signIn(workerFetch, ORIGIN, { user });
    let previous = tokens.refresh_token!;
    let current = previous;
    for (let i = 0; i < 50; i++) {
      const next = await refresh(workerFetch, ORIGIN, tokens.client_id, current);
      expect(next.status).toBe(200);
      [previous, current] = [current, next.json.refresh_token];
    }
    expect(await claimsOf(current)).toBeLessThanOrEqual(MAX_CLAIMS_PER_GRANT);
    // The one just replaced comes back after the reuse window: a reuse, as ever, and the sign-in ends.
    await pastReuseWindow(previous);
    const replay = await refresh(workerFetch, ORIGIN, tokens.client_id, previous);
    expect(replay).toMatchObject({ status: 400, json: { error: "invalid_grant", error_description: expect.stringContaining("used twice") } });
    // Another sign-in of the user, which its client signs out of: its claims go with it.
    const again = await signIn(workerFetch, ORIGIN, { user });
    const renewed = await refresh(workerFetch, ORIGIN, again.client_id, again.refresh_token!);
    expect(renewed.status).toBe(200);
    const before = await claimsOf(current);
    expect((await revoke(workerFetch, ORIGIN, again.client_id, renewed.json.refresh_token, "refresh_token")).status).toBe(200);
    expect(await claimsOf(current)).toBe(before - 1);
  });

  it("exchanges one of three refreshes sent at once with the same token, gives the others that exchange's tokens, and keeps the sign-in (reviews 230, 285, 417)", async () => {
    await seed();
    for (let round = 0; round < 3; round++) {
      const tokens = await signIn(workerFetch, ORIGIN);
      const answers = await Promise.all([0, 1, 2].map(() => refresh(workerFetch, ORIGIN, tokens.client_id, tokens.refresh_token!)));
      for (const answer of answers) expect(answer.status).toBe(200);
      // One exchange went ahead: one chain of tokens, which works and refreshes on.
      expect(new Set(answers.map((a) => a.json.refresh_token)).size).toBe(1);
      expect(new Set(answers.map((a) => a.json.access_token)).size).toBe(1);
      const [winner] = answers;
      expect(await mcpStatus(winner!.json.access_token)).toBe(200);
      expect((await refresh(workerFetch, ORIGIN, tokens.client_id, winner!.json.refresh_token)).status).toBe(200);
    }
  });

  it("gives the same client's retry of a refresh within the reuse window the first answer's tokens, and ends the sign-in for another client's use (review 285)", async () => {
    await seed();
    const tokens = await signIn(workerFetch, ORIGIN);
    // The first answer, which the client lost: it exchanged the token.
    const lost = await refresh(workerFetch, ORIGIN, tokens.client_id, tokens.refresh_token!);
    expect(lost.status).toBe(200);
    const retry = await refresh(workerFetch, ORIGIN, tokens.client_id, tokens.refresh_token!);
    expect(retry.status).toBe(200);
    expect(retry.json).toMatchObject({ access_token: lost.json.access_token, refresh_token: lost.json.refresh_token, token_type: lost.json.token_type });
    expect(retry.json.expires_in).toBeLessThanOrEqual(lost.json.expires_in);
    expect(await mcpStatus(lost.json.access_token)).toBe(200);
    // Another client with the same token within the window: theft, and the sign-in ends.
    const other = await register(workerFetch, ORIGIN);
    const stolen = await refresh(workerFetch, ORIGIN, other.client_id, tokens.refresh_token!);
    expect(stolen).toMatchObject({ status: 400, json: { error: "invalid_grant", error_description: expect.stringContaining("used twice") } });
    expect(await mcpStatus(lost.json.access_token)).toBe(401);
    expect((await refresh(workerFetch, ORIGIN, tokens.client_id, lost.json.refresh_token)).status).toBe(400);
    // The client's next retry, still within the window, is told the sign-in ended, and given no tokens.
    const late = await refresh(workerFetch, ORIGIN, tokens.client_id, tokens.refresh_token!);
    expect(late).toMatchObject({ status: 400, json: { error: "invalid_grant", error_description: expect.stringContaining("used twice") } });
  });

  it("leaves a thief who refreshed first with a public client's id no chain of its own: the client is given the same tokens, and their next reuse ends the sign-in (review 417)", async () => {
    await seed();
    const tokens = await signIn(workerFetch, ORIGIN);
    const thief = await refresh(workerFetch, ORIGIN, tokens.client_id, tokens.refresh_token!);
    expect(thief.status).toBe(200);
    const client = await refresh(workerFetch, ORIGIN, tokens.client_id, tokens.refresh_token!);
    expect(client.status).toBe(200);
    expect(client.json.refresh_token).toBe(thief.json.refresh_token);
    // The thief refreshes on; the client's own refresh, later, is a reuse: both lose the sign-in.
    const thiefNext = await refresh(workerFetch, ORIGIN, tokens.client_id, thief.json.refresh_token);
    expect(thiefNext.status).toBe(200);
    await pastReuseWindow(client.json.refresh_token);
    expect(await refresh(workerFetch, ORIGIN, tokens.client_id, client.json.refresh_token)).toMatchObject({ status: 400, json: { error_description: expect.stringContaining("used twice") } });
    expect(await mcpStatus(thiefNext.json.access_token)).toBe(401);
    expect((await refresh(workerFetch, ORIGIN, tokens.client_id, thiefNext.json.refresh_token)).status).toBe(400);
  });

  it("gives a confidential client's retry the first answer only with its secret, and a retry without it no tokens (review 417)", async () => {
    await seed();
    const app = await register(workerFetch, ORIGIN, { token_endpoint_auth_method: "client_secret_post" });
    const secret = app.json.client_secret as string;
    const { verifier } = await pkce();
    const outcome = await authorize(workerFetch, ORIGIN, { clientId: app.client_id, verifier });
    if (!outcome.ok) throw new Error(outcome.body);
    const tokens = await exchange(workerFetch, ORIGIN, { grant_type: "authorization_code", code: outcome.code, redirect_uri: "http://127.0.0.1:33418/callback", client_id: app.client_id, client_secret: secret, code_verifier: verifier });
    expect(tokens.status).toBe(200);
    const body = { grant_type: "refresh_token", refresh_token: tokens.json.refresh_token, client_id: app.client_id };
    const first = await exchange(workerFetch, ORIGIN, { ...body, client_secret: secret });
    expect(first.status).toBe(200);
    const withoutSecret = await exchange(workerFetch, ORIGIN, body);
    expect(withoutSecret).toMatchObject({ status: 400, json: { error: "invalid_grant", error_description: expect.stringMatching(/other credentials than this request's.*not ended/) } });
    expect(withoutSecret.json.access_token).toBeUndefined();
    const retry = await exchange(workerFetch, ORIGIN, { ...body, client_secret: secret });
    expect(retry).toMatchObject({ status: 200, json: { refresh_token: first.json.refresh_token } });
    expect(await mcpStatus(first.json.access_token)).toBe(200);
  });

  it("ends the sign-in when a refresh token rotated before claims were kept comes back (review 233)", async () => {
    await seed();
    const tokens = await signIn(workerFetch, ORIGIN);
    const second = await refresh(workerFetch, ORIGIN, tokens.client_id, tokens.refresh_token!);
    expect(second.status).toBe(200);
    // As a token exchanged before this server kept claims: the grant's previous one, with no claim.
    await ownerOf(tokens.refresh_token!).settleRefresh(await tokenHash(tokens.refresh_token!), false);
    const replay = await refresh(workerFetch, ORIGIN, tokens.client_id, tokens.refresh_token!);
    expect(replay).toMatchObject({ status: 400, json: { error: "invalid_grant", error_description: expect.stringContaining("used twice") } });
    expect(await mcpStatus(second.json.access_token)).toBe(401);
    expect((await refresh(workerFetch, ORIGIN, tokens.client_id, second.json.refresh_token)).status).toBe(400);
  });

  it("makes no user's object for a refresh token of a grant the server does not hold, and refuses one in no shape it issues first (review 416)", async () => {
    await seed();
    const objects = async () => (await listDurableObjectIds(env.OWNER_SESSIONS)).map((id) => id.toString());
    const before = await objects();
    // Forged for users that never signed in (a GitHub id is public), with and without a client: no object each.
    const client = await register(workerFetch, ORIGIN);
    const users = Array.from({ length: 10 }, (_, i) => `github/${Date.now()}${i}`);
    for (const [i, user] of users.entries()) {
      const forged = `${user}:${"g".repeat(16)}:${"s".repeat(32)}`;
      const answer = i % 2 ? await refresh(workerFetch, ORIGIN, client.client_id, forged) : await exchange(workerFetch, ORIGIN, { grant_type: "refresh_token", refresh_token: forged });
      expect(answer.status, user).toBe(i % 2 ? 400 : 401);
    }
    expect(await objects()).toEqual(before);
    for (const user of users) expect(before).not.toContain(env.OWNER_SESSIONS.idFromName(user).toString());
    // A refresh token in no shape this server issues is told so, client or none.
    for (const token of [`anon-${crypto.randomUUID()}:x:y`, `local:${"g".repeat(15)}:${"s".repeat(32)}`, `someone:${"g".repeat(16)}:${"s".repeat(32)}`, `github/x1:${"g".repeat(16)}:${"s".repeat(32)}`, `local:${"g".repeat(16)}:${"s".repeat(31)}`]) {
      for (const body of [{ grant_type: "refresh_token", refresh_token: token }, { grant_type: "refresh_token", refresh_token: token, client_id: client.client_id }] as Record<string, string>[]) {
        expect(await exchange(workerFetch, ORIGIN, body)).toMatchObject({ status: 400, json: { error: "invalid_grant", error_description: "This refresh token is not in the form this server issues: use the one it gave you, or sign in again." } });
      }
    }
    expect(await objects()).toEqual(before);
  });

  it("ends no sign-in for a forged token naming it, sent twice at once: only a token the provider issued is claimed", async () => {
    await seed();
    const tokens = await signIn(workerFetch, ORIGIN);
    const [userId, grantId] = tokens.refresh_token!.split(":");
    const forged = `${userId}:${grantId}:${"y".repeat(32)}`;
    const answers = await Promise.all([0, 1].map(() => refresh(workerFetch, ORIGIN, tokens.client_id, forged)));
    for (const answer of answers) expect(answer.json.error_description).not.toMatch(/used twice/);
    expect(await mcpStatus(tokens.access_token)).toBe(200);
    expect((await refresh(workerFetch, ORIGIN, tokens.client_id, tokens.refresh_token!)).status).toBe(200);
  });
});

describe("refresh scopes and failures (review 230)", { timeout: 60_000 }, () => {
  it("refuses a refresh asking for a scope the sign-in lacks, naming it, and keeps the refresh token usable", async () => {
    await seed();
    const tokens = await signIn(workerFetch, ORIGIN, { scope: "bmad:read offline_access", approveScopes: ["bmad:read", "offline_access"] });
    expect(tokens.scope).toBe("bmad:read offline_access");
    const wider = await exchange(workerFetch, ORIGIN, { grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: tokens.client_id, scope: "bmad:read bmad:write" });
    expect(wider).toMatchObject({ status: 400, json: { error: "invalid_scope", error_description: expect.stringMatching(/not granted bmad:write.*sign in again and approve bmad:write/) } });
    // Nothing was exchanged: the same token refreshes within the grant, and the sign-in lives on.
    const same = await exchange(workerFetch, ORIGIN, { grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: tokens.client_id, scope: "bmad:read" });
    expect(same).toMatchObject({ status: 200, json: { scope: "bmad:read" } });
    expect(await mcpStatus(same.json.access_token)).toBe(200);
  });

  it("says why a refresh or access token no longer works and what to do, keeping the error codes", async () => {
    await seed();
    const tokens = await signIn(workerFetch, ORIGIN);
    const [userId, grantId] = tokens.refresh_token!.split(":");
    const forged = await refresh(workerFetch, ORIGIN, tokens.client_id, `${userId}:${grantId}:${"x".repeat(32)}`);
    expect(forged).toMatchObject({ status: 400, json: { error: "invalid_grant", error_description: expect.stringMatching(/superseded.*use the newest one.*or sign in again/) } });
    // The forged token was not a use of the real one: it still refreshes.
    const renewed = await refresh(workerFetch, ORIGIN, tokens.client_id, tokens.refresh_token!);
    expect(renewed.status).toBe(200);
    expect((await revoke(workerFetch, ORIGIN, tokens.client_id, renewed.json.refresh_token, "refresh_token")).status).toBe(200);
    const ended = await refresh(workerFetch, ORIGIN, tokens.client_id, renewed.json.refresh_token);
    expect(ended).toMatchObject({ status: 400, json: { error: "invalid_grant", error_description: expect.stringMatching(/sign-in has ended \(signed out, revoked, or expired\): sign in again/) } });
    const res = await withBearer(workerFetch, renewed.json.access_token)(`${ORIGIN}/mcp`, TOOLS_LIST);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(await res.json()).toMatchObject({ error: "invalid_token", error_description: expect.stringMatching(/expired, or its sign-in has ended.*refresh token, or sign in again/) });
  });

  // Review 332: `abc` and a refresh token were told their access token had expired.
  it("tells a bearer that is no access token to send the access token, a refresh token that it is one", async () => {
    await seed();
    const tokens = await signIn(workerFetch, ORIGIN);
    for (const token of ["abc", "a:b", "a::c", `${tokens.access_token}:x`]) {
      const res = await withBearer(workerFetch, token)(`${ORIGIN}/mcp`, TOOLS_LIST);
      expect(res.status, token).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
      expect(await res.json()).toMatchObject({ error: "invalid_token", error_description: "This is not an access token: send the access token from the token endpoint." });
    }
    const refreshAsBearer = await withBearer(workerFetch, tokens.refresh_token!)(`${ORIGIN}/mcp`, TOOLS_LIST);
    expect(refreshAsBearer.status).toBe(401);
    expect(await refreshAsBearer.json()).toMatchObject({ error: "invalid_token", error_description: expect.stringContaining("or it is a refresh token (send the access token instead)") });
  });
});

describe("the connections page (/connections)", { timeout: 60_000 }, () => {
  const form = (body: Record<string, string>, cookie = "", origin = ORIGIN) => ({
    method: "POST", redirect: "manual" as const,
    headers: { "content-type": "application/x-www-form-urlencoded", origin, ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams(body),
  });
  /** The grant id an access token names (user:grant:secret). */
  const grantOf = (token: string) => token.split(":")[1]!;

  it("lists only the signed-in user's connections, and Revoke ends one at once", async () => {
    await seed();
    const mine = await signIn(workerFetch, ORIGIN);
    const theirs = await signIn(workerFetch, ORIGIN, { user: "other@example.com" });

    const signedOut = await workerFetch(`${ORIGIN}/connections`);
    expect(signedOut.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(signedOut.headers.get("referrer-policy")).toBe("same-origin");
    const signInForm = await signedOut.text();
    expect(signInForm).toContain('action="/connections/sign-in"');
    expect(signInForm).not.toContain(grantOf(mine.access_token));
    // Another site cannot sign a browser in here (CSRF), as on the consent page.
    expect((await workerFetch(`${ORIGIN}/connections/sign-in`, form({}, "", "https://evil.example"))).status).toBe(403);

    const signedIn = await workerFetch(`${ORIGIN}/connections/sign-in`, form({ user: "" }));
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("set-cookie")).toMatch(/; HttpOnly; SameSite=Lax/);
    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
    const list = await (await workerFetch(`${ORIGIN}/connections`, { headers: { cookie } })).text();
    expect(list).toContain("<strong>bmad test client</strong> (signed in ");
    expect(list).toContain(`value="${grantOf(mine.access_token)}"`);
    expect(list).not.toContain(grantOf(theirs.access_token));
    const csrf = /name="csrf" value="([^"]+)"/.exec(list)![1]!;
    expect((await refresh(workerFetch, ORIGIN, mine.client_id, mine.refresh_token!)).status).toBe(200);
    expect(await claimsOf(mine.refresh_token!, "grant")).toBe(1);

    // Without the page's token, or from another site: nothing revoked.
    expect((await workerFetch(`${ORIGIN}/connections/revoke`, form({ grant: grantOf(mine.access_token) }, cookie))).status).toBe(403);
    expect((await workerFetch(`${ORIGIN}/connections/revoke`, form({ grant: grantOf(mine.access_token), csrf }, cookie, "https://evil.example"))).status).toBe(403);
    expect(await mcpStatus(mine.access_token)).toBe(200);
    // Another user's grant names nothing of this user's.
    expect((await workerFetch(`${ORIGIN}/connections/revoke`, form({ grant: grantOf(theirs.access_token), csrf }, cookie))).status).toBe(303);
    expect(await mcpStatus(theirs.access_token)).toBe(200);

    const revoked = await workerFetch(`${ORIGIN}/connections/revoke`, form({ grant: grantOf(mine.access_token), csrf }, cookie));
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get("location")).toBe("/connections");
    expect(await claimsOf(mine.refresh_token!, "grant")).toBe(0);
    expect(await mcpStatus(mine.access_token)).toBe(401);
    expect((await refresh(workerFetch, ORIGIN, mine.client_id, mine.refresh_token!)).status).toBe(400);
    expect(await (await workerFetch(`${ORIGIN}/connections`, { headers: { cookie } })).text()).not.toContain(grantOf(mine.access_token));
  });

  it("tells one user's sign-ins from one app apart, newest first (review 401: 20 identical rows)", async () => {
    await seed();
    const user = "twice@example.com";
    const older = await signIn(workerFetch, ORIGIN, { user });
    const newer = await signIn(workerFetch, ORIGIN, { user, redirectUri: "http://127.0.0.1:40001/callback" });
    // The older sign-in an hour back, so the two differ by the minute too.
    const [userId, olderGrant] = older.access_token.split(":") as [string, string];
    const grant = await env.OAUTH_KV.get<{ createdAt: number }>(`grant:${userId}:${olderGrant}`, "json");
    await env.OAUTH_KV.put(`grant:${userId}:${olderGrant}`, JSON.stringify({ ...grant, createdAt: grant!.createdAt - 3600 }));
    expect((await refresh(workerFetch, ORIGIN, newer.client_id, newer.refresh_token!)).status).toBe(200);

    const signedIn = await workerFetch(`${ORIGIN}/connections/sign-in`, form({ user }));
    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
    const list = await (await workerFetch(`${ORIGIN}/connections`, { headers: { cookie } })).text();
    const rows = list.match(/<li>.*?: /g)!;
    expect(rows).toHaveLength(2);
    const at = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 16).replace("T", " ")} UTC`;
    expect(rows[0]).toMatch(/^<li><strong>bmad test client<\/strong> \(signed in .* UTC, last refreshed .* UTC, client .*, returns to 127\.0\.0\.1:40001\): $/);
    expect(rows[0]).toContain(`client ${newer.client_id.slice(0, 8)}…`);
    expect(rows[1]).toBe(`<li><strong>bmad test client</strong> (signed in ${at(grant!.createdAt - 3600)}, no refresh recorded, client ${older.client_id.slice(0, 8)}…, returns to 127.0.0.1:33418): `);
  });

  it("says an app's own scheme is where its tokens go, not the web host its redirect names (review 408)", async () => {
    await seed();
    const user = "scheme@example.com";
    await signIn(workerFetch, ORIGIN, { user, redirectUri: "com.evil.app://claude.ai/callback" });
    const signedIn = await workerFetch(`${ORIGIN}/connections/sign-in`, form({ user }));
    const list = await (await workerFetch(`${ORIGIN}/connections`, { headers: { cookie: signedIn.headers.get("set-cookie")!.split(";")[0]! } })).text();
    expect(list).toContain(", returns to the app of com.evil.app:): ");
    expect(list).not.toContain("returns to claude.ai");
  });

  it("lists 200 connections a page, and says there are more (review 233: 1,000 listed, the rest unsaid)", async () => {
    await seed();
    const tokens = await signIn(workerFetch, ORIGIN, { user: "many@example.com" });
    const [userId, grantId] = tokens.access_token.split(":") as [string, string];
    const grant = await env.OAUTH_KV.get<Record<string, unknown>>(`grant:${userId}:${grantId}`, "json");
    await Promise.all(Array.from({ length: 200 }, (_, i) => env.OAUTH_KV.put(`grant:${userId}:copy${i}`, JSON.stringify({ ...grant, id: `copy${i}` }))));
    const signedIn = await workerFetch(`${ORIGIN}/connections/sign-in`, form({ user: "many@example.com" }));
    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
    const list = await (await workerFetch(`${ORIGIN}/connections`, { headers: { cookie } })).text();
    expect(list.match(/<li>/g)).toHaveLength(200);
    expect(list).toContain("More apps are connected than these 200, which are not necessarily your newest: revoke some, then open this page again for the rest.");
  });
});
