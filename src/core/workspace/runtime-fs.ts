// A workspace as the RuntimeFs the ported BMAD scripts run on: the project's files appear under `fsRoot`
// (an absolute POSIX path), directories are implicit (one exists while a file is below it; mkdir does nothing),
// and every write is a new version by the caller, with the same path checks and limits as bmad-files.
// Each call checks access itself; one that finds no project the caller may see is also told to `noProject`.
import type { FsEntryKind, RuntimeFs } from "../runtime/fs.js";
import { checkWorkspacePath } from "./paths.js";
import type { WorkspaceFiles, WsResult } from "./store.js";

export function workspaceRuntimeFs(files: WorkspaceFiles, fsRoot: string, noProject?: (error: string) => void): RuntimeFs {
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
    if (rel === undefined || rel === "") throw new Error(`${path} is outside the project (${root}).`);
    const checked = checkWorkspacePath(rel);
    if (!checked.ok) throw new Error(checked.error);
    return rel;
  };
  const value = <T>(out: WsResult<T>): T => {
    if (out.ok) return out.value;
    if (out.kind === "no_project") noProject?.(out.error);
    throw new Error(out.error);
  };
  return {
    async readFile(path) {
      if (path === root || above(path) !== undefined) return undefined;
      const out = await files.read(relOrThrow(path));
      if (!out.ok && out.kind === "not_found") return undefined;
      return value(out).data;
    },
    async writeFile(path, data) {
      value(await files.write(relOrThrow(path), data));
    },
    async createTree(dir, tree) {
      const out = await files.createFolder(relOrThrow(dir), [...tree].map(([path, data]) => ({ path, data })));
      // The code lets the script tell "it is there already" from a failed write, as Python's errors do.
      if (!out.ok && out.kind === "conflict") throw Object.assign(new Error(out.error), { code: "EEXIST" });
      value(out);
    },
    async stat(path): Promise<FsEntryKind> {
      if (above(path) !== undefined) return "dir";
      const rel = inside(path);
      if (rel === undefined) return "missing";
      if (rel !== "" && !checkWorkspacePath(rel).ok) return "missing";
      return value(await files.stat(rel));
    },
    async list(dir) {
      const next = above(dir);
      if (next !== undefined) return [next];
      const rel = inside(dir);
      if (rel === undefined) return [];
      return value(await files.children(rel));
    },
    async mkdir() {},
  };
}
