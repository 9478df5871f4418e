// Which project's memory a call means: on the remote a workspace, named or the caller's only one.
import type { MemoryAccess } from "../surface/deps.js";
import { TOOL } from "../surface/names.js";
import type { WorkspaceStore } from "../workspace/store.js";

export function workspaceMemory(store: WorkspaceStore): (project: string | undefined) => Promise<MemoryAccess> {
  return async (project) => {
    if (!store.memory) return { ok: false, error: "This server keeps no project memory." };
    let name = project;
    if (name === undefined) {
      const all = await store.projects();
      if (all.length !== 1) {
        return {
          ok: false,
          error: all.length
            ? `Memory lives in a project: name it with "project" (${all.slice(0, 20).map((p) => p.project).join(", ")}${all.length > 20 ? ", ..." : ""}).`
            : `Memory lives in a project workspace, and you have none: create one with ${TOOL.bmadProject} {"action": "create", "name": "my-app"}.`,
        };
      }
      name = all[0]!.project;
    }
    return { ok: true, project: name, memory: store.memory(name), files: store.files(name) };
  };
}
