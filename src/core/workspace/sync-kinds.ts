// What sync (pull and push) carries in BMAD's folders, by the kind of file: the rule both the bridge and the faults
// script judge a folder by.
import { isPersonalConfig, isSecretFile } from "../catalog/config.js";
import { foldPath, isScriptPath } from "./paths.js";
import { SEEDED_FILES } from "./installer-config.js";

/** What sync carries in BMAD's folders (_bmad/, _bmad-output/, .claude/specs/) besides BMAD's own scripts (judged by their bytes): documents of the kinds BMAD
 *  writes there, which no tool runs. A test runner collects tests in every folder (review 47: a collaborator's
 *  `conftest.py` and `x.spec.js` in _bmad-output/ ran when the owner ran pytest and vitest; review 49: pytest runs
 *  `test*.txt` as doctests), and a list of runners' names would miss the next runner, so it is kinds allowed, not
 *  names refused. */
const DOCUMENT = /\.(md|markdown|ya?ml|toml|json|jsonl|csv|xml|html?|css|svg|excalidraw|mmd|mermaid|puml|png|jpe?g|gif|webp|pdf)$/;
/** Documents an agent or a tool loads as its own instructions or settings from whatever folder it works in (review
 *  49: Claude Code reads a folder's CLAUDE.md when it reads files there; a `.gitignore` hides files from git status). */
const LOADED = /^(claude(\.local)?|agents?(\.override)?|gemini|qwen|crush|warp|copilot-instructions)\.md$|^\.gitignore$/;

/** Project and task manifests, by name: build tools and task runners find them in any folder (review 54: Nx made a
 *  collaborator's `_bmad-output/evil/project.json` a project whose `test` target ran on the owner's next
 *  `nx run-many`). These are data kinds BMAD writes too, so here names are refused: the ones tools discover. */
const MANIFEST = /^(package(-lock)?\.json|npm-shrinkwrap\.json|pnpm-(workspace|lock)\.ya?ml|project\.json|workspace\.json|nx\.json|lerna\.json|rush\.json|turbo\.json|deno\.json|bunfig\.toml|[jt]sconfig(\.[^/]*)?\.json|pyproject\.toml|pixi\.toml|uv\.toml|hatch\.toml|environment\.ya?ml|cargo\.toml|rust-toolchain\.toml|composer\.json|pom\.xml|build\.xml|moon\.ya?ml|taskfile(\.dist)?\.ya?ml|(docker-)?compose(\.[^/]*)?\.ya?ml|devbox\.json|vercel\.json|netlify\.toml|wrangler\.(toml|json)|firebase\.json|serverless\.ya?ml|skaffold\.ya?ml|chart\.ya?ml|kustomization\.ya?ml|pubspec\.ya?ml|melos\.ya?ml|mkdocs\.ya?ml|renovate\.json|biome\.json|dprint\.json|package\.ya?ml|([^/]*\.)?garden\.ya?ml|dvc\.ya?ml)$/;

/** BMAD's render cache, which its installer keeps out of git. */
const RENDER_CACHE = /^_bmad\/render\//i;

/** A person's own file, which BMAD keeps out of git: `*.user.toml` (a copy of one too) and the render cache. Push sends
 *  none; pull takes one only where the puller wrote all of it (review 47: a collaborator's `config.user.toml`, pulled,
 *  overrode the owner's team settings unseen). */
export const isPersonalFile = (path: string) => isPersonalConfig(path) || RENDER_CACHE.test(path);

/** BMAD's installation in a project (`_bmad/`: its config, customization layers, manifests, skills), which the user's
 *  agents follow as their own settings and steps; its memory (`_bmad/_memory/`) is documents, and its scripts are
 *  judged by their bytes. A pull takes one only where the puller wrote all of it (review 54: a collaborator's
 *  `activation_steps_prepend` and config paths, pulled, steered the owner's local agent unnamed). */
export const isInstallFile = (path: string): boolean => {
  const folded = foldPath(path);
  return folded.startsWith("_bmad/") && !folded.startsWith("_bmad/_memory/") && !isScriptPath(path);
};

/** BMAD's installer's own `.gitignore` at its place (`_bmad/custom/`, `_bmad/render/`: what keeps `*.user.toml` and
 *  the render cache out of git), with the bytes it writes there; undefined for any other path. A pull carries one only
 *  with those bytes (review 62: left behind, the puller's `config.user.toml` was no longer ignored by git). */
export const seededIgnore = (path: string): string | undefined => (path.endsWith("/.gitignore") ? SEEDED_FILES.get(path) : undefined);

/** The folders sync carries: BMAD's own (its config and what its workflows write) and the delivery sessions'
 *  artifacts. Push sends new files only from them, and pull writes only into them: a collaborator's `src/x.py` or
 *  `src/sitecustomize.py` never lands among the user's code, where their tools would load it. */
export const SYNC_FOLDERS = ["_bmad/", "_bmad-output/", ".claude/specs/"];
/** "_bmad/, _bmad-output/ and .claude/specs/", for messages. */
export const SYNC_FOLDERS_TEXT = `${SYNC_FOLDERS.slice(0, -1).join(", ")} and ${SYNC_FOLDERS.at(-1)}`;
export const inSyncFolders = (path: string) => SYNC_FOLDERS.some((folder) => path.startsWith(folder)) && path.split("/").every((part) => part !== "" && part !== "." && part !== "..");

/** Why a pull leaves a workspace's file at `path` on the remote, or undefined where it brings it. */
export const pullLeaves = (path: string): string | undefined =>
  inSyncFolders(path) ? notCarried(path) : `outside ${SYNC_FOLDERS_TEXT}, the folders pull writes: copy it by hand if you want it`;

/** Why sync leaves the file at `path` where it is (neither pulled nor pushed) as no document, or undefined. */
export function notCarried(path: string): string | undefined {
  if (isScriptPath(path) || seededIgnore(path) !== undefined) return undefined;
  // A name for secrets is one no tool on the user's machine reads: pulled, it stopped every later pull (review 92).
  if (isSecretFile(path)) return "a name kept for secrets (credentials, tokens, keys), which no tool here reads: sync carries none. Read it on the remote, or give it another name there";
  const name = foldPath(path.slice(path.lastIndexOf("/") + 1));
  if (LOADED.test(name)) return "a file an agent or tool loads as its own instructions or settings from the folder it is in: sync carries none. Copy it by hand after reading it";
  if (MANIFEST.test(name)) return "a project or task manifest, which build tools and task runners find in any folder (Nx's project.json, a package.json's scripts): sync carries none. Copy it by hand after reading it";
  if (DOCUMENT.test(name)) return undefined;
  return "not a document (markdown, YAML, JSON, CSV, HTML, images...): sync carries only documents and BMAD's own scripts, so nobody's code lands where a tool (a test runner) would load it. Copy it by hand after reading it";
}

