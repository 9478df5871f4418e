// What sync (pull and push) carries in BMAD's folders, by the kind of file: the rule both the bridge and the faults
// script judge a folder by.
import { isPersonalConfig } from "../catalog/config.js";
import { foldPath, isScriptPath } from "./paths.js";

/** What sync carries in BMAD's folders (_bmad/, _bmad-output/, .claude/specs/) besides BMAD's own scripts (judged by their bytes): documents of the kinds BMAD
 *  writes there, which no tool runs. A test runner collects tests in every folder (review 47: a collaborator's
 *  `conftest.py` and `x.spec.js` in _bmad-output/ ran when the owner ran pytest and vitest; review 49: pytest runs
 *  `test*.txt` as doctests), and a list of runners' names would miss the next runner, so it is kinds allowed, not
 *  names refused. */
const DOCUMENT = /\.(md|markdown|ya?ml|toml|json|jsonl|csv|xml|html?|css|svg|excalidraw|mmd|mermaid|puml|png|jpe?g|gif|webp|pdf)$/;
/** Documents an agent or a tool loads as its own instructions or settings from whatever folder it works in (review
 *  49: Claude Code reads a folder's CLAUDE.md when it reads files there; a `.gitignore` hides files from git status). */
const LOADED = /^(claude(\.local)?|agents?(\.override)?|gemini|qwen|crush|warp|copilot-instructions)\.md$|^\.gitignore$/;

/** BMAD's render cache, which its installer keeps out of git. */
const RENDER_CACHE = /^_bmad\/render\//i;

/** A person's own file, which BMAD keeps out of git: `*.user.toml` (a copy of one too) and the render cache. Push sends
 *  none; pull takes one only where the puller wrote all of it (review 47: a collaborator's `config.user.toml`, pulled,
 *  overrode the owner's team settings unseen). */
export const isPersonalFile = (path: string) => isPersonalConfig(path) || RENDER_CACHE.test(path);

/** Why sync leaves the file at `path` where it is (neither pulled nor pushed) as no document, or undefined. */
export function notCarried(path: string): string | undefined {
  if (isScriptPath(path)) return undefined;
  const name = foldPath(path.slice(path.lastIndexOf("/") + 1));
  if (LOADED.test(name)) return "a file an agent or tool loads as its own instructions or settings from the folder it is in: sync carries none. Copy it by hand after reading it";
  if (DOCUMENT.test(name)) return undefined;
  return "not a document (markdown, YAML, JSON, CSV, HTML, images...): sync carries only documents and BMAD's own scripts, so nobody's code lands where a tool (a test runner) would load it. Copy it by hand after reading it";
}

