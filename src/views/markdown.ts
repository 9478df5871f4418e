// Markdown as a document: marked renders it, DOMPurify keeps only inert HTML (no script, no event handler, no
// javascript: URL, no image map or form), and links do not navigate the frame (app.ts stops every one).
import DOMPurify from "dompurify";
import { marked } from "marked";

/** A document's body without its frontmatter (shown apart, as fields). */
export function splitFrontmatter(text: string): { front: string; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  return m ? { front: m[1]!, body: text.slice(m[0].length) } : { front: "", body: text };
}

export function renderMarkdown(text: string): HTMLElement {
  const el = document.createElement("article");
  el.className = "markdown";
  const html = marked.parse(text, { async: false, gfm: true });
  el.innerHTML = DOMPurify.sanitize(html, { FORBID_TAGS: ["style", "form", "input", "button", "map", "area", "base"], FORBID_ATTR: ["style", "usemap", "formaction", "target"] });
  // A link would navigate the view away (or nowhere, sandboxed): it shows where it points instead.
  for (const a of el.querySelectorAll("a")) {
    a.title = a.getAttribute("href") ?? "";
    a.addEventListener("click", (e) => e.preventDefault());
  }
  return el;
}
