/** A text's lines, split at each of JavaScript's line terminators (CRLF, a lone CR, LF, U+2028, U+2029). One left
 *  inside a line stops a `.*$` short, and a pattern with quantifiers before it then backtracks over the line. */
export function lines(text: string): string[] {
  return text.split(/\r\n|[\n\r\u2028\u2029]/);
}
