// "Did you mean" for a missing project file, at the cost of the folders on its way, never the whole project: from the
// deepest folder of the path that exists, the closest names there, and the first of them followed down the rest of
// the path. Comparing the path with every file of a 4,900-file project took 9.7 s.
import { closest, isNear } from "../catalog/closest.js";
import type { WorkspaceFiles } from "../workspace/store.js";

/** At most this many folders are walked up or down. */
const MAX_DEPTH = 32;

/** A store that finds the files of a name anywhere at little cost (the bridge: LocalWorkspace.namesakes). */
type Namesakes = { namesakes?(path: string, limit: number): Promise<string[]> };

/** Files named as the one asked for anywhere first, shortest first, where the store finds them (review 477: a missing
 *  _bmad-output/prd.md was answered with the folders beside it, never the PRD below one); then those on its way. */
export async function nearPaths(files: Pick<WorkspaceFiles, "stat" | "children"> & Namesakes, path: string, limit = 5): Promise<string[]> {
  const named = (await files.namesakes?.(path, limit)) ?? [];
  return [...new Set([...named, ...(await onTheWay(files, path, limit))])].slice(0, limit);
}

async function onTheWay(files: Pick<WorkspaceFiles, "stat" | "children">, path: string, limit: number): Promise<string[]> {
  const parts = path.split("/").filter(Boolean).slice(0, MAX_DEPTH);
  let depth = parts.length - 1;
  while (depth > 0) {
    const kind = await files.stat(parts.slice(0, depth).join("/"));
    if (kind.ok && kind.value === "dir") break;
    depth--;
  }
  const base = parts.slice(0, depth);
  const listed = await files.children(base.join("/"));
  if (!listed.ok || !listed.value.length) return [];
  const first = closest(parts[depth] ?? "", listed.value, limit).map((name) => [...base, name].join("/"));
  // The best one, followed down the rest of the path while it is a folder.
  let best = first[0]!;
  for (const part of parts.slice(depth + 1)) {
    const kind = await files.stat(best);
    if (!kind.ok || kind.value !== "dir") break;
    const below = await files.children(best);
    if (!below.ok || !below.value.length) break;
    best = `${best}/${closest(part, below.value, 1)[0]!}`;
  }
  // Only a file in the folder asked, or one named like the file asked: review 224's missing sprint-status.yaml was
  // answered with planning-artifacts/epics.md, which a literal model may take for it.
  const askedFolder = parts.slice(0, -1).join("/");
  const near = (found: string) => {
    const slash = found.lastIndexOf("/");
    return (slash < 0 ? "" : found.slice(0, slash)) === askedFolder || isNear(found.slice(slash + 1), parts.at(-1) ?? "");
  };
  // Never the path asked itself: a folder or a link to nothing of that name is no file to read (review 334).
  const asked = parts.join("/");
  return [best, ...first.slice(1)].filter((found) => found !== asked && near(found));
}
