// What the bridge replaced or removed in the project folder, kept a week so that a change a model made, steered by what
// it read, is undone from the model's own tools (bmad-files history, read with a version, restore) even where the
// user's git never saw the file. Kept outside the project, in the user's private folder beside their locks, by the
// project's real path: a folder in the project was reached through a symlink a repository committed, and its copies of
// configs read with their secrets (review 36). Each content is stored once, by its sha256, and `index.jsonl` says which
// file held it and when it was replaced. Bounded: a week, 2,000 entries, 100 entries a file and 100 MiB; once full,
// what is kept stays until its week is out (a model's churn cannot push out the copy of what it first overwrote), and a
// change is not kept. Keeping never fails a change, nor holds it more than a second.
import { createHash, createHmac, randomBytes, randomUUID } from "node:crypto";
import { linkSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, readdir, readFile, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as z from "zod";
import { isConfigShaped } from "../core/catalog/config.js";
import { privateFolder, withFileLock } from "./file-lock.js";

export const KEPT_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;
const INDEX = "index.jsonl";
/** A blob no entry names (a keep cut short) older than this goes. */
const ORPHAN_MS = 60_000;

export interface KeptLimits {
  maxEntries: number;
  maxPerFile: number;
  maxFileBytes: number;
  maxBytes: number;
  keepMs: number;
}
const LIMITS: KeptLimits = { maxEntries: 2000, maxPerFile: 100, maxFileBytes: 10 * 1024 * 1024, maxBytes: 100 * 1024 * 1024, keepMs: KEPT_DAYS * DAY_MS };

/** What stays of `all` (oldest first) within `limits`. Each file keeps its first copy of the week (what a model first
 *  overwrote) and its newest, within its own share; past the whole budget, a file's later copies go first, oldest
 *  first, then first copies, largest first: one file churned cannot push out another's, nor fill the budget so that
 *  nothing more is kept (reviews 36 and 37). */
function within(all: KeptEntry[], limits: KeptLimits): KeptEntry[] {
  const byPath = new Map<string, KeptEntry[]>();
  for (const e of all) byPath.set(e.path, [...(byPath.get(e.path) ?? []), e]);
  const firsts = new Set([...byPath.values()].map((list) => list[0]!));
  const dropped = new Set<KeptEntry>();
  for (const [first, ...rest] of byPath.values()) {
    // The first, then the newest that fit the file's share.
    let count = 1;
    let bytes = first!.size;
    for (const e of rest.reverse()) {
      if (count < limits.maxPerFile && bytes + e.size <= limits.maxFileBytes) (count += 1), (bytes += e.size);
      else dropped.add(e);
    }
  }
  // What is left, counted as stored: a content kept for several entries takes its bytes once.
  const refs = new Map<string, number>();
  let count = 0;
  let bytes = 0;
  for (const e of all.filter((x) => !dropped.has(x))) {
    count += 1;
    if (!refs.get(e.sha256)) bytes += e.size;
    refs.set(e.sha256, (refs.get(e.sha256) ?? 0) + 1);
  }
  const order = [...all.filter((e) => !firsts.has(e) && !dropped.has(e)), ...[...firsts].sort((a, b) => b.size - a.size)];
  for (const e of order) {
    if (count <= limits.maxEntries && bytes <= limits.maxBytes) break;
    dropped.add(e);
    count -= 1;
    refs.set(e.sha256, refs.get(e.sha256)! - 1);
    if (!refs.get(e.sha256)) bytes -= e.size;
  }
  return all.filter((e) => !dropped.has(e));
}

/** A version that names the content of the file at `path`: 48 bits of its sha256, never 0 (0 is "absent"). A config's
 *  names that file instead, keyed with this user's secret: its path, the file it is on disk (`identity`: device and
 *  inode; every write here puts a new one in place) and its content. Served without its secret-looking keys, a config
 *  whose version was a hash of its text let a short secret be guessed offline (review 36), and one keyed by its text
 *  alone, online: the model wrote its guesses to another file and compared their versions, 45 a second (review 39). */
export function contentVersion(data: Uint8Array, path: string, identity: () => string): { version: number; sha256: string } {
  const sha256 = createHash("sha256").update(data).digest("hex");
  const named = isConfigShaped(path) ? createHmac("sha256", versionKey()).update(`${path}\0${identity()}\0`).update(data).digest("hex") : sha256;
  return { version: Number.parseInt(named.slice(0, 12), 16) || 1, sha256 };
}

/** What names a file on disk for a config's version (contentVersion): its device and inode. */
export function fileIdentity(info: { dev: bigint | number; ino: bigint | number }): string {
  return `${info.dev}:${info.ino}`;
}

let key: Buffer | undefined;

/** This user's key for config versions: made once, kept in their private folder, the same for every bridge of theirs. */
function versionKey(): Buffer {
  if (key) return key;
  const file = join(privateFolder("kept"), "version-key");
  // Put in place whole (a link of a file written first), so that another bridge never reads it half written.
  const temp = `${file}.${randomUUID()}.tmp`;
  writeFileSync(temp, randomBytes(32), { mode: 0o600 });
  try {
    linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    rmSync(temp, { force: true });
  }
  const read = readFileSync(file);
  if (read.length !== 32) throw new Error(`${file} is not a version key (32 bytes): remove it, and bmad-mcp makes a new one.`);
  return (key = read);
}

const ENTRY = z.object({
  path: z.string().max(1024),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.number().int().nonnegative(),
  version: z.number().int().positive(),
  at: z.string().max(40),
});
export type KeptEntry = z.infer<typeof ENTRY>;

let swept = false;

/** The private folder of the project at `root` (its real path), made if missing. Once a process, the folders of
 *  projects nothing was kept for in a week go (a project moved or deleted is never asked for again). */
async function folderOf(root: string): Promise<string> {
  const all = privateFolder("kept");
  const dir = join(all, createHash("sha256").update(await realpath(root)).digest("hex").slice(0, 32));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (!swept) {
    swept = true;
    for (const name of await readdir(all)) {
      // Projects' folders only (the version key beside them stays: review 37).
      if (!/^[0-9a-f]{32}$/.test(name) || join(all, name) === dir) continue;
      const used = await stat(join(all, name, INDEX)).catch(() => stat(join(all, name)).catch(() => undefined));
      if (used?.isDirectory() !== false && used && Date.now() - used.mtimeMs > LIMITS.keepMs) await rm(join(all, name), { recursive: true, force: true });
    }
  }
  return dir;
}

/** The index's entries, oldest first; a line that is not one (cut short by a killed bridge) is skipped. */
async function entries(dir: string): Promise<KeptEntry[]> {
  const text = await readFile(join(dir, INDEX), "utf8").catch(() => "");
  return text.split("\n").flatMap((line) => {
    if (!line) return [];
    try {
      const parsed = ENTRY.safeParse(JSON.parse(line));
      return parsed.success ? [parsed.data] : [];
    } catch {
      return [];
    }
  });
}

/** Written whole or not at all, readable by its owner alone. */
async function writePrivate(path: string, data: string | Uint8Array): Promise<void> {
  const temp = `${path}.${randomUUID()}.tmp`;
  await writeFile(temp, data, { mode: 0o600 });
  await rename(temp, path);
}

/** Keeps `bytes`, the content `rel` of the project at `root` held until now (as the file `identity` names), if there is room. */
export async function keep(root: string, rel: string, bytes: Uint8Array, identity: string, now = new Date(), limits = LIMITS): Promise<void> {
  if (bytes.byteLength > limits.maxBytes) return;
  const dir = await folderOf(root);
  const { version, sha256 } = contentVersion(bytes, rel, () => identity);
  await withFileLock(dir, INDEX, async () => {
    const since = now.getTime() - limits.keepMs;
    const all = await entries(dir);
    const live = all.filter((e) => Date.parse(e.at) >= since);
    const stored = new Set(live.map((e) => e.sha256));
    const entry: KeptEntry = { path: rel, sha256, size: bytes.byteLength, version, at: now.toISOString() };
    const kept = within([...live, entry], limits);
    if (kept.includes(entry) && !stored.has(sha256)) await writePrivate(join(dir, sha256), bytes);
    await writePrivate(join(dir, INDEX), kept.map((e) => `${JSON.stringify(e)}\n`).join(""));
    // Content no entry names goes: past its week, or left by a keep cut short between the blob and the index.
    const named = new Set(kept.map((e) => e.sha256));
    const expired = new Set(all.map((e) => e.sha256));
    for (const name of await readdir(dir)) {
      if (!/^[0-9a-f]{64}$/.test(name) || named.has(name)) continue;
      const info = await stat(join(dir, name)).catch(() => undefined);
      if (info && (expired.has(name) || Date.now() - info.mtimeMs > ORPHAN_MS)) await rm(join(dir, name), { force: true });
    }
  }, 1000);
}

/** What the bridge kept of `rel`, newest first. */
export async function keptOf(root: string, rel: string, now = new Date(), limits = LIMITS): Promise<KeptEntry[]> {
  const since = now.getTime() - limits.keepMs;
  return (await entries(await folderOf(root))).filter((e) => e.path === rel && Date.parse(e.at) >= since).reverse();
}

/** The kept copy of `rel` at `version`, its entry and content, if the bridge kept it. */
export async function keptContent(root: string, rel: string, version: number): Promise<{ entry: KeptEntry; data: Uint8Array } | undefined> {
  const entry = (await keptOf(root, rel)).find((e) => e.version === version);
  if (!entry) return undefined;
  const data = await readFile(join(await folderOf(root), entry.sha256)).catch(() => undefined);
  return data && createHash("sha256").update(data).digest("hex") === entry.sha256 ? { entry, data } : undefined;
}
