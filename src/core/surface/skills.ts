// Skills over MCP (io.modelcontextprotocol/skills): every 6.3+ skill of the bundle at skill://{name}/, its files
// byte for byte with the bundle's own sha256 as digests, plus one generated file on running skills here. The
// SDK's SkillsExtension answers the methods; this is its SkillSource. Nothing is read ahead: a skill's
// SKILL.md is read (once per bundle) when a listing or skills/get first needs its frontmatter.
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { DIRECTORY_MIME_TYPE, skillEntry, type Skill, type SkillSource } from "@modelcontextprotocol/server/ext/skills";
import type { BundleFile, CatalogRecord, RecordKind } from "../catalog/bundle.js";
import type { Catalog } from "../catalog/catalog.js";
import { closest, suggestion } from "../catalog/closest.js";
import { isConfigShaped } from "../catalog/config.js";
import { shortNameHolders } from "../catalog/names.js";
import { checkBundlePath } from "../catalog/paths.js";
import { sha256Hex } from "../workspace/installer-manifests.js";
import { parseCursor } from "./cursor.js";
import type { SurfaceDeps } from "./deps.js";
import { servedText, type BundleReader } from "./reader.js";
import type { ReadOutcome } from "./resources.js";
import { SKILL_RUNTIME_FILE, SKILL_RUNTIME_TEXT } from "./runtime-block.js";

export const SKILL_SCHEME = "skill://";
export const SKILL_PAGE_SIZE = 5;
/** The entry's `_meta` key naming the origin that won (seed 000: project, cli, env, user, package). */
export const ORIGIN_META = "bmad-mcp/origin";

interface ServedSkill {
  /** `bmad-prd`, or `bmm/bmad-prd` where a higher-priority skill holds the name. */
  path: string;
  record: CatalogRecord;
  /** Path inside the skill -> bundle file. Config-shaped files are settings, never part of a skill. */
  files: Map<string, BundleFile>;
  entry?: Skill | { problem: string };
}

interface SkillIndex {
  /** Sorted by path: the listing order, and what a cursor counts. */
  skills: ServedSkill[];
  byPath: Map<string, ServedSkill>;
}

const KINDS: RecordKind[] = ["agent", "workflow", "task", "knowledge"];
const indexes = new WeakMap<Catalog, SkillIndex>();

/** The skills a bundle serves, named by seed 000's rule: the highest-priority skill of a name keeps skill://{name}. */
export function skillIndex(catalog: Catalog): SkillIndex {
  let index = indexes.get(catalog);
  if (index) return index;
  const records = KINDS.flatMap((k) => catalog.list(k)).filter((r) => r.skill && r.entry.endsWith("/SKILL.md"));
  const holders = shortNameHolders(records, (r) => r.name, (r) => catalog.priority(r.source));
  index = { skills: [], byPath: new Map() };
  for (const record of records) {
    const path = holders.has(record) ? record.name : `${record.module}/${record.name}`;
    if (index.byPath.has(path)) continue;
    const dir = record.entry.slice(0, -"SKILL.md".length);
    const files = new Map<string, BundleFile>();
    for (const p of record.files) {
      const file = catalog.file(p);
      if (file && p.startsWith(dir) && !isConfigShaped(p)) files.set(p.slice(dir.length), file);
    }
    const skill: ServedSkill = { path, record, files };
    index.skills.push(skill);
    index.byPath.set(path, skill);
  }
  index.skills.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  indexes.set(catalog, index);
  return index;
}

const encodePath = (path: string) => path.split("/").map(encodeURIComponent).join("/");
const uriOf = (skill: ServedSkill, rel = "") => `${SKILL_SCHEME}${encodePath(skill.path)}${rel ? `/${encodePath(rel)}` : ""}`;

/** The skill and the path inside it (`""` for its root) that a skill:// URI names. */
function locate(index: SkillIndex, uri: string): { skill: ServedSkill; rel: string } | undefined {
  if (!uri.startsWith(SKILL_SCHEME)) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(uri.slice(SKILL_SCHEME.length));
  } catch {
    return undefined;
  }
  if (!checkBundlePath(path).ok) return undefined;
  const segments = path.split("/");
  // A skill path has one segment, or two where it is module-qualified: the longer match wins.
  for (let n = Math.min(2, segments.length); n >= 1; n--) {
    const skill = index.byPath.get(segments.slice(0, n).join("/"));
    if (skill) return { skill, rel: segments.slice(n).join("/") };
  }
  return undefined;
}

/** For bmad-run: `skill://bmad-prd/x` as the bundle URI of the same place (`bmad://bmm/bmad-prd/x`). */
export function skillUriAsBmad(catalog: Catalog, uri: string): string | undefined {
  const found = locate(skillIndex(catalog), uri);
  if (!found) return undefined;
  const dir = found.skill.record.entry.slice(0, -"/SKILL.md".length);
  return `bmad://${encodePath(found.rel ? `${dir}/${found.rel}` : dir)}`;
}

function notFound(what: string, uri: string, pool: string[]): ProtocolError {
  const suggestions = closest(uri, pool);
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `${what} ${uri.slice(0, 1100)}.${suggestion(suggestions)}`, { uri: uri.slice(0, 1100), suggestions });
}

const skillMdUris = (index: SkillIndex) => index.skills.map((s) => uriOf(s, "SKILL.md"));

/** What a file's sha256 covers, as text: the reader's text, or it with the byte order mark a decoder dropped. */
const exactness = new Map<string, "as-is" | "bom" | "lossy">();

async function exactText(reader: BundleReader, file: BundleFile): Promise<string | undefined> {
  const text = await servedText(reader, file);
  let known = exactness.get(file.sha256);
  if (!known) {
    known = (await sha256Hex(text)) === file.sha256 ? "as-is" : (await sha256Hex(`\uFEFF${text}`)) === file.sha256 ? "bom" : "lossy";
    if (exactness.size >= 100_000) exactness.clear();
    exactness.set(file.sha256, known);
  }
  return known === "as-is" ? text : known === "bom" ? `\uFEFF${text}` : undefined;
}

let runtimeDigest: Promise<string> | undefined;
const runtimeSize = new TextEncoder().encode(SKILL_RUNTIME_TEXT).length;

/** The skill's entry: SKILL.md's frontmatter as the SDK parses it (what clients verify against), every file. */
function entryOf(reader: BundleReader, skill: ServedSkill): Promise<Skill | { problem: string }> {
  // Kept once built, never while being built (core/kept.ts); a failed read is tried again next time.
  if (skill.entry) return Promise.resolve(skill.entry);
  return buildEntry(reader, skill).then((entry) => (skill.entry = entry));
}

async function buildEntry(reader: BundleReader, skill: ServedSkill): Promise<Skill | { problem: string }> {
  const manifest = skill.files.get("SKILL.md");
  const text = manifest && (await exactText(reader, manifest));
  if (text === undefined) return { problem: "its SKILL.md is not UTF-8 text" };
  let parsed: Skill;
  try {
    parsed = await skillEntry(skill.path, { "SKILL.md": text });
  } catch (error) {
    return { problem: (error as Error).message.replace(/\s+/g, " ") };
  }
  const resources = [...skill.files].map(([rel, f]) => ({ uri: uriOf(skill, rel), digest: `sha256:${f.sha256}`, size: f.size }));
  if (!skill.files.has(SKILL_RUNTIME_FILE)) {
    runtimeDigest ??= sha256Hex(SKILL_RUNTIME_TEXT);
    resources.push({ uri: uriOf(skill, SKILL_RUNTIME_FILE), digest: `sha256:${await runtimeDigest}`, size: runtimeSize });
  }
  resources.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  return { uri: uriOf(skill, "SKILL.md"), frontmatter: parsed.frontmatter, resources, _meta: { [ORIGIN_META]: reader.catalog.originLabel(skill.record) } };
}

/** resources/read of a skill:// URI: the file's exact text, or the generated runtime file. */
export async function readSkillUri(reader: BundleReader, uri: string): Promise<ReadOutcome> {
  const index = skillIndex(reader.catalog);
  const found = locate(index, uri);
  if (!found) {
    const suggestions = closest(uri, skillMdUris(index));
    return { ok: false, error: `No skill is served at ${uri.slice(0, 1100)}.${suggestion(suggestions)}`, suggestions };
  }
  const { skill, rel } = found;
  const file = skill.files.get(rel);
  if (file) {
    const text = await exactText(reader, file);
    if (text === undefined) return { ok: false, error: `${uri} is not UTF-8 text, so it cannot be served byte for byte; read ${skillUriAsBmad(reader.catalog, uri)} instead.` };
    return { ok: true, uri, mimeType: file.mime, text };
  }
  if (rel === SKILL_RUNTIME_FILE) return { ok: true, uri, mimeType: "text/markdown", text: SKILL_RUNTIME_TEXT };
  // A skill's own customize.toml, which its SKILL.md says to read: served as every config is, without its
  // secret-looking keys, by its bmad:// URI, never byte for byte here (review 292: "no file", and no way to it).
  const dir = skill.record.entry.slice(0, -"SKILL.md".length);
  if (isConfigShaped(rel) && skill.record.files.includes(`${dir}${rel}`)) {
    return { ok: false, error: `${uri} is a config, served without its secret-looking keys rather than byte for byte: read ${skillUriAsBmad(reader.catalog, uri)} (bmad-resources "read").` };
  }
  const suggestions = closest(uri, [...skill.files.keys(), SKILL_RUNTIME_FILE].map((r) => uriOf(skill, r)));
  return { ok: false, error: `Skill ${skill.path} has no file ${rel || "at its root URI (a folder: resources/directory/read lists it)"}.${suggestion(suggestions)}`, suggestions };
}

/** The direct children of a skill folder, or undefined when `rel` is no folder of the skill. */
function children(skill: ServedSkill, rel: string): Array<{ uri: string; name: string; mimeType: string; size?: number }> | undefined {
  const prefix = rel ? `${rel}/` : "";
  const out = new Map<string, { uri: string; name: string; mimeType: string; size?: number }>();
  const files: Array<[string, string, number]> = [...skill.files].map(([p, f]) => [p, f.mime, f.size]);
  if (!skill.files.has(SKILL_RUNTIME_FILE)) files.push([SKILL_RUNTIME_FILE, "text/markdown", runtimeSize]);
  for (const [path, mimeType, size] of files) {
    if (!path.startsWith(prefix)) continue;
    const [name, ...deeper] = path.slice(prefix.length).split("/");
    const childPath = prefix + name!;
    out.set(childPath, deeper.length ? { uri: uriOf(skill, childPath), name: name!, mimeType: DIRECTORY_MIME_TYPE } : { uri: uriOf(skill, childPath), name: name!, mimeType, size });
  }
  if (!out.size) return undefined;
  return [...out.values()].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
}

/** The SkillSource over the current bundle (the bridge swaps it when project files change). */
export function skillSource(deps: SurfaceDeps): SkillSource {
  const current = async () => {
    await deps.ready?.();
    return deps.reader;
  };
  return {
    async list({ cursor }) {
      const reader = await current();
      const { skills } = skillIndex(reader.catalog);
      const start = parseCursor(cursor);
      const page = await Promise.all(skills.slice(start, start + SKILL_PAGE_SIZE).map((s) => entryOf(reader, s)));
      const next = start + SKILL_PAGE_SIZE;
      return { skills: page.filter((e): e is Skill => "uri" in e), ...(next < skills.length ? { nextCursor: String(next) } : {}) };
    },
    async get(uri) {
      const reader = await current();
      const index = skillIndex(reader.catalog);
      const found = locate(index, uri);
      if (!found || found.rel !== "SKILL.md") throw notFound("No skill is served at", uri, skillMdUris(index));
      const entry = await entryOf(reader, found.skill);
      if ("problem" in entry) throw new ProtocolError(ProtocolErrorCode.InternalError, `Skill ${found.skill.path} is not served: ${entry.problem}. Fix its SKILL.md.`);
      return entry;
    },
    async read(uri) {
      const out = await readSkillUri(await current(), uri);
      if (!out.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, out.error, { uri: uri.slice(0, 1100), suggestions: out.suggestions ?? [] });
      return { text: out.text, mimeType: out.mimeType };
    },
    async readDirectory(uri) {
      const index = skillIndex((await current()).catalog);
      const found = locate(index, uri.replace(/\/$/, ""));
      const listed = found && children(found.skill, found.rel);
      if (!listed) throw notFound("No skill folder is served at", uri, index.skills.map((s) => uriOf(s)));
      return { resources: listed };
    },
  };
}
