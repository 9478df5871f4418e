// A project as the runtime sees it: where `{project-root}` is for the model (an absolute path on the
// bridge, bmad://projects/{name} on the remote), the files the ported scripts work on, and the bundle's
// skill folders mounted read-only beside them so `--skill bmad://bmm/bmad-prd` works anywhere.
import { isConfigShaped, mayServeAsConfig, scriptView } from "../catalog/config.js";
import { BMAD_SCHEME } from "../catalog/paths.js";
import type { Catalog } from "../catalog/catalog.js";
import type { BundleReader } from "../surface/reader.js";
import type { FileChange, FsEntryKind, RuntimeFs, TextEdit } from "./fs.js";
import type { GitRunner, OriginalRun } from "./context.js";
import type { ByOthers } from "../workspace/line-authors.js";
import type { ChangedSince } from "../workspace/changed-since.js";
import type { DeletedFile, ReadOnlyAccess, WorkspaceFiles } from "../workspace/store.js";
import { stripChars } from "./py-str.js";
import { PyError } from "./py-json.js";

/** Where bundle files appear to the ported scripts. Shown to the model as bmad://. */
export const BUNDLE_MOUNT = "/.bmad-bundle";

/** The project's completion contract: the user's own script, which run_completion_contract runs on the bridge. */
export const CONTRACT_SCRIPT = "_bmad/_config/custom/cc-verify.sh";

/** Whether run_completion_contract runs the project's checks: its script is there, and the user allowed the project's
 *  scripts (--allow-project-scripts). */
export interface ContractSetup {
  script: boolean;
  allowed: boolean;
}

export interface SkillScriptRun extends OriginalRun {
  timedOut?: boolean;
  /** The door kept only the last part of a stream (the bridge's run-bounded.ts, at the same 256 KB). */
  truncated?: boolean;
  /** Nothing ran, and why: the script, an argument or the interpreter is none the door runs (outside the project, a
   *  link out, bytes BMAD does not vouch for, a uv from the project's own folders). */
  refused?: string;
}

export interface ProjectRuntime {
  /** `{project-root}` as the model sees it. */
  readonly root: string;
  /** The same place in `fs`. Equal to `root` on the bridge. */
  readonly fsRoot: string;
  /** The project's files with the bundle mounted at BUNDLE_MOUNT. */
  readonly fs: RuntimeFs;
  /** Where `{project-root}` says to get somewhere to write files, when the project is not writable. */
  readonly label: string;
  /** The project's files as bmad-files keeps them: when each last changed, by whom, and its earlier versions (what
   *  says a later step's document predates an earlier one's change: stale-steps.ts). */
  readonly store?: Pick<WorkspaceFiles, "peek" | "history" | "read">;
  /** What others changed in these files (ChangedSince, up to `version`) was shown to the caller: not told again, and the
   *  answer that told it is not kept to be served again (review 402: a kept render told it on every call). */
  toldChangedSince?(shown: Array<{ path: string; version: number }>): Promise<void>;
  /** A workspace's: the server's /mcp URL, which `bmad-mcp pull --remote` takes to bring it to the user's clone. */
  readonly pullFrom?: string;
  /** Files read for a render or a run that hold lines someone other than the caller wrote (project path -> whose
   *  lines): a shared workspace's customization is a collaborator's, the render says so, and what a script writes
   *  from them is theirs too. */
  readonly writtenByOthers?: ReadonlyMap<string, ByOthers>;
  /** Files read that others changed since the caller's own last version of them (project path -> which versions). */
  readonly changedSince?: ReadonlyMap<string, ChangedSince>;
  /** Config-shaped files a render or a run read with something left out (fs path -> what), filled as they are read
   *  (withBundle): the render or the answer says so, or a model takes a withheld value for one never set. */
  readonly withheld?: ReadonlyMap<string, string>;
  /** Installer answers (`module.key`) someone other than the caller last set, and who (rendered as config values). */
  readonly answersByOthers?: ReadonlyArray<{ key: string; who: string }>;
  /** A shared workspace the caller may only read: a render says so up front. */
  readonly readOnly?: ReadOnlyAccess;
  /** True where every file a render reads (config, customization, skills) changes only with the bundle:
   *  the bridge watches them and rebuilds. Renders may then be kept per bundle. */
  readonly rendersFollowBundle?: boolean;
  /** Names what a workspace's preload read (its files' versions, the folders it listed): a render may be kept per
   *  stamp if `covered` says it read nothing else. */
  readonly stamp?: string;
  covered?(): boolean;
  /** `{skill-root}` for a bundle folder (e.g. `bmm/bmad-prd`): its directory in the project where it is
   *  installed there, else its bmad:// URI. */
  skillRoot(bundleDir: string): Promise<string>;
  /** After a run: the answer of a file call that found no project the caller may see (a workspace runtime made
   *  without checking first). */
  refused?(): string | undefined;
  /** After a run: the owner of the project it changed files in, where that is someone other than the caller (a shared
   *  workspace's), so that the answer says whose project it changed. */
  changeOwner?(): string | undefined;
  /** A workspace's: its files below `folders` deleted since `since` (ISO) and not brought back, and the project's name
   *  as the caller gave it, which a restore call names. Absent where deletes keep no history (the bridge: git has it). */
  deletedSince?(folders: string[], since: string): Promise<{ project: string; files: DeletedFile[] }>;
  /** Read-only git in the project, for the ported scripts that measure history (the bridge); absent where there is none. */
  readonly git?: GitRunner;
  /** Runs a skill's own script for real (the bridge); absent where scripts cannot run. `byPort`: the port itself runs
   *  BMAD's original with arguments it built (brain.py html); a ported script's bytes run no other way. */
  runSkillScript?(scriptPath: string, args: string[], signal?: AbortSignal, byPort?: boolean): Promise<SkillScriptRun>;
  /** Where the project's checks can run (the bridge): how far its completion contract is set up. */
  completionContract?(): Promise<ContractSetup>;
  /** The project's IANA time zone for the times the ports write (a workspace's); absent: local time, as Python. */
  readonly timeZone?: () => Promise<string | undefined>;
}

/** A model-visible path (under `root` or bmad://) as the runtime's path; other words unchanged. */
export function toFsWord(runtime: Pick<ProjectRuntime, "root" | "fsRoot">, word: string): string {
  if (runtime.root !== runtime.fsRoot && (word === runtime.root || word.startsWith(`${runtime.root}/`))) return runtime.fsRoot + word.slice(runtime.root.length);
  if (word.startsWith(BMAD_SCHEME) && !word.startsWith(`${BMAD_SCHEME}projects/`)) return `${BUNDLE_MOUNT}/${word.slice(BMAD_SCHEME.length)}`;
  const eq = word.indexOf("=");
  // --option=value
  if (word.startsWith("--") && eq > 0) return word.slice(0, eq + 1) + toFsWord(runtime, word.slice(eq + 1));
  return word;
}

/** A path in the project, by its URI or as the runtime has it, relative to the project (`.` for its root); any other
 *  unchanged. */
export function projectRelative(runtime: Pick<ProjectRuntime, "root" | "fsRoot">, path: string): string {
  for (const root of new Set([runtime.root, runtime.fsRoot])) {
    if (path === root || path.startsWith(`${root}/`)) return path.slice(root.length).replace(/^\/+/, "") || ".";
  }
  return path;
}

/** The runtime's paths in a script's output, as the model knows them. */
export function fromFsText(runtime: Pick<ProjectRuntime, "root" | "fsRoot">, text: string): string {
  let out = text.split(`${BUNDLE_MOUNT}/`).join(BMAD_SCHEME);
  // Not inside the project's own URI a file already names (`bmad://projects/x/docs` read `bmad:/bmad://projects/x/docs`).
  if (runtime.root !== runtime.fsRoot) out = out.replace(new RegExp(`(?<!${BMAD_SCHEME.slice(0, -1)})${runtime.fsRoot.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "g"), runtime.root);
  return out;
}

const folders = new WeakMap<Catalog, Set<string>>();

/** Every folder holding a bundle file, made once per bundle. */
function foldersOf(catalog: Catalog): Set<string> {
  let set = folders.get(catalog);
  if (!set) {
    folders.set(catalog, (set = new Set()));
    for (const p of catalog.paths) for (let i = p.indexOf("/"); i !== -1; i = p.indexOf("/", i + 1)) set.add(p.slice(0, i));
  }
  return set;
}

/** The bundle's files, read-only, at `BUNDLE_MOUNT/{bundle path}`. Writes there are refused. */
export function bundleFs(reader: () => BundleReader): RuntimeFs {
  const inner = (path: string) => (path === BUNDLE_MOUNT ? "" : path.startsWith(`${BUNDLE_MOUNT}/`) ? stripChars(path.slice(BUNDLE_MOUNT.length + 1), "/", "right") : undefined);
  const refuse = (path: string): never => {
    throw new Error(`${path.replace(`${BUNDLE_MOUNT}/`, BMAD_SCHEME)} is BMAD's own content and read-only; write inside the project instead.`);
  };
  return {
    async readFile(path) {
      const rel = inner(path);
      const file = rel ? reader().catalog.file(rel) : undefined;
      return file ? new TextEncoder().encode(await reader().readText(file)) : undefined;
    },
    writeFile: async (path) => refuse(path),
    update: async (path) => refuse(path),
    createTree: async (path) => refuse(path),
    mkdir: async (path) => refuse(path),
    async stat(path): Promise<FsEntryKind> {
      const rel = inner(path);
      if (rel === undefined) return "missing";
      const { catalog } = reader();
      if (rel && catalog.file(rel)) return "file";
      return rel === "" || foldersOf(catalog).has(rel) ? "dir" : "missing";
    },
    async list(dir) {
      const rel = inner(dir);
      if (rel === undefined) return [];
      const prefix = rel ? `${rel}/` : "";
      const names = new Set<string>();
      for (const p of reader().catalog.paths) if (p.startsWith(prefix)) names.add(p.slice(prefix.length).split("/")[0]!);
      return [...names].sort();
    },
  };
}

/** BMAD's own files alone, as the project of a ported skill script named with none (brain.py reads only its
 *  library): nothing there can be written. */
export function bundleRuntime(reader: () => BundleReader): ProjectRuntime {
  return { root: BUNDLE_MOUNT, fsRoot: BUNDLE_MOUNT, label: "BMAD's own files", fs: bundleFs(reader), skillRoot: async (dir) => `${BMAD_SCHEME}${dir}` };
}

/** A config-shaped file without its secret-looking keys, and what of what a script reads that leaves out (an OSError
 *  where it is too big to read here); unchanged, the bytes as they are (a file that is not UTF-8 fails in the script
 *  as it would in Python). */
function sanitised(path: string, data: Uint8Array, leaves?: Leaves): { data: Uint8Array; leftOut?: string } {
  const text = new TextDecoder().decode(data);
  // Made once per content, path and project (a skill's customize.toml, read by every resolve_customization.py run once it
  // was config-shaped, cost a run most of a millisecond): the same bytes give the same view.
  const key = text.length <= MEMO_CHARS ? `${leaves?.key ?? ""}\0${path}\0${text}` : undefined;
  let view = key === undefined ? undefined : SANITISED.get(key);
  if (view === undefined) {
    view = scriptView(path, text, leaves?.test);
    if (key !== undefined) {
      if (SANITISED.size >= 256) SANITISED.clear();
      SANITISED.set(key, view);
    }
  }
  // As the OSError of a file that cannot be read: the script says why, where a stand-in would fail it on a line that is fine.
  if (view.unreadable) throw new PyError("OSError", view.unreadable);
  return view.text === text ? { data } : { data: new TextEncoder().encode(view.text), ...(view.leftOut ? { leftOut: view.leftOut } : {}) };
}
const SANITISED = new Map<string, ReturnType<typeof scriptView>>();
/** Configs longer than this are sanitised each time: the memo keeps small ones (a skill's customize.toml is 8 KB). */
const MEMO_CHARS = 64 * 1024;

/** Values a workspace's scripts are not shown (those leading out of it), and the workspace they are judged for. */
export interface Leaves {
  key: string;
  test: (value: string) => boolean;
}

/** Why a script may not write a config-shaped file that holds what scripts are not shown (secret-looking keys, or text
 *  that does not parse here): whatever it writes was made from the file without them, and would delete them. */
function keptFromScripts(path: string): Error {
  return new Error(`${path} holds secret-looking keys, values leading out of this project, or text that does not parse here, which scripts are given removed; written back by a script it would lose them, so it is left as it is. The user makes this change in the file by hand, or takes those entries out of it and runs this again`);
}

/** Two file systems as one: paths under BUNDLE_MOUNT go to the bundle, the rest to the project. Config-shaped
 *  files read without their secret-looking keys, as everywhere they are served, and without the values `leaves` names
 *  (a workspace's: those leading out of it), each such read noted in `withheld`, and a script never writes one that
 *  holds any (review 19: sprint_status.py update wrote the redacted text back over a collaborator's owner's keys). */
export function withBundle(project: RuntimeFs, bundle: RuntimeFs, { leaves, withheld }: { leaves?: Leaves; withheld?: Map<string, string> } = {}): RuntimeFs {
  const pick = (path: string) => (path === BUNDLE_MOUNT || path.startsWith(`${BUNDLE_MOUNT}/`) ? bundle : project);
  /** Whether a script's view of `data` at `path` leaves something out. */
  // A data file is one where it holds secrets (servedAsConfig, by its text: review 263, a member's script printed a
  // token data/keys.json is served without), the project's only: the bundle's CSVs are BMAD's own.
  const judged = (path: string) => mayServeAsConfig(path) && (pick(path) === project || isConfigShaped(path));
  const hides = (path: string, data: Uint8Array | undefined) => data !== undefined && judged(path) && sanitised(path, data, leaves).data !== data;
  // A config-shaped file is seen here as readFile shows it; a change made from a view that left something out is refused,
  // judged in the step that writes (review 42: a write judged before it replaced a secret the user saved meanwhile).
  const update = (path: string, change: FileChange) => pick(path).update!(path, async (data) => {
    const seen = data && judged(path) ? sanitised(path, data, leaves).data : data;
    const next = await change(seen);
    if (next !== undefined && seen !== data) throw keptFromScripts(path);
    return next;
  });
  return {
    async readFile(path) {
      const data = await pick(path).readFile(path);
      if (!data || !judged(path)) return data;
      const view = sanitised(path, data, leaves);
      if (view.leftOut) withheld?.set(path, view.leftOut);
      return view.data;
    },
    writeFile: async (path, data) => {
      if (!judged(path)) return pick(path).writeFile(path, data);
      if (pick(path).update) return update(path, () => data);
      if (hides(path, await pick(path).readFile(path))) throw keptFromScripts(path);
      return pick(path).writeFile(path, data);
    },
    ...(project.update ? { update } : {}),
    // Only the project's files, and none that reads sanitised: those take update, which sees them as read.
    ...(project.editText ? { editText: async (path: string, edit: TextEdit) => (pick(path) === project && !judged(path) ? project.editText!(path, edit) : undefined) } : {}),
    createTree: (dir, files) => pick(dir).createTree(dir, files),
    stat: (path) => pick(path).stat(path),
    list: async (dir) => [...(await pick(dir).list(dir)), ...(dir === "/" ? [BUNDLE_MOUNT.slice(1)] : [])],
    mkdir: (dir) => pick(dir).mkdir(dir),
    ...(project.realpath ? { realpath: (path: string) => (pick(path) === bundle ? Promise.resolve(path) : project.realpath!(path)) } : {}),
  };
}
