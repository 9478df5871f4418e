// npm run token [-- URL]: signs in to a local server (loopback, local consent page) the way an MCP client
// would, and prints an access token, e.g. for `npx @modelcontextprotocol/inspector --cli ... --header`.
import { isLoopbackHost } from "../src/core/loopback.js";
import { signIn } from "./oauth-client.js";

const base = (process.argv[2] ?? `http://127.0.0.1:${process.env.BMAD_DEV_PORT ?? 8787}`).replace(/\/mcp\/?$/, "").replace(/\/$/, "");
if (!URL.canParse(base) || !base.startsWith("http://") || !isLoopbackHost(new URL(base).hostname)) {
  console.error(`npm run token only signs in to loopback servers (got ${base}); for a deployed server, let your MCP client sign in in the browser.`);
  process.exit(2);
}
try {
  const { access_token } = await signIn(fetch, base);
  console.log(access_token);
} catch (error) {
  console.error(`Could not sign in at ${base}: ${error instanceof Error ? error.message : String(error)}. Is npm run dev running?`);
  process.exit(1);
}
