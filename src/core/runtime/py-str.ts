// Python's str methods where they differ from JavaScript's: what counts as whitespace, where
// lines break, how repr() quotes. The ported scripts call these wherever the Python does.

/** Characters for which Python's str.isspace() is true, as the inside of a regex character class. */
export const PY_SPACE_CHARS = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
/** Python's `\s` and `\S` in a str pattern, for ported regexes (JavaScript's `\s` adds U+FEFF and lacks U+001C-U+001F and U+0085). */
export const PY_SPACE = `[${PY_SPACE_CHARS}]`;
export const PY_NON_SPACE = `[^${PY_SPACE_CHARS}]`;
const IS_WS = new RegExp(`^${PY_SPACE}$`);
const WS_RUNS = new RegExp(`${PY_SPACE}+`);
/** Line boundaries of str.splitlines(). */
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

/** str.isspace() of one character (and what `\s` matches in a str pattern). */
export function isSpace(ch: string): boolean {
  return IS_WS.test(ch);
}

/** str.strip(). From each end by hand: a regex for trailing whitespace is tried at every run of it, which is
 *  quadratic on a long run inside the text (a memlog's body is stripped on every append). */
export function strip(s: string): string {
  return stripWhere(s, isSpace);
}

/** `s` without the characters at either end for which `stripped` holds. */
export function stripWhere(s: string, stripped: (ch: string) => boolean): string {
  let start = 0;
  let end = s.length;
  while (start < end && stripped(s[start]!)) start++;
  while (end > start && stripped(s[end - 1]!)) end--;
  return s.slice(start, end);
}

/** str.strip(chars), str.lstrip(chars), str.rstrip(chars) for a set of single characters. */
export function stripChars(s: string, chars: string, side: "both" | "left" | "right" = "both"): string {
  let start = 0;
  let end = s.length;
  if (side !== "right") while (start < end && chars.includes(s[start]!)) start++;
  if (side !== "left") while (end > start && chars.includes(s[end - 1]!)) end--;
  return s.slice(start, end);
}

/** str.split() with no separator: runs of whitespace, no empty strings. */
export function splitWhitespace(s: string): string[] {
  const inner = strip(s);
  return inner ? inner.split(WS_RUNS) : [];
}

/** str.splitlines() without keepends. */
export function splitlines(s: string): string[] {
  if (!s) return [];
  const lines = s.split(LINE_BREAK);
  // A trailing line break ends the last line rather than starting an empty one.
  if (LINE_BREAK.test(s.slice(-1))) lines.pop();
  return lines;
}

/** Text read in Python's text mode: universal newlines ("\r\n" and "\r" become "\n"). */
export function universalNewlines(s: string): string {
  return s.replace(/\r\n?/g, "\n");
}

const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** repr() of a str. */
export function repr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x7f || ch === " " || !NOT_PRINTABLE.test(ch)) out += ch;
    else if (cp <= 0xff) out += `\\x${hex(cp, 2)}`;
    else if (cp <= 0xffff) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return out + quote;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

/** Compares strings by code point, like Python's str ordering (JavaScript's < compares UTF-16 units). */
export function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}
