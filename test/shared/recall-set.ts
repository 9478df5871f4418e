// The labelled recall set (test/fixtures/memory-recall.json) run through any front door: remember every
// memory with remember_structured, ask every query with recall_structured, score precision@5.
import set from "../fixtures/memory-recall.json";

export interface RecallSetQuery {
  query: string;
  type?: string;
  agent?: string;
  expected: string[];
}

export const RECALL_SET = set as { memories: Array<{ key: string; type: string; agent: string; text: string; tags: string[] }>; queries: RecallSetQuery[] };

type Call = (tool: string, args: Record<string, unknown>) => Promise<{ structured: Record<string, any>; isError: boolean; text: string }>;

/** Remembers the set, runs its queries; per query, the expected keys among the top 5 over min(5, expected). */
export async function runRecallSet(call: Call, extra: Record<string, unknown> = {}): Promise<{ precision: number; perQuery: Array<{ query: string; precision: number; got: string[] }> }> {
  const keyOf = new Map<string, string>();
  for (const m of RECALL_SET.memories) {
    const out = await call("remember_structured", { type: m.type, agent: m.agent, text: m.text, tags: m.tags, ...extra });
    if (out.isError) throw new Error(`remember ${m.key}: ${out.text}`);
    keyOf.set(out.structured.id as string, m.key);
  }
  const perQuery = [];
  for (const q of RECALL_SET.queries) {
    const out = await call("recall_structured", { query: q.query, limit: 5, ...(q.type ? { type: q.type } : {}), ...(q.agent ? { agent: q.agent } : {}), ...extra });
    if (out.isError) throw new Error(`recall "${q.query}": ${out.text}`);
    const got = (out.structured.hits as Array<{ id: string }>).map((h) => keyOf.get(h.id) ?? h.id);
    const found = got.slice(0, 5).filter((k) => q.expected.includes(k)).length;
    perQuery.push({ query: q.query, precision: found / Math.min(5, q.expected.length), got });
  }
  return { precision: perQuery.reduce((s, q) => s + q.precision, 0) / perQuery.length, perQuery };
}

/** The score as the test prints it, with the queries that missed something. */
export function describeRecall(door: string, result: Awaited<ReturnType<typeof runRecallSet>>): string {
  const misses = result.perQuery.filter((q) => q.precision < 1).map((q) => `  ${q.precision.toFixed(2)} "${q.query}" -> ${q.got.join(", ")}`);
  return `recall set on ${door}: precision@5 = ${result.precision.toFixed(3)} over ${result.perQuery.length} queries, ${RECALL_SET.memories.length} memories${misses.length ? `\n${misses.join("\n")}` : ""}`;
}
