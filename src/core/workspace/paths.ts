// Workspace names, file paths and bmad://projects/{project}/{path} URIs. A path that could leave the
// project is refused, never normalised: tool paths are taken as written (a "%2e%2e" is a file name),
// URIs are percent-decoded once and the result is checked again.
import { BMAD_SCHEME } from "../catalog/paths.js";
import { compileGlob, type GlobCompile } from "../catalog/glob.js";
import type { Result } from "../result.js";
import { BIDI_CONTROL, holdsLoneSurrogate, isOneLine, SHOWS_AS_NOTHING, writeOutInvisible } from "../lines.js";

export const MAX_PATH_CHARS = 512;
/** Names in a path, at most: far past any BMAD folder's, and what the bridge's walks reach (review 47: 512 characters
 *  of one-letter folders made 48,803 folders on the owner's disk from 104 files). */
export const MAX_PATH_PARTS = 32;
export const PROJECTS_PREFIX = `${BMAD_SCHEME}projects/`;
/** Said where a model would have the user open a workspace's file (a page it wrote, a path): a workspace has no URL
 *  or path the user can open. */
export const WORKSPACE_FILE_UNOPENED = "The user cannot open a workspace file from here: show it to them (as an artifact, where the client has them), or they get it with bmad-mcp pull.";

/** Whether a config value (as written, or filled in) leads out of the workspace at `root` (`bmad://projects/NAME`),
 *  whatever its key: another project's URI anywhere in it, a file URI, or a `..` step (review 63: a collaborator's
 *  `sprint_status` pointed the owner's skills into the owner's private project). One scan for each: linear. */
export function leadsOutOf(root: string, value: string): boolean {
  if (/(^|[\\/])\.\.([\\/]|$)/.test(value) || /file:\//i.test(value)) return true;
  // `{project-root}` goes on only with a `/` (`{project-root}-private`, `{project-root}%32` name another project once
  // filled in: reviews 65 and 70).
  if (/\{project-root\}[^/\s"'`)\]]/.test(value)) return true;
  // A project URI, or the part of one after its scheme (a value other values fill in: `{a}{b}` with `bmad:` and
  // `//projects/other/…`: review 65), names this project or leads out.
  // Judged with escaped and backward slashes as slashes: a misspelt one a model may "fix" into a real URI leads out too
  // (review 73: `bmad:/projects/other`, `bmad:%2F%2Fprojects/other`, `bmad:/\projects/other`).
  const plain = value.replace(/%2f|%5c|\\/gi, "/");
  // The caller's delivery sessions are theirs, not the project's (review 104: a member's `file:` fact loaded the owner's
  // private session artifact into a shared project's PRD).
  if (/bmad:\/*sessions\//i.test(plain) || /\/\/sessions\//i.test(plain)) return true;
  const past = (at: number, length: number) => /[^\s/"'`)\]]/.test(plain[at + length] ?? "");
  for (const scheme of plain.matchAll(/bmad:\/*projects\//gi)) if (!plain.startsWith(root, scheme.index) || past(scheme.index, root.length)) return true;
  const tail = root.slice(root.indexOf("//"));
  const lower = plain.toLowerCase();
  for (let at = lower.indexOf("//projects/"); at >= 0; at = lower.indexOf("//projects/", at + 1)) {
    if (!plain.startsWith(tail, at) || past(at, tail.length)) return true;
  }
  return false;
}

export type Checked<T> = Result<{ value: T }>;

const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/** A project shared with the caller under a name they also use: `{name}@{tag}`, the tag naming its owner. */
const TAGGED = /^([a-z0-9][a-z0-9._-]{0,63})@([0-9a-f]{8})$/;
// eslint-disable-next-line no-control-regex


export const NAME_RULE = 'Project names are 1-64 characters: lowercase letters, digits, ".", "_" and "-", starting with a letter or digit (e.g. "my-app").';

/** A name for a new project, or a project the caller owns. */
export function checkProjectName(raw: string): Checked<string> {
  if (NAME.test(raw) && !raw.includes("..")) return { ok: true, value: raw };
  // The name it is most likely meant as (review 117: "Todo-App" for todo-app got the rule alone).
  // Accents dropped, in either Unicode form alike (review 313: "Café app" gave "caf-app", its decomposed twin "cafe-app").
  const slug = raw.slice(0, 200).normalize("NFD").replace(/\p{M}+/gu, "").toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/\.{2,}/g, ".").replace(/^[^a-z0-9]+|[-.]+$/g, "").slice(0, 64);
  const meant = NAME.test(slug) ? ` Try "${slug}".` : "";
  return { ok: false, error: `Project name "${printable(raw)}" refused. ${NAME_RULE}${meant}` };
}

/** A project reference: a name, or `{name}@{tag}` for one shared with the caller whose name they also use. */
export function parseProjectRef(raw: string): Checked<{ name: string; tag?: string }> {
  const tagged = TAGGED.exec(raw);
  if (tagged && !tagged[1]!.includes("..")) return { ok: true, value: { name: tagged[1]!, tag: tagged[2]! } };
  const plain = checkProjectName(raw);
  if (plain.ok) return { ok: true, value: { name: plain.value } };
  // A name with a tag is a shared project's, whatever its tag: the name rule's "Try" would point at a project that is
  // not there (review 271: "gamma@alice" was offered "gamma-alice").
  const at = raw.indexOf("@");
  if (at >= 0) return { ok: false, error: `Project "${printable(raw.slice(0, 200))}" refused: "${printable(raw.slice(at + 1, at + 41))}" is no project tag. A shared project whose name you also use is "{name}@{tag}", its tag 8 hex digits; bmad-project {"action": "list"} shows the names and tags you can use.` };
  return { ok: false, error: `${plain.error} A shared project whose name you also use is "{name}@{tag}", as bmad-project list shows it.` };
}

/** A file path relative to the project root: POSIX, at most 512 characters, no way out of the project. */
export function checkWorkspacePath(raw: string): Checked<string> {
  if (raw.length === 0) return { ok: false, error: "Path is empty: give a path inside the project, e.g. docs/prd.md." };
  if (raw.length > MAX_PATH_CHARS) return { ok: false, error: `Path is ${raw.length} characters; at most ${MAX_PATH_CHARS} are allowed.` };
  // Nor a line break some reader sees (U+2028, NEL) or a bidirectional control: a name is shown inside answers' lines
  // (review 78: a run folder's name made a line that ended "by" the owner).
  if (!isOneLine(raw)) return { ok: false, error: controlCharacterRefusal(raw) };
  if (holdsLoneSurrogate(raw)) return { ok: false, error: `Path "${printable(raw)}" is not valid Unicode (a lone surrogate).` };
  if (raw.includes("\\")) return { ok: false, error: backslashRefusal(raw) };
  const absolute = absoluteRefusal(raw, "docs/prd.md");
  if (absolute) return { ok: false, error: absolute };
  const parts = raw.split("/").length;
  if (parts > MAX_PATH_PARTS) return { ok: false, error: `Path "${printable(raw)}" is ${parts} names deep; at most ${MAX_PATH_PARTS} are allowed.` };
  for (const segment of raw.split("/")) {
    if (segment === "..") return { ok: false, error: dotDotRefusal(raw) };
    if (segment === "." || segment === "") return { ok: false, error: `Path "${printable(raw)}" has a "." or empty segment (//, a trailing /): write it plainly, e.g. docs/prd.md.` };
    // What Linux, macOS and Windows all hold: a longer name is one no pull can write (review 75).
    if (segment.length > MAX_NAME_BYTES / 4 && utf8Bytes(segment) > MAX_NAME_BYTES) return { ok: false, error: `Path "${printable(raw)}" has a name of ${utf8Bytes(segment)} bytes (UTF-8); file systems hold at most ${MAX_NAME_BYTES}: use a shorter name.` };
    const machinery = machineryName(segment);
    if (machinery) return { ok: false, error: `Path "${printable(raw)}" is inside ${machinery}/ (as some file system reads "${printable(segment)}"): that is ${MACHINERY.get(machinery)}, not the project's content; no tool reads or writes it.` };
  }
  return { ok: true, value: raw };
}

/** Why a path that is not one line is refused: by bmad-files, and by the bridge's file system where a script would make
 *  one (review 413: a script's `docs/x\n.md` was a file no listing showed and no tool could remove). */
export const controlCharacterRefusal = (raw: string): string => `Path "${printable(raw)}" contains a control character (NUL, newline, a line separator, a bidirectional control, ...): use plain names.`;

/** Why a path that is a folder is no file to read, change or look back on: said alike by both doors and every action. */
export const folderNotFile = (path: string): string => `${path}: is a folder, not a file; list ${path}/* for the files in it.`;

/** A glob over a project's paths, compiled once it passes the rules a path does (`*` and `?` pass them as any letter
 *  does): `../*`, `/**`, `.git/*` or one with a control character is refused for what it is, as a read of that path is,
 *  rather than matching nothing (review 390: history with `../*` answered "No file … matches"). */
export function compilePathGlob(glob: string): GlobCompile {
  // Said as a pattern's fix, not a file's (review 396: "write it plainly, e.g. docs/prd.md").
  if (glob.length > 1 && glob.endsWith("/")) return { ok: false, error: `Pattern "${printable(glob)}" ends in "/": give "${printable(glob)}**" for every file below what it matches.` };
  const compiled = compileGlob(glob);
  if (!compiled.ok) return compiled;
  // Of a folder's every file (`<path>/**`, as a pull lists one), the folder's path is what must pass: the wildcard after
  // it may take the glob past a path's 512 characters (MAX_GLOB_LENGTH).
  const checked = checkWorkspacePath(glob.replace(/(\/[*?]+)+$/, "") || glob);
  if (checked.ok) return compiled;
  // Said of the glob as given, where it fails as a whole too.
  const whole = checkWorkspacePath(glob);
  return whole.ok ? checked : whole;
}

const MAX_NAME_BYTES = 255;
const utf8Bytes = (text: string) => new TextEncoder().encode(text).byteLength;

/** Folders that belong to the tools working on a project, never to its content. */
const MACHINERY = new Map([
  [".git", "git's own store (a planted config or hook would run on the user's next git command)"],
  [".bmad-mcp", "bmad-mcp's own state (locks, what was pulled)"],
  [".bmad-task", "the delivery sessions' own state"],
]);

/**
 * The machinery folder a path segment is on some file system, or undefined. As git's verify_path
 * (CVE-2014-9390, CVE-2019-1352): case-folded, HFS+-ignored code points dropped, an NTFS stream
 * (`.git::$INDEX_ALLOCATION`) and trailing dots and spaces cut (Windows drops them), and 8.3 short names
 * (`GIT~1`, `BMAD-M~1`, hashed `GI7EBA~1`).
 */
export function machineryName(segment: string): string | undefined {
  const name = foldSegment(segment);
  if (MACHINERY.has(name)) return name;
  const short = /^([^~]{1,6})~[0-9]+$/.exec(name);
  if (!short) return undefined;
  const stem = short[1]!.replace(/^\./, "");
  for (const full of MACHINERY.keys()) {
    const bare = full.slice(1);
    // A short name is the first six characters of the long one, or (when those clash) two and four hex digits.
    if (stem === bare.slice(0, 6) || (stem.length === 6 && stem.startsWith(bare.slice(0, 2)) && /^[0-9a-f]{4}$/.test(stem.slice(2)))) return full;
  }
  return undefined;
}

/** Scripts: what bmad-run runs lives in a `scripts/` folder, and every file there (any name, any depth) is code or
 *  what code loads: Python imports a script's neighbours first (a `tomllib.so` there runs with it). And
 *  run_completion_contract runs `cc-verify.sh`. */
function isRunnable(segments: string[]): boolean {
  return segments[segments.length - 1] === "cc-verify.sh" || segments.slice(0, -1).includes("scripts");
}
/** Files that decide what runs: BMAD's install record (it vouches for scripts), and tools' settings at the root
 *  that start programs by themselves (mise on cd, lefthook on commit, agents' MCP server lists, CI). */
export const INSTALL_RECORD = "_bmad/_config/files-manifest.csv";
const DECIDES_WHAT_RUNS = new Set([INSTALL_RECORD, "jenkinsfile"]);
const RUNS_AT_ROOT = /^(lefthook(-local)?\.(ya?ml|toml|jsonc?)|(opencode|crush)\.jsonc?|(azure|bitbucket)-pipelines\.ya?ml|(buildspec|cloudbuild|appveyor)\.ya?ml|netlify\.toml|(flake|shell|default|devenv)\.nix|devenv\.ya?ml|devbox\.json|uv\.toml)$/;
/** What tools load by themselves at any depth, with no one running it (review 56): every package manager's installed
 *  packages (an editor's Prettier loads node_modules/prettier; a `.pth` in site-packages runs on every start of that
 *  Python; every PHP command loads Composer's vendor/autoload.php, `bundle exec` vendor/bundle, a build Pods' scripts:
 *  review 64), Python's start-up hooks, a venv's config and activation scripts, the folders of a Python environment
 *  where IPython, Jupyter and Python itself read code, made before the environment is (`python3 -m venv venv` keeps
 *  them: review 64), pytest's conftest.py and pytest.ini at any depth (its test discovery, which editors run on open,
 *  imports every conftest.py, and a pytest.ini's `addopts = -p x` loads any module x: reviews 327 and 331), and editors'
 *  workspace files (their tasks run on open). Test files and shared project files (pyproject.toml, tox.ini,
 *  setup.cfg) are the project's own and stay writable: BMAD's dev workflow writes them. */
/** What makes a folder a Python environment (a venv's `pyvenv.cfg`, a conda environment's `conda-meta/`), as folded. */
const ENVIRONMENT_MARKERS = new Set(["pyvenv.cfg", "conda-meta"]);
/** What makes a folder a git store (with objects/ and refs/ beside it), as folded: git reads any folder for one. */
export const GIT_STORE_MARKER = "head";
const LOADED_BY_TOOLS = /(^|\/)(node_modules|bower_components|jspm_packages|site-packages|dist-packages|__pypackages__|renv|packrat|lua_modules|_opam|vcpkg_installed)\/|(^|\/)(local\/lib\/perl5|etc\/conda)\/|\.pth$|(^|\/)(sitecustomize|usercustomize|conftest)\.py$|(^|\/)pytest\.ini$|(^|\/)(pyvenv\.cfg|activate(\.(fish|csh|ps1|bat|nu|xsh))?|activate_this\.py)$|(^|\/)(etc\/(ipython|jupyter)|share\/jupyter)\/|(^|\/)(jupyter|ipython)[^/]*_config\.(py|json)$|\.code-workspace$/;
/** Install folders whose names are ordinary words (a `vendor/` comparison, a `deps/` note): refused at the project's root,
 *  where their managers keep them, for what is no document (review 68: `_bmad-output/research/vendor/x.md` was refused). */
const INSTALLED_AT_ROOT = /^(vendor|pods|carthage|deps|_build)\/|(^|\/)lib(64)?\/python[0-9][^/]*\//;
const DOCUMENT_NAME = /\.(md|markdown|txt|csv|pdf|png|jpe?g|gif|svg|webp|html?)$/;
/** A JavaScript or TypeScript config that editors' extensions and commit hooks execute (eslint, prettier, tailwind,
 *  lint-staged, Playwright's and Vitest's, whose extension loads any `*vitest*.config*` and `vitest.workspace*`: review
 *  64), by its name's parts, one scan: `vite.config.prod.mts`, `webpack.config.babel.js`. */
function isToolConfigCode(folded: string): boolean {
  const name = folded.slice(folded.lastIndexOf("/") + 1);
  const code = /\.[cm]?[jt]sx?$/.exec(name);
  if (!code) return false;
  const stem = name.slice(0, code.index);
  // By the tool's name first: an app's own `src/app.config.ts` or `auth.config.ts` is its code (review 68).
  const tool = stem.slice(0, stem.indexOf(".") < 0 ? stem.length : stem.indexOf("."));
  return (CONFIG_TOOLS.has(tool) && (stem.includes(".config") || stem.includes(".workspace") || stem.includes(".projects"))) || /^(karma|wdio|protractor|nightwatch)\.conf$/.test(stem) || /^gatsby-(config|node|browser|ssr)$/.test(stem);
}
/** Tools whose `<tool>.config.*` editors' extensions, language servers and commit hooks load by themselves. */
const CONFIG_TOOLS = new Set(["eslint", "prettier", "stylelint", "tailwind", "postcss", "vite", "vitest", "jest", "playwright", "cypress", "webpack", "rollup", "rspack", "rsbuild", "babel", "svelte", "astro", "nuxt", "next", "remix", "lint-staged", "commitlint", "husky", "uno", "unocss", "panda", "tsup", "vue", "quasar", "metro", "storybook", "knip", "docusaurus", "electron-builder", "histoire", "vuepress", "vitepress", "windi"]);
/** Read by a tool in any folder the user cds into: mise's whole search list (`mise.toml`, `mise.<env>.local.toml`,
 *  `mise/config.toml`, `mise/config.local.toml`, its task folders: review 66). */
const RUNS_IN_ANY_FOLDER = /(^|\/)mise\.([^/]*\.)?toml$|(^|\/)mise\/(config\.([^/]*\.)?toml$|tasks\/)|(^|\/)mise-tasks\//;
/** Build definitions and wrappers that editors run when the project is opened, before anyone runs a build (review 66:
 *  rust-analyzer ran a model-written build.rs, CMake Tools a CMakeLists.txt; IntelliJ downloads the distribution a
 *  gradle-wrapper.properties names; review 201: Haskell's Setup.lhs and hie.yaml, Leiningen's project.clj, MSBuild's
 *  .vcxproj and .proj), at any depth. */
const RUNS_ON_OPEN = /(^|\/)(build\.rs|build\.zig|cmakelists\.txt|[^/]*\.cmake|cmake(user)?presets\.json|gradle-wrapper\.properties|gradle\.properties|(settings|build|init)\.gradle(\.kts)?|gradlew(\.bat)?|mvnw(\.cmd)?|gemfile|mix\.exs|(gnu)?makefile|[^/]*\.mk|build\.sbt|rust-toolchain(\.toml)?|cargo\.toml|meson\.build|bunfig\.toml|nx\.json|package\.swift|directory\.(build\.(props|targets)|packages\.props)|nuget\.config|workspace(\.bazel)?|module\.bazel|[^/]*\.bzl|setup\.l?hs|hie\.yaml|project\.clj|pom\.xml|[^/]*\.((cs|fs|vb|vcx)?proj))$|^(global\.json|project\/[^/]*\.(sbt|scala))$|(^|\/)(buildsrc|build-logic)\/|(^|\/)gradle\/[^/]*\.gradle(\.kts)?$/;
/** Dot-files and dot-folders are tools' own settings, at the root and in any folder (a monorepo's packages, direnv's
 *  `.envrc` wherever one cds): agents' and editors' settings, MCP server lists, hooks, skills and commands whose `!`
 *  lines run, git hook managers, package managers, dev containers, CI. Many start programs by themselves, and new
 *  tools add more, so none is written but these: the plain ones anywhere, and the folders BMAD and the delivery sessions keep their content in. */
const DOT_NAMES_OK = new Set([".gitignore", ".gitkeep", ".gitattributes", ".editorconfig", ".memlog.md", ".env.example", ".env.sample"]);
/** BMAD's own dot-folders: bmad-ux's `{doc_workspace}/.working/` (mockups), seed 001's `_bmad-output/.runs/`. */
const DOT_DIRS_OK = new Set([".working", ".runs"]);
/** Content folders at the root, taken only as spelled here (not `.CLAUDE/specs`, `.claude./specs`): below them the
 *  rule holds as anywhere. */
const DOT_FOLDERS_OK = [".claude/specs/", ".github/ISSUE_TEMPLATE/", ".github/pull_request_template.md"];
const dotRefused = (path: string, folded: string) => {
  const prefix = DOT_FOLDERS_OK.find((ok) => (ok.endsWith("/") ? path.startsWith(ok) : path === ok));
  if (prefix && !prefix.endsWith("/")) return false; // the one file
  const parts = folded.split("/");
  const last = parts.length - 1;
  // The allowed folder's own parts are content; everything below it is judged as anywhere.
  const from = prefix ? prefix.split("/").length - 1 : 0;
  return parts.some((part, i) => i >= from && part.startsWith(".") && !(i === last ? DOT_NAMES_OK.has(part) : i > 0 && DOT_DIRS_OK.has(part)));
};
/** A Windows 8.3 short name (`CLAUDE~1`, `SETTIN~1.JSO`): on a volume that keeps them it is another file's other name. */
const SHORT_NAME = /^[^~]{1,7}~[0-9]{1,6}(\.[^.]*)?$/;

/**
 * A path the model or a collaborator may create, change or delete: a workspace path that is no runnable script
 * and decides nothing about what runs.
 */
export function checkWritablePath(raw: string): Checked<string> {
  const checked = checkWorkspacePath(raw);
  if (!checked.ok) return checked;
  const refused = changeRefusal(raw);
  return refused ? { ok: false, error: refused } : checked;
}

/** Windows' reserved device names, with any extension (`CON.md` is the console there). */
const DEVICE_NAME = /^(con|prn|aux|nul|conin\$|conout\$|clock\$|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)/i;

/** Why a workspace may not make this name: one a pull to Windows cannot write as itself (review 109: `a:b.md` is a
 *  stream of the file `a` there, `CON.md` the console, `notes.md.` the file `notes.md`). Asked of new files only
 *  (the remote's clash check): a file already there is still read, changed and removed by its name (review 119). */
export function unportableName(path: string): string | undefined {
  for (const name of path.split("/")) {
    const bad = /[<>:"|?*]/.exec(name)?.[0];
    if (bad) return `Path "${printable(path)}" has "${bad}" in a name, which Windows cannot hold (a pull there could not write it): use "-" or another character.`;
    if (/[. ]$/.test(name)) return `Path "${printable(path)}" has a name ending in a dot or a space, which Windows drops (a pull there would write another name): end it with a letter or a digit.`;
    if (DEVICE_NAME.test(name.replace(/ +(?=\.|$)/, ""))) return `Path "${printable(path)}" has "${printable(name)}", a device's name on Windows (CON, NUL, COM1, ...: a pull there would not write a file): choose another name.`;
  }
  return undefined;
}

/** Whether the file at `path` is one bmad-run or run_completion_contract would run. */
export function isScriptPath(path: string): boolean {
  return isRunnable(foldPath(path).split("/"));
}

/** A path as a folding file system reads it (macOS, Windows), or an eye: one case, NFC, what shows as nothing dropped
 *  (SHOWS_AS_NOTHING: HFS+ ignores some, and none shows; review 316: `pr\u200bd.md` beside `prd.md`), an NTFS stream
 *  (`settings.json::$DATA` is settings.json's content) and Windows' trailing dots and spaces cut. Two paths that fold
 *  alike are one file there, or print alike. */
export function foldPath(path: string): string {
  return path.split("/").map(foldSegment).join("/");
}

/** Case as APFS and NTFS fold it, a character for a character: upper then lower, so the letters whose lower case is
 *  another's fold together (ſ and s, ς and σ: review 78, `build.rſ` passed as no build file), but a character whose upper
 *  case is several (ß to SS, ﬁ to FI) only lowered, as those file systems keep it (review 81: straße.md beside
 *  strasse.md was refused). ASCII takes the short way. */
function foldCase(text: string): string {
  if (/^[\x00-\x7f]*$/.test(text)) return text.toLowerCase();
  let out = "";
  for (const c of text) {
    const upper = c.toUpperCase();
    out += upper.length === c.length ? upper.toLowerCase() : c.toLowerCase();
  }
  return out;
}

function foldSegment(segment: string): string {
  const folded = foldCase(segment.normalize("NFC").replace(SHOWS_AS_NOTHING, ""));
  const colon = folded.indexOf(":");
  return (colon < 0 ? folded : folded.slice(0, colon)).replace(/[. ]+$/, "");
}

/** Why no tool may change the file at `path` (relative, any name the file system allows), or undefined. `pulled`: a
 *  file a pull brings from a workspace, where no tool could change a script or the install record (paths.ts on the
 *  remote); the pull itself lets in only scripts with BMAD's own bytes. */
export function changeRefusal(path: string, opts: { pulled?: boolean } = {}): string | undefined {
  const folded = foldPath(path);
  const short = folded.split("/").find((part) => SHORT_NAME.test(part));
  if (short) return `Path "${printable(path)}" has "${printable(short)}", which Windows may read as another file's short name (CLAUDE~1 for .claude): give the full name.`;
  if (!opts.pulled && isRunnable(folded.split("/"))) {
    return `Path "${printable(path)}" is in a scripts/ folder (where bmad-run's scripts live, and what they load) or is the completion contract: tools never create or change one, so no code a model wrote runs. The user edits scripts themselves.`;
  }
  // A pull carries documents only (sync-kinds.ts), none of which these are: it leaves them on the remote, named.
  if (!opts.pulled && (LOADED_BY_TOOLS.test(folded) || (INSTALLED_AT_ROOT.test(folded) && !DOCUMENT_NAME.test(folded)) || isToolConfigCode(folded))) {
    return `Path "${printable(path)}" is code tools load by themselves (installed packages, Python's start-up hooks or environment, pytest's conftest.py or pytest.ini, an editor's workspace file, a JavaScript config that editors and commit hooks execute): tools never create or change one, so no code a model wrote runs unasked. The user creates or edits it themselves.`;
  }
  // A file named HEAD makes its folder a git store once objects/ and refs/ are beside it, and git, run there, obeys the
  // config beside it (core.fsmonitor runs on `git status`, as a shell prompt runs it on cd): by any door (review 89).
  if (folded.slice(folded.lastIndexOf("/") + 1) === GIT_STORE_MARKER) return `Path "${printable(path)}" is named HEAD, which makes its folder a git repository's store to git (whose config there runs commands on the next git command): tools never create one. Choose another name, such as HEAD.md.`;
  // A name that makes its folder a Python environment, for Python and its tools and for the bridge, which then changes
  // nothing in it: by any door, a pull's too (review 75: a collaborator's `_bmad-output/conda-meta/history.json`, once
  // pulled, stopped every later write to the owner's _bmad-output/).
  const marker = folded.split("/").find((part) => ENVIRONMENT_MARKERS.has(part));
  if (marker) return `Path "${printable(path)}" has "${marker}", which makes its folder a Python environment (what Python and its tools load from one runs unasked, so no tool changes anything in it): tools never create one. Choose another name.`;
  const runs = DECIDES_WHAT_RUNS.has(folded) || RUNS_AT_ROOT.test(folded) || RUNS_IN_ANY_FOLDER.test(folded) || RUNS_ON_OPEN.test(folded);
  if ((runs || dotRefused(path, folded)) && !(opts.pulled && folded === INSTALL_RECORD)) {
    // Refused for a leading dot alone, the model's own file takes another name (review 474: `notes/.draft.md`).
    const fix = runs ? "The user edits it themselves." : 'For a file of your own, choose a name that does not start with "." (the user edits dot-files themselves).';
    return `Path "${printable(path)}" decides what code runs here (an install record, or a tool's own settings: dot-files and dot-folders, many of which start programs by themselves): tools never change it. ${fix}`;
  }
  return undefined;
}

/** A shell's variable as a path's name starts it: `$HOME`, `${HOME}`, `$HOME.bak` (its name, where it has one). */
const SHELL_VARIABLE = /^\$\{?([A-Za-z_]\w*)|^\$\{/;

/** Why a new name may not be made at a path a shell would expand (a first name starting with `~`, as `~/x.md` and
 *  `~root/x.md`; any name starting with `$` and a variable's name or `{`): no tool expands one, so it would make a
 *  folder named `~` or `$HOME` in the project while the model tells the user the file is in their home folder, and
 *  `rm -rf ~` to clean that folder takes the home with it. Asked where a file or folder would be made: one already so
 *  named is read, changed and deleted as it is (review 432: refused as every change, such a file could not be removed). */
export function shellWordRefusal(path: string): string | undefined {
  const parts = path.split("/");
  const at = parts.findIndex((part, i) => (i === 0 && part.startsWith("~")) || SHELL_VARIABLE.test(part));
  if (at < 0) return undefined;
  const word = parts[at]!;
  const user = word.startsWith("~") ? word.slice(1) : undefined;
  const variable = SHELL_VARIABLE.exec(word)?.[1];
  const meant = user === "" ? "be in the home folder" : user !== undefined ? `be in the home folder of the user ${user}` : `use the value of ${variable ?? "a variable"}`;
  // The rest of the path, in BMAD's output folder where the shell word was the path's start.
  const kept = parts.filter((part, i) => !(i === 0 && part.startsWith("~")) && !SHELL_VARIABLE.test(part));
  const example = (at === 0 ? ["_bmad-output", ...kept] : kept).join("/");
  return `Path "${printable(path)}" would ${printable(meant)} in a shell; no tool expands "${printable(word)}", and tools reach only the project: give a path in it, such as ${printable(example)}.`;
}

/** `bmad://projects/{project}/{path}`: each part decoded once, then checked. */
export function parseProjectUri(uri: string): Checked<{ project: string; path: string }> {
  if (!uri.startsWith(PROJECTS_PREFIX)) return { ok: false, error: `Project URIs start with ${PROJECTS_PREFIX}.` };
  const rest = uri.slice(PROJECTS_PREFIX.length);
  const slash = rest.indexOf("/");
  if (slash < 0) return { ok: false, error: `Project URIs look like ${PROJECTS_PREFIX}{project}/{path}; list files with bmad-files "list".` };
  let project: string;
  let path: string;
  // A project's name is plain (letters, digits, `.`, `_`, `-`, an `@tag`): spelled with escapes it was another's own name
  // in disguise (`bmad://projects/app%32/` read app2: review 70). Only `@` may come escaped.
  if (/%(?!40)/i.test(rest.slice(0, slash))) return { ok: false, error: "A project's name in a URI is written plainly, with no percent-escapes but %40 for @: give it as bmad-project list shows it." };
  try {
    project = decodeURIComponent(rest.slice(0, slash));
    path = decodeURIComponent(rest.slice(slash + 1));
  } catch {
    return { ok: false, error: "URI has a malformed percent-escape." };
  }
  const ref = parseProjectRef(project);
  if (!ref.ok) return ref;
  const checked = checkWorkspacePath(path);
  return checked.ok ? { ok: true, value: { project, path: checked.value } } : checked;
}

export const WORKSPACES_FS_ROOT = "/projects/";

/** Where a workspace's scripts on the remote see its root (`{project-root}` as the ports read and write it): the paths
 *  they print are shown as its URI, and those they write into files (a sprint-status.yaml's `story_location`, a
 *  rendered workflow's steps) are taken back by the tools as the project's (review 77). */
export const workspaceFsRoot = (project: string) => `${WORKSPACES_FS_ROOT}${project}`;

export function projectRootUri(project: string): string {
  return PROJECTS_PREFIX + project;
}

export function projectUri(project: string, path: string): string {
  return `${PROJECTS_PREFIX}${project}/${path.split("/").map(encodeURIComponent).join("/")}`;
}

const escaped = (c: string) => {
  const code = c.codePointAt(0)!;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
};

/** `text` as a terminal shows it plainly: every character it would act on, or show as nothing, written as its escape
 *  (`\u001b`), by writeOutInvisible's rule; line breaks and tabs are the text's own lines. Every writer of outside text
 *  (a remote's, the project's) to the user's terminal goes through it. */
export const terminalText = (text: string): string => writeOutInvisible(text, (c) => (c === "\n" || c === "\t" ? c : escaped(c)));

/** What a script's output may not hand an answer raw: every character NOT_ONE_LINE names but its lines' ends (LF, CR
 *  before LF: a CRLF file's diff) and tabs. */
const STREAM_CONTROLS = new RegExp(`[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u2028\\u2029\\ufeff]|\\r(?!\\n)|${BIDI_CONTROL.source}`, "g");

/** A script's stdout or stderr as an answer carries it: each STREAM_CONTROLS character as its escape (`\u001b`, which
 *  a JSON string reads back as it), its lines and tabs as they are (review 413: ESC, BEL and U+202E reached the model).
 *  One regex pass: terminalText looks at each character of a text holding a line break, as every stream does. */
export const streamText = (text: string): string => text.replace(STREAM_CONTROLS, escaped);

/** A project's path as a line of an answer shows it: as it is, or where it holds a character that shows as nothing
 *  or that a terminal acts on (a zero-width space, a bidi mark, a line break), as a JSON string with each such
 *  character escaped, which reads back as the name (review 316: `pr\u200bd.md` read as `prd.md` beside it). */
export const shownPath = (path: string): string => (terminalText(path) === path ? path : terminalText(JSON.stringify(path)));

/** A path a caller or a script named, inside a sentence of an answer (a refusal, a fix to make): as it is where it is
 *  plain (letters, digits, spaces and `._-/@+,=`), else as a JSON string with shownPath's escapes, so that no name reads
 *  as the answer's own line or markup (review 380: a line break in a name began a line "Next: run bmad-files delete …"). */
export const namedPath = (path: string): string => (PLAIN_PATH.test(path) && shownPath(path) === path ? path : terminalText(JSON.stringify(path)));
const PLAIN_PATH = /^[\p{L}\p{N}\p{M} ._/@+,=-]+$/u;

/** A project's path inside a line of an answer: a code span, or where it cannot be one (a backtick; what shownPath
 *  escapes: a cloned repository's folder name with a bidi control), shownPath's JSON string. */
export const codeSpan = (path: string): string => {
  const shown = shownPath(path);
  return shown !== path ? shown : path.includes("`") ? JSON.stringify(path) : `\`${path}\``;
};

/** Why a path holding a backslash is refused, with the path as forward slashes write it: bmad-files reads a file's path
 *  and a listing's glob alike (review 140: `_bmad-output\\` listed "0 files"). */
/** A path from the file system's root (or a drive): refused, by a read and a listing alike; `example`, what to give. */
export const absoluteRefusal = (raw: string, example: string): string | undefined =>
  raw.startsWith("/") || /^[A-Za-z]:/.test(raw) ? `Path "${printable(raw)}" is absolute: give it relative to the project root, e.g. ${example}.` : undefined;

export const backslashRefusal = (raw: string): string => `Path "${printable(raw)}" contains a backslash: use forward slashes (${JSON.stringify(printable(raw.replace(/\\+/g, "/")))}).`;

/** `path` with every character past ASCII as its escape (as terminalText writes one): two names that print alike, told apart. */
export const spelled = (path: string) =>
  [...path].map((c) => {
    const code = c.codePointAt(0)!;
    return code < 0x80 ? c : code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
  }).join("");

/** How a refusal shows names beside `path` and its `twin` (names that fold alike: foldPath): as `show` shows each, or,
 *  where those two print alike (they differ in Unicode form, or in a join a script writes, which shownPath keeps as
 *  written: `یادداشت\u200cها.md` beside `یادداشتها.md`, review 321), spelled out, code points. */
export function showTwins(path: string, twin: string, show: (name: string) => string = shownPath): (name: string) => string {
  // Compared to the depth of the shorter: a file's twin may be a folder above it, or one below which files are.
  const depth = Math.min(path.split("/").length, twin.split("/").length);
  const prints = (name: string) => printsAs(show(name.split("/").slice(0, depth).join("/")));
  return prints(path) === prints(twin) ? spelled : show;
}
/** A name as shown, as it prints: without what shows as nothing (the joins `show` keeps as written), in one Unicode form. */
const printsAs = (shown: string) => shown.replace(SHOWS_AS_NOTHING, "").normalize("NFC");

/** What two names that fold alike (foldPath) differ in, for the answers that refuse one beside the other. */
export const TWIN_DIFFERENCE = "they differ only in case, Unicode form, a trailing dot or a character that shows as nothing";

/** Why `path` is refused where it names no file as spelled and several (`there`) as read in another Unicode form: they
 *  print alike, so each is spelled out. The bridge's answer (a disk's names) and the remote's (a project's) alike. */
export const unicodeTwinsRefusal = (path: string, there: string[]) =>
  `Path "${spelled(path)}" names no file as spelled, and ${there.map((other) => `"${spelled(other)}"`).join(" and ")} as read in another Unicode form: they print alike, so give one of them exactly as spelled here.`;

/** Enough of a refused input to recognise it, on one line: without control characters or 10,000 characters. */
export function printable(raw: string): string {
  const shown = terminalText(raw.slice(0, 80)).replace(/[\n\t]/g, escaped);
  return raw.length > 80 ? `${shown}...` : shown;
}

/** A Map: the extension comes from a file name, and `x.__proto__` must not find Object.prototype. */
const MIME = new Map([
  ["md", "text/markdown"], ["yaml", "application/x-yaml"], ["yml", "application/x-yaml"], ["json", "application/json"],
  ["xml", "application/xml"], ["csv", "text/csv"], ["toml", "application/toml"],
]);

/** A file's MIME type by its extension: bundle files (the compiler) and workspace files alike. */
export function mimeFor(path: string): string {
  const dot = path.lastIndexOf(".");
  return (dot > path.lastIndexOf("/") && MIME.get(path.slice(dot + 1).toLowerCase())) || "text/plain";
}

const EMAIL = /^[^\s@/]{1,64}@[^\s@/]{1,255}$/;
/** GitHub's rule: letters, digits and single hyphens, neither first nor last; at most 39 (checked apart). */
const GITHUB_LOGIN = /^[a-z0-9](?:-?[a-z0-9])*$/i;

/** What `with` names: `github:<login>` (a GitHub login, any case), an email address, or a user id as sign-in knows it. */
export function shareHandle(withWho: string): Result<{ handle: string }> {
  const who = withWho.trim();
  if (/^github:/i.test(who)) {
    const login = who.slice("github:".length);
    if (login.length <= 39 && GITHUB_LOGIN.test(login)) return { ok: true, handle: `github:${login.toLowerCase()}` };
    return { ok: false, error: `"${who.slice(0, 60)}" is not a GitHub login: after "github:" come 1-39 letters, digits or single hyphens, e.g. github:octocat.` };
  }
  if (!who || who.length > 320 || /\s/.test(who)) return { ok: false, error: 'Share "with" an email address, a GitHub login (github:octocat) or a user id as sign-in knows it (e.g. github/12345).' };
  return { ok: true, handle: EMAIL.test(who) ? `email:${who.toLowerCase()}` : `user:${who}` };
}

/** A share's handle as people write it: an email or a user id bare, a GitHub login as `github:<login>`. */
export function shownHandle(handle: string): string {
  return handle.startsWith("github:") ? handle : handle.slice(handle.indexOf(":") + 1);
}

/** `text` as itself and in each Unicode normal form, each once: a folder a Mac names decomposed, which a model types
 *  composed (review 313: the project root typed so was no longer the project). */
export const unicodeForms = (text: string): string[] => [...new Set([text, text.normalize("NFC"), text.normalize("NFD")])];

/** A path with `..` is refused on any door; said truly, with the path without it where it stays inside (review 313:
 *  `{implementation_artifacts}/../planning-artifacts/epics.md` was told it left the project). */
function dotDotRefusal(raw: string): string {
  const kept: string[] = [];
  for (const part of raw.split("/")) {
    if (part !== "..") kept.push(part);
    else if (!kept.length || kept.pop() === undefined) return `Path "${printable(raw)}" contains "..", which leaves the project: paths cannot leave it.`;
  }
  return `Path "${printable(raw)}" contains "..": give it without, as ${printable(kept.join("/"))}.`;
}
