// Python's textwrap.wrap/fill with its default options (argparse formats help text with them):
// words split as textwrap.TextWrapper.wordsep_re does, hyphenated words broken after the hyphen.

const WS = "[\\t\\n\\x0b\\x0c\\r ]";
const NWS = "[^\\t\\n\\x0b\\x0c\\r ]";
/** Python's \w for str patterns: letters, numbers, underscore. */
const W = "[\\p{L}\\p{N}_]";
const WP = "(?:[\\p{L}\\p{N}_]|[!\"'&.,?])";
/** Python's [^\d\W]: a word character that is no decimal digit. */
const LT = "[\\p{L}\\p{Nl}\\p{No}_]";
const WORDSEP = new RegExp(
  `(${WS}+|(?<=${WP})-{2,}(?=${W})|${NWS}+?(?:-(?:(?<=${LT}{2}-)|(?<=${LT}-${LT}-))(?=${LT}-?${LT})|(?=${WS}|$)|(?<=${WP})(?=-{2,}${W})))`,
  "u",
);

function chunks(text: string): string[] {
  return text.split(WORDSEP).filter((c) => c);
}

function isBlank(s: string): boolean {
  return /^[\t\n\x0b\x0c\r ]*$/.test(s);
}

function handleLongWord(reversed: string[], line: string[], lineLen: number, width: number): void {
  const spaceLeft = width < 1 ? 1 : width - lineLen;
  const chunk = reversed[reversed.length - 1]!;
  let end = spaceLeft;
  if (chunk.length > spaceLeft) {
    const hyphen = chunk.lastIndexOf("-", spaceLeft - 1);
    if (hyphen > 0 && /[^-]/.test(chunk.slice(0, hyphen))) end = hyphen + 1;
  }
  line.push(chunk.slice(0, end));
  reversed[reversed.length - 1] = chunk.slice(end);
}

/** textwrap.wrap(text, width, initial_indent=..., subsequent_indent=...) */
export function wrap(text: string, width: number, initialIndent = "", subsequentIndent = ""): string[] {
  const munged = text.replace(/\t/g, "        ").replace(/[\t\n\x0b\x0c\r]/g, " ");
  const reversed = chunks(munged).reverse();
  const lines: string[] = [];
  while (reversed.length) {
    const indent = lines.length ? subsequentIndent : initialIndent;
    const avail = width - indent.length;
    if (isBlank(reversed[reversed.length - 1]!) && lines.length) reversed.pop();
    const line: string[] = [];
    let lineLen = 0;
    while (reversed.length) {
      const l = reversed[reversed.length - 1]!.length;
      if (lineLen + l > avail) break;
      line.push(reversed.pop()!);
      lineLen += l;
    }
    if (reversed.length && reversed[reversed.length - 1]!.length > avail) {
      handleLongWord(reversed, line, lineLen, avail);
      lineLen = line.reduce((n, c) => n + c.length, 0);
    }
    if (line.length && isBlank(line[line.length - 1]!)) line.pop();
    if (line.length) lines.push(indent + line.join(""));
  }
  return lines;
}

/** textwrap.fill */
export function fill(text: string, width: number, initialIndent = "", subsequentIndent = ""): string {
  return wrap(text, width, initialIndent, subsequentIndent).join("\n");
}
