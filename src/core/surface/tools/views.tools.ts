// Toolset `views` (opt-in): tools whose answers a host that renders MCP Apps shows as pages (views.ts), and others
// read as text. They read through the caller's own store and runtime, as bmad-files does: a view shows what the
// caller may read, and its actions are the host's tool calls (bmad-files restore, bmad-board move) with their token.
import * as z from "zod";
import type { Result } from "../../result.js";
import { byAt, earlierThan, olderKept, readAccessRefusal, shownAt, withShownTime, type WorkspaceFiles, type WorkspaceStore } from "../../workspace/store.js";
import type { SurfaceDeps } from "../deps.js";
import { TOOL } from "../names.js";
import { done, fail, type ToolOutcome } from "../outcome.js";
import { mapText, projectMap } from "../project-map.js";
import { defineTool, READ_ONLY } from "../tool.js";
import { viewUri } from "../views.js";
import { COMMIT, commitRange, gitLog, gitShow } from "../git-history.js";
import { boardText, moveStory, readBoard, storyFileNote, STORY_STATUSES } from "../sprint-board.js";
import { boardName } from "../../runtime/sprint-yaml.js";
import { PIPELINE } from "../../delivery/pipeline.js";
import { sessionView } from "../../delivery/view.js";
import { artifactUri } from "../resources.js";
import { noSessions, sessionField } from "./delivery.tools.js";
import { composerFile } from "../composer.js";
import { folderName, inProject, notThisProject } from "./workspace.tools.js";
import { BMAD_SCHEME } from "../../catalog/paths.js";
import { sanitizeConfigText, servedFile, servedVersion } from "../../catalog/config.js";
import { othersClause } from "../../workspace/line-authors.js";
import { changedSinceClause, changedSinceNote, displacedNote, othersBeside, toldUpTo } from "../../workspace/changed-since.js";
import { NOT_UTF8_NOTE } from "../../workspace/file-text.js";
import { MAX_FILE_BYTES } from "../../workspace/limits.js";

const projectField = z.string().max(200).optional().describe("Project, as bmad-project lists it (bridge: its folder)");
/** Versions the document view lists, newest first. */
const VIEW_VERSIONS = 200;
const NO_PROJECTS = "Views need a project: a workspace on the remote, or the bridge's project folder.";

/** The caller's files of `project` (on the bridge its one folder, and no other), or what to pass instead. */
async function projectFiles(deps: SurfaceDeps, project: string | undefined, tool: string): Promise<Result<{ store: WorkspaceStore; files: WorkspaceFiles; name: string; access: "read" | "write" }>> {
  const store = deps.workspaces;
  if (!store) return { ok: false, error: NO_PROJECTS };
  const other = notThisProject(store, project, tool);
  if (other) return { ok: false, error: other };
  const name = folderName(store) ?? project;
  if (name === undefined) {
    const yours = (await store.projects()).map((p) => p.project);
    return { ok: false, error: `Name "project": ${yours.length ? `yours are ${yours.slice(0, 20).join(", ")}` : `create one with ${TOOL.bmadProject} {"action": "create", "name": "my-app"}`}.` };
  }
  // A shared project by the name that stays its own, `name@tag`, which the view sends back with each action: the bare
  // name is the caller's own project once they make one (review 108: a board left open moved a story there).
  // Named either way: the views send back the share's `name@tag` (review 317: a reader opening a document from the
  // map was offered Restore).
  const listed = project === undefined ? undefined : (await store.projects()).find((p) => p.project === name || p.ref === name);
  const files = store.files(listed?.ref ?? name);
  // The access check: a project the caller cannot see answers as one that does not exist.
  const seen = await files.stat("");
  // The view offers its changes (restore, move) only where the caller may make them: the share lets them (review 245)
  // and so does their token (review 328: a bmad:read token's Restore was refused 403). The server still refuses.
  return seen.ok ? { ok: true, store, files, name: listed?.ref ?? name, access: listed?.access === "read" ? "read" : access(deps) } : { ok: false, error: seen.error };
}

/** What the caller's token lets a view offer: changes only where it may make them. */
function access(deps: SurfaceDeps): "read" | "write" {
  return deps.readOnly ? "read" : "write";
}

export const bmadMapTool = defineTool({
  name: TOOL.bmadMap,
  toolset: "views",
  description: "Project map: BMAD's phases with the project's documents (status, last change, author), latest memlog entries and the next workflow. A view where the host shows them.",
  input: z.object({ project: projectField }),
  annotations: READ_ONLY,
  view: viewUri("map"),
  async run({ project }, deps) {
    const found = await projectFiles(deps, project, TOOL.bmadMap);
    if (!found.ok) return fail(found.error);
    const runtime = deps.runtime ? await deps.runtime(found.name) : undefined;
    if (!runtime?.ok) return fail(runtime?.error ?? NO_PROJECTS);
    const map = await projectMap(deps.reader, runtime.runtime, found.files);
    // Told once, as a read tells it: what others changed in the documents and memlogs the map names counts as seen.
    const told = [...map.phases.flatMap((p) => p.artifacts), ...map.other, ...map.memlogs].flatMap((a) => (a.changed_since ? [{ path: a.path, version: toldUpTo(a.changed_since) }] : []));
    if (told.length) await found.files.markSeen?.(told);
    // Whether the view may offer to start a workflow: a reader's writes are refused (review 424).
    return done(mapText(map, project ?? found.name, (at) => shownAt(found.files, at), found.access), { ...map, access: found.access });
  },
});

const versionNumber = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const docInput = z.object({
  project: projectField,
  path: z.string().min(1).max(1000).describe("From the project root, e.g. docs/prd.md"),
  version: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().describe("An earlier version"),
  commit: z.string().regex(COMMIT).optional().describe("The git commit to read it at"),
  // A version number on the remote, a commit on the bridge (review 258: a count of commits skipped listed one twice).
  before: z.union([versionNumber, z.string().regex(COMMIT)]).optional().describe("Older versions: an answer's `next`"),
});

export const bmadDocTool = defineTool({
  name: TOOL.bmadDoc,
  toolset: "views",
  description: "A project document with its versions: the copies the bridge kept of what it replaced, and git commits. A view renders it, diffs two versions and restores one through bmad-files.",
  input: docInput,
  // A workspace keeps its own versions and no commits.
  listedOn: {
    remote: {
      description: "A project document with its versions, one per change. A view renders it, diffs two versions and restores one through bmad-files.",
      input: docInput.omit({ commit: true }).extend({ before: versionNumber.optional().describe("Older versions: an answer's `next`") }),
    },
  },
  annotations: READ_ONLY,
  view: viewUri("document"),
  async run({ project, path: given, version, commit, before }, deps) {
    const found = await projectFiles(deps, project, TOOL.bmadDoc);
    if (!found.ok) return fail(found.error);
    // In the forms bmad-files takes (`{project-root}/…`, the project's URI), and refused as it refuses another's (review 109).
    const named = inProject(found.name, given, found.store.folder);
    if (!named.ok) return fail(named.error);
    const path = named.path;
    const paged = pageMark(found.store.folder !== undefined, before);
    if (!paged.ok) return fail(paged.error);
    // A workspace has versions, not commits: read as asked, not as today's text under a commit's name (review 181).
    if (commit !== undefined && !found.store.folder) return fail(`"commit" names a git commit of a project folder on the bridge; "${found.name}" keeps its own versions: pass "version" (bmad-files "history" lists them).`);
    // A project folder's history is the user's git, and the bridge's own week of what it replaced (keptCopies).
    // One more than a page: whether there are older versions to page to. The caller's note of their version another
    // replaced is taken as bmad-files read takes it (review 403: only a read told it).
    const [read, history] = await Promise.all([found.files.read(path, version, { notes: true, shown: true }), found.store.folder ? undefined : found.files.history(path, { before: paged.version, limit: VIEW_VERSIONS + 1 })]);
    if (!read.ok) {
      // A file deleted from the folder opens as the copies the bridge kept of it, to bring one back (review 271: "No
      // file", while bmad-files history listed its copy).
      const deleted = read.kind === "not_found" && found.store.folder && version === undefined && commit === undefined ? await deletedFile(found, path) : undefined;
      return deleted ?? fail(read.error);
    }
    const { data, ...stored } = read.value;
    const { text, meta } = await servedFile(path, stored, data);
    const base = withShownTime(found.files, { ...meta, project: found.name, access: found.access }, "updated_at");
    // Said in the header as bmad-files read says it (review 281: only the structured answer said so; review 379: nor
    // what others changed since the caller's own last version).
    const notUtf8 = meta.not_utf8 ? `, ${NOT_UTF8_NOTE}` : "";
    if (history?.ok) {
      const versions = history.value.slice(0, VIEW_VERSIONS).map((v) => withShownTime(found.files, servedVersion(path, v), "at"));
      const last = versions[versions.length - 1]?.version;
      // The next page starts below the last listed (review 245: v1..v50 of 250 were neither listed nor said to exist).
      const next = history.value.length > VIEW_VERSIONS ? last : undefined;
      // Counted (olderKept); past a page of them, "more than" it.
      const older = next === undefined ? undefined : await olderKept(found.files, path, next, VIEW_VERSIONS);
      const which = paged.version === undefined ? "" : ` older than v${paged.version}`;
      const shown = next !== undefined ? `the newest ${versions.length} versions${which}, ${older ?? `more than ${VIEW_VERSIONS}`} older kept ("before": ${next} lists them)` : `${versions.length} version${versions.length === 1 ? "" : "s"}${which}`;
      // The file's version now (0: deleted), which a change made from an earlier version names as its if_version (review
      // 215: at version 1 of 3, every Restore the view offered was refused as a conflict).
      const newest = paged.version === undefined ? history : await found.files.history(path, { limit: 1 });
      const head = newest.ok ? newest.value[0] : undefined;
      const current = head && head.op !== "delete" ? head.version : 0;
      return { ok: true, header: `[${path}, version ${meta.version}${earlierThan(meta.version, current)}${notUtf8}, ${byAt(meta.author, shownAt(found.files, meta.updated_at))}${othersClause(othersBeside(meta.others, meta.changed_since), meta.author)}${changedSinceClause(meta.changed_since)}; ${shown}]${meta.displaced ? ` ${displacedNote(path, meta.displaced)}` : ""}`, text, structured: { ...base, current_version: current, history: "versions", versions, ...(next ? { ...(older === undefined ? {} : { older }), next } : {}) } };
    }
    // The folder's history: the copies the bridge kept, and the user's git, read-only, where there is one.
    const kept = await keptCopies(found.files, path);
    const bridged = { ...base, current_version: kept.current, ...(kept.copies.length ? { kept: kept.copies } : {}), ...(kept.more ? { kept_more: true } : {}) };
    const runtime = deps.runtime ? await deps.runtime(found.name) : undefined;
    const git = runtime?.ok ? runtime.runtime.git : undefined;
    const log = git && runtime?.ok ? await gitLog(git, runtime.runtime.fsRoot, path, paged.commit) : undefined;
    // A commit that names no page is the caller's mistake, not a file without history.
    if (paged.commit !== undefined && log?.ok === false) return fail(log.error);
    const commits = log?.ok ? log.commits.map((c) => withShownTime(found.files, c, "at")) : undefined;
    // The next page starts past the last commit listed (review 245: "50 commits in git" was said of 120).
    const last = commits?.[commits.length - 1]?.commit;
    const paging = log?.ok && log.older && last ? { older: log.older, next: last } : {};
    if (commit !== undefined) {
      if (!git || !runtime?.ok) return fail("This project has no git to read an earlier version from.");
      const shown = await gitShow(git, runtime.runtime.fsRoot, commit, path);
      if (!shown.ok) return fail(shown.error);
      const text = sanitizeConfigText(path, shown.text);
      // Restore writes the text answered as the file: only where that text is the version's bytes (review 188: a
      // Latin-1 version came back with U+FFFD for each byte that is not UTF-8).
      // Nor where the text is more than a write carries (review 317: a 5 MB version's Restore failed on its arguments' size).
      const unrestorable = !shown.utf8
        ? "it is not UTF-8 text, and its text here is not its bytes"
        : text !== shown.text ? "its text here leaves out secret-looking entries"
        : new TextEncoder().encode(text).length > MAX_FILE_BYTES ? `it is larger than the ${MAX_FILE_BYTES / 1024 / 1024} MiB bmad-files writes` : undefined;
      const note = unrestorable && `This version cannot be restored from here: ${unrestorable}. git restores it: git --literal-pathspecs restore --source=${shown.commit} -- '${path.replaceAll("'", "'\\''")}'`;
      // Whether the version's text is UTF-8, not the file's now.
      const { not_utf8: _now, ...atCommit } = bridged;
      return { ok: true, header: `[${path} at commit ${commit.slice(0, 12)}${note ? `. ${note}` : ""}]`, text, structured: { ...atCommit, ...(shown.utf8 ? {} : { not_utf8: true }), commit, history: "git", commits: commits ?? [], ...paging, ...(note ? { restorable: false, restore_note: note } : {}) } };
    }
    // Where the bridge would not read the folder's git, the answer says why.
    const refused = log?.ok === false ? log.error : undefined;
    const note = commits ? undefined : history?.error ?? refused ?? "the folder's history is the user's git, and it has none of this file.";
    const structured = { ...bridged, history: commits ? "git" : kept.copies.length ? "kept" : "current only", ...(commits ? { commits, ...paging } : { history_note: note }) };
    const more = paging.next === undefined ? "" : ` ("before": "${paging.next}" lists older)`;
    const count = kept.more ? `more than ${VIEW_VERSIONS}` : String(kept.copies.length);
    const copies = kept.copies.length ? `${count} kept ${count === "1" ? "copy" : "copies"} of what the bridge replaced (a week; bmad-files restore brings one back)` : undefined;
    const inGit = log?.ok ? `${commitRange(log)} in git${more}` : copies ? refused && `no git: ${refused}` : `current version only${refused ? `: ${refused}` : ""}`;
    // A kept copy read (`version`) is said to be one, as a workspace's earlier version is.
    const which = version !== undefined && version !== kept.current ? `a kept copy${earlierThan(version, kept.current)}, ` : "";
    return { ok: true, header: `[${path}, ${which}${meta.size} bytes${notUtf8}, at ${shownAt(found.files, meta.updated_at)}; ${[inGit, copies].filter(Boolean).join("; ")}]`, text, structured };
  },
});

/** What the bridge kept of the file when it replaced it (kept-versions.ts: a week), newest first, at most a page (`more`:
 *  it keeps more), and the file's version now (0: none), which a restore names as its if_version. bmad-files history
 *  lists the file now first, where there is one, then these. */
async function keptCopies(files: WorkspaceFiles, path: string) {
  const [now, history] = await Promise.all([files.stat(path), files.history(path, { limit: VIEW_VERSIONS + 2 })]);
  const rows = history.ok ? history.value : [];
  const exists = now.ok && now.value === "file";
  const copies = exists ? rows.slice(1) : rows;
  return { copies: copies.slice(0, VIEW_VERSIONS).map((v) => withShownTime(files, servedVersion(path, v), "at")), more: copies.length > VIEW_VERSIONS, current: exists ? (rows[0]?.version ?? 0) : 0 };
}

/** A file no longer in the project folder, as the copies the bridge kept of it, which a restore brings back with
 *  if_version 0; undefined where it kept none. */
async function deletedFile(found: { files: WorkspaceFiles; name: string; access: "read" | "write" }, path: string): Promise<ToolOutcome | undefined> {
  const kept = await keptCopies(found.files, path);
  const newest = kept.copies[0];
  if (!newest || kept.current !== 0) return undefined;
  const count = kept.more ? `more than ${VIEW_VERSIONS}` : String(kept.copies.length);
  const header = `[${path}, deleted: not in the project now; ${count} kept ${count === "1" ? "copy" : "copies"} of it (a week; bmad-files restore with "if_version": 0 brings one back)]`;
  const structured = { ...withShownTime(found.files, { updated_at: newest.at }, "updated_at"), path, project: found.name, access: found.access, version: 0, size: 0, deleted: true, current_version: 0, history: "kept", kept: kept.copies, ...(kept.more ? { kept_more: true } : {}) };
  return { ok: true, header, text: "", structured };
}

/** `before` as this door pages: a version number on the remote, a commit of the folder's git on the bridge. */
function pageMark(folder: boolean, before: number | string | undefined): Result<{ version?: number; commit?: string }> {
  if (before === undefined) return { ok: true };
  if (folder) return typeof before === "string" ? { ok: true, commit: before } : { ok: false, error: `"before" here is a commit, as an answer's "next" names it: the project folder's history is its git.` };
  return typeof before === "number" ? { ok: true, version: before } : { ok: false, error: `"before" here is a version number, as an answer's "next" names it: a workspace keeps its own versions, not commits.` };
}

export const bmadBoardTool = defineTool({
  name: TOOL.bmadBoard,
  toolset: "views",
  description: "Sprint board from sprint-status.yaml: stories by epic and status. move (story, status) writes the file as BMAD's sprint_status.py does.",
  input: z.object({
    project: projectField,
    story: z.string().max(200).optional().describe("move: the story key, e.g. 1-2-login"),
    status: z.enum(STORY_STATUSES).optional().describe("move: its new status"),
    if_version: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe("move: only if the file is at this version"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  writes: (args) => Boolean(args && typeof args === "object" && ((args as { story?: unknown }).story !== undefined || (args as { status?: unknown }).status !== undefined)),
  view: viewUri("board"),
  async run({ project, story, status, if_version }, deps) {
    const found = await projectFiles(deps, project, TOOL.bmadBoard);
    if (!found.ok) return fail(found.error);
    // A reader's move is refused first, as the project refuses their write (review 474: one that changed nothing
    // answered ok, a stale one told them to move it again).
    if ((story !== undefined || status !== undefined) && found.access === "read") {
      const info = await found.store.info(found.name);
      if (info.ok && info.value.access === "read") return fail(readAccessRefusal(info.value.name, info.value.owner));
    }
    const runtime = deps.runtime ? await deps.runtime(found.name) : undefined;
    if (!runtime?.ok) return fail(runtime?.error ?? NO_PROJECTS);
    if ((story === undefined) !== (status === undefined)) return fail('A move needs both "story" (its key) and "status".');
    let move = "";
    if (story !== undefined && status !== undefined) {
      const moved = await moveStory(deps.reader, runtime.runtime, found.files, story, status, if_version);
      if (!moved.ok) return fail(moved.error);
      // A move in someone else's project says whose it is, as every other change there does (review 180): moveStory
      // writes through these files.
      const owner = found.files.changeOwner?.();
      const where = owner ? ` in "${project ?? found.name}", ${owner}'s project` : "";
      const over = moved.over ? `, over the file as ${changedSinceNote(moved.over)}` : "";
      // Named by the key the move found: the caller's name for it may be the board's cut one (review 469).
      const made = moved.unchanged ? `${boardName(moved.story)} is already ${status}${where}: nothing was written.` : `Moved ${boardName(moved.story)} from ${boardName(moved.from) || "(no status)"} to ${status}${where}${over}.`;
      move = `${made}${await storyFileNote(found.files, moved.path, moved.story, status)}\n`;
    }
    const board = await readBoard(deps.reader, runtime.runtime, found.files);
    // A move made (or found made) stands: said, then why no board follows.
    if (!board.ok) return move ? done(`${move}The board is not shown: ${board.error}`, { project: found.name, access: found.access, moved: move.trimEnd(), board_error: board.error }) : fail(board.error);
    return done(`${move}${boardText(board.value)}`, { project: found.name, access: found.access, ...board.value, ...(move ? { moved: move.trimEnd() } : {}) });
  },
});

export const bmadSessionTool = defineTool({
  name: TOOL.bmadSession,
  toolset: "views",
  description: "A bmad-task delivery session: its stages with scores and gates, questions and artifacts. A view where the host shows them; its buttons act through bmad-task.",
  input: z.object({ session_id: sessionField }),
  annotations: READ_ONLY,
  view: viewUri("session"),
  async run({ session_id }, deps) {
    if (!deps.sessions) return noSessions();
    const got = await deps.sessions.get(deps.owner, session_id);
    if (!got.ok) return fail(got.error);
    const state = got.value;
    const view = sessionView(state, (f) => artifactUri(state.session_id, f));
    const stages = PIPELINE.map((spec) => {
      const record = state.stages[spec.stage];
      return { stage: spec.stage, title: spec.title, gate: spec.gate.kind === "score" ? `score >= ${spec.gate.min}` : spec.gate.kind, status: record.status, iteration: record.iteration, ...(record.score !== undefined ? { score: record.score } : {}) };
    });
    const lines = stages.map((s) => `${s.stage}: ${s.status}${s.score !== undefined ? `, score ${s.score}` : ""} (gate ${s.gate})`);
    // The revision shown goes with every action the view takes (bmad-task's `revision`).
    return done([`${view.task_name} (${view.session_id}): ${view.current_stage} ${view.current_state}. ${view.user_message}`, ...lines].join("\n"), { ...view, stages, revision: state.revision, access: access(deps) });
  },
});

export const bmadBrainstormTool = defineTool({
  name: TOOL.bmadBrainstorm,
  toolset: "views",
  description: "BMAD's brainstorming composer page as a view: the user picks a mode and techniques, and its Copy prompt sends them to the chat.",
  input: z.object({}),
  annotations: READ_ONLY,
  view: viewUri("brainstorm"),
  async run(_args, deps) {
    const found = composerFile(deps.reader.catalog);
    if (!found.ok) return fail(found.error);
    const page = `${BMAD_SCHEME}${found.file.path}`;
    return done(
      `A host that shows views shows BMAD's composer page (${page}) here; the user's choice comes back as their message. Where it does not show, pick the mode and techniques in chat, as the skill's "Or in chat" says.`,
      { page },
    );
  },
});

export const viewTools = [bmadMapTool, bmadDocTool, bmadBoardTool, bmadSessionTool, bmadBrainstormTool];
