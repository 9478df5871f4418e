// Serving the BMAD surface over stdio (cli.ts parses the command line, then loads this): the bundle with the
// project's own BMAD files winning, the project's files, sessions and memory, and --remote's link.
import { basename, resolve } from "node:path";
import type { McpServerFactory } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { StdioTransport } from "./stdio-transport.js";
import { shortName } from "../core/catalog/names.js";
import type { SurfaceDeps } from "../core/surface/deps.js";
import { buildServer } from "../core/surface/server.js";
import { notThisProject } from "../core/surface/tools/workspace.tools.js";
import type { ToolsetName } from "../core/surface/toolsets.js";
import { FileMemory } from "./file-memory.js";
import { FileSessionStore } from "./file-session-store.js";
import { bridgeGitOptions } from "./git-sources.js";
import { LocalBundle } from "./local-bundle.js";
import { LocalProjectFiles } from "./project-files.js";
import { localProjectRuntime } from "./project-runtime.js";
import { LocalWorkspaceStore } from "./local-workspace.js";
import { NodeRuntimeFs } from "./runtime-fs.js";
import { parseRemoteUrl } from "./remote-url.js";
import { killAllRuns } from "./run-bounded.js";
import { tooBroadForProject } from "./project-root.js";
import { discoverSources } from "./sources.js";
import { writeErr, writeOut } from "./terminal.js";
import { tokenProblem } from "./token-env.js";
import { sessionOwner } from "./user-key.js";

export interface ServeOptions {
  project: string | undefined;
  path: string[];
  /** The time limit of each git run for a --path git URL. */
  gitTimeoutMs: number;
  remote: string | undefined;
  /** Run skill scripts BMAD did not install too (the user's own): the client config's choice, never a tool's. */
  allowProjectScripts?: boolean;
  /** The project's install record vouches for the scripts it lists (a cloned repository may have committed one). */
  trustInstallRecord?: boolean;
  list: boolean;
  /** Check the project (roots, bundle, overrides, scripts, each toolset), print a report and exit. */
  test?: boolean;
  /** Serve over Streamable HTTP on 127.0.0.1 at this port rather than stdio. */
  http?: { port: number };
  /** The embedded bundle's folder, if it is there. */
  embedded: string | undefined;
}

/** `fail`: prints the message and exits. */
export async function serve(args: ServeOptions, toolsets: ToolsetName[], fail: (message: string) => never): Promise<void> {
  // BMAD_PROJECT_ROOT: seed 001's Claude Desktop config names the project this way (--project wins).
  const fromEnv = args.project === undefined && process.env.BMAD_PROJECT_ROOT ? process.env.BMAD_PROJECT_ROOT : undefined;
  const project = resolve(args.project ?? fromEnv ?? process.cwd());
  if (fromEnv !== undefined) writeErr(`bmad-mcp: project root ${project} (from BMAD_PROJECT_ROOT)\n`);
  const named = args.project !== undefined || fromEnv !== undefined;
  const tooBroad = tooBroadForProject(project);
  if (tooBroad && !named) {
    fail(
      `not serving ${project}: it is ${tooBroad}, where the MCP client started bmad-mcp, and every file below it would be the model's to read. ` +
        `Name your project: add "--project", "/path/to/project" to bmad-mcp's args in the client's config (or set BMAD_PROJECT_ROOT), or start it in the project folder.`,
    );
  }
  const found = discoverSources({ project, projectNamed: named, ...(fromEnv !== undefined ? { projectFrom: "BMAD_PROJECT_ROOT" } : {}), paths: args.path, env: process.env });
  if (!found.ok) fail(found.error);
  const embedded = args.embedded;
  if (!embedded) fail("the embedded bundle is missing; build it with `npm run bundle` (or reinstall the package).");
  // --test reports every warning as a problem.
  const problems: string[] = [];
  const warn = (m: string) => (args.test ? problems.push(m) : writeErr(`bmad-mcp: warning: ${m}\n`));
  found.value.warnings.forEach(warn);
  if (tooBroad) warn(`the project is ${project}, ${tooBroad}: every file below it is the model's to read.`);

  // What the bundle warns of is in its manifest's warnings too, which --test reports: not twice.
  const bundle = new LocalBundle(found.value.sources, embedded, args.test ? () => {} : warn, bridgeGitOptions(process.env, args.gitTimeoutMs, project));
  // A root the user named must yield something: built now, so a mistake stops here rather than being served around.
  if (found.value.sources.some((s) => s.explicit)) {
    const failures = await bundle.explicitFailures();
    if (failures.length && !args.test) fail(failures.join("\nbmad-mcp: "));
    problems.push(...failures);
  } else if (found.value.sources.some((s) => !s.spec.startsWith("project="))) {
    // BMAD_ROOT and ~/.bmad are built before serving, so that one yielding nothing is in the server's instructions;
    // the project alone is built on the first call that needs it (a faster start).
    await bundle.ready();
  }
  if (args.list) return list(bundle);

  bundle.watch(found.value.watch);
  // One confined view of the project for BMAD's scripts and bmad-files alike.
  const projectFs = await NodeRuntimeFs.create([project]);
  const workspaces = new LocalWorkspaceStore(project, projectFs, { manyClients: args.http !== undefined });
  const memory = new FileMemory(project, projectFs);
  const vouching = { bmadScripts: () => bundle.embeddedScripts(), portedDigests: () => bundle.embeddedPortedDigests(), allowProjectScripts: args.allowProjectScripts === true, trustInstallRecord: args.trustInstallRecord === true };
  const onReload: SurfaceDeps["onReload"] = (listener) => bundle.onReload(listener);
  const deps: SurfaceDeps = {
    get reader() {
      return bundle.reader;
    },
    // This install's own: a session file it did not make is never the user's (user-key.ts sessionOwner). Read when a
    // session tool first asks, as the key is made on first need: a start reads no private file.
    get owner() {
      return sessionOwner();
    },
    sessions: new FileSessionStore(project, { warn }),
    project: new LocalProjectFiles(project, vouching.allowProjectScripts),
    // The project directory is {project-root} for every skill; another name is refused, not answered with this folder
    // under it (review 186: the map and bmad-run took any name). One per call: what a call read withheld is said in
    // that call's answer alone.
    runtime: async (name) => {
      const refused = notThisProject(workspaces, name, "bmad-mcp");
      return refused ? { ok: false, error: refused } : { ok: true, runtime: localProjectRuntime(project, () => bundle.reader, projectFs, vouching, workspaces.files()) };
    },
    workspaces,
    // The project folder's _bmad/_memory/, by its name or none.
    memory: async (name) => {
      const refused = notThisProject(workspaces, name, "bmad-mcp");
      return refused ? { ok: false, error: refused } : { ok: true, project: basename(project), memory, files: workspaces.files() };
    },
    ready: () => bundle.ready(),
    // Over HTTP each request has a server of its own, gone before a reload: nobody to tell, so lists are not "changing".
    ...(args.http === undefined ? { onReload } : {}),
  };
  if (args.test) {
    const { selfTest } = await import("./self-test.js");
    const report = await selfTest({ project, bundle, deps, projectFs, vouching, problems });
    writeOut(`${report.lines.join("\n")}\n`);
    bundle.close();
    killAllRuns();
    process.exitCode = report.ok ? 0 : 1;
    return;
  }
  let factory: McpServerFactory = () => buildServer(deps, toolsets);
  if (args.remote !== undefined) {
    const parsed = parseRemoteUrl(args.remote);
    if (!parsed.ok) fail(parsed.error);
    const remote = parsed.url;
    // Loaded only for --remote: the offline bridge starts without the HTTP client and OAuth code.
    const [{ FileOAuthProvider }, { LoopbackCallback }, { RemoteLink }, { buildProxyServer }, { TOKEN_ENV, TokenLink }] = await Promise.all([import("./credentials.js"), import("./loopback-callback.js"), import("./remote-link.js"), import("./remote.js"), import("./token-client.js")]);
    // With a token in the environment (headless use, CI): that token alone, no browser and nothing saved.
    const token = process.env[TOKEN_ENV];
    const problem = token === undefined ? undefined : tokenProblem(token);
    if (problem) fail(problem);
    let link: Pick<InstanceType<typeof RemoteLink>, "current" | "lost">;
    if (token !== undefined) {
      link = new TokenLink(remote, token.trim(), warn);
      void link.current(); // connect right away; the link says on stderr why it could not
    } else {
      const callback = new LoopbackCallback();
      await callback.start();
      link = new RemoteLink(remote, new FileOAuthProvider(remote.href, callback, warn, project), callback, warn);
      void link.current(); // connect (or sign in) right away; the link says on stderr why it could not
    }
    factory = () => buildProxyServer(link, deps, toolsets);
  }
  if (args.http !== undefined) {
    const [{ serveHttp }, { untoldUsersWarning }] = await Promise.all([import("./http.js"), import("./peer-user.js")]);
    const served = await serveHttp(factory, args.http.port);
    if (!served.ok) fail(served.error);
    const { listening } = served;
    const also = listening.ipv6Url
      ? ` and ${listening.ipv6Url} (loopback only)`
      : " (loopback only; this machine has no IPv6 loopback, so [::1] is not served: give clients 127.0.0.1, not localhost)";
    writeErr(`bmad-mcp: serving MCP over HTTP at ${listening.url}${also}\n`);
    const untold = untoldUsersWarning();
    if (untold) writeErr(untold);
    // Stopped by a signal: stop watching and kill what is still running, leaving nothing behind.
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.once(signal, () => {
        listening.close();
        bundle.close();
        killAllRuns();
        process.exit(0);
      });
    }
    return;
  }
  // A stdio server ends with its input: stop watching and kill what is still running (a contract, a
  // skill's script, with everything they started) so the process exits at once, leaving nothing behind.
  process.stdin.once("end", () => {
    bundle.close();
    killAllRuns();
  });
  serveStdio(factory, { transport: new StdioTransport(), onerror: (e) => warn(e.message) });
}

async function list(bundle: LocalBundle): Promise<void> {
  await bundle.ready();
  const { catalog } = bundle.reader;
  const lines: string[] = [];
  for (const kind of ["agent", "workflow", "task", "knowledge"] as const) {
    for (const r of catalog.list(kind)) {
      const found = catalog.resolve(kind, `${r.module}/${shortName(r)}`);
      const others = found.ok ? found.candidates.slice(1).map((c) => catalog.manifest.sources[c.source]!.origin) : [];
      const origin = catalog.manifest.sources[r.source]!;
      lines.push(`${kind.padEnd(9)} ${`${r.module}/${shortName(r)}`.padEnd(40)} ${origin.origin} (${origin.name})${others.length ? `  also: ${others.join(", ")}` : ""}`);
    }
  }
  writeOut(`${lines.join("\n")}\n`);
  bundle.close();
}

