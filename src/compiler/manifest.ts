// Merges the trees of all sources into one deterministic BundleManifest plus its blobs.
import { createHash } from "node:crypto";
import type { BundleFile, BundleManifest, BundleModule, BundleSource, CatalogRecord, SearchIndex } from "../core/catalog/bundle";
import type { Tree } from "./files";
import { mimeFor } from "../core/workspace/paths";
import { bodyAfterFrontmatter } from "../core/markdown";
import { PLAIN_SKILL_NAME } from "../core/catalog/names";
import { UNSHOWABLE } from "../core/lines";
import { findAcronyms } from "../core/catalog/search";
import type { TreeContent } from "./types";
import { bmadHelpCsv, helpCatalogLines, helpRowsLeftOut } from "../core/workspace/installer-manifests";

export interface BuiltSource {
  source: BundleSource;
  tree: Tree;
  content: TreeContent;
}

export interface BuiltBundle {
  manifest: BundleManifest;
  blobs: Map<string, Uint8Array>;
  /** With `indexLater`: the search index, made on the first call; the manifest's `searchIndex` is then "". */
  index?: () => SearchIndex;
}

export function sha256(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** JSON with object keys sorted at every level: the same value always gives the same bytes. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const KIND_ORDER = ["agent", "workflow", "task", "knowledge"];

/** `built` must already be in final source order (the index is the record's `source`). `indexLater`: for a bundle
 *  kept in memory (the bridge's local trees), whose search index is made when a search first needs it. */
export function assemble(built: BuiltSource[], options: { indexLater?: boolean; views?: Map<string, Uint8Array> } = {}): BuiltBundle {
  const blobs = new Map<string, Uint8Array>();
  const files: BundleFile[] = [];
  const records: CatalogRecord[] = [];
  const modules: BundleModule[] = [];
  const config: Record<string, Record<string, unknown>> = Object.create(null); // keyed by module names from the trees
  const bodies = new Map<string, string>(); // `${source}\0${path}` -> text, for the search index
  const refused: string[] = [];

  built.forEach(({ tree, content: given }, source) => {
    const content = { ...given, records: admitted(given.records, (w) => refused.push(`${built[source]!.source.name}: ${w}`)) };
    for (const [path, rel] of content.files) {
      const data = tree.read(rel);
      if (!data) continue;
      const hash = sha256(data);
      blobs.set(hash, data);
      files.push({ path, source, sha256: hash, size: data.length, mime: mimeFor(path) });
    }
    for (const r of content.records) records.push({ ...r, source });
    for (const m of content.modules) modules.push({ ...m, source });
    // Higher-priority sources come first; the first config seen for a module wins.
    for (const [mod, values] of Object.entries(content.config)) config[mod] ??= values;
    for (const r of content.records) {
      const rel = content.files.get(r.entry);
      const text = rel === undefined ? null : tree.text(rel);
      if (text !== null) bodies.set(`${source}\0${r.entry}`, text);
    }
  });

  files.sort((a, b) => cmp(a.path, b.path) || a.source - b.source);
  addHelpCatalog(files, blobs);
  for (const f of files.filter((f) => f.path === HELP_CATALOG)) {
    const { more } = helpCatalogLines(new TextDecoder().decode(blobs.get(f.sha256)!));
    if (more) refused.push(`${built[f.source]!.source.name}: ${helpRowsLeftOut(more, HELP_CATALOG)}`);
  }
  records.sort(
    (a, b) =>
      KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || cmp(a.module, b.module) || cmp(a.name, b.name) || a.source - b.source || cmp(a.entry, b.entry),
  );
  modules.sort((a, b) => cmp(a.name, b.name) || a.source - b.source);

  const indexJson = (): string => {
    const acronyms: Record<string, string> = {};
    const decoder = new TextDecoder();
    for (const f of files) findAcronyms(decoder.decode(blobs.get(f.sha256)!), acronyms);
    const terms = records.map((r) => termCounts(bodies.get(`${r.source}\0${r.entry}`) ?? ""));
    return searchIndexJson(terms, acronyms);
  };
  let searchIndex = "";
  let index: (() => SearchIndex) | undefined;
  if (options.indexLater) {
    let made: SearchIndex | undefined;
    // About 30 of the 110 ms of a cold build of a 6.12 install, which the bridge runs at every start in a project
    // and after every edit, and most sessions never search.
    index = () => (made ??= JSON.parse(indexJson()) as SearchIndex);
  } else {
    const indexBytes = new TextEncoder().encode(indexJson());
    searchIndex = sha256(indexBytes);
    blobs.set(searchIndex, indexBytes);
  }

  const body: Omit<BundleManifest, "id"> = {
    format: 1,
    sources: built.map((b) => b.source),
    modules,
    records,
    files,
    config,
    searchIndex,
  };
  if (options.views?.size) {
    body.views = {};
    for (const [name, html] of [...options.views].sort(([a], [b]) => cmp(a, b))) {
      const hash = sha256(html);
      blobs.set(hash, html);
      body.views[name] = { sha256: hash, size: html.length };
    }
  }
  const warnings = [...built.flatMap((b) => (b.content.warnings ?? []).map((w) => `${b.source.name}: ${w}`)), ...refused];
  if (warnings.length) body.warnings = warnings;
  const id = sha256(canonicalJson(body));
  return { manifest: { ...body, id } as BundleManifest, blobs, index };
}

/** Agents, workflows, tasks and knowledge one tree may give: BMAD 6.12 has a few hundred. A manifest of 100,000 rows
 *  made a prompt list of 27.7 MiB no client was given, and a start of 7.5 s (review 59). */
export const MAX_TREE_RECORDS = 2_000;
/** The Skills extension's limit on a SKILL.md's frontmatter description (the Agent Skills rule the SDK checks). */
const SKILL_DESCRIPTION_MAX = 1024;

/** A tree's records that may be served: none whose name or module holds an unshowable character, none whose name holds
 *  "/", no skill whose name is not plain (PLAIN_SKILL_NAME), and the first MAX_TREE_RECORDS; what is left out is said
 *  (`warn`). */
function admitted<T extends { name: string; module: string; skill?: boolean; displayName?: string; title?: string; description?: string }>(records: T[], warn: (w: string) => void): T[] {
  // A name is a slash command in a client: one word of at most 100 characters (review 87: 3,076 with spaces).
  const showable = records.filter((r) => !UNSHOWABLE.test(r.name) && !UNSHOWABLE.test(r.module) && !/\s/.test(r.name) && r.name.length <= 100);
  if (showable.length < records.length) warn(`${records.length - showable.length} agents or workflows left out: their names hold control or format characters or spaces, or are longer than 100 characters.`);
  // No name holds "/", which qualifies a name by its module: a classic row named `bmm/prd` was served as BMAD's bmm/prd
  // (review 422).
  const pathy = new Set(showable.filter((r) => r.name.includes("/") || (r.skill && !PLAIN_SKILL_NAME.test(r.name))));
  if (pathy.size) warn(`${pathy.size} agents, workflows or skills left out: ${[...pathy].slice(0, 5).map((r) => JSON.stringify(r.name.slice(0, 60))).join(", ")}${pathy.size > 5 ? ", …" : ""}. A name holds no "/" (module/name is how one is qualified), and a skill's is letters, digits, "-", "_" and "." (not ".."), as BMAD's are: rename it in its SKILL.md or manifest row.`);
  const named = showable.filter((r) => !pathy.has(r));
  if (named.length > MAX_TREE_RECORDS) warn(`${named.length - MAX_TREE_RECORDS} agents and workflows left out: a tree gives at most ${MAX_TREE_RECORDS}.`);
  // skills/list gives a SKILL.md's frontmatter verbatim (the extension's spec), so a description past its limit is
  // not cut there as in prompts/list: the skill is left out of that list alone (review 182: it went unsaid).
  const wordy = named.slice(0, MAX_TREE_RECORDS).filter((r) => r.skill && [...(r.description ?? "")].length > SKILL_DESCRIPTION_MAX);
  if (wordy.length) warn(`${wordy.length} skills left out of skills/list (served elsewhere, their descriptions cut): ${wordy.slice(0, 5).map((r) => `${r.module}/${r.name}`).join(", ")}${wordy.length > 5 ? ", …" : ""}. A SKILL.md's description there is at most ${SKILL_DESCRIPTION_MAX} characters: shorten it.`);
  // What listings show of each (a tool's or a prompt's description and title) is one line and bounded: a tree's words
  // reach every conversation's tools/list and prompts/list (review 87: a cloned repository's 5,350-character title with
  // ESC, BEL and U+202E).
  return named.slice(0, MAX_TREE_RECORDS).map((r) => ({
    ...r,
    ...(r.displayName !== undefined ? { displayName: oneLine(r.displayName, 100) } : {}),
    ...(r.title !== undefined ? { title: oneLine(r.title, 200) } : {}),
    ...(r.description !== undefined ? { description: oneLine(r.description, 1000) } : {}),
  }));
}

const UNSHOWABLE_RUNS = new RegExp(`${UNSHOWABLE.source}+`, "gu");
/** A listing's field: its control, format and line-separating characters as spaces, cut to `max` characters. */
export const oneLine = (text: string, max: number): string => [...text.replace(UNSHOWABLE_RUNS, " ")].slice(0, max).join("");

export const HELP_CATALOG = "_config/bmad-help.csv";

/** bmad-help routes by `_config/bmad-help.csv`; a tree that has none (a source tree, an older install) gets
 *  the one BMAD's installer would assemble from the modules' module-help.csv. `files` must be sorted. */
function addHelpCatalog(files: BundleFile[], blobs: Map<string, Uint8Array>): void {
  if (files.some((f) => f.path === HELP_CATALOG)) return;
  const decoder = new TextDecoder();
  const seen = new Set<string>();
  const helps: Array<[string, string]> = [];
  let source: number | undefined;
  for (const f of files) {
    const module = /^([^/]+)\/module-help\.csv$/.exec(f.path)?.[1];
    if (!module || seen.has(module)) continue; // the first of a path is the highest priority
    seen.add(module);
    source ??= f.source;
    helps.push([module, decoder.decode(blobs.get(f.sha256)!)]);
  }
  if (source === undefined) return;
  const data = new TextEncoder().encode(bmadHelpCsv(helps));
  const hash = sha256(data);
  blobs.set(hash, data);
  files.unshift({ path: HELP_CATALOG, source, sha256: hash, size: data.length, mime: mimeFor(HELP_CATALOG) });
  files.sort((a, b) => cmp(a.path, b.path) || a.source - b.source);
}

const STOP = new Set(
  ("a an and are as at be but by for from has have if in into is it its no not of on or so such that the their then there these " +
    "they this to was were will with you your we our can do does all any each when which who what how than them also may should must")
    .split(" "),
);

/** Lower-cased word -> count over the body. The frontmatter is cut off unparsed: the record was read from it
 *  already, and parsing its YAML again here cost about 7 ms of a 105 ms cold build of a 6.12 install. */
export function termCounts(text: string): Map<string, number> {
  const body = bodyAfterFrontmatter(text);
  const counts = new Map<string, number>();
  for (const w of body.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    if (w.length < 2 || STOP.has(w)) continue;
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  return counts;
}

/** The SearchIndex blob: canonicalJson({ terms, acronyms }) byte for byte, with the terms written straight from
 *  their maps. Making an object of each record's words (thousands of keys) and sorting them again took about a
 *  quarter of a cold local build, which the bridge runs at every start. */
export function searchIndexJson(terms: Array<Map<string, number>>, acronyms: SearchIndex["acronyms"]): string {
  return `{"acronyms":${canonicalJson(acronyms)},"terms":[${terms.map(countsJson).join(",")}]}`;
}

/** As JSON.stringify writes an object whose keys were added in sorted order: array-index keys ("7", "2026") first,
 *  in numeric order, then the others in the order added. */
function countsJson(counts: Map<string, number>): string {
  const keys = [...counts.keys()];
  const indexKeys = keys.filter(isArrayIndex).sort((a, b) => Number(a) - Number(b));
  const otherKeys = keys.filter((k) => !isArrayIndex(k)).sort(cmp);
  return `{${[...indexKeys, ...otherKeys].map((k) => `${JSON.stringify(k)}:${counts.get(k)}`).join(",")}}`;
}

const isArrayIndex = (key: string): boolean => /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 2 ** 32 - 1;

/** Manifest bytes as written: compact, canonical key order. */
export function manifestBytes(manifest: BundleManifest): Uint8Array {
  return new TextEncoder().encode(canonicalJson(manifest));
}
