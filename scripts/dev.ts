// npm run dev [-- wrangler dev flags]: builds the bundle, puts what the local store lacks into it, and runs
// `wrangler dev` on the project's Node 22 with the flags given. --port (default BMAD_DEV_PORT, else 8787),
// --ip (127.0.0.1) and --persist-to (.wrangler/state) are read here too. Once /healthz answers, it prints the
// MCP URL, the token command and the client lines (Claude Code, Inspector CLI) for the port it serves. However
// it ends, wrangler and everything wrangler started are stopped.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import module from "node:module";
import { resolve } from "node:path";
import { wranglerCommand } from "./wrangler";
import { isLoopbackHost } from "../src/core/loopback.js";

const ROOT = resolve(import.meta.dirname, "..");
const USAGE = `usage: npm run dev -- [--port N] [--ip ADDR] [--persist-to DIR] [--keep-bundle] [other wrangler dev flags]
  --port        where to serve (default: BMAD_DEV_PORT, else 8787)
  --ip          address to listen on (default 127.0.0.1; another needs AUTH_UPSTREAM=oidc or github in .dev.vars,
                since the local sign-in would let anyone who reaches it sign in)
  --persist-to  local KV, R2 and Durable Object state (default .wrangler/state)
  --keep-bundle serve bmad-bundle/ as it is (one you built with npm run bundle -- --source ...)
Every other flag goes to wrangler dev as given.`;

export interface DevArgs {
  port: number;
  ip: string;
  persistTo: string;
  keepBundle: boolean;
  /** For wrangler dev, with --port, --ip and --persist-to set. */
  wrangler: string[];
}

export function parseDevArgs(argv: string[], env: NodeJS.ProcessEnv = process.env, devVars = readDevVars()): DevArgs | "help" {
  const own = new Map<string, string>([["--port", env.BMAD_DEV_PORT || "8787"], ["--ip", "127.0.0.1"], ["--persist-to", ".wrangler/state"]]);
  const rest: string[] = [];
  let keepBundle = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (flag === "--help" || flag === "-h") return "help";
    if (flag === "--keep-bundle") keepBundle = true;
    else if (own.has(flag)) {
      const value = inline ?? argv[++i];
      if (!value || value.startsWith("--")) throw new Error(`${flag} needs a value`);
      own.set(flag, value);
    } else rest.push(arg);
  }
  const port = Number(own.get("--port"));
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`--port must be a number from 1 to 65535 (got "${own.get("--port")}")`);
  const [ip, persistTo] = [own.get("--ip")!, own.get("--persist-to")!];
  // The local sign-in is chosen by a loopback Host header, which anyone who reaches the address can send (review 95:
  // on 0.0.0.0, a read and write token for any local user): past loopback, only with a real identity provider.
  if (!isLoopbackHost(ip.replace(/^\[|\]$/g, "")) && !upstreamConfigured(rest, devVars)) {
    throw new Error(`--ip ${ip} would let anyone who reaches it sign in as any local user (the local sign-in trusts the Host header). Serve on 127.0.0.1, or set AUTH_UPSTREAM to oidc or github in .dev.vars (docs/deploy.md).`);
  }
  return { port, ip, persistTo, keepBundle, wrangler: ["dev", "--ip", ip, "--port", String(port), "--persist-to", persistTo, ...rest] };
}

/** Whether a real identity provider signs users in: AUTH_UPSTREAM in .dev.vars or a wrangler --var. */
function upstreamConfigured(wranglerFlags: string[], devVars: string): boolean {
  const real = /^\s*AUTH_UPSTREAM\s*[=:]\s*["']?(oidc|github)["']?\s*$/m;
  return real.test(devVars) || wranglerFlags.some((flag, i) => (flag === "--var" ? real.test(wranglerFlags[i + 1] ?? "") : flag.startsWith("--var=") && real.test(flag.slice(6))));
}

const readDevVars = () => (existsSync(resolve(ROOT, ".dev.vars")) ? readFileSync(resolve(ROOT, ".dev.vars"), "utf8") : "");

/** The URL a client on this machine uses for `ip`. */
export function localOrigin(ip: string, port: number): string {
  const host = ip === "0.0.0.0" || ip === "*" ? "127.0.0.1" : ip === "::" ? "[::1]" : ip.includes(":") ? `[${ip}]` : ip;
  return `http://${host}:${port}`;
}

/** What to run against the server at `origin`: the token command and the README's client lines, for this port. */
export function clientLines(origin: string, port: number): string[] {
  const tokenArgs = !origin.startsWith("http://127.0.0.1:") ? ` -- ${origin}` : port === 8787 ? "" : ` -- --port ${port}`;
  return [
    `  Add that URL to your MCP client and sign in on the local consent page, or get a token: npm run token${tokenArgs}`,
    `  Claude Code:    claude mcp add --transport http bmad ${origin}/mcp`,
    `  Inspector CLI:  npm run -s inspector -- --cli ${origin}/mcp --transport http --method tools/list --header "Authorization: Bearer $(npm run -s token${tokenArgs})"`,
  ];
}

const answers = (url: string, ms: number) => fetch(url, { signal: AbortSignal.timeout(ms) }).then((r) => r.ok, () => false);

async function main(): Promise<number> {
  let args: DevArgs | "help";
  try {
    args = parseDevArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (args === "help") {
    console.log(USAGE);
    return 0;
  }
  const started = performance.now();
  const origin = localOrigin(args.ip, args.port);
  if (await answers(`${origin}/healthz`, 1000)) {
    console.error(`Something already answers on ${origin}: stop it, or pick another port (npm run dev -- --port 8788).`);
    return 1;
  }
  // Loaded here, not at the top: --help and the argument parsing stay light. Miniflare is 14 MB of JavaScript:
  // Node's compile cache makes loading it on the next start about twice as fast.
  if ("enableCompileCache" in module && typeof module.enableCompileCache === "function") module.enableCompileCache();
  const [{ buildBundle }, { uploadBundle }, { buildViews }] = await Promise.all([import("../src/compiler/build"), import("./upload-bundle"), import("./build-views")]);
  if (!args.keepBundle) {
    const built = await buildBundle({ sources: [], outDir: resolve(ROOT, "bmad-bundle"), views: await buildViews() });
    console.log(`bundle ${built.manifest.id.slice(0, 12)}: ${built.manifest.files.length} files (${built.ms} ms)`);
  }
  await uploadBundle({ target: "local", dir: resolve(ROOT, "bmad-bundle"), persistTo: args.persistTo });
  const prepared = performance.now();

  const { node, entry, env } = wranglerCommand();
  // Its own process group, so that stopping it reaches workerd too; no stdin, so it never waits on the terminal.
  const wrangler = spawn(node, [entry, ...args.wrangler], { cwd: ROOT, env, detached: true, stdio: ["ignore", "inherit", "inherit"] });
  let exited: number | undefined;
  const gone = new Promise<number>((done) => wrangler.once("exit", (code, signal) => done((exited = code ?? (signal ? 1 : 0)))));
  const stopAll = (signal: NodeJS.Signals) => {
    try {
      process.kill(-wrangler.pid!, signal);
    } catch {
      // already gone
    }
  };
  process.once("exit", () => stopAll("SIGKILL"));
  for (const name of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(name, () => {
      stopAll("SIGTERM");
      const force = setTimeout(() => stopAll("SIGKILL"), 5000);
      void gone.then(() => (clearTimeout(force), stopAll("SIGKILL"), process.exit(128 + (name === "SIGINT" ? 2 : name === "SIGTERM" ? 15 : 1))));
    });
  }

  // The first answer takes the Worker's cold start: wait for it rather than ask again.
  while (exited === undefined && !(await answers(`${origin}/healthz`, 30_000))) await new Promise((r) => setTimeout(r, 200));
  if (exited === undefined) {
    const s = (from: number, to: number) => `${((to - from) / 1000).toFixed(1)} s`;
    const now = performance.now();
    // One write: whoever reads the URL line reads the sign-in and client lines with it.
    console.log(`\nbmad-mcp is ready in ${s(started, now)} (bundle and upload ${s(started, prepared)}, wrangler dev ${s(prepared, now)}): ${origin}/mcp\n${clientLines(origin, args.port).join("\n")}\n`);
  }
  return gone;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) process.exitCode = await main();
