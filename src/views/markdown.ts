// Markdown as a document: marked renders it, DOMPurify keeps only inert HTML (no script, no event handler, no
// javascript: URL, no image map or form), and links do not navigate the frame (app.ts stops every one).
import DOMPurify from "dompurify";
import { marked } from "marked";
import { BIDI_CONTROL, lines, showControls } from "../core/lines.js";

/** A document's body without its frontmatter (shown apart, as fields: frontmatterFields). */
export function splitFrontmatter(text: string): { front: string; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  return m ? { front: m[1]!, body: text.slice(m[0].length) } : { front: "", body: text };
}

export interface Field { key: string; value: string }

/** The frontmatter's top-level fields in order, each with the lines under it (a list's items, a map's entries) joined
 *  by " · ", without quotes or comments: read line by line to be shown, not parsed (the view carries no YAML parser).
 *  A line before any field is one with no key, so no text goes unshown. */
export function frontmatterFields(front: string): Field[] {
  const fields: Field[] = [];
  for (const line of lines(front)) {
    const top = /^([^\s#:-][^:]*):(?:[ \t]|$)(.*)/.exec(line);
    if (top) {
      fields.push({ key: top[1]!, value: yamlValue(top[2]!) });
      continue;
    }
    const part = yamlValue(line.trim().replace(/^-[ \t]+/, ""));
    if (!part) continue;
    const last = fields.at(-1);
    if (last) last.value = last.value ? `${last.value} · ${part}` : part;
    else fields.push({ key: "", value: part });
  }
  return fields;
}

/** A YAML value as text: a quoted one's inside, or a plain one without its comment; a block scalar's marker (`|`, `>-`) is none. */
function yamlValue(raw: string): string {
  const value = raw.trim();
  const quoted = /^'((?:[^']|'')*)'|^"((?:[^"\\]|\\.)*)"/.exec(value);
  if (quoted) return quoted[1] !== undefined ? quoted[1].replace(/''/g, "'") : quoted[2]!;
  const plain = value.replace(/(?:^|[ \t])#.*/, "").trim();
  return /^[|>][-+0-9]*$/.test(plain) ? "" : plain;
}

/** Past these, a document is shown as its text: marked's cost grows with the square of emphasis runs (`**a` over
 *  240 KB froze the view 12 s) and its stack with nested quotes (5,000 `>` threw, and the view showed nothing: review
 *  20). BMAD's documents come nowhere near them. */
const MAX_RENDERED_CHARS = 256 * 1024;
const MAX_EMPHASIS_RUNS = 5_000;
const MAX_QUOTE_DEPTH = 64;
const MAX_LIST_DEPTH = 16;
const MAX_INDENT = 128;

/** Why `text` is shown as text rather than rendered, or undefined. Linear. */
function tooCostly(text: string): string | undefined {
  if (text.length > MAX_RENDERED_CHARS) return `it is longer than ${MAX_RENDERED_CHARS / 1024} KB`;
  // Every run that can open or close emphasis (review 21: single `*a _` runs cost as much as `**`): `*`, `~`, and `_`
  // but inside a word (snake_case opens nothing).
  if ((text.match(/\*+|~+|(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])/gu)?.length ?? 0) > MAX_EMPHASIS_RUNS) return `it has more than ${MAX_EMPHASIS_RUNS} emphasis marks`;
  if (new RegExp(`^(?:[ \\t]*>){${MAX_QUOTE_DEPTH + 1}}`, "m").test(text)) return `it nests quotes deeper than ${MAX_QUOTE_DEPTH}`;
  // Nested lists and quotes cost their depth on every line after them (review 23: 1,000 list markers then lazy lines
  // froze a view 14 s; review 24: `- > - > …` passed both caps apart): counted together on a line.
  if (new RegExp(`^[ \\t]*(?:(?:>|[-*+][ \\t]|\\d{1,9}[.)][ \\t])[ \\t]*){${MAX_LIST_DEPTH + 1}}`, "m").test(text)) return `it nests lists and quotes deeper than ${MAX_LIST_DEPTH}`;
  if (new RegExp(`^[ \\t]{${MAX_INDENT + 1}}`, "m").test(text)) return `it indents lines deeper than ${MAX_INDENT} columns`;
  return undefined;
}

/** A document this long renders whole; a longer one, block by block (split at blank lines outside code fences), each
 *  block at most MAX_BLOCK_CHARS and all of them within RENDER_BUDGET_MS, the rest shown as text: some shapes (a lazy
 *  list, setext headings, words joined by `_`) cost marked the square of their length, and 250 KB of one froze a view
 *  100 s (review 22). A block split off loses only what spans blocks (a loose list's numbering, a link reference). */
const WHOLE_RENDER_CHARS = 16 * 1024;
const MAX_BLOCK_CHARS = 16 * 1024;
const RENDER_BUDGET_MS = 500;

/** Past these, the HTML marked made is shown as the document's text (review 91): Chromium's HTML parser costs the
 *  square of the elements left open (15 blocks of 1,000 nested `<table><tr><td>`: 5.5 s in the sanitiser's parse alone,
 *  before the page's), and parsing and layout grow with their number (64,000 table cells: 2.5 s). Markdown's own nesting
 *  stops far below (MAX_QUOTE_DEPTH, MAX_LIST_DEPTH), and a 170 KB PRD makes 6,400 elements. */
const MAX_ELEMENTS = 30_000;
const MAX_OPEN_ELEMENTS = 256;
/** Elements that close themselves: no end tag follows them. */
const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]);

/** Why the HTML `html` is too costly to parse and lay out, or undefined: its start tags, and the most left open at
 *  once, counted in one pass over its tags, before any parser sees it. */
function tooCostlyHtml(html: string): string | undefined {
  let elements = 0;
  const open: string[] = [];
  for (const [, end, raw] of html.matchAll(/<(\/?)([a-z][^\s/>]*)/gi)) {
    const name = raw!.toLowerCase();
    // An end tag closes its element and those opened inside it; a stray one closes nothing, as parsers read it
    // (review 100: `</i>` after each `<td>` kept 3,000 levels under the count).
    if (end) {
      const at = open.lastIndexOf(name);
      if (at >= 0) open.length = at;
    } else if (++elements > MAX_ELEMENTS) return `it has more than ${MAX_ELEMENTS} HTML elements`;
    else if (!VOID.has(name) && open.push(name) > MAX_OPEN_ELEMENTS) return `it nests HTML elements deeper than ${MAX_OPEN_ELEMENTS}`;
  }
  return undefined;
}

/** The text cut at blank lines that are outside fenced code. */
function blocksOf(text: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  for (const line of text.split("\n")) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (!fence || marker.startsWith(fence))) fence = fence ? undefined : marker.slice(0, 3);
    current.push(line);
    if (!fence && line.trim() === "") {
      blocks.push(current.join("\n"));
      current = [];
    }
  }
  if (current.length) blocks.push(current.join("\n"));
  return blocks;
}

const SANITISE = {
  // Tags that hide their text or show it as another's (review 81: a closed dialog or details, a canvas's fallback, a
  // meter, a datalist, a textarea of one cell, bdo's reversal; review 133: a <title> in the body, which the browser
  // does not draw): taken out, their text shown plainly, and said so.
  FORBID_TAGS: ["style", "form", "input", "button", "map", "area", "base", "svg", "math", "template", "noscript", "video", "audio", "source", "track", "picture",
    "dialog", "details", "summary", "datalist", "canvas", "meter", "progress", "rp", "select", "option", "optgroup", "textarea", "bdo", "marquee", "blink", "title"],
  // Nor any attribute that hides text or dresses it as the view's own (review 78: `hidden`, `popover`, white `<font>`,
  // a `class="note"` forging the view's note; review 157: a cell's `bgcolor` the colour of its text). DOMPurify keeps
  // no other colour attribute (`text`, `link`, `vlink`, `alink`). No size either (review 215: a table's `width` drew a
  // cell as a version entry over the view's Versions list, `nowrap` put text 5,000 px out of the frame): an image
  // shows at its own size, within the document's width (style.css).
  FORBID_ATTR: ["style", "usemap", "formaction", "target", "srcset", "poster", "background", "bgcolor", "ping", "hidden", "popover", "color", "face", "size", "class", "dir",
    "width", "height", "nowrap"],
  // A document that starts with <style> would have it parsed into <head>, and dropped unsaid.
  FORCE_BODY: true,
};

// A task list's box as a glyph: marked draws an <input>, which the sanitiser takes out (and would then say so).
marked.use({ renderer: { checkbox: ({ checked }) => (checked ? "☑ " : "☐ ") } });

// What a document loads comes from the document itself (a `data:` image) or nowhere: the view's CSP blocks the rest,
// and the sanitiser keeps none either, so one layer failing is not a load (review 72: `![x](https://…)`, `<img srcset>`
// and `<svg><image href>` kept their addresses, stopped only by the CSP). A link keeps its address, to show it; a
// fragment is kept as an href, never as a src (review 133: `<img src="#">` loaded the page's own address). A data image
// is a raster one: an SVG's nested <use> can cost the page without end (review 317: 2 KB froze the view and its host).
const KEPT_SRC = /^data:image\/(?:png|jpeg|gif|webp)[;,]/i;
const KEPT_HREF = /^(?:data:image\/(?:png|jpeg|gif|webp)[;,]|#)/i;
DOMPurify.addHook("uponSanitizeAttribute", (node, data) => {
  if (node.nodeName === "A") return;
  const kept = data.attrName === "src" ? KEPT_SRC : data.attrName.endsWith("href") ? KEPT_HREF : undefined;
  const value = data.attrValue.trim();
  if (kept && !kept.test(value)) data.keepAttr = false;
  // A raster image is drawn at its size in pixels, whatever its bytes: within a budget a document's images share
  // (review 486: sixteen 13 KB PNGs of 81 megapixels each took the view 3 s and 440 MB).
  else if (kept && /^data:/i.test(value)) {
    const pixels = pixelsOf(value);
    if (pixels === undefined || pixels > pixelsLeft) data.keepAttr = false;
    else pixelsLeft -= pixels;
  }
});

/** Pixels a document's data images may hold in all: a photo or two, never a page's memory. */
const MAX_DOCUMENT_PIXELS = 32 * 1024 * 1024;
let pixelsLeft = MAX_DOCUMENT_PIXELS;
/** Characters of a data image's base64 read for its size: a JPEG's frame header may follow its metadata. */
const HEAD_CHARS = 128 * 1024;

/** Width times height as a PNG, GIF, WebP or JPEG header in a base64 data URL says it; undefined where none can be
 *  read there (not base64, or a header past HEAD_CHARS): such an image is not shown. */
function pixelsOf(url: string): number | undefined {
  const comma = url.indexOf(",");
  if (comma < 0 || !/;base64$/i.test(url.slice(0, comma))) return undefined;
  const head = url.slice(comma + 1, comma + 1 + HEAD_CHARS).replace(/[^A-Za-z0-9+/]/g, "");
  let bin: string;
  try {
    bin = atob(head.slice(0, head.length - (head.length % 4)));
  } catch {
    return undefined;
  }
  const b = (i: number) => bin.charCodeAt(i) & 0xff;
  const at = (i: number, text: string) => bin.startsWith(text, i);
  // Unsigned: a width past 2^31 is no negative number that would add to the budget.
  const u32 = (i: number) => b(i) * 2 ** 24 + ((b(i + 1) << 16) | (b(i + 2) << 8) | b(i + 3));
  if (at(0, "\x89PNG") && at(12, "IHDR")) return u32(16) * u32(20);
  if (at(0, "GIF8")) return (b(6) | (b(7) << 8)) * (b(8) | (b(9) << 8));
  if (at(0, "RIFF") && at(8, "WEBP")) {
    if (at(12, "VP8 ")) return ((b(26) | (b(27) << 8)) & 0x3fff) * ((b(28) | (b(29) << 8)) & 0x3fff);
    if (at(12, "VP8L")) return (1 + (((b(22) & 0x3f) << 8) | b(21))) * (1 + (((b(24) & 0xf) << 10) | (b(23) << 2) | ((b(22) & 0xc0) >> 6)));
    if (at(12, "VP8X")) return (1 + (b(24) | (b(25) << 8) | (b(26) << 16))) * (1 + (b(27) | (b(28) << 8) | (b(29) << 16)));
    return undefined;
  }
  if (b(0) === 0xff && b(1) === 0xd8) {
    // Segment to segment to the first frame header (SOF0 to SOF15, not DHT, JPG or DAC).
    for (let i = 2; i + 9 < bin.length; ) {
      if (b(i) !== 0xff) return undefined;
      const marker = b(i + 1);
      if (marker === 0xff) i++;
      else if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return ((b(i + 5) << 8) | b(i + 6)) * ((b(i + 7) << 8) | b(i + 8));
      else if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) i += 2;
      else i += 2 + ((b(i + 2) << 8) | b(i + 3));
    }
  }
  return undefined;
}

/** Elements DOMPurify drops with all they hold (its FORBID_CONTENTS), where it drops them: not allowed, or forbidden. */
const DROPPED_WITH_CONTENT = new Set(["annotation-xml", "audio", "desc", "foreignobject", "iframe", "math", "mi", "mn", "mo", "ms", "mtext", "noembed", "noframes", "noscript", "plaintext", "script", "selectedcontent", "style", "svg", "template", "title", "video", "xmp"]);
const FORBIDDEN = new Set(SANITISE.FORBID_TAGS);

// What the model reads stays where it stood, as text (review 424: a comment, `$100<!-- 0,000 -->`, an unclosed
// `<!--` or `<style>` hid the rest of the document, unsaid): a comment as written, and the text of an element
// DOMPurify drops with its content (a <title>, <script>, <template>…). Put before the node, which the sanitiser has
// passed, so the span's class (which no document can set) stays.
DOMPurify.addHook("uponSanitizeElement", (node, data) => {
  const dropped = node.nodeType === Node.COMMENT_NODE || (DROPPED_WITH_CONTENT.has(data.tagName) && (!data.allowedTags[data.tagName] || FORBIDDEN.has(data.tagName)));
  const text = dropped ? textWithComments(node) : "";
  if (text.trim()) (node as ChildNode).before(Object.assign(node.ownerDocument!.createElement("span"), { className: "html-text", textContent: text }));
});

/** A node's text with its comments written out as `<!--…-->`, a template's content included. */
function textWithComments(node: Node): string {
  if (node.nodeType === Node.COMMENT_NODE) return `<!--${(node as Comment).data}-->`;
  if (node.nodeType === Node.TEXT_NODE) return (node as Text).data;
  const children = node.nodeName === "TEMPLATE" ? (node as HTMLTemplateElement).content.childNodes : node.childNodes;
  return Array.from(children, textWithComments).join("");
}

/** The HTML a document's markdown renders to, sanitised, and a note of what was left out, which a reader should know:
 *  a hostile document can hide its own text from the view (review 72: a `<style>` swallowed every block after it). */
function sanitised(html: string): { html: string; dropped: string[] } {
  // Shown as written, not parsed: past `</body>` or `</html>` a comment goes outside the body, which no hook sees and
  // the sanitiser does not return, and a first `<frameset>` replaces the body (review 424: `</body><!--` hid the rest).
  pixelsLeft = MAX_DOCUMENT_PIXELS;
  const clean = DOMPurify.sanitize(html.replace(/<(?=\/(?:body|html)[\s/>]|frameset[\s/>])/gi, "&lt;"), SANITISE);
  // FORCE_BODY's own marker element (`<remove>`) is no part of the document.
  const dropped = [...new Set(DOMPurify.removed.flatMap(removedName))].filter((name) => name !== "remove");
  return { html: clean, dropped };
}

/** What the sanitiser took out, as the note names it: an element by its tag, a data image by its type
 *  ("image/svg+xml"); an attribute of another kind goes unnamed. */
function removedName(removed: (typeof DOMPurify.removed)[number]): string[] {
  if ("element" in removed) return removed.element instanceof Element ? [removed.element.nodeName.toLowerCase()] : [];
  const image = /^\s*data:(image\/[^;,]*)/i.exec(removed.attribute?.value ?? "")?.[1];
  return image ? [image.toLowerCase()] : [];
}

export function renderMarkdown(text: string): HTMLElement {
  const el = document.createElement("article");
  el.className = "markdown";
  // Its bidirectional controls written out, as in the rendered part (review 215: raw U+202E showed "$1000" reversed).
  const asText = (why: string, rest: string) => {
    const { text: shown, controls } = writeOutBidi(rest);
    el.append(Object.assign(document.createElement("p"), { className: "note", textContent: `Shown as text: ${why}.` }));
    if (controls) el.append(bidiNote("The text below holds", controls));
    el.append(Object.assign(document.createElement("pre"), { textContent: shown }));
  };
  const costly = tooCostly(text);
  if (costly) {
    asText(costly, text);
    return el;
  }
  const whole = text.length <= WHOLE_RENDER_CHARS;
  const blocks = whole ? [text] : blocksOf(text);
  // The budget is for rendering, and holds from the second block on: the first always renders (a busy machine's
  // splitting once counted against it, and a document was said to take too long before anything was rendered).
  const started = performance.now();
  let html = "";
  let rest: { from: number; why: string } | undefined;
  for (const [i, block] of blocks.entries()) {
    const why = !whole && block.length > MAX_BLOCK_CHARS ? `a part of it is longer than ${MAX_BLOCK_CHARS / 1024} KB without a blank line` : i > 0 && performance.now() - started > RENDER_BUDGET_MS ? "it takes too long to render" : undefined;
    let rendered: string | undefined;
    try {
      rendered = why ? undefined : marked.parse(block, { async: false, gfm: true });
    } catch {
      rendered = undefined; // a shape marked cannot render: shown as text, with the rest of the view
    }
    if (rendered === undefined) {
      rest = { from: i, why: why ?? "it does not render" };
      break;
    }
    html += rendered;
  }
  const heavy = tooCostlyHtml(html);
  if (heavy) {
    asText(heavy, text);
    return el;
  }
  show(el, html);
  if (rest) asText(`${rest.why}${rest.from ? " (from here on)" : ""}`, blocks.slice(rest.from).join("\n"));
  return linksStay(el);
}

/** `html` sanitised into `el`, after a note naming what was left out, if anything was. */
function show(el: HTMLElement, html: string): void {
  const { html: clean, dropped } = sanitised(html);
  el.innerHTML = clean;
  const reversed = showBidiControls(el);
  if (reversed) el.prepend(bidiNote("This document holds", reversed));
  if (dropped.length) {
    el.prepend(Object.assign(document.createElement("p"), { className: "note", textContent: `Some of this document's HTML is not shown (${dropped.slice(0, 8).join(", ")}${dropped.length > 8 ? ` and ${dropped.length - 8} more` : ""}): read its text with bmad-files to see all of it.` }));
  }
}

/** `text` with each bidirectional control written out where it is, `⟦U+202E⟧` (review 83: "‮eciffo-ytiruces" read as
 *  "security-office", "$1000" as reversed digits), and how many there were. */
export function writeOutBidi(text: string): { text: string; controls: number } {
  const controls = text.match(BIDI_ALL)?.length ?? 0;
  return { text: controls ? showControls(text, BIDI_ALL) : text, controls };
}
const BIDI_ALL = new RegExp(BIDI_CONTROL.source, "g");

/** The note above text whose `controls` bidirectional controls are written out; `holder` names it ("This document holds"). */
export const bidiNote = (holder: string, controls: number): HTMLElement =>
  Object.assign(document.createElement("p"), { className: "note", textContent: `${holder} ${controls} bidirectional control${controls === 1 ? "" : "s"}, which would show its text in another order: each is shown as ⟦U+…⟧ where it is.` });

/** Each text node's bidirectional controls, as a character or an entity, written out. How many there were. */
function showBidiControls(root: HTMLElement): number {
  let found = 0;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const { text, controls } = writeOutBidi(node.nodeValue ?? "");
    if (!controls) continue;
    found += controls;
    node.nodeValue = text;
  }
  return found;
}

/** A link would navigate the view away (or nowhere, sandboxed): it shows where it points instead. */
function linksStay(el: HTMLElement): HTMLElement {
  for (const a of el.querySelectorAll("a")) {
    a.title = a.getAttribute("href") ?? "";
    a.addEventListener("click", (e) => e.preventDefault());
  }
  return el;
}
