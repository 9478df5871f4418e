// Git sources: `git+https://host/repo.git#ref:/sub/dir`, `file://.../repo.git`, or a path ending `.git`.
// Cloned with the system git (argument arrays, never a shell), shallow, cached by URL + ref hash.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface GitSpec {
  /** What git clones (the `git+` prefix removed; local paths made absolute). */
  url: string;
  ref?: string;
  subpath?: string;
  /** URL without credentials, or the repo's basename for local repos: never an absolute path. */
  label: string;
}

export function isGitLocation(location: string): boolean {
  const base = location.split("#")[0]!;
  return location.startsWith("git+") || (location.startsWith("file://") && base.endsWith(".git")) || base.endsWith(".git");
}

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
  if (ref !== undefined && !/^[A-Za-z0-9._\/-]+$/.test(ref)) throw new Error(`Bad git ref "${ref}" in ${location}`);
  if (subpath?.split("/").includes("..")) throw new Error(`Bad git subpath "${subpath}": ".." is not allowed`);
  if (url.startsWith("git+")) url = url.slice(4);
  const local = !/^[a-z][a-z0-9+.-]*:\/\//i.test(url);
  if (local) url = pathToFileURL(resolve(url)).href;
  const isFile = url.startsWith("file:");
  let label: string;
  if (isFile) label = basename(new URL(url).pathname);
  else {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    label = u.href;
  }
  if (ref) label += `#${ref}`;
  if (subpath) label += `:/${subpath}`;
  return { url, ref, subpath, label };
}

async function git(args: string[], cwd?: string): Promise<string> {
  try {
    const { stdout } = await run("git", args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: "0" }, maxBuffer: 1 << 20 });
    return stdout.trim();
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`git ${args[0]} failed: ${(e.stderr || e.message).trim().split("\n").slice(-2).join(" ")}`);
  }
}

/** Fetches `spec` into the cache (shallow) and returns the checkout dir and the commit it is at. */
export async function checkoutGit(spec: GitSpec, cacheRoot: string, log: (m: string) => void): Promise<{ dir: string; commit: string }> {
  const key = createHash("sha256").update(`${spec.url}#${spec.ref ?? ""}`).digest("hex").slice(0, 24);
  const dir = join(cacheRoot, key);
  const what = spec.ref ?? "HEAD";
  log(`git: fetching ${spec.label} (${what})`);
  if (existsSync(join(dir, ".git"))) {
    try {
      await git(["fetch", "--depth", "1", "origin", what], dir);
      await git(["checkout", "--quiet", "--detach", "FETCH_HEAD"], dir);
    } catch (err) {
      log(`git: fetch failed, using cached checkout (${(err as Error).message})`);
    }
  } else {
    mkdirSync(cacheRoot, { recursive: true });
    const tmp = `${dir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    try {
      await git(["init", "--quiet", tmp]);
      await git(["remote", "add", "origin", spec.url], tmp);
      await git(["fetch", "--quiet", "--depth", "1", "origin", what], tmp).catch((err: Error) => {
        throw new Error(`Cannot fetch ref "${what}" from ${spec.label}: ${err.message}`);
      });
      await git(["checkout", "--quiet", "--detach", "FETCH_HEAD"], tmp);
      renameSync(tmp, dir);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const commit = await git(["rev-parse", "HEAD"], dir);
  return { dir, commit };
}
