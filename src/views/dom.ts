// Building the page: every string goes in as text (textContent), never as HTML. Markdown is the one exception,
// and it goes through DOMPurify (markdown.ts).
import { isSettledStatus } from "../core/surface/settled.js";

type Child = Node | string | null | undefined | false;

/** An element; a list of children goes in as an array, never spread into arguments (review 317: 70,000 frontmatter
 *  fields passed as arguments overflowed the stack). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | ((e: Event) => void)> = {}, ...children: Array<Child | readonly Child[]>): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === "function") el.addEventListener(name, value);
    else el.setAttribute(name, value);
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) el.append(typeof child === "string" ? document.createTextNode(child) : child);
  return el;
}

/** Replaces what `root` shows. */
export function show(root: HTMLElement, ...children: Child[]): void {
  root.replaceChildren(...children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false));
}

/** A document's status, as the server wrote it out, as a badge: marked settled by the rule Next goes by, on the whole
 *  of it, never a look-alike made one by dropping characters (review 328: `fin\u200bal` was a green "final"). */
export const statusBadge = (status: string) => h("span", { class: isSettledStatus(status) ? "status status-settled" : "status" }, status);

export const errorBox = (text: string) => h("p", { class: "error", role: "alert" }, text);
/** What went wrong, from anything thrown. */
export const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** A time as the text answers show it, as the answer gives it beside the UTC one: a workspace's whole, in its
 *  project's zone ("2026-11-30 00:22 (UTC-08:00)"); the bridge's on its machine's clock (an ISO `local`:
 *  "2026-11-30T13:52:57+05:30" -> "2026-11-30 13:52"); without one UTC, said so ("2026-11-30T08:22:57.000Z" ->
 *  "2026-11-30 08:22 UTC"); the ISO ones to the second where `seconds` (review 281: the bridge's read UTC, unlabelled). */
export const when = (utc: string, local?: string, seconds = false) =>
  local !== undefined && !/^\d{4}-\d\d-\d\dT/.test(local) ? local : `${(local ?? utc).replace("T", " ").slice(0, seconds ? 19 : 16)}${local === undefined ? " UTC" : ""}`;
