// MCP Apps views (the io.modelcontextprotocol/ui extension): self-contained HTML pages built from src/views at
// bundle time and stored in the bundle (manifest.views), served as ui:// resources. A tool names its page in
// `_meta.ui.resourceUri`; a host that renders them shows it, others read the tool's text. Pages reach nothing
// outside: their CSP allows no connection, no frame, no remote image, and they act only through tool calls the host makes.
import type { Result } from "../result.js";
import { composerView } from "./composer.js";
import type { BundleReader } from "./reader.js";

export const VIEW_MIME = "text/html;profile=mcp-app";
export const UI_EXTENSION = "io.modelcontextprotocol/ui";
export const VIEW_PREFIX = "ui://bmad/";
/** The views' names, as src/views has their entry files and the bundle stores them. */
export const VIEW_NAMES = ["map", "document", "board", "session", "brainstorm"] as const;
export type ViewName = (typeof VIEW_NAMES)[number];
export const viewUri = (name: ViewName): string => `${VIEW_PREFIX}${name}.html`;

/** No domain of any kind: the host's CSP for the page then allows only what is inline. */
const UI_META = { ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: true } };

/** Whether a client's capabilities say it renders views. */
export function rendersViews(capabilities: { extensions?: Record<string, unknown> } | undefined): boolean {
  const ui = capabilities?.extensions?.[UI_EXTENSION] as { mimeTypes?: unknown } | undefined;
  return Array.isArray(ui?.mimeTypes) && ui.mimeTypes.includes(VIEW_MIME);
}

export type ViewRead = Result<{ contents: Array<{ uri: string; mimeType: string; text: string; _meta: typeof UI_META }> }>;

/** resources/read of a ui://bmad/ URI. */
export async function readView(reader: BundleReader, uri: string): Promise<ViewRead> {
  const name = VIEW_NAMES.find((n) => viewUri(n) === uri);
  if (!name) return { ok: false, error: `Unknown view "${uri.slice(0, 100)}". Views: ${VIEW_NAMES.map(viewUri).join(", ")}.` };
  const stored = reader.catalog.manifest.views?.[name];
  if (!stored) return { ok: false, error: `This bundle was built without views: run npm run bundle (it builds ${uri}).` };
  const text = await reader.readText({ path: `views/${name}.html`, source: 0, sha256: stored.sha256, size: stored.size, mime: VIEW_MIME });
  if (name === "brainstorm") {
    // A loader: BMAD's own page goes in from the bundle's bmad-brainstorming (composer.ts).
    const page = await composerView(reader, text);
    return page.ok ? { ok: true, contents: [{ uri, mimeType: VIEW_MIME, text: page.text, _meta: UI_META }] } : page;
  }
  return { ok: true, contents: [{ uri, mimeType: VIEW_MIME, text, _meta: UI_META }] };
}
