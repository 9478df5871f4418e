// tsx scripts/complete-lock.ts: adds the lock entries npm left out for other platforms' optional packages
// (`@rolldown/binding-darwin-*`, `@cloudflare/workerd-windows-64`, …). npm drops them when its registry has no
// such version, and `npm ci` then refuses the lock on every machine. Each entry is placed where Node's
// resolution finds it from the package that wants it; platform fields come from another version of the same
// package in the lock, or from the registry's newest version of it. No integrity is written where none is known: npm checks the download's own.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

interface LockEntry {
  version?: string;
  optionalDependencies?: Record<string, string>;
  [field: string]: unknown;
}
type Packages = Record<string, LockEntry>;

const FLAGS = ["dev", "optional", "devOptional", "peer"] as const;
const PLATFORM = ["license", "cpu", "os", "libc", "engines"] as const;

/** The lock key Node's resolution reaches for `name` from the package at `from` ("" is the project). */
export function resolveIn(packages: Packages, from: string, name: string): string | undefined {
  for (let base = from; ; base = base.slice(0, Math.max(0, base.lastIndexOf("/node_modules/")))) {
    const key = `${base ? `${base}/` : ""}node_modules/${name}`;
    if (packages[key]) return key;
    if (!base) return undefined;
  }
}

const EXACT = /^\d+\.\d+\.\d+(-[\w.]+)?$/;

/** Optional dependencies that no lock entry resolves to (or, pinned to a version, not to that version). */
export function missingOptional(packages: Packages): Array<{ from: string; name: string; version: string }> {
  const out: Array<{ from: string; name: string; version: string }> = [];
  for (const [from, entry] of Object.entries(packages)) {
    for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
      const found = resolveIn(packages, from, name);
      if (!found || (EXACT.test(version) && packages[found]!.version !== version)) out.push({ from, name, version });
    }
  }
  return out;
}

function registryFields(name: string): LockEntry {
  const json = execFileSync("npm", ["view", name, ...PLATFORM, "--json"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  return JSON.parse(json) as LockEntry;
}

function complete(packages: Packages): string[] {
  const added: string[] = [];
  for (const { from, name, version } of missingOptional(packages)) {
    if (!EXACT.test(version)) throw new Error(`${from} wants ${name}@${version}: only exact versions are completed`);
    const template = Object.entries(packages).find(([key]) => key.endsWith(`node_modules/${name}`))?.[1] ?? registryFields(name);
    // The shallowest folder between `from` and the first existing entry of the name (Node stops there).
    let place = "";
    for (let base = from; ; base = base.slice(0, Math.max(0, base.lastIndexOf("/node_modules/")))) {
      const key = `${base ? `${base}/` : ""}node_modules/${name}`;
      if (packages[key]) break;
      place = key;
      if (!base) break;
    }
    // Flags as a sibling optional package of the same parent has them.
    const sibling = Object.keys(packages[from]!.optionalDependencies ?? {})
      .map((n) => resolveIn(packages, from, n))
      .find((k) => k && packages[k]!.version === packages[from]!.optionalDependencies![k.slice(k.lastIndexOf("node_modules/") + 13)]);
    const entry: LockEntry = { version };
    for (const f of PLATFORM) if (template[f] !== undefined) entry[f] = template[f];
    for (const f of FLAGS) if (sibling && packages[sibling]![f]) entry[f] = true;
    if (!sibling) entry.optional = true;
    packages[place] = entry;
    added.push(`${place}@${version}`);
  }
  return added;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const file = join(import.meta.dirname, "..", "package-lock.json");
  const lock = JSON.parse(readFileSync(file, "utf8")) as { packages: Packages };
  const added = complete(lock.packages);
  lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))));
  writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(added.length ? `added ${added.length} entries:\n${added.join("\n")}` : "package-lock.json is complete");
}
