// npm run bench: the Worker in workerd through the Miniflare API (not wrangler dev's extra proxy hop),
// raw JSON-RPC over HTTP, each op measured against a no-op floor route in the same run.
// Prints medians and p99s, cold start, bundle build time and tools/list bytes, then checks the budgets.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { buildBundle } from "./bundle/build.js";
import { manifestBytes } from "./bundle/manifest.js";
import { buildWorker, startLocalWorker } from "./local-worker.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 600);
const WARMUP = 50;

interface Stats {
  median: number;
  p99: number;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { median: at(0.5), p99: at(0.99) };
}

type Op = [name: string, fn: () => Promise<unknown>];

/** Round-robin over the ops, so the floor and every op see the same machine conditions. */
async function measure(ops: Op[], calls = CALLS): Promise<Array<[string, Stats]>> {
  for (const [, fn] of ops) for (let i = 0; i < WARMUP; i++) await fn();
  const samples = ops.map(() => [] as number[]);
  for (let i = 0; i < calls; i++) {
    for (const [j, [, fn]] of ops.entries()) {
      const t = performance.now();
      await fn();
      samples[j]!.push(performance.now() - t);
    }
  }
  return ops.map(([name], j) => [name, stats(samples[j]!)]);
}

function rpc(url: URL, method: string, params: Record<string, unknown> = {}): () => Promise<string> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" };
  return async () => {
    const res = await fetch(url, { method: "POST", headers, body });
    const text = await res.text();
    if (!res.ok || text.includes('"error"')) throw new Error(`${method} failed: ${res.status} ${text.slice(0, 200)}`);
    return text;
  };
}

const ms = (n: number) => `${n.toFixed(2)} ms`;

async function main(): Promise<void> {
  const build = await buildBundle({ sources: [], outDir: "bmad-bundle" });
  const manifestSize = manifestBytes(build.manifest).length;
  await buildWorker(); // bundling is not part of cold start

  const started = performance.now();
  const worker = await startLocalWorker();
  const ready = performance.now() - started;
  const mcp = new URL("/mcp", worker.url);
  const toolsList = rpc(mcp, "tools/list");
  const firstList = await toolsList();
  const coldStart = performance.now() - started;
  const toolsBytes = Buffer.byteLength(firstList.replace(/^event: message\ndata: /, "").trim());

  try {
    const floorUrl = new URL("/healthz", worker.url);
    const floor = () => fetch(floorUrl).then((r) => r.text());
    const ops: Op[] = [
      ["tools/list", toolsList],
      ["prompts/list", rpc(mcp, "prompts/list")],
      ["prompts/get bmad-pm", rpc(mcp, "prompts/get", { name: "bmad-pm" })],
      ["resources/list", rpc(mcp, "resources/list")],
      ["resources/read SKILL.md", rpc(mcp, "resources/read", { uri: "bmad://bmm/bmad-agent-pm/SKILL.md" })],
      ["tools/call bmad architect", rpc(mcp, "tools/call", { name: "bmad", arguments: { command: "architect" } })],
    ];
    const rows = await measure([["floor GET /healthz", floor], ...ops]);
    const floorMedian = rows[0]![1].median;

    const client = new Client({ name: "bench", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(mcp));
    const [[, sdkList]] = (await measure([["sdk", () => client.listTools()]], Math.min(CALLS, 300))) as [[string, Stats]];
    await client.close();

    console.log(`\nBMAD MCP bench: ${CALLS} calls per op (round-robin, after ${WARMUP} warm-up calls each), raw JSON-RPC over HTTP to workerd (Miniflare API)\n`);
    console.log("op".padEnd(30) + "median".padStart(10) + "p99".padStart(10) + "x floor".padStart(10));
    for (const [name, s] of rows) console.log(name.padEnd(30) + ms(s.median).padStart(10) + ms(s.p99).padStart(10) + (s.median / floorMedian).toFixed(2).padStart(10));
    console.log(`${"SDK client tools/list".padEnd(30)}${ms(sdkList.median).padStart(10)}${ms(sdkList.p99).padStart(10)}`);
    console.log(`\ncold start to first tools/list: ${ms(coldStart)} (workerd up and bundle seeded: ${ms(ready)}; first request on a cold isolate: ${ms(coldStart - ready)})`);
    console.log(`bundle build (bmad-method 6.12.0): ${ms(build.ms)}; manifest.json ${manifestSize} bytes; ${build.manifest.files.length} files`);
    console.log(`tools/list bytes (default toolsets): ${toolsBytes}`);

    const budgets: Array<[string, boolean]> = [
      ["default tools/list <= 12 KB", toolsBytes <= 12 * 1024],
      ["bundle build < 3 s", build.ms < 3000],
      ["manifest.json < 256 KB", manifestSize < 256 * 1024],
      ...ops.map(([name], i): [string, boolean] => [`${name} median <= 2x floor`, rows[i + 1]![1].median <= 2 * floorMedian]),
    ];
    console.log("\nbudgets:");
    for (const [name, ok] of budgets) console.log(`  ${ok ? "ok  " : "MISS"} ${name}`);
    if (budgets.some(([, ok]) => !ok)) process.exitCode = 1;
  } finally {
    await worker.dispose();
  }
}

await main();
