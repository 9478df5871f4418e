// Bench rows for project memory on the Worker (issue 14): recall_structured and remember_structured on workspaces
// holding 1,000 and 10,000 memories, measured in bench.ts's round-robin beside its floor (median, p95, p99).
// Memories are natural English: 12 to 36 word runs of BMAD's own skill texts (bmad-method's markdown), so
// words are as common or rare as in real notes; queries are the labelled recall set's questions.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import set from "../test/fixtures/memory-recall.json";

type Rpc = (method: string, params: Record<string, unknown>) => Promise<string>;
type Op = [name: string, fn: () => Promise<unknown>];

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

/** Seeds a workspace of 1,000 and one of 10,000 memories; returns the ops to measure on each. A remember is of a
 *  new memory every call (the same one again would be the idempotent no-op), so each workspace grows a little. */
export async function benchMemoryOps(rpc: Rpc, wanted: (name: string) => boolean, log: (line: string) => void): Promise<Op[]> {
  const tool = (name: string, args: Record<string, unknown>) => rpc("tools/call", { name, arguments: args });
  const ops: Op[] = [];
  for (const size of [1_000, 10_000]) {
    const label = size.toLocaleString("en-US");
    // Seeded only when one of its rows is measured (BENCH_ROWS).
    if (!wanted(`recall_structured @${label}`) && !wanted(`remember_structured @${label}`)) continue;
    const project = `bench-memory-${size}`;
    await tool("bmad-project", { action: "create", name: project });
    const started = performance.now();
    for (let i = 0; i < size; i++) await tool("remember_structured", { project, ...memory(i) });
    log(`seeded ${size.toLocaleString("en-US")} memories in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    let asked = 0;
    let added = size;
    ops.push(
      [`recall_structured @${label}`, () => tool("recall_structured", { project, query: set.queries[asked++ % set.queries.length]!.query, limit: 5 })],
      [`remember_structured @${label}`, () => tool("remember_structured", { project, ...memory(added++) })],
    );
  }
  return ops;
}
