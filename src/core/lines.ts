/** A text's lines, split at each of JavaScript's line terminators (CRLF, a lone CR, LF, U+2028, U+2029). One left
 *  inside a line stops a `.*$` short, and a pattern with quantifiers before it then backtracks over the line. */
export function lines(text: string): string[] {
  return text.split(/\r\n|[\n\r\u2028\u2029]/);
}

/** Control characters, every character some reader takes for a line break (C0, DEL, C1 with NEL, U+2028 and U+2029)
 *  and bidirectional controls. A value a file gives is shown inside an answer's line only without them: one would start
 *  a line of its own, in the server's voice, or make the line read as other text (review 76: a run's status and a
 *  memory's tags, written by a collaborator, made lines that ended "by" the owner). */
/** The bidirectional controls: marks, embeddings, overrides and isolates, which show text in another order. */
export const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
export const NOT_ONE_LINE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\ufeff]|${BIDI_CONTROL.source}`);
export const isOneLine = (value: string): boolean => !NOT_ONE_LINE.test(value);
const NOT_ONE_LINE_ALL = new RegExp(NOT_ONE_LINE.source, "g");

/** `text` with each character `controls` (a global pattern; every one NOT_ONE_LINE names, by default) written as what
 *  it is, `⟦U+200E⟧`: text a reader sees whole, in its order and on its line (reviews 83 and 91). */
export const showControls = (text: string, controls: RegExp = NOT_ONE_LINE_ALL): string =>
  text.replace(controls, (c) => `⟦U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟧`);

/** `text` as a name read by eye (a story key, a status, a field of frontmatter), every character showControls writes
 *  out and every other format character (\p{Cf}: zero-width spaces and joiners, word joiners, soft hyphens, tags)
 *  written out so too: each shows as nothing, and a twin name holding one read as the same (review 281:
 *  `1-1-add-a\u200b-todo` beside `1-1-add-a-todo`). */
export const showName = (text: string): string => showControls(text, NOT_A_NAME_ALL);
const NOT_A_NAME_ALL = new RegExp(`${NOT_ONE_LINE.source}|\\p{Cf}`, "gu");

/** `text` as one line: every whitespace run and every character NOT_ONE_LINE names, a space. */
export const asOneLine = (text: string): string => text.replace(BREAKS_AND_SPACE, " ");
const BREAKS_AND_SPACE = new RegExp(`(?:\\s|${NOT_ONE_LINE.source})+`, "g");

/** Whether `text` is not valid Unicode: a lone surrogate, which storage and JSON turn into U+FFFD (review 159: a memory
 *  stored changed, its id made from the text it no longer held). */
export const holdsLoneSurrogate = (text: string): boolean => LONE_SURROGATE.test(text);
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `text`'s first `max` characters (UTF-16 units), never half of a surrogate pair: a cut answer stays valid Unicode. */
export const cutAt = (text: string, max: number): string => text.slice(0, /[\uD800-\uDBFF]/.test(text[max - 1] ?? "") ? max - 1 : max);

/** `text` without any of `chars` at its end, by a loop from the end: a pattern like `/[,;]+$/` tries the run from each
 *  of its starts, and a word of 64 KiB of semicolons held the bridge's secret check for 15 s (review 225). */
export function trimEnd(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1]!)) end--;
  return end === text.length ? text : text.slice(0, end);
}
