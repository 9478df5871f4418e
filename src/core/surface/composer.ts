// The brainstorming composer view (ui://bmad/brainstorm.html): BMAD's own page, brain.py's `html` output, which
// bmad-brainstorming ships as assets/brain-selector.html. It is read from the bundle (never copied into this project)
// and carried gzip-compressed in base64 inside the small loader page src/views/brainstorm-view.ts builds: the page is
// 244 KB, over a view's 150 KB, and 28 KB gzipped. Made once per bundle.
import { keptWhenMade } from "../kept.js";
import type { BundleFile } from "../catalog/bundle.js";
import type { Catalog } from "../catalog/catalog.js";
import type { Result } from "../result.js";
import { TOOL } from "./names.js";
import type { BundleReader } from "./reader.js";

/** The string in the loader's script that the page's bytes replace (gzip, base64). */
export const COMPOSER_SLOT = "__BMAD_COMPOSER_PAGE__";
const SKILL = "bmad-brainstorming";
const ASSET = "assets/brain-selector.html";

/** The composer page this bundle serves: bmad-brainstorming's, from the bmad-method package it was built with. The
 *  page's scripts run in the view, where they could ask the host for tool calls: no copy in a tree that a project, a
 *  cloned repository, a git source or the model can change is ever run; BMAD's install writes the package's bytes anyway. */
export function composerFile(catalog: Catalog): Result<{ file: BundleFile }> {
  const skill = catalog.resolve("workflow", SKILL);
  for (const record of skill.ok ? skill.candidates : []) {
    if (catalog.manifest.sources[record.source]?.origin !== "package" || !record.entry.endsWith("/SKILL.md")) continue;
    const path = `${record.entry.slice(0, -"SKILL.md".length)}${ASSET}`;
    const file = catalog.manifest.files.find((f) => f.source === record.source && f.path === path);
    if (file) return { ok: true, file };
  }
  return { ok: false, error: `This bundle has no brainstorming composer page (${SKILL}/${ASSET}): it comes with BMAD 6.12's core module. Pick techniques in chat instead.` };
}

const pages = new WeakMap<Catalog, Result<{ text: string }>>();

/** The loader page with this bundle's composer page in its slot. */
export function composerView(reader: BundleReader, loader: string): Promise<Result<{ text: string }>> {
  const { catalog } = reader;
  // A failed read is not kept: the next request tries again.
  return keptWhenMade(pages, catalog, async (): Promise<Result<{ text: string }>> => {
    const found = composerFile(catalog);
    if (!found.ok) return found;
    const parts = loader.split(COMPOSER_SLOT);
    if (parts.length !== 2) return { ok: false, error: "The composer's loader page has no slot for the page: rebuild the bundle (npm run bundle)." };
    const html = await reader.readText(found.file);
    return { ok: true, text: parts.join(await gzipBase64(html)) };
  }, (page) => page.ok);
}

/** The text as UTF-8, gzip-compressed, in base64. */
async function gzipBase64(text: string): Promise<string> {
  const gz = new Uint8Array(await new Response(new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer());
  let binary = "";
  for (let i = 0; i < gz.length; i += 0x8000) binary += String.fromCharCode(...gz.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** What bmad-run says for `brain.py html` where the page is shown as this view rather than written (the remote):
 *  the view holds BMAD's shipped catalog, so techniques of the project's own are offered in chat. */
export function composerNote(shippedCatalog: boolean): string {
  const shown = `The composer page opens in the chat here, not as a file: call ${TOOL.bmadBrainstorm}. The user picks a mode and techniques there, and its Copy prompt sends them to you as the user's message; read it as the skill says.`;
  return shippedCatalog ? shown : `${shown} It shows BMAD's shipped catalog: offer the custom techniques (--extra, or your own --file) in chat, with list --category or show.`;
}
