// What pull and push share: the local side of a file (read through the confined reader), the walk that finds
// new local files, and the report both print. A plan is made whole before anything is written, so a refusal
// leaves the folder and the workspace as they were.
import { changeRefusal, machineryName, MAX_PATH_PARTS } from "../core/workspace/paths.js";
import { isSecretFile } from "../core/catalog/config.js";
import { SYNC_FOLDERS } from "../core/workspace/sync-kinds.js";
import { createHash } from "node:crypto";
import { lstat, readdir } from "node:fs/promises";
import { resolveBounded } from "../compiler/files.js";
import { basename, join } from "node:path";
import { MAX_FILE_BYTES, MAX_FILES } from "../core/workspace/limits.js";
import { listConfined, readConfined, resolveConfined, writerLeftover, type ReadJudge } from "./confined-fs.js";

/** Folders never pushed: other tools' state (machinery, .git and bmad-mcp's own under every name, is skipped too). */
const SKIPPED = new Set(["node_modules", "__pycache__"]);
/** How deep below a walked folder files are looked for: far past any BMAD folder's. Push's walk and bmad-files list
 *  keep it, and count folders against MAX_FILES. */
export const MAX_WALK_DEPTH = MAX_PATH_PARTS;
/** How many links a walk follows: BMAD's folders hold few, if any. */
export const MAX_WALK_LINKS = 64;

export type Local =
  | { kind: "missing" }
  | { kind: "file"; bytes: Buffer; sha256: string }
  /** Over the 1 MiB a workspace file holds: differs from any remote file, and cannot be pushed. */
  | { kind: "large" }
  /** A folder, or something that cannot be read here (a link out, a device): named in `error`. `inWay`: the name
   *  here that stands where the workspace has the other kind, a folder at the path itself or a file above it. */
  | { kind: "blocked"; error: string; inWay?: string };

export const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

export async function readLocal(dir: string, path: string, judge?: ReadJudge): Promise<Local> {
  const read = await readConfined(dir, path, { maxBytes: MAX_FILE_BYTES, ...(judge ? { judge } : {}) });
  if (read.ok) return { kind: "file", bytes: read.bytes, sha256: sha256(read.bytes) };
  if (read.code === "missing") return missingAt(dir, path);
  if (read.code === "too-large") return { kind: "large" };
  if (read.code === "is-dir") return { kind: "blocked", error: `${path}: a folder here, where the workspace has a file; move it away.`, inWay: path };
  return { kind: "blocked", error: read.error };
}

/** A missing file, unless a folder it would be written in cannot hold it (a link out, a file): found now, not midway. */
async function missingAt(dir: string, path: string): Promise<Local> {
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) {
    const folder = parts.slice(0, i).join("/");
    const found = await resolveConfined(dir, folder);
    if (found.ok && found.isDir) continue;
    if (found.ok) return { kind: "blocked", error: `${path}: ${folder} is a file here, where the workspace has a folder; move it away.`, inWay: folder };
    if (found.code === "missing") break;
    const why = found.error.startsWith(`${folder}: `) ? found.error.slice(folder.length + 2) : found.error;
    return { kind: "blocked", error: `${path}: ${folder} ${why}` };
  }
  return { kind: "missing" };
}

/** What no one made as content, which goes with the folder that holds it: what a killed bridge write left
 *  (writerLeftover) and Finder's `.DS_Store` (review 171: either kept a folder the remote replaced by a file). */
export const isLitter = (name: string) => name === ".DS_Store" || writerLeftover(name);

/** What stands at `path` (a path from `dir`), when deleting files takes it away: a plain file, or a folder of nothing but
 *  plain files and folders that each hold some (a deletion removes the folders it empties, and no other). `litter`
 *  (isLitter) is no one's content. Undefined: nothing, a link, or a folder that holds anything else (a link, an empty
 *  folder, other tools' state, more than a walk takes). */
export async function standingAt(dir: string, path: string): Promise<{ files: string[]; litter: string[] } | undefined> {
  const top = await resolveConfined(dir, path);
  // The path itself, never a link (what it reaches is another name's).
  if (!top.ok || (await lstat(join(dir, path)).catch(() => undefined))?.isSymbolicLink() !== false) return undefined;
  const found = { files: [] as string[], litter: [] as string[] };
  let count = 0;
  const within = async (abs: string, rel: string, depth: number): Promise<boolean> => {
    const info = await lstat(abs).catch(() => undefined);
    if (++count > MAX_FILES) return false;
    if (info?.isFile()) {
      (depth > 0 && isLitter(basename(rel)) ? found.litter : found.files).push(rel);
      return true;
    }
    if (!info?.isDirectory() || depth > MAX_WALK_DEPTH) return false;
    const names = await readdir(abs).catch(() => []);
    // Other tools' state (a .git, node_modules) is theirs to remove, never a pull's.
    if (names.some((name) => SKIPPED.has(name) || machineryName(name))) return false;
    for (const name of names) if (!(await within(join(abs, name), `${rel}/${name}`, depth + 1))) return false;
    return names.length > 0;
  };
  return (await within(top.path, path, 0)) ? found : undefined;
}

/** One sentence: `text` ending in a single full stop. */
export const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** `s` as one word of a POSIX shell's command line: the commands a message gives, to paste as they are. */
export const shellWord = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * Regular files below `folder` (a path from `dir`), as paths from `dir`. Folders that are links are not
 * entered (a link can lead in circles); a file that is a link inside the folder counts as that file. `cut`: a bound
 * stopped the walk (files, folders, depth or links), so files past it were not seen.
 */
export async function walkFiles(dir: string, folder: string): Promise<{ files: string[]; cut: boolean }> {
  const out: string[] = [];
  // Folders count too, and depth is bounded: 20,000 empty folders, or a chain 800 deep, cost seconds a walk (review 22).
  let folders = 0;
  let links = 0;
  let cut = false;
  const walk = async (rel: string, depth: number): Promise<void> => {
    if (depth > MAX_WALK_DEPTH || ++folders > MAX_FILES) return void (cut = true);
    const listed = await listConfined(dir, rel);
    if (!listed.ok) return;
    for (const name of listed.names.sort()) {
      if (SKIPPED.has(name) || machineryName(name)) continue;
      if (out.length > MAX_FILES || folders > MAX_FILES) return void (cut = true);
      const path = rel ? `${rel}/${name}` : name;
      const info = await lstat(join(listed.path, name)).catch(() => undefined);
      if (info?.isDirectory()) await walk(path, depth + 1);
      else if (info?.isFile()) out.push(path);
      else if (info?.isSymbolicLink()) {
        // Each link is resolved part by part: 300 of them to one file 1,000 folders deep cost 9 s (review 23).
        if (++links > MAX_WALK_LINKS) {
          cut = true;
          continue;
        }
        // Resolved a step at a time within a budget first: each link cost its whole chain (reviews 24 and 25: 6 s, and
        // 94 s through one hop past a check of the link's own text).
        if (resolveBounded(join(listed.path, name)) === undefined) continue;
        const target = await resolveConfined(dir, path);
        if (target.ok && !target.isDir) out.push(path);
      }
    }
  };
  await walk(folder, 0);
  return { files: out, cut };
}

export { inSyncFolders, SYNC_FOLDERS, SYNC_FOLDERS_TEXT } from "../core/workspace/sync-kinds.js";

/** What a push may send: no file that holds secrets, no tool's own settings, nothing in machinery. */
export const sendable = (path: string) => !isSecretFile(path) && !changeRefusal(path, { pulled: true });

/** The most files sendableHere finds: a walk's most in each folder sync carries. */
export const MAX_SENDABLE_HERE = SYNC_FOLDERS.length * (MAX_FILES + 1);

/** The files in the folders sync carries here that a push may send (sendable), as paths from `dir`: what it looks in
 *  for new files, and what a first pull finds there before it (SyncState.localOnly). */
export async function sendableHere(dir: string): Promise<Here> {
  const here = await filesHere(dir);
  return { ...here, files: here.files.filter(sendable) };
}

/** Files found here, and the folders (as SYNC_FOLDERS names them) whose walk a bound stopped (walkFiles' `cut`). */
export type Here = { files: string[]; cut: string[] };

/** Every file in the folders sync carries here, as paths from `dir`: sendable or not, someone's. */
export async function filesHere(dir: string): Promise<Here> {
  const walks = await Promise.all(SYNC_FOLDERS.map((folder) => walkFiles(dir, folder.slice(0, -1))));
  return { files: walks.flatMap((w) => w.files), cut: SYNC_FOLDERS.filter((_, i) => walks[i]!.cut) };
}

/** Why a pull or push does not go on where a walk was cut short: past the bound, the user's own files (recorded at the
 *  first pull, never sent unless named) cannot be told from new ones (review 343: a first pull into a folder of 10,000
 *  files recorded 5,001 as the user's, and a push later sent the others to every member). */
export const walkCutRefusal = (dir: string, cut: string[], done: string) =>
  `${cut.map((folder) => `${dir}/${folder.replace(/\/$/, "")}`).join(" and ")} holds more than ${MAX_FILES.toLocaleString("en-US")} files or folders (or ${MAX_WALK_LINKS} links, or folders ${MAX_WALK_DEPTH} deep), more than a pull or push looks at, so it cannot tell your own files from the project's: ${done} Move some of them out of ${cut.length > 1 ? "those folders" : "that folder"}, or pull into another folder.`;

/** `local`: pull's word for a file here that stays the user's own (SyncState.localOnly). */
export type ChangeKind = "added" | "updated" | "deleted" | "kept" | "left" | "held" | "local";
/** The kinds said one line a reason, naming every file it holds. */
const GROUPED = new Set<ChangeKind>(["held", "left", "local"]);
export interface Change {
  kind: ChangeKind;
  path: string;
  note?: string;
  /** Said one line with every change of its kind and note, as GROUPED kinds are. */
  grouped?: true;
}
/** A file the plan will not touch without --force (or at all): what is wrong and how to go on. */
export interface Refusal {
  path: string;
  reason: string;
  fix: string;
}

/** How many files one line names before it counts the rest. */
const NAMED_IN_LINE = 8;

/** `a`, `a and b`, `a, b, c and d`; past NAMED_IN_LINE, the first few and how many more. */
function namedFiles(paths: string[]): string {
  const named = paths.length > NAMED_IN_LINE ? [...paths.slice(0, NAMED_IN_LINE - 1), `${paths.length - NAMED_IN_LINE + 1} more`] : paths;
  return named.length > 1 ? `${named.slice(0, -1).join(", ")} and ${named.at(-1)}` : named[0]!;
}

export class Report {
  readonly changes: Change[] = [];
  unchanged = 0;
  /** Files the other side changed that this command leaves alone (push: the remote's; pull never has any). */
  behind = 0;
  /** Of those, what pull leaves as it is here too (push: another member's change to BMAD's settings, and the like). */
  behindLeft = 0;
  /** Changes here that pull --force let the remote's win over, each line saying where its copy is. */
  replaced = 0;
  /** What one line says of many files, once, after the summary (pull: how to get BMAD's settings it left on the remote). */
  readonly after: string[] = [];

  add(kind: ChangeKind, path: string, note?: string, grouped?: true): void {
    this.changes.push({ kind, path, ...(note ? { note } : {}), ...(grouped ? { grouped } : {}) });
  }

  /** One line a change; `held`, `left` and `local` one line a reason, naming its files (review 205: after the installer run a
   *  pull prescribes, every push printed 8 paragraphs that ended in the same advice, and every pull up to 16). */
  lines(): string[] {
    const lines: Array<{ kind: ChangeKind; note?: string; paths: string[] }> = [];
    const byReason = new Map<string, (typeof lines)[number]>();
    for (const c of this.changes) {
      const reason = GROUPED.has(c.kind) || c.grouped ? `${c.kind} ${c.note ?? ""}` : undefined;
      const same = reason === undefined ? undefined : byReason.get(reason);
      if (same) same.paths.push(c.path);
      else {
        const line = { kind: c.kind, ...(c.note ? { note: c.note } : {}), paths: [c.path] };
        lines.push(line);
        if (reason !== undefined) byReason.set(reason, line);
      }
    }
    return lines.map((l) => `${l.kind.padEnd(8)} ${namedFiles(l.paths)}${l.note ? ` (${l.note})` : ""}`);
  }

  summary(): string {
    const count = (kind: ChangeKind) => this.changes.filter((c) => c.kind === kind).length;
    const kept = count("kept");
    const left = count("left");
    const held = count("held");
    const local = count("local");
    const replaced = this.replaced ? `, ${this.replaced} local change${this.replaced === 1 ? "" : "s"} replaced by the remote's` : "";
    return `${count("added")} added, ${count("updated")} updated, ${count("deleted")} deleted, ${this.unchanged} unchanged${replaced}${kept ? `, ${kept} local change${kept === 1 ? "" : "s"} kept` : ""}${left ? `, ${left} left on the remote` : ""}${held ? `, ${held} held back` : ""}${local ? `, ${local} local only` : ""}.`;
  }
}

/** The text of a local file, if the workspace can hold it as text (bmad-files takes text): UTF-8, BOM kept. */
export function asText(bytes: Buffer): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
