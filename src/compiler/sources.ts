// Source specs `[origin=]LOCATION`: a directory, an npm package in node_modules, or a git URL.
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { ORIGIN_PRIORITY, type BundleSource, type OriginKind } from "../core/catalog/bundle";
import { checkoutGit, isGitLocation, parseGitSpec, type GitOptions } from "./git";

export interface SourceSpec {
  origin: OriginKind;
  location: string;
  kind: BundleSource["kind"];
}

export interface ResolvedSource {
  root: string;
  source: Omit<BundleSource, "layout">;
  /** A git source served from its cache after a failed fetch: why, and which commit. */
  stale?: string;
}

const NPM_NAME = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i;

export function parseSpec(spec: string): SourceSpec {
  const m = /^(project|cli|env|user|package)=(.+)$/.exec(spec);
  const location = m ? m[2]! : spec;
  if (!location) throw new Error(`Empty source spec "${spec}"`);
  let kind: BundleSource["kind"];
  if (isGitLocation(location)) kind = "git";
  else if (/^[./~]/.test(location) || (location.includes("/") && !location.startsWith("@")) || existsSync(location)) kind = "directory";
  else if (NPM_NAME.test(location)) kind = "npm";
  else throw new Error(`Source "${spec}" is neither a directory, a git URL nor an npm package name`);
  const origin = (m?.[1] as OriginKind | undefined) ?? (kind === "npm" ? "package" : "cli");
  return { origin, location, kind };
}

/** Finds `node_modules/<name>` walking up from `from`. */
export function findPackage(name: string, from: string): { dir: string; version?: string } {
  for (let d = resolve(from); ; d = dirname(d)) {
    const pkg = join(d, "node_modules", name, "package.json");
    if (existsSync(pkg)) {
      const json = JSON.parse(readFileSync(pkg, "utf8")) as { version?: unknown };
      return { dir: dirname(pkg), version: typeof json.version === "string" ? json.version : undefined };
    }
    if (dirname(d) === d) break;
  }
  throw new Error(`npm package "${name}" is not installed (looked in node_modules from ${from} upwards)`);
}

export async function resolveSource(spec: SourceSpec, cwd: string, log: (m: string) => void, gitOptions: GitOptions = {}): Promise<ResolvedSource> {
  const base = { kind: spec.kind, origin: spec.origin, priority: ORIGIN_PRIORITY[spec.origin] };
  if (spec.kind === "npm") {
    const pkg = findPackage(spec.location, cwd);
    return { root: pkg.dir, source: { ...base, name: spec.location, ...(pkg.version ? { version: pkg.version } : {}) } };
  }
  if (spec.kind === "directory") {
    const root = resolve(cwd, spec.location.replace(/^~(?=\/|$)/, process.env.HOME ?? "~"));
    if (!existsSync(root)) throw new Error(`Cannot read source ${spec.location}: no such directory`);
    return { root, source: { ...base, name: basename(root) } };
  }
  const git = parseGitSpec(spec.location);
  const cache = gitOptions.cache ?? join(cwd, "node_modules", ".cache", "bmad-git");
  const { dir, commit, stale } = await checkoutGit(git, cache, log, gitOptions);
  const root = git.subpath ? join(dir, git.subpath) : dir;
  if (!existsSync(root)) throw new Error(`Subpath "${git.subpath}" does not exist in ${git.label}`);
  // By its real path: a subpath that is a link in the repository would serve a folder of this machine's.
  const [realRoot, realDir] = [realpathSync(root), realpathSync(dir)];
  if (realRoot !== realDir && !realRoot.startsWith(realDir + sep)) throw new Error(`Subpath "${git.subpath}" of ${git.label} is a link out of the repository; name a folder inside it`);
  return { root, source: { ...base, name: git.label, version: git.ref ?? commit.slice(0, 12) }, ...(stale === undefined ? {} : { stale }) };
}
