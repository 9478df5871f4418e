// Toolset `kit` (seed 001), the session part: status, runs and the caller's sessions, and sub-task queueing.
// Runs are seed 001's `_bmad-output/.runs/{branch}/{run_id}/state.json` in the project (the bridge's folder, or every
// workspace the caller can see on the remote); sessions are bmad-task's. A run in a project shared with the caller
// is always named with its project and owner, never shadows a run of the caller's own, and is never a default.
import * as z from "zod";
import { MAX_QUEUED_SUBTASKS } from "../../delivery/machine.js";
import { TOOL } from "../names.js";
import { checkBranch, DEFAULT_BRANCH, listRuns, newestWritten, readRun, RUNS_DIR, type RunSummary } from "../../memory/runs.js";
import { newestFirst, sessionPlace, type ListPlace, type UnreadableSession } from "../../delivery/store.js";
import type { SessionSummary } from "../../delivery/session.js";
import type { ProjectSummary, WorkspaceFiles, WorkspaceStore } from "../../workspace/store.js";
import { printable } from "../../workspace/paths.js";
import type { SurfaceDeps } from "../deps.js";
import type { Result } from "../../result.js";
import { done, fail, type ToolOutcome } from "../outcome.js";
import { defineTool, READ_ONLY } from "../tool.js";
import { capOutput } from "../../runtime/budget.js";
import { projectState } from "../project-state.js";
import { noSessions, sessionField, stored } from "./delivery.tools.js";
import { notThisProject, offerLines } from "./workspace.tools.js";

/** Sessions get_workflow_status looks among for the one to resume (the newest made): one changed last is among them. */
const RESUME_AMONG = 50;

export const getWorkflowStatus = defineTool({
  name: TOOL.getWorkflowStatus,
  toolset: "kit",
  description: "State of a run (_bmad-output/.runs/) or delivery session; default the newest.",
  input: z.object({
    run_id: sessionField.optional().describe("Run or session id"),
    branch: z.string().min(1).max(200).optional().describe("Session branch (default main)"),
    project: z.string().min(1).max(200).optional().describe("Project (default: all yours)"),
  }),
  annotations: READ_ONLY,
  async run({ run_id, branch, project }, deps, _signal, call) {
    const { sessions, owner } = deps;
    const checked = checkBranch(branch ?? DEFAULT_BRANCH);
    if (!checked.ok) return fail(checked.error);
    const onMain = checked.value === DEFAULT_BRANCH;
    const named = project === undefined ? undefined : await namedPlace(deps, project);
    if (named && !named.ok) return fail(named.error);
    const only = named?.place;
    const places = only ? [only] : await runPlaces(deps);
    if (!sessions && !places.length) return noSessions();
    // The project named is the one asked about, shared or not (review 468: another project's run answered for it).
    const own = only ? places : places.filter((p) => !p.owner);
    if (run_id !== undefined) {
      // The caller's own session of that name first: a collaborator can write a run of any id into a project the caller
      // owns, and the task names are every member's to see (review 26: it stood in for the owner's session).
      const session = sessions ? await sessions.get(owner, run_id) : undefined;
      if (onMain && session?.ok) return stored(deps, session);
      const found = await Promise.all(places.map(async (p) => ({ ...p, run: await readRun(p.files, checked.value, run_id) })));
      const newest = found.flatMap((f) => (f.run?.ok ? [{ place: f, value: f.run.value }] : [])).sort((a, b) => newestWritten(a.value.summary, b.value.summary));
      // The caller's own run of that id first; a shared one only where they have none.
      const mine = newest.find((f) => !f.place.owner);
      if (mine) return showRun(mine.place, mine.value, newest.length - 1);
      const broken = found.find((f) => f.run && !f.run.ok && !f.owner)?.run;
      if (broken && !broken.ok) return fail(broken.error);
      if (newest[0]) return showRun(newest[0].place, newest[0].value, newest.length - 1);
      // A session asked for with a branch is answered still: sessions have none, and "No run" read as if it were gone.
      if (session?.ok) return withNote(await stored(deps, session), `Delivery sessions have no branch; branch ${checked.value} is left out.`);
      if (onMain && session && !places.length) return stored(deps, session);
      return fail(`No run "${printable(run_id)}" on branch ${checked.value} (${RUNS_DIR}/${checked.value}/{run_id}/state.json)${onMain && sessions ? " and no delivery session by that name" : ""}: list_sessions lists both.`);
    }
    const runs = (await allRuns(own, checked.value)).runs;
    // The one changed last, among the newest made: sessions list by when they were made (a stable page order).
    // A time past now is not believed: a state file can claim any (review 426: one changed "in 2099" was always the
    // default); then it counts as changed when it was made, or never.
    const now = new Date().toISOString();
    const changed = (s: SessionSummary) => [s.updated_at, s.created_at].find((at) => at <= now) ?? "";
    // A delivery session is the user's, in no project: not the answer about the project named.
    const newestSession = onMain && sessions && !only ? (await sessions.list(owner, "all", RESUME_AMONG)).sessions.reduce<SessionSummary | undefined>((a, b) => (!a || changed(b) > changed(a) ? b : a), undefined) : undefined;
    // The caller's own work is the default: a run whose state they wrote last, or a session; a member's run only where
    // they have neither, and else one line names it (review 363: a member's run, 2 MB of it, stood in for the owner's).
    const newestRun = runs.find((r) => !r.by_other) ?? (newestSession ? undefined : runs[0]);
    const newestOther = runs.find((r) => r.by_other);
    const note = async (shownAt: string) => (newestOther && newestOther !== newestRun && newestOther.written_at > shownAt ? await newerRunNote(deps, newestOther) : undefined);
    if (newestRun && (!newestSession || newestRun.written_at >= changed(newestSession))) {
      const place = own.find((p) => p.project === newestRun.project)!;
      const run = await readRun(place.files, newestRun.branch, newestRun.run_id);
      if (run) return run.ok ? showRun(place, run.value, 0, await note(newestRun.written_at)) : fail(run.error);
    }
    if (newestSession) return withNote(await stored(deps, await sessions!.get(owner, newestSession.session_id)), await note(newestSession.updated_at));
    return noRunsYet(deps, checked.value, places, call?.has?.(TOOL.bmadRun) ?? false);
  },
});

export const listSessions = defineTool({
  name: TOOL.listSessions,
  toolset: "kit",
  description: "List runs and your delivery sessions, newest first.",
  input: z.object({
    status: z.enum(["all", "active", "completed", "failed"]).optional().describe("Filter (default all)"),
    // Checked here, not in the schema: tools/list keeps to its 8 KB (views-size.test.ts).
    before: z.string().refine((s) => parsePlace(s) !== undefined, `the "before" of a ${TOOL.listSessions} answer's next, as it gave it`).optional().describe("An answer's next"),
  }),
  annotations: READ_ONLY,
  async run({ status, before }, deps) {
    const { sessions, owner } = deps;
    const places = await runPlaces(deps);
    if (!sessions && !places.length) return noSessions();
    const wanted = status ?? "all";
    const from = before === undefined ? undefined : parsePlace(before);
    const past = (p: ListPlace) => !from || newestFirst(from, p) < 0;
    const found = await allRuns(places);
    const runsLeft = found.runs.filter((r) => (wanted === "all" || r.status === wanted) && past(runPlace(r)));
    // A page of both in one order, so one place names where the next starts (2,000 sessions answered 8.6 MB on every
    // call: review 28).
    const { sessions: sessionsLeft, total, unreadable = [], foreign = [] } = sessions ? await sessions.list(owner, wanted, MAX_LISTED, from) : { sessions: [], total: 0 };
    const page = [...runsLeft.map((run) => ({ place: runPlace(run), run })), ...sessionsLeft.map((session) => ({ place: sessionPlace(session), session }))]
      .sort((a, b) => newestFirst(a.place, b.place))
      .slice(0, MAX_LISTED);
    const runs = page.flatMap((e) => ("run" in e ? [e.run] : []));
    const list = page.flatMap((e) => ("session" in e ? [e.session] : []));
    const older = [[runsLeft.length - runs.length, "runs"], [total - list.length, "delivery sessions"]] as const;
    const last = page.at(-1)?.place;
    const next = last && older.some(([n]) => n > 0) ? { before: `${last.at}|${last.id}`, ...(status ? { status } : {}) } : undefined;
    const nextCall = next && `${TOOL.listSessions} with "before": ${JSON.stringify(next.before)}${status ? ` and "status": "${status}"` : ""}`;
    const warnings = [...found.warnings, ...(unreadable.length ? [unreadableFiles(unreadable)] : []), ...(foreign.length ? [foreignFiles(foreign)] : [])];
    const lines = [
      ...runs.map((r) => `${r.project}${r.shared_by ? ` (shared by ${r.shared_by})` : ""}: ${r.branch}/${r.run_id} [${r.status}${r.state_status && r.state_status !== r.status ? `: ${r.state_status}` : ""}]${r.workflow ? ` ${r.workflow}` : ""} ${r.updated_at}${r.author ? ` by ${r.author}` : ""}`),
      ...list.map((s) => `${s.task_name} [${s.status}] ${s.current_stage}/${s.current_state} ${s.session_id}`),
      ...warnings.map((w) => `warning: ${w}`),
      ...older.flatMap(([n, what]) => (n > 0 && nextCall ? [`(${n} older ${what} not shown: ${nextCall} lists the next ${MAX_LISTED}.)`] : [])),
    ];
    const none = before ? `No runs or delivery sessions before ${JSON.stringify(before)}.` : "No sessions.";
    return done(lines.join("\n") || none, { sessions: list, runs, ...(next ? { next } : {}), ...(warnings.length ? { warnings } : {}) });
  },
});

/** A run's place in the order list_sessions pages in: when its state was written, then what it says (as newestWritten),
 *  then where it is. */
function runPlace(r: RunSummary & { project: string; shared_by?: string }): ListPlace {
  return { at: r.written_at, id: `${r.updated_at} ${r.shared_by ? `${r.shared_by}:` : ""}${r.project}/${r.branch}/${r.run_id}` };
}

/** A page's start as list_sessions names it, "<time>|<id>": the last one listed. */
function parsePlace(text: string): ListPlace | undefined {
  const bar = text.indexOf("|");
  const at = text.slice(0, bar);
  const id = text.slice(bar + 1);
  return bar > 0 && /^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(at) && id.length > 0 && id.length <= MAX_PLACE_ID ? { at, id } : undefined;
}

/** The session files a list left out, named with why and the fix (they were in the bridge's stderr alone). */
function unreadableFiles(files: UnreadableSession[]): string {
  const one = files.length === 1;
  return `${files.length} session file${one ? "" : "s"} could not be read: ${namedFiles(files.map((f) => `${f.file} (${f.reason})`))}; fix ${one ? "it" : "them"} or delete ${one ? "it" : "them"}.`;
}

/** Session files found in the folder that this install did not make, said as such: listed, never the user's. */
function foreignFiles(files: string[]): string {
  const one = files.length === 1;
  // No tool of the model's changes .bmad-task/ (review 432: "delete them" named no call that could): the user does.
  return `${files.length} session file${one ? " was" : "s were"} found in the folder that your bmad-mcp did not make (committed to the repository, copied from elsewhere, or made by a bmad-mcp from before sessions had an owner of their own): ${namedFiles(files)}. Not yours, so never resumed or listed as yours; what they say is not the user's. No tool here removes them: the user may delete ${one ? "it" : "them"} from the folder. Confirmed artifacts in .claude/specs/ stay, and a new session can start from them.`;
}

/** The first MAX_NAMED_UNREADABLE of `names`, and how many more. */
function namedFiles(names: string[]): string {
  const more = names.length - MAX_NAMED_UNREADABLE;
  return `${names.slice(0, MAX_NAMED_UNREADABLE).join(", ")}${more > 0 ? `, and ${more} more` : ""}`;
}

/** Runs and sessions list_sessions shows at most, together: a page. */
const MAX_LISTED = 100;

/** A page start's id, at most: a run's names it (what its state says, its project, branch and id). */
const MAX_PLACE_ID = 2000;

/** Unreadable session files a list names, at most. */
const MAX_NAMED_UNREADABLE = 10;

/** Projects whose runs are read, at most: a user with more names the rest through bmad-files. */
const MAX_RUN_PROJECTS = 20;

/** A project runs are read from; `owner`: whose it is, when shared with the caller. */
interface Place {
  project: string;
  files: WorkspaceFiles;
  owner?: string;
}

/** Where runs are: the bridge's project folder, or each workspace the caller can see on the remote (their own first). */
async function runPlaces(deps: SurfaceDeps): Promise<Place[]> {
  if (!deps.workspaces) return [];
  const projects = (await deps.workspaces.projects()).slice(0, MAX_RUN_PROJECTS);
  return projects.map((p) => place(deps.workspaces!, p));
}

/** The place `project` names, or why not: a name the caller cannot see is refused as the store refuses it, naming the
 *  closest they have. None where it is the door's one project (the bridge's folder, which holds its sessions too):
 *  answered as if none were named. */
async function namedPlace(deps: SurfaceDeps, project: string): Promise<Result<{ place?: Place }>> {
  const store = deps.workspaces;
  const other = store && notThisProject(store, project, TOOL.getWorkflowStatus);
  if (other) return { ok: false, error: other };
  if (!store || store.folder !== undefined) return { ok: true };
  const listed = (await store.projects()).find((p) => p.project === project || p.ref === project);
  if (listed) return { ok: true, place: place(store, listed) };
  // Not as listed (an own project's `name@tag`): as the store resolves it.
  const info = await store.info(project);
  return info.ok ? { ok: true, place: place(store, { ...info.value, project }) } : info;
}

/** A project the store lists as a place its runs are read from. */
function place(store: WorkspaceStore, p: Pick<ProjectSummary, "project" | "owner" | "access">): Place {
  return { project: p.project, files: store.files(p.project), ...(p.access === "owner" ? {} : { owner: p.owner }) };
}

/** Every place's runs (on one branch, or all), newest first, each naming its project (and owner, when shared). */
async function allRuns(places: Place[], branch?: string): Promise<{ runs: Array<RunSummary & { project: string; shared_by?: string }>; warnings: string[] }> {
  const found = await Promise.all(places.map(async (p) => ({ project: p.project, owner: p.owner, ...(await listRuns(p.files, branch)) })));
  const runs = found.flatMap((f) => f.runs.map((r) => ({ ...r, project: f.project, ...(f.owner ? { shared_by: f.owner } : {}) })));
  runs.sort(newestWritten);
  return { runs, warnings: found.flatMap((f) => (places.length > 1 ? f.warnings.map((w) => `${f.project}: ${w}`) : f.warnings)) };
}

/** Projects get_workflow_status describes where none has a run, at most: those changed last. */
const MAX_DESCRIBED = 3;

/** No run and no session is no error: what the caller's projects have, own and shared with them (every phase's
 *  documents, as a skill in no phase is shown them), and the next step where a sprint is planned, then that none is
 *  (review 273: a project with a final PRD and architecture was answered that nothing exists; review 299: so was a
 *  member whose only project is one shared with them). */
async function noRunsYet(deps: SurfaceDeps, branch: string, places: Place[], runs: boolean): Promise<ToolOutcome> {
  // A returning user with no project, or an offer waiting, is told what bmad-project list tells them (review 385).
  const [ordered, offers] = await Promise.all([changedLastFirst(places), deps.workspaces ? deps.workspaces.offers() : []]);
  const projects = await Promise.all(ordered.slice(0, MAX_DESCRIBED).map(async (place) => ({ place, state: await projectState(deps, place.project, runs) })));
  const found = projects.flatMap(({ place, state }) => (state ? [{ place, state }] : []));
  const lines = found.flatMap(({ place, state }) => (state.lines.length ? [`Project ${place.project}${place.owner ? ` (shared by ${place.owner})` : ""}:`, ...state.lines] : []));
  const welcome = deps.workspaces ? offerLines(places.length > 0, offers) : [];
  // Beside a project's documents, not "no runs": BMAD's own runs are its documents and memlogs, which the lines name
  // (review 368: "Next: resume …" was followed by "No runs").
  const none = found.some(({ state }) => state.documents.length) ? `(No delivery sessions or ${RUNS_DIR}/${branch}/ state files; BMAD's own runs are the documents above.)` : `No runs on branch ${branch} (${RUNS_DIR}/${branch}/) and no delivery sessions yet.`;
  const value = found.map(({ place, state }) => ({
    project: place.project,
    ...(place.owner ? { shared_by: place.owner } : {}),
    documents: state.documents.filter((d) => d.status),
    ...(state.sprint_status ? { sprint_status: state.sprint_status } : {}),
  }));
  // The projects not described are named, so that a caller with more than MAX_DESCRIBED learns of them (review 305).
  const rest = ordered.slice(MAX_DESCRIBED).map((p) => p.project);
  const shown = rest.slice(0, MORE_NAMED);
  const more = rest.length ? [`${rest.length} more: ${shown.join(", ")}${rest.length > shown.length ? ", …" : ""} — ${TOOL.getProjectContext} ${JSON.stringify({ project: shown[0] })} describes one.`] : [];
  return done([...lines, ...more, ...welcome, none].join("\n"), { runs: [], sessions: [], projects: value, ...(rest.length ? { more_projects: rest } : {}), ...(offers.length ? { offers } : {}) });
}

/** Projects the answer names past those it describes, at most. */
const MORE_NAMED = 10;

/** The places, the one whose files changed last first (one cheap call each; a place that cannot say goes last, in the
 *  order given): the project worked on now is the one described (review 305: four projects were cut to the first three
 *  by name, and the one with the draft PRD went unmentioned). */
async function changedLastFirst(places: Place[]): Promise<Place[]> {
  if (places.length <= 1) return places;
  const at = await Promise.all(places.map(async (p) => {
    const out = await p.files.lastChanged?.();
    return out?.ok ? (out.value ?? "") : "";
  }));
  return places.map((place, i) => ({ place, at: at[i]! })).sort((a, b) => b.at.localeCompare(a.at)).map((p) => p.place);
}

/** The state an answer shows, at most: a member can write a state of 1 MiB into the caller's project (review 363). */
const MAX_STATE_SHOWN = 8 * 1024;

/** A run, named with its project; one from a shared project says whose it is and who wrote it. `others`: runs of
 *  the same id elsewhere; `note`: a line about another run. Its state is bulk, so it goes out once, in the text, cut
 *  at MAX_STATE_SHOWN; structuredContent says its size and what was cut (as bmad-run's answer does its output). */
function showRun(place: Place, run: { summary: RunSummary; state: Record<string, unknown> }, others = 0, note?: string): ToolOutcome {
  const s = run.summary;
  const where = place.owner ? `${place.project} (${place.owner}'s project, shared with you; state written by ${s.author ?? place.owner}, not by you)` : `${place.project}${s.author ? ` (state written by ${s.author})` : ""}`;
  const head = `Run ${s.branch}/${s.run_id} in ${where}: ${s.status}${s.state_status && s.state_status !== s.status ? ` (${s.state_status})` : ""}${s.workflow ? `, ${s.workflow}` : ""}, updated ${s.updated_at} (${s.path})`;
  const more = others ? `(${others} other project${others === 1 ? " has" : "s have"} a run of this id: ${TOOL.listSessions} lists them.)` : "";
  const state = capOutput(JSON.stringify(run.state), MAX_STATE_SHOWN);
  const read = `${TOOL.bmadFiles} ${JSON.stringify({ action: "read", project: place.project, path: s.path })}`;
  const cut = state.dropped ? `(Its state was cut: the last ${state.dropped} of its ${state.bytes} bytes are left out, so it is not whole JSON. ${read} gives all of it.)` : "";
  const text = [head, more, note, state.text, cut].filter(Boolean).join("\n");
  return done(text, { ...s, project: place.project, ...(place.owner ? { shared_by: place.owner } : {}), state_bytes: state.bytes, ...(state.dropped ? { state_cut: state.dropped } : {}) });
}

/** The line naming a member's run newer than the caller's own work that get_workflow_status shows instead, and how to
 *  see it: by its id, or where the caller's own session of that name would answer that, by reading its file. */
async function newerRunNote(deps: SurfaceDeps, run: RunSummary & { project: string }): Promise<string> {
  const byId = { run_id: run.run_id, ...(run.branch === DEFAULT_BRANCH ? {} : { branch: run.branch }) };
  const shadowed = run.branch === DEFAULT_BRANCH && deps.sessions && (await deps.sessions.get(deps.owner, run.run_id)).ok;
  const how = shadowed ? `${TOOL.bmadFiles} ${JSON.stringify({ action: "read", project: run.project, path: run.path })}` : `${TOOL.getWorkflowStatus} ${JSON.stringify(byId)}`;
  return `(${run.author ?? "Another member"} has a newer run ${run.branch}/${run.run_id} in ${run.project}: ${how} shows it.)`;
}

/** `out` with `note` as its first line, where there is one. */
const withNote = (out: ToolOutcome, note: string | undefined): ToolOutcome => (note && out.ok ? { ...out, text: `${note}\n${out.text}` } : out);

export const spawnSubagentTask = defineTool({
  name: TOOL.spawnSubagentTask,
  toolset: "kit",
  description: "Queue a BMAD agent's sub-task on a delivery session, or take done ones off; bmad-task status lists them.",
  input: z.object({
    agent: z.string().min(1).max(200).optional().describe("Agent, e.g. architect or bmm/dev"),
    task: z.string().min(1).max(16000).optional().describe("What the agent should do"),
    context_files: z.array(z.string().max(1100)).max(50).optional().describe("Files or bmad:// URIs"),
    output_key: z.string().max(200).optional().describe("Where its result goes"),
    done: z.array(z.string().max(64)).max(MAX_QUEUED_SUBTASKS).optional().describe("Ids of done ones"),
    run_id: sessionField.optional().describe("Session id or name (default: newest active)"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  async run({ agent, task, context_files, output_key, done, run_id }, deps) {
    const { sessions, owner, reader } = deps;
    if (!sessions) return noSessions();
    if ((agent === undefined) !== (task === undefined) || (agent === undefined && !done?.length)) {
      return fail("Pass agent and task to queue a sub-task, done with the ids of finished ones to take them off the queue, or both.");
    }
    const found = agent === undefined ? undefined : reader.catalog.resolve("agent", agent);
    if (found && !found.ok) return fail(found.error, found.closest);
    const id = run_id ?? (await sessions.list(owner, "active", 1)).sessions[0]?.session_id;
    if (!id) return fail('No active session: this queues work on a bmad-task session (start one with action "start", or pass run_id). A skill\'s subagent work outside a session: do it yourself.');
    const add = found && task !== undefined ? { agent: `${found.record.module}/${found.record.name}`, task, context_files: context_files ?? [], ...(output_key ? { output_key } : {}) } : undefined;
    // The queue's answer, without the stage's role prompt the session's generating answers carry (review 117: 13 KB a call).
    return stored(deps, await sessions.updateQueue(owner, id, { done: done ?? [], ...(add ? { add } : {}) }), { light: true });
  },
});

export const kitTools = [getWorkflowStatus, listSessions, spawnSubagentTask];
