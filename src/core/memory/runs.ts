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
/** Runs listed at most, and how deep branch folders go (`feature/login` is two). */
const MAX_RUNS = 500;
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

/** Every run (on one branch, or all), newest first, and the state files that could not be read. */
export async function listRuns(files: WorkspaceFiles, branch?: string): Promise<{ runs: RunSummary[]; warnings: string[] }> {
  const runs: RunSummary[] = [];
  const warnings: string[] = [];
  const visit = async (dir: string, depth: number): Promise<void> => {
    const names = await files.children(dir);
    if (!names.ok) return;
    for (const name of names.value.sort()) {
      if (runs.length >= MAX_RUNS || name.startsWith(".")) continue;
      const sub = `${dir}/${name}`;
      const isRun = await files.stat(`${sub}/${STATE_FILE}`);
      if (isRun.ok && isRun.value === "file") {
        const state = await readState(files, `${sub}/${STATE_FILE}`);
        const runBranch = dir.slice(RUNS_DIR.length + 1);
        if (state.ok) runs.push(summary(runBranch, name, `${sub}/${STATE_FILE}`, state.value.raw, state.value.updatedAt, state.value.author));
        else warnings.push(state.error);
      } else if (!branch && depth < MAX_DEPTH) await visit(sub, depth + 1);
    }
  };
  if (branch) await visit(`${RUNS_DIR}/${branch}`, 0);
  else {
    const top = await files.children(RUNS_DIR);
    if (top.ok) for (const name of top.value.sort()) if (!name.startsWith(".")) await visit(`${RUNS_DIR}/${name}`, 1);
  }
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
