// Who signed in, as the upstream says; `subject` becomes the owner of sessions and project state.
import { z } from "zod";

export interface Identity {
  subject: string;
  email?: string;
  emailVerified?: boolean;
  name?: string;
  orgMember?: boolean;
}

/** What a token carries to the MCP handler (ctx.props), parsed before use. */
export const PropsSchema = z.object({
  userId: z.string().min(1).max(300),
  upstream: z.enum(["local", "oidc", "github"]),
  email: z.string().max(320).optional(),
  name: z.string().max(300).optional(),
});
export type Props = z.infer<typeof PropsSchema>;

export const SCOPES = { read: "bmad:read", write: "bmad:write" } as const;
export const SCOPES_SUPPORTED = [SCOPES.read, SCOPES.write, "offline_access"];

export const LOCAL_IDENTITY: Identity = { subject: "local", name: "Local user" };

export async function s256(verifier: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function randomToken(): string {
  return [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("");
}
