// sprint_plan.py's reading side: the key grammar and status vocabulary, loading the existing file, and the
// `status` and `validate` commands (no writes).
import { digitsValue } from "./py-int.js";
import type { Namespace } from "./argparse.js";
import type { ScriptContext } from "./context.js";
import { PyError, type PyValue } from "./py-json.js";
import { repr } from "./py-str.js";
import { ACTION_STATUSES, deref, dict, Emit, exists, getItem, hashable, intArg, isMap, isNone, loadFile, pyReprOf, pyStrOf, stampMinutes, strptime, toPy, truthy, typeNameOf } from "./sprint-py.js";
import type { YDoc, YMapNode, YScalar, YValue } from "./sprint-yaml.js";

const EPIC_KEY = /^epic-(\p{Nd}+)\n?$/u;
const RETRO_KEY = /^epic-(\p{Nd}+)-retrospective\n?$/u;
const STORY_KEY = /^(\p{Nd}+)-(\p{Nd}+)([a-z]?)-[^\n]/u;

const rank = (...names: string[]) => new Map(names.map((n, i) => [n, i]));
export const RANKS = { epic: rank("backlog", "in-progress", "done"), story: rank("backlog", "ready-for-dev", "in-progress", "review", "done"), retro: rank("optional", "done") };
/** Statuses sprint_plan.py still reads, as the status it reads them as (its LEGACY_STATUS). */
export const LEGACY = new Map([["drafted", "ready-for-dev"], ["contexted", "in-progress"]]);
const DATE_FORMAT = "%m-%d-%Y %H:%M";
const STAMP_FORMATS = ["%m-%d-%Y %H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%d"] as const;

type Kind = keyof typeof RANKS;

/** _fail: {"ok": false, "error": ...} and exit 1. */
export const fail = (message: string, ...extra: Array<[string, PyValue]>): never => {
  throw new Emit(dict(["ok", false], ["error", message], ...extra), 1, true);
};

export function classifyKey(key: string): [Kind, bigint] | undefined {
  const retro = RETRO_KEY.exec(key);
  if (retro) return ["retro", digitsValue(retro[1]!)];
  const epic = EPIC_KEY.exec(key);
  if (epic) return ["epic", digitsValue(epic[1]!)];
  const story = STORY_KEY.exec(key);
  return story ? ["story", digitsValue(story[1]!)] : undefined;
}

function storySortKey(key: string): [bigint, bigint, string, string] {
  const m = STORY_KEY.exec(key);
  return m ? [digitsValue(m[1]!), digitsValue(m[2]!), m[3]!, key] : [10n ** 9n, 10n ** 9n, "", key];
}

const cmp = (a: bigint | string, b: bigint | string) => (a < b ? -1 : a > b ? 1 : 0);
const compareStories = (a: string, b: string) => {
  const [x, y] = [storySortKey(a), storySortKey(b)];
  return cmp(x[0], y[0]) || cmp(x[1], y[1]) || cmp(x[2], y[2]) || cmp(x[3], y[3]);
};

/** _normalize(raw): the status through the legacy vocabulary, and whether it was a legacy one. */
export function normalize(raw: YValue): [YValue | string, boolean] {
  const d = hashable(raw);
  const text = d.kind === "scalar" && d.tag === "str" ? d.text : undefined;
  if (text !== undefined && LEGACY.has(text)) return [LEGACY.get(text)!, true];
  return [d, false];
}

const statusName = (v: YValue | string): string | undefined => (typeof v === "string" ? v : v.kind === "scalar" && v.tag === "str" ? v.text : undefined);

/** _load_existing: undefined when there is no file (or it is empty); a failure as JSON when it cannot be a status file. */
export async function loadExisting(ctx: ScriptContext, path: string): Promise<YDoc | undefined> {
  if (!(await exists(ctx, path))) return undefined;
  const loaded = await loadFile(ctx, path);
  if ("error" in loaded) return fail(`existing status file is not valid YAML: ${loaded.error}`, ["status_file", path]);
  const root = loaded.doc.root;
  if (root === null || isNone(root)) return undefined;
  if (!isMap(root)) return fail(`existing status file is valid YAML but not a mapping (got ${typeNameOf(root)})`, ["status_file", path]);
  return { ...loaded.doc, root: deref(root)! };
}

function parseStamp(v: YValue | string): number[] | undefined {
  const text = typeof v === "string" ? v : pyStrOf(v);
  for (const fmt of STAMP_FORMATS) {
    const stamp = strptime(text, fmt);
    if (stamp) return stamp;
  }
  return undefined;
}

/** `for item in value` over a loaded value. */
function iterate(v: YValue): YValue[] {
  const d = deref(v)!;
  if (d.kind === "seq") return d.items.map((i) => i.value);
  if (d.kind === "map") return d.items.map((i) => i.key);
  if (d.kind === "scalar" && d.tag === "str") return [...d.text].map((c) => ({ kind: "scalar", tag: "str", text: c, style: "" }) as YScalar);
  throw new PyError("TypeError", `'${typeNameOf(d)}' object is not iterable`);
}

const getOrNone = (map: YMapNode, key: string): PyValue => {
  const v = getItem(map, key);
  return v === undefined ? null : toPy(v);
};

export async function cmdStatus(ctx: ScriptContext, args: Namespace): Promise<void> {
  const path = args.status_file as string;
  const staleDays = intArg("--stale-days", args.stale_days as string | undefined) ?? 7n;
  const loaded = await loadExisting(ctx, path);
  if (!loaded) fail("status file does not exist — run sprint planning to generate it", ["status_file", path]);
  const data = loaded!.root as YMapNode;
  const devValue = getItem(data, "development_status");
  if (truthy(devValue) && !isMap(devValue)) throw new PyError("ValueError", "dictionary update sequence element #0 has length 1; 2 is required");
  const dev = truthy(devValue) ? (deref(devValue) as YMapNode).items : [];
  if (!dev.length) fail("development_status missing or empty — re-run sprint planning", ["status_file", path]);
  const warnings: string[] = [];
  const counts = { story: new Map<string, PyValue>(), epic: new Map<string, PyValue>(), retro: new Map<string, PyValue>() };
  const byStatus = new Map<string, string[]>();
  const legacyMapped: PyValue[] = [];
  const illegal: PyValue[] = [];
  const unrecognized: PyValue[] = [];
  const epicNums = new Set<bigint>();
  const storyEpicNums = new Set<bigint>();
  const epicStatus = new Map<bigint, string>();
  const retroStatus = new Map<bigint, string>();
  for (const { key: keyNode, value: raw } of dev) {
    const key = pyStrOf(keyNode);
    const parsed = classifyKey(key);
    if (!parsed) {
      unrecognized.push(dict(["key", key], ["status", toPy(raw)]));
      continue;
    }
    const [kind, num] = parsed;
    const [normal, legacy] = normalize(raw);
    const status = statusName(normal);
    if (legacy) legacyMapped.push(dict(["key", key], ["from", toPy(raw)], ["to", status!]));
    if (status === undefined || !RANKS[kind].has(status)) {
      illegal.push(dict(["key", key], ["status", toPy(raw)]));
      continue;
    }
    counts[kind].set(status, ((counts[kind].get(status) as bigint | undefined) ?? 0n) + 1n);
    if (kind === "story") {
      if (!byStatus.has(status)) byStatus.set(status, []);
      byStatus.get(status)!.push(key);
      storyEpicNums.add(num);
    } else if (kind === "epic") {
      epicNums.add(num);
      epicStatus.set(num, status);
    } else retroStatus.set(num, status);
  }
  for (const stories of byStatus.values()) stories.sort(compareStories);

  const actionValue = getItem(data, "action_items");
  const openItems: PyValue[] = [];
  (truthy(actionValue) ? iterate(actionValue!) : []).forEach((item, i) => {
    if (!isMap(item)) return warnings.push(`action_items[${i}] is not a mapping and was skipped: ${pyReprOf(item)}`);
    const map = deref(item) as YMapNode;
    const status = getItem(map, "status");
    const name = status !== undefined && deref(status)!.kind === "scalar" && (deref(status) as YScalar).tag === "str" ? (deref(status) as YScalar).text : undefined;
    if (name === undefined || !ACTION_STATUSES.includes(name)) return warnings.push(`action_items[${i}] has a missing or unknown status (${status === undefined ? "None" : pyReprOf(status)})`);
    if (name !== "done") openItems.push(dict(...["epic", "action", "owner", "status"].map((k) => [k, getOrNone(map, k)] as [string, PyValue])));
  });

  const risks: string[] = [];
  const lastUpdated = getItem(data, "last_updated");
  const stamp = truthy(lastUpdated) ? lastUpdated : getItem(data, "generated");
  const date = args.date as string | undefined;
  if (date && stamp !== undefined && truthy(stamp)) {
    const [now, then] = [parseStamp(date), parseStamp(stamp)];
    if (!now || !then) warnings.push(`timestamp format not recognized (--date ${repr(date)}, file ${pyReprOf(stamp)}); staleness check skipped`);
    else {
      if (staleDays > 999999999n || staleDays < -999999999n) throw new PyError("OverflowError", `days=${staleDays}; must have magnitude <= 999999999`);
      if (stampMinutes(now) - stampMinutes(then) > Number(staleDays) * 1440) risks.push(`sprint-status.yaml may be stale (last updated ${pyStrOf(stamp)})`);
    }
  }
  for (const stories of byStatus.values()) {
    for (const key of stories) {
      const num = classifyKey(key)![1];
      if (!epicNums.has(num)) risks.push(`orphaned story '${key}' has no epic-${num} entry`);
    }
  }
  for (const [num, status] of epicStatus) if (status === "in-progress" && !storyEpicNums.has(num)) risks.push(`in-progress epic 'epic-${num}' has no stories`);
  const review = byStatus.get("review") ?? [];
  if (review.length) risks.push(`${review.length} story(ies) in review — run bmad-code-review`);
  if (unrecognized.length) risks.push(`${unrecognized.length} unrecognized key(s) in development_status — run validate`);

  let recommendation: PyValue = null;
  const first = (status: string) => byStatus.get(status)?.[0];
  const next: Array<[string, string, string]> = [["in-progress", "bmad-build", "resume the in-progress story"], ["review", "bmad-code-review", "review the completed implementation"], ["ready-for-dev", "bmad-build", "start the next ready story"], ["backlog", "bmad-build", "start the first backlog story"]];
  const pick = next.find(([status]) => first(status) !== undefined);
  if (pick) recommendation = dict(["skill", pick[1]], ["story_key", first(pick[0])!], ["reason", pick[2]]);
  else {
    const optional = [...retroStatus].filter(([, s]) => s === "optional").map(([n]) => n).sort(cmp);
    if (optional.length) recommendation = dict(["skill", "bmad-retrospective"], ["story_key", null], ["reason", `all stories done — epic-${optional[0]}-retrospective is still open`]);
  }
  const out = dict(["ok", true], ["action", "status"], ["status_file", path]);
  for (const field of ["project", "project_key", "tracking_system", "generated", "last_updated"]) out.set(field, getOrNone(data, field));
  const rest: Array<[string, PyValue]> = [["stories", counts.story], ["epics", counts.epic], ["retrospectives", counts.retro], ["legacy_mapped", legacyMapped], ["illegal", illegal], ["unrecognized", unrecognized], ["open_action_items", openItems], ["risks", risks], ["warnings", warnings], ["recommendation", recommendation], ["all_done", recommendation === null]];
  for (const [k, v] of rest) out.set(k, v);
  throw new Emit(out, 0, true);
}

export async function cmdValidate(ctx: ScriptContext, args: Namespace): Promise<void> {
  const path = args.status_file as string;
  const answer = (problems: string[], legacyMapped: PyValue[] = []) => new Emit(dict(["ok", true], ["action", "validate"], ["status_file", path], ["valid", !problems.length], ["problems", problems], ["legacy_mapped", legacyMapped]), 0, true);
  if (!(await exists(ctx, path))) throw answer(["status file does not exist"]);
  const loaded = await loadFile(ctx, path);
  if ("error" in loaded) throw answer([`not valid YAML: ${loaded.error}`]);
  const problems: string[] = [];
  const legacyMapped: PyValue[] = [];
  const root = loaded.doc.root;
  if (root === null || !isMap(root)) problems.push(`top level is not a mapping (got ${root === null ? "NoneType" : typeNameOf(root)})`);
  else {
    const data = deref(root) as YMapNode;
    for (const field of ["generated", "last_updated", "project", "development_status"]) if (isNone(getItem(data, field))) problems.push(`missing required key '${field}'`);
    for (const field of ["generated", "last_updated"]) {
      const value = getItem(data, field);
      if (!isNone(value) && parseStamp(value!) === undefined) problems.push(`'${field}' timestamp ${repr(pyStrOf(value!))} does not match '${DATE_FORMAT}'`);
    }
    const dev = getItem(data, "development_status");
    if (!isNone(dev) && !isMap(dev)) problems.push("development_status is not a mapping");
    else if (truthy(dev)) {
      for (const { key, value: raw } of (deref(dev) as YMapNode).items) {
        const name = pyStrOf(key);
        const parsed = classifyKey(name);
        if (!parsed) {
          problems.push(`unrecognized key '${name}' (expected epic-N, N-M-slug, or epic-N-retrospective)`);
          continue;
        }
        const [normal, legacy] = normalize(raw);
        const status = statusName(normal);
        if (legacy) legacyMapped.push(dict(["key", name], ["from", toPy(raw)], ["to", status!]));
        if (status === undefined || !RANKS[parsed[0]].has(status)) problems.push(`illegal ${parsed[0]} status ${repr(pyStrOf(raw))} on '${name}'`);
      }
    } else if (isMap(dev)) problems.push("development_status is empty");
    const items = getItem(data, "action_items");
    if (!isNone(items)) {
      if (deref(items)!.kind !== "seq") problems.push("action_items is not a list");
      else {
        iterate(items!).forEach((item, i) => {
          if (!isMap(item)) return problems.push(`action_items[${i}] is not a mapping`);
          const status = getItem(deref(item) as YMapNode, "status");
          const name = status !== undefined && deref(status)!.kind === "scalar" && (deref(status) as YScalar).tag === "str" ? (deref(status) as YScalar).text : undefined;
          if (name === undefined || !ACTION_STATUSES.includes(name)) problems.push(`action_items[${i}] has a missing or unknown status (${status === undefined ? "None" : pyReprOf(status)})`);
        });
      }
    }
  }
  throw answer(problems, legacyMapped);
}
