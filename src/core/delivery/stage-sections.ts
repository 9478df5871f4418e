// Choosing parts of a BMAD markdown file by its own structure: a section by heading, then a run of
// paragraphs from one that starts with `from` to the one before `until`, less any whole sentence named in
// `drop` (a gate the session replaces). Nothing inside is rewritten.
import { atxHeading, bodyAfterFrontmatter } from "../markdown.js";

export interface Pick {
  /** A heading's text (any level); absent: the body under the document's title. */
  section?: string;
  /** The first paragraph kept starts with this text. */
  from?: string;
  /** Paragraphs from the one starting with this text on are left out. */
  until?: string;
  /** Sentences starting with one of these are left out whole, e.g. a headless mode's "halt blocked". */
  drop?: string[];
}

/** The lines under a heading up to the next heading of the same or a higher level (fences respected). */
function sectionLines(lines: string[], title: string | undefined): string[] | undefined {
  let fenced = false;
  let start = -1;
  let level = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const h = atxHeading(line);
    if (!h) continue;
    if (start >= 0 && h.level <= level) return lines.slice(start, i);
    if (start < 0 && (title === undefined ? h.level === 1 : h.text.replace(/[*`]/g, "") === title)) {
      start = i + 1;
      level = h.level;
    }
  }
  if (start >= 0) return lines.slice(start);
  return title === undefined ? lines : undefined;
}

/** Paragraphs split on blank lines, keeping fenced blocks whole. */
function paragraphs(lines: string[]): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let fenced = false;
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (!fenced && !line.trim()) {
      if (current.length) out.push(current.join("\n"));
      current = [];
    } else current.push(line);
  }
  if (current.length) out.push(current.join("\n"));
  return out;
}

/** The paragraph less each sentence that starts with `start` (at a sentence boundary). */
function withoutSentence(paragraph: string, start: string): string {
  for (let i = paragraph.indexOf(start); i >= 0; i = paragraph.indexOf(start, i + 1)) {
    const before = paragraph.slice(0, i);
    if (before.trim() && !/[.!?]\s+$/.test(before)) continue;
    const end = /[.!?](?=\s|$)/g;
    end.lastIndex = i;
    const stop = end.exec(paragraph);
    const after = stop ? paragraph.slice(stop.index + 1) : "";
    return `${before.trimEnd()}${before.trim() && after.trim() ? " " : ""}${after.trimStart()}`;
  }
  return paragraph;
}

/** The picked text, or undefined when the file has no such section or paragraph. */
export function pickMarkdown(text: string, pick: Pick): string | undefined {
  const lines = sectionLines(bodyAfterFrontmatter(text).split(/\r?\n/), pick.section);
  if (!lines) return undefined;
  let paras = paragraphs(lines);
  if (pick.from !== undefined) {
    const i = paras.findIndex((p) => p.startsWith(pick.from!));
    if (i < 0) return undefined;
    paras = paras.slice(i);
  }
  if (pick.until !== undefined) {
    const i = paras.findIndex((p) => p.startsWith(pick.until!));
    if (i >= 0) paras = paras.slice(0, i);
  }
  for (const start of pick.drop ?? []) paras = paras.map((p) => withoutSentence(p, start)).filter((p) => p.trim());
  const out = paras.join("\n\n").trim();
  return out || undefined;
}
