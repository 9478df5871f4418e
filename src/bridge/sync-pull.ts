// bmad-mcp pull: the workspace's files into a folder, through the confined writer. A file changed here since
// the last pull is never overwritten without --force: when the remote changed it too the pull refuses (nothing
// is written), otherwise the local change is kept for push, --force or not (it resolves conflicts alone). Files deleted on the remote are deleted here when
// unchanged here. Memory files changed on both sides are merged (what either side added or removed) rather than refused,
// and so are memlogs both sides appended to.
// The state file records each file's version as it is written, so a failure midway leaves a folder whose state says
// exactly what it holds; and names the writes under way before they start, so a kill midway leaves one that can tell.
import { basename } from "node:path";
import { fileStamp, landingRefusal, removeConfined, writeConfined } from "./confined-fs.js";
import { withFileLock } from "./file-lock.js";
import { keepReplaced, keptRoom, landedOrDropped, noteWrite, PULL_LIMITS, type Replaced } from "./kept-versions.js";
import { filesHere, type Here, inSyncFolders, isLitter, type Local, readLocal, type Refusal, Report, sentence, sha256, shellWord, standingAt, SYNC_FOLDERS, SYNC_FOLDERS_TEXT, walkCutRefusal } from "./sync.js";
import { isInstallFile, isPersonalFile, notCarried, pullLeaves, seededIgnore } from "../core/workspace/sync-kinds.js";
import { mapLimited } from "../core/map-limited.js";
import type { Remote, RemoteContent, RemoteWorkspace } from "./sync-remote.js";
import { loadState, localOnlyHere, localOnlyPaths, MAX_MEMORY_BY_CHARS, pulledRecord, saveState, settleSent, type SyncedFile, type SyncState } from "./sync-state.js";
import type { Result } from "../core/result.js";
import { parseMemoryLines, structuredType } from "../core/memory/files.js";
import { othersOn, type ByOthers } from "../core/workspace/line-authors.js";
import { changeRefusal, isScriptPath, printable, showTwins, TWIN_DIFFERENCE } from "../core/workspace/paths.js";
import { FoldedNames } from "../core/workspace/folded-names.js";
import { MAX_PROJECT_BYTES, MIB } from "../core/workspace/limits.js";
import { scriptPlace, type BmadScripts } from "../core/runtime/scripts.js";
import { isMemlogPath } from "../core/runtime/memlog-text.js";
import { conflictFix, mergeBothWays, remoteChange, servedAlteredHeld, untoldSent } from "./sync-merge.js";
import { CENTRAL_LAYERS } from "../core/runtime/config-utils.js";

export interface SyncOptions {
  dir: string;
  remote: string;
  workspace: RemoteWorkspace;
  force: boolean;
  /** The files push's --force names: then it sends those alone over the remote's, and only so BMAD's settings or a
   *  personal file another member wrote some of (sync-push.ts). */
  forcePaths: ReadonlySet<string>;
  /** BMAD's own scripts (the bundle this CLI ships) by place: a script is pulled only with BMAD's bytes for its place. */
  bmadScripts: BmadScripts;
  /** The command line that runs pull or push again here, for the fixes a refusal names; `paths` after --force (push's). */
  again: (command: "pull" | "push", force: boolean, paths?: readonly string[]) => string;
  /** Says a notice on the terminal as it comes (stderr): what is said whether the command goes on or not. */
  say: (message: string) => void;
}

/** `unsent`: done, but files push held back never reached the remote (sync-push.ts): said after the report, exit 1. */
export type SyncResult = Result<{ report: Report; unsent?: string }, { refusals?: Refusal[]; report?: Report }>;

/** What the local file was when the pull decided (its sha256, "missing" or "large"): a change lands only on that. */
type Seen = string;
const seen = (local: Local): Seen => (local.kind === "file" ? local.sha256 : local.kind);

type Step =
  /** `merged`: written instead of the remote's content, which is still what the state records (push sends it).
   *  `replaces`: a change here that --force lets the remote's win over. */
  | { op: "write"; path: string; content: RemoteContent; kind: "added" | "updated"; merged?: Uint8Array; seen: Seen; replaces?: true }
  /** `note`: why a file of the user's goes (with --force, in the way of the remote's `for`); `replaces` as above. */
  | { op: "delete"; path: string; seen: Seen; note?: string; for?: string; replaces?: true }
  /** No one's content (isLitter) in a folder the pull takes away: gone with it, unkept, unreported. */
  | { op: "litter"; path: string; for: string }
  | { op: "record"; path: string; file: SyncedFile | undefined };

const READS_AT_ONCE = 8;

export async function pull(o: SyncOptions): Promise<SyncResult> {
  const loaded = await loadState(o.dir);
  if (!loaded.ok) return loaded;
  if (loaded.ignored) o.say(loaded.ignored);
  let before = loaded.state;
  const project = o.workspace.project;
  if (before && (before.remote !== o.remote || before.project !== project)) {
    if (!o.force) {
      return { ok: false, error: `${o.dir} holds a pull of "${before.project}" from ${before.remote}, not of "${project}" from ${o.remote}. Pull into another folder, or add --force to make this folder a copy of "${project}" (files that differ are overwritten; those it does not have stay here, yours alone).` };
    }
    before = undefined; // a copy of another project: nothing here was pulled from this one
  }
  const listed = await o.workspace.list();
  if (!listed.ok) return listed;
  const remote = listed.value;
  if (before) await settleSent(before, remote, o.workspace);
  // What was here before this folder held a pull of this project is the user's own, however like the project's its
  // folders: push sends none of it unless named (review 211: another project's files, and private documents, went to
  // every member of a shared one). What this pull brings, or finds alike, gets a record and is the project's.
  // The files here, walked once for a pull: what a first one records, and what a twin of the remote's is looked for in.
  let walked: Promise<Here> | undefined;
  const here = async () => (await (walked ??= filesHere(o.dir))).files;
  if (!before) {
    const { cut } = await (walked ??= filesHere(o.dir));
    if (cut.length) return { ok: false, error: walkCutRefusal(o.dir, cut, "nothing was pulled.") };
  }
  const localOnly = before ? before.localOnly : await localOnlyHere(o.dir, await here());
  const known = before?.files ?? new Map<string, SyncedFile>();
  const paths = [...new Set([...remote.keys(), ...known.keys()])].sort();
  const locals = await mapLimited(paths, READS_AT_ONCE, (path) => readLocal(o.dir, path));

  const report = new Report();
  const refusals: Refusal[] = [];
  const steps: Step[] = [];
  const fetches: Array<{ path: string; local: Local; synced: SyncedFile | undefined; localChanged: boolean }> = [];
  /** Paths whose name stands here as the other kind (a folder, or a file above them): decided once the deletions are known. */
  const inWay: Array<{ path: string; local: Extract<Local, { kind: "blocked" }> }> = [];
  /** What each change replaces here, as read: what it keeps a copy of. */
  const localOf = new Map(paths.map((path, i) => [path, locals[i]!]));
  /** Paths written once the deletions named go: held back with any of them. */
  const clearedBy = new Map<string, string[]>();
  const decide = (path: string, local: Local) => {
    // A file a killed pull wrote holds the bytes it was writing: pulled, whatever the record says.
    const synced = pulledRecord(before, path, local);
    const r = remote.get(path);
    // Outside the folders sync carries, the remote's file stays there: the user's own files are theirs.
    const left = r && pullLeaves(path);
    if (left) {
      report.add("left", path, left);
      if (synced) steps.push({ op: "record", path, file: synced });
      return;
    }
    if (local.kind === "blocked" && !local.inWay && linkOut(local.error)) {
      report.add("left", path, linkOutNote(local.error.slice(path.length + 2)));
      if (synced) steps.push({ op: "record", path, file: synced });
      return;
    }
    if (local.kind === "blocked") return void (local.inWay ? inWay.push({ path, local }) : refusals.push({ path, reason: local.error, fix: "" }));
    const localChanged = local.kind === "missing" ? synced !== undefined : local.kind === "large" || local.sha256 !== synced?.sha256;
    // BMAD's settings here go by the user's hand alone: who deleted them on the remote is not known here (review 62: a
    // member's deletion of the owner's config.yaml went with the owner's pull).
    if (!r && synced && local.kind !== "missing" && isInstallFile(path) && inSyncFolders(path)) {
      report.add("left", path, "BMAD's settings, deleted on the remote: yours here stay until you delete them");
      return void steps.push({ op: "record", path, file: synced });
    }
    if (!r) return planRemoteDeletion(o, path, local, synced, localChanged, { refusals, steps });
    const remoteChanged = synced?.version !== r.version;
    if (!remoteChanged && !localChanged) {
      report.unchanged++;
      steps.push({ op: "record", path, file: synced });
    } else if (!remoteChanged && !synced?.redacted) {
      // --force too: it lets the remote's win over a conflict, and this is none (review 235: it overwrote an edit here).
      report.add("kept", path, local.kind === "missing" ? "deleted here; push deletes it on the remote" : "changed here; push sends it");
      steps.push({ op: "record", path, file: synced });
    } else if (!remoteChanged && !o.force) {
      // A change here to a copy the remote served altered, which push holds back: a conflict only --force resolves, by
      // the remote's served copy; yours stays until then (review 324: this said "push sends it", and push refused it).
      report.add("kept", path, servedAlteredHeld(o, local.kind === "missing"));
      steps.push({ op: "record", path, file: synced });
    } else fetches.push({ path, local, synced, localChanged });
  };
  paths.forEach((path, i) => decide(path, locals[i]!));
  // A file where the workspace now has a folder of its name, or a folder where it has a file: free once this pull
  // deletes what stands there (pulled, unchanged here, deleted on the remote; deletions go first). A pulled file
  // replaced so here is deleted here, kept for push, unless the remote's is to be written there. What else stands there
  // holds back that path alone: the user's own, or BMAD's settings, are `left`; --force replaces the user's own.
  const deleting = new Set(steps.flatMap((step) => (step.op === "delete" ? [step.path] : [])));
  for (const { path, local } of inWay) {
    const synced = known.get(path);
    const r = remote.get(path);
    const at = local.inWay!;
    const standing = await standingAt(o.dir, at);
    const freed = at === path ? standing?.files.every((file) => deleting.has(file)) : deleting.has(at);
    const clearLitter = () => standing?.litter.forEach((file) => steps.push({ op: "litter", path: file, for: path }));
    if (freed || (synced && (!r || r.version === synced.version))) {
      if (freed) clearLitter(), clearedBy.set(path, at === path ? standing!.files : [at]);
      decide(path, { kind: "missing" });
      continue;
    }
    // BMAD's settings stay here whatever the remote did (as its deletion of them does): what they stand in the way of
    // stays on the remote, and no advice moves them (review 171: a member's file below config.toml stopped every pull).
    const settings = [at, ...(standing?.files ?? [])].find(isInstallFile);
    if (settings) {
      report.add("left", path, `in the way of BMAD's settings here, ${settings}, which go by your hand alone`);
      if (synced) steps.push({ op: "record", path, file: synced });
      continue;
    }
    const mine = standing?.files.filter((file) => !deleting.has(file));
    // A pulled file changed here stands there: its own refusal says how to go on.
    if (mine?.some((file) => known.has(file))) {
      refusals.push({ path, reason: local.error, fix: "" });
      continue;
    }
    // --force lets the remote's win here too: what stands there goes, each file kept a week as every pull's change is.
    const reads = mine && o.force ? await mapLimited(mine, READS_AT_ONCE, (file) => readLocal(o.dir, file)) : undefined;
    if (mine && reads?.every((read) => read.kind === "file")) {
      for (const [i, file] of mine.entries()) {
        deleting.add(file);
        localOf.set(file, reads[i]!);
        steps.push({ op: "delete", path: file, seen: seen(reads[i]!), note: `in the way of the remote's ${path}`, for: path, replaces: true });
      }
      clearLitter();
      decide(path, { kind: "missing" });
    } else if (synced && mine && !o.force) {
      // A pulled file replaced here, changed on the remote: a conflict, whose pull --force clears the way.
      decide(path, { kind: "missing" });
    } else if (synced) refusals.push({ path, reason: local.error, fix: "" });
    else {
      // The user's own, never pulled: held back, as push holds back a name the remote has as the other kind.
      const [here, there] = at === path ? ["folder", "file"] : ["file", "folder"];
      const replace = mine && !o.force ? `, or let the remote's replace it: ${o.again("pull", true)} (yours is kept a week among the bridge's copies)` : "";
      report.add("left", path, `${at} here is a ${here} of yours where the workspace has a ${there}: move it aside to pull this${replace}`);
    }
  }
  // A name the remote's is here spelled otherwise (foldPath): on macOS and Windows its write would land on that file,
  // on Linux stand beside it, alike to the eye (review 324: a member's plan\u200d.md, report.md and an NFD résumé.md
  // were added beside the owner's own, never pushed, and would have replaced them on APFS). Left, as push holds one back.
  const removing = new Set(steps.flatMap((step) => (step.op === "delete" || step.op === "litter" ? [step.path] : [])));
  const twins = await twinsHere(here, fetches.flatMap((f) => (f.local.kind === "missing" ? [f.path] : [])), removing);
  for (const [path, note] of twins) report.add("left", path, note);
  for (const f of fetches) if (twins.has(f.path) && f.synced) steps.push({ op: "record", path: f.path, file: f.synced });
  const fetching = fetches.filter((f) => !twins.has(f.path));
  // Refused here or not, the rest are read and judged too: the user sees every conflict before any --force (review
  // 264: a pull named one file in the way, and the --force it advised replaced two more it never named).

  // The remote's new versions, read before deciding: a local copy already equal to one is no conflict. They are held
  // until the plan is whole, so their running total is held to what a workspace holds (a hostile remote's 600 files
  // of 1 MiB were 781 MB held and 594 MiB written, review 27).
  let held = 0;
  const tooMuch: Remote<never> = { ok: false, error: `the remote's files add up to more than ${MAX_PROJECT_BYTES / MIB} MiB, more than a workspace holds. Check that --remote names a bmad-mcp server.` };
  const contents = await mapLimited(fetching, READS_AT_ONCE, async (f) => {
    if (held > MAX_PROJECT_BYTES) return tooMuch;
    const read = await o.workspace.read(f.path);
    if (read.ok) held += read.value.bytes.length;
    return held > MAX_PROJECT_BYTES ? tooMuch : read;
  });
  /** BMAD's settings and steps another member had a hand in, left on the remote: the way on is said once, after them. */
  let settingsLeft = 0;
  /** The user's own install of BMAD here, which no pull brought: kept, said once with what the remote's settings say otherwise. */
  const ownInstall: Array<{ path: string; local: Local; remote: Uint8Array }> = [];
  for (const [i, f] of fetching.entries()) {
    const read = contents[i]!;
    if (!read.ok) {
      // Deleted on the remote since the listing (a collaborator at work): decided as if the listing had not had it.
      const now = read.refused ? await o.workspace.version(f.path) : undefined;
      if (now?.ok && now.value === 0) {
        remote.delete(f.path);
        decide(f.path, f.local);
        continue;
      }
      return { ok: false, error: `Nothing was changed: ${read.error}` };
    }
    const content = read.value;
    const seed = seededIgnore(f.path);
    if (seed !== undefined && new TextDecoder().decode(content.bytes) !== seed) {
      report.add("left", f.path, "a .gitignore other than the one BMAD's installer writes here: copy it by hand after reading it");
      if (f.synced) steps.push({ op: "record", path: f.path, file: f.synced });
      continue;
    }
    const onlyYours = onlyYoursReason(f.path);
    if (onlyYours && content.byOthers) {
      report.add("left", f.path, onlyYours);
      if (isInstallFile(f.path)) settingsLeft++;
      if (f.synced) steps.push({ op: "record", path: f.path, file: f.synced });
      continue;
    }
    const script = notBmadScript(o, f.path, content.bytes);
    if (script) {
      refusals.push({ path: f.path, reason: script, fix: "reinstall BMAD here for its scripts; copy your own by hand after reading them" });
      continue;
    }
    if (f.local.kind === "file" && f.local.sha256 === sha256(content.bytes)) {
      report.unchanged++;
      steps.push({ op: "record", path: f.path, file: recordOf(content) });
      continue;
    }
    // BMAD's installation here that no pull (of any project) brought is the user's own, written by their installer with
    // their answers: kept, --force too (review 248: a first pull into an install refused its manifests and config, which
    // differed in install dates and user_name alone, and --force set user_name to the remote's).
    if (!f.synced && !loaded.state?.files.has(f.path) && f.local.kind !== "missing" && isInstallFile(f.path)) {
      ownInstall.push({ path: f.path, local: f.local, remote: content.bytes });
      continue;
    }
    // Memory files and memlogs merge (the project's copy then differs, push sends it), under --force too: it decides
    // only what truly conflicts (review 358: a memlog's entries here went when another file of the pull conflicted).
    // The remote's change may be the user's own push (its answer lost): no merge, which could add their entries twice.
    const untold = before?.sent?.has(f.path);
    const merge = f.localChanged && !untold && f.local.kind === "file" ? await mergeBothWays(o, f.path, f.local.bytes, f.synced, content) : undefined;
    if (merge?.ok) {
      steps.push({ op: "write", path: f.path, content, kind: "updated", merged: merge.bytes, seen: seen(f.local) });
      continue;
    }
    if (!f.localChanged || o.force) {
      steps.push({ op: "write", path: f.path, content, kind: f.local.kind === "missing" ? "added" : "updated", seen: seen(f.local), ...(f.localChanged ? { replaces: true as const } : {}) });
      continue;
    }
    const reason = !f.synced ? `exists here but was not pulled, and differs from the remote's version ${content.version}` : `${f.local.kind === "missing" ? "deleted" : "changed"} here since the pull, and ${remoteChange(f.synced.version, content.version, content.author)}`;
    if (untold) {
      refusals.push({ path: f.path, ...untoldSent(o, reason) });
      continue;
    }
    // Changed on both sides, the remote's copy served altered: nothing built from it is sent, a merge neither, so yours
    // stays as it is, and its record (the remote's change is not here); push holds it back in the same words.
    if (content.redacted && f.synced) {
      report.add("left", f.path, servedAlteredHeld(o, f.local.kind === "missing", remoteChange(f.synced.version, content.version, content.author, " since the pull")));
      steps.push({ op: "record", path: f.path, file: f.synced });
      continue;
    }
    if (merge?.oversize) {
      // That file alone waits, yours here, the rest pulled: a file the remote cannot hold is never written here.
      report.add("left", f.path, `${merge.error}: ${merge.fix}`);
      if (f.synced) steps.push({ op: "record", path: f.path, file: f.synced });
    } else if (merge) refusals.push({ path: f.path, reason: merge.error, fix: merge.fix });
    else {
      refusals.push({
        path: f.path,
        reason,
        fix: f.synced ? conflictFix(o, f.path, "the remote's change since") : `move yours aside and pull, or let the remote's overwrite it: ${o.again("pull", true)}`,
      });
    }
  }
  // Where each change really lands, through the folder's own symlinks: refused before anything is written. One a
  // symlink of the user's leads out of the project is left, the rest pulled (review 343: a member's file at a link's
  // name stopped every pull, and the fix offered was to remove the user's own link); one a link turns into machinery,
  // settings or a script still stops the pull.
  for (const step of [...steps]) {
    if (step.op === "record") continue;
    const refuse = step.op === "litter" ? litterLanding(o) : pullLanding(o, step.op === "write" ? (step.merged ?? step.content.bytes) : undefined, step.op === "write" && step.content.byOthers);
    const refused = await landingRefusal(o.dir, step.path, { refuse });
    if (!refused) continue;
    const reason = refused.error.slice(step.path.length + 2);
    if (linkOut(reason)) {
      steps.splice(steps.indexOf(step), 1);
      report.add("left", step.path, linkOutNote(reason));
    } else {
      const fix = /symlink/.test(reason) ? "remove the symlink that leads there, or pull into a folder without it" : "it stays on the remote: whoever wrote it there renames or removes it, if it should come here";
      refusals.push({ path: step.path, reason, fix });
    }
  }
  if (refusals.length) return { ok: false, error: "Nothing was changed: the pull stops at these files, each for the reason it gives.", refusals };
  const ownNote = ownInstall.length ? ownInstallNote(ownInstall) : "";
  for (const { path } of ownInstall) report.add("kept", path, ownNote, true);
  if (settingsLeft) report.after.push(settingsWayOn(o, settingsLeft, await installedHere(o, steps), remote.keys()));
  const keeping = await holdBackUnkept(o, steps, { localOf, clearedBy, known, report });
  // Deletions first: a file the remote replaced by a folder of its name goes before the folder's files come.
  const clearing = (step: Step) => step.op === "delete" || step.op === "litter";
  // A push whose landing the remote's history could not tell (settleSent) stays to be asked again, until this pull writes the file.
  const sent = before?.sent;
  const state: SyncState = { remote: o.remote, project, files: new Map(known), ...(sent?.size ? { sent } : {}), ...(localOnly?.size ? { localOnly } : {}) };
  const done = await apply(o, state, [...keeping.filter(clearing), ...keeping.filter((step) => !clearing(step))], report);
  if (done.ok && !before) {
    const sendOne = `${o.again("push", true)} PATH...`;
    // The user's own install is said once, kept above: push holds it back too, and it is not for sending.
    const own = new Set(ownInstall.map((k) => k.path));
    for (const path of localOnlyPaths(state).filter((p) => !own.has(p))) report.add("local", path, `here before this pull, and not the project's: push holds it back, yours alone, unless you name it after --force: ${sendOne}`);
  }
  return done;
}

/** Whether a refusal is of a symlink of the user's that leads out of the project (confined-fs's "outside"). */
const linkOut = (reason: string) => /leads outside the project .* through a symlink/.test(reason);
/** What pull says of a file it leaves for such a link: nothing is written through it, and the rest is pulled. */
const linkOutNote = (reason: string) => `a symlink of yours is on its way: ${reason.replace(/; refused\.[^]*$/, "")}; the remote's file stays there, and nothing goes through the link`;

/** BMAD's config files, whose `key: value` (YAML) and `key = value` (TOML) lines are settings a team may set. */
const CONFIG_FILE = /(^|\/)config(\.user)?\.(ya?ml|toml)$/;
/** The value is trimmed after: `(.+?)\s*$` backtracked over a long run of spaces (quadratic in a collaborator's line). */
const SETTING_LINE = /^\s*([\w.-]+)\s*[:=](.*)$/;
/** How many of the remote's settings one line names. */
const SETTINGS_NAMED = 6;

/** Why the user's own install stays here, and the settings the remote's config files hold that theirs here do not
 *  (its manifests differ in install dates alone): what a team may have set, for the user to copy if they want it. */
function ownInstallNote(kept: Array<{ path: string; local: Local; remote: Uint8Array }>): string {
  const settings = (bytes: Uint8Array) =>
    new TextDecoder().decode(bytes).split("\n").flatMap((line) => {
      const m = line.trimStart().startsWith("#") ? null : SETTING_LINE.exec(line);
      const value = m?.[2]!.trim();
      return value ? [`${m![1]}: ${value.replace(/^"(.*)"$/, "$1")}`.slice(0, 100)] : [];
    });
  const there = new Set(kept.flatMap(({ path, local, remote }) => {
    if (!CONFIG_FILE.test(path) || local.kind !== "file") return [];
    const here = new Set(settings(local.bytes));
    return settings(remote).filter((setting) => !here.has(setting));
  }));
  const named = [...there].slice(0, SETTINGS_NAMED).join(", ") + (there.size > SETTINGS_NAMED ? ` and ${there.size - SETTINGS_NAMED} more` : "");
  const mine = "your own install of BMAD, which no pull brought here: a pull keeps it, --force too; delete a file of it to take the remote's";
  return there.size ? `${mine}. The remote's settings differ: ${named}; set here any you want` : mine;
}

/** BMAD's installer's id for a module: what `--modules` takes (`bmm`, `cis`), nothing a remote could make more of. */
const MODULE_ID = /^[a-z][a-z0-9-]{0,39}$/;

/** BMAD's config, which its scripts read first: either here means BMAD is installed here (6.3+ writes
 *  `_bmad/config.toml`, the first of the central layers; earlier 6.x `_bmad/core/config.yaml`). */
const INSTALLED_CONFIGS = [CENTRAL_LAYERS[0]!, "_bmad/core/config.yaml"];

/** Whether BMAD is installed in the folder once this pull is done: its config is here, or the pull writes it. */
async function installedHere(o: SyncOptions, steps: Step[]): Promise<boolean> {
  for (const path of INSTALLED_CONFIGS) {
    if (steps.some((step) => step.op === "write" && step.path === path)) return true;
    const local = await readLocal(o.dir, path);
    if (local.kind === "file" || local.kind === "large") return true;
  }
  return false;
}

/** Once, for BMAD's settings and steps left on the remote (review 188: a member's pull left all 16 of the installer's
 *  files, each line saying why at length, and BMAD's scripts then found no config here): where BMAD is not installed
 *  here, its installer makes the user's own, for the modules the workspace has (each `_bmad/<module>/config.yaml` it
 *  holds); where it is, the installer's advice fits no longer (review 204), and theirs are read and copied by hand. */
function settingsWayOn(o: SyncOptions, n: number, installed: boolean, remotePaths: Iterable<string>): string {
  const head = `${n === 1 ? "One of BMAD's settings or steps is" : `${n} of BMAD's settings and steps are`} left on the remote above: another member wrote some of ${n === 1 ? "it" : "each"}, and a pull takes only your own there`;
  if (installed) return `${head}: read theirs with bmad-files (or on the remote), and copy by hand what you trust.`;
  const modules = [...remotePaths].flatMap((path) => {
    const [top, module, name, more] = path.split("/");
    return top === "_bmad" && name === "config.yaml" && more === undefined && module !== "core" && MODULE_ID.test(module!) ? [module!] : [];
  });
  const install = ["npx", "bmad-method", "install", "--directory", o.dir, "--modules", modules.slice(0, 20).join(",") || "core", "--tools", "claude-code", "--yes"].map(shellWord).join(" ");
  return `${head}. For BMAD to run here, make your own with its installer: ${install} (--tools names your agent; --list-tools lists them). Or read theirs with bmad-files, and copy by hand what you trust.`;
}

/** The steps whose copies of what they replace all fit in the room the bridge's kept copies leave, known before any is
 *  taken: those of a path that do not all fit are held back whole, `left` (review 175: a pull --force deleted 2,000 of
 *  the user's files, each kept, then stopped with the budget full, the rest of them in the way and the remote's file
 *  never written). A path whose way a held-back deletion was to clear is held back with it. */
async function holdBackUnkept(o: SyncOptions, steps: Step[], plan: { localOf: Map<string, Local>; clearedBy: Map<string, string[]>; known: Map<string, SyncedFile>; report: Report }): Promise<Step[]> {
  if (!steps.some((step) => (step.op === "delete" || step.op === "write") && step.seen !== "missing")) return steps; // nothing to keep
  const forPath = (step: Step) => (step.op === "delete" || step.op === "litter" ? (step.for ?? step.path) : step.path);
  const byPath = new Map<string, Step[]>();
  for (const step of steps) if (step.op !== "record") byPath.set(forPath(step), [...(byPath.get(forPath(step)) ?? []), step]);
  const room = await keptRoom(o.dir, new Date(), PULL_LIMITS);
  const held = new Map<string, string>();
  for (const [path, group] of byPath) {
    const copies: Replaced[] = [];
    for (const step of group) {
      if (step.op === "litter" || step.op === "record" || step.seen === "missing") continue;
      const local = plan.localOf.get(step.path);
      if (local?.kind === "file") copies.push({ path: step.path, bytes: local.bytes });
      else held.set(path, `${step.path} here is too large to keep a copy of before the pull replaces it: move it aside, then pull again`);
    }
    if (held.has(path) || (await room.take(copies))) continue;
    const [n, them] = copies.length === 1 ? ["a file", "it"] : [`${copies.length.toLocaleString("en-US")} files`, "them"];
    held.set(path, `replacing what is here (${n}) keeps a copy of ${copies.length === 1 ? "it" : "each"}, and the bridge has room for ${room.left()}: commit ${them} to git and remove ${them} here, or move ${them} aside, then pull again`);
  }
  const ownerOf = new Map(steps.flatMap((step): Array<[string, string]> => (step.op === "delete" ? [[step.path, forPath(step)]] : [])));
  for (const [path, waits] of plan.clearedBy) {
    const waiting = held.has(path) ? undefined : waits.find((file) => held.has(ownerOf.get(file) ?? file));
    if (waiting) held.set(path, `${waiting} stands in its way, and its deletion is held back above`);
  }
  for (const [path, why] of held) plan.report.add("left", path, why);
  return steps.flatMap((step): Step[] => {
    if (step.op === "record" || !held.has(forPath(step))) return [step];
    // Held back whole: the record stays as it was, and so does what stands here.
    const synced = step.path === forPath(step) ? plan.known.get(step.path) : undefined;
    return synced ? [{ op: "record", path: step.path, file: synced }] : [];
  });
}

/** Why each of `paths` (names not here as spelled) is not written beside a name here that folds as it does (FoldedNames:
 *  a file, a file where it needs a folder, or a folder of its name), by path. What the pull removes (`removing`) stands
 *  in no way: a rename by case on the remote, a folder it replaces by a file. The disk's names (`filesHere`, the pull's
 *  one walk) are folded once, and only when there are new names to look for. */
async function twinsHere(filesHere: () => Promise<string[]>, paths: string[], removing: ReadonlySet<string>): Promise<Map<string, string>> {
  const notes = new Map<string, string>();
  if (!paths.length) return notes;
  const here = new FoldedNames((await filesHere()).filter((path) => !removing.has(path)));
  const why = "a name macOS and Windows read as this one, or that prints as it";
  for (const path of paths) {
    const found = here.clash(path);
    if (found?.kind === "file") {
      const shown = showTwins(path, found.at, printable);
      const [theirs, yours] = [shown(path), shown(found.at)];
      notes.set(path, `${yours} is here, ${why} (${theirs}: ${TWIN_DIFFERENCE}), so the pull writes nothing beside it: rename yours to pull this`);
    } else if (found?.kind === "above") {
      notes.set(path, `${printable(found.at)} is a file here, ${why.replace("this one", "this one's folder")} (${TWIN_DIFFERENCE}), so the pull writes nothing below it: rename yours to pull this`);
    } else if (found?.kind === "folder") {
      const folder = found.below.split("/").slice(0, path.split("/").length).join("/");
      notes.set(path, `${printable(folder)} is a folder here (it holds ${printable(found.below)}), ${why} (${TWIN_DIFFERENCE}), so the pull writes nothing beside it: rename yours to pull this`);
    } else if (found?.kind === "folder twin") {
      // macOS and Windows would put it in yours, Linux in a second folder beside it.
      const shown = showTwins(found.mine, found.at, printable);
      notes.set(path, `${shown(found.at)} is a folder here (it holds ${printable(found.below)}), ${why.replace("this one", "this one's folder")} (${shown(found.mine)}: ${TWIN_DIFFERENCE}), so the pull writes nothing in or beside it: rename your folder to ${shown(found.mine)} to pull this`);
    }
  }
  return notes;
}

function planRemoteDeletion(o: SyncOptions, path: string, local: Local, synced: SyncedFile | undefined, localChanged: boolean, into: { refusals: Refusal[]; steps: Step[] }): void {
  if (local.kind === "missing") return void into.steps.push({ op: "record", path, file: undefined });
  // Outside the folders sync carries (a record from a pull before they were the rule): the file is the user's now.
  if (!inSyncFolders(path)) return void into.steps.push({ op: "record", path, file: undefined });
  if (!synced) return; // a local file the workspace never had: not pull's business
  if (localChanged && !o.force) {
    return void into.refusals.push({ path, reason: "changed here since the pull, and deleted on the remote", fix: `delete yours: ${o.again("pull", true)}; keep it: ${o.again("push", true, [path])}` });
  }
  into.steps.push({ op: "delete", path, seen: seen(local), ...(localChanged ? { note: "changed here, deleted on the remote", replaces: true as const } : {}) });
}

/** Why `bytes` may not be written at `path` as a script: a pull writes none but BMAD's own. */
function notBmadScript(o: SyncOptions, path: string, bytes: Uint8Array): string | undefined {
  if (!isScriptPath(path)) return undefined;
  const place = scriptPlace(path);
  return place && o.bmadScripts.get(place)?.has(sha256(bytes)) ? undefined : "is a script whose bytes are not BMAD's own for that place: a pull writes no code anyone could have changed";
}

/** A pull's rule for where a file really lands (after the folder's symlinks): nothing that decides what runs but
 *  the install record, and scripts only with BMAD's own bytes. The remote's names were checked too, but a symlink
 *  here (`hooks -> .git/hooks`) makes a harmless name land somewhere else. */
const pullLanding = (o: SyncOptions, bytes?: Uint8Array, byOthers = false) => (real: string) =>
  changeRefusal(real, { pulled: true }) ?? (bytes ? (notBmadScript(o, real, bytes) ?? notCarried(real)) : undefined) ?? (inSyncFolders(real) ? undefined : `lands outside ${SYNC_FOLDERS_TEXT}, the folders pull writes`) ??
  // A deletion on the remote leaves BMAD's settings here, however they are reached (review 66: through a symlink).
  (!bytes && isInstallFile(real) ? `lands in ${real}, BMAD's settings, which a deletion on the remote leaves to your hand` : undefined) ??
  // Where it really lands, another member's file is judged as it would be there (review 56: a link into _bmad/custom/).
  (byOthers && onlyYoursReason(real) ? `lands in ${real}, BMAD's settings or a personal file, and another member wrote some of it: a pull takes only your own there` : undefined);

/** Where litter may be removed: wherever it really lands in the folders pull writes (a dot-file anywhere else is a tool's). */
const litterLanding = (o: SyncOptions) => (real: string) => (isLitter(basename(real)) && inSyncFolders(real) ? undefined : pullLanding(o)(real));

/** The folders a deletion takes with it once empty: those inside the folders sync carries, never those folders. */
const emptiedInSync = (dir: string) => SYNC_FOLDERS.some((folder) => `${dir}/`.startsWith(folder) && `${dir}/` !== folder);

/** Why a pull takes the file at `path` only where the puller wrote all of it (a personal file, BMAD's settings), or
 *  undefined: any member's comes. Push holds back such a file of another member's rather than name a pull that leaves it. */
export function onlyYoursReason(path: string): string | undefined {
  if (isPersonalFile(path)) return "a personal file BMAD keeps out of git, and another member wrote some of it: a pull takes only your own";
  // What to do with them is said once, after them (settingsWayOn): a pull of a member's share left all 16 installer files.
  if (isInstallFile(path)) return "BMAD's settings or steps, which your agents here follow, and another member wrote some of it";
  return undefined;
}

/** One change, under the file's lock: nothing when the file is no longer what the pull saw, up to the rename (an editor
 *  takes no lock: a save that lands while the pull writes stands, kept for push, review 19). */
async function applyStep(o: SyncOptions, step: Exclude<Step, { op: "record" }>): Promise<Result<{ changedHere: boolean }>> {
  if (step.op === "litter") {
    const removed = await removeConfined(o.dir, step.path, { refuse: litterLanding(o), emptied: emptiedInSync });
    return removed.ok ? { ok: true, changedHere: false } : removed;
  }
  const unchanged = await fileStamp(o.dir, step.path);
  const local = await readLocal(o.dir, step.path);
  if (seen(local) !== step.seen) return { ok: true, changedHere: true };
  const bytes = step.op === "delete" ? undefined : (step.merged ?? step.content.bytes);
  // What the pull replaces is kept a week, as every bridge change keeps it (review 47: `pull --force` and a memory
  // merge replaced the user's own text with no copy); a copy of what a pull wrote itself is the first to go.
  if (local.kind === "large") return { ok: false, error: `${step.path} is too large to keep a copy of before the pull replaces it: move it aside, then pull.` };
  const kept = await keepReplaced(o.dir, step.path, local.kind === "file" ? local.bytes : undefined, bytes ?? null, PULL_LIMITS).then((entry) => ({ entry }), (error: Error) => ({ error: error.message }));
  if ("error" in kept) return { ok: false, error: `${step.path}: ${kept.error}` };
  // A change that does not land (a save here meanwhile, a refusal) keeps nothing (landedOrDropped).
  const done = await landedOrDropped(o.dir, kept.entry, () => bytes === undefined
    ? removeConfined(o.dir, step.path, { refuse: pullLanding(o), unchanged, emptied: emptiedInSync })
    : writeConfined(o.dir, step.path, bytes, { refuse: pullLanding(o, bytes, step.op === "write" && step.content.byOthers), unchanged }));
  if (done.ok) {
    if (bytes) await noteWrite(o.dir, step.path, bytes);
    return { ok: true, changedHere: false };
  }
  return (await fileStamp(o.dir, step.path)) !== unchanged ? { ok: true, changedHere: true } : done;
}

const recordOf = (c: RemoteContent): SyncedFile => ({ version: c.version, sha256: sha256(c.bytes), ...(c.redacted ? { redacted: true as const } : {}), ...(c.others ? { others: c.others, ...memoriesBy(c.path, c.bytes, c.others) } : {}) });

/** A structured memory file's memories others wrote, by id: the bridge's recall names them so however the file changes here. */
function memoriesBy(path: string, bytes: Uint8Array, others: ByOthers): { memories_by?: Array<[string, string]> } {
  if (!structuredType(path)) return {};
  const parsed = parseMemoryLines(new TextDecoder().decode(bytes), path);
  const pairs = parsed.entries.flatMap((e, i): Array<[string, string]> => {
    const by = othersOn(others, parsed.lastLines[i]!, parsed.lastLines[i]!);
    // Within what the state file holds for a name (review 100: six members' long emails made one it then refused).
    return by ? [[e.id, by.length > MAX_MEMORY_BY_CHARS ? `${by.slice(0, MAX_MEMORY_BY_CHARS - 20)}… and others` : by]] : [];
  });
  return pairs.length ? { memories_by: pairs } : {};
}

/** What a line says of a change here that --force let the remote's win over (review 235: it read as a plain update,
 *  and no summary counted it), after `why`: where its copy is, kept a week as applyStep keeps every one. */
function replacedNote(seen: Seen, why: string | undefined): string {
  const replaced = seen === "missing" ? "deleted here, and --force let the remote's win over that" : "--force let the remote's win over yours here; a copy of yours is kept a week: bmad-files history and restore on the bridge bring it back";
  return why ? `${why}; ${replaced}` : replaced;
}

/** Writes and deletes one file at a time (each atomic), recording each in `state` as it lands; files not reached
 *  (after a failure) keep their old record. Each change holds the file's lock (the one every bridge write holds)
 *  and lands only on the file the pull decided on: one written here meanwhile (an acknowledged bmad-files write, a
 *  memlog append) is kept, for push, never overwritten. */
async function apply(o: SyncOptions, state: SyncState, steps: Step[], report: Report): Promise<SyncResult> {
  // What it is about to write, first: a pull killed midway leaves a state that names its files (SyncState.pending).
  const writes = steps.flatMap((step) => (step.op === "write" ? [[step.path, { written: sha256(step.merged ?? step.content.bytes), file: recordOf(step.content) }] as const] : []));
  if (writes.length) {
    const noted = await saveState(o.dir, { ...state, pending: new Map(writes) });
    if (!noted.ok) return { ok: false, error: `Nothing was changed: cannot record the pull: ${noted.error}`, report };
  }
  let failure: string | undefined;
  for (const step of steps) {
    if (step.op === "record") {
      if (step.file) state.files.set(step.path, step.file);
      else state.files.delete(step.path);
      continue;
    }
    const done = await withFileLock(o.dir, step.path, () => applyStep(o, step));
    if (!done.ok) {
      failure = done.error;
      break;
    }
    // The remote's change did not land, so push would find the file behind (review 58: this said "push sends it").
    if (done.changedHere) report.add("kept", step.path, "changed here during the pull, so the remote's change was not written: pull again to bring it");
    else if (step.op === "write") {
      state.files.set(step.path, recordOf(step.content));
      state.sent?.delete(step.path);
      const note = step.merged ? `${isMemlogPath(step.path) ? "entries appended here and on the remote merged" : "memories merged with the ones here"}; push sends the merge` : step.content.redacted ? `served altered: ${step.content.notUtf8 ? "bytes that are not UTF-8 shown as \uFFFD" : "secret-looking keys removed"}; push leaves it alone` : undefined;
      report.add(step.kind, step.path, step.replaces ? replacedNote(step.seen, note) : note);
    } else if (step.op === "delete") {
      state.files.delete(step.path);
      state.sent?.delete(step.path);
      state.localOnly?.delete(step.path);
      report.add("deleted", step.path, step.replaces ? replacedNote(step.seen, step.note) : step.note);
    }
    if (!done.changedHere && step.op !== "litter" && step.replaces) report.replaced++;
  }
  const saved = await saveState(o.dir, state);
  if (failure || !saved.ok) {
    // `kept` and `left` lines above name what the pull did not change.
    const done = report.changes.some((c) => c.kind === "added" || c.kind === "updated" || c.kind === "deleted") ? ` The files added, updated or deleted above were changed before it stopped; pull again to finish.` : " Nothing was changed.";
    return { ok: false, error: `${sentence(failure ?? `cannot record the pull: ${saved.ok ? "" : saved.error}`)}${done}`, report };
  }
  return { ok: true, report };
}
