// Git sources: `git+https://host/repo.git#ref:/sub/dir`, `git+git@host:org/repo.git`, `file://.../repo.git`, or a
// path ending `.git`. Cloned with the system git (argument arrays, never a shell, none of the caller's GIT_* variables:
// git-env.ts), shallow, cached by URL + ref hash, each checkout beside a small record of what it is (for `bmad-mcp
// cache list`). Every git run has a time limit.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as z from "zod";
import { GIT_TRANSPORT_ENV, gitEnvironment } from "./git-env";

/** A git fetch of a large repository over a slow link takes a while; a hung one must not hold the build forever. */
export const DEFAULT_GIT_TIMEOUT_MS = 120_000;

export interface GitRun {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
}

/** Runs one git command line (an argv array) in `cwd` within `timeoutMs`, killing it (and what it started) when it is
 *  over; `env` is laid over the environment the runner gives (undefined removes a variable: gitEnvironment). */
export type GitRunner = (argv: string[], opts: { cwd: string; timeoutMs: number; env: Record<string, string | undefined> }) => Promise<GitRun>;

export interface GitOptions {
  /** The checkout cache (default: node_modules/.cache/bmad-git under the build's cwd). */
  cache?: string;
  timeoutMs?: number;
  /** How git is run (the bridge kills a timed-out git with everything it started); default: execFile with a timeout. */
  run?: GitRunner;
  /** What to tell the user to raise the limit, after "timed out after N s". */
  timeoutHint?: string;
  /** Checkouts fetched already by this process (cache keys), with what was said of each: used as they are, not
   *  fetched again on a rebuild. */
  fetched?: Map<string, Pick<Checkout, "stale">>;
}

const execRun: GitRunner = (argv, opts) =>
  new Promise((done) => {
    execFile(argv[0]!, argv.slice(1), { cwd: opts.cwd, env: { ...process.env, ...opts.env }, timeout: opts.timeoutMs, killSignal: "SIGKILL", maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      const e = error as (Error & { code?: unknown; killed?: boolean }) | null;
      done({ stdout, stderr: stderr || (e && typeof e.code !== "number" ? e.message : ""), exitCode: e ? (typeof e.code === "number" ? e.code : null) : 0, timedOut: e?.killed === true });
    });
  });

export interface GitSpec {
  /** What git clones (the `git+` prefix removed; local paths made absolute). */
  url: string;
  ref?: string;
  subpath?: string;
  /** URL without credentials or query, or a local repo's last two folders (see localLabel): never an absolute path. */
  label: string;
}

export function isGitLocation(location: string): boolean {
  const base = location.split("#")[0]!;
  return location.startsWith("git+") || (location.startsWith("file://") && base.endsWith(".git")) || base.endsWith(".git");
}

/** git's scp-like form `user@host:path`, the one GitHub shows for ssh (`git@github.com:org/repo.git`): taken for a
 *  local path, it failed as a missing folder whose message was about access rights (review 214). No leading "-": the
 *  URL is an argument of git fetch. */
const SCP_LIKE = /^([A-Za-z0-9_][\w.-]*@)[A-Za-z0-9][A-Za-z0-9.-]*:(?!\/\/)./;

export function parseGitSpec(location: string): GitSpec {
  const hash = location.indexOf("#");
  let url = hash < 0 ? location : location.slice(0, hash);
  const fragment = hash < 0 ? "" : location.slice(hash + 1);
  let ref: string | undefined;
  let subpath: string | undefined;
  if (fragment) {
    const colon = fragment.indexOf(":");
    ref = (colon < 0 ? fragment : fragment.slice(0, colon)) || undefined;
    subpath = colon < 0 ? undefined : fragment.slice(colon + 1).replace(/^\/+|\/+$/g, "") || undefined;
  }
  // No leading "-": a ref is passed to git fetch as an argument and must never read as an option.
  if (ref !== undefined && !/^[A-Za-z0-9._\/][A-Za-z0-9._\/-]*$/.test(ref)) throw new Error(`Bad git ref "${ref}" in ${location}`);
  if (subpath?.split("/").includes("..")) throw new Error(`Bad git subpath "${subpath}": ".." is not allowed`);
  if (url.startsWith("git+")) url = url.slice(4);
  const scp = SCP_LIKE.exec(url);
  const local = !scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url);
  if (local) url = pathToFileURL(resolve(url)).href;
  let label: string;
  // Given to git as it is (its path may be in the remote account's home, which an ssh:// URL cannot say); the label
  // without the user, as a URL's.
  if (scp) label = url.slice(scp[1]!.length);
  else if (url.startsWith("file:")) label = localLabel(new URL(url).pathname);
  else {
    // A query carries tokens as often as the user part does (`?private_token=…`): both are left out.
    const u = new URL(url);
    u.username = "";
    u.password = "";
    u.search = "";
    label = u.href;
  }
  if (ref) label += `#${ref}`;
  if (subpath) label += `:/${subpath}`;
  return { url, ref, subpath, label };
}

/** A local repository by its last two folders, a trailing `.git` folder left out (`team-a/team.git`; `x/repo` for
 *  x/repo/.git): by its basename alone, `.git` named nothing and two `team.git` were one (review 134). The cache is
 *  keyed by URL, not by this. */
function localLabel(pathname: string): string {
  const parts = pathname.split("/").filter(Boolean);
  if (parts.at(-1) === ".git") parts.pop();
  return parts.slice(-2).join("/");
}

/** `text` (git's own message) without the parts of `url` that carry credentials: git leaves out the user part
 *  itself but prints the query (`unable to access 'https://host/repo.git?token=…/'`). */
function withoutSecrets(text: string, url: string): string {
  const user = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*@)/i.exec(url)?.[1];
  const query = url.includes("?") ? url.slice(url.indexOf("?")) : undefined;
  let shown = text;
  for (const secret of [user, query]) if (secret) shown = shown.split(secret).join("");
  return shown;
}

/** Runs git in `cwd`: a folder of the cache, never the build's working folder (a project, where a `git` may be planted).
 *  Every command but `init` works on the checkout in `cwd`, named outright: none is looked for above it. */
async function git(args: string[], opts: GitOptions, cwd: string): Promise<string> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS;
  const repo = args[0] === "init" ? [] : ["--git-dir=.git", "--work-tree=."];
  // No LFS download either: a hostile repo's .lfsconfig would send git-lfs (where the user has it set up) to its server.
  const env = gitEnvironment({ GIT_TERMINAL_PROMPT: "0", GIT_LFS_SKIP_SMUDGE: "1" }, GIT_TRANSPORT_ENV);
  const out = await (opts.run ?? execRun)(["git", ...repo, ...args], { cwd, timeoutMs, env });
  if (out.timedOut) throw new Error(`git ${args[0]} timed out after ${timeoutMs / 1000} s${opts.timeoutHint ? ` (${opts.timeoutHint})` : ""}`);
  if (out.exitCode !== 0) throw new Error(`git ${args[0]} failed: ${gitError(out.stderr) || `exit ${out.exitCode}`}`);
  return out.stdout.trim();
}

/** What went wrong, from git's stderr: its first `fatal:` line and the line before it (ssh's own, where ssh failed);
 *  the advice git adds after it ("make sure you have the correct access rights") misled where the URL was wrong. */
function gitError(stderr: string): string {
  const lines = stderr.split("\n").map((line) => line.trim()).filter(Boolean);
  const fatal = lines.findIndex((line) => line.startsWith("fatal:"));
  const end = fatal < 0 ? lines.length : fatal + 1;
  return lines.slice(Math.max(0, end - 2), end).join(" ");
}

/** How long a fetch into a cached checkout may take before the cached one is served as it is. */
const CACHED_FETCH_MS = 10_000;

/** What `cache list` shows of a checkout: never the URL as given (it may carry credentials). */
const CacheRecord = z.object({ label: z.string(), ref: z.string().optional(), commit: z.string(), fetchedAt: z.string() });
export type GitCacheEntry = z.infer<typeof CacheRecord> & { key: string };

export interface Checkout {
  dir: string;
  commit: string;
  /** Set when the fetch failed and the cached checkout is served as it was: why, and which commit (for a warning). */
  stale?: string;
}

/** Fetches `spec` into the cache (shallow) and returns the checkout dir and the commit it is at. */
export async function checkoutGit(spec: GitSpec, cacheRoot: string, log: (m: string) => void, opts: GitOptions = {}): Promise<Checkout> {
  const key = createHash("sha256").update(`${spec.url}#${spec.ref ?? ""}`).digest("hex").slice(0, 24);
  const dir = join(cacheRoot, key);
  const what = spec.ref ?? "HEAD";
  const cached = existsSync(join(dir, ".git"));
  const known = opts.fetched?.get(key);
  if (cached && known) return { ...known, dir, commit: await git(["rev-parse", "HEAD"], opts, dir) };
  log(`git: fetching ${spec.label} (${what})`);
  let failure: string | undefined;
  if (cached) {
    try {
      // A cached checkout is served when the remote is slow too, not only when it is unreachable: a remote that takes
      // the connection and never answers held the bridge's start for the whole git timeout (review 59: 120 s). The
      // limit here is not the one --git-timeout raises: no hint.
      await git(["fetch", "--depth", "1", spec.url, what], { ...opts, timeoutMs: Math.min(opts.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS, CACHED_FETCH_MS), timeoutHint: undefined }, dir);
      await git(["checkout", "--quiet", "--detach", "FETCH_HEAD"], opts, dir);
    } catch (err) {
      failure = withoutSecrets((err as Error).message, spec.url);
    }
  } else {
    // The user's alone: a private repository fetched with their credentials is no one else's to read (review 82).
    mkdirSync(cacheRoot, { recursive: true, mode: 0o700 });
    chmodSync(cacheRoot, 0o700);
    const tmp = `${dir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    try {
      await git(["init", "--quiet", tmp], opts, cacheRoot);
      // Fetched by its URL, never kept as a remote: the checkout's .git/config would hold the credentials a URL carries.
      await git(["fetch", "--quiet", "--depth", "1", spec.url, what], opts, tmp).catch((err: Error) => {
        throw new Error(`Cannot fetch ref "${what}" from ${spec.label}: ${withoutSecrets(err.message, spec.url)}`);
      });
      await git(["checkout", "--quiet", "--detach", "FETCH_HEAD"], opts, tmp);
      try {
        renameSync(tmp, dir);
      } catch (err) {
        if (!existsSync(join(dir, ".git"))) throw err; // else another process (a second bridge) made it first
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const commit = await git(["rev-parse", "HEAD"], opts, dir);
  if (failure !== undefined) {
    // Said to the user and to clients (the build's warnings): served in silence, an old commit passed for the ref's
    // latest for as long as the repository was gone or slow (review 214).
    const fetchedAt = readRecord(dir)?.fetchedAt;
    const stale = `cannot refresh it (${failure}); serving the cached checkout at commit ${commit.slice(0, 12)}${fetchedAt ? `, fetched ${fetchedAt}` : ""}, until a later start fetches it.`;
    opts.fetched?.set(key, { stale });
    return { dir, commit, stale };
  }
  opts.fetched?.set(key, {});
  writeFileSync(`${dir}.json`, JSON.stringify({ label: spec.label, ...(spec.ref ? { ref: spec.ref } : {}), commit, fetchedAt: new Date().toISOString() }), { mode: 0o600 });
  return { dir, commit };
}

/** A checkout's record, or undefined where it has none that reads. */
function readRecord(dir: string): z.infer<typeof CacheRecord> | undefined {
  try {
    const parsed = CacheRecord.safeParse(JSON.parse(readFileSync(`${dir}.json`, "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The checkouts in `cacheRoot`, newest fetch first (one with no readable record shows as "unknown"). */
export function listGitCache(cacheRoot: string): GitCacheEntry[] {
  if (!existsSync(cacheRoot)) return [];
  const entries: GitCacheEntry[] = [];
  for (const name of readdirSync(cacheRoot)) {
    if (!/^[0-9a-f]{24}$/.test(name)) continue;
    entries.push({ key: name, ...(readRecord(join(cacheRoot, name)) ?? { label: "unknown", commit: "", fetchedAt: "" }) });
  }
  return entries.sort((a, b) => b.fetchedAt.localeCompare(a.fetchedAt));
}

/** Removes every checkout (and any half-made one) from `cacheRoot`; how many checkouts there were. */
export function clearGitCache(cacheRoot: string): number {
  const count = listGitCache(cacheRoot).length;
  if (existsSync(cacheRoot)) for (const name of readdirSync(cacheRoot)) if (/^[0-9a-f]{24}(\.json|\.tmp-\d+)?$/.test(name)) rmSync(join(cacheRoot, name), { recursive: true, force: true });
  return count;
}
