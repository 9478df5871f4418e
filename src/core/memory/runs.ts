// Seed 001's workflow runs: `_bmad-output/.runs/{branch}/{run_id}/state.json`, written by the project's own
// orchestration (bmad-custom-kit), read here for get_workflow_status and list_sessions. The seed gives no
// schema: any JSON object is a state; status, workflow and times are read where they are, by their usual names.
import * as z from "zod";
import { checkWorkspacePath, printable } from "../workspace/paths.js";
import type { WorkspaceFiles } from "../workspace/store.js";
import type { MemResult } from "./model.js";

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
  path: string;
  /** Who last wrote its state file. */
  author?: string;
}

const text = z.string().max(200).optional().catch(undefined);
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

async function readState(files: WorkspaceFiles, path: string): Promise<MemResult<{ raw: Record<string, unknown>; updatedAt: string; author: string }>> {
  const read = await files.read(path);
  if (!read.ok) return { ok: false, error: read.error };
  if (read.value.size > MAX_STATE_BYTES) return { ok: false, error: `${path}: larger than 1 MiB; skipped.` };
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder().decode(read.value.data));
  } catch (error) {
    return { ok: false, error: `${path}: not JSON (${(error as Error).message.split("\n")[0]}); skipped.` };
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return { ok: false, error: `${path}: not a JSON object; skipped.` };
  return { ok: true, value: { raw: raw as Record<string, unknown>, updatedAt: read.value.updated_at, author: read.value.author } };
}

function summary(branch: string, runId: string, path: string, raw: Record<string, unknown>, fileTime: string, author?: string): RunSummary {
  const f = FIELDS.parse(raw);
  const said = f.status ?? f.state;
  const workflow = f.workflow ?? f.workflow_name ?? f.name;
  return { branch, run_id: runId, status: runStatus(said), ...(said ? { state_status: said } : {}), ...(workflow ? { workflow } : {}), updated_at: f.updated_at ?? f.completed_at ?? f.started_at ?? f.created_at ?? fileTime, path, ...(author ? { author } : {}) };
}

/** Run state files read for one listing at most, and the warnings one gives (a planted thousand of them held every
 *  member's list_sessions 2 to 7 s, with a warning line each: review 26). */
const MAX_RUNS_READ = 200;
const MAX_RUN_WARNINGS = 20;
/** State files read at once. */
const READS_AT_ONCE = 8;

/** Every run (on one branch, or all), newest first, and the state files that could not be read: the state files found
 *  by one listing (a folder holding one is a run, and nothing below it is), then read a few at a time. */
export async function listRuns(files: WorkspaceFiles, branch?: string): Promise<{ runs: RunSummary[]; warnings: string[] }> {
  const root = branch ? `${RUNS_DIR}/${branch}` : RUNS_DIR;
  const listed = await files.list(`${root}/**/${STATE_FILE}`);
  if (!listed.ok) return { runs: [], warnings: [] };
  const paths = listed.value.map((f) => f.path).sort();
  const runDirs = new Set(paths.map((p) => p.slice(0, -STATE_FILE.length - 1)));
  const found: Array<{ branch: string; runId: string; path: string }> = [];
  for (const path of paths) {
    const segments = path.slice(RUNS_DIR.length + 1).split("/").slice(0, -1);
    const runId = segments.at(-1);
    const runBranch = segments.slice(0, -1).join("/");
    if (!runId || !runBranch || segments.length > MAX_DEPTH + 1 || segments.some((s) => s.startsWith("."))) continue;
    if (branch && runBranch !== branch) continue;
    // A folder that holds a state file is a run, and nothing below it is.
    if (segments.slice(0, -1).some((_, i) => runDirs.has(`${RUNS_DIR}/${segments.slice(0, i + 1).join("/")}`))) continue;
    found.push({ branch: runBranch, runId, path });
  }
  const read = found.slice(0, MAX_RUNS_READ);
  const states: Array<Awaited<ReturnType<typeof readState>>> = [];
  for (let i = 0; i < read.length; i += READS_AT_ONCE) states.push(...(await Promise.all(read.slice(i, i + READS_AT_ONCE).map((r) => readState(files, r.path)))));
  const runs: RunSummary[] = [];
  const warnings: string[] = [];
  states.forEach((state, i) => {
    const { branch: b, runId, path } = read[i]!;
    if (state.ok) runs.push(summary(b, runId, path, state.value.raw, state.value.updatedAt, state.value.author));
    else warnings.push(state.error);
  });
  const unread = warnings.length - MAX_RUN_WARNINGS;
  if (unread > 0) warnings.splice(MAX_RUN_WARNINGS, unread, `${unread} more run state files could not be read.`);
  if (found.length > read.length) warnings.push(`${found.length - read.length} more runs than the ${MAX_RUNS_READ} one listing reads; name a branch, or remove finished runs from ${RUNS_DIR}.`);
  runs.sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0));
  return { runs, warnings };
}

/** One run's state, whole. */
export async function readRun(files: WorkspaceFiles, branch: string, runId: string): Promise<MemResult<{ summary: RunSummary; state: Record<string, unknown> }> | undefined> {
  if (!/^[\w.-]{1,200}$/.test(runId) || runId.startsWith(".")) return undefined;
  const path = `${RUNS_DIR}/${branch}/${runId}/${STATE_FILE}`;
  const kind = await files.stat(path);
  if (!kind.ok || kind.value !== "file") return undefined;
  const state = await readState(files, path);
  if (!state.ok) return state;
  return { ok: true, value: { summary: summary(branch, runId, path, state.value.raw, state.value.updatedAt, state.value.author), state: state.value.raw } };
}
