// bmad-files on the bridge: the project directory is the one workspace, so a client with no file tools of its
// own (Claude Desktop) can still read config and write artifacts, confined to the project like the ported
// scripts (NodeRuntimeFs). A file's version is its modification time, so if_version still guards overwrites;
// history lives in the user's git, not here.
import { createHash } from "node:crypto";
import { stat as statFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { compileGlob, tooCostly } from "../core/catalog/glob.js";
import { MAX_FILE_BYTES, MAX_FILES } from "../core/workspace/limits.js";
import { checkWorkspacePath } from "../core/workspace/paths.js";
import type { FileContent, FileEntry, ProjectInfo, WorkspaceFiles, WorkspaceStore, WsError, WsResult } from "../core/workspace/store.js";
import { createConfinedTree, removeConfined } from "./confined-fs.js";
import type { NodeRuntimeFs } from "./runtime-fs.js";

/** Folders a listing does not walk into: other tools' state, not the project's documents. */
const SKIPPED = new Set([".git", "node_modules"]);

const invalid = (error: string): WsError => ({ ok: false, kind: "invalid", error });

export class LocalWorkspaceStore implements WorkspaceStore {
  private readonly local: LocalFiles;

  constructor(readonly folder: string, fs: NodeRuntimeFs) {
    this.local = new LocalFiles(folder, basename(folder), fs);
  }

  private folderOnly(): WsError {
    return invalid(`On the bridge the project is this folder (${this.folder}); there are no other workspaces to create, configure, share or delete. bmad-files works on it.`);
  }

  async projects() {
    return [{ project: this.local.project, name: this.local.project, owner: "you", access: "owner" as const }];
  }
  async info(): Promise<WsResult<ProjectInfo>> {
    return { ok: true, value: { project: this.local.project, name: this.local.project, owner: "you", access: "owner", created_at: "", answers: {}, files: 0, bytes: 0 } };
  }
  create = async () => this.folderOnly();
  configure = async () => this.folderOnly();
  remove = async () => this.folderOnly();
  share = async () => this.folderOnly();
  /** Any name: the folder is the only project here. */
  files(): WorkspaceFiles {
    return this.local;
  }
}

class LocalFiles implements WorkspaceFiles {
  constructor(
    private readonly root: string,
    readonly project: string,
    private readonly fs: NodeRuntimeFs,
  ) {}

  private checked(path: string): WsResult<string> {
    const checked = checkWorkspacePath(path);
    return checked.ok ? { ok: true, value: checked.value } : invalid(checked.error);
  }

  private async entry(rel: string, data?: Uint8Array): Promise<FileEntry | undefined> {
    if ((await this.fs.stat(join(this.root, rel))) !== "file") return undefined;
    const info = await statFile(await this.fs.realpath(join(this.root, rel)));
    const sha256 = data ? createHash("sha256").update(data).digest("hex") : "";
    return { path: rel, version: Math.floor(info.mtimeMs), size: info.size, sha256, updated_at: info.mtime.toISOString(), author: "you" };
  }

  async read(path: string, version?: number): Promise<WsResult<FileContent>> {
    const rel = this.checked(path);
    if (!rel.ok) return rel;
    if (version !== undefined) return invalid("The project folder keeps no versions here: earlier ones are in the user's git, if they use it (git log, git show).");
    let data: Uint8Array | undefined;
    try {
      data = await this.fs.readFile(join(this.root, rel.value));
    } catch (error) {
      return invalid(`${rel.value}: ${(error as Error).message}`);
    }
    const entry = data && (await this.entry(rel.value, data));
    if (!data || !entry) return { ok: false, kind: "not_found", error: `No file ${rel.value} in the project (${this.root}).` };
    return { ok: true, value: { ...entry, data } };
  }

  async write(path: string, data: Uint8Array, options: { append?: boolean; ifVersion?: number } = {}): Promise<WsResult<FileEntry>> {
    const rel = this.checked(path);
    if (!rel.ok) return rel;
    const abs = join(this.root, rel.value);
    const current = await this.entry(rel.value);
    if (options.ifVersion !== undefined && (current?.version ?? 0) !== options.ifVersion) {
      return { ok: false, kind: "conflict", error: `${rel.value} is at version ${current?.version ?? 0} (its modification time), not ${options.ifVersion}: read it again before changing it.` };
    }
    let bytes = data;
    if (options.append && current) {
      const before = (await this.fs.readFile(abs)) ?? new Uint8Array();
      bytes = new Uint8Array(before.length + data.length);
      bytes.set(before);
      bytes.set(data, before.length);
    }
    if (bytes.length > MAX_FILE_BYTES) return { ok: false, kind: "limit", error: `${rel.value} would be ${bytes.length} bytes; bmad-files writes at most 1 MiB a file.` };
    try {
      await this.fs.writeFile(abs, bytes);
    } catch (error) {
      return invalid(`${rel.value}: ${(error as Error).message}`);
    }
    return { ok: true, value: (await this.entry(rel.value, bytes))! };
  }

  async createFolder(dir: string, files: Array<{ path: string; data: Uint8Array }>): Promise<WsResult<{ files: number }>> {
    const rel = this.checked(dir);
    if (!rel.ok) return rel;
    const created = await createConfinedTree(this.root, rel.value, new Map(files.map((f) => [f.path, f.data])));
    if (created.ok) return { ok: true, value: { files: files.length } };
    return created.code === "exists" ? { ok: false, kind: "conflict", error: created.error } : invalid(created.error);
  }

  async restore(): Promise<WsResult<FileEntry>> {
    return invalid("The project folder keeps no versions here: an earlier one comes back from the user's git, if they use it (git checkout <commit> -- <path>).");
  }

  async history(): Promise<WsResult<never[]>> {
    return invalid("The project folder keeps no history here: it is in the user's git, if they use it (git log).");
  }

  async remove(path: string, ifVersion?: number): Promise<WsResult<{ path: string; version: number }>> {
    const rel = this.checked(path);
    if (!rel.ok) return rel;
    const current = await this.entry(rel.value);
    if (!current) return { ok: false, kind: "not_found", error: `No file ${rel.value} in the project (${this.root}).` };
    if (ifVersion !== undefined && current.version !== ifVersion) return { ok: false, kind: "conflict", error: `${rel.value} is at version ${current.version}, not ${ifVersion}.` };
    const removed = await removeConfined(this.root, rel.value);
    return removed.ok ? { ok: true, value: { path: rel.value, version: current.version } } : invalid(removed.error);
  }

  async list(glob = "**"): Promise<WsResult<FileEntry[]>> {
    const compiled = compileGlob(glob);
    if (!compiled.ok) return invalid(compiled.error);
    const out: FileEntry[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const name of (await this.fs.list(join(this.root, dir))).sort()) {
        if (out.length >= MAX_FILES || SKIPPED.has(name) || compiled.glob.exhausted) continue;
        const rel = dir ? `${dir}/${name}` : name;
        const kind = await this.fs.stat(join(this.root, rel));
        if (kind === "dir") await walk(rel);
        else if (kind === "file" && compiled.glob.test(rel)) out.push((await this.entry(rel))!);
      }
    };
    await walk("");
    return compiled.glob.exhausted ? invalid(tooCostly(compiled.glob, "this project's files")) : { ok: true, value: out };
  }

  async stat(path: string): Promise<WsResult<"file" | "dir" | "missing">> {
    if (path === "") return { ok: true, value: "dir" };
    const rel = this.checked(path);
    return rel.ok ? { ok: true, value: await this.fs.stat(join(this.root, rel.value)) } : rel;
  }

  async children(dir: string): Promise<WsResult<string[]>> {
    if (dir !== "") {
      const rel = this.checked(dir);
      if (!rel.ok) return rel;
      dir = rel.value;
    }
    return { ok: true, value: await this.fs.list(join(this.root, dir)) };
  }
}
