// A workspace as a project root for skills on the remote: `{project-root}` is bmad://projects/{name}, the
// ported scripts work on its files, BMAD's own files are mounted read-only, and a skill's own Python
// scripts cannot run (there is no machine here): bmad-run says so.
import { bundleFs, withBundle, type ProjectRuntime } from "../runtime/project.js";
import type { SurfaceDeps } from "../surface/deps.js";
import type { BundleReader } from "../surface/reader.js";
import { TOOL } from "../surface/names.js";
import { DEFAULT_TIME_ZONE } from "../runtime/time-zone.js";
import { workspaceRuntimeFs, type Known, type Stamped } from "./runtime-fs.js";
import type { ManyReadingFiles, ReadOnlyAccess, WorkspaceStore } from "./store.js";
import { checkWorkspacePath, leadsOutOf, projectRootUri, workspaceFsRoot } from "./paths.js";
import type { ByOthers } from "./line-authors.js";
import type { ChangedSince } from "./changed-since.js";

/** By caller and workspace name: folders renders listed there, asked for with the next render's stamp (a hint: a
 *  wrong one only costs the call it saves; keyed by caller too, so one user's folder names are never asked of
 *  another's project of the same name). */
const listedBefore = new Map<string, string[]>();

export function workspaceRuntimes(store: { files(project: string): ManyReadingFiles } & WorkspaceStore, reader: () => BundleReader, caller: string, pullFrom?: string): NonNullable<SurfaceDeps["runtime"]> {
  return async (project, options = {}) => {
    if (project === undefined) return { ok: false, error: `Name a workspace ("project"), or create one with ${TOOL.bmadProject} {"action": "create", "name": "my-app"}.` };
    const files = store.files(project);
    const listedKey = `${caller}\n${project}`;
    const fsRoot = workspaceFsRoot(project);
    const known = new Map<string, Known>();
    const stamped: Stamped = { trees: new Map(), covered: false, asked: [], versions: new Map() };
    let stamp: string | undefined;
    let zone: Promise<string> | undefined;
    const writtenByOthers = new Map<string, ByOthers>();
    const changedSince = new Map<string, ChangedSince>();
    const withheld = new Map<string, string>();
    let answersByOthers: Array<{ key: string; who: string }> | undefined;
    let readOnly: ReadOnlyAccess | undefined;
    if (!options.lazy || options.preload) {
      // One call checks the caller may see it (every file call checks again) and reads the files a render will,
      // and lists the folders renders here listed before (a render's earlier work). Lazy, it only reads them: a
      // project the caller cannot see is found by the file calls, as without.
      const paths = (options.preload ?? []).filter((path) => checkWorkspacePath(path).ok);
      const trees = options.lazy ? [] : (listedBefore.get(listedKey) ?? []);
      const out = await files.readMany(paths, trees);
      if (!out.ok && !options.lazy) return { ok: false, error: out.error };
      if (out.ok) {
        for (const [i, path] of paths.entries()) {
          known.set(`${fsRoot}/${path}`, out.value.files[i]!);
          if (out.value.versions[i]) stamped.versions!.set(path, out.value.versions[i]!);
          const other = out.value.others?.[i];
          if (other) writtenByOthers.set(path, other);
          const since = out.value.changed_since?.[i];
          if (since) changedSince.set(path, since);
        }
        zone = Promise.resolve(out.value.timeZone ?? DEFAULT_TIME_ZONE);
        answersByOthers = out.value.answersByOthers;
        readOnly = out.value.readOnly;
        for (const [i, dir] of trees.entries()) if (out.value.trees[i]) stamped.trees.set(dir, out.value.trees[i]!.paths);
        stamp = out.value.stamp;
        stamped.covered = true;
      }
    }
    let refused: string | undefined;
    const root = projectRootUri(project);
    const runtime: ProjectRuntime = {
      root,
      fsRoot,
      label: root,
      store: files,
      stamp,
      ...(pullFrom ? { pullFrom } : {}),
      // Filled further as the run reads (a live map): what a script read, however its command line named it.
      writtenByOthers,
      changedSince,
      ...(answersByOthers?.length ? { answersByOthers } : {}),
      ...(readOnly ? { readOnly } : {}),
      // Renders and scripts read the project's config without values that lead out of it (review 63).
      withheld,
      fs: withBundle(workspaceRuntimeFs(files, fsRoot, (error) => (refused ??= error), known, stamped, writtenByOthers, changedSince), bundleFs(reader), { leaves: { key: root, test: (value) => leadsOutOf(root, value) }, withheld }),
      covered: () => {
        // The folders listed apart are asked for with the next stamp (a few, the newest).
        const asked = stamped.asked.filter((dir) => dir && !stamped.asked.some((d) => d && dir.startsWith(`${d}/`)));
        if (asked.length) {
          if (listedBefore.size >= 256) listedBefore.clear();
          listedBefore.set(listedKey, [...new Set([...asked, ...(listedBefore.get(listedKey) ?? [])])].slice(0, 8));
        }
        return stamped.covered;
      },
      skillRoot: async (bundleDir) => `bmad://${bundleDir}`,
      refused: () => refused,
      toldChangedSince: async (shown) => {
        stamped.covered = false;
        await files.markSeen?.(shown);
      },
      changeOwner: () => files.changeOwner?.(),
      deletedSince: async (folders, since) => {
        const out = await files.deletedSince?.(folders, since);
        return { project, files: out?.ok ? out.value : [] };
      },
      // Asked once, and only by a script that writes a time: one call more for those (none where the first call read it).
      timeZone: () => (zone ??= files.timeZone().then((out) => (out.ok && out.value) || DEFAULT_TIME_ZONE)),
    };
    return { ok: true, runtime };
  };
}
