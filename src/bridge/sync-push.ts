// bmad-mcp push: local changes since the last pull back to the workspace, each write and delete guarded by
// if_version, so a file changed on the remote since the pull is never overwritten without --force (then the
// push refuses, and nothing is sent). What it sends: files that were pulled and changed here; files deleted
// here (deleted on the remote too; its history keeps them, and `bmad-files restore` brings one back); and new
// files inside the folders sync carries (_bmad/, _bmad-output/, .claude/specs/; sync.ts), whatever the remote listed: a remote names what
// it holds, not which of your folders are sent. Everything else in the folder (your code) stays local, and so do
// files that hold secrets and tools' own settings, pulled or not.
import { folderOf, MAX_LISTED } from "../core/workspace/limits.js";
import { asText, inSyncFolders, type Local, readLocal, type Refusal, Report, sendable, sendableHere, sentence, sha256, walkCutRefusal } from "./sync.js";
import { isInstallFile, isPersonalFile, notCarried } from "../core/workspace/sync-kinds.js";
import { mapLimited } from "../core/map-limited.js";
import { onlyYoursReason, type SyncOptions, type SyncResult } from "./sync-pull.js";
import { loadState, localOnlyPaths, pulledRecord, pushedRecord, saveState, settleSent, type SyncedFile, type SyncState } from "./sync-state.js";
import { mergeBothWays, remoteChange, servedAlteredHeld, untoldSent } from "./sync-merge.js";
import { structuredType } from "../core/memory/files.js";
import type { Remote, RemoteContent } from "./sync-remote.js";
import { DATA_FILE, holdsSecrets, sanitizeConfigText, secretPlace, shapedSecretAt } from "../core/catalog/config.js";
import { lines } from "../core/lines.js";
import { changeRefusal, checkWorkspacePath, printable, showTwins, TWIN_DIFFERENCE, unportableName } from "../core/workspace/paths.js";
import { FoldedNames } from "../core/workspace/folded-names.js";

/** `over`: --force sends it over a change on the remote since the pull, at this version (the one pulled; 0: none):
 *  its line says whose change it replaced (review 264: such lines read as ordinary ones). */
type Step =
  | { op: "write"; path: string; text: string; sha256: string; ifVersion: number; kind: "added" | "updated"; over?: number }
  | { op: "delete"; path: string; ifVersion: number; over?: number }
  /** Gone on both sides: only the record goes. */
  | { op: "forget"; path: string }
  /** The remote already holds these bytes (a push whose record was lost): only the record changes. */
  | { op: "record"; path: string; version: number; sha256: string };

const READS_AT_ONCE = 8;

/** A file as push may send it: a plain file at its own path, judged on the file as opened. A link (symbolic anywhere
 *  on the way, or hard; swapped in mid-read too) would send what it reaches, the user's code or a secret, under a
 *  harmless name. */
function readToSend(dir: string, path: string): Promise<Local> {
  return readLocal(dir, path, (opened, links) =>
    opened !== path || links > 1 ? `a link (to ${opened === path ? "another name of this file" : opened}); push sends only plain files, so what a link reaches (your code, a secret) stays here. Replace it with a copy, or remove it.` : undefined,
  );
}

/** Why a file is held back rather than sent, or undefined: a config or data file whose secret-looking keys (or text
 *  that does not parse here, whose could not be told) would reach the remote (review 20), a person's own file, or one
 *  that is not a document (notCarried). `unsent`: a document held for what it holds, not local by design. */
function heldBack(path: string, text: string): { why: string; unsent: boolean } | undefined {
  if (isPersonalFile(path)) return { why: "a personal file BMAD keeps out of git; not sent", unsent: false };
  const secret = structuredType(path) ? memoryHeldBack(path, text) : secretsHeldBack(path, text, "push");
  if (secret) return { why: secret, unsent: true };
  const other = notCarried(path);
  return other === undefined ? undefined : { why: other, unsent: false };
}

/** Why a structured memory file is held back, or undefined: by the memories that hold a secret, named by id and line,
 *  to be removed (review 221: one such memory held back the collection, told to set its "keys" with bmad-project config). */
function memoryHeldBack(path: string, text: string): string | undefined {
  const whole = secretsHeldBack(path, text, "push");
  if (!whole) return undefined;
  const held = lines(text).flatMap((line, i) => (secretsHeldBack(path, line, "push") ? [`${memoryIdOf(line)} (line ${i + 1})`] : []));
  // A secret only the lines together make is told as any file's.
  if (!held.length) return whole;
  const more = held.length > 3 ? ` and ${held.length - 3} more` : "";
  return `memory ${held.slice(0, 3).join(", ")}${more} ${held.length === 1 ? "holds" : "hold"} what looks like a secret, which push sends to no remote: the file is not sent. Memory is shared with the project's members: delete ${held.length === 1 ? "that memory's line" : "those memories' lines"} from the file, then push again`;
}

/** A memory line's id, as its file holds it; "a line" for one that is not a memory. */
function memoryIdOf(line: string): string {
  try {
    const id = (JSON.parse(line) as { id?: unknown }).id;
    if (typeof id === "string" && /^[0-9a-f-]{36}$/.test(id)) return id;
  } catch {
    // Not JSON: named by its line alone.
  }
  return "a line";
}

/** Why text from this machine must not go to a remote, or undefined: what push holds back of a file by what it holds
 *  (heldBack), and a linked bridge's write into a workspace too (`by` names which sends nothing: review 201, a steered
 *  model read a local note's keys and wrote them where a member read them). */
export function secretsHeldBack(path: string, text: string, by: string): string | undefined {
  const secrets = `holds secret-looking keys (or does not parse here), which ${by} sends to no remote; not sent. Keep them out of the file`;
  // A config, and any data file by its keys, whatever it is called (review 47: `llm.yaml`, `agents.json` and
  // `deploy.yml` went with their keys): stricter than what is served (servedAsConfig judges a data file by a secret's
  // shape), as nothing sent can be taken back.
  if (sanitizeConfigText(path, text) !== text || (DATA_FILE.test(path) && holdsSecrets(path, text))) return secrets;
  // Any other text by what a secret looks like alone (review 50: AWS's accessKeys.csv, a key pasted into notes.md).
  return shapedSecretHeldBack(text, by);
}

/** Why text holding what looks like a secret by its shape alone is not sent, or undefined: a part of a file too (an
 *  append, an edit's new text), which no config parser could judge whole. */
export function shapedSecretHeldBack(text: string, by: string): string | undefined {
  const at = shapedSecretAt(text);
  // Where (review 68: a long document held back gave no place to look).
  return at && `holds what looks like a secret${secretPlace(at)} (a known token, a private key, a URL with a password, a password given), which ${by} sends to no remote; not sent. Take it out of the file`;
}

/** Why the remote takes no new file at `path` beside `names` (its files, and the new ones planned before), or
 *  undefined: another file whose name a folding file system (macOS, Windows: case, Unicode form) reads as this one's, a
 *  file where this needs a folder, or a folder where this would be a file. The remote refuses those on every push, so
 *  they are held back before anything is sent (review 113: one such name stopped every push at it). */
function clashNote(names: FoldedNames, path: string): string | undefined {
  const found = names.clash(path);
  if (found?.kind === "file") {
    const shown = showTwins(path, found.at, printable);
    const [mine, theirs] = [shown(path), shown(found.at)];
    return `the remote has ${theirs}, a name macOS and Windows read as this one, or that prints as it (${mine}: ${TWIN_DIFFERENCE}), so it takes no file here: rename yours to push it`;
  }
  if (found?.kind === "above") return `the remote has a file ${printable(found.at)} where this needs a folder, so it takes no file here: rename your folder, or remove that file on the remote`;
  if (found?.kind === "folder twin") {
    // The remote would take it, and hold two folders that macOS and Windows read as one.
    const shown = showTwins(found.mine, found.at, printable);
    return `the remote has a folder ${shown(found.at)} (it holds ${printable(found.below)}), a name macOS and Windows read as this one's folder, or that prints as it (${shown(found.mine)}: ${TWIN_DIFFERENCE}), so push sends nothing into yours: rename your folder to ${shown(found.at)} to push it`;
  }
  return found?.kind === "folder" ? `the remote has a folder of this name (it holds ${printable(found.below)}), so it takes no file here: rename yours to push it` : undefined;
}

/** The way out of a conflict with the remote over `path`: take the remote's, or send yours over it (that file alone). */
const pullFirst = (o: SyncOptions, path: string) => `get the remote's with ${o.again("pull", true)} (yours is overwritten: copy it aside first, then merge); or send yours over it, dropping the remote's change (its history keeps it): ${o.again("push", true, [path])}`;

/** A conflict over a file changed on both sides as a pull meets it (mergeBothWays, the pull's own question): a memory
 *  file, or a memlog both sides appended to, that pull merges (no copy aside, no --force), or why it will not; any other
 *  file keeps `refusal` (review 300: a .memlog.md memlog.py did not write was promised a merge pull then refused). */
async function asPullMeetsIt(o: SyncOptions, refusal: Refusal, mine: Uint8Array, synced: SyncedFile | undefined, theirs: RemoteContent): Promise<Refusal> {
  const merge = await mergeBothWays(o, refusal.path, mine, synced, theirs);
  if (!merge) return refusal;
  if (!merge.ok) return { path: refusal.path, reason: merge.error, fix: merge.fix };
  return { ...refusal, fix: `${o.again("pull", false)} merges ${structuredType(refusal.path) ? "the memories of both" : "the entries both sides appended"}; then push again` };
}

/** "changed on the remote …" of a conflict, as the remote's read of the file tells its version and author (`to`, the
 *  version listed, where the read failed). */
const changedThere = (from: number, to: number, read: Remote<RemoteContent> | undefined, since = "") =>
  read?.ok ? remoteChange(from, read.value.version, read.value.author, since) : remoteChange(from, to, undefined, since);

/** Why the remote refused a change: when the file moved there since the plan (another member's change landed first),
 *  a conflict as one found before sending is, with its way out; otherwise the remote's own reason. Undefined: a
 *  deletion another member made too while this push ran, which both sides agree on (review 171). */
async function refusalOf(o: SyncOptions, state: SyncState, step: Extract<Step, { op: "write" | "delete" }>, error: string): Promise<Refusal | undefined> {
  const now = await o.workspace.version(step.path);
  if (!now.ok || now.value === step.ifVersion) return { path: step.path, reason: error, fix: "" };
  if (step.op === "delete" && now.value === 0) return undefined;
  const read = now.value && step.ifVersion ? await o.workspace.read(step.path) : undefined;
  const here = step.op === "delete" ? "deleted here" : step.ifVersion ? "changed here" : "new here";
  const there = !now.value ? "deleted on the remote" : step.ifVersion ? changedThere(step.ifVersion, now.value, read) : `written on the remote (now version ${now.value})`;
  const refusal = { path: step.path, reason: `${here}, and ${there} while this push ran`, fix: pullFirst(o, step.path) };
  return step.op === "write" && read?.ok ? asPullMeetsIt(o, refusal, new TextEncoder().encode(step.text), state.files.get(step.path), read.value) : refusal;
}

export async function push(o: SyncOptions): Promise<SyncResult> {
  const loaded = await loadState(o.dir);
  if (!loaded.ok) return loaded;
  const state = loaded.state;
  const project = o.workspace.project;
  if (!state) return { ok: false, error: loaded.ignored ? `${loaded.ignored} Nothing was sent.` : `Nothing was pulled into ${o.dir}, so there are no changes to push: ${o.again("pull", false)} first, then change files and push.` };
  if (state.remote !== o.remote || state.project !== project) {
    return { ok: false, error: `${o.dir} holds a pull of "${state.project}" from ${state.remote}; push it there, or pull "${project}" into another folder.` };
  }
  const listed = await o.workspace.list();
  if (!listed.ok) return listed;
  const remote = listed.value;
  await settleSent(state, remote, o.workspace);
  const { files: found, cut } = await sendableHere(o.dir);
  if (cut.length) return { ok: false, error: walkCutRefusal(o.dir, cut, "nothing was sent.") };
  // Only the folders sync carries: a record from a pull before they were the rule sends nothing of the user's code.
  const paths = [...new Set([...state.files.keys(), ...found])].filter((path) => sendable(path) && inSyncFolders(path)).sort();
  const unknown = [...o.forcePaths].filter((path) => !paths.includes(path));
  if (unknown.length) {
    const named = `${unknown.slice(0, 3).map(printable).join(", ")}${unknown.length > 3 ? ` and ${unknown.length - 3} more` : ""}`;
    return { ok: false, error: `--force names ${named}, which is no file push sends from ${o.dir}: name each by its path there, as push lists it (e.g. _bmad/bmm/config.yaml). Nothing was sent.` };
  }
  // A pulled file whose name a folder holds here now, or which a file above it replaced: deleted here, and the deletion
  // goes before the new files of that name (as a rename by case does).
  const locals = (await mapLimited(paths, READS_AT_ONCE, (path) => readToSend(o.dir, path))).map((local): Local => (local.kind === "blocked" && local.inWay ? { kind: "missing" } : local));
  // A file a killed pull wrote is pulled, as the next pull reads it: what it was writing is no change here.
  for (const [i, path] of paths.entries()) {
    const pulled = pulledRecord(state, path, locals[i]!);
    if (pulled) state.files.set(path, pulled);
  }
  delete state.pending;
  // The local-only files' bytes, as recorded and as here now (kept for the next push): a new file holding them is one
  // moved or copied (review 216: a local-only folder renamed went to every member).
  const localOnlyBytes = new Set(localOnlyPaths(state).map((path) => state.localOnly!.get(path)));
  for (const [i, path] of paths.entries()) {
    const local = locals[i]!;
    if (local.kind !== "file" || !state.localOnly?.has(path) || state.files.has(path)) continue;
    localOnlyBytes.add(local.sha256);
    state.localOnly.set(path, local.sha256);
  }

  const report = new Report();
  const refusals: Refusal[] = [];
  const steps: Step[] = [];
  /** Files made or changed here and held back for what they are or hold (a twin's name, a secret, a copy the remote
   *  served altered, a folder too full): their documents never reach the remote, so the push exits non-zero (review
   *  324). Files local by design (the user's own from before the pull, BMAD's scripts, personal files, no documents,
   *  images, files past 1 MiB) are no failure. */
  const unsent = new Set<string>();
  const holdUnsent = (path: string, why: string) => (report.add("held", path, why), unsent.add(path));
  /** Conflicts a read of the remote's file settles: the same content (`sha256`), or another member's of a file pull
   *  leaves on the remote (onlyYoursReason), which no pull resolves. `forced`: what --force sends when neither. */
  const suspects: Array<{ path: string; sha256?: string; reason: (read: Remote<RemoteContent>) => string; forced?: Step; merges?: { mine: Uint8Array; synced: SyncedFile } }> = [];
  /** Unchanged here, changed on the remote, and such a file: pull brings it only if no other member wrote it. */
  const behindUnsure: string[] = [];
  /** Said of each file held so alike, so that one line names them all (Report.lines). */
  const keepsBoth = (why: string, way: string) => `${why}: pull leaves yours as it is here, so each side keeps its own. ${way}, or send yours over the remote's by naming the file after --force, which then sends the files it names alone: ${o.again("push", true)} PATH...`;
  // What --force sends over the remote's: every conflict, or the files it names. BMAD's settings and personal files
  // (onlyYoursReason) go over another member's only named (review 205: the --force a conflict's refusal named sent a
  // member's 8 installer files over the owner's config, user_name and all).
  const forced = (path: string) => o.force && (!o.forcePaths.size || o.forcePaths.has(path));
  const overrides = (path: string) => forced(path) && (o.forcePaths.has(path) || !onlyYoursReason(path));
  // Each folder's files on the remote, directly in it, less those this push deletes (deleted here, unchanged there;
  // sent first): what a new file is counted with (review 118: a delete and an add in a full folder held the add).
  const deleting = new Set(paths.filter((path, i) => locals[i]!.kind === "missing" && state.files.get(path)?.version === remote.get(path)?.version));
  const inFolder = new Map<string, number>();
  for (const path of remote.keys()) if (!deleting.has(path)) inFolder.set(folderOf(path), (inFolder.get(folderOf(path)) ?? 0) + 1);
  for (const [i, path] of paths.entries()) {
    const local = locals[i]!;
    const synced = state.files.get(path);
    const expected = synced?.version ?? 0;
    const now = remote.get(path)?.version ?? 0;
    const remoteChanged = now !== expected;
    // The user's own from before the pull (SyncState.localOnly): sent only named.
    if (!synced && state.localOnly?.has(path) && !o.forcePaths.has(path)) {
      report.add("held", path, `local only: here before "${state.project}" was first pulled into this folder, so push sends it only named after --force: ${o.again("push", true)} PATH...`);
      continue;
    }
    // A local-only file moved or copied here (not an empty one, which is like any other): local only from now on, so
    // that an edit of the one it came from leaves it held.
    if (!synced && local.kind === "file" && local.bytes.length && localOnlyBytes.has(local.sha256) && !o.forcePaths.has(path)) {
      state.localOnly!.set(path, local.sha256);
      report.add("held", path, `the same as a local-only file here: it looks like one moved or copied, so push sends it only named after --force: ${o.again("push", true)} PATH...`);
      continue;
    }
    if (local.kind === "file" && local.sha256 === synced?.sha256) {
      report.unchanged++;
      // Not "pull brings it" of what pull leaves as it is here (review 113).
      if (!remoteChanged) continue;
      if (notCarried(path) || (!now && isInstallFile(path))) report.behindLeft++;
      else if (now && onlyYoursReason(path)) behindUnsure.push(path);
      else report.behind++;
      continue;
    }
    if (local.kind === "blocked") {
      refusals.push({ path, reason: local.error, fix: "" });
      continue;
    }
    // That file alone stays here, and keeps no other from going (reviews 102, 113; review 324: one memory file a member
    // wrote a secret into stopped every push). Once the remote holds no file there, yours goes as any other.
    if (synced?.redacted && now && !remoteChanged) {
      holdUnsent(path, servedAlteredHeld(o, local.kind === "missing"));
      continue;
    }
    // Changed on the remote too: its copy now is read first, --force or not, and the file held back where it is still
    // served altered (below); where it is no longer, a conflict as any other.
    const readFirst = remoteChanged && !!now && !!synced?.redacted;
    // What the remote takes no tool's change to (BMAD's scripts and install record, which an install or upgrade here
    // rewrites) stays here, named, and keeps no other from going (review 102: after a reinstall every push failed).
    if (local.kind !== "missing" || synced) {
      if (changeRefusal(path)) {
        report.add("held", path, "the remote takes no change to it (BMAD's scripts and install record are the remote's own): it stays here");
        continue;
      }
    }
    if (local.kind === "missing") {
      if (!synced) continue;
      if (now === 0) steps.push({ op: "forget", path });
      else if (remoteChanged && (!overrides(path) || readFirst)) {
        suspects.push({ path, reason: (read) => `deleted here, and ${changedThere(expected, now, read, " since the pull")}`, ...(forced(path) ? { forced: { op: "delete", path, ifVersion: now, over: expected } } : {}) });
      }
      else steps.push({ op: "delete", path, ifVersion: now, ...(remoteChanged ? { over: expected } : {}) });
      continue;
    }
    // A file the workspace cannot hold is left here, named, and keeps no other from going (review 64: one image in
    // _bmad-output/ stopped every push).
    if (local.kind === "large") {
      report.add("held", path, "larger than 1 MiB, the most a workspace file holds: split it to push it");
      continue;
    }
    const text = asText(local.bytes);
    if (text === undefined) {
      report.add("held", path, "not UTF-8 text (an image?), and a workspace holds text: it stays here");
      continue;
    }
    // A new name the remote makes no file by (`meeting 10:30.md`): said for what it is (review 118: refused at every
    // push, and named "not a document").
    const unportable = now ? undefined : unportableName(path);
    const held = unportable ? { why: unportable, unsent: true } : heldBack(path, text);
    if (held) {
      if (held.unsent) holdUnsent(path, held.why);
      else report.add("held", path, held.why);
      continue;
    }
    if (remoteChanged && (!overrides(path) || readFirst)) {
      const reason = (read: Remote<RemoteContent>) => (synced ? `changed here, and ${changedThere(expected, now, read, " since the pull")}` : "new here, and the remote has a file there since the pull");
      // Memory files and memlogs merge on pull (sync-pull.ts): no copy aside, no --force.
      if (now) suspects.push({ path, sha256: local.sha256, reason, ...(forced(path) ? { forced: { op: "write", path, text, sha256: local.sha256, ifVersion: now, kind: "updated", over: expected } } : {}), ...(synced ? { merges: { mine: local.bytes, synced } } : {}) });
      // Pull leaves BMAD's settings here when the remote deletes them: no pull brings that deletion.
      else if (isInstallFile(path)) report.add("held", path, keepsBoth("changed here, and deleted on the remote since the pull: a deletion of BMAD's settings is left to your hand", "Delete it here if you agree"));
      else refusals.push({ path, reason: "changed here, and deleted on the remote since the pull", fix: pullFirst(o, path) });
      continue;
    }
    // A new file in a folder that holds the most files one listing shows directly stays here: past it, no pull or push
    // could list that folder again (review 102: 4,773 files in one folder stopped both for good).
    const folder = folderOf(path);
    if (!now && (inFolder.get(folder) ?? 0) >= MAX_LISTED) {
      holdUnsent(path, `${folder} holds ${MAX_LISTED} files, the most sync lists in one folder: put it in a subfolder`);
      continue;
    }
    if (!now) inFolder.set(folder, (inFolder.get(folder) ?? 0) + 1);
    steps.push({ op: "write", path, text, sha256: local.sha256, ifVersion: now, kind: now ? "updated" : "added", ...(remoteChanged ? { over: expected } : {}) });
  }
  // A remote change that is this very content is no conflict; one by another member to a file pull takes only the
  // user's own of is none a pull resolves (review 113: the pull --force named left it, and every push stopped there).
  const reads = await mapLimited([...suspects.map((s) => s.path), ...behindUnsure], READS_AT_ONCE, (path) => o.workspace.read(path));
  for (const [i, suspect] of suspects.entries()) {
    const read = reads[i]!;
    const path = suspect.path;
    if (read.ok && !read.value.redacted && sha256(read.value.bytes) === suspect.sha256) {
      report.unchanged++;
      steps.push({ op: "record", path, version: read.value.version, sha256: suspect.sha256 });
    } else if (read.ok && read.value.byOthers && onlyYoursReason(path)) {
      const here = suspect.sha256 ? "yours here and the remote's differ" : "deleted here, and changed on the remote";
      report.add("held", path, keepsBoth(`${here} since the pull, and another member wrote some of the remote's`, "Read theirs with bmad-files and copy by hand what you trust"));
    } else if (read.ok && read.value.redacted && state.files.has(path)) {
      // As the pull leaves it, --force too: what push would send over the remote's is built from a copy missing some of it.
      holdUnsent(path, servedAlteredHeld(o, !suspect.sha256, remoteChange(state.files.get(path)!.version, read.value.version, read.value.author, " since the pull")));
    } else if (suspect.forced) steps.push(suspect.forced);
    else if (state.sent?.has(path)) refusals.push({ path, ...untoldSent(o, suspect.reason(read)) });
    else {
      // Where a pull would not merge a memory file or memlog, why (review 211: a merge past 1 MiB was advised).
      const refusal = { path, reason: suspect.reason(read), fix: pullFirst(o, path) };
      refusals.push(suspect.merges && read.ok ? await asPullMeetsIt(o, refusal, suspect.merges.mine, suspect.merges.synced, read.value) : refusal);
    }
  }
  for (let i = 0; i < behindUnsure.length; i++) {
    const read = reads[suspects.length + i]!;
    if (read.ok && read.value.byOthers) report.behindLeft++;
    else report.behind++;
  }
  if (refusals.length) return { ok: false, error: "Nothing was sent: these files changed on the remote since the pull, or cannot be pushed.", refusals };
  // Deletions first: a file renamed here only by case (`Plan.md` to `plan.md`) is one the remote refuses beside the
  // old name, which a folding file system reads as the same (review 49).
  const deleted = new Set(steps.flatMap((s) => (s.op === "delete" ? [s.path] : [])));
  const names = new FoldedNames([...remote.keys()].filter((path) => !deleted.has(path)));
  const toSend = steps.filter((step) => {
    if (step.op !== "write" || step.ifVersion) return true;
    // A name no workspace takes (a control character in it) is never sent, nor noted in the state as being sent.
    const named = checkWorkspacePath(step.path);
    const clash = named.ok ? clashNote(names, step.path) : named.error;
    if (clash) holdUnsent(step.path, clash);
    else names.add(step.path);
    return !clash;
  });
  return apply(o, state, [...toSend.filter((s) => s.op === "delete"), ...toSend.filter((s) => s.op !== "delete")], report, unsent);
}

/** What a step --force sends over the remote's change since the pull (`since`, the version pulled) says of it: whose
 *  change it replaced, as the file's history names who made its newest version (the remote's, where it names none). */
async function overNote(o: SyncOptions, step: { op: "write" | "delete"; path: string; ifVersion: number }, since: number): Promise<string> {
  // From just below the version now, the newest is on the first page; where the remote deleted it (no version now), from the pull's.
  const history = await o.workspace.history(step.path, step.ifVersion ? step.ifVersion - 1 : since);
  const newest = history.ok ? history.value.versions[0] : undefined;
  const whose = newest?.author ? `${newest.author}'s` : "the remote's";
  if (!step.ifVersion) return `--force brought it back over ${whose} deletion of it`;
  return step.op === "delete" ? `--force deleted ${whose} version ${step.ifVersion}` : `--force sent yours over ${whose} version ${step.ifVersion}; its history keeps it`;
}

/** One write or delete at a time, each recorded in the state as the remote confirms it. One the remote refuses is
 *  named, and the rest go on (review 113: one refused write stopped every push there); a call that fails stops it. */
async function apply(o: SyncOptions, state: SyncState, steps: Step[], report: Report, unsent: ReadonlySet<string>): Promise<SyncResult> {
  // What it is about to send, first: a push killed midway leaves a state that names it (SyncState.sent).
  const writes = steps.flatMap((step) => (step.op === "write" ? [[step.path, step.sha256] as const] : []));
  if (writes.length) {
    const noted = await saveState(o.dir, { ...state, sent: new Map([...(state.sent ?? []), ...writes]) });
    if (!noted.ok) return { ok: false, error: `Nothing was sent: cannot record the push: ${noted.error}`, report };
  }
  let failure: string | undefined;
  /** A change whose call got no answer, which may have landed all the same. */
  let unanswered = false;
  const refused: Refusal[] = [];
  for (const step of steps) {
    if (step.op === "forget" || step.op === "record") {
      if (step.op === "record") state.files.set(step.path, pushedRecord(state.files.get(step.path), step.version, step.sha256));
      else state.files.delete(step.path);
      state.sent?.delete(step.path);
      continue;
    }
    // Asked before the change: after it, the newest version is this push's own.
    const over = step.over === undefined ? undefined : await overNote(o, step, step.over);
    if (step.op === "delete") {
      const removed = await o.workspace.remove(step.path, step.ifVersion);
      const refusal = !removed.ok && removed.refused ? await refusalOf(o, state, step, removed.error) : undefined;
      if (refusal) {
        refused.push(refusal);
        continue;
      }
      if (!removed.ok && !removed.refused) {
        failure = `${step.path}: ${removed.error}`;
        unanswered = !removed.denied;
        break;
      }
      state.files.delete(step.path);
      state.sent?.delete(step.path);
      // Deleted on the remote by another member meanwhile: done, and not by this push.
      if (!removed.ok) continue;
      report.add("deleted", step.path, over ? `${over}; bmad-files restore brings it back` : "bmad-files restore brings it back");
      continue;
    }
    const written = await o.workspace.write(step.path, step.text, step.ifVersion);
    if (!written.ok && written.refused) {
      refused.push((await refusalOf(o, state, step, written.error))!);
      continue;
    }
    if (!written.ok) {
      failure = `${step.path}: ${written.error}`;
      // Unless the server turned it away (review 333: a read-only token's 403 was told it may have landed), it may
      // have landed before the answer was lost: the next pull or push asks the remote.
      unanswered = !written.denied;
      if (unanswered) (state.sent ??= new Map()).set(step.path, step.sha256);
      break;
    }
    state.files.set(step.path, pushedRecord(state.files.get(step.path), written.value, step.sha256));
    state.sent?.delete(step.path);
    report.add(step.kind, step.path, `now version ${written.value}${over ? `; ${over}` : ""}`);
  }
  const saved = await saveState(o.dir, state);
  const sent = report.changes.some((c) => c.kind === "added" || c.kind === "updated" || c.kind === "deleted");
  if (failure || !saved.ok) {
    // Not "nothing was sent" of a change that may have landed (review 211).
    const maybe = unanswered ? " The change may have reached the remote before the answer was lost: push again (or pull) finds out." : "";
    const why = failure ?? `cannot record the push: ${saved.ok ? "" : saved.error}`;
    if (!sent && !unanswered) return { ok: false, error: `Nothing was sent: ${sentence(why)}`, refusals: refused, report };
    const done = sent ? `${maybe} The files above were sent before it stopped; push again to send the rest.` : `${maybe} Nothing else was sent.`;
    return { ok: false, error: `${sentence(why)}${done}`, refusals: refused, report };
  }
  if (refused.length) return { ok: false, error: `The remote refused the files below, each for the reason it gives; ${sent ? "the files above were sent" : "nothing was sent"}.`, refusals: refused, report };
  // A file named after --force, or made or changed here, and held back is no success for a script that checks the exit
  // code (reviews 313, 324): its document never reached the remote.
  const heldOf = (named: (path: string) => boolean, what: string) => {
    const paths = report.changes.filter((c) => c.kind === "held" && named(c.path)).map((c) => printable(c.path));
    const listed = paths.length > 3 ? `${paths.slice(0, 3).join(", ")} and ${paths.length - 3} more` : paths.join(", ");
    return paths.length ? [`${listed}, ${what}, ${paths.length === 1 ? "was" : "were"} held back for the reason above`] : [];
  };
  const held = [...heldOf((path) => o.forcePaths.has(path), "named after --force"), ...heldOf((path) => unsent.has(path) && !o.forcePaths.has(path), "made or changed here")];
  return held.length ? { ok: true, report, unsent: `${held.join("; ")}; ${sent ? "the files above were sent" : "nothing was sent"}.` } : { ok: true, report };
}
