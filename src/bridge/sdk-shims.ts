// The MCP SDK's environment shim (server and client), as the bridge's build resolves it (scripts/build-bridge.ts):
// Node's own process, for stdio, and the JSON Schema validator the Worker's build gets (@cfworker/json-schema).
// The SDK's Node shims would evaluate ajv at every start (about 19 ms of CPU, and 150 KB of the bundle), for
// checking elicitation answers and tool outputs against schemas, which the bridge's tools and servers do not use.
export { CfWorkerJsonSchemaValidator as DefaultJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
export { default as process } from "node:process";
/** In Node a failed fetch is never a CORS refusal. */
export const CORS_IS_POSSIBLE = false;
