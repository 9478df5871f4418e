// Who signed in, as the upstream says; `subject` becomes the owner of sessions and project state.
import type { OAuthResourceContext } from "@cloudflare/workers-oauth-provider";
import * as z from "zod";

export interface Identity {
  subject: string;
  /** The GitHub login, from GitHub sign-in only. */
  login?: string;
  email?: string;
  emailVerified?: boolean;
  name?: string;
  /** The ALLOWED_GITHUB_ORG GitHub said this person is an active member of, from GitHub sign-in only. */
  memberOf?: string;
}

/** What a token carries to the MCP handler (ctx.props), parsed before use. */
export const PropsSchema = z.object({
  userId: z.string().min(1).max(300),
  upstream: z.enum(["local", "oidc", "github"]),
  /** GitHub sign-in's login (as GitHub spells it): workspace shares to `github:<login>` apply to it. */
  login: z.string().max(100).optional(),
  email: z.string().max(320).optional(),
  /** As the upstream said; workspace shares by email apply only to emails it vouched for. */
  emailVerified: z.boolean().optional(),
  name: z.string().max(300).optional(),
  /** GitHub sign-in's org membership, as GitHub said at sign-in: the access rules are checked on it on every request. */
  memberOf: z.string().max(100).optional(),
  /** The person unticked offline_access on the consent page: the sign-in gets no refresh token (review 55). */
  noRefresh: z.literal(true).optional(),
});
export type Props = z.infer<typeof PropsSchema>;

/** An upstream's JSON answer in `schema`'s shape, or undefined: what it sent is never shown (review 210). */
export async function upstreamJson<T>(res: Response, schema: z.ZodType<T>): Promise<T | undefined> {
  const parsed = schema.safeParse(await res.json().catch(() => undefined));
  return parsed.success ? parsed.data : undefined;
}

export const SCOPES = { read: "bmad:read", write: "bmad:write" } as const;
export const SCOPES_SUPPORTED = [SCOPES.read, SCOPES.write, "offline_access"];

/** Whether `id` is a user id some upstream here makes: `local`, `local/<email>`, `github/<numeric id>` or
 *  `oidc/<encoded sub>` (the provider forbids ":" in them). */
export const isUserId = (id: string) => /^(?:local|local\/[^:/]+|github\/\d{1,20}|oidc\/[^:]+)$/.test(id);

export const LOCAL_IDENTITY: Identity = { subject: "local", name: "Local user" };

/** On the local (loopback-only) consent page, a developer may sign in as another local user by email, e.g. to
 *  try sharing: `local/<email>`. Nothing given: the one local user. Undefined: not an email address. */
export function localIdentity(user: unknown): Identity | undefined {
  if (user === null || user === undefined || user === "") return LOCAL_IDENTITY;
  const email = typeof user === "string" ? user.trim().toLowerCase() : "";
  // No control or format character either (review 72: `a@b\u0000` signed in as a user of that name).
  if (!/^[^\s@/:\p{Cc}\p{Cf}]{1,64}@[^\s@/:\p{Cc}\p{Cf}]{1,190}$/u.test(email)) return undefined;
  return { subject: `local/${email}`, email, emailVerified: true, name: email };
}

export async function s256(verifier: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function randomToken(): string {
  return [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether the OAuth provider put what it validated on `ctx` (it does before calling the /mcp handler). */
export function hasAuth(ctx: ExecutionContext): ctx is OAuthResourceContext<unknown> {
  return "auth" in ctx && ctx.auth !== undefined;
}
