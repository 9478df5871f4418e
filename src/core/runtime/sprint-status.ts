// Port of BMAD 6.12 bmad-retrospective's scripts/sprint_status.py: the epic a retrospective is for (detect-epic), and
// the surgical update of sprint-status.yaml (retro done, action items added or moved on, last_updated), written as
// ruamel.yaml round-trips it and checked after the write (the original put back on any failure). JSON only on stdout.
import { digitsValue } from "./py-int.js";
import { addArgument, addSubparser, addSubparsers, createParser, type Namespace } from "./argparse.js";
import type { ScriptContext, ScriptResult } from "./context.js";
import { decodeUtf8, isOsError, osError, readBytes } from "./py-io.js";
import { isDict, loads, PyError, pyEquals, type PyDict, type PyValue } from "./py-json.js";
import { get, pyRepr, pyStr } from "./py-ops.js";
import { fsPath } from "./py-path.js";
import { splitlines, strip } from "./py-str.js";
import { ACTION_STATUSES, deref, dict, Emit, equalsStr, formatStamp, getItem, intArg, isMap, isNone, isStr, loadFile, runJson, setItem, slugify, strptime, toPy, withoutHelp, writeFileIf, CHANGED_MEANWHILE } from "./sprint-py.js";
import { int, loadYaml, str, type YDoc, type YMapNode, type YScalar, type YSeqNode, type YValue } from "./sprint-yaml.js";
import { dumpYaml } from "./sprint-yaml-emit.js";
import { wallTime } from "./time-zone.js";

const STORY = /^(\p{Nd}+)-\p{Nd}+[a-z]?-/u;
const VERDICTS = ["accepted", "accepted-with-open-items", "rejected"];
const SHAPE = "each --set-action-status entry must have a non-empty string id, or an integer epic and a non-empty string action";

const emit = (value: PyDict, code = 0): never => {
  throw new Emit(value, code, false);
};
/** _emit_error: `restored` only where the caller can speak for the file. */
const failure = (message: string, code = 1, restored?: boolean): never => emit(dict(["ok", false], ["error", message], ...(restored === undefined ? [] : [["restored", restored] as [string, PyValue]])), code);

function parser() {
  const p = withoutHelp(createParser("sprint_status.py", undefined, false, false));
  const sub = addSubparsers(p, "command", true);
  const detect = withoutHelp(addSubparser(p, sub, "detect-epic", ""));
  addArgument(detect, ["--file"], { required: true });
  addArgument(detect, ["--epic"]);
  const update = withoutHelp(addSubparser(p, sub, "update", ""));
  addArgument(update, ["--file"], { required: true });
  addArgument(update, ["--epic"], { required: true });
  addArgument(update, ["--set-retro-done"], { kind: "store_true" });
  for (const flag of ["--add-action", "--set-action-status", "--ref", "--verdict", "--date"]) addArgument(update, [flag]);
  return p;
}

/** _load_document: the document and its development_status (a detached empty one when absent), or the failure. */
async function loadDocument(ctx: ScriptContext, path: string, restored?: boolean): Promise<[YDoc, YMapNode]> {
  const loaded = await loadFile(ctx, path);
  if ("error" in loaded) return failure(loaded.error.startsWith("'utf-8' codec") ? `${path} is not valid UTF-8: ${loaded.error}` : loaded.error, 1, restored);
  const root = loaded.doc.root;
  if (root !== null && !isNone(root) && !isMap(root)) failure("root document is not a mapping", 1, restored);
  const dev = root !== null && !isNone(root) ? getItem(deref(root) as YMapNode, "development_status") : undefined;
  if (dev !== undefined && !isNone(dev) && !isMap(dev)) failure("development_status is not a mapping", 1, restored);
  return [loaded.doc, dev === undefined || isNone(dev) ? { kind: "map", items: [], flow: false } : (deref(dev) as YMapNode)];
}

function retroStatus(dev: YMapNode, key: string, restored?: boolean): PyValue {
  const v = getItem(dev, key);
  if (v !== undefined && !isNone(v) && !isStr(deref(v))) failure(`${key} status must be a string or null`, 1, restored);
  return v === undefined || isNone(v) ? null : (deref(v) as YScalar).text;
}

async function detectEpic(ctx: ScriptContext, args: Namespace): Promise<void> {
  const epicArg = intArg("--epic", args.epic as string | undefined);
  const [, dev] = await loadDocument(ctx, args.file as string);
  const done: PyValue[] = [];
  let maxEpic: bigint | undefined;
  const storyKeys: Array<[bigint, PyValue, YValue]> = [];
  for (const { key, value } of dev.items) {
    const m = STORY.exec(pyStrKey(key));
    if (!m) continue;
    const epic = digitsValue(m[1]!);
    storyKeys.push([epic, toPy(key), value]);
    if (equalsStr(value, "done")) {
      done.push(toPy(key));
      if (maxEpic === undefined || epic > maxEpic) maxEpic = epic;
    }
  }
  if (epicArg !== undefined && epicArg < 1n) failure(`invalid --epic ${epicArg} (expected a positive integer)`);
  const selected = epicArg ?? maxEpic;
  if (selected === undefined) emit(dict(["epic", null], ["story_count", 0n], ["done_stories", done], ["pending_stories", []], ["retro_key", null], ["retro_status", null]));
  const keys = storyKeys.filter(([epic]) => epic === selected);
  const retroKey = `epic-${selected}-retrospective`;
  const status = retroStatus(dev, retroKey);
  const pending = keys.filter(([, , value]) => !equalsStr(value, "done")).map(([, key]) => key);
  emit(dict(["epic", selected!], ["story_count", BigInt(keys.length)], ["done_stories", done], ["pending_stories", pending], ["retro_key", retroKey], ["retro_status", status]));
}

const pyStrKey = (key: YScalar): string => {
  const v = toPy(key);
  return typeof v === "string" ? v : pyStr(v);
};

/** json.loads of an argument, or the JSON failure naming it. */
function parseJson(flag: string, text: string): PyValue {
  try {
    return loads(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return failure(`invalid ${flag} JSON: ${error.message}`, 1, true);
  }
}

const nonEmpty = (v: PyValue | undefined): boolean => typeof v === "string" && strip(v) !== "";
const isInt = (v: PyValue | undefined): boolean => typeof v === "bigint";

function checkInputs(args: Namespace): [PyValue[], PyValue[]] {
  let actions: PyValue[] = [];
  if (args.add_action) {
    const parsed = parseJson("--add-action", args.add_action as string);
    if (!Array.isArray(parsed)) failure("--add-action must be a JSON array", 1, true);
    actions = parsed as PyValue[];
    for (const item of actions) {
      if (!isDict(item)) failure("each --add-action item must be an object", 1, true);
      if (!nonEmpty(get(item, "action"))) failure("each --add-action item must have a non-empty string action", 1, true);
    }
  }
  let updates: PyValue[] = [];
  if (args.set_action_status) {
    const parsed = parseJson("--set-action-status", args.set_action_status as string);
    if (!Array.isArray(parsed)) failure("--set-action-status must be a JSON array", 1, true);
    updates = parsed as PyValue[];
    for (const entry of updates) {
      if (!isDict(entry)) failure("each --set-action-status entry must be an object", 1, true);
      const status = get(entry, "status");
      if (typeof status !== "string" || !ACTION_STATUSES.includes(status)) failure(`invalid --set-action-status status ${pyRepr(status ?? null)} (allowed: ${ACTION_STATUSES.join(", ")})`, 1, true);
      const id = get(entry, "id");
      if (id !== undefined && id !== null) {
        if (!nonEmpty(id)) failure("each --set-action-status id must be a non-empty string", 1, true);
        continue;
      }
      if (!isInt(get(entry, "epic")) || !nonEmpty(get(entry, "action"))) failure(SHAPE, 1, true);
    }
  }
  return [actions, updates];
}

function selectorLabel(entry: PyDict): string {
  const id = entry.get("id");
  if (typeof id === "string") return `id=${pyRepr(id)}`;
  return `epic=${pyRepr(entry.get("epic") ?? null)} action=${pyRepr(entry.get("action") ?? null)}`;
}

function matchItems(entry: PyDict, items: YValue[]): number[] {
  const id = entry.get("id");
  const out: number[] = [];
  items.forEach((item, i) => {
    if (!isMap(item)) return;
    const map = deref(item) as YMapNode;
    if (typeof id === "string") {
      if (equalsStr(getItem(map, "id"), id)) out.push(i);
      return;
    }
    const epic = getItem(map, "epic");
    const d = epic === undefined ? undefined : deref(epic);
    const comparable = d?.kind === "scalar" && (d.tag === "int" || d.tag === "float");
    if (comparable && pyEquals(toPy(d), entry.get("epic") ?? null) && equalsStr(getItem(map, "action"), entry.get("action") as string)) out.push(i);
  });
  return out;
}

/** _comment_counts: each comment line of the text (indentation kept), counted. */
function commentCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  // line.lstrip().startswith("#"): strip() with a sentinel after the line leaves only its start stripped.
  for (const line of splitlines(text)) if (strip(`${line}.`).startsWith("#")) counts.set(line, (counts.get(line) ?? 0) + 1);
  return counts;
}

async function update(ctx: ScriptContext, args: Namespace): Promise<void> {
  const file = args.file as string;
  const epic = intArg("--epic", args.epic as string)!;
  if (epic < 1n) failure(`invalid --epic ${epic} (expected a positive integer)`, 1, true);
  let lastUpdated: string;
  const date = args.date as string | undefined;
  if (date !== undefined) {
    const parsed = strptime(date, "%m-%d-%Y %H:%M");
    if (!parsed) return failure(`invalid --date ${pyRepr(date)} (expected "MM-DD-YYYY HH:MM")`, 1, true);
    lastUpdated = formatStamp(parsed);
  } else {
    const now = await wallTime(ctx);
    lastUpdated = formatStamp([now.year, now.month, now.day, now.hour, now.minute]);
  }
  const verdict = args.verdict as string | undefined;
  if (verdict !== undefined && !VERDICTS.includes(verdict)) failure(`invalid --verdict ${pyRepr(verdict)} (allowed: ${VERDICTS.join(", ")})`, 1, true);
  const [actions, updates] = checkInputs(args);

  let originalBytes: Uint8Array;
  try {
    const at = await fsPath(ctx.fs, file, ctx.cwd);
    if (at === undefined) throw osError("ENOENT", file);
    originalBytes = await readBytes(ctx.fs, at, file);
  } catch (error) {
    if (!isOsError(error)) throw error;
    return failure(error.message, 1, true);
  }
  let originalText: string;
  try {
    originalText = decodeUtf8(originalBytes);
  } catch (error) {
    if (!(error instanceof PyError)) throw error;
    return failure(`${file} is not valid UTF-8: ${error.message}`, 1, true);
  }
  const originalComments = commentCounts(originalText);
  const [doc, dev] = await loadDocument(ctx, file, true);
  if (doc.root === null || isNone(doc.root)) failure("empty or invalid YAML document", 1, true);
  const data = deref(doc.root!) as YMapNode;
  const retroKey = `epic-${epic}-retrospective`;
  let found: PyValue = null;
  let before: PyValue = null;
  let after: PyValue = null;
  if (args.set_retro_done !== undefined) {
    found = dev.items.some((i) => i.key.tag === "str" && i.key.text === retroKey);
    if (found) {
      before = retroStatus(dev, retroKey, true);
      setItem(dev, retroKey, str("done"));
      after = "done";
    }
  }
  const existing = getItem(data, "action_items");
  if (existing !== undefined && !isNone(existing) && deref(existing)!.kind !== "seq") failure("action_items in file is not a list", 1, true);
  const seqNode = existing === undefined || isNone(existing) ? undefined : (deref(existing) as YSeqNode);
  const originalLength = seqNode?.items.length ?? 0;
  const targets: Array<[number, string]> = [];
  if (updates.length) {
    const pool = seqNode?.items.map((i) => i.value) ?? [];
    const claimed = new Map<number, string>();
    for (const entry of updates as PyDict[]) {
      const label = selectorLabel(entry);
      const matches = matchItems(entry, pool);
      if (!matches.length) failure(`no action item matches ${label}`, 1, true);
      if (matches.length > 1) failure(`ambiguous --set-action-status selector ${label}: ${matches.length} matches`, 1, true);
      const idx = matches[0]!;
      if (claimed.has(idx)) failure(`duplicate --set-action-status targets: ${label} and ${claimed.get(idx)} resolve to the same action item`, 1, true);
      claimed.set(idx, label);
      targets.push([idx, entry.get("status") as string]);
    }
    for (const [idx, status] of targets) setItem(deref(pool[idx]!) as YMapNode, "status", str(status));
  }
  let added = 0;
  if (actions.length) {
    let seq = seqNode;
    if (!seq) {
      seq = { kind: "seq", items: [], flow: false };
      setItem(data, "action_items", seq);
    }
    for (const item of actions as PyDict[]) {
      const action = pyStr(item.get("action") ?? "");
      const given = item.get("id");
      const id = given !== undefined && given !== null && given !== false && given !== "" && given !== 0n ? pyStr(given) : `epic-${epic}-retro-item-${seq.items.length + 1}-${await slugify(action, 40)}`;
      const givenRef = item.get("ref");
      const named = givenRef ? pyStr(givenRef) : ((args.ref as string | undefined) ?? "");
      const ref = ctx.pathInFile?.(named) ?? named;
      const entry: YMapNode = { kind: "map", flow: false, items: [] };
      const fields: Array<[string, YValue]> = [["id", str(id, '"')], ["epic", int(epic)], ["action", str(action, '"')], ["owner", str(pyStr(item.has("owner") ? item.get("owner")! : ""), '"')], ["status", str("open")], ["ref", str(ref, '"')]];
      for (const [k, v] of fields) entry.items.push({ key: str(k), value: v });
      seq.items.push({ value: entry });
      added++;
    }
  }
  setItem(data, "last_updated", str(lastUpdated));
  const payload = dumpYaml(doc);
  // Only over the file this run read: another writer's change meanwhile stands, and this run says to run again. The
  // file is whole (restored: true); BMAD's skill reads false as "the file may be incomplete" (review 138).
  if (!(await writeFileIf(ctx, file, originalBytes, payload))) return emit(dict(["ok", false], ["error", CHANGED_MEANWHILE], ["restored", true]), 1);

  const fail = async (message: string): Promise<never> => {
    // Put back only over this run's own write: a change another writer made since is theirs, and stands.
    const restored = await writeFileIf(ctx, file, new TextEncoder().encode(payload), originalBytes);
    return emit(dict(["ok", false], ["error", message], ["restored", restored]), 1);
  };
  // Checked on the bytes this run wrote (the compare-and-set put exactly them there), not on a re-read: a change another
  // writer made since is theirs, and failed this run's count although its own items were written (review 16).
  const reloaded = loadYaml(payload);
  if ("error" in reloaded) return fail(`re-parse failed after write: ${reloaded.error}`);
  const back = reloaded.doc.root;
  if (back === null || isNone(back)) return fail("re-parse produced empty document after write");
  if (!isMap(back)) return fail("re-parse produced a non-mapping document after write");
  const backMap = deref(back) as YMapNode;
  const rdev = getItem(backMap, "development_status");
  if (args.set_retro_done !== undefined && found === true && (!isMap(rdev) || !equalsStr(getItem(deref(rdev) as YMapNode, retroKey), "done"))) return fail(`validation: ${retroKey} not set to done after write`);
  const backItems = getItem(backMap, "action_items");
  const newLength = backItems === undefined || isNone(backItems) ? 0 : (deref(backItems) as YSeqNode).items.length;
  if (newLength !== originalLength + added) return fail(`validation: action_items length mismatch (expected ${originalLength + added}, got ${newLength})`);
  for (const [idx, status] of targets) {
    const item = (deref(backItems) as YSeqNode).items[idx]!.value;
    if (!isMap(item) || !equalsStr(getItem(deref(item) as YMapNode, "status"), status)) return fail(`validation: action item at index ${idx} is not ${pyRepr(status)} after write`);
  }
  const now = commentCounts(payload);
  const lost = new Set([...originalComments].filter(([line, n]) => (now.get(line) ?? 0) < n).map(([line]) => line));
  if (lost.size) return fail(`validation: comment line lost after write: ${pyRepr(splitlines(originalText).find((l) => lost.has(l)) ?? null)}`);
  emit(dict(["ok", true], ["retro_key_found", found], ["retro_status_before", before], ["retro_status_after", after], ["action_items_added", BigInt(added)], ["action_items_updated", BigInt(targets.length)], ["last_updated", lastUpdated], ["verdict", verdict ?? null]));
}

export function main(argv: string[], ctx: ScriptContext): Promise<ScriptResult> {
  return runJson(argv, ctx, parser(), false, (args) => (args.command === "detect-epic" ? detectEpic(ctx, args) : update(ctx, args)));
}
