// The MCP Apps views (src/views) as self-contained HTML pages: each entry bundled by esbuild for the browser and
// inlined with the stylesheet, under a CSP that allows nothing from anywhere (no connection, no frame, no remote image).
// npm run bundle stores them in the bundle (manifest.views); each must stay within VIEW_MAX_BYTES, gzip VIEW_MAX_GZIP.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { VIEW_NAMES, type ViewName } from "../src/core/surface/views.js";

const VIEWS = resolve(import.meta.dirname, "../src/views");
export const VIEW_MAX_BYTES = 150 * 1024;
export const VIEW_MAX_GZIP = 50 * 1024;
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; connect-src 'none'; frame-src 'none'; form-action 'none'; base-uri 'none'";
const TITLES: Record<ViewName, string> = { map: "Project map", document: "Document", board: "Sprint board", session: "Delivery session", brainstorm: "Brainstorming composer" };

export async function buildViews(): Promise<Map<string, Uint8Array>> {
  const css = readFileSync(join(VIEWS, "style.css"), "utf8");
  const out = new Map<string, Uint8Array>();
  for (const name of VIEW_NAMES) {
    const built = await build({ entryPoints: [join(VIEWS, `${name}-view.ts`)], bundle: true, write: false, minify: true, format: "iife", platform: "browser", target: "es2020", legalComments: "none", logLevel: "warning" });
    // Inline: a "</script" inside the code would end the element early.
    const js = built.outputFiles[0]!.text.replace(/<\/script/gi, "<\\/script");
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${CSP}"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${TITLES[name]}</title><style>${css}</style></head><body><main id="app"><p class="note">Loading…</p></main><script>${js}</script></body></html>`;
    const bytes = new TextEncoder().encode(html);
    const gz = gzipSync(bytes).length;
    if (bytes.length > VIEW_MAX_BYTES || gz > VIEW_MAX_GZIP) throw new Error(`View ${name} is ${bytes.length} bytes (gzip ${gz}): over ${VIEW_MAX_BYTES} (gzip ${VIEW_MAX_GZIP}).`);
    out.set(name, bytes);
  }
  return out;
}
