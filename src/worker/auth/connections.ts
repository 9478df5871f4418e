// /connections: the signed-in user's connectors (the provider's grants), each with a Revoke button, so a user can end
// an app's access (a lost laptop, a copied credentials file) without the app's help. Signed in as for consent: the local
// sign-in on loopback, else the identity provider (back through its one /callback, told apart by the state's prefix),
// with the same access rules. The sign-in lasts SESSION_S in a KV record named by an HttpOnly, SameSite=Lax cookie;
// every POST is checked by its Origin and by a token the record holds, a sign-in counted per address with the consent
// pages, and the page is the consent page's (no script, no frame, no Referer).
import type { Context } from "hono";
import { Hono } from "hono";
import { getCookie } from "hono/cookie";
import { isAllowed, upstreamName } from "./config.js";
import { localIdentity, randomToken, s256, type Identity } from "./identity.js";
import { escape, foreignOrigin, page } from "./page.js";
import { type Ctx, gate, LOCAL_USER_FIELD, shownName, signInsLimited, upstreamIdentity, upstreamSignIn } from "./pages.js";
import { forgetGrant } from "./token-cache.js";
import { dropRefreshClaims, lastRefreshes } from "./token-endpoint.js";
import { readCappedForm } from "../read-capped.js";
import { shownTime } from "../../core/count.js";

/** How long the page stays signed in. */
const SESSION_S = 15 * 60;
/** How long a sign-in at the identity provider may take. */
const SIGN_IN_S = 10 * 60;
const SESSION_COOKIE = "bmad_connections";
const STATE_COOKIE = "bmad_connections_state";
/** States of sign-ins to this page start so; the provider's own never do. */
const STATE_PREFIX = "connections.";
const sessionKey = (id: string) => `bmad:connections:session:${id}`;
const signInKey = (state: string) => `bmad:connections:sign-in:${state}`;
/** A form here is a grant id and a token. */
const MAX_FORM_BYTES = 4 * 1024;

type Session = { userId: string; csrf: string };
type C = Context<Ctx>;

export const connectionsPages = new Hono<Ctx>();
connectionsPages.use("/connections", gate);
connectionsPages.use("/connections/*", gate);

function cookie(c: C, name: string, value: string, path: string, maxAge: number): string {
  const secure = new URL(c.req.url).protocol === "https:" ? "; Secure" : "";
  return `${name}=${value}; Path=${path}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
}

async function session(c: C): Promise<Session | undefined> {
  const id = getCookie(c, SESSION_COOKIE);
  if (!id || !/^[0-9a-f]{64}$/.test(id)) return undefined;
  return (await c.env.OAUTH_KV.get<Session>(sessionKey(id), "json")) ?? undefined;
}

/** Signs `identity` in to this page, and sends the browser to it. */
async function startSession(c: C, identity: Identity, headers = new Headers()): Promise<Response> {
  const id = randomToken();
  await c.env.OAUTH_KV.put(sessionKey(id), JSON.stringify({ userId: identity.subject, csrf: randomToken() } satisfies Session), { expirationTtl: SESSION_S });
  // Lax: a sign-in through the identity provider ends in a redirect chain begun on its site, where a browser sends no
  // Strict cookie, and the page asked to sign in again (review 233). Its forms are guarded by Origin and the token.
  headers.append("set-cookie", cookie(c, SESSION_COOKIE, id, "/connections", SESSION_S));
  headers.set("location", "/connections");
  return new Response(null, { status: 303, headers });
}

/** Connections one page lists: each costs a read of its grant, and a Worker's request has a budget of them. */
const LISTED = 200;

/** A time to the minute, in UTC: two sign-ins of one app differ by it. */
const minute = (ms: number) => `${shownTime(new Date(ms).toISOString())} UTC`;

/** Enough of a client id to tell one registration from another: a registered app's is random (its first 8 characters
 *  differ), a published one's (a metadata document URL) is named by its host. */
function shortClientId(id: string): string {
  if (id.startsWith("https://")) return URL.parse(id)?.host ?? id;
  return id.length > 8 ? `${id.slice(0, 8)}…` : id;
}

/** Where a sign-in's tokens went: a web redirect's host (a loopback app's port differs by sign-in), else the app that
 *  claims its scheme (review 408: com.evil.app://claude.ai/ read as "returns to claude.ai"). */
function redirectHost(uri: string | undefined): string | undefined {
  const url = uri ? URL.parse(uri) : null;
  if (!url) return undefined;
  return url.protocol === "https:" || url.protocol === "http:" ? url.host.slice(0, 100) : `the app of ${url.protocol.slice(0, 60)}`;
}

async function listPage(c: C, signedIn: Session): Promise<Response> {
  const oauth = c.get("oauth");
  const [{ items, cursor }, refreshed] = await Promise.all([oauth.listUserGrants(signedIn.userId, { limit: LISTED }), lastRefreshes(c.env, signedIn.userId)]);
  // Each app looked up once, however many of its sign-ins are listed (review 233).
  const clients = new Map<string, ReturnType<typeof oauth.lookupClient>>();
  const clientOf = (id: string) => clients.get(id) ?? clients.set(id, oauth.lookupClient(id).catch(() => null)).get(id)!;
  // Newest first (within this page: KV lists grants by id), each row with what tells it from the same app's other
  // sign-ins (review 401: 20 identical rows).
  items.sort((a, b) => b.createdAt - a.createdAt);
  const rows = await Promise.all(
    items.map(async (grant) => {
      const client = await clientOf(grant.clientId);
      const name = shownName(client?.clientName ?? "");
      const last = refreshed.get(grant.id);
      const to = redirectHost(grant.redirectUri);
      const facts = [
        `signed in ${minute(grant.createdAt * 1000)}`,
        last ? `last refreshed ${minute(last)}` : "no refresh recorded",
        `client ${shortClientId(grant.clientId)}`,
        ...(to ? [`returns to ${to}`] : []),
      ];
      return `<li><strong>${escape(name)}</strong> (${escape(facts.join(", "))}): ${escape(grant.scope.join(" ") || "no scope")}
<form method="post" action="/connections/revoke" style="display:inline"><input type="hidden" name="grant" value="${escape(grant.id)}"><input type="hidden" name="csrf" value="${escape(signedIn.csrf)}"> <button>Revoke</button></form></li>`;
    }),
  );
  // Past a page, which grants are listed is not by age (review 408): said so.
  const more = cursor ? `<p>More apps are connected than these ${LISTED}, which are not necessarily your newest: revoke some, then open this page again for the rest.</p>` : "";
  const list = rows.length ? `<ul>${rows.join("\n")}</ul>${more}` : "<p>No app is connected as you.</p>";
  return page(200, "Your connections", `<p>The apps signed in to this server as you, newest first. Revoke ends an app's access at once: its tokens stop working, and it must ask you again.</p>${list}`);
}

connectionsPages.get("/connections", async (c) => {
  const signedIn = await session(c);
  if (signedIn) return listPage(c, signedIn);
  const { upstream } = c.get("config");
  const local = upstream.kind === "local";
  return page(200, "Your connections", `<p>Sign in to see the apps connected as you, and end their access.</p>
<form method="post" action="/connections/sign-in">${local ? LOCAL_USER_FIELD : ""}<p><button>Sign in${local ? "" : ` (${escape(upstreamName(upstream).replace(/^The /, "the "))})`}</button></p></form>`);
});

connectionsPages.post("/connections/sign-in", async (c) => {
  const refused = refusedForm(c) ?? (await signInsLimited(c));
  if (refused) return refused;
  const { upstream } = c.get("config");
  if (upstream.kind === "local") {
    const form = (await readCappedForm(c.req.raw, MAX_FORM_BYTES))?.form;
    const identity = localIdentity(form?.get("user"));
    if (!identity) return page(400, "Sign-in failed", "<p>\"Sign in as\" must be an email address, or empty for the local user.</p>");
    return startSession(c, identity);
  }
  const signInAt = await upstreamSignIn(upstream);
  if (!signInAt.ok) return page(502, "Sign-in could not continue", `<p>${escape(signInAt.error)}</p><p>Try again in a moment.</p>`);
  const state = `${STATE_PREFIX}${randomToken()}`;
  const verifier = randomToken();
  const nonce = randomToken();
  await c.env.OAUTH_KV.put(signInKey(state), JSON.stringify({ verifier, nonce }), { expirationTtl: SIGN_IN_S });
  // Lax: the identity provider sends the browser back by a top-level GET from its own site.
  const headers = new Headers({ "set-cookie": cookie(c, STATE_COOKIE, state, "/callback", SIGN_IN_S) });
  headers.set("location", signInAt.url({ redirectUri: new URL("/callback", c.req.url).href, state, challenge: await s256(verifier), nonce }));
  return new Response(null, { status: 302, headers });
});

// The identity provider knows one callback: a sign-in to this page comes back there, told apart by its state.
connectionsPages.get("/callback", gate, async (c, next) => {
  const state = c.req.query("state") ?? "";
  if (!state.startsWith(STATE_PREFIX)) return next();
  const failed = (why: string) => page(400, "Sign-in failed", `<p>${escape(why)}</p><p><a href="/connections">Start again</a>.</p>`);
  // Begun in this browser (login CSRF), and once.
  if (getCookie(c, STATE_COOKIE) !== state) return failed("This sign-in was not started in this browser.");
  const started = await c.env.OAUTH_KV.get<{ verifier: string; nonce: string }>(signInKey(state), "json");
  await c.env.OAUTH_KV.delete(signInKey(state));
  const code = c.req.query("code");
  if (!started || !code) return failed("This sign-in expired, was used, or was refused.");
  const config = c.get("config");
  const signedIn = await upstreamIdentity(config, { code, verifier: started.verifier, nonce: started.nonce, redirectUri: new URL("/callback", c.req.url).href });
  if (!signedIn.ok) return failed(signedIn.error);
  if (!isAllowed(config.access, signedIn.identity)) return failed("The account you signed in with is not allowed on this server.");
  return startSession(c, signedIn.identity, new Headers({ "set-cookie": cookie(c, STATE_COOKIE, "", "/callback", 0) }));
});

connectionsPages.post("/connections/revoke", async (c) => {
  const refused = refusedForm(c);
  if (refused) return refused;
  const signedIn = await session(c);
  if (!signedIn) return page(401, "Signed out", `<p>This page's sign-in ended. <a href="/connections">Sign in again</a>.</p>`);
  const form = (await readCappedForm(c.req.raw, MAX_FORM_BYTES))?.form;
  const grant = form?.get("grant");
  if (form?.get("csrf") !== signedIn.csrf || typeof grant !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(grant)) return page(403, "Not revoked", `<p>This form is not one this server's page sent. <a href="/connections">Back to your connections</a>.</p>`);
  // Keyed by the signed-in user: another user's grant id names nothing here.
  await c.get("oauth").revokeGrant(grant, signedIn.userId);
  forgetGrant(`${signedIn.userId}:${grant}`);
  await dropRefreshClaims(c.env, signedIn.userId, grant);
  return new Response(null, { status: 303, headers: { location: "/connections" } });
});

/** A form posted from another site (CSRF), refused. */
function refusedForm(c: C): Response | undefined {
  const from = foreignOrigin(c.req.raw);
  return from === undefined ? undefined : page(403, "Refused", `<p>This form was sent from ${escape(from)}, not from this server's own page. <a href="/connections">Open your connections here</a>.</p>`);
}
