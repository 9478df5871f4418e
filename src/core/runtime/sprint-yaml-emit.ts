// ruamel.yaml's round-trip dump of a sprint-status document (sprint-yaml.ts), as the two scripts configure it:
// indent(mapping=2, sequence=4, offset=2): block mappings and sequences, flow collections, anchors and tags, and each
// item's comments after its last token. The scalars are written by sprint-yaml-scalar.ts.
import { type Chunk, resolvePlain, type Style, type YDoc, type YMapNode, type YScalar, type YSeqNode, type YValue } from "./sprint-yaml.js";
import { analyze, doubleQuoted, literal, plain, singleQuoted, Writer } from "./sprint-yaml-scalar.js";

/** yaml.dump(doc) as text. */
export function dumpYaml(doc: YDoc): string {
  const w = new Writer();
  for (const line of doc.start) {
    w.out += `${line}\n`;
  }
  if (doc.root === null) return w.out;
  const root = doc.root;
  if (root.kind === "map" && !root.flow && root.items.length) blockMap(w, root, 0, false);
  else if (root.kind === "seq" && !root.flow && root.items.length) blockSeq(w, root, 0, false);
  else {
    node(w, root, 0, false);
    w.lineBreak();
  }
  return w.out;
}

function props(w: Writer, v: { anchor?: string; explicitTag?: string }): void {
  if (v.anchor) w.indicator(`&${v.anchor}`, true);
  if (v.explicitTag) w.indicator(v.explicitTag.startsWith("tag:yaml.org,2002:") ? `!!${v.explicitTag.slice(18)}` : v.explicitTag, true);
}

const isBlock = (v: YValue): v is YMapNode | YSeqNode => (v.kind === "map" || v.kind === "seq") && !v.flow && v.items.length > 0;

/** The chunk after an item: its end-of-line comment at the column it had (at least one space away), then its lines. */
function chunk(w: Writer, c: Chunk | undefined): void {
  if (c?.eol) w.write(" ".repeat(Math.max(1, c.eol.column - w.column)) + c.eol.text);
  // A block scalar ends its own last line.
  if (w.column !== 0 || c?.eol) w.lineBreak();
  for (const line of c?.lines ?? []) {
    w.out += `${line}\n`;
  }
}

function blockMap(w: Writer, map: YMapNode, indent: number, inline: boolean): void {
  map.items.forEach((item, i) => {
    for (const line of item.before ?? []) {
      if (w.column !== 0) w.lineBreak();
      w.out += line ? `${" ".repeat(indent)}# ${line}\n` : "\n";
    }
    if (!(inline && i === 0)) {
      w.indent = indent;
      w.writeIndent();
    }
    w.indent = indent;
    scalarOrFlow(w, item.key, indent + 2, true);
    w.indicator(":", false);
    const value = item.value;
    if (isBlock(value)) {
      props(w, value);
      chunk(w, item.chunk);
      if (value.kind === "map") blockMap(w, value, indent + 2, false);
      else blockSeq(w, value, indent + 2, false);
      return;
    }
    node(w, value, indent + 2, false);
    chunk(w, item.chunk);
  });
}

function blockSeq(w: Writer, seq: YSeqNode, dash: number, inline: boolean): void {
  seq.items.forEach((item, i) => {
    if (!(inline && i === 0)) {
      w.indent = dash;
      w.writeIndent();
    } else if (w.column < dash) w.write(" ".repeat(dash - w.column));
    w.indicator("-", true, true);
    w.write(" ");
    w.whitespace = true;
    const value = item.value;
    if (isBlock(value)) {
      props(w, value);
      if (value.kind === "map") blockMap(w, value, dash + 2, !value.anchor && !value.explicitTag);
      else blockSeq(w, value, dash + 4, true);
      if (item.chunk) chunk(w, item.chunk);
      return;
    }
    node(w, value, dash + 2, false);
    chunk(w, item.chunk);
  });
}

/** A scalar, alias or flow collection, on the current line. */
function node(w: Writer, v: YValue, indent: number, simpleKey: boolean): void {
  if (v.kind === "alias") return w.indicator(`*${v.name}`, true);
  if (v.kind === "scalar") return scalarOrFlow(w, v, indent, simpleKey);
  props(w, v);
  w.indent = indent;
  if (v.kind === "seq") {
    w.indicator("[", true, true);
    v.items.forEach((item, i) => {
      if (i) w.indicator(",", false);
      const single = item.value.kind === "map" && item.value.flow && item.value.items.length === 1 && !item.value.anchor;
      if (single) flowPair(w, (item.value as YMapNode).items[0]!, indent);
      else node(w, item.value, indent, false);
    });
    w.indicator("]", false);
  } else {
    w.indicator("{", true, true);
    v.items.forEach((item, i) => {
      if (i) w.indicator(",", false);
      flowPair(w, item, indent);
    });
    w.indicator("}", false);
  }
}

function flowPair(w: Writer, item: { key: YScalar; value: YValue }, indent: number): void {
  scalarOrFlow(w, item.key, indent, true);
  w.indicator(":", false);
  node(w, item.value, indent, false);
}

function scalarOrFlow(w: Writer, s: YScalar, indent: number, simpleKey: boolean): void {
  props(w, s);
  w.indent = indent;
  const [text, style] = presented(s, simpleKey);
  if (style === '"') doubleQuoted(w, text, !simpleKey);
  else if (style === "'") singleQuoted(w, text, !simpleKey);
  else if (style === "|") literal(w, text);
  else plain(w, text, !simpleKey);
}

/** The text ruamel's representer gives a scalar and the style its emitter picks (choose_scalar_style). */
function presented(s: YScalar, simpleKey: boolean): [string, Style] {
  if (s.tag === "null") return ["", ""];
  if (s.tag === "bool") return [/^t/i.test(s.text) ? "true" : "false", ""];
  if (s.tag === "int") return [/^[-+]?[1-9][0-9]*$|^[-+]?0$/.test(s.text) ? BigInt(s.text).toString() : s.text, ""];
  if (s.tag === "float") return [/nan|inf/i.test(s.text) ? s.text.toLowerCase() : s.text, ""];
  if (s.tag === "timestamp") return [s.text, ""];
  const a = analyze(s.text);
  if (s.style === '"') return [s.text, '"'];
  if (s.style === "") {
    const implicit = s.explicitTag !== undefined || resolvePlain(s.text) === "str";
    if (implicit && !(simpleKey && (a.empty || a.multiline)) && a.allowBlockPlain) return [s.text, ""];
  }
  if ((s.style === "|" || s.style === ">") && !simpleKey) return [s.text, "|"];
  if (s.style === "" && (s.text.includes("'") || s.text.includes("\n"))) return [s.text, '"'];
  if ((s.style === "" || s.style === "'") && a.allowSingle && !(simpleKey && a.multiline)) return [s.text, "'"];
  return [s.text, '"'];
}

