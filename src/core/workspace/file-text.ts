// A file's bytes as bmad-files reads and changes them as text, alike on both doors (review 275). A file that is not
// UTF-8 (Latin-1, UTF-16, an image) reads with U+FFFD for what is not text, so that text written back is not its
// bytes: no change over it is made unless it names the file's version. A byte order mark and the file's line endings
// are the user's: kept. BMAD's scripts write as Python does and go through none of this.
import { isMemlogPath } from "../runtime/memlog-text.js";

const CR = 13;
const LF = 10;
const BOM = [0xef, 0xbb, 0xbf];
const STRICT = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
const STRICT_WITH_BOM = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const AS_GIVEN = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** How bmad-files writes the model's text: the whole file, or after its bytes. */
export type TextWrite = "write" | "append";

/** The file's text, or undefined where its bytes are not UTF-8. `withBom`: a byte order mark kept as U+FEFF, for an
 *  edit that writes the text back; without it the text is as a read shows it. */
export function utf8Text(data: Uint8Array, withBom = false): string | undefined {
  try {
    return (withBom ? STRICT_WITH_BOM : STRICT).decode(data);
  } catch {
    return undefined;
  }
}

/** The file as a read shows it: its text without a byte order mark, and whether it is UTF-8 (else U+FFFD stands for
 *  each byte that is not). */
export function shownText(data: Uint8Array): { text: string; utf8: boolean } {
  const text = utf8Text(data);
  return text === undefined ? { text: new TextDecoder().decode(data), utf8: false } : { text, utf8: true };
}

/** Said in a read's header of a file that is not UTF-8. */
export const NOT_UTF8_NOTE = "not UTF-8: its text here has U+FFFD for each byte that is not, and is not its bytes";

/** Why a change of the file at `version` (its bytes `current`) is not made: the file is not UTF-8, and the change did
 *  not name its version (`named`), so the model may be writing back text that only stands for its bytes. An edit,
 *  which changes text, is refused over it whatever it names. */
export function notUtf8Refusal(path: string, current: Uint8Array | undefined, version: number, named: boolean, change: TextWrite | "restore" | "edit"): string | undefined {
  if (!current || (named && change !== "edit") || utf8Text(current) !== undefined) return undefined;
  const head = `${path} is not UTF-8 text (version ${version}): a read shows U+FFFD for its bytes that are not. Nothing was changed:`;
  const knowingly = `"if_version": ${version}`;
  if (change === "edit") return `${head} "edit" changes text. "write" with ${knowingly} replaces the whole file knowingly; to keep its text, the user saves it as UTF-8 first.`;
  const what = change === "append" ? "an append adds text to bytes that are not" : `a ${change} replaces its bytes`;
  return `${head} ${what}. To do it knowingly, give ${knowingly}; to keep its text, the user saves it as UTF-8 first.`;
}

/** The file's line ending: "\r\n" where every line break in it is one, else "\n" (undefined: it has none). */
function lineEnding(data: Uint8Array): "\r\n" | "\n" | undefined {
  let breaks = 0;
  let crlf = true;
  for (let i = 0; i < data.length; i++) {
    if (data[i] !== LF) continue;
    breaks++;
    crlf &&= i > 0 && data[i - 1] === CR;
  }
  return breaks === 0 ? undefined : crlf ? "\r\n" : "\n";
}

/** `text` with its line breaks written as the file's (`data`) where every line of the file ends in CRLF: an edit's or
 *  an append's LF lines would mix endings there. */
export function inFileEndings(data: Uint8Array, text: string): string {
  return lineEnding(data) === "\r\n" ? text.replace(/(?<!\r)\n/g, "\r\n") : text;
}

export const startsWithBom = (data: Uint8Array) => BOM.every((b, i) => data[i] === b);

/** Said in a read's header of a file that starts with a byte order mark, which the text shown leaves out. */
export const BOM_NOTE = "starts with a byte order mark, which a whole write keeps (a memlog's it drops)";

/** The bytes bmad-files makes of the model's `text` over the file's bytes now (`current`; undefined: none). A whole
 *  write keeps the file's byte order mark where the text has none (a read shows the text without it). An append starts
 *  on a line of its own, after the file's line ending, where the file does not end in one and the text does not start
 *  with one, and its lines end as the file's do where those all end in CRLF. A file that is not UTF-8 (changed only
 *  where the change named its version) gets the text's bytes as they are. */
export function textBytes(current: Uint8Array | undefined, text: Uint8Array, how: TextWrite, path = ""): Uint8Array {
  if (!current?.length || utf8Text(current) === undefined) return how === "append" && current ? concat(current, text) : text;
  // Not a memlog's: BMAD's memlog.py reads no frontmatter after one, so a write is the way to take it out (review 280).
  if (how === "write") return startsWithBom(current) && !startsWithBom(text) && !isMemlogPath(path) ? concat(new Uint8Array(BOM), text) : text;
  const added = inFileEndings(current, AS_GIVEN.decode(text));
  const last = current[current.length - 1];
  const open = last !== LF && last !== CR && added !== "" && !/^\r?\n/.test(added);
  return concat(current, new TextEncoder().encode(`${open ? (lineEnding(current) ?? "\n") : ""}${added}`));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}
