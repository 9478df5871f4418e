// A story's status in sprint-status.yaml changed as BMAD's sprint_status.py changes that file: its ruamel.yaml
// round trip (sprint-yaml.ts, the port's loader and emitter), one value replaced in development_status, comments,
// order and styles kept, so BMAD's Python reads it back as it wrote it.
import { deref, getItem, isMap, isNone, setItem } from "./sprint-py.js";
import { str, loadYaml, type YMapNode, type YScalar } from "./sprint-yaml.js";
import { dumpYaml } from "./sprint-yaml-emit.js";
import type { Result } from "../result.js";

export type MoveResult = Result<{ text: string; before: string }>;

/** `text` with development_status[`story`] set to `status`; the story must already be there. */
export function moveStoryText(text: string, story: string, status: string): MoveResult {
  const loaded = loadYaml(text);
  if ("error" in loaded) return { ok: false, error: `sprint-status.yaml does not parse: ${loaded.error}` };
  const root = loaded.doc.root;
  const dev = root && !isNone(root) && isMap(root) ? getItem(deref(root) as YMapNode, "development_status") : undefined;
  if (!dev || isNone(dev) || !isMap(dev)) return { ok: false, error: "sprint-status.yaml has no development_status mapping." };
  const map = deref(dev) as YMapNode;
  const current = getItem(map, story);
  if (current === undefined) return { ok: false, error: `No story "${story.slice(0, 100)}" in sprint-status.yaml's development_status.` };
  const before = deref(current)?.kind === "scalar" ? (deref(current) as YScalar).text : "";
  setItem(map, story, str(status));
  return { ok: true, text: dumpYaml(loaded.doc), before };
}
