// Generic OpenID Connect upstream: discovery, code flow with PKCE, ID token checked against the issuer's keys (jose).
import { keptWhenMade } from "../../core/kept.js";
import { createRemoteJWKSet, jwtVerify } from "jose";
import * as z from "zod";
import type { Upstream } from "./config.js";
import type { Identity } from "./identity.js";

type Oidc = Extract<Upstream, { kind: "oidc" }>;

const Discovery = z.object({ issuer: z.string(), authorization_endpoint: z.url(), token_endpoint: z.url(), jwks_uri: z.url() });
type Discovery = z.infer<typeof Discovery>;

/** Kept once read, never while being read (core/kept.ts). */
const discoveries = new Map<string, Discovery>();
const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

function discover(issuer: string): Promise<Discovery> {
  return keptWhenMade(discoveries, issuer, async () => {
    const res = await fetch(`${issuer}/.well-known/openid-configuration`);
    if (!res.ok) throw new Error(`OpenID discovery at ${issuer} answered ${res.status}`);
    const doc = Discovery.parse(await res.json());
    if (doc.issuer.replace(/\/$/, "") !== issuer) throw new Error(`OpenID discovery names issuer ${doc.issuer}, expected ${issuer}`);
    return doc;
  });
}

export async function oidcAuthorizeUrl(up: Oidc, p: { redirectUri: string; state: string; challenge: string; nonce: string }): Promise<string> {
  const doc = await discover(up.issuer);
  const url = new URL(doc.authorization_endpoint);
  const params = { response_type: "code", client_id: up.clientId, redirect_uri: p.redirectUri, scope: "openid email profile", state: p.state, nonce: p.nonce, code_challenge: p.challenge, code_challenge_method: "S256" };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.href;
}

const TokenResponse = z.object({ id_token: z.string().min(1) });

export async function oidcIdentity(up: Oidc, p: { code: string; verifier: string; nonce: string; redirectUri: string }): Promise<Identity> {
  const doc = await discover(up.issuer);
  const res = await fetch(doc.token_endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", authorization: `Basic ${btoa(`${encodeURIComponent(up.clientId)}:${encodeURIComponent(up.clientSecret)}`)}` },
    body: new URLSearchParams({ grant_type: "authorization_code", code: p.code, redirect_uri: p.redirectUri, code_verifier: p.verifier }),
  });
  if (!res.ok) throw new Error(`The identity provider refused the code (${res.status}).`);
  const { id_token } = TokenResponse.parse(await res.json());
  let keys = keySets.get(doc.jwks_uri);
  if (!keys) keySets.set(doc.jwks_uri, (keys = createRemoteJWKSet(new URL(doc.jwks_uri))));
  const { payload } = await jwtVerify(id_token, keys, { issuer: doc.issuer, audience: up.clientId });
  if (payload.nonce !== p.nonce) throw new Error("The ID token's nonce does not match this sign-in.");
  if (!payload.sub) throw new Error("The ID token has no subject.");
  return {
    subject: `oidc/${encodeURIComponent(payload.sub)}`, // the provider forbids ":" in user ids
    ...(typeof payload.email === "string" ? { email: payload.email } : {}),
    // Only an explicit true verifies the email: a missing or other claim counts as unverified.
    emailVerified: payload.email_verified === true,
    ...(typeof payload.name === "string" ? { name: payload.name } : {}),
  };
}
