// A workspace as a project root for skills on the remote: `{project-root}` is bmad://projects/{name}, the
// ported scripts work on its files, BMAD's own files are mounted read-only, and a skill's own Python
// scripts cannot run (there is no machine here): bmad-run says so.
import { bundleFs, withBundle, type ProjectRuntime } from "../runtime/project.js";
import type { SurfaceDeps } from "../surface/deps.js";
import type { BundleReader } from "../surface/reader.js";
import { TOOL } from "../surface/names.js";
import { DEFAULT_TIME_ZONE } from "../runtime/time-zone.js";
import { workspaceRuntimeFs } from "./runtime-fs.js";
import type { WorkspaceStore } from "./store.js";

export function workspaceRuntimes(store: WorkspaceStore, reader: () => BundleReader): NonNullable<SurfaceDeps["runtime"]> {
  return async (project, options = {}) => {
    if (project === undefined) return { ok: false, error: `Name a workspace ("project"), or create one with ${TOOL.bmadProject} {"action": "create", "name": "my-app"}.` };
    const files = store.files(project);
    if (!options.lazy) {
      // The cheapest call that checks the caller may see it (every file call checks again).
      const visible = await files.stat("");
      if (!visible.ok) return { ok: false, error: visible.error };
    }
    let refused: string | undefined;
    let zone: Promise<string> | undefined;
    const fsRoot = `/projects/${project}`;
    const runtime: ProjectRuntime = {
      root: `bmad://projects/${project}`,
      fsRoot,
      label: `bmad://projects/${project}`,
      fs: withBundle(workspaceRuntimeFs(files, fsRoot, (error) => (refused ??= error)), bundleFs(reader)),
      skillRoot: async (bundleDir) => `bmad://${bundleDir}`,
      refused: () => refused,
      // Asked once, and only by a script that writes a time: one call more for those, none for the rest.
      timeZone: () => (zone ??= store.info(project).then((info) => (info.ok ? info.value.time_zone : undefined) ?? DEFAULT_TIME_ZONE)),
    };
    return { ok: true, runtime };
  };
}
