// The test IdP on its own: discovery, a full code flow with PKCE and a verified id_token, and the
// refusals (wrong verifier, reused code, wrong client secret, user declining). Then the scripted
// browser from oauth-client.ts through a fake proxying authorization server in front of it.
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, pkce, refresh, signIn, withBearer, type FetchLike } from "../../scripts/oauth-client";
import { startIdp, type Idp } from "../support/oidc-idp";

const REDIRECT = "http://127.0.0.1:33418/upstream-callback";
let idp: Idp;

beforeAll(async () => {
  idp = await startIdp();
});
afterAll(async () => {
  await idp.close();
});

/** /authorize with plain fetch; returns the redirect back to REDIRECT as a URL. */
async function authorizeAt(challenge: string, extra: Record<string, string> = {}): Promise<URL> {
  const url = new URL(`${idp.issuer}/authorize`);
  const params = {
    response_type: "code",
    client_id: idp.clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "state-1",
    nonce: "nonce-1",
    scope: "openid email profile",
    ...extra,
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  const res = await fetch(url, { redirect: "manual" });
  expect(res.status).toBe(302);
  return new URL(res.headers.get("Location") ?? "");
}

async function token(fields: Record<string, string>, basic = true): Promise<{ status: number; json: any }> {
  const body = new URLSearchParams({ grant_type: "authorization_code", redirect_uri: REDIRECT, ...fields });
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
  if (basic) headers.Authorization = `Basic ${btoa(`${idp.clientId}:${idp.clientSecret}`)}`;
  else {
    body.set("client_id", idp.clientId);
    body.set("client_secret", idp.clientSecret);
  }
  const res = await fetch(`${idp.issuer}/token`, { method: "POST", headers, body });
  return { status: res.status, json: await res.json() };
}

describe("test OIDC provider", () => {
  it("publishes its discovery document", async () => {
    const doc = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      issuer: idp.issuer,
      authorization_endpoint: `${idp.issuer}/authorize`,
      token_endpoint: `${idp.issuer}/token`,
      jwks_uri: `${idp.issuer}/jwks`,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
      id_token_signing_alg_values_supported: ["RS256"],
    });
  });

  it("runs the code flow and signs a verifiable id_token", async () => {
    idp.user = { sub: "user-42", email: "grace@example.com", email_verified: true, name: "Grace Hopper" };
    const { verifier, challenge } = await pkce();
    const back = await authorizeAt(challenge);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get("state")).toBe("state-1");
    const code = back.searchParams.get("code");
    expect(code).toBeTruthy();

    const { status, json } = await token({ code: code!, code_verifier: verifier });
    expect(status).toBe(200);
    expect(json).toMatchObject({ token_type: "Bearer", expires_in: 300 });
    const jwks = createRemoteJWKSet(new URL(`${idp.issuer}/jwks`));
    const { payload } = await jwtVerify(json.id_token, jwks, { issuer: idp.issuer, audience: idp.clientId });
    expect(payload).toMatchObject({ sub: "user-42", nonce: "nonce-1", email: "grace@example.com", name: "Grace Hopper" });
    expect(decodeProtectedHeader(json.id_token).alg).toBe("RS256");

    const info = await fetch(`${idp.issuer}/userinfo`, { headers: { Authorization: `Bearer ${json.access_token}` } });
    expect(await info.json()).toMatchObject({ sub: "user-42", email: "grace@example.com" });
    expect(idp.requests).toEqual(expect.arrayContaining(["/authorize", "/token", "/jwks", "/userinfo"]));
  });

  it("accepts client_secret_post too", async () => {
    const { verifier, challenge } = await pkce();
    const code = (await authorizeAt(challenge)).searchParams.get("code")!;
    expect((await token({ code, code_verifier: verifier }, false)).status).toBe(200);
  });

  it("refuses a wrong code_verifier", async () => {
    const { challenge } = await pkce();
    const other = await pkce();
    const code = (await authorizeAt(challenge)).searchParams.get("code")!;
    const { status, json } = await token({ code, code_verifier: other.verifier });
    expect(status).toBe(400);
    expect(json.error).toBe("invalid_grant");
  });

  it("refuses a reused code", async () => {
    const { verifier, challenge } = await pkce();
    const code = (await authorizeAt(challenge)).searchParams.get("code")!;
    expect((await token({ code, code_verifier: verifier })).status).toBe(200);
    const again = await token({ code, code_verifier: verifier });
    expect(again.status).toBe(400);
    expect(again.json.error).toBe("invalid_grant");
  });

  it("refuses a wrong redirect_uri and a wrong client secret", async () => {
    const { verifier, challenge } = await pkce();
    const code = (await authorizeAt(challenge)).searchParams.get("code")!;
    const moved = await token({ code, code_verifier: verifier, redirect_uri: "http://127.0.0.1:1/elsewhere" });
    expect(moved.json.error).toBe("invalid_grant");

    const res = await fetch(`${idp.issuer}/token`, {
      method: "POST",
      headers: { Authorization: `Basic ${btoa(`${idp.clientId}:nope`)}` },
      body: new URLSearchParams({ grant_type: "authorization_code", code: "x" }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_client");
  });

  it("redirects back with access_denied when the user declines", async () => {
    idp.deny = true;
    try {
      const back = await authorizeAt((await pkce()).challenge, { state: "state-2" });
      expect(back.searchParams.get("error")).toBe("access_denied");
      expect(back.searchParams.get("state")).toBe("state-2");
      expect(back.searchParams.get("code")).toBeNull();
    } finally {
      idp.deny = false;
    }
  });

  it("shows an unknown client instead of redirecting", async () => {
    const res = await fetch(`${idp.issuer}/authorize?client_id=evil&redirect_uri=${encodeURIComponent(REDIRECT)}`, { redirect: "manual" });
    expect(res.status).toBe(400);
  });
});

/**
 * A stand-in for the server under test, as a fetch function: consent page with a binding cookie,
 * then the upstream hop to the IdP, then a code for the client. Other origins go to the network.
 */
function fakeServer(base: string): FetchLike {
  const issued = new Map<string, { challenge: string; sub: string }>();
  let pending: URLSearchParams | undefined;
  const redirect = (location: string, cookie?: string) =>
    new Response(null, { status: 302, headers: { Location: location, ...(cookie ? { "Set-Cookie": cookie } : {}) } });
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.origin !== base) return fetch(request);
    const cookies = request.headers.get("Cookie") ?? "";
    const route = `${request.method} ${url.pathname}`;
    if (route === "GET /.well-known/oauth-authorization-server") {
      return Response.json({ issuer: base, registration_endpoint: `${base}/register`, token_endpoint: `${base}/token` });
    }
    if (route === "POST /register") return Response.json({ client_id: "c1", ...((await request.json()) as object) }, { status: 201 });
    if (route === "GET /authorize") {
      pending = url.searchParams;
      const headers = new Headers({ "Content-Type": "text/html" });
      headers.append("Set-Cookie", "__Host-consent=abc; Path=/; Secure; HttpOnly; Max-Age=600");
      headers.append("Set-Cookie", "other=1; Path=/");
      return new Response(`<form method="post"><input type="hidden" name="handle" value="h&#38;1">`, { headers });
    }
    if (route === "POST /authorize") {
      const form = await request.formData();
      if (!cookies.includes("__Host-consent=abc") || form.get("handle") !== "h&1") return new Response("forged", { status: 403 });
      if (form.get("decision") !== "approve") return redirect(`${pending!.get("redirect_uri")}?error=access_denied&state=${pending!.get("state")}`);
      const up = new URL(`${idp.issuer}/authorize`);
      const { challenge } = await pkce(); // the fake skips the upstream verifier check; the IdP tests cover it
      for (const [k, v] of Object.entries({ response_type: "code", client_id: idp.clientId, redirect_uri: `${base}/callback`, code_challenge: challenge, code_challenge_method: "S256", state: "up", nonce: "n" })) up.searchParams.set(k, v);
      return redirect(up.href, "__Host-consent=; Path=/; Max-Age=0");
    }
    if (route === "GET /callback") {
      if (url.searchParams.get("error")) return new Response(`upstream: ${url.searchParams.get("error")}`, { status: 400 });
      if (cookies.includes("__Host-consent") || url.searchParams.get("state") !== "up") return new Response("bad callback", { status: 400 });
      const code = `code-${issued.size}`;
      issued.set(code, { challenge: pending!.get("code_challenge")!, sub: idp.user.sub });
      return redirect(`${pending!.get("redirect_uri")}?code=${code}&state=${pending!.get("state")}&iss=${encodeURIComponent(base)}`);
    }
    if (route === "POST /token") {
      const form = new URLSearchParams(await request.text());
      if (form.get("grant_type") === "refresh_token") return Response.json({ access_token: "at-2", scope: "bmad:read" });
      const grant = issued.get(form.get("code") ?? "");
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(form.get("code_verifier") ?? "")));
      if (!grant || Buffer.from(digest).toString("base64url") !== grant.challenge) return Response.json({ error: "invalid_grant" }, { status: 400 });
      return Response.json({ access_token: `at-${grant.sub}`, refresh_token: "rt-1", scope: "bmad:read" });
    }
    if (route === "GET /mcp") return new Response(request.headers.get("Authorization"));
    return new Response("not found", { status: 404 });
  };
}

describe("scripted browser (oauth-client)", () => {
  const base = "http://as.test";

  it("signs in through consent and the upstream IdP, then refreshes", async () => {
    const server = fakeServer(base);
    const tokens = await signIn(server, base);
    expect(tokens).toMatchObject({ access_token: `at-${idp.user.sub}`, refresh_token: "rt-1", client_id: "c1" });
    expect((await refresh(server, base, "c1", "rt-1")).json.access_token).toBe("at-2");
    expect(await (await withBearer(server, "t0k")(`${base}/mcp`)).text()).toBe("Bearer t0k");
  });

  it("reports a denial and an upstream refusal as outcomes", async () => {
    const server = fakeServer(base);
    const denied = await authorize(server, base, { clientId: "c1", decision: "deny", state: "s9" });
    expect(denied).toMatchObject({ ok: false, status: 302, error: "access_denied" });
    idp.deny = true;
    try {
      const upstream = await authorize(server, base, { clientId: "c1" });
      expect(upstream).toMatchObject({ ok: false, status: 400, body: "upstream: access_denied" });
    } finally {
      idp.deny = false;
    }
  });
});
