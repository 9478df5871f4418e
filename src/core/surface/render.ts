// The file proxy (seed 002): raw files, never parsed or merged, with short loading instructions.
// The entry file and its same-folder companions are inlined; deeper files are listed as bmad:// links
// so the client loads them lazily.
import type { CatalogRecord } from "../catalog/bundle.js";
import type { Catalog } from "../catalog/catalog.js";
import { shortName } from "../catalog/names.js";
import { bmadUri } from "../catalog/paths.js";
import type { ProjectRuntime } from "../runtime/project.js";
import type { SurfaceDeps } from "./deps.js";
import { done, fail, type ToolOutcome } from "./outcome.js";
import type { CallContext } from "./tool.js";
import { servedText, type BundleReader } from "./reader.js";
import { TOOL } from "./names.js";
import { earlierWork, HELP_CATALOG, helpFor, skillOutputs, withEarlierWork } from "./earlier-work.js";
import { keptWhenMade } from "../kept.js";
import { asksDate, forConnection, givesToday, laterValues, markResolved, noWorkspaceBlock, NOTHING_LATER, runtimeBlock, withToday, type CodeSkill, type FilesAccess, type LaterValues, type SkillTraits } from "./runtime-block.js";
import { renderShown, renderSkillText, skillRenderFor, type SkillRender } from "./skill-render.js";
import { CENTRAL_LAYERS } from "../runtime/config-utils.js";
import { todayWhere } from "../runtime/time-zone.js";
import { customizationSection } from "./agent-customize.js";
import { askedForLater } from "./on-demand.js";

const INLINE_BUDGET = 64 * 1024;

/** By a file's extension (a Map: a project's `notes.toString` must not name a function). */
const LANGUAGE = new Map([["md", "markdown"], ["yaml", "yaml"], ["yml", "yaml"], ["xml", "xml"], ["csv", "csv"], ["toml", "toml"], ["json", "json"]]);

function fence(text: string, path: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const ticks = "`".repeat(longest + 1);
  const ext = path.slice(path.lastIndexOf(".") + 1);
  return `${ticks}${LANGUAGE.get(ext) ?? ""}\n${text}${text.endsWith("\n") ? "" : "\n"}${ticks}`;
}

function dirOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/") + 1);
}

export function recordLabel(r: CatalogRecord): string {
  const who = [r.displayName, r.title].filter(Boolean).join(", ");
  return `${r.module}/${shortName(r)}${who ? ` (${who})` : ""}`;
}

/** A workflow's author and manifest path where its tree has them (seed 002), e.g. "author Rowan, path bmad/…"; "" without. */
export function workflowFacts(r: CatalogRecord): string {
  return [r.author && `author ${r.author}`, r.path && `path ${r.path}`].filter(Boolean).join(", ");
}

const HOW_TO: Record<CatalogRecord["kind"], string> = {
  agent: "Adopt this agent: read the files below and follow the entry file's activation steps; stay in persona until the user dismisses it.",
  workflow: "Run this workflow: follow the entry file's steps in order, asking the user where it says to.",
  task: "Run this task: follow the entry file's instructions exactly.",
  knowledge: "Reference knowledge: use it to ground your answers; it is not a set of instructions.",
};

/** Where a record is rendered: in a project (substituted, behind the runtime block), or where a
 *  project could be given but was not (`"none"`: skills that write say how to get one). */
export type RenderTarget = ProjectRuntime | "none" | undefined;

/** The project a call renders against: the bridge's always, a workspace on the remote when named (with the config
 *  and customization layers rendering `record` reads). */
export async function renderTarget(deps: SurfaceDeps, project?: string, record?: CatalogRecord): Promise<RenderTarget | { error: string }> {
  if (!deps.runtime) return undefined;
  const skill = record?.entry.split("/").at(-2);
  const found = await deps.runtime(project, skill ? { preload: [...CENTRAL_LAYERS, ...customLayers(skill)] } : {});
  if (found.ok) return found.runtime;
  return project === undefined ? "none" : { error: found.error };
}

/** The project's files a skill's customization comes from beside its customize.toml (config_utils.py's layers). */
export function customLayers(skill: string): string[] {
  return [`_bmad/custom/${skill}.toml`, `_bmad/custom/${skill}.user.toml`];
}

const renderedForBundle = new WeakMap<Catalog, Map<string, string>>();
/** Renders for a project by its files' stamp (a few: a project's files change between workflows). */
const renderedForStamp = new WeakMap<Catalog, Map<string, string>>();

/** Rendered for a project whose files change only with the bundle: a render depends on the bundle alone. */
export function followsBundle(target: RenderTarget): boolean {
  return Boolean(target && target !== "none" && target.rendersFollowBundle);
}

/** A text rendered for a project whose files change only with the bundle is made once per bundle and `key`:
 *  the same string every time (the bridge's wire knows it by identity and sends it without encoding it again).
 *  For a project whose files have a stamp (a workspace), once per bundle, project, stamp and `key`. */
export async function keptPerBundle(reader: BundleReader, target: RenderTarget, key: string, make: () => Promise<string>): Promise<string> {
  const runtime = target && target !== "none" ? target : undefined;
  const stamp = runtime?.rendersFollowBundle ? "" : runtime?.stamp;
  if (stamp === undefined) return make();
  const kept = stamp ? renderedForStamp : renderedForBundle;
  let cache = kept.get(reader.catalog);
  if (!cache || (stamp && cache.size >= 64)) kept.set(reader.catalog, (cache = new Map()));
  // The server's URL too, which a render names (loopback dev servers differ by port).
  if (stamp) key = `${runtime!.root}\0${runtime!.pullFrom ?? ""}\0${stamp}\0${key}`;
  let text = cache.get(key);
  if (text !== undefined) return text;
  text = await make();
  // Kept by a stamp only if the stamp names all it read.
  if (!stamp || runtime!.covered?.()) cache.set(key, text);
  return text;
}

/** Renders a record as its files plus loading instructions; in a project, rendered like render_skill.py. */
export async function renderRecord(reader: BundleReader, record: CatalogRecord, extra?: { heading: string; body: string }, target?: RenderTarget): Promise<string> {
  if (extra) return render(reader, record, extra, target);
  return keptPerBundle(reader, target, `${record.source}\0${record.entry}`, () => render(reader, record, undefined, target));
}

/** What the skill's texts show it does (those the render read already, then the Markdown files loaded later): it
 *  hands work to a subagent; it works on the project's code (git, commits, version control, the working tree); it
 *  names another skill (`skill:NAME`, bmad-NAME other than its own `name`). */
async function skillTraits(reader: BundleReader, name: string, read: string[], laterPaths: string[]): Promise<SkillTraits> {
  const traits = { delegates: false, worksOnCode: false, namesSkills: false };
  const namesSkill = (text: string) => [...text.matchAll(SKILL_NAMED)].some((m) => m[0].toLowerCase() !== name);
  const seen = (text: string) => (
    (traits.delegates ||= SUBAGENT.test(text)), (traits.worksOnCode ||= ON_CODE.test(text)), (traits.namesSkills ||= namesSkill(text)), traits.delegates && traits.worksOnCode && traits.namesSkills
  );
  if (read.some(seen)) return traits;
  for (const path of laterPaths) {
    const file = path.endsWith(".md") ? reader.catalog.file(path) : undefined;
    if (file && seen(await servedText(reader, file))) break;
  }
  return traits;
}

const codeSkillsOf = new WeakMap<Catalog, CodeSkill[]>();

/** The help catalog's skills whose texts work on code (ON_CODE), read once per catalog: a workspace's help names
 *  them as the bridge's (review 231: help offered bmad-build "right now" on a workspace, which learned otherwise 4
 *  calls later). */
function codeSkills(reader: BundleReader): Promise<CodeSkill[]> {
  return keptWhenMade(codeSkillsOf, reader.catalog, async () => {
    const records = [...(await helpFor(reader)).bySkill.keys()].flatMap((name) => reader.catalog.manifest.records.find((r) => r.name === name) ?? []);
    return (await Promise.all(records.map((r) => codeWorkOf(reader, r)))).flatMap((skill) => skill ?? []);
  });
}

/** Where a skill works on code: on its main path (its entry, or a file it reaches other than by one intent), or only
 *  in the flows its entry loads a file for by intent (`- **fix** — … load \`references/fix-sprint-status.md\``):
 *  review 265, sprint-planning was named the bridge's for its fix flow alone, though its plan is made on the remote. */
async function codeWorkOf(reader: BundleReader, record: CatalogRecord): Promise<CodeSkill | undefined> {
  const text = async (path: string) => {
    const file = reader.catalog.file(path);
    return file ? servedText(reader, file) : "";
  };
  const entry = await text(record.entry);
  if (ON_CODE.test(entry)) return { name: record.name };
  const flows: CodeSkill["flows"] = [];
  for (const path of record.files.filter((p) => p !== record.entry && p.endsWith(".md"))) {
    if (!ON_CODE.test(await text(path))) continue;
    const file = path.slice(dirOf(record.entry).length);
    const flow = entry.split("\n").flatMap((line) => (line.includes(file) ? (INTENT_LINE.exec(line)?.[1] ?? []) : []))[0];
    if (flow === undefined) return { name: record.name };
    flows.push({ flow, file });
  }
  return flows.length ? { name: record.name, flows } : undefined;
}
/** A list item an entry branches on by intent, led by the intent's name in bold. */
const INTENT_LINE = /^\s*[-*]\s+\*\*([^*\n]{1,40})\*\*\s*[—–:-]/;
const SUBAGENT = /\bsub-?agents?\b/i;
const SKILL_NAMED = /\bskill:|\bbmad-[a-z0-9-]+/gi;
// BMAD's words when it reads git: create-story's "git repository detected … last 5 commit titles", sprint-planning's
// "git history", the retrospective's "per-story commits" (review 224: no line for them; `\bgit\b` skips .gitignore).
const ON_CODE = /\bgit\b|\bcommits\b|\bversion[- ]control\b|\bworking tree\b/i;

async function render(reader: BundleReader, record: CatalogRecord, extra?: { heading: string; body: string }, target?: RenderTarget): Promise<string> {
  const { catalog } = reader;
  const root = dirOf(record.entry);
  const runtime = target && target !== "none" ? target : undefined;
  const ctx = runtime ? await skillRenderFor(reader, runtime, record) : undefined;
  // A render kept per bundle gets the project's earlier work added by its caller (earlierForKept), each time.
  const earlier = ctx && runtime && !followsBundle(target) ? earlierWork(reader, record, runtime, ctx.config) : undefined;
  const rootUri = `bmad://${root.replace(/\/$/, "")}`;
  const where = ctx
    ? // The runtime block gives the skill's root, and that bare paths are relative to it.
      `${ctx.skillRoot === rootUri ? "" : `The skill's files are also ${rootUri}/…. `}Load listed files on demand with resources/read or the bmad-resources tool ({"operation": "read", "uri": "bmad://…"}).`
    : `Paths in these files are relative to bmad://${root} ({skill-root}, bare paths); {project-root} is the user's project. Load listed files on demand with resources/read or the bmad-resources tool ({"operation": "read", "uri": "bmad://…"}).`;
  const facts = workflowFacts(record);
  const origin = recordOrigin(catalog, record);
  const lines = [...(origin ? [origin, ""] : []), `# BMAD ${record.kind}: ${recordLabel(record)}`, "", HOW_TO[record.kind], where, `Origin: ${catalog.originLabel(record)}${facts ? `; ${facts}` : ""}.`];
  // A skill whose entry only hands off to render_skill.py (bmad-build) is followed from the copy that script renders:
  // its companions, inlined here, were read twice (review 77: 60 KB of steps, then the rendered ones again).
  const entryFile = catalog.file(record.entry);
  const entrySource = entryFile ? await servedText(reader, entryFile) : "";
  const handsOff = /render_skill\.py/.test(entrySource);
  let budget = handsOff ? 0 : INLINE_BUDGET;
  const later: string[] = [];
  const inlined: Array<{ path: string; source: string }> = [];
  for (const path of record.files) {
    const file = catalog.file(path);
    if (!file) continue;
    const companion = dirOf(path) === root || record.kind === "knowledge";
    // Rendered for a project, customize.toml is already applied: its raw text would only cost context.
    const resolved = ctx !== undefined && path.endsWith("/customize.toml");
    if (path === record.entry || (companion && !resolved && !askedForLater(entrySource, path) && file.size <= budget)) {
      budget -= file.size;
      inlined.push({ path, source: await servedText(reader, file) });
    } else later.push(path);
  }
  const forLater = ctx ? await valuesForLater(reader, ctx, inlined.filter((f) => f.path.endsWith(".md")).map((f) => f.source), later) : undefined;
  const body: string[] = [];
  const rendered: string[] = [];
  const shown = renderShown();
  let entryText = "";
  let afterEntry = 0;
  for (const { path, source } of inlined) {
    let text = source;
    if (ctx && path.endsWith(".md")) rendered.push((text = markResolved(renderSkillText(text, ctx, shown), ctx, forLater)));
    body.push("", `## ${path}`, fence(text, path));
    if (path === record.entry) (entryText = text), (afterEntry = body.length);
  }
  const engine = await engineSection(reader, record, body.join("\n"), runtime);
  if (engine) body.push("", engine);
  const customization = await customizationSection(reader, record, entryText);
  if (customization) body.splice(afterEntry, 0, "", customization); // right after the agent's own file
  if (ctx && runtime) {
    const today = forLater?.dated || rendered.some(asksDate) ? await todayWhere(runtime) : undefined;
    const traits = await skillTraits(reader, root.split("/").filter(Boolean).at(-1) ?? "", inlined.map((f) => f.source), later);
    const files = await filesAccess(runtime, traits);
    // bmad-help, the one skill that reads the help catalog, recommends the skills in it.
    if (files.kind === "workspace" && entrySource.includes(HELP_CATALOG)) files.bridgeSkills = await codeSkills(reader);
    lines.push("", runtimeBlock(ctx, files, rendered, forLater, traits, today));
  } else if (target === "none" && record.skill && body.some((t) => t.includes("{project-root}"))) lines.push("", noWorkspaceBlock(`${record.kind === "workflow" ? "*" : ""}${shortName(record)}`));
  lines.push(...body);
  // Not listed, still readable by path: BMAD's own tests of a skill's scripts, never loaded to run it, and, rendered
  // for a project, its customize.toml, whose values the render filled in, and its scripts, which bmad-run runs.
  // Nor a file the text above names in a code span by its path from the skill's root (`references/x.md`, sprint-planning's
  // References list) or its URI: the block says where bare paths resolve, and a second list costs every render (review 247).
  const shownText = body.join("\n");
  const named = (path: string) => [`\`${path.slice(root.length)}\``, `\`./${path.slice(root.length)}\``, bmadUri(path)].some((s) => shownText.includes(s));
  // Nor the data of a skill's page or script that nothing shown names by its file name (brainstorming's 41 KB
  // assets/brain-icons.json, which brain.py builds its HTML page from): nothing in chat reads it (review 481).
  const pageData = (path: string) => PAGE_DATA.test(path) && !lines.some((line) => line.includes(path.slice(path.lastIndexOf("/") + 1)));
  const listed = later.filter((path) => !path.includes("/scripts/tests/") && !(ctx && (path.endsWith("/customize.toml") || path.includes("/scripts/"))) && !(path.startsWith(root) && named(path)) && !pageData(path));
  if (listed.length) lines.push("", "## More files (load on demand)", ...listed.map((path) => `- ${bmadUri(path)} (${catalog.file(path)!.size} bytes)`));
  if (extra) lines.push("", `## ${extra.heading}`, extra.body);
  return withEarlierWork(lines.join("\n"), (await earlier)?.line);
}

/** A skill's asset that a browser page or a script reads, not a model: JSON, scripts and styles under assets/. */
const PAGE_DATA = /\/assets\/(?:[^/]+\/)*[^/]+\.(?:json|m?js|css)$/i;

/** Text a skill's files load later: its own, and the `{project-root}/_bmad/` catalogs it names (bmad-help.csv). */
const LOADED_LATER = /\.(md|csv|ya?ml|json|xml)$/;

/** What the skill's files loaded later name from the scripts a render marks as run (see laterValues); read only for a
 *  skill whose rendered text runs one. */
async function valuesForLater(reader: BundleReader, ctx: SkillRender, rendered: string[], laterPaths: string[]): Promise<LaterValues> {
  if (!rendered.some((text) => /resolve_(customization|config)\.py|\/config\.yaml/.test(text))) return NOTHING_LATER;
  const named = rendered.flatMap((text) => [...text.matchAll(/\{project-root\}\/_bmad\/([\w./-]+)/g)].map((m) => m[1]!));
  const paths = [...new Set([...laterPaths, ...named])].filter((path) => LOADED_LATER.test(path) && !path.endsWith("/config.yaml"));
  const files = paths.map((path) => reader.catalog.file(path)).filter((file) => file !== undefined);
  return laterValues(ctx, rendered, await Promise.all(files.map((file) => servedText(reader, file))));
}

const ENGINE = "core/tasks/workflow.xml";

/** A classic or v6-alpha workflow runs through BMAD's engine, `{project-root}/_bmad/core/tasks/workflow.xml`: where the
 *  project does not hold it (a workspace, a project without an installed tree) the bundle's is inlined. */
async function engineSection(reader: BundleReader, record: CatalogRecord, text: string, runtime?: ProjectRuntime): Promise<string> {
  if (record.kind !== "workflow" || record.skill || record.files.includes(ENGINE)) return "";
  const named = /(_?bmad)\/core\/tasks\/workflow\.xml/.exec(text);
  const file = named && reader.catalog.file(ENGINE);
  if (!file) return "";
  const inProject = runtime ? await runtime.fs.stat(`${runtime.fsRoot}/${named[0]}`).catch(() => "missing") : "missing";
  if (inProject === "file") return "";
  return `## ${ENGINE}\nThe workflow engine these files name as {project-root}/${named[0]}, which this project does not hold: ${bmadUri(ENGINE)}.\n${fence(await servedText(reader, file), ENGINE)}`;
}

/** A render as served: with what follows the project and the day, which a kept render cannot hold (the project's
 *  files from earlier phases, today's date); `watched`: the answer must not be kept. */
export async function asServed(reader: BundleReader, record: CatalogRecord, target: RenderTarget, rendering: Promise<string>): Promise<{ text: string; watched: boolean }> {
  const [text, earlier] = await Promise.all([rendering, earlierForKept(reader, record, target)]);
  const runtime = projectOf(target);
  const dated = runtime !== undefined && givesToday(text);
  const served = withEarlierWork(text, earlier.line);
  return { text: dated ? withToday(served, await todayWhere(runtime)) : served, watched: earlier.watched || dated };
}

/** For a render kept per bundle (the bridge): the project's files from earlier phases, which follow the project and
 *  are added to the kept text each time; `watched`: the answer must not be kept. Other renders have them already. */
function earlierForKept(reader: BundleReader, record: CatalogRecord, target: RenderTarget | { error: string }): Promise<{ line?: string; watched: boolean }> {
  const runtime = projectOf(target);
  return runtime && followsBundle(runtime) ? earlierWork(reader, record, runtime) : Promise.resolve({ watched: false });
}

/** A skill that works on code is told whether the project's checks run here: the bridge rebuilds its bundle, and with it
 *  the renders it keeps, when a file under _bmad/ (the contract) changes. */
async function filesAccess(runtime: ProjectRuntime, traits: SkillTraits): Promise<FilesAccess> {
  const workspace = /^bmad:\/\/projects\/([^/]+)$/.exec(runtime.root);
  if (workspace) return { kind: "workspace", project: decodeURIComponent(workspace[1]!), ...(runtime.pullFrom ? { pullFrom: runtime.pullFrom } : {}) };
  const contract = traits.worksOnCode ? await runtime.completionContract?.() : undefined;
  return contract ? { kind: "local", contract } : { kind: "local" };
}

/** Resolves a name and renders the record, or the unknown-name error with the closest names. `again`: for a tool
 *  that takes a project, the call that names one (see pickAProject). */
export async function loadRecord(deps: SurfaceDeps, kind: CatalogRecord["kind"], name: string, extra?: { heading: string; body: string }, project?: string, again?: (project: string) => string, call?: CallContext): Promise<ToolOutcome> {
  const found = deps.reader.catalog.resolve(kind, name);
  if (!found.ok) return fail(found.error, found.closest);
  const target = await renderTarget(deps, project, found.record);
  if (target && typeof target === "object" && "error" in target) return fail(target.error);
  const pick = target === "none" && again ? await pickAProject(deps, found.record, again) : undefined;
  if (pick) return done(pick);
  return done(forConnection((await asServed(deps.reader, found.record, target, renderRecord(deps.reader, found.record, extra, target))).text, call?.has));
}

/** The project a render is for, if any. */
export function projectOf(target: RenderTarget | { error: string }): ProjectRuntime | undefined {
  return target && target !== "none" && !("error" in target) ? target : undefined;
}

/** A workflow that writes, asked for with no project: which one to run it in, or how to make the first, rather than
 *  its raw files, which the call with the project brings again, rendered (about 20 KB paid twice). `again`: the call
 *  that names a project. */
export async function pickAProject(deps: SurfaceDeps, record: CatalogRecord, again: (project: string) => string): Promise<string | undefined> {
  if (record.kind !== "workflow" || !deps.workspaces) return undefined;
  const entry = deps.reader.catalog.file(record.entry);
  if (!entry || !(await servedText(deps.reader, entry)).includes("{project-root}")) return undefined;
  const projects = (await deps.workspaces.projects()).map((p) => p.project);
  const create = `${TOOL.bmadProject} {"action": "create", "name": "my-app"}`;
  const writes = await skillOutputs(deps.reader, record.name);
  const head = `${recordLabel(record)} runs in a project: it reads the project's _bmad/ config and writes its files there${writes ? ` (${writes.slice(0, 300)})` : ""}.`;
  if (!projects.length) return `${head} You have no project yet: make one with ${create}, then call ${again("my-app")}. Its files as BMAD ships them: ${bmadUri(record.entry)}.`;
  return `${head} Your projects: ${projects.slice(0, 20).join(", ")}. Call ${again("<one of them>")}, or make a new one with ${create}. Its files as BMAD ships them: ${bmadUri(record.entry)}.`;
}

/** What a render of `record` heads with (originReport): the others of its module/name, and, where its short name
 *  reaches it, the other modules' records of that name. Every door that renders it says so, whatever name it was asked
 *  by (review 422: a custom module's bmad-prd took `prd` from bmm's, and only the bmad tool said it). */
export function recordOrigin(catalog: Catalog, record: CatalogRecord): string {
  const byShortName = catalog.resolve(record.kind, shortName(record));
  const found = byShortName.ok && byShortName.record === record ? byShortName : catalog.resolve(record.kind, `${record.module}/${shortName(record)}`);
  return found.ok && found.record === record ? originReport(catalog, found, true) : "";
}

/** Which origin won and which others were there (seed 000 transparency). `winnerSaid`: the text it heads names the
 *  winner's origin (a render's Origin line), so a report that would only repeat it is empty. */
export function originReport(catalog: Catalog, found: { candidates: CatalogRecord[]; namesakes: CatalogRecord[] }, winnerSaid = false): string {
  const [winner, ...others] = found.candidates;
  if (!winner) return "";
  // Another module's record of the name, by the name that reaches it: names only, at most five.
  const namesakes = found.namesakes.map((r) => `${r.module}/${shortName(r)} from ${catalog.manifest.sources[r.source]?.origin ?? "unknown"}`);
  const rest = [...others.map((r) => `${r.module}/${r.name} from ${catalog.originLabel(r)}`), ...namesakes.slice(0, 5), ...(namesakes.length > 5 ? ["…"] : [])];
  // A file of the record's that another source put at its path is served from there: said, with where from (review 35:
  // a module's prd-template.md was served in BMAD's bmad-prd under "from package").
  const foreign = winner.files.flatMap((path) => {
    const file = catalog.file(path);
    return file && file.source !== winner.source ? [`${path} from ${catalog.sourceLabel(file.source)}`] : [];
  });
  const mixed = foreign.length ? ` ${foreign.length} of its files come from elsewhere: ${foreign.slice(0, 5).join("; ")}${foreign.length > 5 ? "; …" : ""}.` : "";
  if (winnerSaid && !mixed && !rest.length) return "";
  return `Resolved ${winner.module}/${winner.name} from ${catalog.originLabel(winner)}.${mixed}${rest.length ? ` Also available: ${rest.join("; ")}.` : ""}`;
}
