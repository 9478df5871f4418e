// A workspace on a remote bmad-mcp server, through its own MCP tool (bmad-files list, read, write, delete with
// if_version): what pull and push need, nothing more. Every answer is outside data: parsed with zod, each path
// checked like the workspace checks paths, and the paths that would reach into a repository's machinery
// (.git, this folder's .bmad-mcp) refused, so a hostile server cannot place a file where it must not go.
import { type Client, SdkErrorCode, SdkHttpError, UnauthorizedError } from "@modelcontextprotocol/client";
import * as z from "zod";
import { MAX_FILE_BYTES, MAX_FILES, MAX_LISTED } from "../core/workspace/limits.js";
import { changeRefusal, checkWorkspacePath, foldPath, printable, showTwins, TWIN_DIFFERENCE } from "../core/workspace/paths.js";
import { TOOL } from "../core/surface/names.js";
import { sha256, SYNC_FOLDERS } from "./sync.js";
import { count as n } from "../core/count.js";
import type { Result } from "../core/result.js";
import type { ByOthers } from "../core/workspace/line-authors.js";
import { isOneLine } from "../core/lines.js";
import { changedSinceNote, SHOWN_AUTHORS, SHOWN_VERSIONS } from "../core/workspace/changed-since.js";
import { remoteText } from "./bounded-fetch.js";

export interface RemoteFile {
  path: string;
  version: number;
}
export interface RemoteContent extends RemoteFile {
  bytes: Buffer;
  /** The bytes served are not the bytes stored, as the server says (a config file without its secret-looking keys, a
   *  file that is not UTF-8): pulled as served, never pushed back. */
  redacted: boolean;
  /** Of those, a file that is not UTF-8: its text has U+FFFD where its bytes are not. */
  notUtf8?: boolean;
  /** Who made this version, as the server names them. */
  author?: string;
  /** Someone other than the caller wrote some of it (a server that names line authors says so). */
  byOthers: boolean;
  /** Whose lines, as the server names them. */
  others?: ByOthers;
}
/** `refused`: the remote answered and said no to this one call (a rerun meets the same answer); `denied`: it turned
 *  the request away before any tool ran (a token or sign-in that does not allow it), so nothing changed; otherwise the
 *  call itself failed (the connection, the deadline, another 4xx or a 5xx) and may have done its work. */
export type Remote<T> = Result<{ value: T }, { refused?: true; denied?: true }>;

const LISTING = z.object({ total: z.number().int().min(0), files: z.array(z.object({ path: z.string(), version: z.number().int().min(1) })).max(MAX_FILES), folders: z.array(z.string()).max(MAX_FILES).optional() });
/** Who made a version, as the server names them (one line; another shape is none). */
const AUTHOR = z.string().min(1).max(300).refine(isOneLine).optional().catch(undefined);
/** The caller's own version another's change replaced without naming it, which the server tells once, with a read
 *  (another shape is none). */
const DISPLACED = z.object({ version: z.number().int().min(1), at: z.number().int().min(1), by: z.string().min(1).max(300).refine(isOneLine), readOnly: z.literal(true).optional() }).optional().catch(undefined);
/** What others changed in a file since the caller's own last version (ChangedSince), which the server also tells once,
 *  with a read (another shape is none). */
const CHANGED_SINCE = z
  .object({
    yours: z.number().int().min(1),
    read: z.literal(true).optional(),
    versions: z.array(z.number().int().min(1)).min(1).max(SHOWN_VERSIONS),
    count: z.number().int().min(1),
    by: z.array(z.string().min(1).max(300).refine(isOneLine)).min(1).max(SHOWN_AUTHORS),
    moreBy: z.number().int().min(1).optional(),
    added: z.number().int().min(0).optional(),
    removed: z.number().int().min(0).optional(),
    madeBy: z.array(z.string().min(1).max(300).refine(isOneLine)).max(SHOWN_VERSIONS).optional(),
  })
  .refine((c) => !c.madeBy || c.madeBy.length === c.versions.length)
  .optional()
  .catch(undefined);
/** `sha256` is of the bytes stored, or of the text served where that is not them: `redacted`, a config file served
 *  without its secret-looking keys; `not_utf8`, a file whose text has U+FFFD for bytes that are not UTF-8. `bom`: the
 *  file starts with a byte order mark, which the text served leaves out. */
const READ = z.object({ path: z.string(), version: z.number().int().min(1), sha256: z.string(), redacted: z.boolean().optional(), not_utf8: z.boolean().optional(), bom: z.boolean().optional(), author: AUTHOR, others: z.array(z.unknown()).optional(), changed_by_other: z.boolean().optional(), displaced: DISPLACED, changed_since: CHANGED_SINCE });
/** A line author as the server names one: their label (one line) and the lines, or "all" or "some". */
const OTHER = z.object({ by: z.string().min(1).max(300).refine(isOneLine), lines: z.string().max(4000).regex(/^(all|some|[\d, -]+( \(ranges joined\))?)$/), with_you: z.literal(true).optional() });
const WRITTEN = z.object({ version: z.number().int().min(1) });
/** A file's versions, newest first; `sha256` is of the stored bytes, given of any but a config file's or one whose
 *  content is gone (`pruned`). */
const HISTORY = z.object({ versions: z.array(z.object({ version: z.number().int().min(1), op: z.string(), sha256: z.string().optional(), pruned: z.boolean().optional(), author: AUTHOR })).max(1000), next: z.number().int().min(1).optional() });
/** Pages of a history one call of history() reads at most: a thousand versions, as one answer held before history came in pages. */
const MAX_HISTORY_PAGES = 20;
export type FileVersion = z.infer<typeof HISTORY>["versions"][number];

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const textOf = (result: { content?: unknown }) => ((result.content as Array<{ text?: unknown }> | undefined) ?? []).map((c) => (typeof c.text === "string" ? c.text : "")).join("\n");

const displacedLine = (path: string, d: NonNullable<z.infer<typeof DISPLACED>>): string =>
  `${path}: your version ${d.version} was replaced at v${d.at} by ${d.by}, in a change that named no version it built on; ${TOOL.bmadFiles} read ${path} version ${d.version} on the remote shows yours, ${d.readOnly ? "for someone who can write there to put back" : "to put back"} if it should stay.`;

/** A path from the remote that may be written here, or why not: no machinery (.git, .bmad-mcp, as any OS reads the
 *  name: a planted hook would run on the user's next commit) and nothing that decides what runs. A script comes
 *  only with BMAD's own bytes: pull checks its content. */
export function checkRemotePath(path: string): Remote<string> {
  const checked = checkWorkspacePath(path);
  if (!checked.ok) return { ok: false, error: checked.error };
  const refused = changeRefusal(path, { pulled: true });
  return refused ? { ok: false, error: refused } : { ok: true, value: path };
}

/** Listing calls one pull may make: enough for a full workspace listed folder by folder; a server that keeps
 *  answering "there is more" is stopped here. */
const MAX_LIST_CALLS = 200;
/** How long one pull or push may talk to the remote in all: each call may take the SDK's 60 s, and a pull makes up
 *  to 200 listing calls and a read a file, so a server that answers each call just in time would hold it for hours. */
export const SYNC_DEADLINE_MS = 10 * 60_000;
/** Problems a refused listing names; the rest are counted. */
const MAX_PROBLEMS_SHOWN = 20;

/** Whether everything below `prefix` (a folder's path and "/", or "" for the top) is in a folder sync carries. */
const carried = (prefix: string) => SYNC_FOLDERS.some((folder) => prefix.startsWith(folder));
/** The folders directly below `prefix` on the way to one sync carries (at the top: `_bmad`, `_bmad-output`, `.claude`). */
const towardCarried = (prefix: string) => [...new Set(SYNC_FOLDERS.filter((folder) => folder.startsWith(prefix)).map((folder) => folder.slice(prefix.length).split("/")[0]!))];

/** The server's own refusal of the sign-in or token (what the SDK and token-client.ts throw for its 401 and 403):
 *  no tool ran. Any other 4xx may come from a proxy after it forwarded the call (review 336: a 408 after the write). */
const authRefusal = (error: unknown) =>
  error instanceof UnauthorizedError || (error instanceof SdkHttpError && (error.code === SdkErrorCode.ClientHttpAuthentication || error.code === SdkErrorCode.ClientHttpForbidden));

export class RemoteWorkspace {
  private readonly deadline = AbortSignal.timeout(SYNC_DEADLINE_MS);
  /** What the remote told the user with this command's reads, one line a file: their version another's change replaced
   *  without naming it, or what others changed since their own. The remote tells each once, so the command says it,
   *  whatever else it does (review 355: a pull used it up unseen, the pulled file silently holding the other's version). */
  readonly told = new Map<string, string>();

  /** `signIn`: waits for the browser after the server asked for a new sign-in (bmad:write for a push). */
  constructor(
    private readonly client: Client,
    readonly project: string,
    private readonly signIn: () => Promise<void>,
  ) {}

  private async call(args: Record<string, unknown>): Promise<Remote<{ text: string; structured: unknown }>> {
    let result;
    const request = () => this.client.callTool({ name: TOOL.bmadFiles, arguments: { project: this.project, ...args } }, { signal: this.deadline });
    try {
      try {
        result = await request();
      } catch (error) {
        if (!(error instanceof UnauthorizedError)) throw error;
        await this.signIn();
        result = await request();
      }
    } catch (error) {
      const why = this.deadline.aborted ? `the remote took more than ${SYNC_DEADLINE_MS / 60_000} minutes in all; check that it is up, then run the command again` : remoteText((error as Error).message);
      const failed = `${TOOL.bmadFiles} ${String(args.action)} failed: ${why}`;
      if (this.deadline.aborted || !authRefusal(error)) return { ok: false, error: failed };
      // Still refused after the browser's sign-in: the user allowed less than the call needs.
      const fix = error instanceof UnauthorizedError ? "; sign in again, allowing what it asks (a push needs bmad:write)" : "";
      return { ok: false, error: `${failed}${fix}`, denied: true };
    }
    const text = textOf(result);
    return result.isError ? { ok: false, error: remoteText(text) || "the remote refused without saying why", refused: true } : { ok: true, value: { text, structured: result.structuredContent } };
  }

  private async listGlob(glob: string): Promise<Remote<z.infer<typeof LISTING>>> {
    const out = await this.call({ action: "list", path: glob });
    if (!out.ok) return out;
    const parsed = LISTING.safeParse(out.value.structured);
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: `The remote's file list is malformed (${parsed.error.issues[0]!.message}); is ${TOOL.bmadFiles} on it current?` };
  }

  /**
   * Every file sync carries, by path, and what else the first listing shows. One listing shows at most 1,000 files;
   * past that, in the folders sync carries, the files directly in a folder and each folder holding the rest are listed
   * each on its own, and a listing that still cannot show everything is an error. Elsewhere nothing more is listed: sync
   * leaves those files on the remote (a member's 1,001 files in `junk/`, or in 250 folders, stopped every pull).
   */
  async list(): Promise<Remote<Map<string, RemoteFile>>> {
    const found = new Map<string, RemoteFile>();
    let calls = 0;
    const listGlob = (glob: string) => (++calls > MAX_LIST_CALLS ? undefined : this.listGlob(glob));
    // The folder whose listing named the most folders to walk: where the calls went.
    let widest = { prefix: "", folders: 0 };
    const endless = () => {
      const where = widest.folders ? `, and "${widest.prefix}" has ${n(widest.folders)} of them` : "";
      return `The remote's listing did not settle after ${MAX_LIST_CALLS} calls: past what one listing shows, each folder holding the rest is listed on its own${where}. Nothing was changed. On the remote, move those files into fewer folders or delete what nobody needs (${TOOL.bmadFiles}), then run this again; if it still does not settle, the remote's ${TOOL.bmadFiles} is not current.`;
    };
    const walk = async (prefix: string): Promise<string | undefined> => {
      const all = await listGlob(`${prefix}**`);
      if (!all) return endless();
      if (!all.ok) return all.error;
      if (all.value.total > MAX_FILES) return `The remote lists ${all.value.total} files; a workspace holds at most ${MAX_FILES}.`;
      const add = (files: RemoteFile[]) => files.filter((f) => f.path.startsWith(prefix)).forEach((f) => found.set(f.path, { path: f.path, version: f.version }));
      add(all.value.files);
      if (all.value.files.length >= all.value.total) return undefined;
      // The remote names the folders holding what its listing cut off; an older one only those of the files it shows.
      const named = new Set(all.value.folders ?? all.value.files.map((f) => f.path.slice(prefix.length)).filter((rest) => rest.includes("/")).map((rest) => rest.split("/")[0]!));
      if (!carried(prefix)) {
        // Above the folders sync carries: only the way to them is walked, each one the remote names (any, if it names none).
        for (const folder of towardCarried(prefix)) {
          if (all.value.folders && !named.has(folder)) continue;
          const failed = await walk(`${prefix}${folder}/`);
          if (failed) return failed;
        }
        return undefined;
      }
      const direct = await listGlob(`${prefix}*`);
      if (!direct) return endless();
      if (!direct.ok) return direct.error;
      add(direct.value.files);
      if (named.size > widest.folders) widest = { prefix, folders: named.size };
      for (const folder of named) {
        const failed = await walk(`${prefix}${folder}/`);
        if (failed) return failed;
      }
      const got = [...found.keys()].filter((p) => p.startsWith(prefix)).length;
      if (direct.value.files.length < direct.value.total || got < all.value.total) {
        return `The remote lists ${all.value.total} files under "${prefix}" but shows only ${got} (at most ${n(MAX_LISTED)} at a time, and ${n(MAX_LISTED)} files directly in one folder): move some into subfolders on the remote, or pull with a server whose ${TOOL.bmadFiles} lists them all.`;
      }
      return undefined;
    };
    const failed = await walk("");
    if (failed) return { ok: false, error: failed };
    // Counted over the whole walk too: each listing's total may be small while its folders add up past it.
    if (found.size > MAX_FILES) return { ok: false, error: `The remote lists ${found.size} files in all; a workspace holds at most ${MAX_FILES}. Nothing was changed.` };
    // Every path's problem, not just the first: the user (or the server's admin) fixes them all at once.
    const problems: string[] = [];
    const folded = new Map<string, string>();
    for (const path of found.keys()) {
      const checked = checkRemotePath(path);
      if (!checked.ok) {
        problems.push(`The remote answered with a path that cannot be pulled: ${checked.error}`);
        continue;
      }
      // README.md and readme.md, or a name in NFC and NFD: one file on macOS and Windows, so one would overwrite the other.
      const twin = folded.get(foldPath(path));
      if (twin !== undefined) {
        const shown = showTwins(path, twin, printable);
        problems.push(`The remote lists both "${shown(twin)}" and "${shown(path)}", one file on macOS and Windows, or two that print alike (${TWIN_DIFFERENCE}); rename one on the remote, then pull.`);
      }
      folded.set(foldPath(path), path);
      // "a" and "a/b" both files: no folder can hold that.
      const parts = path.split("/");
      for (let i = 1; i < parts.length; i++) {
        const parent = parts.slice(0, i).join("/");
        if (found.has(parent)) problems.push(`The remote lists both "${printable(parent)}" and "${printable(path)}" as files; one of them cannot be a folder.`);
      }
    }
    if (!problems.length) return { ok: true, value: found };
    // One a line; a hostile listing may hold thousands, and the first few say enough.
    const more = problems.length > MAX_PROBLEMS_SHOWN ? `\n  and ${problems.length - MAX_PROBLEMS_SHOWN} more` : "";
    return { ok: false, error: `${problems.slice(0, MAX_PROBLEMS_SHOWN).join("\n  ")}${more}` };
  }

  /** The file's bytes as served (the tool's text after its one-line header), as it is now or as it was at `version`. */
  async read(path: string, version?: number): Promise<Remote<RemoteContent>> {
    const out = await this.call({ action: "read", path, ...(version === undefined ? {} : { version }) });
    if (!out.ok) return out;
    const meta = READ.safeParse(out.value.structured);
    if (!meta.success || meta.data.path !== path || (version !== undefined && meta.data.version !== version)) return { ok: false, error: `${path}: the remote's answer does not describe this file; nothing was written.` };
    if (meta.data.displaced) this.told.set(path, displacedLine(path, meta.data.displaced));
    else if (meta.data.changed_since) this.told.set(path, `${path}: ${changedSinceNote(meta.data.changed_since)}.`);
    const newline = out.value.text.indexOf("\n");
    const served = Buffer.from(newline < 0 ? "" : out.value.text.slice(newline + 1), "utf8");
    // The byte order mark the text served leaves out goes back: the file's bytes, exactly (review 300: without it a
    // pulled file read as served altered, and every push that touched it was refused as holding secrets).
    const bytes = meta.data.bom ? Buffer.concat([UTF8_BOM, served]) : served;
    if (bytes.length > MAX_FILE_BYTES) return { ok: false, error: `${path}: the remote sent ${bytes.length} bytes; a workspace file holds at most 1 MiB.` };
    // Text that is not the file's bytes, pulled as served and never pushed back: a config without its secrets, or a
    // file that is not UTF-8 (its digest is of bytes no text carries).
    // Not UTF-8 only where the text shows it (U+FFFD): a bare claim turns no digest check off (review 309).
    const notUtf8 = meta.data.not_utf8 === true && served.includes("\uFFFD");
    const altered = meta.data.redacted === true || notUtf8;
    if (!notUtf8 && sha256(meta.data.redacted ? served : bytes) !== meta.data.sha256) return { ok: false, error: `${path}: the remote's copy changed while it was read (what it sent is not what its digest names); nothing was written: pull again.` };
    // Named as the server names them; one it names otherwise is "another member", for all the bridge can tell.
    const others = (meta.data.others ?? []).slice(0, 50).map((o) => OTHER.safeParse(o)).map((o) => (o.success ? o.data : { by: "another member", lines: "some" }));
    return { ok: true, value: { path, version: meta.data.version, bytes, redacted: altered, ...(notUtf8 ? { notUtf8: true } : {}), ...(meta.data.author ? { author: meta.data.author } : {}), byOthers: others.length > 0 || meta.data.changed_by_other === true, ...(others.length ? { others } : {}) } };
  }

  /** The file's version on the remote now (0: there is none), by a listing of its path alone: what a refused read or
   *  write meant (`*` and `?` in a name match other names too, and only this one counts). */
  async version(path: string): Promise<Remote<number>> {
    const listed = await this.listGlob(path);
    return listed.ok ? { ok: true, value: listed.value.files.find((f) => f.path === path)?.version ?? 0 } : listed;
  }

  /** The file's versions after `since` and before `before` (undefined: up to the newest), newest first, page by page
   *  (the tool pages down, from the version it is given). `reached`: the remote said it has none older, down to
   *  `since`; false when the pages ran out first, the older ones unread (review 235: that read as "none there"). */
  async history(path: string, since = 0, before?: number): Promise<Remote<{ versions: FileVersion[]; reached: boolean }>> {
    const versions: FileVersion[] = [];
    let next = before;
    for (let page = 0; page < MAX_HISTORY_PAGES; page++) {
      const out = await this.call({ action: "history", path, ...(next === undefined ? {} : { version: next }) });
      if (!out.ok) return out;
      const parsed = HISTORY.safeParse(out.value.structured);
      if (!parsed.success) return { ok: false, error: `${path}: the remote's history of it is malformed (${parsed.error.issues[0]!.message}).` };
      versions.push(...parsed.data.versions.filter((v) => v.version > since && (before === undefined || v.version < before)));
      next = parsed.data.next;
      if (next === undefined || next <= since + 1) return { ok: true, value: { versions, reached: true } };
    }
    return { ok: true, value: { versions, reached: false } };
  }

  /** A new version of the file, only if it is still at `ifVersion` (0: absent). */
  async write(path: string, text: string, ifVersion: number): Promise<Remote<number>> {
    const out = await this.call({ action: "write", path, content: text, if_version: ifVersion });
    if (!out.ok) return out;
    const parsed = WRITTEN.safeParse(out.value.structured);
    return parsed.success ? { ok: true, value: parsed.data.version } : { ok: false, error: `${path}: written, but the remote did not say which version it is now; pull again.` };
  }

  async remove(path: string, ifVersion: number): Promise<Remote<void>> {
    const out = await this.call({ action: "delete", path, if_version: ifVersion });
    return out.ok ? { ok: true, value: undefined } : out;
  }
}
