// pathlib.PurePosixPath and Path.resolve() as the scripts use them, over RuntimeFs.
import type { RuntimeFs } from "./fs.js";
import { encodeUtf8, osError, statNamed, statPath, writeBytes } from "./py-io.js";
import { PyError } from "./py-json.js";
import { repr } from "./py-str.js";

/** str(Path(p)): repeated and trailing slashes and "." parts dropped; ".." kept; "" is ".". */
export function normPath(p: string): string {
  const root = p.startsWith("//") && !p.startsWith("///") ? "//" : p.startsWith("/") ? "/" : "";
  const parts = p.split("/").filter((part) => part && part !== ".");
  return root + parts.join("/") || ".";
}

/** str(Path(a) / b) */
export function joinPath(a: string, ...rest: string[]): string {
  let out = a;
  // Path("") / "x" is "x", not "/x" (review 97: memlog.py --workspace "" went to the root of the file system).
  for (const b of rest) out = b.startsWith("/") || out === "" ? b : `${out}/${b}`;
  return normPath(out);
}

/** Path.name */
export function baseName(p: string): string {
  const parts = normPath(p).split("/");
  const last = parts[parts.length - 1]!;
  return last === "." ? "" : last;
}

/** str(Path.parent) */
export function parentPath(p: string): string {
  const n = normPath(p);
  if (n === "/" || n === "//" || n === "." || n === "..") return n;
  const i = n.lastIndexOf("/");
  if (i < 0) return ".";
  return i === 0 ? "/" : n.startsWith("//") && i === 1 ? "//" : n.slice(0, i);
}

/** The path the file system is asked for when Python opens Path(p) as it is (no resolve): absolute
 *  against cwd. A file system with symlinks resolves ".." itself; otherwise ".." is collapsed as the
 *  OS would, and a ".." after something that is no directory leaves nothing to open (undefined). */
export async function fsPath(fs: RuntimeFs, p: string, cwd: string): Promise<string | undefined> {
  const abs = joinPath(cwd, p);
  if (fs.realpath) return abs;
  if (!abs.split("/").includes("..")) return collapse(abs);
  const out: string[] = [];
  for (const part of abs.split("/").filter((x) => x && x !== ".")) {
    if (part !== "..") out.push(part);
    else if ((await statPath(fs, `/${out.join("/")}`)) !== "dir") return undefined;
    else out.pop();
  }
  return `/${out.join("/")}`;
}

/** posixpath.normpath of an absolute path: ".." collapses lexically; one leading slash. */
function collapse(abs: string): string {
  const out: string[] = [];
  for (const part of abs.split("/")) {
    if (!part || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return `/${out.join("/")}`;
}

/** Path(p).resolve(): symlinks resolved where the file system has them, else lexically. */
export async function resolvePath(fs: RuntimeFs, p: string, cwd: string): Promise<string> {
  const abs = p.startsWith("/") ? p : `${cwd}/${p}`;
  return fs.realpath ? fs.realpath(abs) : collapse(abs);
}

/** Path(p).resolve(strict=True): FileNotFoundError naming the first missing component; a path the file system
 *  refuses (a link out of the project: stat sees nothing there) raises the refusal, as writeOutput does (review 475:
 *  "No such file or directory: '/tmp'" of a skill folder linked outside). */
export async function resolveStrict(fs: RuntimeFs, p: string, cwd: string): Promise<string> {
  const resolved = await resolvePath(fs, p, cwd);
  if ((await statPath(fs, resolved)) !== "missing") return resolved;
  const asked = await fsPath(fs, p, cwd);
  if (asked !== undefined) await statNamed(fs, asked, p);
  // The first missing component: below the deepest ancestor that exists (searched from the bottom,
  // since a confined file system shows nothing above its roots).
  const parts = resolved.split("/").filter(Boolean);
  let prefix = `/${parts.join("/")}`;
  for (let n = parts.length - 1; n >= 0; n--) {
    const parent = `/${parts.slice(0, n).join("/")}`;
    if (n > 0 && (await statPath(fs, parent)) === "missing") continue;
    prefix = `${parent === "/" ? "" : parent}/${parts[n]}`;
    break;
  }
  throw new PyError("FileNotFoundError", `[Errno 2] No such file or directory: ${repr(prefix)}`);
}

/** Orders paths like sorted() orders Path objects: part by part, each part by code point. */
export function comparePathParts(a: string, b: string, compare: (x: string, y: string) => number): number {
  const x = a.split("/");
  const y = b.split("/");
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = compare(x[i]!, y[i]!);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** Path(p).write_text(text), as a script's -o does: no folders made, so a missing one is Python's FileNotFoundError;
 *  a folder this file system refuses (outside the project, inside .git/: stat calls it missing) says the refusal
 *  (review 309-6: "No such file" named a folder outside that is there). */
export async function writeOutput(fs: RuntimeFs, p: string, cwd: string, text: string): Promise<void> {
  const target = await fsPath(fs, p, cwd);
  if (target === undefined) throw osError("ENOENT", p);
  if ((await statPath(fs, parentPath(target))) !== "dir") {
    // Refused with the reason where the write would be; else no folder is there.
    await statNamed(fs, target, p);
    throw osError("ENOENT", p);
  }
  await writeBytes(fs, target, encodeUtf8(text));
}
