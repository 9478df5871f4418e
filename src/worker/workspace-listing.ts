// A project's current files (path, version, size), kept in its Durable Object's memory between calls and
// updated with each change, so listing a thousand files, or checking a write against the project's limits,
// reads no rows. Sorted by path (JavaScript order).
import type { Glob } from "../core/catalog/glob.js";
import { mayServeAsConfig } from "../core/catalog/config.js";
import type { ListedFile } from "../core/workspace/store.js";
import { foldPath } from "../core/workspace/paths.js";
import { folderOf } from "../core/workspace/limits.js";
import { nearestFirst } from "../core/catalog/closest.js";

/** A config's size as a collaborator's limits count it: rounded up to this, so that no limit's answer tells its raw
 *  size, which would tell a removed secret's length (review 28: a writer filled the project until a write was refused,
 *  and read the configs' raw size off the total). */
const CONFIG_SIZE_STEP = 4096;
const roundedSize = (size: number) => Math.ceil(size / CONFIG_SIZE_STEP) * CONFIG_SIZE_STEP;

/** A listing as columns: one array per field crosses a Durable Object call far faster than an object per file. */
export interface ListingColumns {
  paths: string[];
  versions: number[];
  sizes: number[];
}

export class FileListing {
  private readonly files: ListedFile[];
  /** Their sizes added up. */
  bytes = 0;
  /** The sizes of configs and data files (any may hold a secret: servedVersion) added up, and as a collaborator's limits count them (roundedSize). */
  configBytes = 0;
  configRoundedBytes = 0;

  /** `named`: every path the project's history holds, its deleted files' too, read when a name is first looked up in
   *  another Unicode form (spelledAs). */
  constructor(rows: ListedFile[], private readonly named: () => Iterable<string>) {
    this.files = rows.map(({ path, version, size }) => ({ path, version, size })).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    for (const f of this.files) this.tally(f, 1);
  }

  private tally(f: ListedFile, sign: 1 | -1): void {
    this.bytes += sign * f.size;
    if (!mayServeAsConfig(f.path)) return;
    this.configBytes += sign * f.size;
    this.configRoundedBytes += sign * roundedSize(f.size);
  }

  get count(): number {
    return this.files.length;
  }

  /** Where `path` is, or where it would go. */
  private find(path: string): number {
    let lo = 0;
    let hi = this.files.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.files[mid]!.path < path) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Each file by its path as a folding file system reads it (foldPath), and how many files each folder holds as it
   *  reads that folder's path, made when first asked for. */
  private folded?: { files: Map<string, string>; folders: Map<string, number> };

  private foldedNames(): { files: Map<string, string>; folders: Map<string, number> } {
    if (!this.folded) {
      this.folded = { files: new Map(), folders: new Map() };
      for (const f of this.files) this.fold(f.path, 1);
    }
    return this.folded;
  }

  private fold(path: string, sign: 1 | -1): void {
    const { files, folders } = this.folded!;
    const key = foldPath(path);
    if (sign === 1) files.set(key, files.get(key) ?? path);
    else if (files.get(key) === path) files.delete(key);
    for (let at = key.indexOf("/"); at >= 0; at = key.indexOf("/", at + 1)) {
      const folder = key.slice(0, at);
      const count = (folders.get(folder) ?? 0) + sign;
      if (count > 0) folders.set(folder, count);
      else folders.delete(folder);
    }
  }

  /** What a folding file system (macOS, Windows: case, Unicode form, trailing dots) reads as another file where `path`
   *  would go, or as a file where `path` needs a folder, or as a folder where `path` would be a file (review 73:
   *  `docs/PRD.md` beside a folder `docs/prd.md/`), or as a folder on its way spelled otherwise (review 333:
   *  `notes/x.md` beside `Notes/a.md`): that file (for a folder, one below it; for a folder twin, that folder), or
   *  undefined. */
  twin(path: string): { path: string; is: "file" | "file above" | "folder" | "folder twin" } | undefined {
    const { files, folders } = this.foldedNames();
    const key = foldPath(path);
    const other = files.get(key);
    if (other !== undefined && other !== path) return { path: other, is: "file" };
    for (let at = key.indexOf("/"); at >= 0; at = key.indexOf("/", at + 1)) {
      const above = files.get(key.slice(0, at));
      if (above !== undefined) return { path: above, is: "file above" };
    }
    const below = folders.has(key) ? this.oneBelow(key) : undefined;
    if (below) return { path: below, is: "folder" };
    // A folder on the way that holds files as folded but none as spelled is there spelled otherwise. Each write pays a
    // map look-up and a binary search a folder; the files are scanned only to name a twin found (folding keeps the
    // slashes: names match by depth).
    const names = path.split("/");
    for (let at = key.indexOf("/"), depth = 1; at >= 0; at = key.indexOf("/", at + 1), depth++) {
      if (!folders.has(key.slice(0, at)) || this.holds(names.slice(0, depth).join("/"))) continue;
      const there = this.oneBelow(key.slice(0, at));
      if (there) return { path: there.split("/").slice(0, depth).join("/"), is: "folder twin" };
    }
    return undefined;
  }

  /** A file below the folder that folds as `key` (foldPath). */
  private oneBelow(key: string): string | undefined {
    return this.files.find((f) => foldPath(f.path).startsWith(`${key}/`))?.path;
  }

  /** Each path and folder ever stored (a current file's, or a deleted one's with its history) by its NFC form, with
   *  the spellings stored under it, made when first asked for: what a path given in another Unicode form is found by.
   *  A name stays once stored: a deleted file's history keeps it. */
  private forms?: Map<string, Set<string>>;

  private addForms(path: string): void {
    for (let end = path.indexOf("/"); ; end = path.indexOf("/", end + 1)) {
      const name = end < 0 ? path : path.slice(0, end);
      const key = name.normalize("NFC");
      const spellings = this.forms!.get(key) ?? new Set<string>();
      this.forms!.set(key, spellings.add(name));
      if (end < 0) return;
    }
  }

  /** `path` with each name as stored where it is stored only in another Unicode form (macOS writes names decomposed, a
   *  model sends them composed: review 300), name by name as the bridge's onDisk finds them: a current file's or
   *  folder's name, or a deleted file's, so that one file keeps one history whatever form its name is given in (review
   *  316: a member's delete and new file in the other form hid the owner's versions). Where several stored names are
   *  that one name's other forms, those names (to be refused: they print alike). A name stored as given, or not
   *  stored in any form, stays as given. */
  spelledAs(path: string): { path: string } | { alike: string[] } {
    if (this.version(path) !== undefined) return { path };
    if (!this.forms) {
      this.forms = new Map();
      for (const stored of this.named()) this.addForms(stored);
      for (const f of this.files) this.addForms(f.path);
    }
    const parts = path.split("/");
    let at = "";
    for (const [i, name] of parts.entries()) {
      const given = i ? `${at}/${name}` : name;
      const there = [...(this.forms.get(given.normalize("NFC")) ?? [])].filter((other) => folderOf(other) === folderOf(given)).sort();
      if (there.length > 1 && !there.includes(given)) return { alike: there };
      at = there.length === 1 ? there[0]! : given;
    }
    return { path: at };
  }

  /** How many files each folder (`a/b/`, the top one `""`) holds directly, made when first asked for. */
  private direct?: Map<string, number>;

  /** How many files are directly in the folder `path` is (or would be) in. */
  inFolder(path: string): number {
    if (!this.direct) {
      this.direct = new Map();
      for (const f of this.files) this.countDirect(f.path, 1);
    }
    return this.direct.get(folderOf(path)) ?? 0;
  }

  private countDirect(path: string, sign: 1 | -1): void {
    const folder = folderOf(path);
    const count = (this.direct!.get(folder) ?? 0) + sign;
    if (count > 0) this.direct!.set(folder, count);
    else this.direct!.delete(folder);
  }

  /** A file written (`entry`) or deleted (undefined). */
  set(path: string, entry: ListedFile | undefined): void {
    const i = this.find(path);
    const present = this.files[i]?.path === path;
    if (this.folded && present !== Boolean(entry)) this.fold(path, entry ? 1 : -1);
    if (this.direct && present !== Boolean(entry)) this.countDirect(path, entry ? 1 : -1);
    if (this.forms) this.addForms(path);
    if (present) this.tally(this.files[i]!, -1);
    if (entry) {
      this.files.splice(i, present ? 1 : 0, { path, version: entry.version, size: entry.size });
      this.tally(this.files[i]!, 1);
    } else if (present) this.files.splice(i, 1);
  }

  /** The files named as `path`'s file is, in any case, anywhere, the shortest paths first, at most `limit`: one pass
   *  over the paths, comparing only names of that length (review 477: a missing _bmad-output/prd.md was answered with
   *  the first files of that folder, never the PRD a folder below). */
  namesakes(path: string, limit: number): string[] {
    const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
    const found: string[] = [];
    for (const { path: p } of this.files) {
      const at = p.lastIndexOf("/") + 1;
      if (p.length - at === name.length && p.slice(at).toLowerCase() === name) found.push(p);
    }
    return found.sort(nearestFirst(path)).slice(0, limit);
  }

  /** The current version of the file at `path`; undefined: none. */
  version(path: string): number | undefined {
    const f = this.files[this.find(path)];
    return f?.path === path ? f.version : undefined;
  }

  /** Whether some file is below `dir` (so the folder exists). */
  holds(dir: string): boolean {
    return this.files[this.find(`${dir}/`)]?.path.startsWith(`${dir}/`) ?? false;
  }

  /** The files below `dir`, by path (null: more than `most`). */
  below(dir: string, most: number): { paths: string[]; versions: number[] } | null {
    const out = { paths: [] as string[], versions: [] as number[] };
    for (let i = this.find(`${dir}/`); i < this.files.length && this.files[i]!.path < `${dir}0`; i++) {
      if (out.paths.push(this.files[i]!.path) > most) return null;
      out.versions.push(this.files[i]!.version);
    }
    return out;
  }

  match(glob: Glob): ListingColumns {
    const out: ListingColumns = { paths: [], versions: [], sizes: [] };
    for (const f of this.files) {
      if (!glob.test(f.path)) continue;
      out.paths.push(f.path);
      out.versions.push(f.version);
      out.sizes.push(f.size);
    }
    return out;
  }
}

export function fromColumns(c: ListingColumns): ListedFile[] {
  return c.paths.map((path, i) => ({ path, version: c.versions[i]!, size: c.sizes[i]! }));
}
