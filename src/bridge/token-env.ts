// The bridge's own credentials in its environment, named once: read by the remote's clients, and kept from every
// process the bridge starts (run-bounded.ts), none of which signs in as the bridge.

/** The environment variable headless use takes its access token from (an argument would show in `ps`). */
export const TOKEN_ENV = "BMAD_MCP_TOKEN";

/** Every variable that holds a credential of the bridge's. */
export const BRIDGE_CREDENTIAL_ENV = [TOKEN_ENV] as const;
