// Which project's memory a call means: on the remote a workspace, named, or else the one the caller owns. A
// default never picks a shared project: memory kept or recalled there is named, and labelled as its owner's.
import type { MemoryAccess } from "../surface/deps.js";
import { TOOL } from "../surface/names.js";
import type { WorkspaceStore } from "../workspace/store.js";

export function workspaceMemory(store: WorkspaceStore): (project: string | undefined) => Promise<MemoryAccess> {
  return async (project) => {
    if (!store.memory) return { ok: false, error: "This server keeps no project memory." };
    const all = await store.projects();
    let name = project;
    if (name === undefined) {
      const own = all.filter((p) => p.access === "owner");
      if (own.length !== 1) {
        const shared = all.filter((p) => p.access !== "owner").map((p) => p.project);
        const named = own.length
          ? `name it with "project" (${own.slice(0, 20).map((p) => p.project).join(", ")}${own.length > 20 ? ", ..." : ""})`
          : `you have none: create one with ${TOOL.bmadProject} {"action": "create", "name": "my-app"}${shared.length ? `, or name a project shared with you in "project" (${shared.slice(0, 20).join(", ")})` : ""}`;
        return { ok: false, error: `Memory lives in a project workspace you own; ${named}.` };
      }
      name = own[0]!.project;
    }
    // As listed or as `name@tag` (review 48: named so, a shared project's answers lost its owner's label).
    const shared = all.find((p) => (p.project === name || p.ref === name) && p.access !== "owner");
    return { ok: true, project: name, memory: store.memory(name), files: store.files(name), ...(shared ? { owner: shared.owner } : {}) };
  };
}
