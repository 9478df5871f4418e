// `_bmad/_config/*`: manifest.yaml, skill-manifest.csv, files-manifest.csv and the merged bmad-help.csv,
// rendered as BMAD's installer renders them (its CSV quoting, its sort orders, its YAML options).
import { stringify as stringifyYaml } from "yaml";
import type { InstalledSkill } from "./installer-tree.js";

export interface ManifestModule {
  name: string;
  version: string | null;
}

/** `_bmad/_config/manifest.yaml`. `installShims` is written when some module ships shim skills. */
export function manifestYaml(input: { version: string | null; date: string; modules: ManifestModule[]; ides: string[]; shimsAvailable: boolean }): string {
  const { version, date, modules, ides, shimsAvailable } = input;
  const installation: Record<string, unknown> = { version, installDate: date, lastUpdated: date };
  if (shimsAvailable) installation.installShims = false;
  const manifest = {
    installation,
    modules: modules.map((m) => ({
      name: m.name,
      version: m.version,
      installDate: date,
      lastUpdated: date,
      source: m.name === "core" || m.name === "bmm" ? "built-in" : "custom",
      npmPackage: null,
      repoUrl: null,
    })),
    ides,
  };
  const text = stringifyYaml(manifest, { indent: 2, lineWidth: 0 });
  return text.endsWith("\n") ? text : text + "\n";
}

const quoted = (value: string) => `"${value.replaceAll('"', '""')}"`;

/** `_bmad/_config/skill-manifest.csv`: every field quoted. */
export function skillManifestCsv(skills: InstalledSkill[]): string {
  const rows = skills.map((s) => [s.canonicalId, s.name, s.description, s.module, s.path].map(quoted).join(","));
  return ["canonicalId,name,description,module,path", ...rows].map((line) => line + "\n").join("");
}

export interface TrackedFile {
  /** Relative to `_bmad/`. */
  path: string;
  sha256: string;
}

/** Node's path.extname for a POSIX path. */
function extname(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot) : "";
}

/**
 * `_bmad/_config/files-manifest.csv`: every file the installer tracked, in tracking order, then sorted
 * (stably) by module, type and name. Fields are quoted but not escaped, as the installer writes them.
 */
export function filesManifestCsv(tracked: TrackedFile[]): string {
  const rows = tracked.map(({ path, sha256 }) => {
    const ext = extname(path).toLowerCase();
    const base = path.slice(path.lastIndexOf("/") + 1);
    const name = ext && base !== ext && base.endsWith(ext) ? base.slice(0, -ext.length) : base;
    return { type: ext.slice(1) || "file", name, module: path.split("/")[0]!, path, sha256 };
  });
  rows.sort((a, b) => a.module.localeCompare(b.module) || a.type.localeCompare(b.type) || a.name.localeCompare(b.name));
  return "type,name,module,path,hash\n" + rows.map((r) => `"${r.type}","${r.name}","${r.module}","${r.path}","${r.sha256}"\n`).join("");
}

/** The merged help catalog's header (the installer's canonical module-help.csv schema). */
const HELP_HEADER = "module,skill,display-name,menu-code,description,action,args,phase,preceded-by,followed-by,required,output-location,outputs";
const HELP_COLUMNS = 13;
const PHASE = 7;

/** One CSV line split as the installer splits it (quotes toggle, "" inside quotes is a quote). */
export function splitCsvLine(line: string): string[] {
  const out: string[] = [];
  let current = "";
  let quotedField = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '"') {
      if (quotedField && line[i + 1] === '"') (current += '"'), i++;
      else quotedField = !quotedField;
    } else if (c === "," && !quotedField) out.push(current), (current = "");
    else current += c;
  }
  out.push(current);
  return out;
}

/** Rows a help catalog is read for, at most: BMAD 6.12's has 29. On the bridge the catalog is the project's own file,
 *  and 70,000 planted rows held every answer past 120 s (review 182). */
export const MAX_HELP_ROWS = 2_000;

/** What a warning says of the rows helpCatalogLines left out of `catalog`. */
export const helpRowsLeftOut = (more: number, catalog: string): string =>
  `${more} rows of ${catalog} left out: a help catalog gives at most ${MAX_HELP_ROWS}, rows naming a skill served here first. Remove the rows that do not belong there.`;

/** A help catalog's header and its rows (lines with text), at most MAX_HELP_ROWS, in the catalog's order; `more` counts
 *  those left out. Past the cap, rows whose skill `served` names come first, each skill's first row before any skill's
 *  second: 2,000 planted rows at the top (or 2,000 naming bmad-prd) left BMAD's own out, and the map said every
 *  required workflow had written something (review 189). */
export function helpCatalogLines(csv: string, served?: (skill: string) => boolean): { header: string; rows: string[]; more: number } {
  const [header = "", ...lines] = csv.split(/\r?\n/);
  const rows = lines.filter((line) => line.trim());
  const more = Math.max(0, rows.length - MAX_HELP_ROWS);
  const skill = splitCsvLine(header).indexOf("skill");
  if (!more || !served || skill < 0) return { header, rows: rows.slice(0, MAX_HELP_ROWS), more };
  const rounds: number[][] = []; // rounds[n]: the rows that are their skill's n-th
  const others: number[] = [];
  const seen = new Map<string, number>();
  rows.forEach((line, i) => {
    const name = (splitCsvLine(line)[skill] ?? "").trim();
    if (!served(name)) return void (others.length < MAX_HELP_ROWS && others.push(i));
    const n = seen.get(name) ?? 0;
    seen.set(name, n + 1);
    if (n < MAX_HELP_ROWS) (rounds[n] ??= []).push(i);
  });
  const kept = [...rounds.flat(), ...others].slice(0, MAX_HELP_ROWS).sort((a, b) => a - b);
  return { header, rows: kept.map((i) => rows[i]!), more };
}

const csvField = (value: string) => (value.includes(",") || value.includes('"') || value.includes("\n") ? `"${value.replaceAll('"', '""')}"` : value);

/**
 * `_bmad/_config/bmad-help.csv`: every module's module-help.csv rows (line by line, comments and header rows
 * skipped, padded or cut to 13 columns, an empty module column filled except for core), sorted by module then
 * phase, authored order within a phase. No trailing newline.
 */
export function bmadHelpCsv(helps: Array<[module: string, text: string]>): string {
  const rows: string[] = [];
  for (const [module, text] of helps) {
    for (const line of text.split("\n")) {
      if (!line.trim() || line.startsWith("#") || line.startsWith("module,")) continue;
      const columns = splitCsvLine(line);
      if (columns.length < HELP_COLUMNS - 1) continue;
      const padded = columns.slice(0, HELP_COLUMNS);
      while (padded.length < HELP_COLUMNS) padded.push("");
      if (!padded[0]!.trim() && module !== "core") padded[0] = module;
      rows.push(padded.map(csvField).join(","));
    }
  }
  const decorated = rows.map((row, index) => ({ row, index, cols: splitCsvLine(row) }));
  decorated.sort((a, b) => {
    const moduleA = (a.cols[0] || "").toLowerCase();
    const moduleB = (b.cols[0] || "").toLowerCase();
    if (moduleA !== moduleB) return moduleA.localeCompare(moduleB);
    const phaseA = a.cols[PHASE] || "";
    const phaseB = b.cols[PHASE] || "";
    if (phaseA !== phaseB) return phaseA.localeCompare(phaseB);
    return a.index - b.index;
  });
  return [HELP_HEADER, ...decorated.map((d) => d.row)].join("\n");
}

/** Hex SHA-256 of a text's UTF-8 bytes (Web Crypto: Workers and Node alike). */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
