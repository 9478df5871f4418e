// sprint-status.yaml as ruamel.yaml's round-trip loader holds it (YAML(typ="rt"), preserve_quotes), for the ports of
// sprint_plan.py and sprint_status.py. The `yaml` package parses; this file keeps what ruamel keeps: each scalar's
// style, key order, anchors and tags, and every comment and blank line as a "chunk" owned by the item whose last token
// it follows (so replacing a collection drops the comments inside it, as ruamel does). sprint-yaml-emit.ts writes it.
import { type CST, type Node as YNode, Scalar, YAMLMap, YAMLSeq, Alias, YAMLParseError, type Pair } from "yaml";
import { PyError } from "./py-json.js";
import { isSpace, repr as pyQuote } from "./py-str.js";
import { parseStamp, stampOf, stampStr } from "./sprint-yaml-time.js";
import { composeUntilError, linePos, tooHeavyToParse, tooManyQuotes } from "../yaml.js";
import { showName } from "../lines.js";

export type Style = "" | "'" | '"' | "|" | ">";
/** "tagged": ruamel's TaggedScalar, what a `!!str` or unknown tag (`!custom`) makes of a scalar: its str() is its text,
 *  but it equals no str (nor any other value but itself). */
export type ScalarTag = "str" | "int" | "float" | "bool" | "null" | "timestamp" | "tagged";

/** A scalar: its Python type, its text (the string, or the source of a number or timestamp) and style. */
export interface YScalar {
  kind: "scalar";
  tag: ScalarTag;
  text: string;
  /** "" is a plain `str`; a quote or block indicator is ruamel's ScalarString subclass of that style. */
  style: Style;
  anchor?: string;
  explicitTag?: string;
  /** A folded scalar's line folds that ruamel writes back as such (its fold_pos): the spaces a line break became. */
  folds?: number[];
}

export interface YAliasNode {
  kind: "alias";
  name: string;
  target: YValue;
}

/** The comment text after an item's last token: the rest of that line (`eol`, with the column of its "#") and the
 *  whole comment and blank lines after it. */
export interface Chunk {
  eol?: { text: string; column: number };
  lines: string[];
  /** After an empty value (`key:`) or a flow collection with no comment on its line: ruamel writes these lines after
   *  whatever value the key is given, a block collection too (review 97). */
  trailing?: boolean;
}

export interface YItem {
  key: YScalar;
  value: YValue;
  chunk?: Chunk;
  /** yaml_set_comment_before_after_key(key, before=...): lines written above the key ("" a blank line). */
  before?: string[];
  /** A key a merge (`<<: *base`) brought in: seen as the map's, not written (until set). */
  merged?: boolean;
}

export interface YMapNode {
  kind: "map";
  /** The dict ruamel makes: the map's own keys, then the merged ones. */
  items: YItem[];
  /** The `<<` item, written back at its place among the own keys. */
  merge?: { at: number; item: YItem };
  flow: boolean;
  anchor?: string;
  explicitTag?: string;
}

export interface YSeqItem {
  value: YValue;
  chunk?: Chunk;
}

export interface YSeqNode {
  kind: "seq";
  items: YSeqItem[];
  flow: boolean;
  anchor?: string;
  explicitTag?: string;
}

export type YValue = YScalar | YMapNode | YSeqNode | YAliasNode;

export interface YDoc {
  /** `%YAML` and `%TAG` directives, as ruamel writes them back (then `---`). */
  directives?: string[];
  /** Tag prefixes and the handles they are written with (`!!` and each `%TAG`). */
  tags?: Map<string, string>;
  /** The comment lines before the first token, after a `---` (yaml_set_start_comment writes them too). */
  start: string[];
  root: YValue | null;
  /** The comments after the document's last token where ruamel keeps them as the document's own, written after all
   *  of it (keys added too): after a flow collection or an empty value (`key:`) with no comment on its line (review
   *  442: a blank line after the last `development_status:` stayed above the keys added), or an alias (its line
   *  comment then on a line of its own, at its column). */
  end?: Chunk;
  /** Where the first U+0085, U+2028 or U+2029 outside a quoted scalar is: the port reads those in quotes as ruamel
   *  does, and others not always (in a comment, which ruamel refuses; in a plain value, where a `#` after one starts a
   *  comment to ruamel; in a block scalar; between tokens). */
  unquotedBreak?: number;
}

// ruamel's VersionedResolver for YAML 1.2: which plain scalars are not strings. Anchored alternations of single
// character classes, so they run in linear time.
const RESOLVERS: Array<[ScalarTag, RegExp]> = [
  ["bool", /^(?:true|True|TRUE|false|False|FALSE)$/],
  ["float", /^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+|[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/],
  ["int", /^(?:[-+]?0b[0-1_]+|[-+]?0o?[0-7_]+|[-+]?[0-9_]+|[-+]?0x[0-9a-fA-F_]+)$/],
  ["null", /^(?:~|null|Null|NULL|)$/],
  ["timestamp", /^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$/],
];
/** ruamel also resolves these (merge keys, the `=` value) away from str. */
const SPECIAL = new Set(["<<", "="]);

/** The tag a plain scalar with this text resolves to. */
export function resolvePlain(text: string): ScalarTag | "other" {
  if (SPECIAL.has(text)) return "other";
  for (const [tag, rx] of RESOLVERS) if (rx.test(text)) return tag;
  return "str";
}

export const str = (text: string, style: Style = ""): YScalar => ({ kind: "scalar", tag: "str", text, style });
export const int = (n: bigint): YScalar => ({ kind: "scalar", tag: "int", text: n.toString(), style: "" });
export const emptyMap = (): YMapNode => ({ kind: "map", items: [], flow: false });

/** The sprint plan's file name, in implementation_artifacts (BMAD's sprint-planning writes it). */
export const SPRINT_STATUS_FILE = "sprint-status.yaml";

/** Characters of a story key or status the board and a move show, at most: each invisible one written out takes eight
 *  (review 434: 500 keys of 150 zero-width spaces made a 1.8 MB board). */
const MAX_SHOWN = 120;

/** A key or status as the board, a move and a load's error name it: written out (showName), and cut with an ellipsis
 *  past MAX_SHOWN, a move by that name finding the key it stands for. */
export function boardName(text: string): string {
  const shown = showName(text);
  if (shown.length <= MAX_SHOWN) return shown;
  // Not between the halves of a surrogate pair.
  const cut = shown.slice(0, MAX_SHOWN - 1);
  return `${/[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

const MAX_YAML_KEYS = 10_000;
/** Lines and flow items a sprint status may hold: a key with its comments and blank lines, three times over. */
export const SPRINT_MAX_ENTRIES = 3 * MAX_YAML_KEYS;
const KEY_LINE = /:(?=[ \t\r\n,}]|$)/g;
const STYLES: Record<string, Style> = { PLAIN: "", QUOTE_SINGLE: "'", QUOTE_DOUBLE: '"', BLOCK_LITERAL: "|", BLOCK_FOLDED: ">" };
const CORE = "tag:yaml.org,2002:";
const NON_PRINTABLE = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;
/** The core tags ruamel constructs as their types; `!!str` and any other tag make a TaggedScalar. */
const EXPLICIT_TAGS = new Map<string, ScalarTag>((["int", "float", "bool", "null", "timestamp"] as const).map((t) => [CORE + t, t]));
/** What ruamel's constructor for a core tag raises on text it cannot read as that type. */
const TAG_ERRORS: Partial<Record<ScalarTag, (text: string) => [string, string]>> = {
  int: (text) => ["ValueError", `invalid literal for int() with base 10: ${pyQuote(text)}`],
  float: (text) => ["ValueError", `could not convert string to float: ${pyQuote(text)}`],
  bool: (text) => ["KeyError", pyQuote(text)],
  timestamp: (text) => ["ConstructorError", `failed to construct timestamp from "${text}"`],
};
const COLLECTION_TAGS = new Set([CORE + "map", CORE + "seq"]);
const UNREAD_TAGS = new Set(["omap", "pairs", "set", "binary"].map((t) => CORE + t));
const COMPLEX_KEY = "a key that is a mapping or list (`? a: b`, `[a]:`) is not supported here: the port reads scalar keys only; write the key as a string";
const STRAY_VALUE = "while parsing a block mapping\nexpected <block end>, but found '<block mapping start>'";
/** Line breaks to ruamel's scanner that the `yaml` package reads as text. */
const UNICODE_BREAK = /[\x85\u2028\u2029]/;
const UNICODE_BREAKS = /[\x85\u2028\u2029]/g;
/** Every line break to ruamel's scanner. */
const LINE_BREAKS = new Set(["\r", "\n", "\x85", "\u2028", "\u2029"]);

/** A key given twice in one map: the second one, and where it starts. */
class DuplicateKey extends Error {
  constructor(
    readonly key: string,
    readonly offset: number,
  ) {
    super();
  }
}

/** ` at line N, column M`, from 1, as the yaml package ends its errors (and ruamel says where). */
const atLine = (text: string, offset: number): string => {
  const [line, column] = linePos(text, offset);
  return ` at line ${line}, column ${column}`;
};

/** What YAML(typ="rt").load raises on, as a value: the error's text, or the document. */
export function loadYaml(text: string): { doc: YDoc } | { error: string } {
  // The yaml package checks keys for duplicates in time quadratic in their number (45,000 stories took 40 s): a
  // file with far more keys than any sprint's is refused rather than parsed. (Every `: ` counted, block or flow style.)
  let keys = 0;
  for (const _ of text.matchAll(KEY_LINE)) if (++keys > MAX_YAML_KEYS) return { error: `the file has more than ${MAX_YAML_KEYS} keys, far past any sprint's; split it` };
  const heavy = tooHeavyToParse(text, SPRINT_MAX_ENTRIES) ?? tooManyQuotes(text);
  if (heavy) return { error: `the file is heavier than any sprint's (${heavy}); split it` };
  // ruamel's reader refuses these anywhere in the file (review 97: a NUL was read).
  const special = NON_PRINTABLE.exec(text);
  if (special) return { error: `unacceptable character #x${special[0].codePointAt(0)!.toString(16).padStart(4, "0")}: special characters are not allowed` };
  // Stopped at its first error; keys told apart here, in one pass (the package's check is quadratic: review 65, 9,700
  // keys held a project 3.5 s), with its message.
  let parsed;
  try {
    // `\` before one of those breaks in double quotes is an escaped line break to ruamel, an invalid escape to the
    // package: ruamelFlowScalar reads that scalar again from its source.
    const escapedBreak = (code: string, offset: number) => code === "BAD_DQ_ESCAPE" && UNICODE_BREAK.test(text[offset + 1] ?? "");
    parsed = composeUntilError(text, { schema: "failsafe", keepSourceTokens: true, version: "1.2" }, escapedBreak)[0];
  } catch (error) {
    if (!(error instanceof YAMLParseError)) throw error;
    // The package refuses a flow collection as a key after a map's first one ("Map comment with trailing content"):
    // the key is the matter, worded as when it is first (review 337).
    if (isFlowKey(text, error.pos[0])) return { error: COMPLEX_KEY };
    return { error: error.message };
  }
  if (!parsed) return { error: "the file holds no YAML document" };
  const lineStart = (at: number) => text.lastIndexOf("\n", at - 1) + 1;
  // Every item's chunk runs from the end of its last token to the line of the next token.
  const tokenStarts: number[] = [];
  const slots: Array<{ end: number; owner: { chunk?: Chunk }; trailing?: boolean; alias?: boolean }> = [];
  const anchors = new Map<string, YValue>();
  // Scalars are folded again only in a file that holds a line break the `yaml` package reads as text.
  const unicodeBreaks = UNICODE_BREAK.test(text);
  // Where a tab may stand: in a quoted or block scalar, or a flow collection (ruamel skips tabs there only).
  const tabSpans: Array<[number, number]> = [];
  // The quoted scalars, where those breaks are read as ruamel reads them (YDoc.unquotedBreak).
  const quotedSpans: Array<[number, number]> = [];
  // The values merge keys take in, counted over the file (review 105: 2,000 aliases of 3,000 keys took 46 s).
  const mergeBudget = { left: SPRINT_MAX_ENTRIES };

  const scalar = (node: Scalar): YScalar => {
    const style = STYLES[node.type ?? "PLAIN"] ?? "";
    if (style) tabSpans.push([node.range![0], node.range![1]]);
    if (unicodeBreaks && (style === "'" || style === '"')) quotedSpans.push([node.range![0], node.range![1]]);
    // The yaml package reads `!!merge <<` as a symbol: its text is `<<` (review 105: written back as `Symbol(<<)`).
    // It reads `!!timestamp` as a Date: the text is its token's, unquoted (a timestamp holds no escapes).
    const stampSource = () => ((node.srcToken as { source?: string } | undefined)?.source ?? "").replace(/^(["'])(.*)\1$/s, "$2");
    const value = typeof node.value === "symbol" ? (node.value.description ?? "") : node.value instanceof Date ? stampSource() : String(node.value ?? "");
    const source = unicodeBreaks && style !== "|" && style !== ">" ? text.slice(node.range![0], node.range![1]) : "";
    const raw = UNICODE_BREAK.test(source) ? ruamelFlowScalar(source, style as FlowStyle) : value;
    let tag: ScalarTag = "str";
    // `!`, the non-specific tag, is no tag to ruamel: the scalar resolves by its text, quoted too (`! ''` is None).
    const nonSpecific = node.tag === "!";
    const explicit = nonSpecific ? undefined : node.tag;
    if (explicit) {
      tag = EXPLICIT_TAGS.get(explicit) ?? "tagged";
      const refused = TAG_ERRORS[tag];
      if (refused && resolvePlain(raw) !== tag && !(tag === "float" && resolvePlain(raw) === "int")) throw new PyError(...refused(raw));
    } else if (style === "" || nonSpecific) {
      const resolved = resolvePlain(raw);
      tag = resolved === "other" ? "str" : resolved;
    }
    // datetime's own checks, at load as ruamel's (review 97: `2026-02-30` is a ValueError).
    const stamp = tag === "timestamp" ? parseStamp(raw) : undefined;
    if (stamp && "error" in stamp) throw new PyError("ValueError", stamp.error);
    const out: YScalar = { kind: "scalar", tag, text: raw, style: tag === "str" || tag === "tagged" ? style : "" };
    if (out.style === ">") {
      const folds = foldsOf(raw, node.srcToken as { indent: number; props: Array<{ type: string; source: string }>; source: string } | undefined);
      if (folds.length) out.folds = folds;
    }
    // ruamel makes a core-tagged scalar the plain Python value, its tag gone; a float whose text reads as no float
    // (`!!float 1`) is written back with it.
    if (explicit && (tag === "tagged" || (tag === "float" && resolvePlain(raw) !== "float"))) out.explicitTag = explicit;
    if (node.anchor) out.anchor = node.anchor;
    return out;
  };

  const convert = (node: YNode | null | undefined, fallbackEnd: number): YValue => {
    if (node == null) return { kind: "scalar", tag: "null", text: "", style: "" };
    // An empty value (`key:`) is no token: the comment after it is its item's (review 97: `action_items: # c` lost it).
    if (!isEmpty(node)) tokenStarts.push(node.range![0]);
    if (node instanceof Alias) {
      const target = anchors.get(node.source);
      if (!target) throw new PyError("ComposerError", `found undefined alias '${node.source}'`);
      return { kind: "alias", name: node.source, target };
    }
    // The yaml package builds these tags its own way (pairs, not nodes); ruamel's types for them are not ported.
    if (node.tag && UNREAD_TAGS.has(node.tag)) throw new PyError("ConstructorError", `the port does not read ${node.tag.replace(CORE, "!!")}; write it as a plain mapping or list`);
    let out: YValue;
    if (node instanceof Scalar) out = scalar(node);
    else if (node instanceof YAMLMap) {
      // An empty `{}` or `[]` keeps no style: items added to it are written in block style, as ruamel writes them.
      const map: YMapNode = { kind: "map", items: [], flow: Boolean(node.flow) && node.items.length > 0, ...props(node) };
      if (node.flow) tabSpans.push([node.range![0], node.range![1]]);
      else if (strayValue(text, node.srcToken as CST.BlockMap)) throw new PyError("ParserError", STRAY_VALUE);
      const keys = new Set<string>();
      for (const pair of node.items as Array<Pair<YNode, YNode>>) {
        const entry = item(pair, Boolean(node.flow), fallbackEnd);
        if (isMergeKey(pair.key)) {
          if (map.merge) throw new PyError("DuplicateKeyError", 'found duplicate merge key "<<"');
          map.merge = { at: map.items.length, item: entry };
          continue;
        }
        const key = keyIdentity(entry.key);
        if (key !== undefined && keys.has(key)) throw new DuplicateKey(entry.key.text, pair.key.range![0]);
        if (key !== undefined) keys.add(key);
        map.items.push(entry);
      }
      if (map.merge) merge(map, map.merge.item.value, mergeBudget);
      out = map;
    } else if (node instanceof YAMLSeq) {
      const seq: YSeqNode = { kind: "seq", items: [], flow: Boolean(node.flow) && node.items.length > 0, ...props(node) };
      if (node.flow) tabSpans.push([node.range![0], node.range![1]]);
      const cst = (node.srcToken as { items?: Array<{ start: Array<{ type: string; offset: number }> }> } | undefined)?.items ?? [];
      (node.items as YNode[]).forEach((value, i) => {
        const dash = cst[i]?.start.find((t) => t.type === "seq-item-ind");
        if (dash) tokenStarts.push(dash.offset);
        const entry: YSeqItem = { value: convert(value, dash ? dash.offset + 1 : fallbackEnd) };
        if (!node.flow) slots.push({ end: endOf(value, dash ? dash.offset + 1 : fallbackEnd), owner: entry });
        seq.items.push(entry);
      });
      out = seq;
    } else throw new PyError("ConstructorError", "unsupported node");
    if (node.anchor) anchors.set(node.anchor, out);
    return out;
  };

  // ruamel drops a collection's core tag (`!!map`, `!!seq`, and `!`, which the `yaml` package reads as one of them).
  const props = (node: YAMLMap | YAMLSeq) => ({ ...(node.anchor ? { anchor: node.anchor } : {}), ...(node.tag && !COLLECTION_TAGS.has(node.tag) ? { explicitTag: node.tag } : {}) });

  /** Where an item's chunk begins: after a scalar or flow collection (an empty `[]` too, though it is kept with no
   *  style), or after the indicator before a block one. */
  const endOf = (node: YNode | null | undefined, indicatorEnd: number): number => {
    if (node == null) return indicatorEnd;
    if ((node instanceof YAMLMap || node instanceof YAMLSeq) && !node.flow) return indicatorEnd;
    return node.range![1];
  };

  const item = (pair: Pair<YNode, YNode>, flow: boolean, fallbackEnd: number): YItem => {
    const keyNode = pair.key;
    if (!(keyNode instanceof Scalar)) throw new PyError("ConstructorError", COMPLEX_KEY);
    tokenStarts.push(keyNode.range![0]);
    const key = scalar(keyNode);
    let colon = keyNode.range![1];
    while (colon < text.length && (text[colon] === " " || text[colon] === "\t")) colon++;
    const indicatorEnd = text[colon] === ":" ? colon + 1 : fallbackEnd;
    const entry: YItem = { key, value: convert(pair.value, indicatorEnd) };
    // After a flow collection (written in block style once it gains items or is replaced) as after an empty value,
    // ruamel writes the lines below it after the whole value.
    const trailing = isEmpty(pair.value) || ((pair.value instanceof YAMLMap || pair.value instanceof YAMLSeq) && Boolean(pair.value.flow));
    if (!flow) slots.push({ end: endOf(pair.value, indicatorEnd), owner: entry, trailing, alias: pair.value instanceof Alias });
    return entry;
  };

  let root: YValue | null;
  try {
    root = parsed.contents == null ? null : convert(parsed.contents as YNode, 0);
  } catch (error) {
    // Named as ruamel names it, and where, so that the one to fix is found (review 469).
    if (error instanceof DuplicateKey) return { error: `found duplicate key ${JSON.stringify(boardName(error.key))}${atLine(text, error.offset)}` };
    // What ruamel raises while composing or constructing is the load's error too, never a crash (review 97).
    if (error instanceof PyError) return { error: error.message };
    throw error;
  }
  const tab = strayTab(text, tabSpans);
  if (tab !== undefined) return { error: `while scanning for the next token\nfound character '\\t' that cannot start any token${atLine(text, tab)}` };
  // Aliases are kept as references, and every script's answer expands them (json.dumps of a story's value): a 943-byte
  // file of nested aliases expanded past 4 GB and ended the bridge (review 19). Counted once, each node by its size.
  const [values, chars] = root === null ? [0, 0] : expanded(root, new Map());
  if (values > SPRINT_MAX_ENTRIES) {
    return { error: `the file's aliases (*name) expand it past ${SPRINT_MAX_ENTRIES} values, far past any sprint's; write the values out, or remove the aliases` };
  }
  // Nor past a sprint's text: an alias of a long one is that long each time it is printed (review 106: 9,000 aliases
  // of 25,000 characters printed 225 MB, then past V8's longest string).
  if (chars > MAX_EXPANDED_TEXT) {
    return { error: `the file's aliases (*name) expand its text past ${MAX_EXPANDED_TEXT / MIB} MiB, far past any sprint's; write the values out, or remove the aliases` };
  }
  const sorted = [...new Set(tokenStarts)].sort((a, b) => a - b);
  let next = 0;
  let end: Chunk | undefined;
  for (const slot of slots.sort((a, b) => a.end - b.end)) {
    while (next < sorted.length && sorted[next]! < slot.end) next++;
    const stop = next < sorted.length ? sorted[next]! : text.length;
    const chunk = slot.end <= stop ? chunkOf(text.slice(slot.end, stop < text.length ? lineStart(stop) : stop), slot.end - lineStart(slot.end)) : undefined;
    if (chunk && stop === text.length && (slot.alias || (slot.trailing && !chunk.eol))) end = chunk;
    else if (chunk) slot.owner.chunk = chunk;
    if (chunk && slot.trailing && !chunk.eol) chunk.trailing = true;
  }
  const first = sorted.length ? lineStart(sorted[0]!) : text.length;
  // What comes before a `---` (directives, comments) ruamel does not keep as comments.
  const marker = /^---(?:[ \t]|$)/m.exec(text.slice(0, first));
  const start = root === null ? [] : commentLines(text.slice(marker ? text.indexOf("\n", marker.index) + 1 || first : 0, first));
  const { yaml, tags } = parsed.directives;
  const declared = Object.entries(tags).filter(([handle, prefix]) => !(handle === "!!" && prefix === CORE)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const directives = [...(yaml.explicit ? [`%YAML ${yaml.version}`] : []), ...declared.map(([handle, prefix]) => `%TAG ${handle} ${prefix}`)];
  const unquotedBreak = unicodeBreaks ? breakOutside(text, quotedSpans) : undefined;
  return { doc: { directives, tags: new Map([[CORE, "!!"], ["!", "!"], ...declared.map(([handle, prefix]): [string, string] => [prefix, handle])]), start, root, ...(end ? { end } : {}), ...(unquotedBreak === undefined ? {} : { unquotedBreak }) } };
}

/** Where the first U+0085, U+2028 or U+2029 outside the `quoted` spans is, if any: one pass. */
function breakOutside(text: string, quoted: Array<[number, number]>): number | undefined {
  quoted.sort((a, b) => a[0] - b[0]);
  let s = 0;
  for (const { index } of text.matchAll(UNICODE_BREAKS)) {
    while (s < quoted.length && quoted[s]![1] <= index) s++;
    if (s === quoted.length || quoted[s]![0] > index) return index;
  }
  return undefined;
}

/** int(text) of a YAML 1.2 int, as ruamel reads it. */
export function intValue(text: string): bigint {
  const t = text.replace(/_/g, "");
  const sign = t.startsWith("-") ? -1n : 1n;
  const body = t.replace(/^[-+]/, "");
  if (/^0[bB]/.test(body)) return sign * BigInt(body);
  if (/^0[xX]/.test(body)) return sign * BigInt(body);
  if (/^0o/.test(body)) return sign * BigInt(`0o${body.slice(2)}`);
  // YAML 1.2, as ruamel reads it: `017` is seventeen (review 97: read as octal, `project_key: 017` was written '15').
  return sign * BigInt(body);
}

/** float(text) of a YAML 1.2 float. */
export function floatValue(text: string): number {
  const t = text.replace(/_/g, "").toLowerCase();
  if (t.endsWith("nan")) return NaN;
  if (t.endsWith("inf")) return t.startsWith("-") ? -Infinity : Infinity;
  return Number(t);
}

/** What a key is as a dict key in Python, for telling keys apart: equal values (`~` and `null`, `2` and `0x2`, `1` and
 *  `1.0` and `true`) are one key; a TaggedScalar equals only itself (undefined). */
export function keyIdentity(key: YScalar): string | undefined {
  switch (key.tag) {
    case "str":
      return `s:${key.text}`;
    case "null":
      return "none";
    case "bool":
      return /^t/i.test(key.text) ? "n:1" : "n:0";
    case "int":
      return `n:${intValue(key.text)}`;
    case "float": {
      const n = floatValue(key.text);
      return Number.isInteger(n) ? `n:${BigInt(n)}` : `f:${n}`;
    }
    case "timestamp":
      return `t:${stampStr(stampOf(key.text))}`;
    default:
      return undefined;
  }
}

/** A plain `<<` key: YAML's merge, which ruamel applies (review 97: the port kept `<<` as a key of its own). */
const isMergeKey = (key: unknown): boolean =>
  key instanceof Scalar && (key.type ?? "PLAIN") === "PLAIN" && (key.value === "<<" || (typeof key.value === "symbol" && key.value.description === "<<")) && (!key.tag || key.tag === `${CORE}merge`);

/** add_yaml_merge: each merged map's keys the map lacks, after its own, first map first. */
function merge(map: YMapNode, value: YValue, budget: { left: number }): void {
  const d = value.kind === "alias" ? value.target : value;
  const sources = d.kind === "seq" ? d.items.map((i) => (i.value.kind === "alias" ? i.value.target : i.value)) : [d];
  if (d.kind !== "seq" && d.kind !== "map") throw new PyError("ConstructorError", "expected a mapping or list of mappings for merging, but found scalar");
  // Keys looked up in a set, not the list: each source's each key against every key was the cube of the file.
  const has = new Set(map.items.map((i) => keyIdentity(i.key)));
  for (const source of sources) {
    if (source.kind !== "map") throw new PyError("ConstructorError", `expected a mapping for merging, but found ${source.kind === "seq" ? "sequence" : "scalar"}`);
    if ((budget.left -= source.items.length) < 0) throw new PyError("ConstructorError", `the file's merge keys (<<) take in more than ${SPRINT_MAX_ENTRIES} values, far past any sprint's; write the values out`);
    for (const { key, value } of source.items) {
      const name = keyIdentity(key);
      if (name !== undefined && has.has(name)) continue;
      has.add(name);
      map.items.push({ key, value, merged: true });
    }
  }
}

/** Where a tab is that ruamel's block context meets between tokens (in a plain value too, which a tab ends): outside
 *  `spans`, and outside comments (review 97: `\t# note` and `note: a\tb` were read). */
function strayTab(text: string, spans: Array<[number, number]>): number | undefined {
  spans.sort((a, b) => a[0] - b[0]);
  let [s, comment] = [0, false];
  for (let i = 0; i < text.length; i++) {
    while (s < spans.length && spans[s]![1] <= i) s++;
    if (s < spans.length && spans[s]![0] <= i) {
      i = spans[s]![1] - 1;
      continue;
    }
    const ch = text[i];
    if (ch === "\n") comment = false;
    else if (comment) continue;
    else if (ch === "#" && (i === 0 || " \t\n".includes(text[i - 1]!))) comment = true;
    else if (ch === "\t") return i;
  }
  return undefined;
}

type FlowStyle = "" | "'" | '"';

/** A plain or quoted scalar's value as ruamel's scanner reads its `source` (quotes and all), which holds a U+0085,
 *  U+2028 or U+2029: line breaks to ruamel, text to the `yaml` package. Each run of blanks and line breaks folds as
 *  ruamel folds it (the blanks around the breaks dropped; a first break that is `\n` or U+0085 a space, or nothing
 *  when more follow; U+2028 and U+2029 kept as themselves, U+0085 after the first as `\n`), an escaped one in double
 *  quotes to the breaks after it; a plain scalar's breaks at either end are outside it (review 442: `project:
 *  'a\u2028  b'`, ruamel's own output, read back as "a\u2028  b"). One pass over the source. */
function ruamelFlowScalar(source: string, style: FlowStyle): string {
  const body = style ? source.slice(1, -1) : source;
  let out = "";
  let [from, i] = [0, 0];
  while (i < body.length) {
    if (style === '"' && body[i] === "\\" && !LINE_BREAKS.has(body[i + 1] ?? "")) {
      i += 2; // an escape pair is text, an escaped blank too
      continue;
    }
    const escapedBreak = style === '"' && body[i] === "\\";
    let j = escapedBreak ? i + 1 : i;
    while (body[j] === " " || body[j] === "\t") j++;
    if (!LINE_BREAKS.has(body[j] ?? "")) {
      i = Math.max(j, i + 1);
      continue;
    }
    const [end, breaks] = breakRun(body, j, style !== "");
    const folded = escapedBreak ? breaks.slice(1).join("") : breaks[0] !== "\n" ? breaks.join("") : breaks.length > 1 ? breaks.slice(1).join("") : " ";
    out += body.slice(from, i) + (style === "" && (i === 0 || end === body.length) ? "" : style === '"' ? escapeBreaks(folded) : folded);
    [from, i] = [end, end];
  }
  out += body.slice(from);
  if (style === "'") return out.replaceAll("''", "'");
  // The escapes read by the `yaml` package: the folded text is one line of them now.
  return style === '"' ? String(composeUntilError(`"${out}"`, { schema: "failsafe" })[0]?.toJS() ?? "") : out;
}

/** The line breaks from `at` (one) on, blanks between them skipped, as ruamel's scan_line_break gives them: `\r\n`,
 *  `\r` and U+0085 as `\n`. Returns where the run's blanks end. In quotes, a document marker opening a line after
 *  one is ruamel's error. */
function breakRun(body: string, at: number, quoted: boolean): [number, string[]] {
  const breaks: string[] = [];
  let i = at;
  for (;;) {
    const ch = body[i]!;
    i += ch === "\r" && body[i + 1] === "\n" ? 2 : 1;
    if (quoted && DOCUMENT_MARKER.test(body.slice(i, i + 4))) throw new PyError("ScannerError", "while scanning a quoted scalar\nfound unexpected document separator");
    breaks.push(ch === "\u2028" || ch === "\u2029" ? ch : "\n");
    while (body[i] === " " || body[i] === "\t") i++;
    if (!LINE_BREAKS.has(body[i] ?? "")) return [i, breaks];
  }
}

const DOCUMENT_MARKER = /^(?:---|\.\.\.)[ \t\r\n\x85\u2028\u2029]/;

const escapeBreaks = (folded: string): string => folded.replace(/[\n\u2028\u2029]/g, (ch) => (ch === "\n" ? "\\n" : ch === "\u2028" ? "\\L" : "\\P"));

/** Whether a block map holds a `:` that opens its line at another column than the map's keys: ruamel's scanner starts
 *  a new mapping there, which its parser refuses; the `yaml` package reads it as the value of an explicit key above it,
 *  or of a null key in the map around (review 445: `  ? 1-1-a\n : done` became `1-1-a:` and `null: done`). */
function strayValue(text: string, map: CST.BlockMap): boolean {
  let column: number | undefined;
  for (const item of map.items) {
    const colon = item.sep?.find((t) => t.type === "map-value-ind");
    if (!colon) continue;
    let at = colon.offset;
    while (at > 0 && text[at - 1] === " ") at--;
    if (at > 0 && text[at - 1] !== "\n") continue; // after its key, on the key's line
    column ??= columnOf(text, map.offset);
    if (colon.offset - at !== column) return true;
  }
  return false;
}

/** The column of `at` in its line; a byte order mark opening the file is none (ruamel's reader drops it). */
function columnOf(text: string, at: number): number {
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  return at - lineStart - (lineStart === 0 && text.startsWith("\ufeff") ? 1 : 0);
}

/** Whether a flow collection opens a line at `at` and is followed by `:`, a key (`  [a, b]: done`): one pass over it,
 *  its quotes and comments skipped. */
function isFlowKey(text: string, at: number): boolean {
  if (text[at] !== "[" && text[at] !== "{") return false;
  const start = text.lastIndexOf("\n", at - 1) + 1;
  if (text.slice(start, at).trim() !== "") return false;
  let depth = 0;
  let i = at;
  for (; i < text.length; i++) {
    const ch = text[i];
    if (ch === "[" || ch === "{") depth++;
    else if (ch === "]" || ch === "}") {
      if (--depth === 0) break;
    } else if (ch === "'") {
      i = text.indexOf("'", i + 1);
      while (i >= 0 && text[i + 1] === "'") i = text.indexOf("'", i + 2);
    } else if (ch === '"') {
      do i = text.indexOf('"', i + 1);
      while (i >= 0 && isEscaped(text, i));
    } else if (ch === "#" && " \t\n".includes(text[i - 1]!)) i = text.indexOf("\n", i);
    if (i < 0) return false;
  }
  do i++;
  while (text[i] === " " || text[i] === "\t");
  return text[i] === ":";
}

/** Whether the character at `at` follows an odd run of backslashes. */
function isEscaped(text: string, at: number): boolean {
  let n = 0;
  while (text[at - 1 - n] === "\\") n++;
  return n % 2 === 1;
}

const isEmpty = (node: YNode | null | undefined): boolean => node == null || node.range![0] === node.range![1];

/** How many values `v` is with its aliases expanded, each node's count kept (`sizes`): linear in the nodes. */
const MIB = 1024 * 1024;
/** The text a file's values may hold with its aliases expanded: a sprint status holds at most 256 KiB of its own. */
const MAX_EXPANDED_TEXT = 16 * MIB;

/** A value's size with its aliases expanded: its values, and its text's characters; counted once a node, each past
 *  its bound only "too many", so that no sum grows without end. */
function expanded(v: YValue, sizes: Map<YValue, [number, number]>): [number, number] {
  const known = sizes.get(v);
  if (known) return known;
  let [values, text] = [1, v.kind === "scalar" ? v.text.length : 0];
  const add = (child: YValue) => {
    const [n, t] = expanded(child, sizes);
    values += n;
    text += t;
  };
  if (v.kind === "alias") [values, text] = expanded(v.target, sizes);
  else if (v.kind === "map") for (const item of v.items) (add(item.key), add(item.value));
  else if (v.kind === "seq") for (const item of v.items) add(item.value);
  const size: [number, number] = [Math.min(values, SPRINT_MAX_ENTRIES + 1), Math.min(text, MAX_EXPANDED_TEXT + 1)];
  sizes.set(v, size);
  return size;
}


/** The positions in a folded scalar's `value` of the spaces its line folds became, as ruamel's round trip keeps them
 *  (its scanner marks each, its representer writes back those between two characters that are not spaces). Found by
 *  walking the scalar's lines (`token`, its CST) through the value; none where they do not line up. */
function foldsOf(value: string, token: { indent: number; props: Array<{ type: string; source: string }>; source: string } | undefined): number[] {
  if (!token) return [];
  const lines = token.source.split("\n");
  const explicit = /[1-9]/.exec(token.props.find((p) => p.type === "block-scalar-header")?.source ?? "")?.[0];
  const firstText = lines.find((l) => l.trim() !== "");
  const indent = explicit ? token.indent + Number(explicit) : (firstText?.length ?? 0) - (firstText?.trimStart().length ?? 0);
  const folds: number[] = [];
  let [at, previousPlain, blank] = [0, false, false];
  for (const line of lines) {
    if (line.length <= indent || line.slice(0, indent).trim() !== "") {
      blank = true;
      continue;
    }
    const text = line.slice(indent);
    const plain = text[0] !== " " && text[0] !== "\t";
    if (previousPlain && plain && !blank) {
      if (value[at] !== " ") return [];
      if (!isSpace(value[at - 1] ?? " ") && !isSpace(text[0]!)) folds.push(at);
      at++;
    } else while (value[at] === "\n") at++;
    if (!value.startsWith(text, at)) return [];
    at += text.length;
    [previousPlain, blank] = [plain, false];
  }
  return folds;
}

/** Full lines of comments and blank lines (document markers dropped, as ruamel drops them). */
function commentLines(text: string): string[] {
  if (!text) return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.filter((l) => !/^(?:---|\.\.\.)(?:[ \t]|$)/.test(l) && !l.startsWith("%")).map(trimEnd);
}

/** Trailing blanks cut by hand: a regex for them is retried at every run of blanks, quadratic on a long one. */
function trimEnd(line: string): string {
  let end = line.length;
  while (end > 0 && (line[end - 1] === " " || line[end - 1] === "\t" || line[end - 1] === "\r")) end--;
  return line.slice(0, end);
}

function chunkOf(text: string, column: number): Chunk | undefined {
  const nl = text.indexOf("\n");
  const first = nl < 0 ? text : text.slice(0, nl);
  if (nl < 0) return undefined; // the next token is on this line
  if (column === 0) {
    // After a block scalar, which ends at a line start: only whole lines follow.
    const lines = commentLines(text);
    return lines.length ? { lines } : undefined;
  }
  const hash = first.indexOf("#");
  const chunk: Chunk = { lines: commentLines(text.slice(nl + 1)) };
  if (hash >= 0) chunk.eol = { text: trimEnd(first.slice(hash)), column: column + hash };
  return chunk.eol || chunk.lines.length ? chunk : undefined;
}
