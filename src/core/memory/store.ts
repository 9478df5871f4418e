// What the memory tools need from storage: the Worker keeps memories in the workspace's SQLite (FTS5), the
// bridge in the project's files (a full-text index in memory). Both answer in the same shapes.
import type { FailureCategory, Memory, MemoryEntry, MemoryHit, MemoryType, MemResult } from "./model.js";
import { severityRank } from "./model.js";

export interface MemoryFilter {
  type?: MemoryType;
  agent?: string;
  category?: FailureCategory;
}

export type MemoryOrder = "recent" | "severity";

export interface Recalled {
  /** "bm25": full-text ranking alone; "hybrid": fused with vector similarity. */
  mode: "bm25" | "hybrid";
  hits: MemoryHit[];
  /** Memory files a person broke: the file, the line, what is wrong. */
  warnings: string[];
}

export interface Listed {
  entries: MemoryEntry[];
  /** How many match the filter, before the limit. */
  total: number;
  warnings: string[];
}

export interface ProjectMemory {
  /** Stores the memory; the same id again adds any new tags and stays one memory. */
  remember(memory: Memory): Promise<MemResult<{ id: string; created: boolean; tags: string[] }>>;
  /** Ranked by relevance to the query's words. */
  search(query: string, filter: MemoryFilter, limit: number): Promise<MemResult<Recalled>>;
  /** Newest first, or the failure museum's order (worst first, then newest). */
  list(filter: MemoryFilter, order: MemoryOrder, limit: number): Promise<MemResult<Listed>>;
}

/** Whether an entry passes the filter. */
export function matchesFilter(entry: MemoryEntry, filter: MemoryFilter): boolean {
  return (!filter.type || entry.type === filter.type) && (!filter.agent || entry.agent === filter.agent) && (!filter.category || entry.category === filter.category);
}

/** Newest first; undated entries (hand-written without a date) after dated ones, later lines first. */
export function byRecency(a: MemoryEntry, b: MemoryEntry): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  return sourceLine(b) - sourceLine(a);
}

export function bySeverity(a: MemoryEntry, b: MemoryEntry): number {
  return severityRank(b.severity) - severityRank(a.severity) || byRecency(a, b);
}

function sourceLine(entry: MemoryEntry): number {
  return Number(/:(\d+)$/.exec(entry.source ?? "")?.[1] ?? 0);
}
