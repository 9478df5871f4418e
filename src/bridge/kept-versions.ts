// What the bridge replaced or removed in the project folder, kept a week so that a change a model made, steered by what
// it read, is undone from the model's own tools (bmad-files history, read with a version, restore) even where the
// user's git never saw the file. Kept outside the project, in the user's private folder beside their locks, by the
// project's real path: a folder in the project was reached through a symlink a repository committed, and its copies of
// configs read with their secrets (review 36). Each content is stored once, by its sha256, and `index.jsonl` says which
// file held it and when it was replaced. Bounded: a week, 100 entries a file and 100 MiB, counted by bytes (each copy
// costs at least MIN_COPY_BYTES: 2,000 tiny copies filled an entry cap and locked the user out for a week, review 345).
// A pull may fill 3/4 of it at most (PULL_LIMITS): the rest is the user's own changes' (bmad-files, bmad-run), so a
// collaborator's pull never refuses them. A copy whose bytes a newer copy of the same file begins with (an append-only
// file: a memlog) is stored as that copy's first bytes (`of`), costing the budget only its floor: a 1 MB memlog changed
// by turns kept 104 whole copies and refused every append (review 345). Such a copy of the user's stays as their others
// do: each version history lists stays restorable (review 347: past a file's 100 copies, a restore dropped listed
// versions of the user's own). What the
// bridge did not write itself (the user's work, git's, a pull's) is never pushed out by copies of what it wrote (the
// model's own drafts and churn: review 39): a change whose copy of such content cannot be kept is refused, and so is
// one whose copy cannot be written at all. No change lands without its way back.
import { createHash, createHmac, randomUUID } from "node:crypto";
import { appendFile, mkdir, readdir, readFile, realpath, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as z from "zod";
import { mayServeAsConfig } from "../core/catalog/config.js";
import { MIB } from "../core/workspace/limits.js";
import { changedFailure } from "./confined-fs.js";
import { privateFolder, withFileLock } from "./file-lock.js";
import { userKey } from "./user-key.js";

export const KEPT_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;
const INDEX = "index.jsonl";
/** A blob no entry names (a keep cut short) older than this goes. */
const ORPHAN_MS = 60_000;

export interface KeptLimits {
  /** What each copy costs at least, whatever its size: an index line and a file, and the index's length bounded. */
  minCopyBytes: number;
  maxPerFile: number;
  maxFileBytes: number;
  maxBytes: number;
  keepMs: number;
}
const LIMITS: KeptLimits = { minCopyBytes: 16 * 1024, maxPerFile: 100, maxFileBytes: 10 * 1024 * 1024, maxBytes: 100 * 1024 * 1024, keepMs: KEPT_DAYS * DAY_MS };
/** A pull's: it leaves a quarter of the budget to the user's own changes, which it can never take. */
export const PULL_LIMITS: KeptLimits = { ...LIMITS, maxBytes: LIMITS.maxBytes * 0.75 };

/** What `bytes` stored cost of the budget: at least the floor a copy's entry costs. */
const costOf = (bytes: number, limits: KeptLimits) => Math.max(bytes, limits.minCopyBytes);
/** What a copy costs of the budget: a copy held in a newer one (`of`) only its entry. */
const cost = (e: KeptEntry, limits: KeptLimits) => costOf(e.of ? 0 : e.size, limits);

/** What stays of `all` (oldest first) within `limits`. Copies of content the bridge wrote (`by: "bridge"`) are the
 *  model's own: they go before any other, and only they. Each file keeps its first copy of the week and every copy of
 *  content it did not write, then its newest within its own share; past the whole budget, the bridge's later copies go
 *  first, oldest first, then its first copies, largest first: one file churned cannot push out another's (reviews 36
 *  and 37), nor the model's writes the user's (review 39). Past the budget with none of those left, what is over stays
 *  over: the caller refuses the change (keep). */
function within(all: KeptEntry[], limits: KeptLimits): { kept: KeptEntry[]; fits: boolean } {
  const byPath = new Map<string, KeptEntry[]>();
  for (const e of all) byPath.set(e.path, [...(byPath.get(e.path) ?? []), e]);
  const firsts = new Set([...byPath.values()].map((list) => list[0]!));
  // A copy others are held in stays while they do: its bytes are theirs too.
  const holders = new Set(all.flatMap((e) => (e.of ? [`${e.path}\0${e.of}`] : [])));
  const mayGo = (e: KeptEntry) => e.by === "bridge" && !holders.has(`${e.path}\0${e.sha256}`);
  const dropped = new Set<KeptEntry>();
  for (const [first, ...rest] of byPath.values()) {
    // The first and the user's, then the newest of the bridge's that fit the file's share.
    const stay = rest.filter((e) => !mayGo(e));
    let count = 1 + stay.length;
    let bytes = cost(first!, limits) + stay.reduce((sum, e) => sum + cost(e, limits), 0);
    for (const e of rest.filter(mayGo).reverse()) {
      if (count < limits.maxPerFile && bytes + cost(e, limits) <= limits.maxFileBytes) (count += 1), (bytes += cost(e, limits));
      else dropped.add(e);
    }
  }
  // What is left, each entry counted whole though a content kept for several is stored once: a copy that took no room
  // told a guess that matched a kept config's text from one that did not (review 42).
  let bytes = 0;
  for (const e of all.filter((x) => !dropped.has(x))) bytes += cost(e, limits);
  const bridges = all.filter((e) => e.by === "bridge" && !dropped.has(e) && !holders.has(`${e.path}\0${e.sha256}`));
  const order = [...bridges.filter((e) => !firsts.has(e)), ...bridges.filter((e) => firsts.has(e)).sort((a, b) => b.size - a.size)];
  for (const e of order) {
    if (bytes <= limits.maxBytes) break;
    dropped.add(e);
    bytes -= cost(e, limits);
  }
  return { kept: all.filter((e) => !dropped.has(e)), fits: bytes <= limits.maxBytes };
}

/** A version that names the content of the file at `path`: 48 bits of its sha256, never 0 (0 is "absent"). A config's
 *  names the file instead, keyed with this user's secret: its path and the file it is on disk (`identity`: device,
 *  inode and times; every write here and every editor's save gives a new one), never its text. Served without its
 *  secret-looking keys, a config whose version was a hash of its text let a short secret be guessed offline (review
 *  36), one keyed by its text online (review 39: guesses written to another file, their versions compared), and one
 *  keyed by its text and inode too, where a file system hands a freed inode back (review 41). A data file's too, which
 *  is served so where it holds a secret (review 271: deploy/database.yml's password was found from its version). */
export function contentVersion(data: Uint8Array, path: string, identity: () => string): { version: number; sha256: string } {
  const sha256 = createHash("sha256").update(data).digest("hex");
  const named = mayServeAsConfig(path) ? createHmac("sha256", userKey()).update(`${path}\0${identity()}`).digest("hex") : sha256;
  return { version: Number.parseInt(named.slice(0, 12), 16) || 1, sha256 };
}

/** What names a file as it is on disk: device, inode and its last change and write, to the nanosecond. */
export function fileIdentity(info: { dev: bigint | number; ino: bigint | number; mtimeNs: bigint; ctimeNs: bigint }): string {
  return `${info.dev}:${info.ino}:${info.mtimeNs}:${info.ctimeNs}`;
}

const ENTRY = z.object({
  path: z.string().max(4096),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.number().int().nonnegative(),
  version: z.number().int().positive(),
  at: z.string().max(40),
  /** The content was the bridge's own write (the model's); absent: anyone else's, or not known. */
  by: z.literal("bridge").optional(),
  /** Stored as the first `size` bytes of this newer copy of the same file (it begins with them); absent: whole. */
  of: z.string().regex(/^[0-9a-f]{64}$/).optional(),
});
export type KeptEntry = z.infer<typeof ENTRY>;

/** `written.jsonl`: what the bridge wrote, a line per write (appended, never rewritten but when compacted under the
 *  index's lock): content found there when it is replaced is the model's, not the user's. */
const WRITTEN = "written.jsonl";
/** A note: the path's digest (`p`, so every note is one size: review 42 filled the notes with long paths), the
 *  content's (`s`), the file's identity (`i`) and when. */
const WROTE = z.object({ p: z.string().regex(/^[0-9a-f]{32}$/), s: z.string().regex(/^[0-9a-f]{64}$/), i: z.string().max(120), at: z.string().max(40) });
/** Notes are compacted to each path's last of the week past this size. Never forgotten within the week, whatever their
 *  count (review 41: forgotten, the model's own copies counted as the user's and filled the budget). */
const COMPACT_BYTES = 512 * 1024;
const pathKey = (rel: string) => createHash("sha256").update(rel).digest("hex").slice(0, 32);

let swept = false;

/** The private folder of the project at `root` (its real path), made if missing. Once a process, the folders of
 *  projects nothing was kept for in a week go (a project moved or deleted is never asked for again). */
const folders = new Map<string, Promise<string>>();
function folderOf(root: string): Promise<string> {
  let found = folders.get(root);
  if (!found) folders.set(root, (found = makeFolder(root).catch((error: Error) => (folders.delete(root), Promise.reject(error)))));
  return found;
}

async function makeFolder(root: string): Promise<string> {
  const all = privateFolder("kept");
  const dir = join(all, createHash("sha256").update(await realpath(root)).digest("hex").slice(0, 32));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (!swept) {
    swept = true;
    // Beside the call, not in its way: a cache of 5,671 projects' folders (a machine that runs this suite often) took
    // 1.5 s of stats in front of the first change a bridge made.
    void sweepWhenDue(dir).catch(() => undefined);
  }
  return dir;
}

/** When the last sweep began: its mtime. Not a project's folder (sweepIdle takes only those). */
const SWEPT = ".swept";
/** A sweep at most this often, whichever bridge makes it: a week's idleness is told to within a day. */
const SWEEP_EVERY_MS = DAY_MS;

/** sweepIdle, where no bridge of this user began one within SWEEP_EVERY_MS: each bridge's sweep of 8,218 projects'
 *  folders (a machine that runs this suite often) cost 0.6 s of CPU, three stats a folder, in every bridge that kept
 *  or noted a change. */
export async function sweepWhenDue(current: string, now = Date.now()): Promise<void> {
  const marker = join(privateFolder("kept"), SWEPT);
  const last = await stat(marker).then((i) => i.mtimeMs, () => 0);
  if (now - last < SWEEP_EVERY_MS && last <= now) return;
  await writeFile(marker, "", { mode: 0o600 });
  await utimes(marker, now / 1000, now / 1000);
  await sweepIdle(current, now);
}

/** Removes the folders of projects the bridge neither kept nor wrote anything for in a week, but `current`'s: a project
 *  moved or deleted is never asked for again. A folder's last use is its index's or its notes' last change, else its
 *  own (review 39: the index's own age was never looked at, and copies, raw configs among them, stayed for good). */
export async function sweepIdle(current: string, now = Date.now()): Promise<void> {
  const all = privateFolder("kept");
  for (const name of await readdir(all)) {
    // Projects' folders only (the user's key beside them, user-key.ts, stays: review 37).
    const dir = join(all, name);
    if (!/^[0-9a-f]{32}$/.test(name) || dir === current) continue;
    const times = await Promise.all([INDEX, WRITTEN, "."].map((f) => stat(join(dir, f)).then((i) => i.mtimeMs, () => 0)));
    if (now - Math.max(...times) > LIMITS.keepMs) await withFileLock(dir, INDEX, () => rm(dir, { recursive: true, force: true })).catch(() => undefined);
  }
}

/** A JSON-lines file's rows of `schema`; a line that is not one (cut short by a killed bridge) is skipped. */
async function lines<T>(file: string, schema: z.ZodType<T>): Promise<T[]> {
  return rows(await readFile(file, "utf8").catch(() => ""), schema);
}

function rows<T>(text: string, schema: z.ZodType<T>): T[] {
  return text.split("\n").flatMap((line) => {
    if (!line) return [];
    try {
      const parsed = schema.safeParse(JSON.parse(line));
      return parsed.success ? [parsed.data] : [];
    } catch {
      return [];
    }
  });
}

/** The index's entries, oldest first. */
const entries = (dir: string) => lines(join(dir, INDEX), ENTRY);

/** Notes that the bridge wrote `bytes` to `rel`, which then is the file `identity` names: if that same file is replaced
 *  later, its copy is the model's (keep). A write that changed nothing is not noted (review 41: an empty append made
 *  the user's text look like the bridge's). */
export async function noteWritten(root: string, rel: string, bytes: Uint8Array, identity: string, now = new Date()): Promise<void> {
  const s = createHash("sha256").update(bytes).digest("hex");
  const dir = await folderOf(root);
  const line = `${JSON.stringify({ p: pathKey(rel), s, i: identity.slice(0, 120), at: now.toISOString() })}\n`;
  // Under the index's lock, in the project's queue, as keeps are: a compaction rewrites the notes under that lock, and a
  // note appended meanwhile was lost (review 44), its file's copy then counted as the user's.
  await serially(dir, () => withFileLock(dir, INDEX, () => appendFile(join(dir, WRITTEN), line, { mode: 0o600 })));
}

/** Keeps what `rel` holds (`current`) before `next` replaces it (null: removes it), as the file it is now; nothing where
 *  nothing is there or nothing changes. A config written with its own bytes is kept too: its version names the file, not
 *  the text (contentVersion), so the write answers a new one, and the version it had was read as never kept (review 199:
 *  a restore of a config's current version). Answers the entry it kept, for dropKept. Throws NotKept: the change must
 *  not go ahead. */
export async function keepReplaced(root: string, rel: string, current: Uint8Array | undefined, next: Uint8Array | null, limits = LIMITS): Promise<KeptEntry | undefined> {
  if (!current || (next && sameBytes(current, next) && !mayServeAsConfig(rel))) return undefined;
  // Gone since it was found unchanged (another program removed it): that program's doing, said as changedSince says it,
  // never as a raw ENOENT naming where it was (review 222).
  const info = await stat(join(root, rel), { bigint: true }).catch(() => undefined);
  if (!info) throw new Error(changedFailure(rel).error);
  return keep(root, rel, current, fileIdentity(info), new Date(), limits);
}

/** Takes back `entry`, the copy a change kept that then did not land (another program saved the file between the keep
 *  and the landing): a change that does not land keeps nothing (review 234: 80 refused appends beside a fast writer
 *  kept 333 copies, listed in history as replaced versions, and the full budget then refused every change). Kept first
 *  all the same, so that no change lands without its way back. Its content goes where no other entry names it. */
export async function dropKept(root: string, entry: KeptEntry): Promise<void> {
  const dir = await folderOf(root);
  await serially(dir, () => withFileLock(dir, INDEX, async () => {
    const all = await entries(dir);
    const at = all.findLastIndex((e) => e.path === entry.path && e.sha256 === entry.sha256 && e.at === entry.at);
    if (at < 0) return;
    all.splice(at, 1);
    await writeIndex(dir, all);
    if (!stored(all).has(entry.sha256)) await rm(join(dir, entry.sha256), { force: true });
  }));
}

/** The landing of the change `kept` (keepReplaced's answer) was kept for: where it did not land, whatever stopped it,
 *  the copy is taken back (dropKept), so that history shows no replacement that never happened (review 246). */
export async function landedOrDropped<T extends { ok: boolean }>(root: string, kept: KeptEntry | undefined, landing: () => Promise<T>): Promise<T> {
  const drop = () => (kept ? dropKept(root, kept).catch(() => undefined) : undefined);
  const done = await landing().catch(async (error: unknown) => {
    await drop();
    throw error;
  });
  if (!done.ok) await drop();
  return done;
}

/** Notes the bridge's write of `data` to `rel` (noteWritten), as the file now there. A note that fails costs only this:
 *  the file's later copy counts as the user's. */
export async function noteWrite(root: string, rel: string, data: Uint8Array): Promise<void> {
  const info = await stat(join(root, rel), { bigint: true }).catch(() => undefined);
  if (info) await noteWritten(root, rel, data, fileIdentity(info)).catch(() => undefined);
}

export const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);

/** Runs `work` after every keep and note of the project at `dir` this process started before it. */
function serially<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const done = (queues.get(dir) ?? Promise.resolve()).then(work, work);
  queues.set(dir, done.catch(() => undefined));
  return done;
}

/** The bridge's last note of a write to `rel` within `since`, found from the notes' end: only that line is parsed (a
 *  memlog appended 600 times had each keep parse 600). Past COMPACT_BYTES the notes are compacted to each path's last
 *  of the week (under the index's lock, held by the caller): a week's notes go when it is out (review 42). */
async function lastWritten(dir: string, rel: string, since: number): Promise<z.infer<typeof WROTE> | undefined> {
  const file = join(dir, WRITTEN);
  const text = await readFile(file, "utf8").catch(() => "");
  const all = text.split("\n").filter(Boolean);
  if (text.length > COMPACT_BYTES) {
    const last = new Map<string, z.infer<typeof WROTE>>();
    for (const row of rows(text, WROTE)) if (Date.parse(row.at) >= since) last.delete(row.p), last.set(row.p, row);
    await writePrivate(file, [...last.values()].map((r) => `${JSON.stringify(r)}\n`).join(""));
  }
  // noteWritten writes the path's digest first: a line of another path is told by its start.
  const start = `{"p":"${pathKey(rel)}",`;
  for (let i = all.length - 1; i >= 0; i--) {
    if (!all[i]!.startsWith(start)) continue;
    try {
      const row = WROTE.safeParse(JSON.parse(all[i]!));
      if (row.success) return Date.parse(row.data.at) >= since ? row.data : undefined;
    } catch {
      // A line cut short by a killed bridge: an earlier one may still say.
    }
  }
  return undefined;
}

/** The model's own write only where the file is the very one the bridge put there, unchanged since (its content and its
 *  identity): anything else (the user's save, an editor's undo to the same text) is someone else's. */
const isBridgeWrite = (noted: z.infer<typeof WROTE> | undefined, sha256: string, identity: string) => noted?.s === sha256 && noted.i === identity.slice(0, 120);

const writeIndex = (dir: string, kept: KeptEntry[]) => writePrivate(join(dir, INDEX), kept.map((e) => `${JSON.stringify(e)}\n`).join(""));

/** Written whole or not at all, readable by its owner alone. */
async function writePrivate(path: string, data: string | Uint8Array): Promise<void> {
  const temp = `${path}.${randomUUID()}.tmp`;
  await writeFile(temp, data, { mode: 0o600 });
  await rename(temp, path);
}

/** Why a change was refused: what it would replace could not be kept (no room but the user's own copies, or the copy
 *  could not be written), and a change without its way back does not land. */
export class NotKept extends Error {}

const budget = (limits: KeptLimits) => `${Math.round(limits.maxBytes / MIB)} MiB of copies (each counted as ${limits.minCopyBytes / 1024} KiB at least)`;
/** What to do when the copies of other work fill the budget, and only what frees room (review 345: "commit to git" freed
 *  nothing). Never "remove the folder": its copies may be the only ones of files a change replaced or deleted (review
 *  175: a pull's 2,000 deleted files were kept there alone). */
const FULL_ADVICE = (dir: string) => `Room comes back as each copy's week is out; sooner, the user can look through the copies in ${dir} (index.jsonl names each one's file) and remove those they no longer need, then try again. Never remove the folder whole: its copies may be the only ones of files changes replaced or deleted.`;

/** The blobs the entries name: their own content's, or the newer copy's they are held in. */
const stored = (all: KeptEntry[]) => new Set(all.map((e) => e.of ?? e.sha256));

/** A copy a change would keep: what `path` holds now, before the change replaces or removes it. */
export interface Replaced {
  path: string;
  bytes: Uint8Array;
}

/** The room the copies kept now leave, for a plan of many changes to know before it makes any which of them can keep
 *  what they replace (review 175: a pull found out midway, after deleting 2,000 of the user's files). Counted as keep
 *  counts: copies of work the bridge did not write hold room; its own make way, and a copy of its own write needs none.
 *  Another bridge's keeps meanwhile can still take the room: keep refuses then, as ever. */
export interface KeptRoom {
  /** Takes room for every copy of `copies` (one change's, whole), or for none and says false. */
  take(copies: Replaced[]): Promise<boolean>;
  /** How much room is left, and of what, for a message: "3 more copies (99.9 MiB) of the …". */
  left(): string;
}

export async function keptRoom(root: string, now = new Date(), limits = LIMITS): Promise<KeptRoom> {
  const dir = await folderOf(root);
  const since = now.getTime() - limits.keepMs;
  // Read without the lock: the index and compacted notes are put in place whole, and a note cut short is skipped.
  const theirs = (await entries(dir)).filter((e) => Date.parse(e.at) >= since && e.by !== "bridge");
  let bytes = theirs.reduce((sum, e) => sum + cost(e, limits), 0);
  const notes = new Map<string, z.infer<typeof WROTE>>();
  for (const row of await lines(join(dir, WRITTEN), WROTE)) notes.set(row.p, row); // each path's last
  const mine = async ({ path, bytes: data }: Replaced) => {
    const noted = notes.get(pathKey(path));
    const info = noted && Date.parse(noted.at) >= since ? await stat(join(root, path), { bigint: true }).catch(() => undefined) : undefined;
    return info !== undefined && isBridgeWrite(noted, createHash("sha256").update(data).digest("hex"), fileIdentity(info));
  };
  return {
    async take(copies) {
      const needed = [];
      for (const copy of copies) if (!(await mine(copy))) needed.push(copy);
      const more = needed.reduce((sum, c) => sum + costOf(c.bytes.byteLength, limits), 0);
      if (bytes + more > limits.maxBytes) return false;
      bytes += more;
      return true;
    },
    left: () => `${(Math.max(0, limits.maxBytes - bytes) / MIB).toFixed(1)} MiB more of the ${budget(limits)} it keeps a week for a pull`,
  };
}

/** The projects' folders this process has looked through for content no entry names. */
const orphansSought = new Set<string>();

/** Keeps of one project, one at a time in this process: a lock wait is only ever for another bridge's (review 39: 120
 *  writes at once timed keeps out, and their changes landed with no copy). */
const queues = new Map<string, Promise<unknown>>();

/** Keeps `bytes`, the content `rel` of the project at `root` held until now (as the file `identity` names). Throws
 *  NotKept where that content is not the bridge's own write and cannot be kept: the change must not go ahead. A copy
 *  of the bridge's own write (the model's) is kept where there is room, and skipped where there is none. Answers the
 *  entry kept (none: skipped). */
export async function keep(root: string, rel: string, bytes: Uint8Array, identity: string, now = new Date(), limits = LIMITS): Promise<KeptEntry | undefined> {
  const dir = await folderOf(root);
  const { version, sha256 } = contentVersion(bytes, rel, () => identity);
  const run = async () => withFileLock(dir, INDEX, async () => {
    await mkdir(dir, { recursive: true, mode: 0o700 }); // removed meanwhile (by the user, to start afresh)
    const since = now.getTime() - limits.keepMs;
    const all = await entries(dir);
    const fresh = all.filter((e) => Date.parse(e.at) >= since);
    const blobs = stored(fresh);
    const live = await heldIn(dir, fresh, rel, bytes, sha256);
    const mine = isBridgeWrite(await lastWritten(dir, rel, since), sha256, identity);
    const entry: KeptEntry = { path: rel, sha256, size: bytes.byteLength, version, at: now.toISOString(), ...(mine ? { by: "bridge" as const } : {}) };
    // An entry the index would not read back (a path past its bound) would lose its copy at the next keep (review 41).
    if (!ENTRY.safeParse(entry).success) throw new NotKept(`the bridge cannot keep a copy of a file by a path this long: this change was not made.`);
    const { kept, fits } = within([...live, entry], limits);
    if (!fits || !kept.includes(entry)) {
      if (mine) return undefined;
      throw new NotKept(`the bridge keeps a week of what changes replace, ${budget(limits)}, and what this one would replace no longer fits beside the copies of other work it holds: this change was not made. ${FULL_ADVICE(dir)}`);
    }
    if (!blobs.has(sha256)) await writePrivate(join(dir, sha256), bytes);
    await writeIndex(dir, kept);
    // Content no entry names goes: what the index named until now (past its week, or evicted) at once, and what a keep
    // cut short between the blob and the index left, looked for once a process (a look at every blob each keep was
    // most of a keep's time with a full index).
    const named = stored(kept);
    for (const name of stored(all)) if (!named.has(name)) await rm(join(dir, name), { force: true });
    if (!orphansSought.has(dir)) {
      orphansSought.add(dir);
      for (const name of await readdir(dir)) {
        // A temp file a killed bridge left between its write and its rename goes too (review 58: full copies, uncounted).
        if (!/^([0-9a-f]{64}|.+\.[0-9a-f-]{36}\.tmp)$/.test(name) || named.has(name)) continue;
        const info = await stat(join(dir, name)).catch(() => undefined);
        if (info && Date.now() - info.mtimeMs > ORPHAN_MS) await rm(join(dir, name), { force: true });
      }
    }
    return entry;
  }).catch((error: Error) => {
    throw error instanceof NotKept ? error : new NotKept(`the bridge could not keep a copy of what this change replaces (${error.message}): this change was not made.`);
  });
  return serially(dir, run);
}


/** `live`, with the copies of `rel` that `bytes` (its newest, `sha256`) begins with held in it (`of`): the last copy
 *  stored whole is read, and where it is a prefix, it and those held in it are. A config's never are: how much room a
 *  guess written to it took would tell how its text begins (review 42). */
async function heldIn(dir: string, live: KeptEntry[], rel: string, bytes: Uint8Array, sha256: string): Promise<KeptEntry[]> {
  const last = live.findLast((e) => e.path === rel && !e.of);
  if (!last || mayServeAsConfig(rel) || last.sha256 === sha256 || last.size >= bytes.byteLength) return live;
  const before = await readFile(join(dir, last.sha256)).catch(() => undefined);
  if (!before || before.byteLength !== last.size || !sameBytes(before, bytes.subarray(0, last.size))) return live;
  return live.map((e) => (e.path === rel && (e === last || e.of === last.sha256) ? { ...e, of: sha256 } : e));
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
  const data = await readFile(join(await folderOf(root), entry.of ?? entry.sha256)).then((d) => d.subarray(0, entry.size), () => undefined);
  return data && createHash("sha256").update(data).digest("hex") === entry.sha256 ? { entry, data } : undefined;
}
