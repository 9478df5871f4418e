// Which of the lists a client caches (tools, prompts, resources) a bundle swap changed, by the names in them:
// the bridge tells its clients of exactly those, so a new agent shows up without reconnecting.
import type { Catalog } from "../catalog/catalog.js";
import { surfaceFor } from "./surface.js";
import type { ToolsetName } from "./toolsets.js";

export type ListName = "tools" | "prompts" | "resources";

function names(catalog: Catalog, toolsets: ToolsetName[]): Record<ListName, readonly string[]> {
  const surface = surfaceFor(catalog, toolsets);
  return { tools: surface.toolsResult.tools.map((t) => t.name), prompts: surface.promptList.map((p) => p.name), resources: catalog.paths };
}

/** The lists whose names differ between `before` and `after`, in a fixed order. */
export function changedLists(before: Catalog, after: Catalog, toolsets: ToolsetName[]): ListName[] {
  const [a, b] = [names(before, toolsets), names(after, toolsets)];
  return (["tools", "prompts", "resources"] as const).filter((list) => a[list].length !== b[list].length || a[list].some((name, i) => name !== b[list][i]));
}
