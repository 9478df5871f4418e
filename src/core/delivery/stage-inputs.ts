// The documents a stage prompt carries (earlier artifacts, the previous draft, the user's answers):
// sized to a byte budget, cut on a line where possible, with where to read the rest.
import { lines } from "../lines.js";

export const STAGE_PROMPT_BYTES = 12 * 1024;

const encoder = new TextEncoder();

export function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/** The longest prefix of at most `max` UTF-8 bytes, ending at a line break when one is near. */
export function truncateBytes(text: string, max: number): string {
  if (byteLength(text) <= max) return text;
  let used = 0;
  let end = 0;
  for (const ch of text) {
    const size = ch.length === 2 ? 4 : ch.charCodeAt(0) < 0x80 ? 1 : ch.charCodeAt(0) < 0x800 ? 2 : 3;
    if (used + size > max) break;
    used += size;
    end += ch.length;
  }
  const cut = text.slice(0, end);
  const line = cut.lastIndexOf("\n");
  return line > 0 && line >= cut.length - 400 ? cut.slice(0, line) : cut;
}

/**
 * Shares of `available` bytes for blocks wanting `sizes`, in proportion to `weights`: a block that needs
 * less than its share gets what it needs and the rest is shared again (water-filling).
 */
export function allot(sizes: number[], weights: number[], available: number): number[] {
  const out = sizes.map(() => 0);
  let open = sizes.map((_, i) => i);
  let left = Math.max(0, available);
  while (open.length) {
    const total = open.reduce((sum, i) => sum + weights[i]!, 0);
    const satisfied = open.filter((i) => sizes[i]! <= (left * weights[i]!) / total);
    if (!satisfied.length) {
      for (const i of open) out[i] = Math.floor((left * weights[i]!) / total);
      break;
    }
    for (const i of satisfied) {
      out[i] = sizes[i]!;
      left -= sizes[i]!;
    }
    open = open.filter((i) => !satisfied.includes(i));
  }
  return out;
}

/** The start of any closing tag, however spaced, with invisible format characters between (`<\u200b/`: review 217) or
 *  drawn alike (full-width ＜／, ‹/, 〈/): whatever its name (`</dоcument>` with a Cyrillic о reads as the delimiter). */
const CLOSING = /[<＜‹〈][\s\p{Cf}]*[/／]/gu;

/** The text as quoted() shows it, every closing tag escaped: what a quote's size is counted on (each adds a byte). Escaping
 *  again changes nothing. */
export function escapeClosing(text: string): string {
  return text.replace(CLOSING, (closing) => `${closing[0]}\\/`);
}

/** A document quoted whole or in part between fixed delimiters (no fence to escape, bounded overhead). The way text
 *  from a draft or a plan, and the user's answers and reasons, reach a stage prompt: every closing tag inside (an HTML
 *  one in a document too, in this copy only) is escaped, `<\/`, so no text ends its quote and reads on as the server's
 *  own words (review 212). */
export function quoted(title: string, text: string, maxBytes: number, rest: string): string {
  const inert = escapeClosing(text);
  const shown = truncateBytes(inert, Math.max(0, maxBytes));
  const note = shown.length < inert.length ? `\n(First ${byteLength(shown)} of ${byteLength(inert)} bytes. ${rest})` : "";
  return `### ${title}\n<document>\n${shown}\n</document>${note}`;
}

/** What quoting costs besides the text itself, at most. */
export function quoteOverhead(title: string, rest: string): number {
  return byteLength(title) + byteLength(rest) + 80;
}

export interface Sprint {
  number: number;
  title: string;
}

// Matched against a line without its bold markers and outer spaces: with a lazy title before optional markers and
// spaces, a long run of spaces in a line made these quadratic.
const SPRINT_HEADING = /^#{1,6}\s+Sprint\s+(\d{1,3})\b\s*[:.)\-–—]?\s*(.*)$/i;
const SPRINT_LINE = /^(?:[-*]\s+)?Sprint\s+(\d{1,3})\s*[:.)\-–—]\s*(.*)$/i;
const SPRINT_INLINE = /\bSprint\s+(\d{1,3})\s*:\s*([^.\n]*)/gi;

/** The sprints of a sprint plan: its "Sprint N" headings, else "Sprint N:" lines, else inline "Sprint N: ..." runs. */
export function parseSprints(plan: string): Sprint[] {
  const planLines = lines(plan).map((line) => line.replaceAll("**", "").trim());
  const found = (matches: Array<RegExpExecArray | RegExpMatchArray | null>) => {
    const byNumber = new Map<number, Sprint>();
    for (const m of matches) {
      if (!m) continue;
      const number = Number(m[1]);
      if (!byNumber.has(number)) byNumber.set(number, { number, title: m[2]!.trim().slice(0, 120) });
    }
    return [...byNumber.values()];
  };
  const headings = found(planLines.map((l) => SPRINT_HEADING.exec(l)));
  if (headings.length) return headings;
  const listed = found(planLines.map((l) => SPRINT_LINE.exec(l)));
  if (listed.length) return listed;
  return found([...plan.matchAll(SPRINT_INLINE)]);
}
