// The sprint board view's data: sprint-status.yaml (in the project's implementation_artifacts, as BMAD's sprint
// planning writes it) as stories by epic and status; a move rewrites the file through the port's YAML round trip
// (runtime/sprint-move.ts) and the caller's store, with its compare-and-set.
import { staleVersion, type Displaced, type FileContent, type WorkspaceFiles } from "../workspace/store.js";
import type { ProjectRuntime } from "../runtime/project.js";
import { moveStoryText, unreadStatus } from "../runtime/sprint-move.js";
import { boardName, loadYaml, SPRINT_STATUS_FILE, type YValue } from "../runtime/sprint-yaml.js";
import { pastYamlSize } from "../yaml.js";
import type { Result } from "../result.js";
import type { BundleReader } from "./reader.js";
import { configOf, projectFolder } from "./earlier-work.js";
import { othersBeyond, othersSuffix } from "../workspace/line-authors.js";
import { changedSinceClause, displacedNote, othersBeside, type ChangedSince } from "../workspace/changed-since.js";
import { showName } from "../lines.js";
import { ACTION_STATUSES, formatStamp, getItem, isStr, pyStrOf } from "../runtime/sprint-py.js";
import { wallTimeIn } from "../runtime/time-zone.js";
import { LEGACY } from "../runtime/sprint-plan-read.js";
import { utf8Text } from "../workspace/file-text.js";

/** The columns, in BMAD's order (sprint_plan.py's STORY_RANK). */
export const STORY_STATUSES = ["backlog", "ready-for-dev", "in-progress", "review", "done"] as const;
const STORY = /^(\d+)-\d+[a-z]?-/;
/** Epics and stories a board shows, at most (a sprint has tens): a writer's 29,000 entries drew 609,013 elements in
 *  20 s of the owner's view (review 33). The rest are counted, and the file says them all. */
const MAX_EPICS = 100;
/** The column of a status that is none of the board's. */
const OTHER = "other";
const MAX_STORIES = 500;
/** Characters of keys and statuses a board shows, at most: a sprint's hundred stories take a few thousand (review
 *  434: capped names alone still made 500 of them 60 KB twice over). */
const MAX_NAME_CHARS = 30_000;

export interface Board {
  path: string;
  version: number;
  columns: readonly string[];
  /** A story's column, and what its file says where that is not the column's name (a legacy or unknown status). */
  epics: Array<{ epic: string; status: string; retrospective?: string; stories: Array<{ key: string; status: string; written?: string }> }>;
  /** The retrospectives' action items not done (sprint_plan.py status's open_action_items), at most MAX_ACTIONS. */
  actions?: Array<{ epic: string; action: string; status: string }>;
  /** Open action items past MAX_ACTIONS, not listed. */
  actions_left_out?: number;
  /** What the board leaves out past its caps. */
  hidden?: { epics: number; stories: number };
  /** Who other than the caller wrote lines of the file, and which, as every answer says it (othersNote): a collaborator's story keys and
   *  statuses are named as theirs, as every other answer names them (review 53); none where `author` wrote it all. */
  others?: string;
  /** Who made this version, where someone other than the caller did. */
  author?: string;
  /** What others changed since the caller's own last version, and the caller's version another's change replaced
   *  unnamed, as bmad-files read tells them, once (review 454: a collaborator's removed story went unsaid). */
  changed_since?: ChangedSince;
  displaced?: Displaced;
}

/** What the board says of the file's head besides its stories. */
type Head = Pick<Board, "path" | "version" | "others" | "author" | "changed_since" | "displaced">;

function headOf(path: string, read: FileContent): Head {
  const author = read.changed_by_other ? read.author : undefined;
  const since = read.changed_since;
  const others = othersBeyond(othersBeside(read.others, since), author);
  return { path, version: read.version, ...(others ? { others } : {}), ...(author ? { author } : {}), ...(since ? { changed_since: since } : {}), ...(read.displaced ? { displaced: read.displaced } : {}) };
}

/** `version 2, by bob`, and (`withOthers`) whose lines are whose, then `; changed by others since your v1: …`, as a
 *  read's header says them. */
const headClause = (h: Head, withOthers: boolean): string => `version ${h.version}${h.author ? `, by ${h.author}` : ""}${withOthers ? othersSuffix(h.others) : ""}${changedSinceClause(h.changed_since)}`;

const displacedSentence = (h: Head): string => (h.displaced ? ` ${displacedNote(h.path, h.displaced)}` : "");

/** Why the board does not show the file, with what the read told of its head (not whose lines are whose: a writer's
 *  9,800 lines are many ranges): counted as told (ReadOptions), it is not told again, and whoever broke it is named. */
function unshown(head: Head, error: string): Result<never> {
  const told = head.author || head.changed_since || head.displaced;
  return { ok: false, error: told ? `${error} (${head.path} ${headClause(head, false)})${displacedSentence(head)}` : error };
}

/** Why the board neither shows nor moves a status file this big, by its bytes before any parse: both say it alike
 *  (review 186: a writer's 946 KB file took a second to refuse, named 925 KiB by the board and 972 KiB by a move,
 *  which wrote it first). */
function tooBig(path: string, data: Uint8Array): string | undefined {
  const past = pastYamlSize(data.length);
  return past && `${path} is not read: ${past} (a sprint's status is tens of KB). Trim it with bmad-files, or run bmad-sprint-planning again.`;
}

/** Characters ruamel.yaml (YAML 1.1), and so BMAD's sprint scripts, read as line breaks, and the `yaml` package does not. */
const PYTHON_LINE_BREAK = /[\u0085\u2028\u2029]/;

/** The file's text, or why neither the board nor a move reads it: a byte that is not UTF-8 would come back as U+FFFD in
 *  the user's comment, where BMAD's Python refuses the file (review 275); a line break only Python reads, where the
 *  port may read it otherwise, would have the two read another value, or a move write one (review 434: `x: \u2028sep`
 *  came back `x: '\u2028  sep'`). In quotes the port reads it as Python does (review 453: sprint_plan.py's own
 *  `project: 'Todo\u2028  App'` was refused), and the file is loaded to tell only where one is found. Both say it alike. */
function statusText(path: string, data: Uint8Array): Result<{ text: string }> {
  const text = utf8Text(data);
  if (text === undefined) return { ok: false, error: `${path} is not UTF-8: save it as UTF-8 (BMAD's sprint scripts refuse it too).` };
  if (!PYTHON_LINE_BREAK.test(text)) return { ok: true, text };
  // A file the port refuses is said so by the load after this one.
  const loaded = loadYaml(text);
  const at = "doc" in loaded ? loaded.doc.unquotedBreak : undefined;
  if (at === undefined) return { ok: true, text };
  const line = text.slice(0, at).split("\n").length;
  return { ok: false, error: `${path} line ${line} holds ${showName(text[at]!)}, which BMAD's sprint scripts read as a line break: replace it with a newline or remove it (bmad-files edit), then show the board again.` };
}

/** The project's sprint plan, where BMAD's sprint scripts keep it: the config's implementation_artifacts folder's
 *  sprint-status.yaml. The board, a move, the map and get_workflow_status read this one (review 348: a file of that
 *  name planted in a subfolder set the map's Next). */
export async function sprintPlanPath(reader: BundleReader, runtime: ProjectRuntime): Promise<string | undefined> {
  const folder = projectFolder("implementation_artifacts", await configOf(reader, runtime), runtime.root);
  return folder === undefined ? undefined : `${folder}/${SPRINT_STATUS_FILE}`;
}

/** Why there is no sprint plan path: the config names no implementation_artifacts folder, or one outside the project
 *  (review 434: an absolute path elsewhere was said to be none). */
async function noSprintFolder(reader: BundleReader, runtime: ProjectRuntime): Promise<string> {
  const named = (await configOf(reader, runtime)).get("implementation_artifacts");
  return named
    ? `This project's config names ${JSON.stringify(boardName(named))} for implementation_artifacts, which is not a folder inside the project: set it to one under {project-root} (BMAD's default is {project-root}/_bmad-output/implementation-artifacts), where sprint-status.yaml lives.`
    : "This project's config names no implementation_artifacts folder, where sprint-status.yaml lives.";
}

export async function readBoard(reader: BundleReader, runtime: ProjectRuntime, files: WorkspaceFiles): Promise<Result<{ value: Board }>> {
  const path = await sprintPlanPath(reader, runtime);
  if (!path) return { ok: false, error: await noSprintFolder(reader, runtime) };
  // Read as bmad-files reads it: what others changed since is told with the board, and counted as told (review 454).
  const read = await files.read(path, undefined, { notes: true, shown: true });
  if (!read.ok) return { ok: false, error: read.kind === "not_found" ? `No ${path} yet: BMAD's sprint planning (bmad-sprint-planning) writes it.` : read.error };
  const head = headOf(path, read.value);
  const big = tooBig(path, read.value.data);
  if (big) return unshown(head, big);
  const decoded = statusText(path, read.value.data);
  if (!decoded.ok) return unshown(head, decoded.error);
  const { text } = decoded;
  // As BMAD's scripts (and a card's move) load it: a file they refuse, a key given twice above all, is not shown as if
  // it were read (review 85: the board showed the last of two development_status blocks, which sprint_plan.py refuses).
  const loaded = loadYaml(text);
  if ("error" in loaded) return unshown(head, unreadStatus(path, loaded.error));
  // Read from the port's document, as a move reads it (review 461: a second parse refused an escaped U+2028 in quotes,
  // which ruamel and a move read); no alias followed (a writer's 99 aliases of a 950 KB status made a 94 MB board).
  const { root } = loaded.doc;
  if (holdsAlias(root)) return unshown(head, `${path} uses YAML anchors and aliases (&name, *name), which the board does not follow (BMAD's scripts read them, and a card's move refuses them): write the values out to see it here.`);
  const top = root?.kind === "map" ? root : undefined;
  const dev = top && getItem(top, "development_status");
  if (!top || dev?.kind !== "map") return unshown(head, `${path} has no development_status mapping.`);
  const epics = new Map<string, Board["epics"][number]>();
  // By the epic's number, as sprint_plan.py compares them (int()): `epic-01` is the epic of `1-2-x` (review 86).
  const epicOf = (digits: string) => {
    const n = String(Number.parseInt(digits, 10));
    let e = epics.get(n);
    if (!e) epics.set(n, (e = { epic: `epic-${n}`, status: "", stories: [] }));
    return e;
  };
  let unknown = false;
  for (const { key: written, value } of dev.items) {
    // Each is shown inside a line of the board's text, its controls written out: one would start a line (review 78: a
    // quoted key made a line of a forged epic) or show it in another order, and a story left off went unsaid where
    // BMAD's scripts count it (review 91: `1-2-send-all-data-to-vendor\u200e`); invisible ones too, or a twin card
    // reads as the real one (review 281: `1-1-add-a\u200b-todo`); cut past a length (boardName). A move names it so (moveStoryText).
    const key = boardName(pyStrOf(written));
    const status = boardName(scalarText(value) ?? "(not a status)");
    const epic = /^epic-(\d+)$/.exec(key);
    if (epic) epicOf(epic[1]!).status = status;
    const retrospective = /^epic-(\d+)-retrospective$/.exec(key);
    if (retrospective) epicOf(retrospective[1]!).retrospective = status;
    const story = STORY.exec(key);
    if (!story) continue;
    // As BMAD's sprint_plan.py reads them: legacy statuses in their columns, and any other in one of its own, so that
    // no story drops out of sight (review 85: drafted and contexted, which 6.12's create-story shim writes, vanished).
    const column = (STORY_STATUSES as readonly string[]).includes(status) ? status : LEGACY.get(status) ?? OTHER;
    unknown ||= column === OTHER;
    epicOf(story[1]!).stories.push({ key, status: column, ...(column === status ? {} : { written: status }) });
  }
  const open = openActions(getItem(top, "action_items"));
  const actions = open.slice(0, MAX_ACTIONS);
  const leftOut = open.length - actions.length;
  return { ok: true, value: { ...head, columns: unknown ? [...STORY_STATUSES, OTHER] : STORY_STATUSES, ...capped([...epics.values()]), ...(actions.length ? { actions } : {}), ...(leftOut ? { actions_left_out: leftOut } : {}) } };
}

/** Open action items the board lists, at most (a retrospective writes a few). */
const MAX_ACTIONS = 20;

/** The statuses of an action item sprint_plan.py status lists as open (its ACTION_STATUSES but done). */
const OPEN_ACTION = new Set(ACTION_STATUSES.filter((status) => status !== "done"));

/** The retrospectives' action items open, as sprint_plan.py status lists them (review 339: the board showed none;
 *  review 348: one of a status the script skips was listed), each written out as a story key is (showName). */
function openActions(items: YValue | undefined): NonNullable<Board["actions"]> {
  if (items?.kind !== "seq") return [];
  const shown = (value: YValue | undefined) => showName(scalarText(value) ?? "").slice(0, 300);
  return items.items.flatMap(({ value: item }) => {
    const status = item.kind === "map" ? getItem(item, "status") : undefined;
    // As sprint_plan.py status reads it: a str status only.
    if (item.kind !== "map" || !isStr(status) || !OPEN_ACTION.has(status.text)) return [];
    return [{ epic: shown(getItem(item, "epic")), action: shown(getItem(item, "action")), status: status.text }];
  });
}

/** A scalar's text as Python's str() gives it, or undefined where it is null or a collection. */
const scalarText = (value: YValue | undefined): string | undefined => (value?.kind === "scalar" && value.tag !== "null" ? pyStrOf(value) : undefined);

/** Whether the document holds an alias or a merge anywhere: the board follows none. Its depth is bounded by the load
 *  (tooHeavyToParse). */
function holdsAlias(value: YValue | null): boolean {
  if (value === null || value.kind === "scalar") return false;
  if (value.kind === "alias") return true;
  if (value.kind === "map") return value.merge !== undefined || value.items.some((i) => holdsAlias(i.value));
  return value.items.some((i) => holdsAlias(i.value));
}

/** The epics in order while there is room, in stories and in characters of names; an epic none of whose stories fit
 *  is not shown empty. */
function capped(all: Board["epics"]): Pick<Board, "epics" | "hidden"> {
  const epics: Board["epics"] = [];
  let room = MAX_STORIES;
  let chars = MAX_NAME_CHARS;
  for (const e of all) {
    const head = e.status.length + (e.retrospective?.length ?? 0);
    if (epics.length === MAX_EPICS || head > chars || (room === 0 && e.stories.length)) break;
    chars -= head;
    const stories: typeof e.stories = [];
    for (const s of e.stories) {
      const cost = s.key.length + s.status.length + (s.written?.length ?? 0);
      if (stories.length === room || cost > chars) break;
      chars -= cost;
      stories.push(s);
    }
    if (e.stories.length && !stories.length) break;
    room -= stories.length;
    epics.push({ ...e, stories });
    // Out of characters: nothing after this one is shown.
    if (stories.length < e.stories.length && room) chars = 0;
  }
  const stories = all.reduce((n, e) => n + e.stories.length, 0) - (MAX_STORIES - room);
  return { epics, ...(stories || all.length > epics.length ? { hidden: { epics: all.length - epics.length, stories } } : {}) };
}

/** Reads and writes a move makes while the file changes between the two: each lost is another's write that landed, so
 *  this many moves at once all land (review 215: 6 of 10 at once failed, told to merge and retry with if_version).
 *  Where the store changes a file under its writes' lock (WorkspaceFiles.update, the bridge), a move from another
 *  process queues there instead (review 434: 4 of 24 from two bridges failed). */
const MOVE_TRIES = 10;
/** The most a move waits before its next try, in ms, times the tries made. */
const MOVE_PAUSE_MS = 10;

/** A move made, or none needed (`unchanged`: the story has that status already): the status file's path and its
 *  version, the key moved as the file holds it (`story`, named maybe as the board shows it), and its status before;
 *  `over`: what others changed in the version it was made on, since the
 *  caller's own (or the one they were last shown it with), which nothing else tells them: the move makes the head
 *  theirs (review 461: a collaborator's removed story went unsaid). */
export async function moveStory(reader: BundleReader, runtime: ProjectRuntime, files: WorkspaceFiles, story: string, status: string, ifVersion?: number): Promise<Result<{ path: string; version: number; story: string; from: string; unchanged?: true; over?: ChangedSince }>> {
  const path = await sprintPlanPath(reader, runtime);
  if (!path) return { ok: false, error: await noSprintFolder(reader, runtime) };
  if (!STORY.test(story)) return { ok: false, error: `"${boardName(story)}" is not a story key (epic-story-name, e.g. 1-2-login).` };
  const now = wallTimeIn(await runtime.timeZone?.(), new Date());
  const stamp = formatStamp([now.year, now.month, now.day, now.hour, now.minute]);
  /** The file's next text from its bytes (undefined: the story has that status already), or why it is not moved. */
  const moveIn = (data: Uint8Array): Result<{ text?: string; before: string; story: string }> => {
    const big = tooBig(path, data);
    if (big) return { ok: false, error: big };
    const decoded = statusText(path, data);
    if (!decoded.ok) return decoded;
    const moved = moveStoryText(decoded.text, story, status, stamp, path);
    // Nothing written where nothing changes: another version would make every open board's if_version stale (review 434).
    return moved.ok && moved.before === status ? { ok: true, before: moved.before, story: moved.story } : moved;
  };
  for (let tries = 1; ; tries++) {
    const read = await files.read(path, undefined, { served: false });
    if (!read.ok) return { ok: false, error: read.error };
    if (ifVersion !== undefined && read.value.version !== ifVersion) return { ok: false, error: `${staleVersion(files, path, read.value, ifVersion)}: ${story} was not moved. Show the user the board as it is now, and move it again if they still want to (if_version ${read.value.version}).` };
    const moved = moveIn(read.value.data);
    if (!moved.ok) return moved;
    if (moved.text === undefined) return { ok: true, path, version: read.value.version, story: moved.story, from: moved.before, unchanged: true };
    let [from, key] = [moved.before, moved.story];
    const written = files.update
      ? // Made again under the lock on the file as it is there, checked against the version read if one was named.
        await files.update(path, (current) => {
          const again = current ? moveIn(current) : { ok: false as const, error: `No ${path} now: it was removed during the move.` };
          if (!again.ok) return { ok: false, kind: "invalid", error: again.error };
          [from, key] = [again.before, again.story];
          return { ok: true, value: again.text === undefined ? current! : new TextEncoder().encode(again.text) };
        }, ifVersion === undefined ? undefined : read.value.version)
      : await files.write(path, new TextEncoder().encode(moved.text), { ifVersion: read.value.version });
    const over = read.value.changed_since;
    if (written.ok) return { ok: true, path, version: written.value.version, story: key, from, ...(over ? { over } : {}) };
    if (written.kind !== "conflict") return { ok: false, error: written.error };
    // A move has nothing to merge: made again on the file as it is now, unless it named the version it was chosen at.
    if (ifVersion !== undefined || tries === MOVE_TRIES) return { ok: false, error: `${path} changed during the move: move it again.` };
    // A moment for the other writer to finish: a script saving the file again at once (review 226) outpaced a move.
    await new Promise((r) => setTimeout(r, Math.random() * MOVE_PAUSE_MS * tries));
  }
}

/** What a move says of the story's own file (`<story>.md` beside the status file) where its `Status:` line says
 *  otherwise: BMAD's dev-story and code-review keep both, and a board move writes only sprint-status.yaml, as
 *  sprint_status.py does (review 339: the two disagreed, and nothing said so). */
export async function storyFileNote(files: WorkspaceFiles, statusPath: string, story: string, status: string): Promise<string> {
  const path = `${statusPath.slice(0, statusPath.lastIndexOf("/") + 1)}${story}.md`;
  const read = await files.read(path, undefined, { served: false });
  // A look at its head: a cut character is only a replacement mark there.
  const text = read.ok ? new TextDecoder().decode(read.value.data.subarray(0, 4096)) : "";
  const written = /^Status:[ \t]*(\S[^\r\n]*?)[ \t]*$/m.exec(text)?.[1];
  return written === undefined || written === status ? "" : ` Its story file ${path} still says "Status: ${showName(written.slice(0, 100))}": edit that line with bmad-files if the story's file should follow.`;
}

const hiddenNote = (hidden: { epics: number; stories: number }) =>
  `(${hidden.epics} more epics and ${hidden.stories} more stories not shown: the board shows ${MAX_EPICS} epics, ${MAX_STORIES} stories and ${MAX_NAME_CHARS.toLocaleString("en-US")} characters of keys and statuses at most; bmad-files reads the whole file.)`;

export function boardText(board: Board): string {
  const lines = [`${board.path} (${headClause(board, true)}), columns ${board.columns.join(" | ")}:`];
  for (const e of board.epics) lines.push(`${e.epic}${e.status || e.retrospective ? ` [${[e.status, e.retrospective && `retrospective ${e.retrospective}`].filter(Boolean).join(", ")}]` : ""}: ${e.stories.map((s) => `${s.key}=${s.status}${s.written ? ` (written ${JSON.stringify(s.written)})` : ""}`).join(", ") || "no stories"}`);
  if (board.hidden) lines.push(hiddenNote(board.hidden));
  if (board.actions) lines.push(`Open action items: ${board.actions.map((a) => `epic ${a.epic}: ${a.action} (${a.status})`).join("; ")}${board.actions_left_out ? ` (and ${board.actions_left_out} more not shown)` : ""}`);
  if (board.displaced) lines.push(displacedSentence(board).trimStart());
  return lines.join("\n");
}
