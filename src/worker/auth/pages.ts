// The sign-in pages: /authorize shows consent (then signs in locally or hands off to the upstream),
// /callback finishes the upstream sign-in, checks the access rules and completes the authorization.
import { AuthorizationError, authorizationErrorRedirect, CimdFetchError, type AuthRequest, type ConsentDescription, type OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { Hono } from "hono";
import type { Env } from "../env.js";
import type { Result } from "../../core/result.js";
import { authConfig, isAllowed, upstreamName, type AuthConfig, type Upstream } from "./config.js";
import { githubAuthorizeUrl, githubIdentity } from "./github.js";
import { LOCAL_IDENTITY, localIdentity, randomToken, s256, SCOPES, SCOPES_SUPPORTED, type Identity, type Props } from "./identity.js";
import { oidcAuthorizeUrl, oidcDiscovery, oidcIdentity } from "./oidc.js";
import { checkClientId } from "./public-host.js";
import { readCappedForm } from "../read-capped.js";
import { asOneLine, writeOutInvisible } from "../../core/lines.js";
import { REGISTRATION_LIMITS, REGISTRATION_TTL_DAYS, takeFromAddress } from "./registration.js";
import { METADATA_RETRY_SECONDS, metadataUnreadable, RESOURCE_NOT_CONFIGURED, shown, wrongResource } from "./oauth-error.js";
import { redirectKind, refusedRedirectPage, toApp } from "./app-redirect.js";
import { escape, foreignOrigin, page } from "./page.js";

/** The consent form: a handle, a decision, the scopes and (local sign-in) an email. */
const MAX_CONSENT_BYTES = 16 * 1024;

const SCOPE_MEANINGS: Record<string, string> = {
  [SCOPES.read]: "read BMAD content, your sessions and memory, and the files of every project you own or that is shared with you",
  [SCOPES.write]: "change your projects: write, delete and restore files, run BMAD's scripts on them, share them with others, keep sessions",
  offline_access: "stay signed in (refresh tokens)",
};

/**
 * The scopes offered, all ticked: those the client asked for that this server knows, or bmad:read when it
 * asked for none of them (RFC 6749 §3.3 default). Nothing more: a client that later needs bmad:write gets
 * insufficient_scope and asks again.
 */
function offeredScopes(requested: string[]): string[] {
  const known = [...new Set(requested)].filter((s) => SCOPES_SUPPORTED.includes(s));
  // Every call needs bmad:read: bmad:write alone made a token that could not even initialize (review 206).
  return known.includes(SCOPES.read) ? known : [SCOPES.read, ...known];
}

/** RFC 6749 §3.3 scope-token characters: other scopes are counted, not shown (review 210: a U+202E in one reversed the
 *  page's text after it). */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

function ignoredScopes(scopes: string[]): string {
  const ignored = scopes.filter((s) => !SCOPES_SUPPORTED.includes(s));
  const shown = ignored.filter((s) => SCOPE_TOKEN.test(s));
  const others = ignored.length - shown.length;
  const parts = [...(shown.length ? [shown.join(" ")] : []), ...(others ? [`${others} other scope${others === 1 ? "" : "s"}`] : [])];
  return parts.length ? `<p>Not offered here, not granted: ${escape(parts.join("; "))}.</p>` : "";
}

/** Scopes the provider would store of a sign-in request past their bound, or undefined: the consent transaction holds
 *  them all (review 95: a 60,000-character scope). */
function oversizedScope(request: AuthRequest): string | undefined {
  const L = REGISTRATION_LIMITS;
  if (request.scope.length > L.scopes) return `more than ${L.scopes} scopes`;
  if (request.scope.some((s) => s.length > L.scopeChars)) return `a scope longer than ${L.scopeChars} characters`;
  return undefined;
}

/** Combining marks past the fourth on one character: 150 of them stacked over the page's lines (review 332). Four
 *  leave pointed Hebrew its cantillation (review 336). */
const MARK_PILE = /(\p{M}{4})\p{M}+/gu;
/** The braille blank prints as a space (review 332: a name of only it was blank): a space here, where spaces collapse.
 *  Not dropped with what shows as nothing: it takes a place on a line, and names compared without it would read differently. */
const BRAILLE_BLANK = /\u2800/g;
/** For writeOutInvisible: a line break or other blank a space, where asOneLine collapses it; the rest dropped. */
const spaceOrNothing = (c: string) => (/\s/.test(c) ? " " : "");

/** A client's name as the page shows it: one line, nothing that shows as nothing (review 95: a right-to-left override
 *  in "Claude \u202Eevil" showed the page's sentence reversed; review 332: Hangul fillers spaced "Claude" from a fake
 *  "(claude.ai, verified)") but the joins a script or emoji is written with ("I ❤️ BMAD", review 336), blanks
 *  collapsed, marks not piled. */
export const shownName = (name: string) =>
  asOneLine(writeOutInvisible(name, spaceOrNothing).replace(BRAILLE_BLANK, " ").replace(MARK_PILE, "$1")).trim() || "An unnamed app";

/** On the local (loopback-only) consent page: an optional email signs in another local user, to try sharing. */
export const LOCAL_USER_FIELD = `<p><label>Sign in as (optional): <input type="email" name="user" maxlength="255" placeholder="the local user"></label><br>
<small>Local development only: an email signs in a separate local user, e.g. to try sharing a project.</small></p>`;

/** `appScheme`: the redirect's private-use scheme (`cursor:`), where the code goes to an app on the user's computer. */
function consentPage(d: ConsentDescription, handle: string, who: string, local: boolean, appScheme?: string): string {
  const origin = d.clientDomain ? `Published by <strong>${escape(d.clientDomain)}</strong>.` : "This app registered itself; its name is not verified.";
  const offered = offeredScopes(d.scope);
  // bmad:read is no choice: every call needs it (review 209: unticked, it made a token that could not initialize).
  const scopes = offered
    .map((s) => s === SCOPES.read
      ? `<label><input type="checkbox" checked disabled> ${escape(s)}: ${escape(SCOPE_MEANINGS[s] ?? s)} (always: every call needs it)</label><input type="hidden" name="scope" value="${escape(s)}">`
      : `<label><input type="checkbox" name="scope" value="${escape(s)}" checked> ${escape(s)}: ${escape(SCOPE_MEANINGS[s] ?? s)}</label>`)
    .join("<br>");
  // An app's scheme names no website: its URI's host (claude.ai in ai.claude.desktop://claude.ai/…) is not where access
  // goes (review 332).
  const to = appScheme ? `the app on your computer that opens <strong>${escape(appScheme)}</strong> links` : `<strong>${escape(d.redirectHost)}</strong>`;
  return `<p><strong>${escape(d.clientName)}</strong> asks to use the BMAD MCP server as ${escape(who)}.</p>
<p>${origin} Access will be sent to ${to}.</p>
${d.redirectIsLoopback || appScheme ? "<p><strong>This sends access to an app on your computer.</strong> Continue only if you just started signing in from it.</p>" : ""}
<form method="post" action="/authorize"><input type="hidden" name="handle" value="${escape(handle)}">
<p>${scopes}</p>
${local ? LOCAL_USER_FIELD : ""}
${ignoredScopes(d.scope)}
${offered.includes("offline_access") ? "" : "<p>This app stays signed in for up to 30 days (refresh tokens): it did not ask to offer you the choice (offline_access).</p>"}
<p><button name="decision" value="approve">Allow</button> <button name="decision" value="deny">Deny</button></p></form>`;
}

function props(identity: Identity, upstream: Props["upstream"], noRefresh: boolean): Props {
  return {
    userId: identity.subject,
    upstream,
    ...(noRefresh ? { noRefresh: true as const } : {}),
    ...(identity.login ? { login: identity.login } : {}),
    ...(identity.email ? { email: identity.email } : {}),
    ...(identity.emailVerified !== undefined ? { emailVerified: identity.emailVerified } : {}),
    ...(identity.name ? { name: identity.name } : {}),
    ...(identity.memberOf ? { memberOf: identity.memberOf } : {}),
  };
}

export type Ctx = { Bindings: Env; Variables: { config: AuthConfig; oauth: OAuthHelpers } };

export const authPages = new Hono<Ctx>();

// Every sign-in route needs a configured upstream: fail closed otherwise.
authPages.use("/authorize", gate);
authPages.use("/callback", gate);

export async function gate(c: import("hono").Context<Ctx>, next: () => Promise<void>) {
  const result = authConfig(c.env, new URL(c.req.url).hostname);
  if (!result.ok) return page(503, "Sign-in is not available", `<p>${escape(result.error)}</p>`);
  if (!c.env.OAUTH_PROVIDER) throw new Error("OAuth helpers missing: the Worker must be wrapped by OAuthProvider.");
  c.set("config", result.config);
  c.set("oauth", c.env.OAUTH_PROVIDER);
  return next();
}

/** Counts a sign-in page against its address's limit, before it stores anything for someone not signed in (reviews 84
 *  and 86: 500 anonymous requests stored 500 KV records; review 416: the connections page's sign-in too, which shares
 *  the count): the refusal page, or undefined where it fits. */
export async function signInsLimited(c: import("hono").Context<Ctx>): Promise<Response | undefined> {
  const counted = await takeFromAddress(c.req.raw, c.env, new URL(c.req.url).hostname, "authorize:", REGISTRATION_LIMITS.authorizePerAddress);
  if (counted === "unavailable") return page(503, "Sign-in unavailable", "<p>Sign-in is not available: the REGISTRATION_LIMIT Durable Object binding is missing (see wrangler.toml).</p>");
  if (counted !== undefined) return page(429, "Too many sign-ins", `<p>Too many sign-in pages from this address: at most ${REGISTRATION_LIMITS.authorizePerAddress} per ${REGISTRATION_LIMITS.windowMs / 60_000} minutes. Try again in ${counted} s.</p>`, new Headers({ "retry-after": String(counted) }));
  return undefined;
}

/** How a registration is kept, as the refusals below say it. */
const KEPT = `a registration is kept for ${REGISTRATION_TTL_DAYS} days, renewed each time the app gets tokens`;

/** The provider's bare or misleading words for a sign-in request it refuses ("Invalid client_id"), said with the
 *  value at fault and the rule (review 285), or undefined where its own words fit. Its wording is the only handle it
 *  gives. */
const REFUSED_REQUEST = new Map<string, (query: URLSearchParams, origin: string) => string | undefined>([
  ["Invalid client_id", (q) => `This app's client_id, ${shown(q.get("client_id") ?? "", 100)}, is not registered on this server: it never registered here, or its registration has ended (${KEPT}). Remove this server from the app and add it again, so that the app registers anew.`],
  [RESOURCE_NOT_CONFIGURED, (q, origin) => wrongResource(q.get("resource") ?? "", origin)],
  ["Invalid redirect URI", (q) => `This app's redirect_uri, ${q.get("redirect_uri") ? shown(q.get("redirect_uri")!, 200) : "(none sent)"}, is not one it registered here (for an app whose client_id is a URL: one its metadata document lists). It must be https, http on a loopback address or an app's own scheme, with no #fragment and no user:password@, and match a registered one exactly, character for character: only on a loopback address may the port differ, and localhost is not 127.0.0.1. If the app changed its callback since it registered, remove this server from the app and add it again, so that it registers anew (${KEPT}).`],
  // A missing method is RFC 7636's default, plain, which the provider names (review 332: told plain was not allowed).
  ["The plain PKCE method is not allowed. Use S256 instead.", (q) => q.has("code_challenge_method") ? undefined : "This app sent a code_challenge without a code_challenge_method: it must send code_challenge_method=S256. Update the app, or ask its makers to."],
]);

authPages.onError((error, c) => {
  // The app exists; its metadata host failed (review 285: "This app could not be verified." named neither).
  if (error instanceof CimdFetchError) {
    return page(503, "Sign-in unavailable", `<p>${escape(metadataUnreadable(error.metadataUrl, error.detail))}</p>`, new Headers({ "retry-after": String(METADATA_RETRY_SECONDS) }));
  }
  if (!(error instanceof AuthorizationError)) throw error;
  const url = new URL(c.req.url);
  const explained = REFUSED_REQUEST.get(error.description)?.(url.searchParams, url.origin);
  const told = explained === undefined ? error : new AuthorizationError(error.code, { description: explained, redirectUri: error.redirectUri, state: error.state, issuer: error.issuer });
  // An error for the app goes the way its answer would: its scheme judged as a success's (review 210: a refused
  // scheme got a bare redirect with the error).
  if (told.redirectTo) return toApp(new Headers({ Location: told.redirectTo, "cache-control": "no-store" }));
  return page(400, "Sign-in failed", `<p>${escape(told.description ?? "The request is not valid.")}</p><p>Start again from your app.</p>`);
});

/** Why this server refuses a sign-in request the provider took, or undefined. PKCE for every client, as OAuth 2.1 has
 *  it: the provider asks it of public clients only, and anyone may register a confidential one (review 15), whose codes
 *  then rest on its secret alone. An S256 challenge is 43 characters of base64url (RFC 7636): another was taken, and
 *  its code could never be exchanged (review 203). */
function requestProblem(request: AuthRequest): string | undefined {
  if (!request.codeChallenge) return "This app sent no code_challenge: this server signs in only apps that use PKCE (S256). Update the app, or ask its makers to.";
  if (!/^[A-Za-z0-9_-]{43}$/.test(request.codeChallenge)) return "This app sent a code_challenge that is not an S256 challenge (43 characters of base64url, RFC 7636). Update the app, or ask its makers to.";
  const oversized = oversizedScope(request);
  return oversized ? `This app sent ${oversized}, more than a sign-in needs. Update the app, or ask its makers to.` : undefined;
}

authPages.get("/authorize", async (c) => {
  const oauth = c.get("oauth");
  // A client_id that is a metadata document URL is fetched by the provider: never from a non-public host.
  const clientId = checkClientId(c.req.query("client_id") ?? "");
  if (!clientId.ok) return page(400, "Sign-in failed", `<p>${escape(clientId.error)}</p><p>Start again from your app.</p>`);
  // Each consent page stores a transaction before anyone signs in, and a metadata document is fetched to parse the
  // request.
  const limited = await signInsLimited(c);
  if (limited) return limited;
  const request = await oauth.parseAuthRequest(c.req.raw);
  if (redirectKind(request.redirectUri) === "refused") return refusedRedirectPage(request.redirectUri);
  // A state past its bound is stored by the provider and echoed by any redirect (review 84: 4,000 characters): said
  // here, not sent back to the app, which without its state could not tell the refusal from a forgery.
  if ((request.state ?? "").length > REGISTRATION_LIMITS.stateChars) {
    return page(400, "Sign-in failed", `<p>This app sent a state longer than ${REGISTRATION_LIMITS.stateChars} characters, more than a sign-in needs. Update the app, or ask its makers to.</p>`);
  }
  const refusal = requestProblem(request);
  // The redirect_uri is registered (parseAuthRequest checked it): the app is told, as of the provider's own refusals
  // (review 417: these alone were a page, and the app waited for its callback).
  if (refusal) return toApp(new Headers({ Location: authorizationErrorRedirect(request, "invalid_request", refusal), "cache-control": "no-store" }));
  const details = await oauth.describeConsent(request);
  const consent = await oauth.beginConsent(request);
  const local = c.get("config").upstream.kind === "local";
  const who = local ? "the local user" : "you (you sign in next)";
  const name = shownName(details.clientName);
  const appScheme = redirectKind(request.redirectUri) === "app" ? new URL(request.redirectUri).protocol : undefined;
  return page(200, `Allow ${name}?`, consentPage({ ...details, clientName: name }, consent.handle, who, local, appScheme), consent.headers);
});

authPages.post("/authorize", async (c) => {
  const oauth = c.get("oauth");
  // Browsers send Origin with every form POST; only this server's own consent page may submit it (CSRF).
  const from = foreignOrigin(c.req.raw);
  if (from !== undefined) {
    return page(403, "Sign-in refused", `<p>This consent form was sent from ${escape(from)}, not from ${escape(new URL(c.req.url).origin)}. Start again from your app, and approve on this server's own page.</p>`);
  }
  const { upstream } = c.get("config");
  // Capped: read before anything is checked, and by anyone (review 19: 90 MB bodies were buffered whole).
  const form = (await readCappedForm(c.req.raw, MAX_CONSENT_BYTES))?.form;
  if (!form) return page(400, "Sign-in failed", `<p>This consent form is not one this server's page sends (a form of at most ${MAX_CONSENT_BYTES / 1024} KB). Start again from your app.</p>`);
  const handle = String(form.get("handle") ?? "");
  if (form.get("decision") !== "approve") {
    const denied = await oauth.denyConsent(c.req.raw, handle);
    return toApp(denied.headers);
  }
  // The local upstream exists on loopback hosts only: there, the page's "Sign in as" field picks a local user.
  // Where an identity provider says who signs in, the field is no choice of the form's.
  if (upstream.kind !== "local" && form.has("user")) {
    return page(400, "Sign-in failed", "<p>The \"user\" field picks a local user on the local development sign-in (loopback only); this server signs you in with its identity provider. Start again from your app.</p>");
  }
  const local = upstream.kind === "local" ? localIdentity(form.get("user")) : undefined;
  if (upstream.kind === "local" && !local) return page(400, "Sign-in failed", "<p>\"Sign in as\" must be an email address, or empty for the local user.</p>");
  // Looked up before the consent is used up: a provider out of reach leaves it for another try (review 210: a bare 500,
  // and Allow again said the sign-in had expired or was used).
  const signInAt = upstream.kind === "local" ? undefined : await upstreamSignIn(upstream);
  if (signInAt?.ok === false) {
    const same = [...form].map(([k, v]) => `<input type="hidden" name="${escape(k)}" value="${escape(String(v))}">`).join("");
    return page(502, "Sign-in could not continue", `<p>${escape(signInAt.error)}</p><p>Nothing is used up: try again in a moment (within 10 minutes of opening the consent page).</p><form method="post" action="/authorize">${same}<button>Try again</button></form>`);
  }
  // Only scopes the page offered (those the client asked for): a form posting more grants none of them (an
  // eleventh review: bmad:write and a refresh token for a client that asked for bmad:read).
  const consented = await oauth.approveConsent(c.req.raw, handle);
  const offered = offeredScopes(consented.request.scope);
  const approved = { ...consented, request: { ...consented.request, scope: [...new Set([SCOPES.read, ...form.getAll("scope").map(String)])].filter((s) => offered.includes(s)) } };
  // "Stay signed in" offered and unticked: no refresh token (review 55: one came all the same, good for 30 days).
  const noRefresh = offered.includes("offline_access") && !approved.request.scope.includes("offline_access");
  if (!signInAt) {
    const { redirectTo } = await oauth.completeAuthorization({
      request: approved.request, userId: local!.subject, metadata: {}, scope: approved.request.scope, props: props(local!, "local", noRefresh),
    });
    approved.headers.set("Location", redirectTo);
    return toApp(approved.headers);
  }
  const verifier = randomToken();
  const nonce = randomToken();
  const { state, headers } = await oauth.beginUpstream(approved.request, { data: { verifier, nonce, noRefresh }, headers: approved.headers });
  const redirectUri = new URL("/callback", c.req.url).href;
  const challenge = await s256(verifier);
  headers.set("Location", signInAt.url({ redirectUri, state, challenge, nonce }));
  return new Response(null, { status: 302, headers });
});

/** The upstream's sign-in page for a request: OIDC's endpoint from its discovery document, looked up now. */
export async function upstreamSignIn(upstream: Exclude<Upstream, { kind: "local" }>): Promise<Result<{ url: (p: { redirectUri: string; state: string; challenge: string; nonce: string }) => string }>> {
  if (upstream.kind === "github") return { ok: true, url: (p) => githubAuthorizeUrl(upstream, p) };
  const found = await oidcDiscovery(upstream);
  return found.ok ? { ok: true, url: (p) => oidcAuthorizeUrl(upstream, found.discovery, p) } : found;
}

/** Who the upstream says signed in. Failures are fixed sentences naming the server at fault (review 210). */
export async function upstreamIdentity({ upstream, access }: AuthConfig, p: { code: string; verifier: string; nonce: string; redirectUri: string }): Promise<Result<{ identity: Identity }>> {
  try {
    if (upstream.kind === "oidc") return await oidcIdentity(upstream, p);
    if (upstream.kind === "github") return await githubIdentity(upstream, access.githubOrg, p);
    return { ok: true, identity: LOCAL_IDENTITY };
  } catch {
    return { ok: false, error: `${upstreamName(upstream)} could not be reached, or its answer could not be read.` };
  }
}

authPages.get("/callback", async (c) => {
  const oauth = c.get("oauth");
  const { upstream, access } = c.get("config");
  const { request: original, data, headers } = await oauth.finishUpstream<{ verifier: string; nonce: string; noRefresh?: boolean }>(c.req.raw);
  const code = c.req.query("code");
  if (c.req.query("error") || !code) {
    headers.set("Location", authorizationErrorRedirect(original, "access_denied"));
    return toApp(headers);
  }
  const redirectUri = new URL("/callback", c.req.url).href;
  // The app is told of a failure or a refusal, as of a success: it waited for its callback until its timeout (review 210).
  const signedIn = await upstreamIdentity(c.get("config"), { code, verifier: data.verifier, nonce: data.nonce, redirectUri });
  if (!signedIn.ok) {
    headers.set("Location", authorizationErrorRedirect(original, "server_error", signedIn.error));
    return toApp(headers);
  }
  const { identity } = signedIn;
  if (!isAllowed(access, identity)) {
    // No email in it: the app, whoever registered it, learns no more of someone it is refused for.
    const unverified = identity.email && !identity.emailVerified ? " The identity provider did not confirm this account's email as verified (email_verified), so the email access rules cannot match it: verify the email there, or ask for another rule." : "";
    headers.set("Location", authorizationErrorRedirect(original, "access_denied", `The account you signed in with is not allowed on this server. Ask its administrator to add you.${unverified}`));
    return toApp(headers);
  }
  const { redirectTo } = await oauth.completeAuthorization({ request: original, userId: identity.subject, metadata: {}, scope: original.scope, props: props(identity, upstream.kind, data.noRefresh === true) });
  headers.set("Location", redirectTo);
  return toApp(headers);
});
