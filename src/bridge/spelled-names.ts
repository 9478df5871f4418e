// A project path as the user's disk spells it. macOS writes names decomposed (`cafe\u0301.md`), a model sends them
// composed (`caf\u00e9.md`): the two look alike, and Linux reads them as two files (review 275: a read was "not found",
// closest "café.md", and a write made an identical-looking copy that the model's edits went to).
import { join } from "node:path";
import { foldPath, showTwins, TWIN_DIFFERENCE, unicodeTwinsRefusal } from "../core/workspace/paths.js";
import type { WsResult } from "../core/workspace/store.js";

/** `rel` as found on disk: the path to use, and for a path that is new, `twin`, a name already there that macOS and
 *  Windows read as its, or that prints as it (another case, a trailing dot, a zero-width space: foldPath, push's and
 *  the remote's rule), for which a new file is
 *  refused: `there`, that name, and `path`, the path as spelled with it (review 279: a folder's twin named the folder). */
export type OnDisk = { rel: string; twin?: { there: string; path: string } };

/** What onDisk looks at: whether a name is there as given (one that cannot be looked at, denied, is taken as given, and
 *  the caller's own step says why), and a folder's names. */
export interface Folders {
  there(abs: string): Promise<boolean>;
  list(abs: string): Promise<string[]>;
}

/** Why a new file is not made beside its twin (OnDisk): bmad-files' answer and a script's error alike. */
export function twinRefusal(rel: string, twin: NonNullable<OnDisk["twin"]>): string {
  const shown = showTwins(rel, twin.path);
  return `Cannot put a file at ${shown(rel)}: ${shown(twin.there)} is there, and macOS and Windows read both names as one, or they print alike (${TWIN_DIFFERENCE}). Write to ${shown(twin.path)}, or choose another name.`;
}

/** Each name of `rel` as given where it is there; else the one name in its folder that is the same text in another
 *  Unicode form (several: refused, each spelled out, as they print alike). Costs a look at the folders on its way only
 *  when the path is not there as given. */
export async function onDisk(folders: Folders, root: string, rel: string): Promise<WsResult<OnDisk>> {
  if (await folders.there(join(root, rel))) return { ok: true, value: { rel } };
  const parts = rel.split("/");
  for (const [i, name] of parts.entries()) {
    const folder = join(root, ...parts.slice(0, i));
    if (await folders.there(join(folder, name))) continue;
    const names = await folders.list(folder).catch(() => []);
    const same = names.filter((other) => other.normalize("NFC") === name.normalize("NFC"));
    if (same.length > 1) return { ok: false, kind: "invalid", error: unicodeTwinsRefusal(rel, same.map((other) => [...parts.slice(0, i), other].join("/"))) };
    if (same.length === 1) {
      parts[i] = same[0]!;
      continue;
    }
    const twin = names.find((other) => foldPath(other) === foldPath(name));
    return { ok: true, value: { rel: parts.join("/"), ...(twin === undefined ? {} : { twin: { there: [...parts.slice(0, i), twin].join("/"), path: [...parts.slice(0, i), twin, ...parts.slice(i + 1)].join("/") } }) } };
  }
  return { ok: true, value: { rel: parts.join("/") } };
}
