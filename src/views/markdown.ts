// Markdown as a document: marked renders it, DOMPurify keeps only inert HTML (no script, no event handler, no
// javascript: URL, no image map or form), and links do not navigate the frame (app.ts stops every one).
import DOMPurify from "dompurify";
import { marked } from "marked";

/** A document's body without its frontmatter (shown apart, as fields). */
export function splitFrontmatter(text: string): { front: string; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  return m ? { front: m[1]!, body: text.slice(m[0].length) } : { front: "", body: text };
}

/** Past these, a document is shown as its text: marked's cost grows with the square of emphasis runs (`**a` over
 *  240 KB froze the view 12 s) and its stack with nested quotes (5,000 `>` threw, and the view showed nothing: review
 *  20). BMAD's documents come nowhere near them. */
const MAX_RENDERED_CHARS = 256 * 1024;
const MAX_EMPHASIS_RUNS = 5_000;
const MAX_QUOTE_DEPTH = 64;

/** Why `text` is shown as text rather than rendered, or undefined. Linear. */
function tooCostly(text: string): string | undefined {
  if (text.length > MAX_RENDERED_CHARS) return `it is longer than ${MAX_RENDERED_CHARS / 1024} KB`;
  // Every run that can open or close emphasis (review 21: single `*a _` runs cost as much as `**`): `*`, `~`, and `_`
  // but inside a word (snake_case opens nothing).
  if ((text.match(/\*+|~+|(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])/gu)?.length ?? 0) > MAX_EMPHASIS_RUNS) return `it has more than ${MAX_EMPHASIS_RUNS} emphasis marks`;
  if (new RegExp(`^(?:[ \\t]*>){${MAX_QUOTE_DEPTH + 1}}`, "m").test(text)) return `it nests quotes deeper than ${MAX_QUOTE_DEPTH}`;
  return undefined;
}

export function renderMarkdown(text: string): HTMLElement {
  const el = document.createElement("article");
  el.className = "markdown";
  const costly = tooCostly(text);
  let html: string | undefined;
  try {
    html = costly ? undefined : marked.parse(text, { async: false, gfm: true });
  } catch {
    html = undefined; // a shape marked cannot render: shown as text, with the rest of the view
  }
  if (html === undefined) {
    el.append(Object.assign(document.createElement("p"), { className: "note", textContent: `Shown as text: ${costly ?? "it does not render"}.` }), Object.assign(document.createElement("pre"), { textContent: text }));
    return el;
  }
  el.innerHTML = DOMPurify.sanitize(html, { FORBID_TAGS: ["style", "form", "input", "button", "map", "area", "base"], FORBID_ATTR: ["style", "usemap", "formaction", "target"] });
  // A link would navigate the view away (or nowhere, sandboxed): it shows where it points instead.
  for (const a of el.querySelectorAll("a")) {
    a.title = a.getAttribute("href") ?? "";
    a.addEventListener("click", (e) => e.preventDefault());
  }
  return el;
}
