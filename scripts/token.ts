// npm run token [-- --port N | URL]: signs in to a local server (loopback, local consent page) the way an MCP
// client would, and prints an access token, e.g. for `npm run inspector -- --cli ... --header`.
import { resolve } from "node:path";
import { isLoopbackHost } from "../src/core/loopback.js";
import { signIn } from "./oauth-client.js";

const USAGE = `usage: npm run token [-- --port N | URL]
  Signs in to the server npm run dev serves (the local consent page) and prints an access token.
  --port N  the port npm run dev serves on (default: BMAD_DEV_PORT, else 8787)
  URL       a loopback server, e.g. http://127.0.0.1:8788 or http://127.0.0.1:8788/mcp
Use it as a bearer token: npm run -s inspector -- --cli http://127.0.0.1:8787/mcp --transport http --method tools/list --header "Authorization: Bearer $(npm run -s token)"`;

/** The server's origin, from the arguments; "help" for --help. */
export function parseTokenArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): string | "help" {
  let port = env.BMAD_DEV_PORT || "8787";
  let url: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h") return "help";
    if (arg === "--port" || arg.startsWith("--port=")) {
      const value = arg === "--port" ? argv[++i] : arg.slice("--port=".length);
      if (!value || !/^\d{1,5}$/.test(value) || Number(value) < 1 || Number(value) > 65535) throw new Error(`--port must be a number from 1 to 65535 (got "${value ?? ""}")`);
      port = value;
    } else if (arg.startsWith("-")) throw new Error(`Unknown option "${arg}"`);
    else if (url) throw new Error(`One URL only (got "${url}" and "${arg}")`);
    else url = arg;
  }
  const base = (url ?? `http://127.0.0.1:${port}`).replace(/\/mcp\/?$/, "").replace(/\/$/, "");
  if (!URL.canParse(base) || !base.startsWith("http://") || !isLoopbackHost(new URL(base).hostname)) {
    throw new Error(`npm run token only signs in to loopback servers (got ${base}); for a deployed server, let your MCP client sign in in the browser.`);
  }
  return base;
}

async function main(): Promise<number> {
  let base: string;
  try {
    const parsed = parseTokenArgs(process.argv.slice(2));
    if (parsed === "help") {
      console.log(USAGE);
      return 0;
    }
    base = parsed;
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  try {
    const { access_token } = await signIn(fetch, base);
    console.log(access_token);
    return 0;
  } catch (error) {
    console.error(`Could not sign in at ${base}: ${error instanceof Error ? error.message : String(error)}. Is npm run dev running?`);
    return 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) process.exitCode = await main();
