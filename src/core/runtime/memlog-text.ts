// The text of BMAD's memlog (memlog.py): plain key: value frontmatter, then one entry per line. Pure, so that the
// edits append and set make can run where the file is kept (a workspace's object applies one in the same step as
// its write: one call, no read first) as well as in the port.
import { PyError } from "./py-json.js";
import { terminalText } from "../workspace/paths.js";
import { splitlines, strip, stripChars } from "./py-str.js";
import type { WallTime } from "./time-zone.js";

/** What memlog.py's append and set do to a memlog: an entry line at the end, or a frontmatter field; each also
 *  stamps `updated`. */
export type MemlogEdit = { op: "append"; entry: string } | { op: "set"; key: string; value: string };

type Meta = Map<string, string>;

/** memlog.py's ValueError for a file that is no memlog (no frontmatter, or none that ends), as Python raises it; `at`
 *  is the file's path where the port knows it, so that bmad-run can name it and how to get the memlog back. */
export class NotAMemlog extends PyError {
  at?: string;
  constructor(message: string, readonly reason: string) {
    super("ValueError", message);
  }
}

/** Frontmatter in source order and the body; the closing fence is the first line that is exactly ---. */
export function splitMemlog(text: string): [Meta, string] {
  const lines = splitlines(text);
  if (!lines.length || lines[0] !== "---") throw new NotAMemlog(".memlog.md has no frontmatter", "no frontmatter");
  const end = lines.findIndex((line, i) => i > 0 && line === "---");
  if (end < 0) throw new NotAMemlog(".memlog.md frontmatter is not terminated", "its frontmatter is not terminated");
  const meta: Meta = new Map();
  for (const line of lines.slice(1, end)) {
    const i = line.indexOf(":");
    if (i >= 0) meta.set(strip(line.slice(0, i)), strip(line.slice(i + 1)));
  }
  return [meta, stripChars(lines.slice(end + 1).join("\n"), "\n", "left")];
}

export function renderMemlog(meta: Meta, body: string): string {
  const fm = [...meta].map(([k, v]) => `${k}: ${splitlines(v).join(" ")}`).join("\n");
  return `---\n${fm}\n---\n\n${stripChars(body, "\n", "right")}\n`;
}

/** datetime.now().strftime("%Y-%m-%dT%H:%M") of a wall-clock time. */
export function memlogStamp(now: WallTime): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${now.year}-${pad(now.month)}-${pad(now.day)}T${pad(now.hour)}:${pad(now.minute)}`;
}

/** `updated` moves to the end of the frontmatter, as Python's dict does on delete and set. */
export function touchMemlog(meta: Meta, stamp: string): void {
  meta.delete("updated");
  meta.set("updated", stamp);
}

/** How many entries a memlog body holds: what memlog.py's acknowledgement counts. */
export function memlogEntries(body: string): number {
  return splitlines(body).filter((line) => line.startsWith("- ")).length;
}

/** The memlog after `edit` at `stamp`, and its entries. */
export function editMemlog(text: string, edit: MemlogEdit, stamp: string): { text: string; entries: number } {
  const [meta, old] = splitMemlog(text);
  let body = old;
  if (edit.op === "append") body = strip(old) ? `${stripChars(old, "\n", "right")}\n${edit.entry}` : edit.entry;
  else meta.set(edit.key, edit.value);
  touchMemlog(meta, stamp);
  return { text: renderMemlog(meta, body), entries: memlogEntries(body) };
}

/** The memlog's name in its run folder: {workspace}/.memlog.md. */
export const MEMLOG_FILE = ".memlog.md";

export const isMemlogPath = (path: string) => path === MEMLOG_FILE || path.endsWith(`/${MEMLOG_FILE}`);

/** A memlog's entries (its body's lines), none for an empty body. */
const bodyLines = (body: string): string[] => (strip(body) ? splitlines(stripChars(body, "\n", "right")) : []);

type Copy = { meta: Meta; entries: string[] };

/** Each text's frontmatter and entries; undefined where any does not parse. */
function parsedCopies(texts: string[]): Copy[] | undefined {
  try {
    return texts.map((text) => {
      const [meta, body] = splitMemlog(text);
      return { meta, entries: bodyLines(body) };
    });
  } catch (error) {
    if (error instanceof PyError) return undefined;
    throw error;
  }
}

/** Why memlog.py reads no memlog in `text` (".memlog.md has no frontmatter"), or undefined where it reads one: the
 *  copies a merge of appended entries needs all parse (mergeMemlogs). */
export function memlogFormatError(text: string): string | undefined {
  try {
    splitMemlog(text);
    return undefined;
  } catch (error) {
    if (error instanceof PyError) return error.message;
    throw error;
  }
}

/** The first of `was`'s entries that `copy` no longer holds where it stood; undefined where `copy` only appended. */
function firstUnappended(was: Copy, copy: Copy): number | undefined {
  const at = was.entries.findIndex((line, i) => copy.entries[i] !== line);
  return at < 0 ? undefined : at;
}

/** How many characters of an entry a message quotes: its first words, never more than a line. */
const QUOTED = 60;

/** What `copy` did to the memlog `base` beyond appending, in a few words (`removed the entry "- (event) due …"`), for a
 *  refusal to name (review 264: a removed entry was refused as a mere change); undefined where it only appended, or
 *  either does not parse. */
export function memlogUnappended(base: string, copy: string): string | undefined {
  const copies = parsedCopies([base, copy]);
  if (!copies) return undefined;
  const [was, now] = copies as [Copy, Copy];
  const at = firstUnappended(was, now);
  if (at === undefined) return undefined;
  const entry = was.entries[at]!;
  // Shown in the user's terminal: without what a terminal takes for a command or hides (a member wrote the entry).
  const quoted = `"${terminalText(entry.length > QUOTED ? `${entry.slice(0, QUOTED - 1)}…` : entry)}"`;
  if (now.entries.includes(entry)) return `moved the entry ${quoted}`;
  // The entries after it moved up one: it went, rather than being rewritten.
  const removed = now.entries[at] === was.entries[at + 1] || now.entries.length < was.entries.length;
  return `${removed ? "removed" : "changed"} the entry ${quoted}`;
}

/** One memlog from two copies each side appended to since `base`, the copy both started from (review 205: a memlog
 *  appended on both sides at once stopped pull and push, and each way out dropped the other side's entries): the
 *  base's entries, then those `theirs` appended, then those `ours` did, and the later `updated`. Undefined where a copy
 *  did more than append (an entry changed or removed, frontmatter set on both sides each its own way) or any does not
 *  parse: a merge would lose one side's word. */
export function mergeMemlogs(base: string, ours: string, theirs: string): string | undefined {
  const copies = parsedCopies([base, ours, theirs]);
  if (!copies) return undefined;
  const [was, mine, its] = copies as [Copy, Copy, Copy];
  if (![mine, its].every((copy) => firstUnappended(was, copy) === undefined)) return undefined;
  // The fields but `updated`: one side's `set` is kept, the same on both is one, each its own way is no merge.
  const fields = ({ meta }: Copy) => JSON.stringify([...meta].filter(([key]) => key !== "updated"));
  const kept = fields(mine) === fields(its) || fields(its) === fields(was) ? mine : fields(mine) === fields(was) ? its : undefined;
  if (!kept) return undefined;
  const meta = new Map(kept.meta);
  // Wall-clock stamps of one format: the later sorts last.
  const stamps = [mine.meta.get("updated"), its.meta.get("updated")].filter((stamp) => stamp !== undefined).sort();
  if (stamps.length) touchMemlog(meta, stamps.at(-1)!);
  const added = (copy: Copy) => copy.entries.slice(was.entries.length);
  return renderMemlog(meta, [...was.entries, ...added(its), ...added(mine)].join("\n"));
}
