// Bench rows for project memory on the Worker (issue 14): remember_structured, and recall_structured over
// workspaces holding 1,000 and 10,000 memories, each op beside a floor call in the same loop, medians and p95s.
// Memories are natural English: 12 to 36 word runs of BMAD's own skill texts (bmad-method's markdown), so
// words are as common or rare as in real notes; queries are the labelled recall set's questions.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import set from "../test/fixtures/memory-recall.json";

export interface MemoryRow {
  name: string;
  median: number;
  p95: number;
  floor: number;
}

type Rpc = (method: string, params: Record<string, unknown>) => Promise<string>;

function markdown(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? markdown(join(dir, e.name)) : e.name.endsWith(".md") ? [join(dir, e.name)] : []));
}

let corpus: string[] | undefined;

/** The i-th memory (deterministic): a run of words from the skill texts, typed and tagged like a set memory. */
function memory(i: number): { type: string; agent: string; text: string; tags: string[] } {
  corpus ??= markdown(resolve(import.meta.dirname, "../node_modules/bmad-method/src")).sort().flatMap((f) => readFileSync(f, "utf8").split(/\s+/).filter((w) => /[a-z]/i.test(w) && w.length < 30));
  const like = set.memories[i % set.memories.length]!;
  const start = (i * 7919) % (corpus.length - 40);
  return { type: like.type, agent: like.agent, text: `${corpus.slice(start, start + 12 + (i % 25)).join(" ")} (#${i})`, tags: like.tags };
}

function quantiles(samples: number[]): { median: number; p95: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { median: at(0.5), p95: at(0.95) };
}

/** Times `op` and the floor alternately, `calls` times each after a warm-up. */
async function timed(op: (i: number) => Promise<unknown>, floor: () => Promise<unknown>, calls: number): Promise<{ op: number[]; floor: number[] }> {
  for (let i = 0; i < 30; i++) {
    await op(-1 - i);
    await floor();
  }
  const samples = { op: [] as number[], floor: [] as number[] };
  for (let i = 0; i < calls; i++) {
    let t = performance.now();
    await floor();
    samples.floor.push(performance.now() - t);
    t = performance.now();
    await op(i);
    samples.op.push(performance.now() - t);
  }
  return samples;
}

export async function benchMemory(rpc: Rpc, floor: () => Promise<unknown>, calls: number, log: (line: string) => void): Promise<MemoryRow[]> {
  const tool = (name: string, args: Record<string, unknown>) => rpc("tools/call", { name, arguments: args });
  const rows: MemoryRow[] = [];
  let seeded = 0;
  for (const size of [1_000, 10_000]) {
    const project = `bench-memory-${size}`;
    await tool("bmad-project", { action: "create", name: project });
    const started = performance.now();
    for (; seeded < size; seeded++) await tool("remember_structured", { project, ...memory(seeded) });
    log(`seeded ${size.toLocaleString("en-US")} memories in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    seeded = 0;
    const queries = set.queries;
    const recall = await timed((i) => tool("recall_structured", { project, query: queries[Math.abs(i) % queries.length]!.query, limit: 5 }), floor, calls);
    const r = quantiles(recall.op);
    rows.push({ name: `recall_structured @${size.toLocaleString("en-US")}`, ...r, floor: quantiles(recall.floor).median });
    // New memories each time (the same one again would be the idempotent no-op).
    const remember = await timed((i) => tool("remember_structured", { project, ...memory(size + 100 + i + 31) }), floor, Math.min(calls, 300));
    rows.push({ name: `remember_structured @${size.toLocaleString("en-US")}`, ...quantiles(remember.op), floor: quantiles(remember.floor).median });
  }
  return rows;
}
