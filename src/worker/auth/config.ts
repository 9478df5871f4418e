// Sign-in configuration from env, validated once: which upstream identity provider, the public origin,
// access rules. Anything missing for a deployment fails closed: no upstream, no tokens.
import * as z from "zod";
import type { Env } from "../env.js";
import { isLoopbackHost } from "../../core/loopback.js";
import type { Result } from "../../core/result.js";
import type { Props } from "./identity.js";

const list = z
  .string()
  .optional()
  .transform((v) => (v ?? "").split(",").map((s) => s.trim().toLowerCase()).filter(Boolean));

const EnvSchema = z.object({
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional().or(z.literal("").transform(() => undefined)),
  AUTH_UPSTREAM: z.enum(["oidc", "github", "local", ""]).optional(),
  OIDC_ISSUER: z.url().optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  GITHUB_CLIENT_ID: z.string().min(1).optional(),
  GITHUB_CLIENT_SECRET: z.string().min(1).optional(),
  GITHUB_URL: z.url().default("https://github.com"),
  GITHUB_API_URL: z.url().default("https://api.github.com"),
  ALLOWED_EMAILS: list,
  ALLOWED_EMAIL_DOMAINS: list,
  ALLOWED_GITHUB_ORG: z.string().trim().optional(),
  // Under KV's shortest expiry the provider throws on every request (review 95: each answered 500): refused here.
  ACCESS_TOKEN_TTL: z.coerce.number().int().min(60, { error: "must be at least 60 seconds (Workers KV's shortest expiry)" }).max(86_400).default(3600),
});

export interface AccessRules {
  emails: string[];
  domains: string[];
  githubOrg?: string;
}

export type Upstream =
  | { kind: "local" }
  | { kind: "oidc"; issuer: string; clientId: string; clientSecret: string }
  | { kind: "github"; clientId: string; clientSecret: string; web: string; api: string };

/** The server a sign-in's failure names: its host only, from this configuration, never from what it answered. */
export function upstreamName(up: Upstream): string {
  if (up.kind === "oidc") return `The identity provider at ${new URL(up.issuer).host}`;
  if (up.kind === "github") return `GitHub at ${new URL(up.web).host}`;
  return "The local sign-in";
}

export interface AuthConfig {
  upstream: Upstream;
  access: AccessRules;
  accessTokenTTL: number;
}

export type ConfigResult = Result<{ config: AuthConfig }>;

// env is fixed for an isolate's life: parse it once, not on every request.
const parsedEnvs = new WeakMap<Env, ReturnType<typeof EnvSchema.safeParse>>();

/** The auth configuration for a request reaching this Worker at `host`. */
export function authConfig(env: Env, host: string): ConfigResult {
  let parsed = parsedEnvs.get(env);
  if (!parsed) parsedEnvs.set(env, (parsed = EnvSchema.safeParse(env)));
  if (!parsed.success) return { ok: false, error: `Sign-in is misconfigured: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}.` };
  const e = parsed.data;
  const access: AccessRules = { emails: e.ALLOWED_EMAILS, domains: e.ALLOWED_EMAIL_DOMAINS, ...(e.ALLOWED_GITHUB_ORG ? { githubOrg: e.ALLOWED_GITHUB_ORG } : {}) };
  const base = { access, accessTokenTTL: e.ACCESS_TOKEN_TTL };
  const kind = e.AUTH_UPSTREAM || (isLoopbackHost(host) ? "local" : undefined);
  switch (kind) {
    case "local":
      // The local consent page signs in one fixed user: loopback only, whatever the configuration says.
      if (!isLoopbackHost(host)) return { ok: false, error: "The local sign-in page only serves loopback hosts (127.0.0.1, localhost)." };
      return { ok: true, config: { ...base, upstream: { kind: "local" } } };
    case "oidc":
      if (!e.OIDC_ISSUER || !e.OIDC_CLIENT_ID || !e.OIDC_CLIENT_SECRET) return { ok: false, error: "AUTH_UPSTREAM=oidc needs OIDC_ISSUER, OIDC_CLIENT_ID and the OIDC_CLIENT_SECRET secret." };
      return { ok: true, config: { ...base, upstream: { kind: "oidc", issuer: e.OIDC_ISSUER.replace(/\/$/, ""), clientId: e.OIDC_CLIENT_ID, clientSecret: e.OIDC_CLIENT_SECRET } } };
    case "github":
      if (!e.GITHUB_CLIENT_ID || !e.GITHUB_CLIENT_SECRET) return { ok: false, error: "AUTH_UPSTREAM=github needs GITHUB_CLIENT_ID and the GITHUB_CLIENT_SECRET secret." };
      // Any GitHub account could sign in otherwise: a rule is required.
      if (!access.githubOrg && !access.emails.length && !access.domains.length) return { ok: false, error: "AUTH_UPSTREAM=github needs an access rule: ALLOWED_GITHUB_ORG, ALLOWED_EMAILS or ALLOWED_EMAIL_DOMAINS." };
      return { ok: true, config: { ...base, upstream: { kind: "github", clientId: e.GITHUB_CLIENT_ID, clientSecret: e.GITHUB_CLIENT_SECRET, web: e.GITHUB_URL.replace(/\/$/, ""), api: e.GITHUB_API_URL.replace(/\/$/, "") } } };
    default:
      return { ok: false, error: "No identity provider is configured: set AUTH_UPSTREAM to oidc or github (see docs/deploy.md)." };
  }
}

/** Allowed when no rule is set (the upstream itself is the boundary), or when any rule matches. Email rules
 * match verified emails only: an identity whose emailVerified is not true never matches one. The org rule matches
 * the org GitHub said, at sign-in, this person was an active member of (`memberOf`). */
export function isAllowed(access: AccessRules, who: { email?: string; emailVerified?: boolean; memberOf?: string }): boolean {
  const rules = access.emails.length + access.domains.length + (access.githubOrg ? 1 : 0);
  if (!rules) return true;
  if (access.githubOrg && who.memberOf?.toLowerCase() === access.githubOrg.toLowerCase()) return true;
  const email = who.emailVerified === true ? who.email?.toLowerCase() : undefined;
  if (!email) return false;
  return access.emails.includes(email) || access.domains.includes(email.slice(email.lastIndexOf("@") + 1));
}

/** Whether the owner of a project no longer passes these rules, judged on what the project recorded of them: their user
 *  id, which begins with the upstream they signed in through (`oidc/…`, `github/…`), and their label, their verified
 *  email where sign-in vouched for one, else their `github:` login or their id (workspaceCaller). False wherever that
 *  record cannot tell: under the local sign-in (it admits anyone), for an owner of another upstream (notAdmitted's
 *  own case), and for a GitHub owner under ALLOWED_GITHUB_ORG (membership is recorded in a sign-in, not a project). */
export function ownerNoLongerAllowed(config: AuthConfig, owner: { id: string; label: string }): boolean {
  const upstream = config.upstream.kind;
  if (upstream === "local" || !owner.id.startsWith(`${upstream}/`)) return false;
  if (upstream === "github" && config.access.githubOrg) return false;
  const email = owner.label !== owner.id && !owner.label.startsWith("github:") ? owner.label : undefined;
  return !isAllowed(config.access, { email, emailVerified: email !== undefined });
}

/** Why this configuration no longer admits a sign-in, judged on what its grant recorded then (Props), or undefined.
 *  Checked on every /mcp request and every token issued, so that changed rules cut a member off at their next request.
 *  The local sign-in, loopback only, admits any local user, as its consent page does. */
export function notAdmitted(config: AuthConfig, who: Props): string | undefined {
  if (who.upstream !== config.upstream.kind) return `This sign-in was made through ${who.upstream}, and this server now signs in through ${config.upstream.kind}: sign in again.`;
  if (who.upstream === "local" || isAllowed(config.access, who)) return undefined;
  return `${who.email ?? who.login ?? who.userId} is no longer allowed on this server: its access rules changed since this sign-in. Ask its administrator to add you.`;
}
