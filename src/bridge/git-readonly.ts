// Read-only git for the ported scripts on the bridge (git_evidence.py's `git log` passes). The port fixes the
// arguments; this runs them with nothing a repository's config can make git execute: no fsmonitor, hooks, pager,
// external diff, textconv, signature check or transport, no system config, no prompt, no optional locks. It runs
// in a folder of the project (after `..` and symlinks), finds no repository above the project, and is bounded in
// time and output and killed with its children (run-bounded.ts). An argv array, never a shell.
import { dirname, relative } from "node:path";
import type { GitRequest, GitRun, GitRunner } from "../core/runtime/context.js";
import { resolveConfined } from "./confined-fs.js";
import { runBounded } from "./run-bounded.js";

/** Subcommands that read history only (never the working tree, where filters run). */
const SUBCOMMANDS = new Set(["log", "rev-list", "rev-parse", "show"]);
/** Those that take the diff options below. */
const DIFFING = new Set(["log", "show"]);
/** Options no port passes: they write a file or run a program. */
const REFUSED = /^--(?:output|ext-diff|textconv|show-signature|exec)(?:=|$)/;
const CONFIG_NAME = /^[A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)+$/;
/** After the port's settings, so these win. */
// safe.bareRepository: a folder the model filled with HEAD, objects and a commondir naming another repository is
// not taken for a repository (git reads the setting only from the command line and the system and user configs).
const SAFE = ["core.fsmonitor=false", "core.hooksPath=/dev/null", "diff.external=", "core.pager=cat", "log.showSignature=false", "protocol.allow=never", "safe.bareRepository=explicit"];
const MAX_OUTPUT = 32 * 1024 * 1024;

export interface ReadonlyGitOptions {
  timeoutMs: number;
  /** The git executable on PATH, or undefined where there is none. */
  find: () => string | undefined;
}

/** git for `root`'s ported scripts; undefined from a run means git is not installed. */
export function readonlyGit(root: string, opts: ReadonlyGitOptions): GitRunner {
  return async (request) => {
    const git = opts.find();
    if (!git) return undefined;
    const refused = refusal(request);
    if (refused) return failed(`fatal: ${refused}`, 128);
    const top = await resolveConfined(root, "");
    const found = await resolveConfined(root, relative(root, request.dir));
    if (!top.ok || !found.ok || !found.isDir) {
      const why = !top.ok ? top.error : !found.ok ? found.error : "Not a directory";
      return failed(`fatal: cannot change to '${request.dir}': ${why}`, 128);
    }
    const [subcommand, ...rest] = request.args;
    const argv = [git, "--no-pager", ...[...(request.config ?? []), ...SAFE].flatMap((c) => ["-c", c]), subcommand!, ...(DIFFING.has(subcommand!) ? ["--no-ext-diff", "--no-textconv"] : []), ...rest];
    const env: Record<string, string | undefined> = {};
    for (const name of Object.keys(process.env)) if (name.startsWith("GIT_")) env[name] = undefined;
    Object.assign(env, {
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_TERMINAL_PROMPT: "0",
      GIT_OPTIONAL_LOCKS: "0",
      GIT_NO_LAZY_FETCH: "1",
      // The repository is the project's: git looks no higher than the project folder for one.
      GIT_CEILING_DIRECTORIES: dirname(top.path),
    });
    const run = await runBounded(argv, { cwd: found.path, timeoutMs: opts.timeoutMs, env, maxOutputBytes: MAX_OUTPUT });
    const stderr = run.stderrBytes ?? Buffer.from(run.stderr);
    if (run.timedOut) return failed(`${stderr}\nfatal: git was killed after ${opts.timeoutMs / 1000} s (BMAD_RUN_TIMEOUT_MS sets the limit).`, -9);
    if (run.truncated) return failed(`fatal: git printed more than ${MAX_OUTPUT / 1024 / 1024} MiB; measure a shorter range.`, 1);
    // No exit code: killed by a signal (Python's returncode is then negative).
    return { stdout: run.stdoutBytes ?? new Uint8Array(), stderr, exitCode: run.exitCode ?? -9 };
  };
}

/** Why a request is not run: a subcommand that is not read-only, an option that writes or runs, a malformed setting. */
function refusal(request: GitRequest): string | undefined {
  const [subcommand, ...rest] = request.args;
  if (!subcommand || !SUBCOMMANDS.has(subcommand)) return `git ${subcommand ?? ""} is not one of the read-only commands (${[...SUBCOMMANDS].join(", ")}).`;
  const options = rest.slice(0, [rest.indexOf("--end-of-options"), rest.indexOf("--")].filter((i) => i >= 0).sort((a, b) => a - b)[0] ?? rest.length);
  const bad = options.find((arg) => REFUSED.test(arg));
  if (bad) return `${bad} writes a file or runs a program; refused.`;
  const setting = (request.config ?? []).find((c) => c.indexOf("=") <= 0 || c.includes("\n") || !CONFIG_NAME.test(c.slice(0, c.indexOf("="))));
  return setting === undefined ? undefined : `${JSON.stringify(setting)} is not a name=value setting.`;
}

function failed(stderr: string, exitCode: number): GitRun {
  return { stdout: new Uint8Array(), stderr: new TextEncoder().encode(stderr), exitCode };
}
