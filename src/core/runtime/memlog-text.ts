// The text of BMAD's memlog (memlog.py): plain key: value frontmatter, then one entry per line. Pure, so that the
// edits append and set make can run where the file is kept (a workspace's object applies one in the same step as
// its write: one call, no read first) as well as in the port.
import { PyError } from "./py-json.js";
import { splitlines, strip, stripChars } from "./py-str.js";
import type { WallTime } from "./time-zone.js";

/** What memlog.py's append and set do to a memlog: an entry line at the end, or a frontmatter field; each also
 *  stamps `updated`. */
export type MemlogEdit = { op: "append"; entry: string } | { op: "set"; key: string; value: string };

type Meta = Map<string, string>;

/** Frontmatter in source order and the body; the closing fence is the first line that is exactly ---. */
export function splitMemlog(text: string): [Meta, string] {
  const lines = splitlines(text);
  if (!lines.length || lines[0] !== "---") throw new PyError("ValueError", ".memlog.md has no frontmatter");
  const end = lines.findIndex((line, i) => i > 0 && line === "---");
  if (end < 0) throw new PyError("ValueError", ".memlog.md frontmatter is not terminated");
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
