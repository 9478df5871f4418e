// What `bmad-mcp pull` last brought into a folder, kept in `.bmad-mcp/sync.json` there: which remote and
// project, and for each file the workspace version it was pulled (or pushed) at and the SHA-256 of the bytes
// left on disk. Push and pull compare against it to tell a local change from a remote one. The file is
// parsed with zod when loaded; a broken one is an error naming the file, never trusted. It counts only if this user's
// bridge wrote it: it carries a MAC keyed with the user's own key (user-key.ts), and one without it (committed to the
// repository, copied from someone else, written before bmad-mcp signed them) is taken as no record (review 327: a
// committed record made a first push delete the team's files it listed and send the user's private ones).
import { createHmac, timingSafeEqual } from "node:crypto";
import { parseJsonText } from "./json-text.js";
import * as z from "zod";
import { HISTORY_PAGE, MAX_FILES } from "../core/workspace/limits.js";
import { readConfinedText, writeConfined } from "./confined-fs.js";
import type { Result } from "../core/result.js";
import type { ByOthers } from "../core/workspace/line-authors.js";
import { ABSENT, fileStamp, ignoredByGit } from "./confined-fs.js";
import { checkWorkspacePath } from "../core/workspace/paths.js";
import { mapLimited } from "../core/map-limited.js";
import { type Local, MAX_SENDABLE_HERE, readLocal, sendable, sha256 } from "./sync.js";
import type { RemoteWorkspace } from "./sync-remote.js";
import { userKey } from "./user-key.js";

export const STATE_DIR = ".bmad-mcp" as const;
export const STATE_FILE = `${STATE_DIR}/sync.json`;

export interface SyncedFile {
  /** The workspace version the local copy matches. */
  version: number;
  /** SHA-256 (hex) of the bytes written here. */
  sha256: string;
  /** The remote served this file altered (a config file without its secret-looking keys): never pushed. */
  redacted?: boolean;
  /** Whose lines the remote said the version holds, other than the puller's: the bridge says so of it here. */
  others?: ByOthers;
  /** A structured memory file's: who else wrote each memory they wrote, by memory id (ids outlast edits here). */
  memories_by?: Array<[string, string]>;
}

export interface SyncState {
  remote: string;
  project: string;
  /** By path from the folder (a Map: the keys come from a file). */
  files: Map<string, SyncedFile>;
  /** A pull's writes under way, by path: the SHA-256 of the bytes it writes, and the record they get. A pull killed
   *  midway leaves them; the next takes a file holding those bytes as pulled (review 92: a killed pull's files read as
   *  the user's own, and every later pull refused them once the remote changed them). */
  pending?: Map<string, { written: string; file: SyncedFile }>;
  /** A push's writes under way, by path: the SHA-256 of the text it sends. A push killed midway leaves them; the next
   *  pull or push takes a remote file holding that text as pushed (a killed push's files read as another's on the
   *  remote, and the user's next edit of one as a conflict). One whose landing the remote's history could not tell
   *  stays until a pull or push settles the file (settleSent). */
  sent?: Map<string, string>;
  /** Files that were in the folders sync carries before this folder's first pull of the project (or the pull --force
   *  that made it a copy of this one), which that pull did not bring: the user's own, which push sends only named
   *  (review 211: the next push sent another project's files, and the user's private documents, to every member). By
   *  path, the SHA-256 of its bytes when last seen here (undefined: not known, as a state from before review 216 has
   *  none): push holds a new file with those bytes too, a local-only file moved or copied (review 216: one renamed
   *  went). A path stays until it has a record, gone from here or not (review 216: one away for a push went after). */
  localOnly?: Map<string, string | undefined>;
}

const SHA256 = z.string().regex(/^[0-9a-f]{64}$/);
const OTHERS = z.array(z.object({ by: z.string().min(1).max(300), lines: z.string().max(4000), with_you: z.literal(true).optional() }).strict()).min(1).max(50);
/** The longest names of a memory's other writers the state keeps (SyncedFile.memories_by). */
export const MAX_MEMORY_BY_CHARS = 1000;
/** A path as the workspace takes one: a hand-edited `../outside.md` is refused here, naming this file, rather than at
 *  every pull as a file in the way. */
const PATH = z.string().superRefine((path, ctx) => {
  const checked = checkWorkspacePath(path);
  if (!checked.ok) ctx.addIssue({ code: "custom", message: checked.error });
});
const FILE = { path: PATH, version: z.number().int().min(1), sha256: SHA256, redacted: z.literal(true).optional(), others: OTHERS.optional(), memories_by: z.array(z.tuple([z.string().min(1).max(200), z.string().min(1).max(MAX_MEMORY_BY_CHARS)])).max(MAX_FILES * 10).optional() };
const STATE = z.object({
  format: z.literal(1),
  remote: z.string().min(1),
  project: z.string().min(1),
  files: z.array(z.object(FILE).strict()).max(MAX_FILES),
  pending: z.array(z.object({ ...FILE, written: SHA256 }).strict()).max(MAX_FILES).optional(),
  sent: z.array(z.object({ path: PATH, sha256: SHA256 }).strict()).max(MAX_FILES).optional(),
  // A path alone: written so before review 216, or the bytes are not known.
  local_only: z.array(z.union([PATH, z.object({ path: PATH, sha256: SHA256 }).strict()])).max(MAX_SENDABLE_HERE).optional(),
  /** HMAC-SHA256 (hex) of the rest, as JSON (recordMac). */
  mac: SHA256.optional(),
}).strict();

let macKey: Buffer | undefined;

/** The MAC that says this user's bridge wrote a record: over its JSON without the MAC, with a key of its own drawn from
 *  the user's (never the one config versions are named with, whose outputs the model sees). */
function recordMac(body: unknown): Buffer {
  macKey ??= createHmac("sha256", userKey()).update("bmad-mcp sync record key").digest();
  return createHmac("sha256", macKey).update(JSON.stringify(body)).digest();
}

/** `ignored`: the folder holds a record this user's bridge did not write, taken as none; why, and what to do. */
export type Loaded = Result<{ state: SyncState | undefined; ignored?: string }>;

const IGNORED = `${STATE_FILE} here was not written by your bmad-mcp (committed to the repository, copied from elsewhere, or written by a bmad-mcp from before these records were signed), so it was ignored: the folder counts as never pulled, and the files here as yours alone, which push sends only when named after --force, and nothing here or on the remote is deleted for it. Pull to make a record of your own (pull --force only if you want the remote's files over yours).`;

/** The folder's state: undefined when there is none (never pulled here), or none this user's bridge wrote. */
export async function loadState(dir: string): Promise<Loaded> {
  const read = await readConfinedText(dir, STATE_FILE, { own: ".bmad-mcp" });
  if (!read.ok) return read.code === "missing" ? { ok: true, state: undefined } : { ok: false, error: read.error };
  const json = parseJsonText(read.text);
  const again = "Delete it and pull again (with --force to let the remote's files win).";
  // Said as what it is, not as the schema's "expected object, received undefined" (review 358).
  if (json === undefined) return { ok: false, error: `${STATE_FILE} is unreadable (cut short or not JSON). ${again}` };
  const parsed = STATE.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, error: `${STATE_FILE} is not a state file bmad-mcp wrote (${issue.path.join(".") || "the file"}: ${issue.message.replace(/\.$/, "")}). ${again}` };
  }
  // Over the JSON as read, which keeps the order saveState wrote it in (zod's output follows the schema's).
  const { mac, ...body } = json as Record<string, unknown>;
  if (typeof mac !== "string" || !timingSafeEqual(Buffer.from(mac, "hex"), recordMac(body))) return { ok: true, state: undefined, ignored: IGNORED };
  const files = new Map(parsed.data.files.map(({ path, ...file }) => [path, file]));
  const pending = parsed.data.pending && new Map(parsed.data.pending.map(({ path, written, ...file }) => [path, { written, file }]));
  const sent = parsed.data.sent && new Map(parsed.data.sent.map(({ path, sha256 }) => [path, sha256]));
  const localOnly = parsed.data.local_only && new Map(parsed.data.local_only.map((entry) => (typeof entry === "string" ? [entry, undefined] : [entry.path, entry.sha256])));
  return { ok: true, state: { remote: parsed.data.remote, project: parsed.data.project, files, ...(pending?.size ? { pending } : {}), ...(sent?.size ? { sent } : {}), ...(localOnly?.size ? { localOnly } : {}) } };
}

/** Written atomically (temp file and rename), paths sorted so the file diffs well. */
export async function saveState(dir: string, state: SyncState): Promise<Result> {
  const files = [...state.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([path, file]) => ({ path, ...file }));
  const pending = state.pending?.size ? [...state.pending].map(([path, { written, file }]) => ({ path, ...file, written })) : undefined;
  const sent = state.sent?.size ? [...state.sent].map(([path, sha256]) => ({ path, sha256 })) : undefined;
  const localOnly = localOnlyPaths(state).map((path) => {
    const sha256 = state.localOnly!.get(path);
    return sha256 ? { path, sha256 } : path;
  });
  const whole = { format: 1, remote: state.remote, project: state.project, files, ...(pending ? { pending } : {}), ...(sent ? { sent } : {}), ...(localOnly.length ? { local_only: localOnly } : {}) };
  // Never a file loadState refuses (review 100: a record it could not read stopped every later pull): one that is not
  // is saved without who else wrote what, which only informs.
  const plain = <T extends SyncedFile>({ others: _o, memories_by: _m, ...file }: T) => file;
  const saved = STATE.safeParse(whole).success ? whole : { ...whole, files: files.map(plain), ...(pending ? { pending: pending.map(plain) } : {}) };
  const text = `${JSON.stringify({ ...saved, mac: recordMac(saved).toString("hex") }, null, 1)}\n`;
  const written = await writeConfined(dir, STATE_FILE, text, { own: STATE_DIR });
  if (!written.ok) return { ok: false, error: written.error };
  await ignoredByGit(dir, STATE_DIR);
  return { ok: true };
}

/** The local-only files (SyncState.localOnly) that are still no pulled or pushed file's, sorted: a file that has a
 *  record now is the project's. One by a name no workspace takes is left out: push never sends it, and the state
 *  file holds only paths it reads back. */
export function localOnlyPaths(state: SyncState): string[] {
  return [...(state.localOnly?.keys() ?? [])].filter((path) => !state.files.has(path) && checkWorkspacePath(path).ok).sort();
}

/** What `path` was pulled as, given the file here: what a killed pull was writing (SyncState.pending) when the file
 *  holds those bytes, else its record. Pull and push read a file so alike (review 211: push took a killed pull's files
 *  for the user's changes, and its --force would have brought back a member's deletions). */
export function pulledRecord(state: SyncState | undefined, path: string, local: Local): SyncedFile | undefined {
  const interrupted = state?.pending?.get(path);
  return interrupted && local.kind === "file" && local.sha256 === interrupted.written ? interrupted.file : state?.files.get(path);
}

const READS_AT_ONCE = 8;

/** `here`'s files a push may send (sendable: `here` is every file in the folders sync carries, filesHere), each with
 *  the SHA-256 of its bytes (undefined: too large to read, or not a file as read): what a first pull records as local
 *  only (SyncState.localOnly). */
export async function localOnlyHere(dir: string, here: string[]): Promise<Map<string, string | undefined>> {
  const paths = here.filter(sendable);
  const locals = await mapLimited(paths, READS_AT_ONCE, (path) => readLocal(dir, path));
  return new Map(paths.map((path, i) => {
    const local = locals[i]!;
    return [path, local.kind === "file" ? local.sha256 : undefined];
  }));
}

/** A file's record once the user's own text of it went up (a push): `sha256` at `version`, still naming whose lines
 *  and memories were others' (review 118: after a push, a collaborator's text and memories read as the user's own).
 *  Lines changed here since the pull are "some" of them; memories go by id. */
export function pushedRecord(previous: SyncedFile | undefined, version: number, sha256: string): SyncedFile {
  const others = previous && othersAt(previous, sha256);
  return { version, sha256, ...(others ? { others } : {}), ...(previous?.memories_by ? { memories_by: previous.memories_by } : {}) };
}

/** Records as pushed each file a push cut short was sending (SyncState.sent) at the version that holds that very text,
 *  whatever came after it (review 211: only the remote's version now was compared, so after another member's change on
 *  top the push's own text read as a change here, a memlog merge appended its entries twice, and the --force advised
 *  would have dropped the member's change). The rest keep their record, so what the push did not send is still sent.
 *  One whose history could not tell stays in `sent`, which pull and push then name as not known rather than as a
 *  conflict (review 235: "not found" read as "did not land", and push advised a --force over the user's own text). */
export async function settleSent(state: SyncState, listed: Map<string, { version: number }>, remote: Pick<RemoteWorkspace, "history" | "read">): Promise<void> {
  const since = (path: string) => state.files.get(path)?.version ?? 0;
  const unsure = [...(state.sent ?? [])].filter(([path]) => since(path) !== (listed.get(path)?.version ?? 0));
  const found = await mapLimited(unsure, READS_AT_ONCE, ([path, sent]) => sentVersion(remote, path, sent, since(path), listed.get(path)?.version ?? 0));
  const untold = new Map<string, string>();
  for (const [i, [path, sent]] of unsure.entries()) {
    const version = found[i];
    if (version === "untold") untold.set(path, sent);
    else if (version) state.files.set(path, pushedRecord(state.files.get(path), version, sent));
  }
  if (untold.size) state.sent = untold;
  else delete state.sent;
}

/** Versions without a digest read to find a push's text: a history of a thousand would be a thousand calls. */
const MAX_VERSION_READS = 10;
/** Pages of a file's history read upward from its record to find a push's text: a thousand versions. */
const MAX_SENT_PAGES = 20;

/** The version of `path` after `since` that holds the text whose SHA-256 is `sent`: the oldest, as a push writes with
 *  if_version at the version it read, so its text lands right after it and what follows is others'. Read upward from
 *  `since`, a page at a time (the tool pages down from the version it is given; review 235: read down from the newest,
 *  a member's 1,010 versions hid it). undefined: none holds it, every version up to the newest (`now`, 0: deleted) read;
 *  "untold": the history did not say (longer than the pages read, or answered with a gap). */
async function sentVersion(remote: Pick<RemoteWorkspace, "history" | "read">, path: string, sent: string, since: number, now: number): Promise<number | undefined | "untold"> {
  let reads = 0;
  for (let page = 0, low = since; page < MAX_SENT_PAGES; page++, low += HISTORY_PAGE) {
    const history = await remote.history(path, low, low + HISTORY_PAGE + 1);
    if (!history.ok || !history.value.reached) return "untold";
    // Oldest first. A file's versions run without a gap: an answer with one is not the history asked for.
    const versions = [...history.value.versions].reverse();
    if (versions.some((v, i) => v.version !== low + 1 + i)) return "untold";
    for (const v of versions) {
      if (v.sha256 === sent) return v.version;
      // A config file's history names no digest (it would confirm a removed secret's guess): its text as served tells.
      if (v.sha256 === undefined && v.op !== "delete" && !v.pruned && reads++ < MAX_VERSION_READS) {
        const read = await remote.read(path, v.version);
        if (read.ok && !read.value.redacted && sha256(read.value.bytes) === sent) return v.version;
      }
    }
    if (versions.length < HISTORY_PAGE) return low + versions.length >= now ? undefined : "untold";
  }
  return "untold";
}

/** The pulled files others wrote lines of, by path, as the folder's state says: read again only when it changes. */
const PULLED = new Map<string, { stamp: string; files: Map<string, SyncedFile> }>();

/** What the folder's state says of pulled `path` that others wrote lines of (review 92: a collaborator's text, pulled,
 *  read as the user's own on the bridge); undefined: nobody, or never pulled. */
export async function pulledWithOthers(dir: string, path: string): Promise<SyncedFile | undefined> {
  const stamp = await fileStamp(dir, STATE_FILE);
  let known = PULLED.get(dir);
  if (known?.stamp !== stamp) {
    const loaded = stamp === ABSENT ? undefined : await loadState(dir);
    const files = new Map([...(loaded?.ok && loaded.state ? loaded.state.files : [])].filter(([, f]) => f.others));
    PULLED.set(dir, (known = { stamp, files }));
  }
  return known.files.get(path);
}

/** Who other than the user wrote lines of `path`: the lines the remote named while the file holds the bytes pulled
 *  (`sha256`), "some" once it changed here. */
export async function pulledOthers(dir: string, path: string, sha256: string): Promise<ByOthers | undefined> {
  const file = await pulledWithOthers(dir, path);
  return file && othersAt(file, sha256);
}

/** Whose lines a recorded file holds, now that it holds the bytes `sha256`: as recorded while they are the recorded
 *  bytes, "some" of each once they changed here. */
function othersAt(file: SyncedFile, sha256: string): ByOthers | undefined {
  if (!file.others) return undefined;
  return file.sha256 === sha256 ? file.others : file.others.map((o) => ({ ...o, lines: "some" }));
}
