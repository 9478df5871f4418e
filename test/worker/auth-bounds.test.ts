// Review 95: what anyone may send the OAuth endpoints before signing in is bounded before the provider makes a KV key
// of it (at most 512 bytes: a 600-character client_id or token answered 500 everywhere), and a registered client's
// name is shown on the consent page without the format characters that would reorder the text around it.
import { describe, expect, it } from "vitest";
import { exchange, pkce, refresh, register, revoke, withBearer } from "../../scripts/oauth-client.js";
import { CLIENT_ID_CHARS, checkClientId } from "../../src/worker/auth/public-host.js";
import { MAX_TOKEN_BYTES } from "../../src/worker/auth/token-cache.js";
import { ORIGIN, workerFetch } from "./client.js";

const LONG = "a".repeat(600);
/** Shaped like this server's tokens (user:grant:secret), with an overlong part. */
const LONG_TOKENS = [`u:${LONG}:s`, `${LONG}:g:s`, `u:g:${LONG}`];

function authorizeUrl(query: Record<string, string>): string {
  return `${ORIGIN}/authorize?${new URLSearchParams({ response_type: "code", code_challenge: "x".repeat(43), code_challenge_method: "S256", redirect_uri: "https://a.example/cb", ...query })}`;
}

describe("overlong client ids and tokens (review 95)", { timeout: 60_000 }, () => {
  it("refuses an overlong client_id on the consent page, naming the bound", async () => {
    const res = await workerFetch(authorizeUrl({ client_id: LONG }));
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(`The client_id is 600 characters long; at most ${CLIENT_ID_CHARS.other} are accepted.`);
  });

  it("allows a metadata document URL a longer client_id, but not one the provider would look up in KV", () => {
    expect(checkClientId(`https://client.example/${"p".repeat(600)}`)).toEqual({ ok: true });
    expect(checkClientId(`https://client.example/${"p".repeat(CLIENT_ID_CHARS.url)}`)).toMatchObject({ ok: false, error: expect.stringContaining("for a metadata document URL") });
    for (const kvKey of [`https://${LONG}.example`, `http://client.example/${LONG}`]) expect(checkClientId(kvKey)).toMatchObject({ ok: false, error: expect.stringContaining(`at most ${CLIENT_ID_CHARS.other} are accepted`) });
  });

  it("answers an overlong client_id at the token endpoint with 401 invalid_client, from the form and from HTTP Basic", async () => {
    const viaForm = await exchange(workerFetch, ORIGIN, { grant_type: "authorization_code", code: "u:g:c", client_id: LONG, code_verifier: "v".repeat(43) });
    expect(viaForm).toMatchObject({ status: 401, json: { error: "invalid_client", error_description: expect.stringContaining("at most 128 are accepted") } });
    const viaBasic = await workerFetch(`${ORIGIN}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${btoa(`${LONG}:secret`)}` },
      body: new URLSearchParams({ grant_type: "authorization_code", code: "u:g:c" }),
    });
    expect(viaBasic.status).toBe(401);
    expect(await viaBasic.json()).toMatchObject({ error: "invalid_client" });
  });

  it("answers an overlong code, refresh token or token to revoke with an OAuth error naming the bound", async () => {
    const client = await register(workerFetch, ORIGIN);
    const { verifier } = await pkce();
    // Counted in UTF-8 bytes, as a KV key is: 204 characters here.
    for (const token of [...LONG_TOKENS, `u:${"é".repeat(200)}:s`]) {
      const code = await exchange(workerFetch, ORIGIN, { grant_type: "authorization_code", code: token, client_id: client.client_id, code_verifier: verifier, redirect_uri: "http://127.0.0.1:33418/callback" });
      expect({ token, ...code }).toMatchObject({ token, status: 400, json: { error: "invalid_grant", error_description: expect.stringContaining(`This code is longer than any this server issues (at most ${MAX_TOKEN_BYTES} bytes)`) } });
      expect(await refresh(workerFetch, ORIGIN, client.client_id, token)).toMatchObject({ status: 400, json: { error: "invalid_grant", error_description: expect.stringContaining("This refresh_token is longer") } });
      expect(await revoke(workerFetch, ORIGIN, client.client_id, token, "refresh_token")).toMatchObject({ status: 400, json: { error: "invalid_request", error_description: expect.stringContaining("This token is longer") } });
    }
  });

  it("answers /mcp with an overlong bearer token with 401 invalid_token, naming the bound and where to sign in", async () => {
    for (const token of LONG_TOKENS) {
      const res = await withBearer(workerFetch, token)(`${ORIGIN}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
      expect({ token, status: res.status }).toEqual({ token, status: 401 });
      // The provider's challenge form, scopes included (review 230).
      expect(res.headers.get("www-authenticate")).toBe(`Bearer realm="OAuth", resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/mcp", error="invalid_token", scope="bmad:read bmad:write"`);
      expect(await res.json()).toMatchObject({ error: "invalid_token", error_description: expect.stringContaining("This access token is longer than any this server issues") });
    }
  });
});

describe("a registered client's name on the consent page (review 95)", { timeout: 60_000 }, () => {
  it("is shown on one line, without bidirectional or other format characters", async () => {
    const client = await register(workerFetch, ORIGIN, { client_name: "Claude \u202Eevil\u2066 app\u200B\n2" });
    expect(client.status).toBe(201);
    const { challenge } = await pkce();
    const page = await workerFetch(authorizeUrl({ client_id: client.client_id, code_challenge: challenge, redirect_uri: "http://127.0.0.1:33418/callback" }));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toMatch(/\p{Cf}/u);
    expect(html).toContain("<title>Allow Claude evil app 2?</title>");
    expect(html).toContain("<strong>Claude evil app 2</strong> asks to use");
  });
});
