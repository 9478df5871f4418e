// Names as macOS and Windows read them (foldPath): what among a set of paths a new one would be one with there. Push
// holds back a file of its own that the remote's names clash with; pull leaves the remote's that the disk's clash with.
import { foldPath } from "./paths.js";

/** What stands in a new path's way: `file`, another spelling of it (`at`); `above`, a file (`at`) where it needs a
 *  folder; `folder`, a folder of its name, which holds `below`; `folder twin`, a folder of its (`mine`) spelled
 *  otherwise (`at`), which holds `below`: one folder on macOS and Windows, two on Linux. */
export type Clash = { kind: "file"; at: string } | { kind: "above"; at: string } | { kind: "folder"; below: string } | { kind: "folder twin"; mine: string; at: string; below: string };

/** Paths indexed once by their folded names, so each look-up costs one fold. */
export class FoldedNames {
  /** Each file, as folded, and its spelling. */
  private readonly files = new Map<string, string>();
  /** Each folder the files make, as folded, and one file below it. */
  private readonly folders = new Map<string, string>();

  constructor(paths: Iterable<string>) {
    for (const path of paths) this.add(path);
  }

  add(path: string): void {
    const key = foldPath(path);
    if (!this.files.has(key)) this.files.set(key, path);
    for (let at = key.indexOf("/"); at >= 0; at = key.indexOf("/", at + 1)) if (!this.folders.has(key.slice(0, at))) this.folders.set(key.slice(0, at), path);
  }

  clash(path: string): Clash | undefined {
    const key = foldPath(path);
    const twin = this.files.get(key);
    if (twin !== undefined && twin !== path) return { kind: "file", at: twin };
    for (let at = key.indexOf("/"); at >= 0; at = key.indexOf("/", at + 1)) {
      const above = this.files.get(key.slice(0, at));
      if (above !== undefined) return { kind: "above", at: above };
    }
    const below = this.folders.get(key);
    if (below !== undefined) return { kind: "folder", below };
    // Each folder on its way, as spelled by a file already below it (folding keeps the slashes: names match by depth).
    const names = path.split("/");
    for (let at = key.indexOf("/"), depth = 1; at >= 0; at = key.indexOf("/", at + 1), depth++) {
      const other = this.folders.get(key.slice(0, at));
      if (other === undefined) continue;
      const [mine, theirs] = [names.slice(0, depth).join("/"), other.split("/").slice(0, depth).join("/")];
      if (theirs !== mine) return { kind: "folder twin", mine, at: theirs, below: other };
    }
    return undefined;
  }
}
