// What is wrong with the BMAD trees served (BundleManifest.warnings: a root that yields nothing, a manifest row
// without its file, a file without a row), said where a client sees it: stderr reaches no one in a chat.
import type { Catalog } from "../catalog/catalog.js";
import { TOOL } from "./names.js";

/** The first `max` warnings as a block of text; "" when there are none. */
export function treeWarnings(catalog: Catalog, max: number): string {
  const all = catalog.manifest.warnings ?? [];
  if (!all.length) return "";
  const lines = all.slice(0, max).map((w) => `- ${w}`);
  if (all.length > max) lines.push(`- and ${all.length - max} more: ${TOOL.bmad} with an empty command lists them all.`);
  return `Warnings about the BMAD content served:\n${lines.join("\n")}`;
}
