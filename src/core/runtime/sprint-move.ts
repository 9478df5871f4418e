// A story's status in sprint-status.yaml changed as BMAD's sprint_status.py changes that file: its ruamel.yaml
// round trip (sprint-yaml.ts, the port's loader and emitter), one value replaced in development_status, comments,
// order and styles kept, so BMAD's Python reads it back as it wrote it.
import { digitsValue } from "./py-int.js";
import { classifyKey } from "./sprint-plan-read.js";
import { deref, getItem, isMap, isNone, setItem } from "./sprint-py.js";
import { boardName, str, loadYaml, SPRINT_STATUS_FILE, type YMapNode, type YScalar, type YValue } from "./sprint-yaml.js";
import { dumpYaml } from "./sprint-yaml-emit.js";
import type { Result } from "../result.js";
import { showName } from "../lines.js";

/** `story`: the key moved, as the file holds it (the caller may have named it as the board shows it, cut or written
 *  out, or in another Unicode form). */
export type MoveResult = Result<{ text: string; before: string; story: string }>;

/** Why neither the board nor a move reads a status file that does not load (`reason`, loadYaml's, ruamel's errors
 *  spanning lines), and the fix: one line. */
export const unreadStatus = (path: string, reason: string): string =>
  `${path} is not a file BMAD's sprint scripts read (${reason.replaceAll("\n", "; ")}): sprint_plan.py validate refuses it too. Fix it with bmad-files, or run bmad-sprint-planning again.`;

function shared(value: YValue | null): boolean {
  if (!value) return false;
  if (value.kind === "alias" || value.anchor) return true;
  if (value.kind === "map") return value.merge !== undefined || value.items.some((item) => String(item.key.text).includes("<<") || item.key.explicitTag?.endsWith(":merge") || item.key.anchor !== undefined || shared(item.value));
  return value.kind === "seq" && value.items.some((item) => shared(item.value));
}

/** `text` with development_status[`story`] set to `status`; the story must already be there. `stamp`: the time of the
 *  move ("MM-DD-YYYY HH:MM", the project's clock), for `last_updated` where the file keeps one, as sprint_status.py's
 *  update stamps it; a backlog epic whose story starts goes in-progress, as BMAD's workflows move it (review 85).
 *  `path`: the file's, as a refusal names it. */
export function moveStoryText(text: string, story: string, status: string, stamp?: string, path = SPRINT_STATUS_FILE): MoveResult {
  let loaded: ReturnType<typeof loadYaml>;
  try {
    loaded = loadYaml(text);
  } catch (error) {
    loaded = { error: (error as Error).message };
  }
  if ("error" in loaded) return { ok: false, error: unreadStatus(path, loaded.error) };
  // A value shared through an anchor, an alias or a merge key would be written back changed for every story that
  // shares it (or left dangling): the board moves only plain values.
  if (shared(loaded.doc.root)) return { ok: false, error: "sprint-status.yaml shares values through YAML anchors, aliases or merge keys (&, *, <<): move this story by editing the file, or with BMAD's sprint_status.py." };
  const root = loaded.doc.root;
  const dev = root && !isNone(root) && isMap(root) ? getItem(deref(root) as YMapNode, "development_status") : undefined;
  if (!dev || isNone(dev) || !isMap(dev)) return { ok: false, error: "sprint-status.yaml has no development_status mapping." };
  const map = deref(dev) as YMapNode;
  // The board shows a key's controls and format characters written out (`⟦U+200E⟧`, `⟦U+200B⟧`: reviews 91, 281): that names the key too, when only one; and
  // one key written so literally is then no less a match (review 100: it won over the key the board showed).
  // In either Unicode form (review 313: a key copied from a Mac's file name, decomposed, was "no story" beside its twin).
  const asked = story.normalize("NFC");
  // A key the board cut (boardName) by the name it showed.
  const named = map.items.flatMap((item) => (item.key.tag === "str" && [showName(String(item.key.text)), boardName(String(item.key.text))].some((name) => name.normalize("NFC") === asked) ? [String(item.key.text)] : []));
  if (!named.length && getItem(map, story) !== undefined) named.push(story);
  const shown = boardName(story);
  if (named.length !== 1) return { ok: false, error: named.length ? `"${shown}" names ${named.length} stories in sprint-status.yaml's development_status: move one by editing the file.` : `No story "${shown}" in sprint-status.yaml's development_status.` };
  story = named[0]!;
  const current = getItem(map, story)!;
  const before = deref(current)?.kind === "scalar" ? (deref(current) as YScalar).text : "";
  setItem(map, story, str(status));
  // The story's epic by its number, as sprint_plan.py compares them (int() of any decimal digits): `epic-01` and
  // `epic-٠١` are the epic of `1-2-x`.
  const lead = /^(\p{Nd}+)-/u.exec(story)?.[1];
  const number = lead === undefined ? undefined : digitsValue(lead);
  const epic = map.items.find((item) => {
    const key = classifyKey(String(item.key.text));
    return key?.[0] === "epic" && key[1] === number;
  })?.key.text;
  const epicStatus = epic === undefined ? undefined : getItem(map, String(epic));
  if (status !== "backlog" && epicStatus !== undefined && deref(epicStatus)?.kind === "scalar" && (deref(epicStatus) as YScalar).text === "backlog") setItem(map, String(epic), str("in-progress"));
  const top = deref(root!) as YMapNode;
  if (stamp !== undefined && getItem(top, "last_updated") !== undefined) setItem(top, "last_updated", str(stamp));
  return { ok: true, text: dumpYaml(loaded.doc), before, story };
}
