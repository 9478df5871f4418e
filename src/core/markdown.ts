// The structure of BMAD's markdown files, read one way by the compiler and by the served surface: a `---` YAML
// frontmatter block at the top (after the byte-order mark some Windows editors save), and ATX headings.
import { lines } from "./lines.js";

const FRONTMATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\r?\n?/;

/** The frontmatter's YAML text, unparsed, and the body after it; undefined when the text has none. */
export function splitFrontmatter(text: string): { yaml: string; body: string } | undefined {
  const m = FRONTMATTER.exec(text);
  return m ? { yaml: m[1]!, body: text.slice(m[0].length) } : undefined;
}

/** The text after a frontmatter block; all of it when there is none. */
export function bodyAfterFrontmatter(text: string): string {
  return splitFrontmatter(text)?.body ?? text;
}

/** An ATX heading's level and text, its closing #s left out. The end is trimmed by hand: a regex with a lazy text
 *  before optional spaces and #s backtracks cubically on a long run of spaces. */
export function atxHeading(line: string): { level: number; text: string } | undefined {
  const open = /^(#{1,6})\s/.exec(line);
  if (!open) return undefined;
  const text = line.slice(open[1]!.length).trim();
  let end = text.length;
  while (end > 0 && text[end - 1] === "#") end--;
  const closed = end === 0 || text[end - 1] === " " || text[end - 1] === "\t";
  return { level: open[1]!.length, text: closed ? text.slice(0, end).trimEnd() : text };
}

/** A file's title: the text of its first level-1 heading below any frontmatter. */
export function firstHeading(text: string): string | undefined {
  for (const line of lines(bodyAfterFrontmatter(text))) {
    const h = atxHeading(line);
    if (h?.level === 1 && h.text) return h.text;
  }
  return undefined;
}
