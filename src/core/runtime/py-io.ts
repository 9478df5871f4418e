// Reading and writing through RuntimeFs with Python's errors: OSError texts ("[Errno 2] No such
// file or directory: '/x'") and UnicodeDecodeError texts, so messages match the scripts'.
import { FsRefusal, type NamingError, type RuntimeFs, type TextEdit, type TextEdited } from "./fs.js";
import { PyError } from "./py-json.js";
import { repr, universalNewlines } from "./py-str.js";

const ERRNO: Record<string, [number, string, string]> = {
  ENOENT: [2, "No such file or directory", "FileNotFoundError"],
  EACCES: [13, "Permission denied", "PermissionError"],
  EPERM: [1, "Operation not permitted", "PermissionError"],
  EEXIST: [17, "File exists", "FileExistsError"],
  ENOTDIR: [20, "Not a directory", "NotADirectoryError"],
  EISDIR: [21, "Is a directory", "IsADirectoryError"],
};

/** The OSError Python raises for errno `code` on `path`. */
export function osError(code: keyof typeof ERRNO, path: string): PyError {
  const [errno, text, type] = ERRNO[code]!;
  return new PyError(type, `[Errno ${errno}] ${text}: ${repr(path)}`);
}

/** A change the door refused for a reason that is not the file's (the bridge's kept copies are full): no OSError a
 *  script catches, and its run answers the reason as it is, never as a traceback (review 345). */
export class ChangeRefused extends Error {}

/** Whether `except OSError` catches it: the OSError or one of its subclasses these ports raise. */
export function isOsError(error: unknown): error is PyError {
  return error instanceof PyError && (error.pyType === "OSError" || Object.values(ERRNO).some(([, , type]) => type === error.pyType));
}

/** The OSError a script sees for a refusal (FsRefusal): caught as any other, and answered as the refusal when it ends
 *  the run (runScript). */
export class RefusedOsError extends PyError {
  constructor(
    os: PyError,
    readonly refusal: string,
  ) {
    super(os.pyType, os.message);
  }
}

/** Any failure of the file system (a refusal, an I/O error) as the OSError Python would see; one whose message names
 *  its file (NamingError) names it once (review 226: `x.md: was changed…: '/abs/x.md'`). */
export function asOsError(error: unknown, path: string): PyError {
  if (error instanceof PyError) return error;
  const os = systemOsError(error, path);
  return error instanceof FsRefusal ? new RefusedOsError(os, error.message) : os;
}

function systemOsError(error: unknown, path: string): PyError {
  const code = (error as { code?: unknown } | null)?.code;
  // A refusal of the confined file system (no `syscall`: not the OS's) keeps its reason after Python's words (review 309:
  // `.git/` and a link to a config answered a bare "Permission denied").
  if (typeof code === "string" && code in ERRNO) {
    const os = osError(code, path);
    const reason = !(error as { syscall?: unknown }).syscall && error instanceof Error ? error.message : "";
    return reason ? new PyError(os.pyType, `${os.message} (${reason})`) : os;
  }
  const message = error instanceof Error ? error.message : String(error);
  return new PyError("OSError", (error as Partial<NamingError> | null)?.namesFile ? message : `${message}: ${repr(path)}`);
}

async function guard<T>(path: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (error) {
    throw error instanceof ChangeRefused ? error : asOsError(error, path);
  }
}

/** Path.read_bytes() (path as Python names it in errors; fsPath absolute). */
export async function readBytes(fs: RuntimeFs, fsPath: string, path = fsPath): Promise<Uint8Array> {
  const data = await guard(path, () => fs.readFile(fsPath));
  if (data) return data;
  throw osError((await guard(path, () => fs.stat(fsPath))) === "dir" ? "EISDIR" : "ENOENT", path);
}

/** Path.read_text(encoding="utf-8"): strict UTF-8, BOM kept, universal newlines. */
export async function readText(fs: RuntimeFs, fsPath: string, path = fsPath): Promise<string> {
  return universalNewlines(decodeUtf8(await readBytes(fs, fsPath, path)));
}

const LONE_SURROGATE = /\p{Cs}/u;

/** str.encode("utf-8"): text with a lone surrogate (a JSON string can carry one; UTF-8 cannot) fails as Python's write
 *  does, before anything is written, where TextEncoder would write U+FFFD and answer ok. */
export function encodeUtf8(text: string): Uint8Array {
  const lone = LONE_SURROGATE.exec(text);
  if (lone) {
    const position = [...text.slice(0, lone.index)].length; // Python counts code points
    throw new PyError("UnicodeEncodeError", `'utf-8' codec can't encode character ${repr(lone[0])} in position ${position}: surrogates not allowed`);
  }
  return new TextEncoder().encode(text);
}

export function writeBytes(fs: RuntimeFs, path: string, data: Uint8Array): Promise<void> {
  return guard(path, () => fs.writeFile(path, data));
}

/** Replaces a file's bytes (null: removes the file) only if it still holds `expected` (undefined: no file there: a
 *  create, as Python's open(path, "x")), as one step where the file system can. False when it changed meanwhile:
 *  another writer's change stands, and this one is not made; false too for a removal where nothing can remove. */
export async function replaceIfUnchanged(fs: RuntimeFs, path: string, expected: Uint8Array | undefined, data: Uint8Array | null): Promise<boolean> {
  const same = (current: Uint8Array | undefined) =>
    current === undefined || expected === undefined ? current === expected : current.byteLength === expected.byteLength && current.every((b, i) => b === expected[i]);
  if (!fs.update) {
    if (data === null || !same(await fs.readFile(path))) return false;
    await writeBytes(fs, path, data);
    return true;
  }
  let replaced = false;
  await guard(path, () =>
    fs.update!(path, (current) => {
      replaced = same(current);
      return replaced ? data : undefined;
    }),
  );
  return replaced;
}

/** A file's text rewritten as one step (read, change, write), where the file system can: a concurrent writer's
 *  change is then never lost. The text is read as readText reads it; a missing file fails as Python's read does. */
export function rewriteText(fs: RuntimeFs, fsPath: string, change: (text: string) => string | Promise<string>, path = fsPath): Promise<void> {
  const next = async (data: Uint8Array | undefined): Promise<Uint8Array> => {
    if (data === undefined) throw osError((await fs.stat(fsPath)) === "dir" ? "EISDIR" : "ENOENT", path);
    return encodeUtf8(await change(universalNewlines(decodeUtf8(data))));
  };
  if (!fs.update) return readBytes(fs, fsPath, path).then(next).then((data) => writeBytes(fs, fsPath, data));
  return guard(path, () => fs.update!(fsPath, next));
}

/** A named edit applied where the file is kept, in one step with its write, where the file system can (a
 *  workspace): what it tells. Undefined where it cannot, or where the edit did not apply there (the file is missing,
 *  not UTF-8, not what the edit expects, or the change passes a limit): rewriteText then does it and says why. */
export function editTextThere(fs: RuntimeFs, fsPath: string, edit: TextEdit, path = fsPath): Promise<TextEdited | undefined> {
  // Text UTF-8 cannot hold goes the rewriteText way, whose encoding refuses it as Python does.
  const encodable = Object.values(edit).every((part) => !LONE_SURROGATE.test(part));
  return fs.editText && encodable ? guard(path, () => fs.editText!(fsPath, edit)) : Promise.resolve(undefined);
}

/** A folder created whole from `files` (Python stages one and renames it): nothing is left when it fails. */
export function createTree(fs: RuntimeFs, path: string, files: Map<string, Uint8Array>): Promise<void> {
  return guard(path, () => fs.createTree(path, files));
}

export function mkdirs(fs: RuntimeFs, path: string): Promise<void> {
  return guard(path, () => fs.mkdir(path));
}

export function listDir(fs: RuntimeFs, dir: string): Promise<string[]> {
  return guard(dir, () => fs.list(dir));
}

export function statPath(fs: RuntimeFs, path: string): Promise<"file" | "dir" | "missing"> {
  return guard(path, () => fs.stat(path));
}

/** statPath of a path a command line names (fsPath; `path` as Python shows it). Where stat finds nothing because the
 *  file system refuses the path (outside the project, inside .git/: stat sees nothing there, so that a walk up to /
 *  ends quietly), the refusal is thrown as the OSError a read gives: Python would read the file, and "not found" of
 *  one that may be there sends a model looking for it (review 309-6). */
export async function statNamed(fs: RuntimeFs, fsPath: string, path = fsPath): Promise<"file" | "dir" | "missing"> {
  const kind = await statPath(fs, fsPath);
  // A read of a path that is only missing finds nothing; one the file system refuses says why.
  if (kind === "missing") await guard(path, () => fs.readFile(fsPath));
  return kind;
}

const STRICT = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** bytes.decode("utf-8"), raising Python's UnicodeDecodeError text on bad input. */
export function decodeUtf8(data: Uint8Array): string {
  try {
    return STRICT.decode(data);
  } catch {
    throw new PyError("UnicodeDecodeError", utf8ErrorText(data));
  }
}

function utf8ErrorText(b: Uint8Array): string {
  const at = (start: number, end: number, reason: string) =>
    end - start === 1
      ? `'utf-8' codec can't decode byte 0x${b[start]!.toString(16).padStart(2, "0")} in position ${start}: ${reason}`
      : `'utf-8' codec can't decode bytes in position ${start}-${end - 1}: ${reason}`;
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    const need = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (need < 0) return at(i, i + 1, "invalid start byte");
    // The second byte's range narrows for E0, ED, F0 and F4 (no overlongs, surrogates or > U+10FFFF).
    const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
    let j = 1;
    for (; j <= need; j++) {
      if (i + j >= b.length) return at(i, b.length, "unexpected end of data");
      const d = b[i + j]!;
      const ok = j === 1 ? d >= lo && d <= hi : d >= 0x80 && d <= 0xbf;
      if (!ok) return at(i, i + j, "invalid continuation byte");
    }
    i += j;
  }
  return "'utf-8' codec can't decode";
}
