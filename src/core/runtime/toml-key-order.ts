// The order in which a TOML document first names each table's keys, which tomllib's dicts keep. smol-toml returns
// plain objects, and JavaScript lists an object's integer-like keys ("2", "10") first whatever their place in the
// file, so the order is read here from the text, which smol-toml has already checked.
import { parse } from "smol-toml";
import { parseBoundedToml } from "../yaml.js";

/** A table's place in the document: its keys, and the index of each array element on the way. */
export type TomlPath = Array<string | number>;

/** Each table's keys (by tomlPathKey of its path) in the order the text first names them. */
export type TomlKeyOrder = Map<string, Set<string>>;

export function tomlPathKey(path: TomlPath): string {
  return JSON.stringify(path);
}

const BARE_KEY = /[A-Za-z0-9_-]+/y;

/** The key order of `text`, a document smol-toml parsed without error (CRLF already read as LF). */
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
        if (quote === '"' && text[at] === "\\") at += 2;
        else if (text.startsWith(quote.repeat(3), at)) break;
        else at++;
      }
      at += 3;
      while (text[at] === quote) at++; // up to two quotes may end the content
      return;
    }
    at++;
    while (text[at] !== quote) at += quote === '"' && text[at] === "\\" ? 2 : 1;
    at++;
  };
  const value = (path: TomlPath) => {
    const c = text[at];
    if (c === '"' || c === "'") skipString();
    else if (c === "[") {
      at++;
      for (let index = 0; ; index++) {
        skipBlank(true);
        if (text[at] === "]") break;
        value([...path, index]);
        skipBlank(true);
        if (text[at] === ",") at++;
      }
      at++;
    } else if (c === "{") {
      at++;
      // smol-toml reads TOML 1.1 here: line breaks, comments and a trailing comma inside the braces.
      for (;;) {
        skipBlank(true);
        if (text[at] === "}") break;
        const keyPath = dottedKey(path);
        at++; // "="
        skipBlank(false);
        value(keyPath);
        skipBlank(true);
        if (text[at] === ",") at++;
      }
      at++;
    } else while (at < text.length && !",]}\n#".includes(text[at]!)) at++;
  };

  let table: TomlPath = [];
  for (skipBlank(true); at < text.length; skipBlank(true)) {
    if (text[at] !== "[") {
      const keyPath = dottedKey(table);
      at++; // "="
      skipBlank(false);
      value(keyPath);
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
