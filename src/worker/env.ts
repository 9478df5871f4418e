export interface Env {
  BUNDLE_KV: KVNamespace;
  BUNDLE_R2: R2Bucket;
  /** Default toolsets for /mcp without ?toolsets=. */
  BMAD_TOOLSETS?: string;
}
