// The sign-ins file of --remote (credentials.ts): read whole, changed whole (a temp file renamed over it, 0600), under
// the credentials lock. Written through a link to its target; a damaged file is moved aside, never written over.
import { randomBytes } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseJsonText } from "./json-text.js";

/** One remote's saved sign-in: the issuer it is bound to, the registered client, the tokens. */
export type Stored = { issuer?: string; client?: unknown; tokens?: unknown };

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The file's text, or undefined where there is none to read (missing, a folder: a save then says what is wrong). */
function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** Every remote's entry, by URL (a Map: the keys come from a file), or undefined for a file that holds no such map. */
function parseAll(text: string): Map<string, Stored> | undefined {
  const parsed = parseJsonText(text);
  return isObject(parsed) ? new Map(Object.entries(parsed).filter((e): e is [string, Stored] => isObject(e[1]))) : undefined;
}

/** Every remote's entry, by URL. A missing or damaged file holds none. */
export function readAll(file: string): Map<string, Stored> {
  const text = readText(file);
  return (text === undefined ? undefined : parseAll(text)) ?? new Map();
}

/** Where the file's bytes are: through a link, its target (a config folder kept in a dotfiles repository, say; the
 *  lock is keyed by that same real path, and the project's own state files are written through links the same way).
 *  A link to nothing is refused: the file it should reach is not known to be the one meant. */
function landing(file: string): string {
  if (!lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink()) return file;
  try {
    return realpathSync(file);
  } catch {
    throw new Error(`${file} is a symlink to nothing; sign-ins are not saved through it. Remove the link, or make the file it points to, and sign in again.`);
  }
}

/** Sets `key`'s entry in the file (call under withCredentialsLock: two bridges saving at once lost entries, review 246).
 *  A file that cannot be parsed is moved aside first, and said so: writing over it erased every other remote's sign-in
 *  (review 251). */
export function writeEntry(file: string, key: string, entry: Stored, log: (m: string) => void): void {
  const real = landing(file);
  const text = readText(real);
  let all = text === undefined || text.trim() === "" ? new Map<string, Stored>() : parseAll(text);
  if (!all) {
    const aside = `${real}.broken-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    renameSync(real, aside);
    chmodSync(aside, 0o600);
    log(`${real} could not be read as saved sign-ins (damaged?); it was moved to ${aside}, and a new one is started`);
    all = new Map();
  }
  all.set(key, entry);
  writeAll(real, all);
}

/** Writes the file whole: a temp file renamed over it (never a torn credentials file), through a link to its target.
 *  On failure the temp file, which holds tokens, is removed, and the error names the file and the fix. */
export function writeAll(file: string, all: Map<string, Stored>): void {
  const real = landing(file);
  mkdirSync(dirname(real), { recursive: true, mode: 0o700 });
  const tmp = `${real}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify(Object.fromEntries(all), null, 2), { mode: 0o600 });
    renameSync(tmp, real);
  } catch (error) {
    rmSync(tmp, { force: true });
    const folder = lstatSync(real, { throwIfNoEntry: false })?.isDirectory();
    throw new Error(
      folder
        ? `Cannot save the sign-in: ${real} is a folder, where bmad-mcp keeps its sign-ins in a file. Remove or rename that folder, and sign in again.`
        : `Cannot save the sign-in to ${real}: ${(error as Error).message}. Check that its folder is yours and writable, and sign in again.`,
    );
  }
}
