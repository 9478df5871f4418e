// ruamel.yaml's emitter for one scalar (emitter.py's analyze_scalar, write_plain, write_single_quoted,
// write_double_quoted, write_literal), with its column arithmetic: long values wrap where ruamel wraps them, trailing
// space included. Width 80, unicode allowed. sprint-yaml-emit.ts lays the document out around them.
export const WIDTH = 80;
export const BREAKS = "\n\x85\u2028\u2029";
const ESCAPES: Record<string, string> = { "\0": "0", "\x07": "a", "\b": "b", "\t": "t", "\n": "n", "\v": "v", "\f": "f", "\r": "r", "\x1b": "e", '"': '"', "\\": "\\", "\x85": "N", "\xa0": "_", "\u2028": "L", "\u2029": "P" };

export class Writer {
  out = "";
  column = 0;
  whitespace = true;
  indention = true;
  indent = 0;
  /** After a block scalar that keeps its final breaks (`|+`, `>+`) with no indicator since: the stream ends with `...`. */
  openEnded = false;

  write(data: string): void {
    this.out += data;
    // Columns count code points, as Python's len() does: a surrogate pair is one.
    let n = data.length;
    for (let i = 0; i < data.length; i++) if ((data.charCodeAt(i) & 0xfc00) === 0xdc00) n--;
    this.column += n;
  }
  lineBreak(data = "\n"): void {
    this.out += data;
    this.whitespace = true;
    this.indention = true;
    this.column = 0;
  }
  writeIndent(): void {
    if (!this.indention || this.column > this.indent || (this.column === this.indent && !this.whitespace)) this.lineBreak();
    if (this.column < this.indent) {
      this.whitespace = true;
      this.write(" ".repeat(this.indent - this.column));
    }
  }
  indicator(text: string, needWhitespace: boolean, whitespace = false): void {
    this.write(this.whitespace || !needWhitespace ? text : ` ${text}`);
    this.whitespace = whitespace;
    this.indention = false;
    this.openEnded = false;
  }
}

const SPACEY = "\0 \t\r\n\x85\u2028\u2029";

/** analyze_scalar, for block context with allow_unicode. */
export function analyze(text: string): { empty: boolean; multiline: boolean; allowBlockPlain: boolean; allowSingle: boolean } {
  if (!text) return { empty: true, multiline: false, allowBlockPlain: true, allowSingle: true };
  const chars = [...text];
  let block = text.startsWith("---") || text.startsWith("...");
  let lineBreaks = false;
  let special = false;
  let [leadingSpace, leadingBreak, trailingSpace, trailingBreak, breakSpace, spaceBreak] = [false, false, false, false, false, false];
  let precededBySpace = true;
  let previousSpace = false;
  let previousBreak = false;
  chars.forEach((ch, i) => {
    const followedBySpace = i + 1 >= chars.length || SPACEY.includes(chars[i + 1]!);
    if (i === 0) {
      if ("#,[]{}&*!|>'\"%@`".includes(ch)) block = true;
      if ("?:".includes(ch) && followedBySpace) block = true;
      if (ch === "-" && followedBySpace) block = true;
    } else if ((ch === ":" && followedBySpace) || (ch === "#" && precededBySpace)) block = true;
    if (BREAKS.includes(ch)) lineBreaks = true;
    const cp = ch.codePointAt(0)!;
    if (!(ch === "\n" || (cp >= 0x20 && cp <= 0x7e))) {
      const printable = (cp === 0x85 || (cp >= 0xa0 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || cp >= 0x10000) && cp !== 0xfeff;
      if (!printable) special = true;
    }
    if (ch === " ") {
      if (i === 0) leadingSpace = true;
      if (i === chars.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      [previousSpace, previousBreak] = [true, false];
    } else if (BREAKS.includes(ch)) {
      if (i === 0) leadingBreak = true;
      if (i === chars.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      [previousSpace, previousBreak] = [false, true];
    } else [previousSpace, previousBreak] = [false, false];
    precededBySpace = SPACEY.includes(ch);
  });
  let plainOk = !(leadingSpace || leadingBreak || trailingSpace || trailingBreak);
  let single = true;
  if (breakSpace) plainOk = single = false;
  if (special || spaceBreak) plainOk = single = false;
  if (lineBreaks || block) plainOk = false;
  return { empty: false, multiline: lineBreaks, allowBlockPlain: plainOk, allowSingle: single };
}

export function plain(w: Writer, text: string, split: boolean): void {
  if (!text) return;
  if (!w.whitespace) w.write(" ");
  w.whitespace = w.indention = false;
  const chars = [...text];
  let [spaces, breaks, start] = [false, false, 0];
  for (let end = 0; end <= chars.length; end++) {
    const ch = chars[end];
    if (spaces) {
      if (ch !== " ") {
        if (start + 1 === end && w.column >= WIDTH && split) {
          w.writeIndent();
          w.whitespace = w.indention = false;
        } else w.write(chars.slice(start, end).join(""));
        start = end;
      }
    } else if (breaks) {
      if (ch === undefined || !BREAKS.includes(ch)) {
        if (chars[start] === "\n") w.lineBreak();
        for (const br of chars.slice(start, end)) w.lineBreak(br === "\n" ? "\n" : br);
        w.writeIndent();
        w.whitespace = w.indention = false;
        start = end;
      }
    } else if (ch === undefined || ` ${BREAKS}`.includes(ch)) {
      const data = chars.slice(start, end).join("");
      if (end - start + w.column > WIDTH && w.column > w.indent) w.writeIndent();
      w.write(data);
      start = end;
    }
    if (ch !== undefined) [spaces, breaks] = [ch === " ", BREAKS.includes(ch)];
  }
}

export function singleQuoted(w: Writer, text: string, split: boolean): void {
  w.indicator("'", true);
  const chars = [...text];
  let [spaces, breaks, start] = [false, false, 0];
  for (let end = 0; end <= chars.length; end++) {
    const ch = chars[end];
    if (spaces) {
      if (ch === undefined || ch !== " ") {
        if (start + 1 === end && w.column > WIDTH && split && start !== 0 && end !== chars.length) w.writeIndent();
        else w.write(chars.slice(start, end).join(""));
        start = end;
      }
    } else if (breaks) {
      if (ch === undefined || !BREAKS.includes(ch)) {
        if (chars[start] === "\n") w.lineBreak();
        for (const br of chars.slice(start, end)) w.lineBreak(br);
        w.writeIndent();
        start = end;
      }
    } else if (ch === undefined || ` ${BREAKS}'`.includes(ch)) {
      if (start < end) {
        w.write(chars.slice(start, end).join(""));
        start = end;
      }
    }
    if (ch === "'") {
      w.write("''");
      start = end + 1;
    }
    if (ch !== undefined) [spaces, breaks] = [ch === " ", BREAKS.includes(ch)];
  }
  w.indicator("'", false);
}

export function doubleQuoted(w: Writer, text: string, split: boolean): void {
  w.indicator('"', true);
  const chars = [...text];
  // The searches ruamel repeats at every wrap, done once: asked with growing positions, each scans its text once.
  const nextSpace = new NextIndex(chars, (c) => c === " ");
  const nextBreak = new NextIndex(chars, (c) => c === "\n");
  const nextQuote = new NextIndex(chars, (c) => c === '"' || c === "'");
  let start = 0;
  for (let end = 0; end <= chars.length; end++) {
    const ch = chars[end];
    const cp = ch?.codePointAt(0) ?? 0;
    if (ch === undefined || '"\\\x85\u2028\u2029\ufeff'.includes(ch) || !((cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || cp >= 0x10000)) {
      if (start < end) {
        w.write(chars.slice(start, end).join(""));
        start = end;
      }
      if (ch !== undefined) {
        const esc = ESCAPES[ch];
        w.write(esc !== undefined ? `\\${esc}` : cp <= 0xff ? `\\x${hex(cp, 2)}` : cp <= 0xffff ? `\\u${hex(cp, 4)}` : `\\U${hex(cp, 8)}`);
        start = end + 1;
      }
    }
    if (end > 0 && end < chars.length - 1 && (ch === " " || start >= end) && w.column + (end - start) > WIDTH && split) {
      let backslash = true;
      const space = nextSpace.from(end);
      if (space < chars.length) {
        const nl = nextBreak.from(end);
        const at = nl < space ? nl : space;
        if (chars[at] === "\n" && chars[at + 1] !== " ") {
          // keeps the backslash
        } else if (at + 1 < chars.length) {
          const quoted = nextQuote.from(end) < at;
          if (!quoted && !" \n".includes(chars[at + 1]!) && chars.slice(end - 1, end + 1).join("") !== "  " && start !== end) backslash = false;
        }
      }
      w.write(chars.slice(start, end).join("") + (backslash ? "\\" : ""));
      if (start < end) start = end;
      w.writeIndent();
      w.whitespace = w.indention = false;
      if (chars[start] === " ") {
        if (!backslash) start++;
        if (backslash) w.write("\\");
      }
    }
  }
  w.indicator('"', false);
}

/** determine_block_hints: an indentation indicator where the text starts with a space or break, and its chomping. */
function blockIndicator(w: Writer, style: "|" | ">", chars: string[]): void {
  const hints = blockHints(chars);
  w.indicator(`${style}${hints}`, true);
  if (hints.endsWith("+")) w.openEnded = true;
}

function blockHints(chars: string[]): string {
  let hints = chars.length && " \n\x85\u2028\u2029".includes(chars[0]!) ? "2" : "";
  if (chars.length && !BREAKS.includes(chars[chars.length - 1]!)) hints += "-";
  else if (chars.length === 1 || (chars.length > 1 && BREAKS.includes(chars[chars.length - 2]!))) hints += "+";
  return hints;
}

export function literal(w: Writer, text: string): void {
  const chars = [...text];
  blockIndicator(w, "|", chars);
  w.lineBreak();
  let [breaks, start] = [true, 0];
  for (let end = 0; end <= chars.length; end++) {
    const ch = chars[end];
    if (breaks) {
      if (ch === undefined || !BREAKS.includes(ch)) {
        for (const br of chars.slice(start, end)) w.lineBreak(br);
        if (ch !== undefined) w.writeIndent();
        start = end;
      }
    } else if (ch === undefined || BREAKS.includes(ch)) {
      w.write(chars.slice(start, end).join(""));
      if (ch === undefined) w.lineBreak();
      start = end;
    }
    if (ch !== undefined) breaks = BREAKS.includes(ch);
  }
}

/** A folded scalar's text with FOLD before each space that was a line fold (represent_folded_scalarstring). */
const FOLD = "\x07";
export function withFolds(text: string, folds: readonly number[] = []): string {
  let out = text;
  for (const at of [...folds].reverse()) out = `${out.slice(0, at)}${FOLD}${out.slice(at)}`;
  return out;
}

/** write_folded: the source's folds broken again, and a single space past the width broken too. */
export function folded(w: Writer, text: string): void {
  const chars = [...text];
  blockIndicator(w, ">", chars);
  w.lineBreak();
  let [leadingSpace, spaces, breaks, start] = [true, false, true, 0];
  for (let end = 0; end <= chars.length; end++) {
    const ch = chars[end];
    if (breaks) {
      if (ch === undefined || !(BREAKS + FOLD).includes(ch)) {
        if (!leadingSpace && ch !== undefined && ch !== " " && chars[start] === "\n") w.lineBreak();
        leadingSpace = ch === " ";
        for (const br of chars.slice(start, end)) w.lineBreak(br);
        if (ch !== undefined) w.writeIndent();
        start = end;
      }
    } else if (spaces) {
      if (ch !== " ") {
        if (start + 1 === end && w.column > WIDTH) w.writeIndent();
        else w.write(chars.slice(start, end).join(""));
        start = end;
      }
    } else if (ch === undefined || ` ${BREAKS}${FOLD}`.includes(ch)) {
      w.write(chars.slice(start, end).join(""));
      // The fold and the space after it are the line break.
      if (ch === FOLD) {
        w.lineBreak();
        w.writeIndent();
        end += 2;
      }
      if (ch === undefined) w.lineBreak();
      start = end;
    }
    if (ch !== undefined) [breaks, spaces] = [BREAKS.includes(ch), ch === " "];
  }
}

/** The first index at or after a position where a character matches (chars.length when none), for positions that
 *  never decrease. */
class NextIndex {
  private at = -1;
  constructor(
    private readonly chars: string[],
    private readonly match: (c: string) => boolean,
  ) {}
  from(i: number): number {
    if (this.at >= i) return this.at;
    this.at = i;
    while (this.at < this.chars.length && !this.match(this.chars[this.at]!)) this.at++;
    return this.at;
  }
}

function hex(n: number, width: number): string {
  return n.toString(16).toUpperCase().padStart(width, "0");
}
