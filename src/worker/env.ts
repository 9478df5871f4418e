import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { RegistrationLimit } from "./auth/registration-limit.js";
import type { OwnerSessions } from "./owner-do.js";
import type { WorkflowSession } from "./session-do.js";
import type { WorkspaceProject } from "./workspace-do.js";
import type { WorkspaceIndex } from "./workspace-index-do.js";

export interface Env {
  BUNDLE_KV: KVNamespace;
  BUNDLE_R2: R2Bucket;
  WORKFLOW_SESSION: DurableObjectNamespace<WorkflowSession>;
  OWNER_SESSIONS: DurableObjectNamespace<OwnerSessions>;
  WORKSPACE_PROJECT: DurableObjectNamespace<WorkspaceProject>;
  WORKSPACE_INDEX: DurableObjectNamespace<WorkspaceIndex>;
  /** Grants, tokens and consent state of the OAuth provider. */
  OAUTH_KV: KVNamespace;
  /** Counts dynamic client registrations per client address (auth/registration.ts). */
  REGISTRATION_LIMIT?: DurableObjectNamespace<RegistrationLimit>;
  /** Injected by the OAuth provider into the default handler. */
  OAUTH_PROVIDER?: OAuthHelpers;
  /** Optional, both or neither: recall fuses BM25 with vector similarity (memory-vectors.ts, docs/memory.md). */
  MEMORY_VECTORS?: Vectorize;
  AI?: Ai;
  /** Default toolsets for /mcp without ?toolsets=. */
  BMAD_TOOLSETS?: string;
  /** Sign-in settings: see auth/config.ts and docs/deploy.md. Secrets come from `wrangler secret put`. */
  PUBLIC_URL?: string;
  AUTH_UPSTREAM?: string;
  OIDC_ISSUER?: string;
  OIDC_CLIENT_ID?: string;
  OIDC_CLIENT_SECRET?: string;
  GITHUB_CLIENT_ID?: string;
  GITHUB_CLIENT_SECRET?: string;
  GITHUB_URL?: string;
  GITHUB_API_URL?: string;
  ALLOWED_EMAILS?: string;
  ALLOWED_EMAIL_DOMAINS?: string;
  ALLOWED_GITHUB_ORG?: string;
  ACCESS_TOKEN_TTL?: string;
}
