// Generic OpenID Connect upstream: discovery, code flow with PKCE, ID token checked against the issuer's keys (jose).
// Failures are fixed sentences naming the server at fault, never what it sent (review 210: an HTML answer's parser
// error, with its first bytes, reached the user's page).
import { keptWhenMade } from "../../core/kept.js";
import type { Result } from "../../core/result.js";
import { createRemoteJWKSet, jwtVerify } from "jose";
import * as z from "zod";
import { upstreamName, type Upstream } from "./config.js";
import { upstreamJson, type Identity } from "./identity.js";

type Oidc = Extract<Upstream, { kind: "oidc" }>;

const Discovery = z.object({ issuer: z.string(), authorization_endpoint: z.url(), token_endpoint: z.url(), jwks_uri: z.url() });
type Discovery = z.infer<typeof Discovery>;
type Discovered = Result<{ discovery: Discovery }>;

/** Kept once read, never while being read (core/kept.ts); a failure is asked again next time. */
const discoveries = new Map<string, Discovered>();
const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

/** The provider's metadata: looked up before a consent is used up, so that a provider out of reach leaves it for a retry. */
export function oidcDiscovery(up: Oidc): Promise<Discovered> {
  return keptWhenMade(discoveries, up.issuer, async (): Promise<Discovered> => {
    const at = upstreamName(up);
    const res = await fetch(`${up.issuer}/.well-known/openid-configuration`).catch(() => undefined);
    if (!res) return { ok: false, error: `${at} could not be reached.` };
    if (!res.ok) return { ok: false, error: `${at} answered ${res.status} for its OpenID metadata (/.well-known/openid-configuration).` };
    const doc = await upstreamJson(res, Discovery);
    if (!doc) return { ok: false, error: `${at} answered with something that is not its OpenID metadata JSON (/.well-known/openid-configuration).` };
    if (doc.issuer.replace(/\/$/, "") !== up.issuer) return { ok: false, error: `${at} names another issuer in its OpenID metadata than OIDC_ISSUER (${up.issuer}).` };
    return { ok: true, discovery: doc };
  }, (found) => found.ok);
}

export function oidcAuthorizeUrl(up: Oidc, doc: Discovery, p: { redirectUri: string; state: string; challenge: string; nonce: string }): string {
  const url = new URL(doc.authorization_endpoint);
  const params = { response_type: "code", client_id: up.clientId, redirect_uri: p.redirectUri, scope: "openid email profile", state: p.state, nonce: p.nonce, code_challenge: p.challenge, code_challenge_method: "S256" };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.href;
}

const TokenResponse = z.object({ id_token: z.string().min(1) });

export async function oidcIdentity(up: Oidc, p: { code: string; verifier: string; nonce: string; redirectUri: string }): Promise<Result<{ identity: Identity }>> {
  const found = await oidcDiscovery(up);
  if (!found.ok) return found;
  const doc = found.discovery;
  const at = upstreamName(up);
  const res = await fetch(doc.token_endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", authorization: `Basic ${btoa(`${encodeURIComponent(up.clientId)}:${encodeURIComponent(up.clientSecret)}`)}` },
    body: new URLSearchParams({ grant_type: "authorization_code", code: p.code, redirect_uri: p.redirectUri, code_verifier: p.verifier }),
  }).catch(() => undefined);
  if (!res) return { ok: false, error: `${at} could not be reached.` };
  if (!res.ok) return { ok: false, error: `${at} refused the sign-in code (${res.status}).` };
  const token = await upstreamJson(res, TokenResponse);
  if (!token) return { ok: false, error: `${at} answered with something that is not its token JSON (with an id_token).` };
  let keys = keySets.get(doc.jwks_uri);
  if (!keys) keySets.set(doc.jwks_uri, (keys = createRemoteJWKSet(new URL(doc.jwks_uri))));
  const verified = await jwtVerify(token.id_token, keys, { issuer: doc.issuer, audience: up.clientId }).catch(() => undefined);
  if (!verified) return { ok: false, error: `${at} sent an ID token that does not verify: its signature (jwks_uri), issuer, audience (OIDC_CLIENT_ID) or time.` };
  const { payload } = verified;
  if (payload.nonce !== p.nonce) return { ok: false, error: "The ID token's nonce does not match this sign-in." };
  if (!payload.sub) return { ok: false, error: "The ID token has no subject." };
  return {
    ok: true,
    identity: {
      subject: `oidc/${encodeURIComponent(payload.sub)}`, // the provider forbids ":" in user ids
      ...(typeof payload.email === "string" ? { email: payload.email } : {}),
      // Only an explicit true verifies the email: a missing or other claim counts as unverified.
      emailVerified: payload.email_verified === true,
      ...(typeof payload.name === "string" ? { name: payload.name } : {}),
    },
  };
}
