// ruamel.yaml's round-trip dump of a sprint-status document (sprint-yaml.ts), as the two scripts configure it:
// indent(mapping=2, sequence=4, offset=2): block mappings and sequences, flow collections, anchors and tags, and each
// item's comments after its last token. The scalars are written by sprint-yaml-scalar.ts.
import { type Chunk, type YAliasNode, type YItem, resolvePlain, type Style, type YDoc, type YMapNode, type YScalar, type YSeqNode, type YValue } from "./sprint-yaml.js";
import { stampDump, stampOf } from "./sprint-yaml-time.js";
import { analyze, doubleQuoted, folded, literal, plain, singleQuoted, WIDTH, withFolds, Writer } from "./sprint-yaml-scalar.js";

/** ruamel's Emitter.MAX_SIMPLE_KEY_LENGTH. */
const MAX_SIMPLE_KEY_LENGTH = 128;

/** A writer that knows how often each collection is met (through aliases too) and which it has written. */
class DocWriter extends Writer {
  refs = new Map<YValue, number>();
  written = new Set<YValue>();
  /** Tag prefixes and their handles, `!!` and the document's `%TAG`s: a tag is written with its handle. */
  tags = new Map([["tag:yaml.org,2002:", "!!"], ["!", "!"]]);
}

/** yaml.dump(doc) as text. */
export function dumpYaml(doc: YDoc): string {
  const w = new DocWriter();
  if (doc.tags) w.tags = doc.tags;
  // Directives, then `---`: a block collection starts on the next line, anything else after it on this one.
  if (doc.directives?.length && doc.root !== null) {
    for (const line of doc.directives) w.out += `${line}\n`;
    w.indicator("---", true);
    if (doc.start.length) w.lineBreak();
  }
  for (const line of doc.start) {
    w.out += `${line}\n`;
  }
  if (doc.root === null) return w.out;
  count(w.refs, doc.root);
  const root = shown(w, doc.root);
  if (isBlock(root) && root.kind === "map") blockMap(w, root, 0, false);
  else if (isBlock(root)) blockSeq(w, root as YSeqNode, 0, false);
  else {
    node(w, root, 0, 0);
    w.lineBreak();
  }
  if (doc.end?.eol) w.out += `${" ".repeat(doc.end.eol.column)}${doc.end.eol.text}\n`;
  for (const line of doc.end?.lines ?? []) w.out += `${line}\n`;
  if (w.openEnded) {
    w.indent = 0;
    w.indicator("...", true);
    w.writeIndent();
  }
  return w.out;
}

function props(w: DocWriter, v: { anchor?: string; explicitTag?: string }): void {
  if (v.anchor) w.indicator(`&${v.anchor}`, true);
  if (v.explicitTag) w.indicator(tagText(w.tags, v.explicitTag), true);
}

/** prepare_tag: a tag by the handle of its prefix (the last, in sorted order, that it starts with), else verbatim. */
function tagText(tags: Map<string, string>, tag: string): string {
  let shown = `!<${tag}>`;
  for (const prefix of [...tags.keys()].sort()) {
    if (tag.startsWith(prefix) && (prefix === "!" || prefix.length < tag.length)) shown = tags.get(prefix)! + tag.slice(prefix.length);
  }
  return shown;
}

/** An alias's node (an anchor is never set on an alias). */
const targetOf = (v: YValue) => (v.kind === "alias" ? v.target : v) as Exclude<YValue, YAliasNode>;

function count(refs: Map<YValue, number>, v: YValue): void {
  const target = targetOf(v);
  if (target.kind === "scalar") return;
  refs.set(target, (refs.get(target) ?? 0) + 1);
  if (refs.get(target) === 1) for (const item of target.kind === "map" ? written(target) : target.items) count(refs, item.value);
}

/** What ruamel's serializer writes for a value: a collection in full where first met, anchored only when met again
 *  (an anchor nothing refers to is dropped), an alias after; a scalar as read. Review 97: a status map replaced under
 *  its anchor left `*d` dangling. */
function shown(w: DocWriter, v: YValue): YValue {
  const target = targetOf(v);
  // A scalar keeps its anchor as read; where its anchor's site was replaced, the first alias writes it in full there,
  // anchored, as ruamel moves it (review 106: `last_updated: &l …` with `*l` elsewhere left `*l` dangling).
  if (target.kind === "scalar") {
    if (v.kind === "alias" && !w.written.has(target)) v = target;
    w.written.add(target);
    return v;
  }
  const name = target.anchor ?? "id001";
  if (w.written.has(target)) return { kind: "alias", name, target };
  w.written.add(target);
  const { anchor: _, ...rest } = target;
  return (w.refs.get(target) ?? 0) > 1 ? { ...rest, anchor: name } : rest;
}

/** The items a map writes: its own, with the merge (`<<: *base`) at its place. */
function written(map: YMapNode): YItem[] {
  const own = map.items.filter((i) => !i.merged);
  if (map.merge) own.splice(map.merge.at, 0, map.merge.item);
  return own;
}

const isBlock = (v: YValue): v is YMapNode | YSeqNode => (v.kind === "map" ? !v.flow && written(v).length > 0 : v.kind === "seq" && !v.flow && v.items.length > 0);

/** The chunk after an item: its end-of-line comment at the column it had (at least one space away), then its lines. */
function chunk(w: Writer, c: Chunk | undefined): void {
  if (c?.eol) w.write(" ".repeat(Math.max(1, c.eol.column - w.column)) + c.eol.text);
  // A block scalar ends its own last line.
  if (w.column !== 0 || c?.eol) w.lineBreak();
  for (const line of c?.lines ?? []) {
    w.out += `${line}\n`;
  }
}

function blockMap(w: DocWriter, map: YMapNode, indent: number, inline: boolean): void {
  written(map).forEach((item, i) => {
    for (const line of item.before ?? []) {
      if (w.column !== 0) w.lineBreak();
      w.out += line ? `${" ".repeat(indent)}# ${line}\n` : "\n";
    }
    if (!(inline && i === 0)) {
      w.indent = indent;
      w.writeIndent();
    }
    w.indent = indent;
    const explicit = item !== map.merge?.item && !isSimpleKey(w, item.key);
    if (item === map.merge?.item) plain(w, "<<", false);
    else if (explicit) {
      w.indicator("?", true);
      scalarOrFlow(w, item.key, indent + 2, false);
      w.indent = indent;
      w.writeIndent();
    } else scalarOrFlow(w, item.key, indent + 2, true);
    w.indicator(":", explicit);
    const value = shown(w, item.value);
    if (isBlock(value)) {
      props(w, value);
      const trailing = item.chunk?.trailing;
      // An explicit key's `:` is followed by its collection as `- ` is: on that line, a sequence's dashes 4 in (not 2).
      // An anchor, tag or comment after the `:` makes it an ordinary value; comment lines only move it down a line.
      const bare = explicit && !value.anchor && !value.explicitTag && !item.chunk?.eol;
      const inline = bare && !item.chunk?.lines.length;
      if (!trailing && !inline) chunk(w, item.chunk);
      if (value.kind === "map") blockMap(w, value, indent + 2, inline);
      else blockSeq(w, value, indent + (bare ? 4 : 2), inline);
      if (trailing) chunk(w, item.chunk);
      return;
    }
    node(w, value, indent + 2, indent);
    chunk(w, item.chunk);
  });
}

function blockSeq(w: DocWriter, seq: YSeqNode, dash: number, inline: boolean): void {
  seq.items.forEach((item, i) => {
    if (!(inline && i === 0)) {
      w.indent = dash;
      w.writeIndent();
    } else if (w.column < dash) {
      w.write(" ".repeat(dash - w.column));
      w.whitespace = true; // as ruamel's write_indent leaves it: no space added before the dash
    }
    w.indicator("-", true, true);
    w.write(" ");
    w.whitespace = true;
    const value = shown(w, item.value);
    if (isBlock(value)) {
      props(w, value);
      if (value.kind === "map") blockMap(w, value, dash + 2, !value.anchor && !value.explicitTag);
      else blockSeq(w, value, dash + 4, true);
      if (item.chunk) chunk(w, item.chunk);
      return;
    }
    node(w, value, dash + 2, dash - 2);
    chunk(w, item.chunk);
  });
}

/** ruamel's increase_indent in flow style: a node inside a collection is this much further in than the collection,
 *  by the kind of the collection (review 445: a wrapped flow collection's next line was 2 in, where ruamel's is 8). */
const FLOW_STEP = { seq: 4, map: 2 } as const;

/** A scalar, alias or flow collection, on the current line, at `indent` (ruamel's: where a line it wraps goes on);
 *  `outer` is the indent of what holds it. A collection in a sequence starts at the column `align` at least (ruamel's
 *  seq_flow_align: one space in, after a line its sequence wrapped). */
function node(w: DocWriter, v: YValue, indent: number, outer: number, align = 0): void {
  if (v.kind === "alias") return w.indicator(`*${v.name}`, true);
  if (v.kind === "scalar") return scalarOrFlow(w, v, indent, false);
  props(w, v);
  w.indent = indent;
  const pad = " ".repeat(Math.max(0, align - w.column));
  if (v.kind === "seq") {
    w.indicator(`${pad}[`, true, true);
    const itemAlign = outer + FLOW_STEP.seq - 1;
    v.items.forEach((item, i) => {
      itemStart(w, indent, i);
      const value = shown(w, item.value);
      const single = value.kind === "map" && value.flow && written(value).length === 1 && !value.anchor;
      if (single) {
        // A map of one pair, written without its braces: padded still (a space where one is needed), then its pair.
        const pair = written(value)[0]!;
        w.indicator(" ".repeat(Math.max(0, itemAlign - w.column)), true, true);
        itemStart(w, indent + FLOW_STEP.seq, 0);
        flowPair(w, pair, indent + FLOW_STEP.seq, pair === value.merge?.item);
      } else node(w, value, indent + FLOW_STEP.seq, indent, itemAlign);
    });
    w.indicator("]", false);
  } else {
    w.indicator(`${pad}{`, true, true);
    written(v).forEach((item, i) => {
      itemStart(w, indent, i);
      flowPair(w, item, indent, item === v.merge?.item);
    });
    w.indicator("}", false);
  }
}

/** Before a flow collection's item: the `,` after the one before; past the width, a new line at the collection's
 *  indent. */
function itemStart(w: DocWriter, indent: number, i: number): void {
  if (i) w.indicator(",", false);
  w.indent = indent;
  if (w.column > WIDTH) w.writeIndent();
}

/** A flow map's pair, the map at `indent`; its merge key written plain, as in a block map (review 105: quoted `'<<'`,
 *  no merge to ruamel). */
function flowPair(w: DocWriter, item: { key: YScalar; value: YValue }, indent: number, isMerge: boolean): void {
  const explicit = !isMerge && !isSimpleKey(w, item.key);
  const inner = indent + FLOW_STEP.map;
  if (isMerge) {
    w.indent = inner;
    plain(w, "<<", false);
  } else if (explicit) {
    w.indicator("?", true);
    scalarOrFlow(w, item.key, inner, false);
    w.indent = indent;
    if (w.column > WIDTH) w.writeIndent(); // in a flow map, `:` goes to a new line only past the width
  } else scalarOrFlow(w, item.key, inner, true);
  w.indicator(":", explicit);
  node(w, shown(w, item.value), inner, indent);
}

/** check_simple_key: a key with a line break, or of 128 characters or more with its anchor and its tag (`!!str` for a
 *  string), is written as an explicit `? key` / `: value` pair. */
function isSimpleKey(w: DocWriter, key: YScalar): boolean {
  const [text] = presented(key, true);
  const tag = key.explicitTag ? tagText(w.tags, key.explicitTag) : `!!${key.tag}`;
  const length = [...(key.anchor ?? "")].length + tag.length + [...text].length;
  return length < MAX_SIMPLE_KEY_LENGTH && !analyze(text).multiline;
}

function scalarOrFlow(w: DocWriter, s: YScalar, indent: number, simpleKey: boolean): void {
  props(w, s);
  w.indent = indent;
  const [text, style] = presented(s, simpleKey);
  if (style === '"') doubleQuoted(w, text, !simpleKey);
  else if (style === "'") singleQuoted(w, text, !simpleKey);
  else if (style === "|") literal(w, text);
  else if (style === ">") folded(w, withFolds(text, s.folds));
  else plain(w, text, !simpleKey);
}

/** The text ruamel's representer gives a scalar and the style its emitter picks (choose_scalar_style). */
function presented(s: YScalar, simpleKey: boolean): [string, Style] {
  // None is written empty as a value, `null` as a key (whatever its text was: `~`, `Null`).
  if (s.tag === "null") return [simpleKey ? "null" : "", ""];
  if (s.tag === "bool") return [/^t/i.test(s.text) ? "true" : "false", ""];
  if (s.tag === "int") return [/^[-+]?[1-9][0-9]*$|^[-+]?0$/.test(s.text) ? BigInt(s.text).toString() : s.text, ""];
  if (s.tag === "float") return [/nan|inf/i.test(s.text) ? s.text.toLowerCase() : s.text, s.explicitTag ? "'" : ""];
  if (s.tag === "timestamp") return [stampDump(stampOf(s.text)), ""];
  const a = analyze(s.text);
  if (s.style === '"') return [s.text, '"'];
  if (s.style === "") {
    const implicit = s.explicitTag !== undefined || resolvePlain(s.text) === "str";
    if (implicit && !(simpleKey && (a.empty || a.multiline)) && a.allowBlockPlain) return [s.text, ""];
  }
  if ((s.style === "|" || s.style === ">") && !simpleKey) return [s.text, s.style];
  if (s.style === "" && (s.text.includes("'") || s.text.includes("\n"))) return [s.text, '"'];
  if ((s.style === "" || s.style === "'") && a.allowSingle && !(simpleKey && a.multiline)) return [s.text, "'"];
  return [s.text, '"'];
}

