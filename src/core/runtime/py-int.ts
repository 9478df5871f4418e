// Python's int() of text, where it differs from JavaScript's: any Unicode decimal digits (Python's \d), single
// underscores between them, surrounding whitespace. The ported scripts read numbers with these wherever Python does.
import { checkIntDigits, PyError } from "./py-json.js";
import { isSpace, repr, stripWhere } from "./py-str.js";

const DIGIT = /^\p{Nd}$/u;
/** The whitespace int() strips: str.isspace()'s, but U+001C-U+001F are ASCII, which it tests with C's isspace(). */
const intSpace = (ch: string) => isSpace(ch) && !(ch >= "\x1c" && ch <= "\x1f");
/** The digits int() reads: single underscores between them. */
const DIGIT_RUN = /\p{Nd}+(?:_\p{Nd}+)*/uy;

/** int() of a run of Unicode decimal digits (what Python's \d matched). */
export function digitsValue(text: string): bigint {
  let n = 0n;
  for (const ch of text) {
    // Decimal digits come in runs of ten from zero (a Unicode rule): a digit's value is its place in the run.
    let cp = ch.codePointAt(0)!;
    let v = 0;
    while (DIGIT.test(String.fromCodePoint(cp - 1))) {
      cp--;
      v++;
    }
    n = n * 10n + BigInt(v % 10);
  }
  return n;
}

/** int(s) in base 10, as Python 3.11 reads it: surrounding whitespace (intSpace), a sign, Unicode digits with single
 *  underscores between them, at most 4,300 digits (its guard against quadratic conversion), the literal in errors cut at 200. */
export function pyInt(s: string): bigint {
  const invalid = () => new PyError("ValueError", `invalid literal for int() with base 10: ${[...repr(s)].slice(0, 200).join("")}`);
  const t = stripWhere(s, intSpace);
  const signed = t.startsWith("+") || t.startsWith("-") ? 1 : 0;
  DIGIT_RUN.lastIndex = signed;
  const run = DIGIT_RUN.exec(t)?.[0];
  if (!run || t[signed + run.length] === "_") throw invalid();
  const digits = run.replace(/_/g, "");
  checkIntDigits([...digits].length);
  if (signed + run.length !== t.length) throw invalid();
  const n = digitsValue(digits);
  return t.startsWith("-") ? -n : n;
}
