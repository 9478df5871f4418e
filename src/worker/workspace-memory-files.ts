// Memories remembered in a workspace and not yet in their structured files (`_bmad/_memory/structured/*.jsonl`),
// written into them before anyone reads, lists or changes the files: what bmad-files and pull see is every
// memory, and an if_version is against that file. The workspace object calls this behind its access check.
import { STRUCTURED_DIR } from "../core/memory/files.js";
import { checkWrite } from "../core/workspace/limits.js";
import { indexAsWritten, indexedAsMerged, pendingFiles, settlePending } from "./memory-sql.js";
import { SERVER_MERGE, sha256, type VersionedFiles } from "./workspace-versions.js";
import type { Person } from "../core/workspace/line-authors.js";

/** `path`: a file or folder asked about; only the structured files, their folder and its parents can show them. */
export function writePendingMemories(storage: DurableObjectStorage, files: VersionedFiles, project: string, path?: string): void {
  if (path !== undefined && !`${path}/`.startsWith(`${STRUCTURED_DIR}/`) && !`${STRUCTURED_DIR}/`.startsWith(path ? `${path}/` : "")) return;
  for (const file of pendingFiles(storage, (p) => files.text(p))) {
    const data = new TextEncoder().encode(file.text);
    const head = files.head(file.path);
    const now = new Date().toISOString();
    // Refused when remembered; a file a person grew since then (or a clash, or a full history) keeps them in memory only, still recalled.
    if (!checkWrite({ project, path: file.path, ...files.totals(), oldSize: head?.size, newSize: data.byteLength }).ok) continue;
    if ((!head && files.clash(file.path)) || files.room(project, [{ path: file.path, size: data.byteLength }], now)) continue;
    files.transaction(() => {
      // What a person last wrote there is theirs: indexed so before the merge, which names no one, replaces it.
      const before = head && head.author !== SERVER_MERGE ? files.text(file.path) : undefined;
      if (head && before !== undefined) indexAsWritten(storage, file.path, head.sha256, before, head.author);
      const merged = sha256(data);
      if (head?.sha256 !== merged) {
        files.commit(file.path, data, "write", { label: SERVER_MERGE }, now, { entries: { key: memoryIdOf, newBy: (id) => rememberer(id, file.rememberers) } });
        indexedAsMerged(storage, file.path, head?.sha256, merged);
      }
      settlePending(storage, file.type);
    });
  }
}

/** The memory a structured file's line holds, by its id: however a person wrote the line (its keys in any order, any
 *  spacing), the merge's line of that memory is the same entry (review 50). */
export function memoryIdOf(line: string): string | undefined {
  try {
    const value: unknown = JSON.parse(line);
    const id = value && typeof value === "object" ? (value as { id?: unknown }).id : undefined;
    return typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Who remembered the memory `id`, as versions name authors (by label: a memory keeps one). */
function rememberer(id: string, rememberers: Map<string, string>): Person | undefined {
  const label = rememberers.get(id);
  return label === undefined ? undefined : { label };
}
