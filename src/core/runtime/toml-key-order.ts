// The order in which a TOML document first names each table's keys, which tomllib's dicts keep. smol-toml returns
// plain objects, and JavaScript lists an object's integer-like keys ("2", "10") first whatever their place in the
// file, so the order is read here from the text, which smol-toml has already checked. smol-toml reads TOML 1.1 and
// tomllib TOML 1.0, so this walk also refuses, where tomllib does, what 1.1 added: `\x` and `\e` escapes, inline
// tables over several lines or with a trailing comma, and times without seconds.
import { parse } from "smol-toml";
import { parseBoundedToml } from "../yaml.js";
import { PyError } from "./py-json.js";

/** A table's place in the document: its keys, and the index of each array element on the way. */
export type TomlPath = Array<string | number>;

/** Each table's keys (by tomlPathKey of its path) in the order the text first names them. */
export type TomlKeyOrder = Map<string, Set<string>>;

export function tomlPathKey(path: TomlPath): string {
  return JSON.stringify(path);
}

const BARE_KEY = /[A-Za-z0-9_-]+/y;

/** A time (alone or after a date) without seconds; the digit tomllib's number stops after, and the date's separator. */
const TIME_WITHOUT_SECONDS = /(?:\d{4}-\d{2}-\d{2}([Tt ]))?(\d)\d:\d{2}(?!:)/y;

/** What tomllib says after a value it read, by what holds the value. */
const AFTER_STATEMENT = "Expected newline or end of document after a statement";
const AFTER_ARRAY_ITEM = "Unclosed array";
const AFTER_INLINE_ITEM = "Unclosed inline table";
const BAD_KEY_START = "Invalid initial character for a key part";

/** tomllib's TOMLDecodeError at `index` of `text` (CRLF read as LF, as tomllib reads it). */
function decodeError(text: string, index: number, reason: string): PyError {
  let line = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return new PyError("TOMLDecodeError", `${reason} (at line ${line}, column ${index - text.lastIndexOf("\n", index - 1)})`);
}

/** The key order of `text`, a document smol-toml parsed without error (CRLF already read as LF); a TOMLDecodeError for
 *  the first thing in it that TOML 1.1 allows and tomllib does not. */
export function tomlKeyOrder(text: string): TomlKeyOrder {
  const order: TomlKeyOrder = new Map();
  const tableArrayLengths = new Map<string, number>();
  let at = 0;

  const name = (path: TomlPath, key: string) => {
    const pathKey = tomlPathKey(path);
    const keys = order.get(pathKey) ?? new Set<string>();
    order.set(pathKey, keys.add(key));
  };
  const skipBlank = (newlines: boolean) => {
    for (;;) {
      const c = text[at];
      if (c === " " || c === "\t" || (newlines && (c === "\n" || c === "\r"))) at++;
      else if (c === "#") while (at < text.length && text[at] !== "\n") at++;
      else return;
    }
  };
  const skipSpaces = () => {
    while (text[at] === " " || text[at] === "\t") at++;
  };
  /** A basic string's escape; tomllib knows no `\x` or `\e` (TOML 1.1), and stops after reading the two characters. */
  const skipEscape = () => {
    if (text[at + 1] === "x" || text[at + 1] === "e") throw decodeError(text, at + 2, "Unescaped '\\' in a string");
    at += 2;
  };
  /** A dotted key's parts, each named in the table before it; the path of its last part. */
  const dottedKey = (path: TomlPath): TomlPath => {
    let keyPath = path;
    for (;;) {
      skipBlank(false);
      const start = at;
      let key: string;
      if (text[at] === '"' || text[at] === "'") {
        skipString();
        const quoted = `${text.slice(start, at)} = 0`;
        key = Object.keys(parseBoundedToml(quoted, () => parse(quoted)))[0]!; // the quoted key as smol-toml decodes it
      } else {
        BARE_KEY.lastIndex = at;
        key = BARE_KEY.exec(text)![0];
        at = BARE_KEY.lastIndex;
      }
      name(keyPath, key);
      keyPath = [...keyPath, key];
      // A part naming an array of tables goes on in its last table.
      const length = tableArrayLengths.get(tomlPathKey(keyPath));
      if (length !== undefined) keyPath = [...keyPath, length - 1];
      skipBlank(false);
      if (text[at] !== ".") return keyPath;
      at++;
    }
  };
  const skipString = () => {
    const quote = text[at]!;
    if (text.startsWith(quote.repeat(3), at)) {
      at += 3;
      for (;;) {
        if (quote === '"' && text[at] === "\\") skipEscape();
        else if (text.startsWith(quote.repeat(3), at)) break;
        else at++;
      }
      at += 3;
      while (text[at] === quote) at++; // up to two quotes may end the content
      return;
    }
    at++;
    while (text[at] !== quote) {
      if (quote === '"' && text[at] === "\\") skipEscape();
      else at++;
    }
    at++;
  };
  /** The value at `at`, in a container where tomllib refuses what follows a value with `after`. */
  const value = (path: TomlPath, after: string) => {
    const c = text[at];
    if (c === '"' || c === "'") skipString();
    else if (c === "[") {
      at++;
      for (let index = 0; ; index++) {
        skipBlank(true);
        if (text[at] === "]") break;
        value([...path, index], AFTER_ARRAY_ITEM);
        skipBlank(true);
        if (text[at] === ",") at++;
      }
      at++;
    } else if (c === "{") {
      // TOML 1.0 holds the braces to one line, with no comment and no trailing comma (smol-toml allows all three).
      at++;
      skipSpaces();
      if (text[at] !== "}") {
        for (;;) {
          if ("\n#}".includes(text[at]!)) throw decodeError(text, at, BAD_KEY_START);
          const keyPath = dottedKey(path);
          at++; // "="
          skipBlank(false);
          value(keyPath, AFTER_INLINE_ITEM);
          skipSpaces();
          if (text[at] === "}") break;
          if (text[at] !== ",") throw decodeError(text, at, AFTER_INLINE_ITEM);
          at++;
          skipSpaces();
        }
      }
      at++;
    } else {
      TIME_WITHOUT_SECONDS.lastIndex = at;
      const time = TIME_WITHOUT_SECONDS.exec(text);
      if (time) {
        // tomllib reads the date alone (and the space after it), or else a number: "0", or both digits.
        const stop = time[1] ? at + 10 + (time[1] === " " ? 1 : 0) : at + (time[2] === "0" ? 1 : 2);
        throw decodeError(text, stop, after);
      }
      while (at < text.length && !",]}\n#".includes(text[at]!)) at++;
    }
  };

  let table: TomlPath = [];
  for (skipBlank(true); at < text.length; skipBlank(true)) {
    if (text[at] !== "[") {
      const keyPath = dottedKey(table);
      at++; // "="
      skipBlank(false);
      value(keyPath, AFTER_STATEMENT);
      continue;
    }
    const isArray = text[at + 1] === "[";
    at += isArray ? 2 : 1;
    table = dottedKey([]);
    if (isArray) {
      // dottedKey went on in the array's last table; this header adds one.
      const arrayPath = typeof table[table.length - 1] === "number" ? table.slice(0, -1) : table;
      const length = (tableArrayLengths.get(tomlPathKey(arrayPath)) ?? 0) + 1;
      tableArrayLengths.set(tomlPathKey(arrayPath), length);
      table = [...arrayPath, length - 1];
    }
    at += isArray ? 2 : 1;
  }
  return order;
}
