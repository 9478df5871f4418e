// A scripted MCP OAuth client and browser for the authorization code flow. Web APIs only (no Node),
// so the same code drives a Miniflare URL from Node and `exports.default.fetch` inside workerd.
// Redirects are followed by hand, with a per-origin cookie jar, because the flow hops between the
// server under test, the upstream IdP and the client's redirect URI (which is never fetched).

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export type AuthorizeOutcome =
  | { ok: true; code: string; state: string | null; iss: string | null; location: string }
  | { ok: false; status: number; location?: string; error?: string; body: string };

export const DEFAULT_REDIRECT_URI = "http://127.0.0.1:33418/callback";
const DEFAULT_SCOPE = "bmad:read bmad:write";
const MAX_HOPS = 10;

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function randomString(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

async function challengeFor(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

export async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = randomString(32); // 43 chars, within RFC 7636's 43..128
  return { verifier, challenge: await challengeFor(verifier) };
}

/** RFC 8414 metadata of the server at `base`. */
async function metadata(fetch: FetchLike, base: string): Promise<Record<string, any>> {
  const res = await fetch(`${base}/.well-known/oauth-authorization-server`);
  if (!res.ok) throw new Error(`AS metadata: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, any>;
}

async function readJson(res: Response): Promise<any> {
  const body = await res.text();
  try {
    return JSON.parse(body);
  } catch {
    return { raw: body };
  }
}

export async function register(
  fetch: FetchLike,
  base: string,
  body: Partial<{ redirect_uris: string[]; client_name: string; token_endpoint_auth_method: string }> = {},
): Promise<{ client_id: string; status: number; json: any }> {
  const endpoint = (await metadata(fetch, base)).registration_endpoint;
  if (typeof endpoint !== "string") throw new Error("AS metadata has no registration_endpoint");
  const res = await fetch(endpoint, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({
      redirect_uris: [DEFAULT_REDIRECT_URI],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      client_name: "bmad test client",
      ...body,
    }),
  });
  const json = await readJson(res);
  return { client_id: typeof json?.client_id === "string" ? json.client_id : "", status: res.status, json };
}

/** Cookies per origin; enough for the consent and upstream binding cookies (path and flags ignored). */
class CookieJar {
  private jars = new Map<string, Map<string, string>>();

  store(url: string, res: Response): void {
    const origin = new URL(url).origin;
    const jar = this.jars.get(origin) ?? new Map<string, string>();
    this.jars.set(origin, jar);
    for (const line of res.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const eq = pair.indexOf("=");
      if (eq < 1) continue;
      const name = pair.slice(0, eq).trim();
      const expired = attributes.some((attr) => {
        const [key = "", value = ""] = attr.split("=").map((part) => part.trim());
        if (key.toLowerCase() === "max-age") return Number(value) <= 0;
        if (key.toLowerCase() === "expires") return Date.parse(value) <= Date.now();
        return false;
      });
      if (expired) jar.delete(name);
      else jar.set(name, pair.slice(eq + 1).trim());
    }
  }

  header(url: string): string | undefined {
    const jar = this.jars.get(new URL(url).origin);
    if (!jar || jar.size === 0) return undefined;
    return [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

function unescapeHtml(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** The scope checkboxes a consent page ticks, as a browser would submit them untouched. */
export function tickedScopes(html: string): string[] {
  return [...html.matchAll(/<input\b[^>]*>/g)]
    .map((m) => m[0])
    .filter((tag) => /\bname="scope"/.test(tag) && (/\schecked\b/.test(tag) || /\btype="hidden"/.test(tag)))
    .map((tag) => unescapeHtml(/\bvalue="([^"]*)"/.exec(tag)?.[1] ?? ""));
}

export async function authorize(
  fetch: FetchLike,
  base: string,
  opts: {
    clientId: string;
    redirectUri?: string;
    scope?: string;
    resource?: string;
    state?: string;
    /** What the user leaves ticked; by default the boxes the consent page ticks. */
    approveScopes?: string[];
    decision?: "approve" | "deny";
    verifier?: string;
    /** The Origin the consent form is posted with; by default the server's own. */
    origin?: string;
    /** What the user types in the consent page's "Sign in as" field (the local development sign-in, loopback
     *  only): an email signs in another local user. A page without the field cannot take it. */
    user?: string;
  },
): Promise<AuthorizeOutcome> {
  const redirectUri = opts.redirectUri ?? DEFAULT_REDIRECT_URI;
  const scope = opts.scope ?? DEFAULT_SCOPE;
  const verifier = opts.verifier ?? (await pkce()).verifier;
  const jar = new CookieJar();

  // One browser request: sends this origin's cookies, keeps what comes back, never follows.
  const browse = async (url: string, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    const cookie = jar.header(url);
    if (cookie) headers.set("Cookie", cookie);
    const res = await fetch(url, { ...init, headers, redirect: "manual" });
    jar.store(url, res);
    return res;
  };

  const start = new URL(`${base}/authorize`);
  const params: Record<string, string> = {
    response_type: "code",
    client_id: opts.clientId,
    redirect_uri: redirectUri,
    code_challenge: await challengeFor(verifier),
    code_challenge_method: "S256",
    state: opts.state ?? randomString(16),
    scope,
    resource: opts.resource ?? `${base}/mcp`,
  };
  for (const [key, value] of Object.entries(params)) start.searchParams.set(key, value);

  let url = start.href;
  let res = await browse(url);
  if (res.status === 200) {
    // The consent page: read the handle, then submit the form as the user's click would.
    const html = await res.text();
    const handle = /name="handle"\s+value="([^"]*)"/.exec(html)?.[1];
    if (handle === undefined) return { ok: false, status: res.status, body: html };
    const form = new URLSearchParams({ handle: unescapeHtml(handle), decision: opts.decision ?? "approve" });
    for (const granted of opts.approveScopes ?? tickedScopes(html)) form.append("scope", granted);
    if (opts.user !== undefined) {
      if (!/<input [^>]*name="user"/.test(html)) return { ok: false, status: res.status, body: `The consent page has no "Sign in as" field to take ${opts.user}: only the local development sign-in (loopback) offers it.` };
      form.set("user", opts.user);
    }
    url = `${base}/authorize`;
    res = await browse(url, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: opts.origin ?? new URL(base).origin },
      body: form.toString(),
    });
  }

  for (let hop = 0; ; hop++) {
    let location = res.headers.get("Location");
    // An app's own scheme (cursor:) is opened by a page, as a browser follows it.
    if (!location && res.status === 200 && !/^https?:/.test(redirectUri)) {
      const body = await res.text();
      const opened = /<meta http-equiv="refresh" content="0;url=([^"]*)">/.exec(body)?.[1];
      if (!opened) return { ok: false, status: res.status, body };
      location = unescapeHtml(opened);
    } else if (res.status < 300 || res.status >= 400 || !location) {
      return { ok: false, status: res.status, ...(location ? { location } : {}), body: await res.text() };
    }
    await res.body?.cancel().catch(() => undefined);
    const next = new URL(location, url).href;
    if (next.startsWith(redirectUri)) {
      const query = new URL(next).searchParams;
      const code = query.get("code");
      if (code) return { ok: true, code, state: query.get("state"), iss: query.get("iss"), location: next };
      const error = query.get("error") ?? undefined;
      return { ok: false, status: res.status, location: next, ...(error ? { error } : {}), body: query.get("error_description") ?? "" };
    }
    if (hop >= MAX_HOPS) return { ok: false, status: res.status, location: next, body: `more than ${MAX_HOPS} redirects` };
    url = next;
    res = await browse(url);
  }
}

export async function exchange(fetch: FetchLike, base: string, body: Record<string, string>): Promise<{ status: number; json: any }> {
  const endpoint = (await metadata(fetch, base)).token_endpoint;
  if (typeof endpoint !== "string") throw new Error("AS metadata has no token_endpoint");
  const res = await fetch(endpoint, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
    body: new URLSearchParams(body).toString(),
  });
  return { status: res.status, json: await readJson(res) };
}

export async function signIn(
  fetch: FetchLike,
  base: string,
  opts: { scope?: string; approveScopes?: string[]; redirectUri?: string; user?: string } = {},
): Promise<{ access_token: string; refresh_token?: string; scope: string; client_id: string }> {
  const redirectUri = opts.redirectUri ?? DEFAULT_REDIRECT_URI;
  const client = await register(fetch, base, { redirect_uris: [redirectUri] });
  if (!client.client_id) throw new Error(`register: ${client.status} ${JSON.stringify(client.json)}`);
  const { verifier } = await pkce();
  const outcome = await authorize(fetch, base, {
    clientId: client.client_id,
    redirectUri,
    verifier,
    ...(opts.scope ? { scope: opts.scope } : {}),
    ...(opts.approveScopes ? { approveScopes: opts.approveScopes } : {}),
    ...(opts.user !== undefined ? { user: opts.user } : {}),
  });
  if (!outcome.ok) throw new Error(`authorize: ${JSON.stringify(outcome)}`);
  const token = await exchange(fetch, base, {
    grant_type: "authorization_code",
    code: outcome.code,
    redirect_uri: redirectUri,
    client_id: client.client_id,
    code_verifier: verifier,
    resource: `${base}/mcp`,
  });
  if (token.status !== 200 || typeof token.json?.access_token !== "string") {
    throw new Error(`token: ${token.status} ${JSON.stringify(token.json)}`);
  }
  return {
    access_token: token.json.access_token,
    ...(typeof token.json.refresh_token === "string" ? { refresh_token: token.json.refresh_token } : {}),
    scope: typeof token.json.scope === "string" ? token.json.scope : "",
    client_id: client.client_id,
  };
}

export function refresh(fetch: FetchLike, base: string, clientId: string, refreshToken: string): Promise<{ status: number; json: any }> {
  return exchange(fetch, base, { grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId });
}

/** RFC 7009 revocation of an access or refresh token, as the client that holds it. */
export function revoke(fetch: FetchLike, base: string, clientId: string, token: string, hint: "access_token" | "refresh_token"): Promise<{ status: number; json: any }> {
  return exchange(fetch, base, { token, token_type_hint: hint, client_id: clientId });
}

/** The same fetch, with `Authorization: Bearer <token>` on every request. */
export function withBearer<F extends FetchLike>(fetch: F, token: string): F {
  const wrapped: FetchLike = (input, init) => {
    const request = new Request(input, init);
    const headers = new Headers(request.headers);
    headers.set("Authorization", `Bearer ${token}`);
    return fetch(new Request(request, { headers }));
  };
  return wrapped as F;
}
