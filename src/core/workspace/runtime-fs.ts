// A workspace as the RuntimeFs the ported BMAD scripts run on: the project's files appear under `fsRoot`
// (an absolute POSIX path), directories are implicit (one exists while a file is below it; mkdir does nothing),
// and every write is a new version by the caller, with the same path checks and limits as bmad-files.
// Each call checks access itself; one that finds no project the caller may see is also told to `noProject`.
import { FsRefusal, type FileChange, type FsEntryKind, type RuntimeFs, type TextEdit } from "../runtime/fs.js";
import { isProjectConfig } from "../catalog/config.js";
import { checkWorkspacePath } from "./paths.js";
import type { ByOthers } from "./line-authors.js";
import type { ChangedSince } from "./changed-since.js";
import type { WorkspaceFiles, WsError, WsResult } from "./store.js";
import { updateFile } from "./update-file.js";

/** What a path was found to be: its bytes, a file, a folder, or nothing. */
export type Known = Uint8Array | "file" | "dir" | null;

/** What one readMany call named (its stamp): the folders whose files it listed (project path -> the paths below),
 *  whether all read since came from that call (`covered`), and the folders listed apart since (`asked`). */
export interface Stamped {
  trees: Map<string, string[]>;
  covered: boolean;
  asked: string[];
  /** The versions of the files it read (project path -> version): an update's first round needs no read. */
  versions?: Map<string, number>;
}

/** What a workspace refuses where Python would go on (a path it keeps no file at, a secrets file, a member's change
 *  of what the owner alone changes, a change past its room): a refusal, never the OSError Python does not raise. */
const REFUSED = new Set<WsError["kind"]>(["invalid", "denied", "limit"]);

/** `known`: paths looked at already (a render's preload), by path. What the fs reads and stats is kept there too,
 *  and answered from there until it writes (a script run sees the project as it first found it, and its own writes). */
/** `byOthers`: each file read that holds lines another member wrote (project path -> who, and which lines), filled as files are read, so that
 *  an answer names whose files it used however a script came to read them (review 43); `changedSince`: each file read
 *  that others changed since the caller's own last version of it (a removal names no line). */
export function workspaceRuntimeFs(files: WorkspaceFiles, fsRoot: string, noProject?: (error: string) => void, known = new Map<string, Known>(), stamped: Stamped = { trees: new Map(), covered: false, asked: [] }, byOthers = new Map<string, ByOthers>(), changedSince = new Map<string, ChangedSince>()): RuntimeFs {
  const root = fsRoot.replace(/\/+$/, "");
  /** The project path of an absolute path: "" for the root, undefined outside it. */
  const inside = (path: string): string | undefined => (path === root ? "" : path.startsWith(`${root}/`) ? path.slice(root.length + 1) : undefined);
  /** Folders above the root exist (the root is in them). */
  const above = (path: string): string | undefined => {
    const dir = path === "/" ? "" : path;
    return root.startsWith(`${dir}/`) ? root.slice(dir.length + 1).split("/")[0] : undefined;
  };
  const relOrThrow = (path: string): string => {
    const rel = inside(path);
    if (rel === undefined || rel === "") throw Object.assign(new FsRefusal(`${path} is outside the project (${root}): bmad-run's scripts read and write only inside it.`), { namesFile: true as const });
    const checked = checkWorkspacePath(rel);
    if (!checked.ok) throw new FsRefusal(checked.error);
    return rel;
  };
  const value = <T>(out: WsResult<T>): T => {
    if (out.ok) return out.value;
    if (out.kind === "no_project") noProject?.(out.error);
    throw REFUSED.has(out.kind) ? new FsRefusal(out.error) : new Error(out.error);
  };
  /** Whose lines this run has read in files other than the one it changes (whose own lines carry their authors):
   *  what it writes came from them too (review 50: a writer's customization, rendered by the owner's render_skill.py
   *  into step files, read as the owner's). Not the project's config, read to fill a command's placeholders: its
   *  answers' setters are named apart, and a script's output is not made of them (review 326: a sprint plan made
   *  from one member's epics was credited to the member who had set user_name). */
  const others = (changed: string) => [...new Set([...byOthers].filter(([rel]) => rel !== changed && !rel.startsWith(`${changed}/`) && !isProjectConfig(rel)).flatMap(([, list]) => list.map((o) => o.by)))];
  // Counts writes begun and ended: what was looked up while one ran is not kept.
  let writes = 0;
  const keep = <T extends Known>(path: string, since: number, at: T): T => (since === writes && known.set(path, at), at);
  /** The listed folder `rel` is in; else the stamp does not name it. */
  const tree = (rel: string): string | undefined => {
    for (const t of stamped.trees.keys()) if (rel === t || rel.startsWith(`${t}/`)) return t;
    stamped.covered = false;
    return undefined;
  };
  const writing = async <T>(op: () => Promise<T>): Promise<T> => {
    writes++;
    known.clear();
    stamped.versions?.clear();
    stamped.trees.clear();
    stamped.covered = false;
    try {
      return await op();
    } finally {
      writes++;
      known.clear();
    }
  };
  // Reads asked for together (a render's statuses, under Promise.all) go to the project in one call where the store
  // reads several at once; a read alone stays a read.
  type Waiting = Array<{ rel: string; done: (out: Promise<WsResult<Uint8Array | null>>) => void }>;
  let batch: Waiting | undefined;
  const readOne = (rel: string): Promise<WsResult<Uint8Array | null>> => {
    const one = async () => {
      const out = await files.read(rel);
      if (out.ok && out.value.others?.length) byOthers.set(rel, out.value.others);
      if (out.ok && out.value.changed_since) changedSince.set(rel, out.value.changed_since);
      return out.ok ? { ok: true as const, value: out.value.data } : out.kind === "not_found" ? { ok: true as const, value: null } : out;
    };
    if (!files.readMany) return one();
    return new Promise((done) => {
      if (!batch) {
        const pending: Waiting = (batch = []);
        queueMicrotask(() => {
          batch = undefined;
          if (pending.length === 1) return pending[0]!.done(one());
          // Each waiting read settles with the call's answer or its failure: none is left hanging.
          const out = files.readMany!(pending.map((p) => p.rel));
          pending.forEach((p, i) => p.done(out.then((o) => {
            const other = o.ok ? o.value.others?.[i] : undefined;
            if (other) byOthers.set(p.rel, other);
            const since = o.ok ? o.value.changed_since?.[i] : undefined;
            if (since) changedSince.set(p.rel, since);
            return o.ok ? { ok: true, value: o.value.files[i] instanceof Uint8Array ? o.value.files[i] : null } : o;
          })));
        });
      }
      batch.push({ rel, done });
    });
  };
  return {
    async readFile(path) {
      const at = known.get(path);
      if (at !== undefined && at !== "file") return at instanceof Uint8Array ? at : undefined;
      if (path === root || above(path) !== undefined) return undefined;
      const since = writes;
      // A file below a listed folder is named by its version there.
      tree(relOrThrow(path));
      const data = value(await readOne(relOrThrow(path)));
      return data ? keep(path, since, data) : undefined;
    },
    writeFile: (path, data) => writing(async () => {
      const rel = relOrThrow(path);
      value(await files.write(rel, data, { alsoBy: others(rel) }));
    }),
    // The workspace's integer versions make this a compare-and-set (update-file.ts). The first round starts from the
    // file as the run's first call found it, where that call read it.
    update: (path: string, change: FileChange) => {
      const rel = relOrThrow(path);
      const seen = known.get(path);
      const version = stamped.versions?.get(rel);
      const first = seen === null ? null : seen instanceof Uint8Array && version ? { data: seen, version } : undefined;
      return writing(async () => {
        value(await updateFile(files, rel, (current) => change(current?.data), { first, alsoBy: others(rel) }));
      });
    },
    // The project's object applies it in the same step as the write: one call, and no other write between.
    ...(files.edit ? { editText: (path: string, edit: TextEdit) => {
      const rel = relOrThrow(path);
      return writing(async () => value(await files.edit!(rel, edit, others(rel))) ?? undefined);
    } } : {}),
    createTree: (dir, tree) => writing(async () => {
      const rel = relOrThrow(dir);
      const out = await files.createFolder(rel, [...tree].map(([path, data]) => ({ path, data })), others(rel));
      // The code lets the script tell "it is there already" from a failed write, as Python's errors do.
      if (!out.ok && out.kind === "conflict") throw Object.assign(new Error(out.error), { code: "EEXIST" });
      value(out);
    }),
    async stat(path): Promise<FsEntryKind> {
      const at = known.get(path);
      if (at !== undefined) return at === null ? "missing" : at === "dir" ? "dir" : "file";
      if (above(path) !== undefined) return "dir";
      const rel = inside(path);
      if (rel === undefined) return "missing";
      if (rel !== "" && !checkWorkspacePath(rel).ok) return "missing";
      const since = writes;
      stamped.covered = false;
      const kind = value(await files.stat(rel));
      keep(path, since, kind === "missing" ? null : kind);
      return kind;
    },
    async list(dir) {
      const next = above(dir);
      if (next !== undefined) return [next];
      const rel = inside(dir);
      if (rel === undefined) return [];
      const t = tree(rel);
      // As the project's object answers it: the names of what is below, once each, sorted.
      if (t !== undefined) return [...new Set(stamped.trees.get(t)!.filter((p) => p.startsWith(`${rel}/`)).map((p) => p.slice(rel.length + 1).split("/")[0]!))].sort();
      stamped.asked.push(rel);
      return value(await files.children(rel));
    },
    async mkdir() {},
  };
}
