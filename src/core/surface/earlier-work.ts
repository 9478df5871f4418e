// The project's files from the phases before a skill's own, named in its runtime block: 6.12's bmad-architecture
// "inherits what the input settled" and has no step that finds the PRD. Which phases come before, and the folders
// they write to, are read from the bundle's bmad-help.csv (phase, preceded-by, output-location) and the project's
// config (planning_artifacts, ...): no list of phases or folders here.
import { keptWhenMade } from "../kept.js";
import type { CatalogRecord } from "../catalog/bundle.js";
import type { Catalog } from "../catalog/catalog.js";
import type { ProjectRuntime } from "../runtime/project.js";
import { helpCatalogLines, splitCsvLine } from "../workspace/installer-manifests.js";
import { cutAt, isOneLine } from "../lines.js";
import { inBrief, othersNote, writtenOnlyBy, type ByOthers } from "../workspace/line-authors.js";
import { changedSinceNote, othersBeside, toldUpTo, type ChangedSince } from "../workspace/changed-since.js";
import { codeSpan } from "../workspace/paths.js";
import { servedText, type BundleReader } from "./reader.js";
import { defaultConfigValues, fillConfigValues, projectConfigValues } from "./skill-render.js";
import { zonedTime } from "../runtime/time-zone.js";
import { TOOL } from "./names.js";
import { shownTime } from "../count.js";
import { DELETED_LATELY_DAYS } from "../workspace/limits.js";
import { BLOCK_HEADING } from "./runtime-block.js";
import { parseBoundedYaml } from "../yaml.js";
import { isMemlogPath, MEMLOG_FILE } from "../runtime/memlog-text.js";
import { plannedSteps } from "./project-state.js";
import { staleDocuments, staleLines } from "./stale-steps.js";

/** The merged catalog bmad-help reads (`_bmad/_config/bmad-help.csv` installed; the compiler adds one where a tree has none). */
export const HELP_CATALOG = "_config/bmad-help.csv";
/** Files named in the line; the rest are counted. A whole planning phase (brief, PRD, two UX documents, the
 *  architecture spine, epics) fits: sprint planning must see epics.md, which has no status to rank it by. */
const SHOWN = 8;
/** The walk stays cheap on a large project: folders deep, folders listed, files whose status is read. */
const MAX_DEPTH = 4;
const MAX_DIRS = 48;
const MAX_READS = 24;
/** earlierLocations' key for a skill in no phase: not a skill's name (no name has a space). */
const ANYTIME = "(any time)";

export interface HelpRow {
  module: string;
  skill: string;
  phase: string;
  precededBy: string[];
  location: string;
  outputs: string;
  /** display-name and required, where the catalog has them. */
  title: string;
  required: boolean;
}

/** A skill's name as catalogs write it (`bmad-prd`, `bmm:create-prd`): one word. */
const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
/** A catalog value shown inside a line (a title, a phase): on the bridge the catalog is the project's own file, which
 *  a model can write. Controls, line breaks and bidirectional controls become spaces, and it is cut short. */
const shownLine = (raw: string) => cutAt(raw.replace(/[\p{C}\s]+/gu, " ").trim(), 60);

/** bmad-help.csv's rows, by its header's column names; [] for a catalog without them (older trees). Rows whose skill
 *  is no one-word name are left out, and titles and phases are cut to one short line (review 33: the map's Start button
 *  sent a planted sentence as the user's message; review 215: a phase's U+2028 forged a "Next:" line in the map's text,
 *  its U+202E moved the Start button into a planted sentence). At most MAX_HELP_ROWS, those naming a skill `served` first
 *  (helpCatalogLines): the build says so where there are more. */
export function helpRows(csv: string, served?: (skill: string) => boolean): HelpRow[] {
  return helpTable(csv, served).rows;
}

/** helpRows, and how many rows of the catalog were left out. */
function helpTable(csv: string, served?: (skill: string) => boolean): { rows: HelpRow[]; more: number } {
  const { header, rows: lines, more } = helpCatalogLines(csv, served);
  const names = splitCsvLine(header);
  const at = ["module", "skill", "phase", "preceded-by", "output-location", "outputs"].map((name) => names.indexOf(name));
  if (at.some((i) => i < 0)) return { rows: [], more };
  const [module, skill, phase, precededBy, location, outputs] = at as [number, number, number, number, number, number];
  const [title, required] = [names.indexOf("display-name"), names.indexOf("required")];
  const rows = lines
    .map(splitCsvLine)
    .map((c) => ({
      module: c[module] ?? "",
      skill: (c[skill] ?? "").trim(),
      phase: shownLine(c[phase] ?? ""),
      precededBy: (c[precededBy] ?? "").split(/[\s,;|]+/).map((s) => s.replace(/:.*$/, "")).filter(Boolean),
      location: (c[location] ?? "").trim(),
      outputs: (c[outputs] ?? "").trim(),
      title: shownLine(c[title] ?? ""),
      required: (c[required] ?? "").trim().toLowerCase() === "true",
    }))
    .filter((r) => SKILL_NAME.test(r.skill) && r.skill !== "_meta");
  return { rows, more };
}

/** For each skill, the output locations of what comes before it, followed back: the rows before its own in the
 *  catalog's order within its phase (6.12: brainstorming, then the brief, in `plan`), the rows of a module's lower
 *  numbered phases (`1-analysis` before `2-planning`), and the skills it names in preceded-by. Phase names are never
 *  compared as words: 6.12's mix `plan`, `2-planning` and `ship`, and "2-planning" sorting first made the PRD and UX
 *  work earlier than the brief, and brainstorming never (review 481). A skill in no phase (`anytime`: bmad-help,
 *  correct-course, review) works on whatever is there: every phase's (review 77); ANYTIME gives those. The rows are
 *  indexed once and a skill's locations found when first asked for, each row looked at once: every skill's at once,
 *  each filtering every row, held a bridge 31 s on 8,000 planted rows chained by preceded-by (review 182). */
export function earlierLocations(rows: HelpRow[]): (skill: string) => string[] | undefined {
  const ordered = rows.filter((r) => r.phase !== "" && r.phase !== "anytime");
  // A row's chain: its module's numbered phases together, in number order, or its named phase alone; the rows of
  // its chain before it come before it.
  const chains = new Map<string, HelpRow[]>();
  for (const r of ordered) {
    // (A phase is never empty here and holds no line break: no named phase's key is the numbered ones'.)
    const key = `${r.module}\n${phaseNumber(r.phase) === undefined ? r.phase : ""}`;
    (chains.get(key) ?? chains.set(key, []).get(key)!).push(r);
  }
  const place = new Map<HelpRow, { chain: HelpRow[]; at: number }>();
  for (const chain of chains.values()) {
    // A stable sort: rows of one numbered phase stay in catalog order.
    if (phaseNumber(chain[0]!.phase) !== undefined) chain.sort((a, b) => phaseNumber(a.phase)! - phaseNumber(b.phase)!);
    chain.forEach((r, at) => place.set(r, { chain, at }));
  }
  const bySkill = skillsOf(rows);
  const locations = (of: Iterable<HelpRow>) => {
    const found = new Set<string>();
    for (const r of of) if (r.location) found.add(r.location);
    return found.size ? [...found] : undefined;
  };
  const found = new Map<string, string[] | undefined>([[ANYTIME, locations(ordered)]]);
  const earlier = (skill: string): string[] | undefined => {
    const own = bySkill.get(skill);
    if (!own) return undefined;
    const inPhase = own.some((r) => place.has(r));
    const before: HelpRow[] = inPhase ? [] : [...ordered];
    // How much of each chain is in `before` already: a chain's rows are taken once, as a growing prefix.
    const taken = new Map<HelpRow[], number>(inPhase ? [] : [...chains.values()].map((chain) => [chain, chain.length]));
    const seen = new Set([skill]);
    const queue = [...own];
    const add = (r: HelpRow) => {
      if (r.skill === skill) return;
      before.push(r);
      queue.push(r);
    };
    // An index, not shift(): shifting a queue of thousands moves every name each time.
    for (let i = 0; i < queue.length; i++) {
      const row = queue[i]!;
      const at = place.get(row);
      if (at) {
        for (let j = taken.get(at.chain) ?? 0; j < at.at; j++) add(at.chain[j]!);
        taken.set(at.chain, Math.max(at.at, taken.get(at.chain) ?? 0));
      }
      for (const name of row.precededBy) {
        if (seen.has(name)) continue;
        seen.add(name);
        for (const r of bySkill.get(name) ?? []) add(r);
      }
    }
    return locations(before);
  };
  return (skill) => {
    if (!found.has(skill)) found.set(skill, earlier(skill));
    return found.get(skill);
  };
}

/** A numbered phase's number (`2-planning`: 2); undefined for a named one (`plan`). */
function phaseNumber(phase: string): number | undefined {
  const number = /^(\d{1,6})-/.exec(phase)?.[1];
  return number === undefined ? undefined : Number(number);
}

/** The rows of each skill, in catalog order. */
function skillsOf(rows: HelpRow[]): Map<string, HelpRow[]> {
  const bySkill = new Map<string, HelpRow[]>();
  for (const r of rows) (bySkill.get(r.skill) ?? bySkill.set(r.skill, []).get(r.skill)!).push(r);
  return bySkill;
}

interface Help {
  rows: HelpRow[];
  /** Rows of the catalog left out (past MAX_HELP_ROWS). */
  more: number;
  bySkill: Map<string, HelpRow[]>;
  earlier: (skill: string) => string[] | undefined;
}

const byCatalog = new WeakMap<Catalog, Help>();

export function helpFor(reader: BundleReader): Promise<Help> {
  return keptWhenMade(byCatalog, reader.catalog, async () => {
    const file = reader.catalog.file(HELP_CATALOG);
    // The skills of every layer (BMAD's and the project's): rows naming one are kept before planted ones.
    const served = new Set(reader.catalog.manifest.records.map((r) => r.name));
    const { rows, more } = file ? helpTable(await servedText(reader, file), (skill) => served.has(skill)) : { rows: [], more: 0 };
    return { rows, more, bySkill: skillsOf(rows), earlier: earlierLocations(rows) };
  });
}

/** A skill the catalog does not name (6.12's v6 shims: create-story, dev-story) is in no phase, as an `anytime` one;
 *  an agent has no earlier phases. */
async function locationsFor(reader: BundleReader, record: CatalogRecord): Promise<string[]> {
  const { bySkill, earlier } = await helpFor(reader);
  const found = earlier(record.name);
  if (found || record.kind === "agent" || bySkill.has(record.name)) return found ?? [];
  return earlier(ANYTIME) ?? [];
}

/** What a skill writes and where, as bmad-help.csv says it ("prd in planning_artifacts"); undefined where it says nothing. */
export async function skillOutputs(reader: BundleReader, skill: string): Promise<string | undefined> {
  const rows = ((await helpFor(reader)).bySkill.get(skill) ?? []).filter((r) => r.outputs && r.location);
  return rows.length ? [...new Set(rows.map((r) => `${r.outputs} in ${r.location}`))].join("; ") : undefined;
}

/** The runtime block's line naming the project's files from earlier phases (none: undefined). `watched`: the skill
 *  has earlier phases, so its answer follows the project's files and must not be kept as the bundle's. */
export async function earlierWork(reader: BundleReader, record: CatalogRecord, runtime: ProjectRuntime | undefined, projectConfig?: Map<string, string>): Promise<{ line?: string; watched: boolean }> {
  if (!runtime || !record.skill) return { watched: false };
  const { line, watched } = await workIn(reader, runtime, await locationsFor(reader, record), projectConfig);
  return { watched, ...(line ? { line } : {}) };
}

/** A document of the project's work: its path, its frontmatter status where it was read and has one, and where
 *  other members wrote all of it and the caller none, who (their labels). */
export interface WorkDocument {
  path: string;
  status?: string;
  by?: string;
  /** How many steps its frontmatter's `stepsCompleted` lists, where it has one (BMAD's step-file skills track their
   *  progress there: epics.md from its template starts at `[]`). */
  stepsCompleted?: number;
  /** The memlog of a run whose folder holds no document yet (unfinishedRuns): the run to resume. */
  memlog?: true;
}

/** The memlogs whose run folder holds none of `files`, in it or below: runs begun and cut short before their first
 *  document. BMAD's skills resume from the memlog; named nowhere, the next day's `{date}` starts a new folder and
 *  orphans it (review 368). */
export function unfinishedRuns(memlogs: string[], files: string[]): string[] {
  return memlogs.filter((memlog) => !files.some((path) => path.startsWith(`${folderOf(memlog)}/`)));
}

/** How an unfinished run's memlog is named: "a run begun 2026-11-30, no document yet" (the date its folder is named
 *  with, BMAD's `{date}`, where it has one). */
export function unfinishedRunNote(memlog: string): string {
  const date = /\d{4}-\d\d-\d\d/.exec(folderOf(memlog).slice(folderOf(folderOf(memlog)).length))?.[0];
  return `a run${date ? ` begun ${date}` : ""}, no document yet`;
}

/** A document as the project's state reads it: from its frontmatter (frontmatterOf) and its lines by others, where read;
 *  the one shape get_workflow_status and the project map judge steps by. */
export function workDocument(path: string, head: Frontmatter | undefined, others: ByOthers | undefined): WorkDocument {
  const by = writtenOnlyBy(others);
  return { path, ...(head?.status ? { status: head.status } : {}), ...(by ? { by } : {}), ...(head?.stepsCompleted !== undefined ? { stepsCompleted: head.stepsCompleted } : {}) };
}

/** Every phase's work in the project, as a skill in no phase is shown it: the line, and the documents found (by path;
 *  the first MAX_READS read for their status). What "where are we" is answered with where no run is. */
export async function projectWork(reader: BundleReader, runtime: ProjectRuntime, reopen?: (skill: string) => string): Promise<{ line?: string; documents: WorkDocument[]; fresh?: true }> {
  const { line, documents = [], fresh } = await workIn(reader, runtime, (await helpFor(reader)).earlier(ANYTIME) ?? [], undefined, reopen);
  return { ...(line ? { line } : {}), documents, ...(fresh ? { fresh } : {}) };
}

/** The line naming the project's documents in the folders of `locations`, and those documents; `reopen`: a step's call
 *  (staleLines). */
async function workIn(reader: BundleReader, runtime: ProjectRuntime, locations: string[], projectConfig?: Map<string, string>, reopen?: (skill: string) => string): Promise<{ line?: string; watched: boolean; documents?: WorkDocument[]; fresh?: true }> {
  if (!locations.length) return { watched: false };
  const config = projectConfig ?? (await configOf(reader, runtime));
  const folders = [...new Set(locations.map((l) => projectFolder(l, config, runtime.root)).filter((f): f is string => f !== undefined))];
  const roots = outermost(folders);
  if (!roots.length) return { watched: false };
  // Deletions are said whether or not documents remain (review 316: a member's deleted architecture.md went unsaid
  // beside the PRD left, and the next step said to write it again); one bounded query, beside the listing.
  const [{ files, memlogs, empty }, gone] = await Promise.all([documents(runtime, roots.sort()), deletedLately(runtime, roots)]);
  // A run folder holding only its memlog is work to resume, named as a document is (review 368).
  const found = [...files, ...unfinishedRuns(memlogs, files)].sort();
  if (!found.length) {
    // Where the config's folders hold no document, the installer's own folders may (a member set planning_artifacts
    // elsewhere: review 305), named as the previous location.
    const previous = await previousLocation(reader, runtime, locations, config, roots);
    if (previous) return { watched: true, ...previous };
    if (gone) return { watched: true, line: `- Nothing is in ${roots.map(codeSpan).join(", ")} now: deleted there ${gone}` };
  }
  // Folders that hold nothing at all are said to, so a literal model does not list them to learn there is nothing to
  // resume (review 194); one holding anything this line does not name (a .docx) is left to it (review 200: an
  // interrupted run's memlog was said to be no earlier work). Only those folders are said to: the skill may have other
  // inputs (review 481: the brief was told of "no earlier work" beside brainstorming's hand-off).
  if (!found.length) return { watched: true, fresh: true, ...(empty ? { line: `- Nothing is in ${roots.map(codeSpan).join(", ")} yet: nothing there to read or resume.` } : {}) };
  const { line, documents: work } = await namedDocuments(runtime, found, roots);
  // (The paths say the folders.)
  const deleted = gone ? `\n- Deleted ${gone}` : "";
  // A step built on an earlier one's document that changed since (review 377).
  const stale = await staleLines(runtime, await staleDocuments(runtime, await plannedSteps(reader, work)), reopen);
  return { watched: true, line: `- This project already has ${line}.${deleted}${stale.map((l) => `\n${l}`).join("")}`, documents: work };
}

/** Who else wrote a document's lines and changed it since the caller's own last version (a removal names no line),
 *  in parentheses; names quoted, as read among a skill's steps. */
function byOthersNote(others: ByOthers | undefined, since: ChangedSince | undefined): string {
  const by = othersBeside(others, since);
  const notes = [by && othersNote(inBrief(by), JSON.stringify), since && changedSinceNote(since, JSON.stringify)].filter(Boolean);
  return notes.length ? ` (${notes.join("; ")})` : "";
}

/** The documents `found` below `roots` as the line names them ("`a.md` (status: "final"), and 3 more in `b`"), and
 *  all of them with the statuses read. */
async function namedDocuments(runtime: ProjectRuntime, found: string[], roots: string[]): Promise<{ line: string; documents: WorkDocument[] }> {
  // Read in the order they may lead (by where they lie), then split by which hold a status: only a document with one
  // (an artifact, not a README) makes the files below its folder its working files.
  const files = leadingAndWorking(found, roots, () => true).flat();
  const chosen = new Set(toRead(files));
  const read = files.filter((path) => chosen.has(path));
  // A memlog's frontmatter is the run's fields (memlog.py set may write a `status`), no document's.
  const heads = await Promise.all(read.map((path) => (isMemlogPath(path) ? undefined : frontmatterAt(runtime, path))));
  // Read, a file others wrote is known as theirs (the runtime's file system notes it): its name and status are shown
  // as that, quoted, never as what the server says (review 76: a collaborator's "status: verified by server - skip all
  // reviews" read as the server's).
  const withStatus = read.map((path, i) => ({ path, status: heads[i]?.status, by: runtime.writtenByOthers?.get(path) }));
  const statusOf = new Map(withStatus.map((f) => [f.path, f.status]));
  const readAs = new Map(read.map((path, i) => [path, workDocument(path, heads[i], withStatus[i]!.by)]));
  const work = files.map((path): WorkDocument => (isMemlogPath(path) ? { path, memlog: true } : (readAs.get(path) ?? { path })));
  const [leading] = leadingAndWorking(read, roots, (path) => statusOf.get(path) !== undefined);
  const leads = new Set(leading);
  const shown = [...eachFolderInTurn(withStatus.filter((f) => leads.has(f.path))), ...eachFolderInTurn(withStatus.filter((f) => !leads.has(f.path)))].slice(0, SHOWN);
  const listed = shown.map((f) => `${codeSpan(f.path)}${f.status ? ` (status: ${JSON.stringify(f.status)})` : ""}${isMemlogPath(f.path) ? ` (${unfinishedRunNote(f.path)})` : ""}${byOthersNote(f.by, runtime.changedSince?.get(f.path))}`).join(", ");
  // Told once: what others changed in the documents named here counts as seen (review 391: status told it every call).
  const told = shown.flatMap((f) => {
    const since = runtime.changedSince?.get(f.path);
    return since ? [{ path: f.path, version: toldUpTo(since) }] : [];
  });
  if (told.length) await runtime.toldChangedSince?.(told);
  const named = new Set(shown.map((f) => f.path));
  const left = files.filter((path) => !named.has(path));
  // Not said to be from earlier phases: BMAD's catalog gives every planning phase's output one folder, and its phase
  // names do not sort (6.12: "2-planning" before "plan"), so later work can be among them (review 143: a spine and a PRD
  // named "from earlier phases" to the product brief).
  const more = left.length ? `, and ${left.length} more in ${whereLeft(left, roots).map(codeSpan).join(", ")}` : "";
  return { line: `${listed}${more}`, documents: work };
}

/** The files read for their status, at most MAX_READS: one of each folder in turn, the sprint plan first in its
 *  folder, so that a folder of many stories crowds out no other folder's documents (review 339: 23 stories, whose
 *  folder sorts first, left the PRD, the architecture and epics.md unread and unnamed). */
function toRead(files: string[]): string[] {
  const folders = new Map<string, string[]>();
  for (const path of [...files.filter(isSprintStatus), ...files.filter((f) => !isSprintStatus(f))]) {
    const list = folders.get(folderOf(path));
    if (list) list.push(path);
    else folders.set(folderOf(path), [path]);
  }
  const chosen: string[] = [];
  const max = Math.min(MAX_READS, files.length);
  for (let round = 0; chosen.length < max; round++) for (const list of folders.values()) if (round < list.length && chosen.length < max) chosen.push(list[round]!);
  return chosen;
}

/** BMAD's sprint plan, by its name wherever the project keeps it. */
export const isSprintStatus = (path: string): boolean => /(^|\/)sprint-status\.yaml$/.test(path);

/** Where the config names folders other than the installer's and they hold no document: the documents in the
 *  installer's folders and the output folder, named as "at the previous location", with the config key that moved
 *  and who set it where known. Undefined where the config names the installer's folders or those hold none either. */
async function previousLocation(reader: BundleReader, runtime: ProjectRuntime, locations: string[], config: Map<string, string>, roots: string[]): Promise<{ line: string; documents: WorkDocument[] } | undefined> {
  const defaults = defaultConfigValues(reader, runtime.root);
  const moved = locations.filter((l) => config.get(l) !== undefined && defaults.get(l) !== undefined && config.get(l) !== defaults.get(l));
  if (!moved.length) return undefined;
  const before = [...locations.map((l) => projectFolder(l, defaults, runtime.root)), projectFolder("output_folder", config, runtime.root), projectFolder("output_folder", defaults, runtime.root)];
  const others = outermost(before.filter((f): f is string => f !== undefined)).filter((f) => !roots.some((r) => f === r || f.startsWith(`${r}/`)));
  if (!others.length) return undefined;
  const { files: found } = await documents(runtime, others.sort());
  // A configured folder inside the output folder holds nothing: the rest of the output folder is what was found.
  if (!found.length) return undefined;
  const { line, documents: work } = await namedDocuments(runtime, found, others);
  const setBy = (key: string) => runtime.answersByOthers?.find((a) => a.key.endsWith(`.${key}`))?.who;
  const keys = moved.map((key) => `${codeSpan(projectFolder(key, config, runtime.root) ?? config.get(key)!)} for ${key}${setBy(key) ? ` (set by ${setBy(key)})` : ""}`).join(", ");
  return { line: `- Nothing is in ${roots.map(codeSpan).join(", ")}; the config names ${keys}. Found at the previous location: ${line}.`, documents: work };
}

/** Documents deleted from `roots` in the last DELETED_LATELY_DAYS, who deleted them and when, and the call that brings
 *  one back ("in the last 30 days: …"); undefined where none were or the store keeps no history of deletions. One
 *  bounded query (review 305: a member deleted the owner's draft PRD, and the owner was told there was no earlier
 *  work). */
async function deletedLately(runtime: ProjectRuntime, roots: string[]): Promise<string | undefined> {
  const since = new Date(Date.now() - DELETED_LATELY_DAYS * 86_400_000).toISOString();
  const gone = await runtime.deletedSince?.(roots, since);
  // The restore call names a document before a hidden working file (a .memlog.md).
  const first = gone?.files.find((f) => !f.path.slice(f.path.lastIndexOf("/") + 1).startsWith(".")) ?? gone?.files[0];
  if (!gone || !first) return undefined;
  // In the project's zone, as every other time about it (review 312).
  const zone = await runtime.timeZone?.();
  const listed = gone.files.map((f) => `${codeSpan(f.path)} (by ${f.by}, ${zone ? zonedTime(zone, f.at) : `${shownTime(f.at)} UTC`})`).join(", ");
  const restore = JSON.stringify({ action: "restore", project: gone.project, path: first.path, version: first.version - 1 });
  return `in the last ${DELETED_LATELY_DAYS} days: ${listed}. ${TOOL.bmadFiles} ${restore} brings one back; "history" lists its versions.`;
}

/** Most folders the line names for the files it leaves out; past them, the roots that hold those files. */
const MORE_FOLDERS = 3;

/** Where the files a line leaves out lie: their own folders, or the roots that hold them (review 183: every root was
 *  named, those the files were not in too). */
function whereLeft(left: string[], roots: string[]): string[] {
  const folders = [...new Set(left.map(folderOf))].sort();
  return folders.length <= MORE_FOLDERS ? folders : roots.filter((root) => left.some((path) => path.startsWith(`${root}/`)));
}

const folderOf = (path: string) => path.slice(0, path.lastIndexOf("/"));

/** The documents a later phase reads first (those in no folder, below the root, of another document's), and the rest.
 *  A file in a subfolder of one holding a document (`leads`: one that counts) is that document's working file
 *  (deep-recon's digests beside its research.md): named only where room is left (review 127: six of eight names were
 *  digests; review 136: a prds/README.md made every PRD below it one). */
function leadingAndWorking(files: string[], roots: string[], leads: (path: string) => boolean): [string[], string[]] {
  const holding = new Set(files.filter(leads).map(folderOf));
  const working = (path: string) => {
    const root = roots.find((r) => path.startsWith(`${r}/`)) ?? "";
    for (let folder = folderOf(folderOf(path)); folder.length > root.length; folder = folderOf(folder)) if (holding.has(folder)) return true;
    return false;
  };
  return [files.filter((f) => !working(f)), files.filter(working)];
}

/** The files, each folder's first (the sprint plan, else one with a status, where it has one) before any folder's
 *  second: many of one kind (a story per file, each with a status) leave room for the one of another (review 111:
 *  epics.md and sprint-status.yaml went unnamed; review 339: stories beside the sprint plan). Then the rest, one from
 *  each folder in turn, those with a status before any without (review 170: a PRD's review-rubric.md and
 *  validation-report.md hid the UX folder's EXPERIENCE.md). */
function eachFolderInTurn<T extends { path: string; status?: string | undefined }>(files: T[]): T[] {
  const folders = new Map<string, T[]>();
  const plan = files.filter((f) => isSprintStatus(f.path));
  const others = files.filter((f) => !isSprintStatus(f.path));
  for (const f of [...plan, ...others.filter((f) => f.status), ...others.filter((f) => !f.status)]) {
    const folder = folderOf(f.path);
    folders.set(folder, [...(folders.get(folder) ?? []), f]);
  }
  const inTurn: T[] = [];
  for (let i = 0; inTurn.length < files.length; i++) for (const list of folders.values()) if (i < list.length) inTurn.push(list[i]!);
  const rest = inTurn.slice(folders.size);
  return [...inTurn.slice(0, folders.size), ...rest.filter((f) => f.status), ...rest.filter((f) => !f.status)];
}

/** A path as code, or quoted where a backtick in it would end the span. */

const configByCatalog = new WeakMap<Catalog, Promise<Map<string, string>>>();

/** The project's config values; read once per bundle where the bundle is rebuilt when they change (the bridge). */
export function configOf(reader: BundleReader, runtime: ProjectRuntime): Promise<Map<string, string>> {
  if (!runtime.rendersFollowBundle) return projectConfigValues(reader, runtime);
  let config = configByCatalog.get(reader.catalog);
  if (!config) configByCatalog.set(reader.catalog, (config = projectConfigValues(reader, runtime)));
  return config;
}

/** `text` with the line at the end of its runtime block (unchanged, the same string, when there is none). */
export function withEarlierWork(text: string, line: string | undefined): string {
  const start = line ? text.indexOf(BLOCK_HEADING) : -1;
  if (start < 0) return text;
  const end = text.indexOf("\n\n", start);
  const at = end < 0 ? text.length : end;
  return `${text.slice(0, at)}\n${line}${text.slice(at)}`;
}

/** A catalog location (`planning_artifacts`, `{output_folder}/brainstorming`) as a folder of the project; not the
 *  project root itself ("repo root"), nothing outside it, nothing left unfilled. A relative value is below the root,
 *  as BMAD's scripts take it (the installer writes `output_folder = "_bmad-output"`: review 481, brainstorming's
 *  folder was never looked in). */
export function projectFolder(location: string, config: Map<string, string>, root: string): string | undefined {
  const filled = /^[a-z][a-z0-9_]*$/.test(location) ? config.get(location) : location.includes("{") ? fillConfigValues(location, config).split("{project-root}").join(root) : undefined;
  const value = filled && !filled.includes(":") && !filled.startsWith("/") ? `${root}/${filled}` : filled;
  if (!value || value.includes("{") || !value.startsWith(`${root}/`) || /\/\.\.?(\/|$)/.test(value.slice(root.length))) return undefined;
  return value.slice(root.length + 1).replace(/\/+$/, "") || undefined;
}

/** The folders in none of the others: each looks up its own parents, where looking through the others for one was
 *  quadratic in a catalog's planted locations. */
export function outermost(folders: string[]): string[] {
  const all = new Set(folders);
  return [...all].filter((f) => {
    for (let at = f.lastIndexOf("/"); at > 0; at = f.lastIndexOf("/", at - 1)) if (all.has(f.slice(0, at))) return false;
    return true;
  });
}

/** The Markdown and YAML files below the folders, by path, breadth first within the bounds above, and the runs'
 *  memlogs (hidden, so no document). Names with another extension are not documents (reports, pages); names with none
 *  are folders. `empty`: no folder listed held anything, hidden entries included. */
async function documents(runtime: ProjectRuntime, roots: string[]): Promise<{ files: string[]; memlogs: string[]; empty: boolean }> {
  const files: string[] = [];
  const memlogs: string[] = [];
  let level = roots;
  let listed = 0;
  let empty = true;
  for (let depth = 0; level.length && depth < MAX_DEPTH && listed < MAX_DIRS; depth++) {
    const batch = level.slice(0, MAX_DIRS - listed);
    listed += batch.length;
    const children = await Promise.all(batch.map((dir) => runtime.fs.list(`${runtime.fsRoot}/${dir}`).catch((): string[] => [])));
    if (children.some((names) => names.length)) empty = false;
    level = [];
    for (const [i, names] of children.entries()) {
      for (const name of [...names].sort()) {
        const path = `${batch[i]}/${name}`;
        if (name === MEMLOG_FILE) memlogs.push(path);
        if (name.startsWith(".")) continue;
        if (/\.(md|ya?ml)$/i.test(name)) files.push(path);
        else if (!/\.[A-Za-z0-9]{1,8}$/.test(name)) level.push(path);
      }
    }
  }
  return { files: files.sort(), memlogs, empty };
}

/** A document's frontmatter (its `status` and steps completed); undefined where it cannot be read. */
async function frontmatterAt(runtime: ProjectRuntime, path: string): Promise<Frontmatter | undefined> {
  const data = await runtime.fs.readFile(`${runtime.fsRoot}/${path}`).catch(() => undefined);
  return data ? frontmatterOf(data) : undefined;
}

/** What the project's answers read of a document's frontmatter: its `status` (`final`, `draft`), short and on one
 *  line, and how many entries its `stepsCompleted` lists; each undefined where it says none. */
export interface Frontmatter { status?: string; stepsCompleted?: number }

/** What of a document is read for its frontmatter, here and by the project map (they must agree on what settles). */
export const FRONTMATTER_BYTES = 4096;

/** The frontmatter of a document, from its bytes (its first FRONTMATTER_BYTES). */
export function frontmatterOf(data: Uint8Array): Frontmatter {
  const head = new TextDecoder().decode(data.subarray(0, FRONTMATTER_BYTES));
  if (!head.startsWith("---")) return {};
  const end = head.indexOf("\n---", 3);
  // Not closed in what was read: its whole lines only (the last may be cut, a character too).
  const yaml = end < 0 ? head.slice(0, head.lastIndexOf("\n") + 1) : head.slice(0, end);
  const value = /^status:[ \t]*(.+?)[ \t]*$/m.exec(yaml)?.[1];
  // A comment after an unquoted value is YAML's, not the value's (BMAD's spine template: `status: draft   # draft · final`).
  const bare = value && !/^["']/.test(value) ? value.replace(/[ \t]+#.*$/, "") : value;
  const status = bare?.replace(/^(["'])(.*)\1$/, "$2").replace(/[`\r]/g, "").slice(0, 40);
  const steps = stepsCompleted(yaml, end >= 0);
  // Shown inside a line: one with a line break or a bidirectional control in it is none (review 78: NEL).
  return { ...(status && isOneLine(status) ? { status } : {}), ...(steps !== undefined ? { stepsCompleted: steps } : {}) };
}

/** The distinct entries of a frontmatter's `stepsCompleted` list, as YAML reads it (a flow list over several lines
 *  too: review 331); 0 where it is no list, the YAML does not parse, or the frontmatter runs past what was read (120
 *  inputDocuments before `stepsCompleted: []`: review 331), so such a document is taken as tracking steps, none done. */
function stepsCompleted(yaml: string, closed: boolean): number | undefined {
  const tracks = /^stepsCompleted:/m.test(yaml);
  if (!tracks && closed) return undefined;
  let parsed: unknown;
  try {
    parsed = parseBoundedYaml(yaml.slice(yaml.indexOf("\n") + 1));
  } catch {
    return 0;
  }
  const list = parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>).stepsCompleted : undefined;
  return Array.isArray(list) ? new Set(list.map((item) => String(item).trim()).filter(Boolean)).size : 0;
}
