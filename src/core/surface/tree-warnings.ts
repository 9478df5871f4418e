// What is wrong with the BMAD trees served (BundleManifest.warnings: a root that yields nothing, a manifest row
// without its file, a file without a row), said where a client sees it: stderr reaches no one in a chat.
import type { CatalogRecord } from "../catalog/bundle.js";
import type { Catalog } from "../catalog/catalog.js";
import { shortName } from "../catalog/names.js";
import { TOOL } from "./names.js";

/** The first `max` warnings as a block of text; "" when there are none. */
export function treeWarnings(catalog: Catalog, max: number): string {
  const all = bundleWarnings(catalog);
  if (!all.length) return "";
  const lines = all.slice(0, max).map((w) => `- ${w}`);
  if (all.length > max) lines.push(`- and ${all.length - max} more: ${TOOL.bmad} with an empty command lists them all.`);
  return `Warnings about the BMAD content served:\n${lines.join("\n")}`;
}

const warningsOf = new WeakMap<Catalog, string[]>();

/** The trees' warnings, and one for BMAD's short names that other modules take (namesTaken); made once per bundle. */
function bundleWarnings(catalog: Catalog): string[] {
  let all = warningsOf.get(catalog);
  if (all) return all;
  const taken = namesTaken(catalog);
  all = taken ? [...(catalog.manifest.warnings ?? []), taken] : (catalog.manifest.warnings ?? []);
  warningsOf.set(catalog, all);
  return all;
}

/** A record of a module from the user's trees that takes the short name of BMAD's own (a custom module's bmad-prd
 *  takes `prd` from bmm/bmad-prd): by priority, as seed 000 has it, but never unsaid (review 422: only the bmad tool
 *  said it, and BMAD's prompt became bmad-bmm-prd). "" where none does. */
function namesTaken(catalog: Catalog): string {
  // Kind and short name -> the record the short name resolves to: the highest priority, the first given of a tie.
  const holders = new Map<string, CatalogRecord>();
  const key = (r: CatalogRecord) => `${r.kind}\0${shortName(r)}`;
  for (const r of catalog.manifest.records) {
    const held = holders.get(key(r));
    if (!held || catalog.priority(r.source) < catalog.priority(held.source)) holders.set(key(r), r);
  }
  const origin = (r: CatalogRecord) => catalog.manifest.sources[r.source]?.origin;
  // BMAD's own in the user's trees: a v4 install's bmad-core is BMAD's core, not another's (review 433: every v4
  // project was warned of its own agents).
  const bmads = (r: CatalogRecord) => origin(r) === "package" || (catalog.manifest.sources[r.source]?.layout === "v4" && r.module === "bmad-core");
  const taken = new Map<string, string>();
  for (const r of catalog.manifest.records) {
    const holder = holders.get(key(r))!;
    if (origin(r) !== "package" || bmads(holder) || holder.module === r.module || taken.has(key(r))) continue;
    taken.set(key(r), `"${shortName(r)}" loads ${holder.module}/${holder.name} from ${origin(holder)}, BMAD's is ${r.module}/${shortName(r)}`);
  }
  if (!taken.size) return "";
  const named = [...taken.values()];
  return `${named.length} of BMAD's short names load another module's record, which wins by priority: ${named.slice(0, 5).join("; ")}${named.length > 5 ? "; …" : ""}.`;
}
