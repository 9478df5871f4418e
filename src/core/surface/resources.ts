// bmad:// resources: every bundle file, the generated manifests, the sanitised config, and
// rendered agents/workflows by name. One reader serves resources/read and bmad-resources "read".
import { sanitizeConfig, servedProjectText } from "../catalog/config.js";
import { closest, suggestion } from "../catalog/closest.js";
import { MANIFEST_NAMES, manifestCsv, type ManifestName } from "../catalog/manifests-csv.js";
import { BMAD_SCHEME, bmadUri, lexicallyResolved, parseBmadUri } from "../catalog/paths.js";
import { othersNote, othersSuffix } from "../workspace/line-authors.js";
import { mimeFor, parseProjectUri, projectUri, PROJECTS_PREFIX, WORKSPACES_FS_ROOT } from "../workspace/paths.js";
import { RESOURCE, TOOL } from "./names.js";
import type { SurfaceDeps } from "./deps.js";
import { servedText } from "./reader.js";
import { nearPaths } from "./near-paths.js";
import { pendingDraftFile } from "../delivery/machine.js";
import { renderRecord } from "./render.js";
import { readSkillUri, SKILL_SCHEME, skillIndex } from "./skills.js";
import type { Result } from "../result.js";

/** `suggestions`: for an unknown name or URI, the closest that exist (sent as the error's data.suggestions). */
/** `about`: a line naming who else wrote the text, for a project file others had a hand in: shown before the text. */
export type ReadOutcome = Result<{ uri: string; mimeType: string; text: string; about?: string }, { suggestions?: string[] }>;

type Catalog = SurfaceDeps["reader"]["catalog"];
type Served = Extract<ReadOutcome, { ok: true }>;

/** Bundle files as served, per catalog (a catalog's files never change: the bridge makes a new one when a tree
 *  changes): a file read again costs a lookup, not a URI check and a sanitising pass. Oldest dropped first. */
const served = new WeakMap<Catalog, { byUri: Map<string, Served>; chars: number }>();
const SERVED_KEEP_CHARS = 4 * 1024 * 1024;
const SERVED_MAX_CHARS = 256 * 1024;

function keepServed(catalog: Catalog, out: Served): Served {
  if (out.text.length > SERVED_MAX_CHARS) return out;
  let kept = served.get(catalog);
  if (!kept) served.set(catalog, (kept = { byUri: new Map(), chars: 0 }));
  const first = kept.byUri.get(out.uri); // two reads of one file at once: the first kept
  if (first) return first;
  kept.byUri.set(out.uri, Object.freeze(out));
  kept.chars += out.text.length;
  for (const [uri, old] of kept.byUri) {
    if (kept.chars <= SERVED_KEEP_CHARS) break;
    kept.byUri.delete(uri);
    kept.chars -= old.text.length;
  }
  return out;
}

export async function readBmadUri(deps: SurfaceDeps, uri: string): Promise<ReadOutcome> {
  const { reader } = deps;
  const { catalog } = reader;
  const known = served.get(catalog)?.byUri.get(uri);
  if (known) return known;
  if (uri === RESOURCE.configCurrent) {
    return { ok: true, uri, mimeType: "application/json", text: JSON.stringify(sanitizeConfig(catalog.manifest.config)) };
  }
  if (uri.startsWith(PROJECTS_PREFIX)) return readProjectFile(deps, uri);
  // A workspace's files as its rendered skills name them, `/projects/<name>/…` (review 151: render_skill.py's copies
  // name their steps so, and the read was refused); on the bridge such a path is the machine's.
  if (uri.startsWith(WORKSPACES_FS_ROOT) && deps.workspaces && deps.workspaces.folder === undefined) return readProjectFile(deps, `${BMAD_SCHEME}${uri.slice(1)}`);
  if (uri.startsWith(SKILL_SCHEME)) return readSkillUri(reader, uri);
  if (!uri.includes("://")) return pathForUri(catalog, uri);
  // A file URI is its path, named as that is (review 160: "must start with bmad://" alone, for a rendered step's copy).
  const filePath = /^file:\/\//i.test(uri) ? fileUriPath(uri) : undefined;
  if (filePath) return pathForUri(catalog, filePath);
  const checked = parseBmadUri(uri);
  if (!checked.ok) {
    const meant = lexicallyResolved(uri);
    const named = meant !== undefined && catalog.file(meant) ? bmadUri(meant) : undefined;
    return { ok: false, error: `Refused ${uri.slice(0, 200)}: ${checked.error}${named ? ` Read ${named}, where it leads.` : ""}`, ...(named ? { suggestions: [named] } : {}) };
  }
  const path = checked.path;
  if (path.startsWith("sessions/")) return readSessionArtifact(deps, uri, path);
  if (path.startsWith("manifests/")) {
    const name = path.slice("manifests/".length);
    if (!MANIFEST_NAMES.includes(name as ManifestName)) {
      const names = MANIFEST_NAMES.map((n) => RESOURCE.manifestPrefix + n);
      return { ok: false, error: `Unknown manifest "${name}". Manifests: ${names.join(", ")}.`, suggestions: closest(uri, names) };
    }
    return { ok: true, uri, mimeType: "text/csv", text: manifestCsv(catalog, name as ManifestName) };
  }
  for (const [prefix, kind] of [["agents/", "agent"], ["workflows/", "workflow"]] as const) {
    if (path.startsWith(prefix) && !catalog.file(path)) {
      const found = catalog.resolve(kind, path.slice(prefix.length));
      if (!found.ok) return { ok: false, error: found.error, suggestions: found.closest.map((n) => `bmad://${prefix}${n}`) };
      return { ok: true, uri, mimeType: "text/markdown", text: await renderRecord(reader, found.record) };
    }
  }
  const file = catalog.file(path);
  if (!file) {
    const near = catalog.closestPaths(path).map(bmadUri);
    return { ok: false, error: `Resource not found: ${bmadUri(path)}.${suggestion(near)}`, suggestions: near };
  }
  return keepServed(catalog, { ok: true, uri, mimeType: file.mime, text: await servedText(reader, file) });
}

/** The bundle files a path can name (a skill's bare `assets/x.md`, or its folder on disk), by the longest tail
 *  of at least two segments they share, as URIs (at most 5). */
export function bundleUrisFor(catalog: SurfaceDeps["reader"]["catalog"], path: string): string[] {
  const parts = path.split("/").filter((p) => p && p !== ".");
  let found: string[] = [];
  for (let i = 0; i <= Math.max(0, parts.length - 2) && !found.length; i++) {
    const tail = parts.slice(i).join("/");
    found = catalog.paths.filter((p) => p === tail || p.endsWith(`/${tail}`));
  }
  return found.slice(0, 5).map(bmadUri);
}

/** A file path where a URI goes: the bundle files it can be, named. Only named: a guess is not served. */
function pathForUri(catalog: SurfaceDeps["reader"]["catalog"], path: string): ReadOutcome {
  const uris = bundleUrisFor(catalog, path);
  const which = uris.length === 1 ? `: it is ${uris[0]}` : uris.length ? `; it may be ${uris.join(", ")}` : ", e.g. bmad://bmm/bmad-prd/SKILL.md";
  return { ok: false, error: `"${path.slice(0, 200)}" is a file path, and this reads URIs${which}. Files of the user's project: ${TOOL.bmadFiles}.`, suggestions: uris };
}

/** The path a `file://` URI names, decoded by the URL parser; undefined where it parses as none. */
function fileUriPath(uri: string): string | undefined {
  try {
    return decodeURIComponent(new URL(uri).pathname) || undefined;
  } catch {
    return undefined;
  }
}

/** Completion values for a resource template variable; `context` holds the variables already chosen. */
export async function completeResource(deps: SurfaceDeps, variable: string, value: string, context: Record<string, string> = {}, template?: string): Promise<string[]> {
  if (template === PROJECT_FILE_TEMPLATE) return completeProjectFile(deps, variable, value, context);
  const { catalog } = deps.reader;
  if (template === SKILL_FILE_TEMPLATE) return skillIndex(catalog).skills.map((s) => `${s.path}/SKILL.md`).filter((p) => p.startsWith(value)).slice(0, 100);
  const pool =
    variable === "agent" ? catalog.names("agent")
    : variable === "workflow" ? catalog.names("workflow")
    : variable === "name" ? [...MANIFEST_NAMES]
    : variable === "path" ? catalog.paths
    : variable === "session_id" && deps.sessions ? (await deps.sessions.list(deps.owner, "all", 1000)).sessions.map((s) => s.task_name)
    : variable === "file" && deps.sessions && context.session_id ? await sessionArtifacts(deps, context.session_id)
    : [];
  const prefixed = pool.filter((p) => p.startsWith(value));
  return (prefixed.length ? prefixed : closest(value, pool, 10)).slice(0, 100);
}

const PROJECT_FILE_TEMPLATE = "bmad://projects/{project}/{+path}";
const SKILL_FILE_TEMPLATE = `${SKILL_SCHEME}{+path}`;

export const RESOURCE_TEMPLATES = [
  { uriTemplate: "bmad://{+path}", name: "bmad-file", description: "Any file of the BMAD bundle by path", mimeType: "text/plain" },
  { uriTemplate: "bmad://agents/{agent}", name: "bmad-agent", description: "An agent's files with loading instructions", mimeType: "text/markdown" },
  { uriTemplate: "bmad://workflows/{workflow}", name: "bmad-workflow", description: "A workflow's files with instructions", mimeType: "text/markdown" },
  { uriTemplate: "bmad://manifests/{name}", name: "bmad-manifest", description: "agents, workflows, tasks or skills as CSV", mimeType: "text/csv" },
  { uriTemplate: "bmad://sessions/{session_id}/artifacts/{file}", name: "bmad-session-artifact", description: "A delivery session's artifact, or a draft of one", mimeType: "text/markdown" },
  { uriTemplate: PROJECT_FILE_TEMPLATE, name: "bmad-project-file", description: "A file in one of your project workspaces (bmad-project)", mimeType: "text/plain" },
  { uriTemplate: SKILL_FILE_TEMPLATE, name: "bmad-skill-file", description: "A file of a skill, byte for byte (skills/list names them)", mimeType: "text/markdown" },
];

/** bmad://projects/{project}/{path}: a workspace file the caller may read, config sanitised. */
async function readProjectFile(deps: SurfaceDeps, uri: string): Promise<ReadOutcome> {
  const parsed = parseProjectUri(uri);
  if (!parsed.ok) return { ok: false, error: `Refused ${uri.slice(0, 200)}: ${parsed.error}` };
  if (!deps.workspaces) return { ok: false, error: "This endpoint has no project workspaces; your project is a directory here." };
  const { project, path } = parsed.value;
  const files = deps.workspaces.files(project);
  const read = await files.read(path);
  if (!read.ok) {
    if (read.kind !== "not_found") return { ok: false, error: read.error };
    return { ok: false, error: read.error, suggestions: (await nearPaths(files, path)).map((p) => projectUri(project, p)) };
  }
  // Others' text is named as theirs here too, as bmad-files read names it (review 76: skills load files through
  // resources/read and bmad-resources, and a collaborator's lines came unmarked).
  // Whenever any line is another's, a file wholly theirs included (review 78: no header says "by" them here).
  const others = read.value.others?.length ? othersSuffix(othersNote(read.value.others)) : "";
  const about = others ? `[${path}, version ${read.value.version}, by ${read.value.author}${others}]` : undefined;
  return { ok: true, uri, mimeType: mimeFor(path), text: servedProjectText(path, read.value.data), ...(about ? { about } : {}) };
}

/** The caller's projects, then the files of the chosen one. */
/** A prompt's argument: its `project`, as the project file template's (review 117: prompts completed nothing). */
export function completePromptArgument(deps: SurfaceDeps, argument: string, value: string): Promise<string[]> {
  return argument === "project" ? completeProjectFile(deps, "project", value, {}) : Promise.resolve([]);
}

async function completeProjectFile(deps: SurfaceDeps, variable: string, value: string, context: Record<string, string>): Promise<string[]> {
  if (!deps.workspaces) return [];
  let pool: string[] = [];
  if (variable === "project") pool = (await deps.workspaces.projects()).map((p) => p.project);
  else if (variable === "path" && context.project) {
    const listed = await deps.workspaces.files(context.project).list();
    pool = listed.ok ? listed.value.map((f) => f.path) : [];
  }
  return pool.filter((p) => p.startsWith(value)).slice(0, 100);
}

async function sessionArtifacts(deps: SurfaceDeps, session: string): Promise<string[]> {
  const found = await deps.sessions!.get(deps.owner, session);
  if (!found.ok) return [];
  const draft = pendingDraftFile(found.value);
  return [...found.value.artifacts, ...(draft ? [draft] : []), ...found.value.history.map((h) => h.file)];
}

const shortNamesOf = new WeakMap<readonly string[], Map<string, string>>();

/** Each path's shortest tail of names no other path ends with (`bmad-prd/SKILL.md`, `prd-template.md`): a listed
 *  resource's `name`, which its URI already spells out whole (review 254: 8 KB of resources/list repeated the paths).
 *  Read off a tree of the paths' names from the end, each node counting the paths through it: linear in the names
 *  (review 259: counted again at each depth, 10^4 deep paths took 40 s). */
export function shortNames(paths: readonly string[]): Map<string, string> {
  const kept = shortNamesOf.get(paths);
  if (kept) return kept;
  interface Tail { paths: number; next: Map<string, Tail> }
  const root: Tail = { paths: 0, next: new Map() };
  const parts = paths.map((path) => path.split("/").reverse());
  for (const names of parts) {
    let at = root;
    for (const name of names) {
      let next = at.next.get(name);
      if (!next) at.next.set(name, (next = { paths: 0, next: new Map() }));
      next.paths++;
      at = next;
    }
  }
  const names = new Map<string, string>();
  paths.forEach((path, i) => {
    let at = root;
    let depth = 0;
    for (const name of parts[i]!) {
      at = at.next.get(name)!;
      depth++;
      if (at.paths === 1) break;
    }
    names.set(path, parts[i]!.slice(0, depth).reverse().join("/"));
  });
  shortNamesOf.set(paths, names);
  return names;
}

/** Static entries listed before the bundle files. */
export function staticResources(): Array<{ uri: string; name: string; mimeType: string; description: string }> {
  return [
    ...MANIFEST_NAMES.map((n) => ({ uri: RESOURCE.manifestPrefix + n, name: `manifests/${n}`, mimeType: "text/csv", description: `BMAD ${n} manifest (CSV)` })),
    { uri: RESOURCE.configCurrent, name: "config/current", mimeType: "application/json", description: "Bundle configuration, secrets removed" },
  ];
}


const ARTIFACT_PATH = /^sessions\/([^/]{1,100})\/artifacts\/([^/]{1,100})$/;

/** bmad://sessions/{session}/artifacts/{file}: the caller's own session artifacts only. */
async function readSessionArtifact(deps: SurfaceDeps, uri: string, path: string): Promise<ReadOutcome> {
  const match = ARTIFACT_PATH.exec(path);
  if (!match) return { ok: false, error: "Session resources look like bmad://sessions/{session_id}/artifacts/{file}." };
  if (!deps.sessions) return { ok: false, error: "This endpoint keeps no sessions." };
  const read = await deps.sessions.readArtifact(deps.owner, match[1]!, match[2]!);
  return read.ok ? { ok: true, uri, mimeType: "text/markdown", text: read.value } : { ok: false, error: read.error };
}

export function artifactUri(session: string, file: string): string {
  return `bmad://sessions/${session}/artifacts/${file}`;
}
