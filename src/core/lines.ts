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
  text.replace(controls, showCode);

/** `text` as a name read by eye (a story key, a status, a field of frontmatter, a file's path), each character
 *  writeOutInvisible writes out shown as `⟦U+200B⟧`: each shows as nothing, or as a line break, and a twin name holding
 *  one read as the same (review 281: `1-1-add-a\u200b-todo` beside `1-1-add-a-todo`). A join as a script writes it
 *  stays (review 321: Persian `کتاب\u200cخانه`). */
export const showName = (text: string): string => writeOutInvisible(text, showCode);
function showCode(c: string): string {
  return `⟦U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟧`;
}

/** Control, format and line-separating characters: a record's name or a bundle path holding one would reach clients as a
 *  name that reads as another (`readme\u202Edm.exe.md`) or breaks its line, or drives a terminal (reviews 59 and 422). */
export const UNSHOWABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** Characters that show as nothing and take no place on a line: format characters (\p{Cf}: zero-width spaces and
 *  joiners, bidi marks, the soft hyphen, tags) and every default-ignorable code point (the Hangul fillers, the combining
 *  grapheme joiner, variation selectors). Dropped where text is judged or names compared as read (review 325). */
export const SHOWS_AS_NOTHING = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/** Characters a terminal acts on, or that show as nothing: controls (ESC starts sequences that retitle the window, write
 *  the clipboard or move the cursor over lines already printed), format characters (the bidi marks that reorder what is
 *  shown, `report\u202Emd.sh` reading as `reporths.dm`; zero-width ones, the soft hyphen, tags), line and paragraph
 *  separators, and every default-ignorable, private-use or unassigned code point, by Unicode category and property: a
 *  list of them missed some (reviews 29 and 31). */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}]/u;
/** Which invisible characters are shown as part of the characters around them, and only in well-formed sequences: a
 *  zero-width joiner between two emoji, one variation selector after an emoji, a zero-width non-joiner between two
 *  letters of a script that joins, and a flag's tags after U+1F3F4. Anywhere else each is written out: kept after any
 *  non-ASCII character, `résumé\u200d.md` and a sentence in tag characters printed as `résumé.md` (review 32). */
const EMOJI = /\p{Extended_Pictographic}/u;
const EMOJI_PART = /[\ufe0f\u{1f3fb}-\u{1f3ff}]/u;
const LETTER = /\p{L}/u;
const TAG = /[\u{e0020}-\u{e007f}]/u;
const MAX_FLAG_TAGS = 8;

function joinsHere(chars: string[], i: number, tags: number): boolean {
  const c = chars[i]!;
  const before = chars[i - 1] ?? "";
  const after = chars[i + 1] ?? "";
  if (c === "\u200d") {
    // The emoji before it may carry a selector or a skin tone.
    let j = i - 1;
    while (j > 0 && EMOJI_PART.test(chars[j]!)) j--;
    return EMOJI.test(chars[j] ?? "") && EMOJI.test(after);
  }
  if (c === "\ufe0f" || c === "\ufe0e") return EMOJI.test(before);
  if (c === "\u200c") return LETTER.test(before) && before > "\u007f" && LETTER.test(after) && after > "\u007f";
  if (TAG.test(c)) return tags > 0 && tags <= MAX_FLAG_TAGS;
  return false;
}

/** `text` with each INVISIBLE character that is no well-formed join written as `write` writes it: the one rule for
 *  which characters are written out, each reader's notation its own (showName's for views and answers, terminalText's
 *  escapes for terminals and JSON). */
export function writeOutInvisible(text: string, write: (c: string) => string): string {
  if (!INVISIBLE.test(text)) return text;
  const chars = [...text];
  let out = "";
  // Tags seen since a black flag (U+1F3F4), which a flag's tags follow; 0: not in a flag.
  let tags = 0;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    tags = c === "\u{1f3f4}" ? 1 : TAG.test(c) && tags > 0 ? tags + 1 : 0;
    out += !INVISIBLE.test(c) || joinsHere(chars, i, tags - 1) ? c : write(c);
  }
  return out;
}

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
