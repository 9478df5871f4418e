// The catalog: one read-only view of a bundle manifest, built once per isolate (or process) per bundle id.
// Resolution follows seed 000: filter by name (and module), sort by origin priority, the first wins;
// every candidate is kept so callers can show which origin won.
import type { BundleFile, BundleManifest, CatalogRecord, RecordKind } from "./bundle.js";
import { closest, suggestion } from "./closest.js";
import { aliases, parseQualifiedName, shortName } from "./names.js";
import type { Result } from "../result.js";

/** `candidates`: every record of the winner's module/short name, priority order; `namesakes`: the first record of each
 *  other module/short name the same input names (a custom module's `analyst` and BMAD's bmm/analyst). */
export type Resolution = Result<{ record: CatalogRecord; candidates: CatalogRecord[]; namesakes: CatalogRecord[] }, { closest: string[] }>;

const KIND_LABEL: Record<RecordKind, string> = { agent: "agent", workflow: "workflow", task: "task", knowledge: "knowledge domain" };

export class Catalog {
  readonly id: string;
  /** The winning file for each path. */
  readonly files = new Map<string, BundleFile>();
  /** Sorted winning paths, for listing and pagination. */
  readonly paths: string[];
  private readonly byKind = new Map<RecordKind, CatalogRecord[]>();
  private readonly aliasIndex = new Map<RecordKind, Map<string, CatalogRecord[]>>();
  private readonly winnersByKind = new Map<RecordKind, CatalogRecord[]>();
  private readonly indexOf = new Map<CatalogRecord, number>();

  constructor(readonly manifest: BundleManifest) {
    this.id = manifest.id;
    for (const f of manifest.files) {
      const current = this.files.get(f.path);
      if (!current || this.priority(f.source) < this.priority(current.source)) this.files.set(f.path, f);
    }
    this.paths = [...this.files.keys()].sort();
    manifest.records.forEach((r, i) => this.indexOf.set(r, i));
    const sorted = [...manifest.records].sort((a, b) => this.priority(a.source) - this.priority(b.source));
    for (const r of sorted) {
      push(this.byKind, r.kind, r);
      const index = this.aliasIndex.get(r.kind) ?? new Map<string, CatalogRecord[]>();
      this.aliasIndex.set(r.kind, index);
      for (const a of aliases(r)) push(index, a, r);
    }
    for (const [kind, records] of this.byKind) {
      const seen = new Set<string>();
      const winners = records.filter((r) => {
        const key = `${r.module}/${shortName(r)}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return !this.unlisted(r);
      });
      winners.sort((a, b) => a.module.localeCompare(b.module) || a.name.localeCompare(b.name));
      this.winnersByKind.set(kind, winners);
    }
  }

  /** Position of a record in manifest.records (the search index is aligned with it). */
  recordIndex(record: CatalogRecord): number {
    return this.indexOf.get(record) ?? -1;
  }

  priority(sourceIndex: number): number {
    return this.manifest.sources[sourceIndex]?.priority ?? Number.MAX_SAFE_INTEGER;
  }

  originLabel(record: CatalogRecord): string {
    return this.sourceLabel(record.source);
  }

  /** A source of the bundle, as answers name it. */
  sourceLabel(source: number): string {
    const s = this.manifest.sources[source];
    return s ? `${s.origin} (priority ${s.priority}, ${s.name}${s.version ? "@" + s.version : ""})` : "unknown";
  }

  /** BMAD's installer leaves its deprecated shims out unless asked (`--shims`): one a package or source tree ships
   *  resolves by name but is listed nowhere; one an installed tree holds was asked for, and is listed. */
  private unlisted(record: CatalogRecord): boolean {
    return record.shim === true && this.manifest.sources[record.source]?.layout !== "v6-skills-installed";
  }

  /** One record per module/short-name: the highest-priority origin, unless that is a shim nobody installed. */
  list(kind: RecordKind): CatalogRecord[] {
    return this.winnersByKind.get(kind) ?? [];
  }

  /** All names a user may type for a kind (for suggestions and completions). */
  names(kind: RecordKind): string[] {
    return this.list(kind).flatMap((r) => [shortName(r), `${r.module}/${shortName(r)}`]);
  }

  resolve(kind: RecordKind, input: string): Resolution {
    const query = input.trim();
    const index = this.aliasIndex.get(kind);
    // A name in another case is the name (BMAD's are lower case): "PRD", "/BMAD-PRD" (review 140).
    const exact = index?.get(query)?.length ? index.get(query) : index?.get(query.toLowerCase());
    if (exact?.length) {
      const winner = exact[0]!;
      // Candidates: every record for the same module/short name, priority order.
      const key = `${winner.module}/${shortName(winner)}`;
      const candidates = (this.byKind.get(kind) ?? []).filter((r) => `${r.module}/${shortName(r)}` === key);
      // Namesakes: the input names other modules' records too (review 134: a custom module's bmad-agent-analyst took
      // `analyst` from bmm's without a word).
      const seen = new Set([key]);
      const namesakes: CatalogRecord[] = [];
      for (const r of exact) {
        const other = `${r.module}/${shortName(r)}`;
        if (seen.has(other)) continue;
        seen.add(other);
        namesakes.push(r);
      }
      return { ok: true, record: winner, candidates, namesakes };
    }
    const { module, name } = parseQualifiedName(query);
    const pool = this.names(kind).filter((n) => !module || n.startsWith(`${module}/`));
    const near = [...new Set([...this.namedInDescriptions(kind, name), ...closest(module ? query : name, pool.length ? pool : this.names(kind))])].slice(0, 5);
    const label = KIND_LABEL[kind];
    const moduleNote = module && !this.manifest.modules.some((m) => m.name === module)
      ? ` Module "${module}" is not in this bundle (modules: ${this.moduleNames().join(", ")}).`
      : "";
    return { ok: false, closest: near, error: `Unknown ${label} "${query.slice(0, 100)}".${moduleNote}${suggestion(near)}` };
  }

  /** The records whose descriptions quote the name as words, as the phrases a skill says it is used for: a skill that
   *  took in another's intent is found by it (review 90: `check-implementation-readiness` is bmad-sprint-planning's). */
  private namedInDescriptions(kind: RecordKind, name: string): string[] {
    const phrase = name.toLowerCase().replace(/^\*?(bmad-)?/, "").replace(/[-_\s]+/g, " ").trim().slice(0, 100);
    // One word: as a person's name the description gives (review 117: "talk to John" is the pm's, and `bmad John` was
    // unknown), capitalised within a sentence, not at its start.
    if (/^[a-z]{2,30}$/.test(phrase)) {
      const named = new RegExp(`[a-z,] ${phrase[0]!.toUpperCase()}${phrase.slice(1)}\\b`);
      return this.list(kind).filter((r) => named.test(r.description ?? "")).map(shortName).slice(0, 3);
    }
    if (!phrase.includes(" ")) return [];
    return this.list(kind).filter((r) => r.description?.toLowerCase().replace(/[-_]+/g, " ").includes(phrase)).map(shortName).slice(0, 3);
  }

  moduleNames(): string[] {
    return [...new Set(this.manifest.modules.map((m) => m.name))].sort();
  }

  file(path: string): BundleFile | undefined {
    return this.files.get(path);
  }

  /** Suggests existing paths for a missing one. */
  closestPaths(path: string): string[] {
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/") + 1) : "";
    const pool = dir ? this.paths.filter((p) => p.startsWith(dir)) : this.paths;
    return closest(path, pool.length ? pool : this.paths, 3);
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
