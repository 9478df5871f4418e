// Project workspaces as the surface sees them: storage only (the installer and rendering live elsewhere).
// A store is bound to one caller; it resolves what they call a project (their own, or one shared with them that
// they accepted) and every answer about a project they cannot see is "not found", the same as for one that does
// not exist. A share is an offer until its recipient accepts it: an offer grants nothing.
import type { ProjectMemory } from "../memory/store.js";
import type { InstallerAnswers } from "./installer.js";
import type { Failure, Result } from "../result.js";
import type { TextEdit, TextEdited } from "../runtime/fs.js";
import type { ByOthers } from "./line-authors.js";
import type { ChangedSince } from "./changed-since.js";
import type { TextWrite } from "./file-text.js";
import type { ConfigFile } from "./setup.js";

export type Access = "owner" | "write" | "read";
/** A project the caller was given read access to: its name and owner. */
export interface ReadOnlyAccess { name: string; owner: string }
export type ShareAccess = "read" | "write" | "none";

/** `no_project`: the caller can see no project by that name, in the same words whether or not one exists. */
export type WsError = Failure<{ kind: "no_project" | "not_found" | "conflict" | "limit" | "denied" | "invalid" }>;
export type WsResult<T> = Result<{ value: T }, { kind: WsError["kind"] }>;

export interface ProjectSummary {
  /** What to pass as `project`: the name, or `name@tag` for a shared project whose name the caller also uses. */
  project: string;
  name: string;
  /** The owner as sign-in knows them (email or user id); "you" for the caller's own. */
  owner: string;
  access: Access;
  created_at?: string;
  /** An offer the caller has not accepted: it grants nothing until they do. */
  pending?: true;
  /** The name that means this project alone (`name@tag`), kept by what must not move to another project of the name. */
  ref?: string;
  /** Another's project whose owner no longer passes this server's access rules: nobody can do what only they do. */
  owner_not_allowed?: true;
}

export interface ProjectInfo extends ProjectSummary {
  created_at: string;
  answers: InstallerAnswers;
  /** The IANA zone of the times scripts write here; absent: UTC (DEFAULT_TIME_ZONE). */
  time_zone?: string;
  /** Who set time_zone, where someone other than the caller and the owner did. */
  time_zone_by?: string;
  files: number;
  bytes: number;
  /** `bytes` leaves config-shaped files out (a collaborator's view: their raw sizes are the owner's). */
  configs_not_counted?: true;
  /** The owner sees whom they share with. */
  shares?: Array<{ with: string; access: "read" | "write"; pending?: true }>;
  /** Answers (`module.key`) someone other than the caller (and the owner) last set, and who. */
  answersByOthers?: Array<{ key: string; who: string }>;
}

export interface FileEntry {
  path: string;
  version: number;
  size: number;
  sha256: string;
  updated_at: string;
  /** Who made this version; none where the store cannot know (the bridge: any program may write the folder). */
  author?: string;
}

/** Who made a version and when: "by Ada at …", or "changed at …" where the store cannot know who (the bridge: review
 *  224, a file the installer wrote read as the model's own). */
export const byAt = (author: string | undefined, at: string): string => (author === undefined ? `changed at ${at}` : `by ${author} at ${at}`);

/** A stored time as `files` shows it: the bridge's on the machine's clock, a workspace's in its project's zone. */
export const shownAt = (files: Pick<WorkspaceFiles, "showTime">, at: string): string => files.showTime?.(at) ?? at;

/** A change that named version `ifVersion` of `path`, now at `current`, refused: the version there, who made it ("you"
 *  where the caller did) and when, as the workspace's own conflicts say it (review 322: an edit's and a board move's
 *  said neither). */
export function staleVersion(files: Pick<WorkspaceFiles, "showTime">, path: string, current: Pick<FileContent, "version"> & Partial<Pick<FileContent, "updated_at" | "author" | "changed_by_other">>, ifVersion: number): string {
  const who = current.author !== undefined && !current.changed_by_other ? "you" : current.author;
  const made = current.updated_at === undefined ? "" : ` (${byAt(who, shownAt(files, current.updated_at))})`;
  return `${path} is at version ${current.version}${made}, not ${ifVersion}`;
}

/** `row`, and where `files` shows times otherwise (the bridge: its machine's clock; a workspace: its zone) its `field` so shown, as
 *  `<field>_local`: a view shows a time as the text answer does (review 281: the bridge's view read UTC, unlabelled,
 *  5½ hours from the header's local time). `field` itself stays UTC: programs read it. */
export function withShownTime<T extends object>(files: Pick<WorkspaceFiles, "showTime">, row: T, field: keyof T & string): T {
  const shown = files.showTime?.(String(row[field]));
  return shown === undefined ? row : { ...row, [`${field}_local`]: shown };
}

/** How many versions of `path` older than `version` a workspace keeps, counted up to `page`; undefined past a page
 *  (or where the history cannot be read). Counted, never read off the numbers: rows dropped whole under the history
 *  cap leave gaps (reviews 253 and 255: "60 older" said of 14 kept). */
export async function olderKept(files: WorkspaceFiles, path: string, version: number, page: number): Promise<number | undefined> {
  const below = await files.history(path, { before: version, limit: page + 1 });
  return below.ok && below.value.length <= page ? below.value.length : undefined;
}

/** A file's entry where every version names its author (the Worker's). */
export type AuthoredEntry = FileEntry & { author: string };

/** A file as a listing shows it; `updated_at` where the store knows it without reading (a local store's listing). */
export type ListedFile = Pick<FileEntry, "path" | "version" | "size"> & { updated_at?: string };
/** A listing; `cut`: why it is not whole (a walk's cap was reached), said once in the answer; `leftOut`: lines saying
 *  what it found and does not list, and why. */
export type Listing = WsResult<ListedFile[]> & { cut?: string; leftOut?: string[] };

/** Why a listing's walk stopped short, and what it left out, as lines an answer says them in. */
export const shortOf = ({ cut, leftOut }: Pick<Listing, "cut" | "leftOut">): string[] => [...(cut ? [`Listing cut short: ${cut}.`] : []), ...(leftOut ?? [])];

/** A write's new version; `replaced` (a write) or `followed` (an append): the version it replaced or came after, where
 *  another person made it and the change named none (`ifVersion`), so its writer may not have read it. */
export interface WrittenEntry extends FileEntry {
  replaced?: { version: number; by: string };
  followed?: { version: number; by: string };
}

/** A deletion's version; `replaced`: as a write's, the others' work it took where the change named no version. */
export type RemovedEntry = { path: string; version: number } & Pick<WrittenEntry, "replaced">;

/** A file deleted and not brought back: its deletion's version (the one before holds its content), who deleted it
 *  and when (stored UTC). */
export interface DeletedFile { path: string; version: number; by: string; at: string }

/** `served: false`: a look the tools take for themselves, none of it shown to the model. The bridge remembers what it
 *  served each file at, so that a write over another version since says so (WrittenEntry). `notes`: bmad-files
 *  read's, which tells the reader, once, of their version another's change replaced (FileContent.displaced).
 *  `shown`: the answer shows the model the head's changed_since (bmad-files read, bmad-doc): what others changed up to
 *  it counts as seen, and is not told again (review 385). Neither is used up by a token that may change nothing
 *  (bmad:read: review 349, its read deleted the note; review 415, it marked changes seen): the store knows its token. */
export type ReadOptions = { served?: boolean; notes?: true; shown?: true };

export interface FileContent extends FileEntry {
  data: Uint8Array;
  /** Its lines someone other than the reader wrote or had a hand in (a shared workspace's; none: the reader's own). */
  others?: ByOthers;
  /** Someone other than the reader made this version, even where no line of it is theirs (they only removed lines). */
  changed_by_other?: true;
  /** The reader's version of this file that another's change replaced without naming it (if_version): told once. */
  displaced?: Displaced;
  /** Versions others made since the reader's own last one (the head's only): a removal names no line of theirs. */
  changed_since?: ChangedSince;
}

/** A version of one person's that `by`'s change `at` replaced, that change not having named it. */
/** `readOnly`: the reader may not write here now, to put their version back. */
export type Displaced = { version: number; at: number; by: string; readOnly?: true };

/** How a version was made. Read from storage as stored: a row from code that named ops otherwise still reads. */
export type VersionOp = "create" | "write" | "append" | "edit" | "restore" | "delete" | "config";

/** Which of a file's versions a history answer lists: those older than `before` (a version it listed), at most `limit`. */
export interface HistoryPage {
  before?: number;
  limit?: number;
}

/** A file as history with a glob lists it: its head, who made it and when (stored UTC), and what others changed since
 *  the caller's own last version. */
export interface ChangedFile { path: string; version: number; author: string; at: string; changed_since?: ChangedSince }

export interface VersionEntry {
  version: number;
  op: VersionOp;
  size: number;
  /** As FileEntry's. */
  author?: string;
  at: string;
  sha256?: string;
  restored_from?: number;
  /** Its content cannot be read: dropped to keep history within MAX_HISTORY_BYTES, or purged by the owner. */
  pruned?: boolean;
  /** Purged, and kept for unpurge a while. */
  purged?: boolean;
  /** The bridge's kept copy: `at` is when a change replaced or removed it, not when it was written. */
  kept?: true;
}

/** After a version's number where it is not the file's version now (`current`, 0: deleted): said alike by bmad-doc's
 *  answer and its view (review 215: an earlier version's header read as the file's). */
export const earlierThan = (version: number, current: number): string =>
  version === current ? "" : ` (earlier: ${current ? `the file is at version ${current}` : "the file is deleted now"})`;

/** What readMany answers: `trees` null where a folder holds too many files to list; `stamp` names all of it, and
 *  changes exactly when any of it does. */
export interface ManyRead {
  stamp: string;
  files: Array<Uint8Array | "dir" | null>;
  /** Each file's version (0: not a file), so a change to one can be a compare-and-set without reading it again. */
  versions: number[];
  /** The project's time zone (null: none set), which the scripts that write a time need. */
  timeZone: string | null;
  /** For each of `files`, who other than the caller wrote lines of it, and which (null: nobody, or no file): a render
   *  says whose its customization is. */
  others?: Array<ByOthers | null>;
  /** For each of `files`, the versions others made since the caller's own last one (null: none). */
  changed_since?: Array<ChangedSince | null>;
  /** Installer answers (`module.key`) someone other than the caller last set, and who. */
  answersByOthers?: Array<{ key: string; who: string }>;
  /** The caller may only read here: the project's name and its owner, which a render names. */
  readOnly?: ReadOnlyAccess;
  trees: Array<{ paths: string[]; versions: number[] } | null>;
}

/** One project's files for one caller. Paths are relative to the project root and checked (paths.ts). */
export interface WorkspaceFiles {
  /** As the caller named it. */
  readonly project: string;
  /** After a change made through this object in a project someone else owns: that owner, as sign-in names them, so
   *  that its answer says whose project it changed. Undefined in the caller's own (and on the bridge). */
  changeOwner?(): string | undefined;
  /** A stored time (UTC) as answers show it, where the store shows times otherwise (the bridge: the machine's clock,
   *  as BMAD's scripts and {date} are; a workspace: its project's zone, as its scripts write, once an answer about the
   *  project gave it: undefined before). Structured fields keep the stored time: programs read them. */
  showTime?(iso: string): string | undefined;
  /** The file now, or an earlier `version` of it. */
  read(path: string, version?: number, options?: ReadOptions): Promise<WsResult<FileContent>>;
  /** Several files in one call: each one's bytes, "dir" or null (none), and the files below each of `trees`. */
  readMany?(paths: string[], trees?: string[]): Promise<WsResult<ManyRead>>;
  /** The first `head` or last `tail` bytes of each of `paths` (missing ones left out), in one call: what a look at
   *  frontmatter or a log's last lines needs, not whole files a collaborator may have filled (review 20). */
  peek(paths: string[], part: { head: number } | { tail: number }): Promise<WsResult<FileContent[]>>;
  /** The caller was shown what others changed in these files (ChangedSince) up to `version` (toldUpTo), which is
   *  not told again. Stores that tell no such change (the bridge) have none. */
  markSeen?(shown: Array<{ path: string; version: number }>): Promise<WsResult<null>>;
  /** When one of its files last changed (null: none is there), which orders a caller's projects in status answers;
   *  stores with one project (the bridge) have none. */
  lastChanged?(): Promise<WsResult<string | null>>;
  /** The project's time zone as info gives it (null: none set), alone. */
  timeZone?(): Promise<WsResult<string | null>>;
  /** Creates or replaces the file as a new version. `ifVersion` 0: only if it does not exist. `text`: the model's text
   *  as bmad-files writes it, whole or appended (file-text.ts textBytes, refused over a file that is not UTF-8 unless
   *  `ifVersion` names it); without it `data` is the file's bytes (a script's). `alsoBy`: others whose text the new
   *  content came from (a script that read their lines), named with the writer. `edit`: bmad-files "edit"'s change,
   *  which history names so where it names how a version was made. */
  write(path: string, data: Uint8Array, options?: { text?: TextWrite; ifVersion?: number; alsoBy?: string[]; edit?: true }): Promise<WsResult<WrittenEntry>>;
  /** Replaces the file with what `next` makes of its bytes now (undefined: missing), the two under the lock its writes
   *  take, and `ifVersion` checked there: a change made from what another writer left queues behind that writer
   *  rather than losing to it. Stores without it (a workspace): read, then write with `ifVersion`, again on a conflict. */
  update?(path: string, next: (current: Uint8Array | undefined) => WsResult<Uint8Array>, ifVersion?: number): Promise<WsResult<WrittenEntry>>;
  /** Applies `edit` to the text file at `path` and stores the result as a new version, in one step where the file
   *  is kept: what the edit tells, or null where it did not apply (the file is missing, not UTF-8, not what the edit
   *  expects, or the change passes a limit), nothing changed. */
  edit?(path: string, edit: TextEdit, alsoBy?: string[]): Promise<WsResult<TextEdited | null>>;
  /** Creates folder `dir` holding `files` (paths relative to it) as one change, all or none; `conflict` when
   *  anything is at `dir` already. How a script publishes a folder that must appear whole. */
  createFolder(dir: string, files: Array<{ path: string; data: Uint8Array }>, alsoBy?: string[]): Promise<WsResult<{ files: number }>>;
  /** A new version with `version`'s content; refused over a file that is not UTF-8 unless `ifVersion` names it. */
  restore(path: string, version: number, ifVersion?: number): Promise<WsResult<WrittenEntry>>;
  /** Removes the file; its history stays, and restore brings it back. */
  remove(path: string, ifVersion?: number): Promise<WsResult<RemovedEntry>>;
  /** Removes the files `glob` matches that the caller may remove, at most 1,000 (`more`: those left past it; `held`:
   *  matches they may not remove), each as remove does. Stores whose deletes keep no history (the bridge) have none. */
  removeMatching?(glob: string): Promise<WsResult<{ files: number; more: number; held: number }>>;
  /** Files below `folders` deleted since `since` (ISO) and not brought back, newest first, at most DELETED_SHOWN.
   *  Stores whose deletes keep no history (the bridge) have none. */
  deletedSince?(folders: string[], since: string): Promise<WsResult<DeletedFile[]>>;
  /** Newest first: at most `limit` (default HISTORY_PAGE) of those older than version `before` (default: all). */
  history(path: string, page?: HistoryPage): Promise<WsResult<VersionEntry[]>>;
  /** The files `glob` matches, the newest change first, at most HISTORY_PAGE (`more`: those past it), each with what
   *  others changed since the caller's own last version. Stores without versions (the bridge) have none. */
  changes?(glob: string): Promise<WsResult<{ files: ChangedFile[]; more: number }>>;
  /** Owner only: drops the content of the earlier versions of the files `glob` matches (heads stay). Stores
   *  without history (the bridge: it is the user's git) have none. */
  purge?(glob: string): Promise<WsResult<{ versions: number; bytes: number; until?: string }>>;
  /** Owner only: brings back what purge took from the files `glob` matches (only `version` of them, where given),
   *  while it is kept (`until`). */
  unpurge?(glob: string, version?: number): Promise<WsResult<{ versions: number; bytes: number }>>;
  /** Current files, by path; `glob` as compileGlob reads it. */
  list(glob?: string): Promise<Listing>;
  /** "" is the project root (a directory). Directories are implicit: one exists while a file is below it. */
  stat(path: string): Promise<WsResult<"file" | "dir" | "missing">>;
  /** Names of a directory's direct children ("" for the root). */
  children(dir: string): Promise<WsResult<string[]>>;
  /** Where `path` is missing here and this project's bare name hides one shared with the caller (their own of that
   *  name took it), that shared project if it holds `path`: its name to pass and its owner. Stores without shares (the
   *  bridge) have none. */
  sharedHolding?(path: string): Promise<{ project: string; owner: string } | undefined>;
}

/** What a config change wrote: `changed`, the files it rewrote; `kept`, those of them someone had edited by hand, whose
 *  edits it kept (`by`: who, "you" for the caller), as only the answer's lines changed. */
export interface Configured {
  changed: string[];
  kept?: Array<{ path: string; by: string[] }>;
}

/** A store's files that read several in one call (the Worker's). */
export type ManyReadingFiles = WorkspaceFiles & Required<Pick<WorkspaceFiles, "readMany" | "timeZone">>;

export interface WorkspaceStore {
  /** The caller's own projects, then those shared with them that they accepted. */
  projects(): Promise<ProjectSummary[]>;
  /** Shares offered to the caller and not yet accepted (each `pending`), with who offers them. */
  offers(): Promise<ProjectSummary[]>;
  /** Offers waiting that offers() leaves out (it lists the newest MAX_OFFERS_SHOWN). */
  offersLeftOut?(): Promise<number>;
  /** The caller's deleted projects still kept, and until when (undelete brings one back). */
  deleted?(): Promise<Array<{ name: string; until: string }>>;
  /** The offer `project` names, as accept finds it; its `project` is the reference that names that offer alone. */
  offer(project: string): Promise<WsResult<ProjectSummary>>;
  /** The caller accepts the share of `project` (as offers names it): from then on it grants its access. */
  accept(project: string): Promise<WsResult<ProjectSummary>>;
  /** The caller declines the share of `project`, or leaves a shared project they accepted. */
  decline(project: string): Promise<WsResult<{ name: string; owner: string }>>;
  /** A new project owned by the caller, with these files as their first versions (`timeZone`: checked, IANA). */
  create(name: string, answers: InstallerAnswers, files: Map<string, string>, timeZone?: string): Promise<WsResult<ProjectSummary>>;
  info(project: string): Promise<WsResult<ProjectInfo>>;
  /** Stores new answers (and a time zone, if given) and writes the files that differ, in one step, if the answers are
   *  still `read` (those the new ones were made from; else a conflict: read them again). A file edited by hand since
   *  `read` made it gets only the answers' lines (config-merge.ts), or nothing is written. Owner or writer. */
  configure(project: string, read: InstallerAnswers, answers: InstallerAnswers, files: Map<string, ConfigFile>, timeZone?: string): Promise<WsResult<Configured>>;
  /** Owner only; `confirm` must be the project's name. */
  remove(project: string, confirm: string): Promise<WsResult<{ name: string; files: number; until?: string }>>;
  /** Owner only: a project they deleted, back while it is kept (unshared). */
  undelete(project: string): Promise<WsResult<ProjectSummary>>;
  /** Owner only. `withWho`: an email or a user id as sign-in knows it. `unnamed`: after withdrawing a share accepted
   *  before shares said by whom, the accepted shares left, which may reach the same person. */
  share(project: string, withWho: string, access: ShareAccess): Promise<WsResult<{ with: string; access: ShareAccess; previous: ShareAccess; unnamed?: string[] }>>;
  files(project: string): WorkspaceFiles;
  /** The project's memory (seed 001), where the store keeps it (the bridge keeps it in its files instead). */
  memory?(project: string): ProjectMemory;
  /** The bridge's project folder, the one project there: its config is its own files, not installer answers. */
  readonly folder?: string;
}

/** An offer as the answers that meet one show it, and what to do with it: it grants nothing until accepted, and only the
 *  user decides, so the model asks them (bmad-project's list, and a name that means only an offer). */
export const shownOffer = (p: ProjectSummary): string => withOwnerNote(`${p.project} (PENDING: ${p.owner} offers ${p.access})`, p);

/** `text` about another's project, and, where its owner no longer passes the server's access rules (owner_not_allowed),
 *  that what only the owner does is stuck and what the caller can do instead (review 392: a team was left guessing). */
export function withOwnerNote(text: string, p: { project: string; owner: string; access: Access; pending?: true; owner_not_allowed?: true }): string {
  if (!p.owner_not_allowed) return text;
  const [go, can] = p.access === "write" ? ["reading and writing it", "read and write it"] : ["reading it", "read it"];
  const left = p.pending ? `you can still accept it and ${can}` : `you can go on ${go}`;
  return `${text}${text.endsWith(".") ? "" : "."} ${p.owner} is no longer allowed on this server: only its administrator adding them back lets anyone share, delete or purge "${p.project}"; ${left}, or copy its files into a project of your own.`;
}
export const OFFER_STEP = 'ask the user before accepting; "accept" or "decline" with "name"';

/** A reader's change, refused: said alike by the project, and by a tool that never reached it (an edit that changed
 *  nothing). */
export const readAccessRefusal = (project: string, owner: string): string =>
  `You have read access to "${project}"; changing it needs write access from its owner (${owner}).`;
