import type { OwnerSessions } from "./owner-do.js";
import type { WorkflowSession } from "./session-do.js";

export interface Env {
  BUNDLE_KV: KVNamespace;
  BUNDLE_R2: R2Bucket;
  WORKFLOW_SESSION: DurableObjectNamespace<WorkflowSession>;
  OWNER_SESSIONS: DurableObjectNamespace<OwnerSessions>;
  /** Default toolsets for /mcp without ?toolsets=. */
  BMAD_TOOLSETS?: string;
}
