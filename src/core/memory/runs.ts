// Seed 001's workflow runs: `_bmad-output/.runs/{branch}/{run_id}/state.json`, written by the project's own
// orchestration (bmad-custom-kit), read here for get_workflow_status and list_sessions. The seed gives no
// schema: any JSON object is a state; status, workflow and times are read where they are, by their usual names.
import * as z from "zod";
import { checkWorkspacePath, printable } from "../workspace/paths.js";
import type { FileContent, WorkspaceFiles } from "../workspace/store.js";
import { tooHeavyToParse } from "../yaml.js";
import { mapLimited } from "../map-limited.js";
import type { MemResult } from "./model.js";
import { isOneLine } from "../lines.js";

export const RUNS_DIR = "_bmad-output/.runs";
export const DEFAULT_BRANCH = "main";
const STATE_FILE = "state.json";
/** How deep branch folders go (`feature/login` is two). */
const MAX_DEPTH = 8;
const MAX_STATE_BYTES = 1024 * 1024;

export type RunStatus = "active" | "completed" | "failed";

export interface RunSummary {
  branch: string;
  run_id: string;
  status: RunStatus;
  /** As the state file says it. */
  state_status?: string;
  workflow?: string;
  updated_at: string;
  /** When its state file was last written, as the store says: what runs are ordered by (a state file can claim any
   *  `updated_at`: planted runs dated 9999 came first everywhere, review 30). */
  written_at: string;
  path: string;
  /** Who last wrote its state file. */
  author?: string;
  /** Someone other than the caller wrote its state file last (a store that names authors says so: the remote). */
  by_other?: true;
}

/** One line each (a value with a break in it is left out, as one too long is): each is shown inside a line of a list. */
const text = z.string().max(200).refine(isOneLine).optional().catch(undefined);
const FIELDS = z.object({
  status: text,
  state: text,
  workflow: text,
  workflow_name: text,
  name: text,
  updated_at: text,
  completed_at: text,
  started_at: text,
  created_at: text,
});

const COMPLETED = new Set(["completed", "complete", "done", "success", "succeeded", "passed", "pass", "finished"]);
const FAILED = new Set(["failed", "fail", "failure", "error", "errored", "aborted", "cancelled", "canceled"]);

export function runStatus(raw: string | undefined): RunStatus {
  const s = (raw ?? "").trim().toLowerCase();
  return COMPLETED.has(s) ? "completed" : FAILED.has(s) ? "failed" : "active";
}

/** A branch as a folder under the runs: any git branch name that stays inside it. */
export function checkBranch(branch: string): MemResult<string> {
  const checked = checkWorkspacePath(`${RUNS_DIR}/${branch}`);
  if (!checked.ok || branch.split("/").some((s) => s.startsWith("."))) return { ok: false, error: `Branch "${printable(branch)}" is not a branch name here: give one like main or feature/login.` };
  return { ok: true, value: branch };
}

/** A run's state file read: its JSON object, when and by whom it was last written. */
type StateValue = { raw: Record<string, unknown>; updatedAt: string; author?: string; byOther?: true };
type State = MemResult<StateValue>;

/** `raw` as the state of `file`, with when and by whom the file was last written. */
const stateOf = (file: FileContent, raw: Record<string, unknown>): State => ({ ok: true, value: { raw, updatedAt: file.updated_at, author: file.author, ...(file.changed_by_other ? { byOther: true as const } : {}) } });

async function readState(files: WorkspaceFiles, path: string): Promise<State> {
  const read = await files.read(path);
  return read.ok ? parseState(read.value) : { ok: false, error: read.error };
}

function parseState(file: FileContent): State {
  const { path } = file;
  if (file.size > MAX_STATE_BYTES) return { ok: false, error: `${path}: larger than 1 MiB; skipped.` };
  const text = new TextDecoder().decode(file.data);
  // Nested past what any answer's encoding takes: 30,000 levels left the owner's get_workflow_status unanswered (review 30).
  const heavy = tooHeavyToParse(text, Number.MAX_SAFE_INTEGER);
  if (heavy) return { ok: false, error: `${path}: ${heavy}; skipped.` };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `${path}: not JSON (${(error as Error).message.split("\n")[0]}); skipped.` };
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return { ok: false, error: `${path}: not a JSON object; skipped.` };
  return stateOf(file, raw as Record<string, unknown>);
}

function summary(branch: string, runId: string, path: string, state: StateValue): RunSummary {
  const { raw, updatedAt: fileTime, author } = state;
  const f = FIELDS.parse(raw);
  const said = f.status ?? f.state;
  const workflow = f.workflow ?? f.workflow_name ?? f.name;
  return { branch, run_id: runId, status: runStatus(said), ...(said ? { state_status: said } : {}), ...(workflow ? { workflow } : {}), updated_at: f.updated_at ?? f.completed_at ?? f.started_at ?? f.created_at ?? fileTime, written_at: fileTime, path, ...(author ? { author } : {}), ...(state.byOther ? { by_other: true as const } : {}) };
}

/** Run state files read for one listing at most (list_sessions shows the newest 100), and the warnings one gives (a
 *  planted thousand held every member's list_sessions 2 to 7 s, with a warning line each: review 26). */
const MAX_RUNS_READ = 100;
const MAX_RUN_WARNINGS = 20;
/** A peek's files (on the remote one call for many), and how much of each state a listing reads. Every state file's
 *  time is looked at, so the newest are read whatever their names; a state longer than its head is summarised from
 *  the head. 200 states read whole, a call each, held the project seconds under 30 listings at once (reviews 28 and 30). */
const PEEK_FILES = 100;
const SUMMARY_BYTES = 16 * 1024;
/** Peeks at once. */
const PEEKS_AT_ONCE = 8;

/** `written`: when the listing says the file was written, where it says (a local store's entries do). */
type Found = { branch: string; runId: string; path: string; size: number; written?: string };

/** A state longer than the head read of it, summarised from the string fields at its top level that the head holds
 *  (a nested step's "status", or a key that only looks like one, is not the run's: review 32). One pass over the head,
 *  tracking nesting and strings. */
function summaryOfHead(file: FileContent): State {
  const head = new TextDecoder().decode(file.data);
  const wanted = new Set(Object.keys(FIELDS.shape));
  const raw: Record<string, unknown> = {};
  let depth = 0;
  let key: string | undefined;
  let expectKey = false;
  for (let i = 0; i < head.length; i++) {
    const c = head[i]!;
    if (c === '"') {
      // A whole string, escapes and all: its text, if it ends within the head.
      let j = i + 1;
      let text = "";
      for (; j < head.length && head[j] !== '"'; j++) text += head[j] === "\\" ? head[++j] ?? "" : head[j];
      if (j >= head.length) break;
      if (depth === 1 && expectKey) key = text;
      else if (depth === 1 && key !== undefined && wanted.has(key) && !(key in raw)) raw[key] = text.slice(0, 200);
      expectKey = false;
      i = j;
    } else if (c === "{" || c === "[") {
      depth++;
      expectKey = c === "{" && depth === 1;
      key = undefined;
    } else if (c === "}" || c === "]") depth--;
    else if (c === "," && depth === 1) {
      expectKey = true;
      key = undefined;
    }
  }
  return stateOf(file, raw);
}

/** The newest of `found` by when their state files were written, the caller's own first, and their states: each file's
 *  time (and author) as the listing gives it (a local store's does) or a peek of a byte, then the chosen ones' heads a
 *  hundred a call. By time, never by path (review 32: taken by path, 100 planted runs on a branch named "0" hid the
 *  user's); the caller's first (review 363: a member's 100 newer runs left the owner's unread, and one of theirs became
 *  the owner's get_workflow_status). */
async function newestStates(files: WorkspaceFiles, found: Found[]): Promise<Array<{ run: Found; state: State }>> {
  const newest = (runs: Found[], at: (r: Found) => string, mine: (r: Found) => boolean) =>
    [...runs].sort((a, b) => Number(mine(b)) - Number(mine(a)) || (at(a) < at(b) ? 1 : at(a) > at(b) ? -1 : 0)).slice(0, MAX_RUNS_READ);
  // A peek's files a call, a few calls at a time.
  const peekAll = async (runs: Found[], head: number) => {
    const batches = Array.from({ length: Math.ceil(runs.length / PEEK_FILES) }, (_, k) => runs.slice(k * PEEK_FILES, (k + 1) * PEEK_FILES));
    const peeked = await mapLimited(batches, PEEKS_AT_ONCE, async (batch) => {
      const got = await files.peek(batch.map((r) => r.path), { head });
      return got.ok ? got.value : [];
    });
    return peeked.flat();
  };
  const listed = found.every((r) => r.written !== undefined);
  const peeked = listed ? [] : await peekAll(found, 1);
  const written = new Map(listed ? found.map((r) => [r.path, r.written!]) : peeked.map((f) => [f.path, f.updated_at]));
  const others = new Set(peeked.filter((f) => f.changed_by_other).map((f) => f.path));
  const chosen = newest(found, (r) => written.get(r.path) ?? "", (r) => !others.has(r.path));
  const heads = new Map((await peekAll(chosen, SUMMARY_BYTES)).map((f) => [f.path, f]));
  return chosen.flatMap((run) => {
    const file = heads.get(run.path);
    return file ? [{ run, state: file.size > file.data.byteLength ? summaryOfHead(file) : parseState(file) }] : [];
  });
}

/** Every run (on one branch, or all), newest first by when its state file was written, and the state files that could
 *  not be read: the state files found by one listing (a folder holding one is a run, and nothing below it is). */
export async function listRuns(files: WorkspaceFiles, branch?: string): Promise<{ runs: RunSummary[]; warnings: string[] }> {
  const root = branch ? `${RUNS_DIR}/${branch}` : RUNS_DIR;
  const listed = await files.list(`${root}/**/${STATE_FILE}`);
  if (!listed.ok) return { runs: [], warnings: [] };
  const bySize = new Map(listed.value.map((f) => [f.path, f.size]));
  const writtenAt = new Map(listed.value.map((f) => [f.path, f.updated_at]));
  const paths = [...bySize.keys()].sort();
  const runDirs = new Set(paths.map((p) => p.slice(0, -STATE_FILE.length - 1)));
  const found: Found[] = [];
  for (const path of paths) {
    const segments = path.slice(RUNS_DIR.length + 1).split("/").slice(0, -1);
    const runId = segments.at(-1);
    const runBranch = segments.slice(0, -1).join("/");
    // A folder's name is shown inside a line: one that is not one line is no run (a bridge's disk can hold one).
    if (!runId || !runBranch || segments.length > MAX_DEPTH + 1 || segments.some((s) => s.startsWith(".") || !isOneLine(s))) continue;
    if (branch && runBranch !== branch) continue;
    // A folder that holds a state file is a run, and nothing below it is.
    if (segments.slice(0, -1).some((_, i) => runDirs.has(`${RUNS_DIR}/${segments.slice(0, i + 1).join("/")}`))) continue;
    found.push({ branch: runBranch, runId, path, size: bySize.get(path)!, ...(writtenAt.get(path) ? { written: writtenAt.get(path) } : {}) });
  }
  const read = await newestStates(files, found);
  const runs: RunSummary[] = [];
  const warnings: string[] = [];
  for (const { run, state } of read) {
    if (state.ok) runs.push(summary(run.branch, run.runId, run.path, state.value));
    else warnings.push(state.error);
  }
  const broken = warnings.length - MAX_RUN_WARNINGS;
  if (broken > 0) warnings.splice(MAX_RUN_WARNINGS, broken, `${broken} more run state files could not be read.`);
  if (found.length > read.length) warnings.push(`${found.length - read.length} more runs than the ${MAX_RUNS_READ} one listing reads (yours first, then the newest); name a branch, or remove finished runs from ${RUNS_DIR}.`);
  runs.sort(newestWritten);
  return { runs, warnings };
}

/** Runs by when their state files were written, newest first; written at once (a millisecond on the bridge), by what
 *  they say. */
export function newestWritten(a: RunSummary, b: RunSummary): number {
  const by = (x: string, y: string) => (x < y ? 1 : x > y ? -1 : 0);
  return by(a.written_at, b.written_at) || by(a.updated_at, b.updated_at);
}

/** One run's state, whole. */
export async function readRun(files: WorkspaceFiles, branch: string, runId: string): Promise<MemResult<{ summary: RunSummary; state: Record<string, unknown> }> | undefined> {
  if (!/^[\w.-]{1,200}$/.test(runId) || runId.startsWith(".")) return undefined;
  const path = `${RUNS_DIR}/${branch}/${runId}/${STATE_FILE}`;
  const kind = await files.stat(path);
  if (!kind.ok || kind.value !== "file") return undefined;
  const state = await readState(files, path);
  if (!state.ok) return state;
  return { ok: true, value: { summary: summary(branch, runId, path, state.value), state: state.value.raw } };
}
