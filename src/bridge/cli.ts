#!/usr/bin/env node
// bmad-mcp: the BMAD MCP surface over stdio for Claude Desktop, Cursor and Claude Code, from the embedded
// bundle with the project's own BMAD files winning, plus tools that need the project's files.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { SERVER_INFO } from "../core/surface/server-info.js";
import { parseToolsets, TOOLSET_NAMES } from "../core/surface/toolsets.js";
import { writeErr, writeOut } from "./terminal.js";
import { optionRefusal } from "./cli-options.js";

const USAGE = `Usage: bmad-mcp [options]
       bmad-mcp pull|push --remote URL --project NAME [--dir DIR] [--force]   (bmad-mcp pull --help)
       bmad-mcp logout --remote URL   revoke and delete the saved sign-in to a server (bmad-mcp logout --help)
       bmad-mcp cache list|clear   the git sources fetched for --path git+URL

Serves the BMAD Method over MCP on stdio. Your project's BMAD files win over the embedded bundle:
project (./_bmad, ./bmad, ./.bmad-core) > --path > BMAD_ROOT > ~/.bmad > embedded bmad-method.

Options:
  --path DIR|URL     another BMAD tree (priority 2); repeat it for several, ranked in the order given. A git
                     URL (git+https://host/repo.git#ref:/subdir) is fetched into the cache once per start
  --git-timeout S    seconds a git fetch may take before it is killed (default 120; 1 to 2147483)
  --project DIR      the project folder (default: the current directory)
  --toolsets LIST    comma separated: ${TOOLSET_NAMES.join(",")}, all, default
  --remote URL       use a bmad-mcp server (https://host/mcp): sign in through the browser, proxy its
                     content and sessions; file-system tools stay local; content falls back to the
                     local bundle when the remote cannot be reached
  --allow-project-scripts
                     also run skill scripts BMAD did not install in the project (yours: their bytes match
                     neither this bridge's BMAD nor a trusted _bmad/_config/files-manifest.csv; a --path
                     tree's or git source's never run this way), and the completion contract
                     (_bmad/_config/custom/cc-verify.sh). Never needed for BMAD's own
  --trust-install-record
                     also run scripts the project's _bmad/_config/files-manifest.csv lists (a custom
                     module's, another BMAD version's): its installer's word. Without it only the bytes of
                     this bridge's BMAD run, since a cloned repository may have committed a record
  --http             serve over Streamable HTTP on 127.0.0.1 and [::1] (loopback only) rather than stdio, for
                     several local clients at once; the endpoint is http://localhost:PORT/mcp
  --port N           the --http port (default 8765; 0 picks a free one, printed on stderr)
  --test             check the project: roots found, bundle built, overrides, scripts BMAD vouches for, one
                     call into each toolset; prints a report, exits 1 naming what is wrong
  --list             print what is served and from which origin, then exit
  --version          print the version
  --help             this text
Environment: BMAD_PROJECT_ROOT (the project folder, as --project), BMAD_ROOT (a BMAD tree, priority 3),
BMAD_TOOLSETS (default toolsets), BMAD_GIT_TIMEOUT_MS (as --git-timeout, in ms), BMAD_MCP_TOKEN (--remote, pull and push: an access token instead of the browser),
BMAD_MCP_BROWSER (the command that opens the sign-in page; "none" prints its link only), BMAD_MCP_SIGN_IN_SECONDS (how long a sign-in is waited for),
BMAD_CONTRACT_TIMEOUT_MS (the completion contract's time limit, default 120000), BMAD_RUN_TIMEOUT_MS (a skill script's, default 120000).
Exit status 70, from any command: an unexpected failure, said in one line on stderr.`;

/** The embedded bundle: beside the built CLI (dist/bundle), or the repository's bmad-bundle/. Found here, in the entry
 *  file: serve.ts is built into dist/chunks/, one folder further down. */
function embeddedBundle(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  return [join(here, "bundle"), resolve(here, "../../bmad-bundle")].find((d) => existsSync(join(d, "manifest.json")));
}

const DEFAULT_HTTP_PORT = 8765;

/** The status of a failure no command expected (sysexits' EX_SOFTWARE), told apart from every command's own. */
const UNEXPECTED = 70;

const SUBCOMMANDS = new Set(["pull", "push", "logout", "cache"]);

/** Ends the process with `code` once what it printed is out: a request the remote never answered (its sign-in
 *  metadata, past the client's own timeout) would otherwise hold it open for minutes. */
function exitOnceWritten(code: number): void {
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
}

function fail(message: string): never {
  writeErr(`bmad-mcp: ${message}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  const command = process.argv[2];
  if (command === "pull" || command === "push" || command === "logout") {
    // Loaded on demand, as serving is: pull, push, logout, --help and --version start without the MCP server.
    const code = command === "logout" ? await (await import("./logout.js")).runLogout(process.argv.slice(3)) : await (await import("./sync-command.js")).runSyncCommand(command, process.argv.slice(3), embeddedBundle());
    return exitOnceWritten(code);
  }
  if (command === "cache") {
    const { runCacheCommand } = await import("./git-sources.js");
    process.exitCode = runCacheCommand(process.argv.slice(3), process.env, (t) => writeOut(`${t}\n`), (t) => writeErr(`${t}\n`));
    return;
  }
  let args;
  const options = { path: { type: "string", multiple: true }, project: { type: "string" }, toolsets: { type: "string" }, remote: { type: "string" }, "git-timeout": { type: "string" }, http: { type: "boolean" }, port: { type: "string" }, "allow-project-scripts": { type: "boolean" }, "trust-install-record": { type: "boolean" }, "ignore-install-record": { type: "boolean" }, list: { type: "boolean" }, test: { type: "boolean" }, version: { type: "boolean" }, help: { type: "boolean", short: "h" } } as const;
  try {
    args = parseArgs({ options, strict: true }).values;
  } catch (error) {
    fail(optionRefusal(error, options, "bmad-mcp --help"));
  }
  if (args.help) return void writeOut(`${USAGE}\n`);
  if (args.version) return void writeOut(`${SERVER_INFO.version}\n`);

  const toolsets = parseToolsets(args.toolsets ?? process.env.BMAD_TOOLSETS);
  if (!toolsets.ok) fail(toolsets.error);
  // Digits only: Number() took "", "0x1F90" and "1e3" (review 121).
  const port = args.port === undefined ? undefined : /^[0-9]{1,5}$/.test(String(args.port)) ? Number(args.port) : NaN;
  // --test checks and exits with what it found: beside --list (which exits 0 having checked nothing) or --http it was
  // quietly not run, or not served, and a CI step written so always passed.
  if (args.test && (args.list || args.http)) fail(`--test with --${args.list ? "list" : "http"}: --test checks the project and exits 1 on a problem, it neither lists nor serves; run \`bmad-mcp --test\` and \`bmad-mcp --${args.list ? "list" : "http"}\` separately.`);
  if (port !== undefined && (!args.http || !Number.isInteger(port) || port < 0 || port > 65535)) fail(args.http ? `--port ${args.port}: give a port number from 0 to 65535 (0 picks a free one).` : "--port goes with --http (serve over HTTP on 127.0.0.1).");
  const { gitTimeoutMs } = await import("./git-sources.js");
  const gitTimeout = gitTimeoutMs(args["git-timeout"], process.env);
  if (!gitTimeout.ok) fail(gitTimeout.error);
  const { serve } = await import("./serve.js");
  await serve({ project: args.project, path: args.path ?? [], gitTimeoutMs: gitTimeout.ms, remote: args.remote, ...(args.http ? { http: { port: port ?? DEFAULT_HTTP_PORT } } : {}), allowProjectScripts: args["allow-project-scripts"] === true, trustInstallRecord: args["trust-install-record"] === true && args["ignore-install-record"] !== true, list: args.list === true, test: args.test === true, embedded: embeddedBundle() }, toolsets.toolsets, fail);
}

// The last resort: a failure no command expected is said in one line, not as Node's stack under a line of the built
// bundle, with a status no command gives (review 257: a logout died so, with the status of "deleted here").
await main().catch((error: unknown) => {
  const command = process.argv[2] ?? "";
  writeErr(`bmad-mcp${SUBCOMMANDS.has(command) ? ` ${command}` : ""}: ${error instanceof Error ? error.message : String(error)}\n`);
  exitOnceWritten(UNEXPECTED);
});
