// GitHub upstream: OAuth app code flow with PKCE, the user, their verified email, and org membership.
import * as z from "zod";
import type { Result } from "../../core/result.js";
import { upstreamName, type Upstream } from "./config.js";
import { upstreamJson, type Identity } from "./identity.js";

type GitHub = Extract<Upstream, { kind: "github" }>;

export function githubAuthorizeUrl(up: GitHub, p: { redirectUri: string; state: string; challenge: string }): string {
  const url = new URL(`${up.web}/login/oauth/authorize`);
  const params = { client_id: up.clientId, redirect_uri: p.redirectUri, scope: "read:user user:email read:org", state: p.state, code_challenge: p.challenge, code_challenge_method: "S256" };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.href;
}

const Token = z.object({ access_token: z.string().min(1) });
const User = z.object({ id: z.number(), login: z.string(), name: z.string().nullish() });
const Emails = z.array(z.object({ email: z.string(), primary: z.boolean(), verified: z.boolean() }));
const Membership = z.object({ state: z.string() });

export async function githubIdentity(up: GitHub, org: string | undefined, p: { code: string; verifier: string; redirectUri: string }): Promise<Result<{ identity: Identity }>> {
  const at = upstreamName(up);
  const res = await fetch(`${up.web}/login/oauth/access_token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams({ client_id: up.clientId, client_secret: up.clientSecret, code: p.code, redirect_uri: p.redirectUri, code_verifier: p.verifier }),
  });
  const token = await upstreamJson(res, Token);
  if (!res.ok || !token) return { ok: false, error: `${at} refused the sign-in code.` };
  const api = (path: string) =>
    fetch(`${up.api}${path}`, { headers: { authorization: `Bearer ${token.access_token}`, accept: "application/vnd.github+json", "user-agent": "bmad-mcp" } });
  const user = await upstreamJson(await api("/user"), User);
  if (!user) return { ok: false, error: `${at} answered with something that is not a user (${up.api}/user).` };
  const emails = await upstreamJson(await api("/user/emails"), Emails);
  const primary = emails?.find((e) => e.primary && e.verified);
  // Asked here only: a grant records the answer, and later requests are judged on it (docs/deploy.md).
  let memberOf: string | undefined;
  if (org) {
    const membership = await api(`/user/memberships/orgs/${encodeURIComponent(org)}`);
    if (membership.ok && (await upstreamJson(membership, Membership))?.state === "active") memberOf = org;
  }
  return { ok: true, identity: { subject: `github/${user.id}`, login: user.login, name: user.name ?? user.login, ...(primary ? { email: primary.email, emailVerified: true } : {}), ...(memberOf ? { memberOf } : {}) } };
}
