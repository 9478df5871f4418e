// RuntimeFs over real directories, for the ported BMAD scripts on the bridge (and the differential
// tests). Confined: after symlinks are resolved, reads and writes outside the allowed roots are
// refused, and stat and list see nothing there (so a walk up to / ends quietly). Only regular files are read, at most MAX_READ bytes; writes go
// to a temp file in the same directory and are renamed over the target.
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open, readdir, realpath, rename, rm, stat } from "node:fs/promises";
import { dirname, join, sep } from "node:path";
import type { FsEntryKind, RuntimeFs } from "../core/runtime/fs.js";

export const MAX_READ = 8 * 1024 * 1024;

function refusal(message: string, code?: string): Error {
  return Object.assign(new Error(message), code ? { code } : {});
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

export class NodeRuntimeFs implements RuntimeFs {
  private constructor(private readonly roots: string[]) {}

  /** Roots must exist; they are kept as real paths. */
  static async create(allowedRoots: string[]): Promise<NodeRuntimeFs> {
    return new NodeRuntimeFs(await Promise.all(allowedRoots.map((root) => realpath(root))));
  }

  /** Like Python's Path.resolve(): symlinks resolved component by component, a missing tail kept. */
  async realpath(path: string): Promise<string> {
    if (!path.startsWith("/")) throw refusal(`not an absolute path: ${path}`);
    let resolved = "/";
    const parts = path.split("/").filter((p) => p && p !== ".");
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (part === "..") {
        resolved = dirname(resolved);
        continue;
      }
      const candidate = join(resolved, part);
      let link: boolean;
      try {
        link = (await lstat(candidate)).isSymbolicLink();
      } catch (error) {
        if (!isMissing(error)) {
          // Python's non-strict resolve takes an unreadable component as it is written.
          resolved = candidate;
          continue;
        }
        // Nothing below a missing component exists: the rest is joined as written.
        for (const rest of parts.slice(i)) resolved = rest === ".." ? dirname(resolved) : join(resolved, rest);
        return resolved;
      }
      resolved = link ? await realpath(candidate).catch(() => candidate) : candidate;
    }
    return resolved;
  }

  private inside(real: string): boolean {
    return this.roots.some((root) => real === root || real.startsWith(root.endsWith(sep) ? root : root + sep));
  }

  /** The real path, or undefined when it lies outside every allowed root. */
  private async confined(path: string): Promise<string | undefined> {
    const real = await this.realpath(path);
    return this.inside(real) ? real : undefined;
  }

  private async mustConfine(path: string): Promise<string> {
    const real = await this.confined(path);
    if (real === undefined) throw refusal(`outside the allowed roots (${this.roots.join(", ")})`);
    return real;
  }

  async readFile(path: string): Promise<Uint8Array | undefined> {
    const real = await this.mustConfine(path);
    let handle;
    try {
      handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (isMissing(error) || code === "EISDIR") return undefined;
      throw error;
    }
    try {
      const info = await handle.stat();
      if (info.isDirectory()) return undefined;
      if (!info.isFile()) throw refusal("not a regular file");
      if (info.size > MAX_READ) throw refusal(`larger than ${MAX_READ} bytes`, "EFBIG");
      const data = await handle.readFile();
      if (data.byteLength > MAX_READ) throw refusal(`larger than ${MAX_READ} bytes`, "EFBIG");
      return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    } finally {
      await handle.close();
    }
  }

  async writeFile(path: string, data: Uint8Array): Promise<void> {
    const real = await this.mustConfine(path);
    const dir = dirname(real);
    await mkdir(dir, { recursive: true });
    // The directory may have been a symlink made after the check: check where it really is.
    if (!this.inside(await realpath(dir))) throw refusal(`outside the allowed roots (${this.roots.join(", ")})`);
    const existing = await stat(real).catch((error: unknown) => (isMissing(error) ? undefined : Promise.reject(error)));
    if (existing?.isDirectory()) throw refusal("is a directory", "EISDIR");
    if (existing && !existing.isFile()) throw refusal("not a regular file");
    const temp = join(dir, `.${real.slice(dir.length + 1)}.${randomBytes(6).toString("hex")}.tmp`);
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } catch (error) {
      await handle.close();
      await rm(temp, { force: true });
      throw error;
    }
    await handle.close();
    try {
      await rename(temp, real);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  async stat(path: string): Promise<FsEntryKind> {
    const real = await this.confined(path);
    if (real === undefined) return "missing";
    try {
      return (await stat(real)).isDirectory() ? "dir" : "file";
    } catch (error) {
      if (isMissing(error)) return "missing";
      throw error;
    }
  }

  async list(dir: string): Promise<string[]> {
    const real = await this.confined(dir);
    if (real === undefined) return [];
    try {
      return await readdir(real);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
  }

  async mkdir(dir: string): Promise<void> {
    await mkdir(await this.mustConfine(dir), { recursive: true });
  }
}
