// Context is the cost users pay. Replays the lifecycle's calls (scripts/lifecycle.ts, the same as the lifecycle test)
// on the real Worker with an MCP client, and beside them what BMAD in Claude Code reads for the same path in an
// installed 6.12 project: SKILL.md and customize.toml, the files the path loads, the scripts' stdout (BMAD's Python).
// Prints, for bmad-prd's Create path, bmad-architecture, bmad-create-epics-and-stories, bmad-sprint-planning,
// bmad-code-review (to its target) and bmad-retrospective: calls, model-visible bytes (the text of every answer;
// the model reads skill files through bmad-resources, so no resources/read is left to count), the native bytes, and
// the largest contributors. `tsx scripts/bench-context.ts` runs it alone; `npm run bench` runs it last.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { cachedInstall } from "../test/node/helpers.js";
import { ensurePythonDeps, PY_DEPS } from "../test/fixtures/runtime/python-deps.js";
import { McpDoor, NativeDoor } from "./lifecycle-doors.js";
import { PHASES, walk, type Entry, type Phase } from "./lifecycle.js";
import { buildWorker, startLocalWorker } from "./local-worker.js";
import { signIn } from "./oauth-client.js";

const ROOT = resolve(import.meta.dirname, "..");
/** The issue's budgets: at most this many times the native bytes, and at most this many calls. */
const BYTES_FACTOR = 1.1;
const MAX_CALLS = 45;
const ROWS: Array<[Phase, string]> = [
  ["prd", "bmad-prd Create path"],
  ["architecture", "bmad-architecture"],
  ["epics", "bmad-create-epics"],
  ["sprint", "bmad-sprint-planning"],
  ["review", "bmad-code-review"],
  ["retro", "bmad-retrospective"],
];
/** The walk: every phase up to sprint planning, then the rows after it. Not bmad-create-story, a v6 shim that 6.12
 *  does not install for Claude Code (code review and the retrospective need no story file). */
const WALK: Phase[] = [...PHASES.slice(0, PHASES.indexOf("sprint") + 1), "review", "retro"];
const TOP = 6;

export interface ContextRow {
  phase: Phase;
  label: string;
  mcp: Entry[];
  native: Entry[];
}

export interface ContextResult {
  rows: ContextRow[];
  /** The default tools/list, JSON: in the model's context once per conversation, beside (not in) the rows. */
  toolsListBytes: number;
  /** Project creation, once per project: its answer's bytes. */
  setupBytes: number;
}

const sum = (entries: Entry[]) => entries.reduce((n, e) => n + e.bytes, 0);

/** Walks both doors to the end of the rows' last phase on the same day's date. `scriptPath`: a Worker already built. */
export async function benchContext(scriptPath?: string): Promise<ContextResult> {
  const date = new Date().toISOString().slice(0, 10);
  const worker = await startLocalWorker({ scriptPath: scriptPath ?? (await buildWorker()) });
  let mcp: McpDoor;
  let toolsListBytes: number;
  try {
    const { access_token } = await signIn(fetch, worker.url.origin);
    const client = new Client({ name: "bench-context", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", worker.url), { requestInit: { headers: { authorization: `Bearer ${access_token}` } } }));
    toolsListBytes = Buffer.byteLength(JSON.stringify(await client.listTools()));
    mcp = new McpDoor((name, args) => client.callTool({ name, arguments: args }) as never, "todo");
    await mcp.call("bmad-project create", "bmad-project", { action: "create", name: "todo", answers: { core: { user_name: "Ada" } } });
    await walk(mcp, WALK, date);
    await client.close();
  } finally {
    await worker.dispose();
  }
  const dir = mkdtempSync(join(tmpdir(), "bmad-bench-context-"));
  try {
    // The offline installer, as the tests run it (and from the same cache).
    await cachedInstall(join(ROOT, "node_modules/bmad-method/tools/installer/bmad-cli.js"), ["install", "--modules", "bmm", "--tools", "claude-code", "--yes"], dir);
    ensurePythonDeps(); // BMAD's sprint scripts import ruamel.yaml: on a fresh machine npm test may not have run yet
    const native = new NativeDoor(dir, { PYTHONPATH: PY_DEPS });
    await walk(native, WALK, date);
    return {
      rows: ROWS.map(([phase, label]) => ({ phase, label, mcp: mcp.ledger.filter((e) => e.phase === phase), native: native.ledger.filter((e) => e.phase === phase) })),
      toolsListBytes,
      setupBytes: sum(mcp.ledger.filter((e) => e.phase === "setup")),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

/** The contributors by call, the same call made twice summed: largest first. */
function largest(entries: Entry[]): Array<[string, number, number]> {
  const by = new Map<string, [number, number]>();
  for (const e of entries) {
    const [bytes, times] = by.get(e.call) ?? [0, 0];
    by.set(e.call, [bytes + e.bytes, times + 1]);
  }
  return [...by].map(([call, [bytes, times]]): [string, number, number] => [call, bytes, times]).sort((a, b) => b[1] - a[1]);
}

/** Prints the rows and the budgets; false on a miss. */
export function printContext(result: ContextResult): boolean {
  console.log("\nContext the model reads (bytes of answer text), MCP on the remote beside BMAD in Claude Code on an installed 6.12 project:\n");
  console.log("path".padEnd(24) + "calls".padStart(7) + "MCP bytes".padStart(12) + "native calls".padStart(14) + "native bytes".padStart(14) + "ratio".padStart(8));
  const budgets: Array<[string, boolean]> = [];
  for (const row of result.rows) {
    const [bytes, native] = [sum(row.mcp), sum(row.native)];
    console.log(row.label.padEnd(24) + String(row.mcp.length).padStart(7) + String(bytes).padStart(12) + String(row.native.length).padStart(14) + String(native).padStart(14) + (bytes / native).toFixed(2).padStart(8));
    budgets.push([`${row.label}: ${bytes} bytes <= ${BYTES_FACTOR}x native (${Math.round(native * BYTES_FACTOR)})`, bytes <= native * BYTES_FACTOR]);
    budgets.push([`${row.label}: ${row.mcp.length} calls <= ${MAX_CALLS}`, row.mcp.length <= MAX_CALLS]);
  }
  const withoutToml = result.rows.map((r) => `${r.label} ${(sum(r.mcp) / sum(r.native.filter((e) => !e.call.endsWith("/customize.toml")))).toFixed(2)}`);
  console.log(`(native counts customize.toml as the issue defines it; without it, beside resolve_customization.py's stdout that carries the same values: ${withoutToml.join(", ")})`);
  console.log(`(also in context, not in the rows: tools/list ${kb(result.toolsListBytes)} once per conversation; bmad-project create ${result.setupBytes} bytes once per project)`);
  for (const row of result.rows) {
    console.log(`\nlargest contributors, ${row.label}:`);
    for (const [call, bytes, times] of largest(row.mcp).slice(0, TOP)) console.log(`  ${String(bytes).padStart(6)}  ${call}${times > 1 ? ` (x${times})` : ""}`);
    console.log(`  native: ${largest(row.native).slice(0, TOP).map(([call, bytes]) => `${call} ${bytes}`).join(", ")}`);
  }
  console.log("\nbudgets:");
  for (const [name, ok] of budgets) console.log(`  ${ok ? "ok  " : "MISS"} ${name}`);
  return budgets.every(([, ok]) => ok);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (!printContext(await benchContext())) process.exitCode = 1;
}
