// `bmad-mcp pull` and `bmad-mcp push`: the command line around sync-pull.ts and sync-push.ts. They sign in like
// `--remote` (the same credentials file; the browser only when there is no usable sign-in), or with a token
// from BMAD_MCP_TOKEN (CI, scripts; never an argument), and talk to the server through its bmad-files tool.
import { parseJsonText } from "./json-text.js";
import { mkdir, readFile } from "node:fs/promises";
import type { Client } from "@modelcontextprotocol/client";
import { join, resolve } from "node:path";
import * as z from "zod";
import { parseArgs } from "node:util";
import { parseProjectRef } from "../core/workspace/paths.js";
import { parseRemoteUrl } from "./remote-url.js";
import { type Refusal, Report, sentence, shellWord } from "./sync.js";
import { pull, type SyncResult } from "./sync-pull.js";
import { push } from "./sync-push.js";
import { RemoteWorkspace } from "./sync-remote.js";
import { STATE_FILE } from "./sync-state.js";
import { LockBusyError, withFileLock } from "./file-lock.js";

import { TOKEN_ENV } from "./token-client.js";
import { tokenProblem } from "./token-env.js";
import { bmadScriptsOf, type BmadScripts } from "../core/runtime/scripts.js";
import { writeErr, writeOut } from "./terminal.js";
import { remoteText } from "./bounded-fetch.js";
import { optionRefusal } from "./cli-options.js";

export const SYNC_USAGE = `Usage: bmad-mcp pull --remote URL --project NAME [--dir DIR] [--force]
       bmad-mcp push --remote URL --project NAME [--dir DIR] [--force [PATH...]]

pull writes a workspace's files from a bmad-mcp server into DIR; push sends back what changed there
since. Both sign in like --remote: in the browser the first time, with the saved sign-in after that;
with ${TOKEN_ENV} set, with that token alone. The version each file was pulled at is kept in DIR/${STATE_FILE}.

pull  writes the remote's new and changed files, and deletes those deleted on the remote when they are
      unchanged here. A file changed here is never overwritten: if the remote changed it too, pull
      refuses and writes nothing; if not, your change is kept for push.
push  sends files changed here, new files inside the workspace's own folders (those pulled, e.g.
      _bmad/, _bmad-output/; the rest of DIR stays local, and so do the files that were in them before
      the project's first pull here, until named after --force), and deletions (the remote keeps history:
      bmad-files restore brings a file back). A file changed on the remote since the pull stops the
      push, and nothing is sent; one no pull resolves (another member's change to BMAD's settings) is
      held back, named, and the rest are sent. --force sends yours over every conflict; --force PATH...
      over those files alone, and only so over another member's settings (PATH as push lists it).

Options:
  --remote URL     the server's MCP endpoint, e.g. https://bmad.example.com/mcp
  --project NAME   the workspace, as bmad-project lists it
  --dir DIR        the folder (default: the current directory)
  --force          pull: the remote's files win where both changed and no merge applies (a copy of yours kept a week); push: yours win over the remote's
                   (with PATHs after it, those files alone, held BMAD settings among them)
  --help           this text
Environment:
  ${TOKEN_ENV}   an access token for the server, for CI and scripts: no browser, nothing saved; a push
                   needs the bmad:write scope. Not an option: other users of the machine see those in ps
Exit status: 0 done; 1 refused or failed, with the reason, or push held back a file made or changed here
(a name the remote takes no file by, a secret in it, a copy the remote served altered), the rest sent;
2 a usage error; 70 an unexpected failure, said on stderr.`;

const MANIFEST = z.object({ files: z.array(z.object({ path: z.string(), sha256: z.string() })) });

/** The scripts of the bundle this CLI ships (BMAD's own bytes, by place): the only scripts a pull writes. */
async function bmadScripts(embedded: string | undefined): Promise<BmadScripts> {
  const text = embedded ? await readFile(join(embedded, "manifest.json"), "utf8").catch(() => undefined) : undefined;
  const parsed = text === undefined ? undefined : MANIFEST.safeParse(parseJsonText(text));
  return bmadScriptsOf(parsed?.success ? parsed.data.files : []);
}


/** How long a pull or push waits for another in the same folder: as long as a large one runs (review 358: of two
 *  pushes at once, the second called the first's writes conflicts and advised --force). After WAIT_NOTICE_MS it says so. */
const SYNC_WAIT_MS = 10 * 60_000;
const WAIT_NOTICE_MS = 1000;

const SYNC_OPTIONS = { remote: { type: "string" }, project: { type: "string" }, dir: { type: "string" }, force: { type: "boolean" }, help: { type: "boolean", short: "h" } } as const;

/** Runs the command; resolves with the exit status. */
export async function runSyncCommand(command: "pull" | "push", argv: string[], embedded: string | undefined): Promise<number> {
  // The usage lines, not the whole help: --help gives that (review 431: 30 lines after each refusal).
  const refused = (message: string) => {
    writeErr(`bmad-mcp ${command}: ${message}\n\n${SYNC_USAGE.slice(0, SYNC_USAGE.indexOf("\n\n"))}\n`);
    return 2;
  };
  let args;
  let forcePaths: string[];
  try {
    ({ values: args, positionals: forcePaths } = parseArgs({ args: argv, options: SYNC_OPTIONS, strict: true, allowPositionals: command === "push" }));
  } catch (error) {
    return refused(optionRefusal(error, SYNC_OPTIONS, `bmad-mcp ${command} --help`));
  }
  if (forcePaths.length && !args.force) return refused(`${forcePaths[0]}: push takes paths only after --force, for the files it sends over the remote's.`);
  if (args.help) return void writeOut(`${SYNC_USAGE}\n`), 0;
  // Each one missing named, with what it takes (review 431: "--remote and --project are required" where --project was given).
  if (args.remote === undefined || args.project === undefined) {
    const missing = [...(args.remote === undefined ? ["--remote URL (the server's MCP endpoint, e.g. https://host/mcp)"] : []), ...(args.project === undefined ? ["--project NAME (the workspace)"] : [])];
    return refused(`missing ${missing.join(" and ")}.`);
  }
  const remote = parseRemoteUrl(args.remote);
  if (!remote.ok) return refused(remote.error);
  const ref = parseProjectRef(args.project);
  if (!ref.ok) return refused(`--project: ${ref.error}`);
  const dir = resolve(args.dir ?? process.cwd());
  const project = args.project;
  const say = (m: string) => writeErr(`bmad-mcp: ${m}\n`);
  const token = process.env[TOKEN_ENV];
  const problem = token === undefined ? undefined : tokenProblem(token);
  if (problem) return refused(problem);
  if (command === "pull") await mkdir(dir, { recursive: true });
  const connectAndSync = async (): Promise<number> => {
    const sync = async (client: Client, signIn: () => Promise<void>) => {
      const again = (c: "pull" | "push", force: boolean, paths: readonly string[] = []) =>
        ["bmad-mcp", c, "--remote", remote.url.href, "--project", project, ...(args.dir !== undefined ? ["--dir", dir] : []), ...(force ? ["--force", ...paths] : [])].map(shellWord).join(" ");
      const workspace = new RemoteWorkspace(client, project, signIn);
      const options = { dir, remote: remote.url.href, workspace, force: args.force === true, forcePaths: new Set(forcePaths), again, say, bmadScripts: await bmadScripts(embedded) };
      const result = await (command === "pull" ? pull(options) : push(options));
      await client.close().catch(() => undefined);
      return print(command, project, remote.url.href, dir, result, [...workspace.told.values()].sort());
    };
    // A server's origin without its endpoint answers 404 (review 208: "--remote http://127.0.0.1:8787").
    const endpointHint = (message: string) => (/\b404\b/.test(message) && !remote.url.pathname.endsWith("/mcp") ? ` Is the endpoint ${new URL("/mcp", remote.url).href}? Name it with --remote.` : "");
    const unconnected = (error: unknown) => (say(`${command}: no connection to ${remote.url.href}: ${sentence(remoteText((error as Error).message))}${endpointHint((error as Error).message)}`), 1);

    if (token !== undefined) {
      // No browser and nothing saved: the token is sent as it is, and a refusal says so (token-client.ts).
      const { tokenClient } = await import("./token-client.js");
      const client = await tokenClient(remote.url, token.trim(), TOKEN_ENV).catch((error: unknown) => error as Error);
      return client instanceof Error ? unconnected(client) : sync(client, () => Promise.reject(new Error(`the token in ${TOKEN_ENV} does not allow this`)));
    }
    // Loaded here: the HTTP client and OAuth code are not needed by anything else the CLI does.
    const [{ CredentialsBusyError, FileOAuthProvider }, { LoopbackCallback, SignInError }, { RemoteLink }] = await Promise.all([import("./credentials.js"), import("./loopback-callback.js"), import("./remote-link.js")]);
    const callback = new LoopbackCallback();
    await callback.start({ keepAlive: true });
    const link = new RemoteLink(remote.url, new FileOAuthProvider(remote.url.href, callback, say, dir), callback, say);
    try {
      let client;
      try {
        client = await link.connected();
      } catch (error) {
        // A sign-in that ended without tokens is no connection problem (review 210: a Deny was "no connection to …"),
        // nor is a refresh that found another bridge holding the credentials file (review 257).
        if (error instanceof CredentialsBusyError) return say(`${command}: the saved sign-in to ${remote.url.href} was not refreshed: ${sentence(error.message)}`), 1;
        if (!(error instanceof SignInError)) return unconnected(error);
        return say(`${command}: ${sentence(error.refused ? `${error.message}; run again and choose Allow` : error.message)}`), 1;
      }
      return await sync(client, () => link.signIn());
    } finally {
      callback.close();
    }
  };
  // One at a time in a folder, on the lock of its sync record, so that neither plans from a record the other is
  // changing (review 358); taken before connecting, so that the remote's deadline and a sign-in start once it is this
  // one's turn, and a wait is said (review 366: a pull that waited was cancelled at once, "the remote took more than…").
  const waiting = setTimeout(() => say(`${command}: another pull or push of ${dir} is running; this one waits for it (at most ${SYNC_WAIT_MS / 60_000} minutes).`), WAIT_NOTICE_MS);
  try {
    return await withFileLock(dir, STATE_FILE, () => (clearTimeout(waiting), connectAndSync()), SYNC_WAIT_MS);
  } catch (error) {
    if (error instanceof LockBusyError) return say(`${command}: ${sentence(error.message)}`), 1;
    throw error;
  } finally {
    clearTimeout(waiting);
  }
}

/** `told`: what the remote told with the command's reads, which it tells once (RemoteWorkspace.told): said
 *  whether the command went on or not. */
function print(command: "pull" | "push", project: string, remote: string, dir: string, result: SyncResult, told: string[]): number {
  const report = result.report ?? new Report();
  const lines = [...report.lines(), ...told];
  if (result.ok) {
    const what = command === "pull" ? `Pulled "${project}" from ${remote} into ${dir}` : `Pushed ${dir} to "${project}" on ${remote}`;
    lines.push(`${what}: ${report.summary()}`);
    if (report.behind) lines.push(`${report.behind} file${report.behind === 1 ? "" : "s"} changed on the remote since the pull; pull brings them.`);
    // What pull will not bring is not said to be brought (review 113).
    if (report.behindLeft) {
      const one = report.behindLeft === 1;
      lines.push(`${report.behindLeft} file${one ? "" : "s"} changed on the remote since the pull that pull leaves as ${one ? "it is" : "they are"} here (another member's change to BMAD's settings, a deletion of them, a file sync does not carry): read ${one ? "it" : "them"} there with bmad-files, and copy by hand what you trust.`);
    }
    lines.push(...report.after);
  }
  if (lines.length) writeOut(`${lines.join("\n")}\n`);
  // A push that held back files made here is no success for a script that checks the exit code (reviews 313, 324).
  if (result.ok && result.unsent) writeErr(`bmad-mcp ${command}: ${result.unsent}\n`);
  if (result.ok) return result.unsent ? 1 : 0;
  writeErr(`bmad-mcp ${command}: ${result.error}\n${(result.refusals ?? []).map(refusalLine).join("")}`);
  return 1;
}

function refusalLine(r: Refusal): string {
  // A refusal from the confined reader already names the path and ends its sentence.
  const reason = r.reason.startsWith(`${r.path}: `) ? r.reason : `${r.path}: ${r.reason}`;
  return `  ${sentence(reason)}${r.fix ? `\n    fix: ${sentence(r.fix)}` : ""}\n`;
}
