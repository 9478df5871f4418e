// Port of BMAD 6.12 bmad-sprint-planning's scripts/sprint_plan.py: epic files parsed into sprint-status.yaml
// (generate, merged with the file as ruamel.yaml round-trips it), and the file summarized (status) or checked
// (validate), JSON only on stdout. The commands' reading of the document is in sprint-plan-read.ts.
import { digitsValue } from "./py-int.js";
import { addArgument, addSubparser, addSubparsers, createParser, type Namespace } from "./argparse.js";
import { optionValues } from "./command-line.js";
import type { ScriptContext, ScriptResult } from "./context.js";
import { isOsError, listDir, osError, readText, statPath } from "./py-io.js";
import { PyError, type PyValue } from "./py-json.js";
import { fsPath, normPath } from "./py-path.js";
import { compareCodePoints, isSpace, PY_SPACE, splitlines, strip } from "./py-str.js";
import { cmdStatus, cmdValidate, classifyKey, fail, loadExisting, normalize, RANKS } from "./sprint-plan-read.js";
import { CHANGED_MEANWHILE, dict, Emit, equalsStr, getItem, hashable, isNone, pyStrOf, runJson, setItem, slugify, toPy, truthy, withoutHelp, writeFileIf, exists } from "./sprint-py.js";
import { emptyMap, loadYaml, str, type YDoc, type YMapNode, type YValue } from "./sprint-yaml.js";
import { dumpYaml } from "./sprint-yaml-emit.js";

const W = "[\\p{L}\\p{N}_]"; // Python's \w
const S = PY_SPACE; // Python's \s
const EPIC_HEAD = new RegExp(`^#{1,3}${S}*Epic${S}+(\\p{Nd}+)`, "iu");
const STORY_HEAD = new RegExp(`^#{2,4}${S}*Story${S}+(\\p{Nd}+)\\.(\\p{Nd}+[a-z]?)`, "iu");
const SUSPECT = new RegExp(`^#{1,4}${S}.*(?<!${W})(?:epic|story)(?!${W})`, "iu");
const FENCE = new RegExp(`^${S}{0,3}(?:\`\`\`|~~~)`, "u");

const HEADER_COMMENT = `STATUS DEFINITIONS:
==================
Epic Status:
  - backlog: Epic not yet started
  - in-progress: Epic actively being worked on
  - done: All stories in epic completed

Story Status:
  - backlog: Story only exists in epic file
  - ready-for-dev: Story file created, ready for development
  - in-progress: Developer actively working on implementation
  - review: Implementation complete, ready for review
  - done: Story completed

Retrospective Status:
  - optional: Can be completed but not required
  - done: Retrospective has been completed

Action Item Status:
  - open: Committed during a retrospective, not yet addressed
  - in-progress: Actively being worked on
  - done: Completed

WORKFLOW NOTES:
===============
- Epic transitions to 'in-progress' automatically when its first story starts (via build's sprint sync)
- Stories can be worked in parallel if team capacity allows
- Developer typically creates the next story after the previous one is 'done' to incorporate learnings
- Dev moves story to 'review', then runs code-review (fresh context, different LLM recommended)
- Retrospective appends its action items to action_items; the status view surfaces open ones`;

function parser() {
  const p = withoutHelp(createParser("sprint_plan.py", undefined, false, false));
  const sub = addSubparsers(p, "command", true);
  const gen = withoutHelp(addSubparser(p, sub, "generate", ""));
  addArgument(gen, ["--epic-file"], { kind: "append", required: true });
  addArgument(gen, ["--status-file"], { required: true });
  addArgument(gen, ["--stories-dir"], { required: true });
  addArgument(gen, ["--project"], { required: true });
  addArgument(gen, ["--date"], { required: true });
  addArgument(gen, ["--project-key"]);
  addArgument(gen, ["--tracking-system"]);
  addArgument(gen, ["--story-location"]);
  addArgument(gen, ["--dry-run"], { kind: "store_true" });
  addArgument(gen, ["--fresh"], { kind: "store_true" });
  addArgument(gen, ["--set"], { kind: "append", metavar: "KEY=STATUS" });
  const st = withoutHelp(addSubparser(p, sub, "status", ""));
  addArgument(st, ["--status-file"], { required: true });
  addArgument(st, ["--date"]);
  addArgument(st, ["--stale-days"]);
  const val = withoutHelp(addSubparser(p, sub, "validate", ""));
  addArgument(val, ["--status-file"], { required: true });
  return p;
}

/** The heading's title: after `\s*:?\s*`, before a trailing `\s*#*\s*` (the regex's lazy group, found without one). */
function title(rest: string): string {
  let start = 0;
  const ws = (c: string | undefined) => c !== undefined && isSpace(c);
  while (ws(rest[start])) start++;
  if (rest[start] === ":") start++;
  while (ws(rest[start])) start++;
  let end = rest.length;
  while (end > start && ws(rest[end - 1])) end--;
  while (end > start && rest[end - 1] === "#") end--;
  while (end > start && ws(rest[end - 1])) end--;
  return rest.slice(start, end);
}

type Entry = [string, "epic" | "story" | "retro", bigint];

async function parseEpics(ctx: ScriptContext, paths: string[]): Promise<[Entry[], string[]]> {
  const epics = new Map<bigint, string[]>();
  const warnings: string[] = [];
  for (const path of paths) {
    let lines: string[];
    try {
      const at = await fsPath(ctx.fs, path, ctx.cwd);
      if (at === undefined) throw osError("ENOENT", normPath(path));
      lines = splitlines(await readText(ctx.fs, at, normPath(path)));
    } catch (error) {
      if (!isOsError(error)) throw error;
      return fail(`cannot read epic file ${path}: ${error.message}`);
    }
    let inFence = false;
    for (const [i, line] of lines.entries()) {
      if (FENCE.test(line)) {
        inFence = !inFence;
        continue;
      }
      if (inFence) continue;
      const epic = EPIC_HEAD.exec(line);
      if (epic) {
        const n = digitsValue(epic[1]!);
        if (!epics.has(n)) epics.set(n, []);
        continue;
      }
      const story = STORY_HEAD.exec(line);
      if (story) {
        const n = digitsValue(story[1]!);
        const key = `${n}-${story[2]}-${await slugify(title(line.slice(story[0].length)), 60)}`;
        if (!epics.has(n)) epics.set(n, []);
        const stories = epics.get(n)!;
        if (stories.includes(key)) warnings.push(`duplicate story heading '${key}' at ${path}:${i + 1}`);
        else stories.push(key);
        continue;
      }
      if (SUSPECT.test(line)) warnings.push(`unparsed Epic/Story-like heading at ${path}:${i + 1}: ${strip(line)}`);
    }
  }
  const entries: Entry[] = [];
  for (const n of [...epics.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    entries.push([`epic-${n}`, "epic", n]);
    for (const key of epics.get(n)!) entries.push([key, "story", n]);
    entries.push([`epic-${n}-retrospective`, "retro", n]);
  }
  return [entries, warnings];
}

interface Report {
  new_entries: string[];
  preserved: bigint;
  changed: bigint;
  upgraded_from_disk: string[];
  dropped_orphans: PyValue[];
  legacy_mapped: PyValue[];
  illegal: PyValue[];
}

/** The higher-ranked of computed and existing; never a downgrade. */
function mergeStatus(kind: Entry[1], computed: string, raw: YValue | undefined, key: string, warnings: string[], report: Report): YValue {
  if (raw === undefined || isNone(raw)) return str(computed);
  const [existing, legacy] = normalize(raw);
  if (legacy) report.legacy_mapped.push(dict(["key", key], ["from", toPy(raw)], ["to", equalsStrAny(existing)!]));
  const rank = RANKS[kind];
  const name = equalsStrAny(existing);
  if (name === undefined || !rank.has(name)) {
    warnings.push(`illegal status '${pyStrOf(raw)}' on '${key}' replaced with '${computed}'`);
    report.illegal.push(dict(["key", key], ["status", toPy(raw)]));
    return str(computed);
  }
  return rank.get(name)! >= rank.get(computed)! ? (legacy ? str(name) : raw) : str(computed);
}

/** The str a normalized status is, if it is one. */
function equalsStrAny(v: YValue | string): string | undefined {
  if (typeof v === "string") return v;
  return v.kind === "scalar" && v.tag === "str" ? v.text : undefined;
}

async function buildStatus(ctx: ScriptContext, entries: Entry[], existing: YMapNode | undefined, storiesDir: string, warnings: string[]): Promise<[YMapNode, Report]> {
  const existingStatus = existing ? devItems(getItem(existing, "development_status")) : [];
  const byKey = new Map(existingStatus.filter(([k]) => k.kind === "scalar" && k.tag === "str").map(([k, v]) => [(k as { text: string }).text, v]));
  const report: Report = { new_entries: [], preserved: 0n, changed: 0n, upgraded_from_disk: [], dropped_orphans: [], legacy_mapped: [], illegal: [] };
  let storyFiles = new Set<string>();
  const dir = storiesDir ? await fsPath(ctx.fs, storiesDir, ctx.cwd) : undefined;
  if (dir !== undefined && (await statPath(ctx.fs, dir)) === "dir") storyFiles = new Set((await listDir(ctx.fs, dir)).filter((n) => n.endsWith(".md") && n.length > 3));
  const dev = emptyMap();
  let firstEpic = true;
  for (const [key, kind] of entries) {
    const computed = kind === "story" && storyFiles.has(`${key}.md`) ? "ready-for-dev" : kind === "retro" ? "optional" : "backlog";
    const raw = byKey.get(key);
    const merged = mergeStatus(kind, computed, raw, key, warnings, report);
    if (!byKey.has(key)) report.new_entries.push(key);
    else if (sameStatus(merged, raw!)) report.preserved++;
    else report.changed++;
    if (kind === "story" && computed === "ready-for-dev" && (raw === undefined || isNone(raw) || equalsStr(raw, "backlog"))) report.upgraded_from_disk.push(key);
    dev.items.push({ key: str(key), value: merged, ...(kind === "epic" && !firstEpic ? { before: [""] } : {}) });
    if (kind === "epic") firstEpic = false;
  }
  const computedKeys = new Set(entries.map(([k]) => k));
  report.dropped_orphans = existingStatus.filter(([k]) => !(k.kind === "scalar" && k.tag === "str" && computedKeys.has(k.text))).map(([k, v]) => dict(["key", toPy(k)], ["status", toPy(v)]));
  return [dev, report];
}

/** merged == _normalize(raw)[0] */
function sameStatus(merged: YValue, raw: YValue): boolean {
  const [normal] = normalize(raw);
  const a = equalsStrAny(merged);
  const b = equalsStrAny(normal);
  if (a !== undefined || b !== undefined) return a === b;
  return isNone(merged) && isNone(raw);
}

/** dict(existing.get("development_status") or {}) as (key, value) pairs. */
export function devItems(v: YValue | undefined): Array<[YValue, YValue]> {
  if (!truthy(v)) return [];
  const d = v!.kind === "alias" ? v!.target : v!;
  if (d.kind === "map") return d.items.map((i) => [i.key, i.value]);
  throw new PyError("ValueError", "dictionary update sequence element #0 has length 1; 2 is required");
}

async function cmdGenerate(ctx: ScriptContext, args: Namespace): Promise<void> {
  const epicFiles = args.epic_file as string[];
  const statusFile = args.status_file as string;
  const [entries, warnings] = await parseEpics(ctx, epicFiles);
  if (!entries.length) fail("no epics or stories parsed from the given epic files", ["epic_files", epicFiles]);
  // The bytes the write may replace, read first: a change after them is seen at the write, never overwritten.
  const original = (await exists(ctx, statusFile)) ? await readOriginal(ctx, statusFile) : undefined;
  const loaded = await loadExisting(ctx, statusFile);
  const existing = loaded?.root as YMapNode | undefined;
  const fresh = args.fresh !== undefined;
  const [dev, report] = await buildStatus(ctx, entries, fresh ? undefined : existing, args.stories_dir as string, warnings);
  const valid = new Set(dev.items.map((i) => i.key.text));
  const explicit: Array<[string, string]> = [];
  for (const pair of (args.set as string[] | undefined) ?? []) {
    const eq = pair.indexOf("=");
    const [key, status] = eq < 0 ? [pair, ""] : [pair.slice(0, eq), pair.slice(eq + 1)];
    if (eq < 0 || !key || !status) fail(`--set expects key=status, got '${pair}'`);
    if (!valid.has(key)) fail(`--set key '${key}' is not in the generated plan`, ["valid_keys", [...valid].sort(compareCodePoints)]);
    const kind = classifyKey(key)![0];
    if (!RANKS[kind].has(status)) fail(`--set status '${status}' is not legal for ${kind} '${key}'`, ["legal", [...RANKS[kind].keys()].sort(compareCodePoints)]);
    explicit.push([key, status]);
  }
  for (const [key, status] of explicit) setItem(dev, key, str(status));
  const meta = (field: string, arg: string | undefined, fallback: string): string => {
    if (arg !== undefined) return arg;
    const value = existing ? getItem(existing, field) : undefined;
    return truthy(value) ? pyStrOf(value!) : fallback;
  };
  const date = args.date as string;
  const generatedValue = existing ? getItem(existing, "generated") : undefined;
  const generated = truthy(generatedValue) ? pyStrOf(generatedValue!) : date;
  // A fresh plan keeps the old file's directives: ruamel's YAML object writes what it last read (review 188).
  const doc = existing && !fresh ? loaded! : { directives: loaded?.directives, tags: loaded?.tags, start: HEADER_COMMENT.split("\n").map((l) => (l ? `# ${l}` : "")), root: emptyMap() };
  const root = doc.root as YMapNode;
  setItem(root, "generated", str(generated));
  setItem(root, "last_updated", str(date));
  setItem(root, "project", str(args.project as string));
  setItem(root, "project_key", str(meta("project_key", args.project_key as string | undefined, "NOKEY")));
  setItem(root, "tracking_system", str(meta("tracking_system", args.tracking_system as string | undefined, "file-system")));
  // The place the file had kept too: one a workspace wrote before review 247 named its root here.
  const location = meta("story_location", args.story_location as string | undefined, args.stories_dir as string);
  setItem(root, "story_location", str(ctx.pathInFile?.(location) ?? location));
  setItem(root, "development_status", dev);
  const carried = existing ? getItem(existing, "action_items") : undefined;
  if (!getItem(root, "action_items") && !root.items.some((i) => i.key.tag === "str" && i.key.text === "action_items") && carried !== undefined && !isNone(carried)) {
    root.items.push({ key: str("action_items"), value: carried, before: ["", "Action items committed during retrospectives (section created by the retrospective workflow)"] });
  }
  const counts = new Map<string, PyValue>();
  for (const i of dev.items) {
    const k = pyStrOf(hashable(i.value));
    counts.set(k, ((counts.get(k) as bigint | undefined) ?? 0n) + 1n);
  }
  const inSync = !report.new_entries.length && !report.dropped_orphans.length && !report.illegal.length && !report.legacy_mapped.length && report.changed === 0n;
  const result = dict(["ok", true], ["action", "generate"], ["status_file", statusFile], ["dry_run", args.dry_run !== undefined], ["fresh", fresh]);
  result.set("epics", BigInt(entries.filter((e) => e[1] === "epic").length));
  result.set("stories", BigInt(entries.filter((e) => e[1] === "story").length));
  for (const [k, v] of [["counts", counts], ["generated", generated], ["last_updated", date], ["warnings", warnings]] as Array<[string, PyValue]>) result.set(k, v);
  for (const [k, v] of Object.entries(report)) result.set(k, v as PyValue);
  result.set("in_sync", inSync);
  result.set("explicit_set", explicit.map(([k, s]) => `${k}=${s}`));
  if (args.dry_run === undefined) await writeChecked(ctx, statusFile, doc, dev, original);
  throw new Emit(result, 0, true);
}

async function readOriginal(ctx: ScriptContext, path: string): Promise<Uint8Array | undefined> {
  const at = await fsPath(ctx.fs, path, ctx.cwd);
  return at === undefined ? undefined : ctx.fs.readFile(at);
}

/** The write, then the file read back and checked; the original bytes put back (or the new file removed) on failure. */
async function writeChecked(ctx: ScriptContext, path: string, doc: YDoc, dev: YMapNode, original: Uint8Array | undefined): Promise<void> {
  const root = doc.root as YMapNode;
  const payload = dumpYaml(doc);
  // The file is whole, another writer's (restored: true; false would read as "may be incomplete": review 138).
  if (!(await writeFileIf(ctx, path, original, payload))) fail(CHANGED_MEANWHILE, ["restored", true]);
  try {
    // The bytes this run wrote (the compare-and-set put exactly them there), not a re-read another writer may have changed since.
    const reread = loadYaml(payload);
    if ("error" in reread) throw new PyError("Error", reread.error);
    const back = reread.doc.root as YMapNode;
    const again = devItems(getItem(back, "development_status"));
    const same = again.length === dev.items.length && again.every(([k, v], i) => equalsStrAny(k) === dev.items[i]!.key.text && equalsStrAny(v) === equalsStrAny(dev.items[i]!.value));
    if (!same) throw new PyError("ValueError", "development_status mismatch after write");
    for (const field of ["generated", "last_updated", "project"]) {
      if (pyStrOf(getItem(back, field) ?? str("None")) !== pyStrOf(getItem(root, field)!)) throw new PyError("ValueError", `${field} mismatch after write`);
    }
  } catch (error) {
    if (!(error instanceof PyError)) throw error;
    // Put back only over this run's own write: a change another writer made since is theirs, and stands.
    const written = new TextEncoder().encode(payload);
    // No original: the new file goes, as Python unlinks it.
    const restored = await writeFileIf(ctx, path, written, original ?? null);
    fail(`write or validation failed, ${restored ? "original restored" : "left as it is now"}: ${error.message}`, ["restored", restored]);
  }
}

/** The epic files and the status file a command line names, as written: read in the run's first call. */
export function sprintPlanReads(argv: string[]): string[] {
  return optionValues(argv, ["--epic-file", "--status-file"]);
}

export function main(argv: string[], ctx: ScriptContext): Promise<ScriptResult> {
  return runJson(argv, ctx, parser(), true, async (args) => {
    if (args.command === "generate") return cmdGenerate(ctx, args);
    if (args.command === "status") return cmdStatus(ctx, args);
    return cmdValidate(ctx, args);
  });
}
