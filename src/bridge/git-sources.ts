// Git sources on the bridge (`--path git+https://host/repo.git#ref:/sub`): the compiler's git code and cache
// layout, a checkout cache of the user's own (not a project's node_modules), every git run bounded in time and
// killed with what it started (run-bounded.ts), and `bmad-mcp cache list|clear`.
import { homedir } from "node:os";
import { join } from "node:path";
import { clearGitCache, DEFAULT_GIT_TIMEOUT_MS, listGitCache, type GitOptions } from "../compiler/git.js";
import type { Result } from "../core/result.js";
import { findProgram } from "./find-program.js";
import { runBounded } from "./run-bounded.js";

export const CACHE_USAGE = `Usage: bmad-mcp cache list     the git sources fetched for --path git+URL, newest first
       bmad-mcp cache clear    remove them all (the next start fetches again)
The cache is $XDG_CACHE_HOME/bmad-mcp/git (default ~/.cache/bmad-mcp/git).`;

/** Where the bridge keeps git checkouts: the user's cache folder, shared by every project. */
export function gitCacheDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CACHE_HOME || join(env.HOME ?? homedir(), ".cache"), "bmad-mcp", "git");
}

/** Node's longest timer, 2^31-1 ms (about 24 days): a longer one, Infinity too, fires at once (TimeoutOverflowWarning),
 *  and every git run "timed out" at start. Under a second no fetch finishes. */
const MAX_GIT_TIMEOUT_MS = 2 ** 31 - 1;
const MIN_GIT_TIMEOUT_MS = 1000;
/** A plain decimal number: Number() also took "Infinity", "1e400" and "0x10". */
const DECIMAL = /^[0-9]+(?:\.[0-9]+)?$/;

/** The git time limit: --git-timeout (seconds) wins over BMAD_GIT_TIMEOUT_MS (milliseconds, as the other limits). */
export function gitTimeoutMs(flag: string | undefined, env: NodeJS.ProcessEnv): Result<{ ms: number }> {
  const usable = (ms: number) => ms >= MIN_GIT_TIMEOUT_MS && ms <= MAX_GIT_TIMEOUT_MS;
  if (flag !== undefined) {
    const ms = Math.round(Number(flag) * 1000);
    if (!DECIMAL.test(flag) || !usable(ms)) return { ok: false, error: `--git-timeout ${flag}: give a number of seconds from ${MIN_GIT_TIMEOUT_MS / 1000} to ${Math.floor(MAX_GIT_TIMEOUT_MS / 1000)} (Node's longest timer, about 24 days), e.g. --git-timeout 60.` };
    return { ok: true, ms };
  }
  const given = env.BMAD_GIT_TIMEOUT_MS;
  if (!given) return { ok: true, ms: DEFAULT_GIT_TIMEOUT_MS };
  const ms = Math.round(Number(given));
  if (!DECIMAL.test(given) || !usable(ms)) return { ok: false, error: `BMAD_GIT_TIMEOUT_MS=${given}: give a number of milliseconds from ${MIN_GIT_TIMEOUT_MS} to ${MAX_GIT_TIMEOUT_MS} (Node's longest timer, about 24 days), e.g. 60000, or unset it for the default (${DEFAULT_GIT_TIMEOUT_MS}).` };
  return { ok: true, ms };
}

/** The compiler's git options for this bridge process: one per process, so each source is fetched once per start. git
 *  is found as every program the bridge starts is, never in `project` (find-program.ts). */
export function bridgeGitOptions(env: NodeJS.ProcessEnv, timeoutMs: number, project: string): GitOptions {
  return {
    cache: gitCacheDir(env),
    timeoutMs,
    timeoutHint: "--git-timeout SECONDS or BMAD_GIT_TIMEOUT_MS raises the limit",
    fetched: new Map(),
    run: async ([name, ...args], opts) => {
      const program = findProgram(name!, project);
      if (!program) return { stdout: "", stderr: `${name} is not on PATH (absolute entries): install it.`, exitCode: null, timedOut: false };
      if ("inside" in program) return { stdout: "", stderr: `${program.inside} is inside the project: the bridge runs no program from the project's own folders. Put a ${name} from outside it first on PATH.`, exitCode: null, timedOut: false };
      const run = await runBounded([program.path, ...args], { cwd: opts.cwd, timeoutMs: opts.timeoutMs, env: opts.env });
      return { stdout: run.stdout, stderr: run.stderr, exitCode: run.exitCode, timedOut: run.timedOut };
    },
  };
}

/** `bmad-mcp cache list|clear`: the exit code. */
export function runCacheCommand(args: string[], env: NodeJS.ProcessEnv, out: (text: string) => void, err: (text: string) => void): number {
  const dir = gitCacheDir(env);
  const [action, ...rest] = args;
  if (action === "--help" || action === "-h") {
    out(CACHE_USAGE);
    return 0;
  }
  if (rest.length || (action !== "list" && action !== "clear")) {
    err(`bmad-mcp: ${["cache", ...args].join(" ")}: expected \`cache list\` or \`cache clear\`.\n\n${CACHE_USAGE}`);
    return 2;
  }
  if (action === "clear") {
    const count = clearGitCache(dir);
    out(`Removed ${count} cached git source${count === 1 ? "" : "s"} from ${dir}.`);
    return 0;
  }
  const entries = listGitCache(dir);
  if (!entries.length) out(`No cached git sources in ${dir}.`);
  else out(entries.map((e) => `${e.label}  ${e.commit.slice(0, 12) || "?"}  ${e.fetchedAt || "?"}  ${join(dir, e.key)}`).join("\n"));
  return 0;
}
