// `bmad-mcp --test`: checks a project as the bridge would serve it, and says what is wrong: the BMAD roots found,
// the bundle built from them (every warning the build gave is a problem), the project's records that override the
// embedded ones, the project's scripts (each must be one BMAD vouches for, or it will not run), and one call into
// each toolset through a real MCP client, in this process. Prints a short report; ok is false when anything failed.
import { relative } from "node:path";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import type { RecordKind } from "../core/catalog/bundle.js";
import type { Catalog } from "../core/catalog/catalog.js";
import { shortName } from "../core/catalog/names.js";
import type { SurfaceDeps } from "../core/surface/deps.js";
import { TOOL } from "../core/surface/names.js";
import { buildServer } from "../core/surface/server.js";
import { SERVER_INFO } from "../core/surface/server-info.js";
import { TOOLSET_NAMES, type ToolsetName } from "../core/surface/toolsets.js";
import type { LocalBundle } from "./local-bundle.js";
import { vouchedFor, type ScriptVouching } from "./project-runtime.js";
import type { NodeRuntimeFs } from "./runtime-fs.js";

export interface SelfTestInput {
  project: string;
  bundle: LocalBundle;
  deps: SurfaceDeps;
  projectFs: NodeRuntimeFs;
  vouching: ScriptVouching;
  /** What the roots the user named failed to yield, and every warning discovery and the build gave. */
  problems: string[];
}

/** One read-only call per toolset; `error`: the answer expected (an isError result that proves the part answers). */
const SMOKE = new Map<ToolsetName, { tool: string; args: Record<string, unknown>; error?: RegExp }>([
  ["manifest", { tool: TOOL.bmad, args: {} }],
  ["proxy", { tool: TOOL.listWorkflows, args: {} }],
  ["contracts", { tool: TOOL.bmadResources, args: { operation: "modules" } }],
  ["delivery", { tool: TOOL.bmadTask, args: { action: "status", session_id: "bmad-mcp-self-test" }, error: /not found|no session/i }],
  ["kit", { tool: TOOL.listSessions, args: {} }],
  ["workspace", { tool: TOOL.bmadFiles, args: { action: "list", path: "_bmad/*" } }],
  ["memory", { tool: TOOL.recallStructured, args: { query: "bmad" } }],
]);
/** Where scripts live in a project: BMAD's shared ones and each installed skill's (as project-runtime.ts). */
const SCRIPT_HOMES = ["_bmad/scripts", ".claude/skills", ".cursor/skills", ".agents/skills"];
const KINDS: RecordKind[] = ["agent", "workflow", "task", "knowledge"];

export async function selfTest(input: SelfTestInput): Promise<{ ok: boolean; lines: string[] }> {
  const lines = [`bmad-mcp ${SERVER_INFO.version} --test: ${input.project}`];
  let failed = 0;
  const report = (ok: boolean | "warn", what: string, text: string) => {
    if (ok === false) failed++;
    lines.push(`${ok === true ? "ok  " : ok === "warn" ? "warn" : "FAIL"}  ${what.padEnd(9)} ${text}`);
  };

  await input.bundle.ready();
  const { catalog } = input.bundle.reader;
  const local = catalog.manifest.sources.map((s, i) => ({ s, i })).filter(({ s }) => s.origin !== "package");
  if (!local.length) report("warn", "roots", "no BMAD tree in the project (_bmad/, bmad/, .bmad-core/), --path, BMAD_ROOT or ~/.bmad: the embedded BMAD only");
  for (const { s, i } of local) report(true, "roots", `${s.origin} ${s.name}${s.version ? `@${s.version}` : ""} (${s.layout}): ${catalog.manifest.records.filter((r) => r.source === i).length} records`);

  const counts = KINDS.map((k) => `${catalog.list(k).length} ${k === "knowledge" ? "knowledge" : `${k}s`}`).join(", ");
  report(true, "bundle", `${counts}; ${catalog.paths.length} files`);
  for (const problem of [...new Set([...input.problems, ...(catalog.manifest.warnings ?? [])])]) report(false, "bundle", problem);

  const overrides = overridden(catalog);
  report(true, "overrides", overrides.length ? `${overrides.length} of the embedded records are overridden, e.g. ${overrides.slice(0, 4).join(", ")}` : "none: every record is the embedded one");

  const scripts = await projectScripts(input.projectFs, input.project);
  let refused = 0;
  for (const script of scripts) {
    const vouched = await vouchedFor(input.project, script, [input.project], input.vouching);
    if (!vouched.ok) {
      refused++;
      report(false, "scripts", vouched.error);
    }
  }
  const allowed = input.vouching.allowProjectScripts ? " (--allow-project-scripts: all may run)" : "";
  if (!refused) report(true, "scripts", `${scripts.length} vouched for${allowed}`);

  for (const toolset of TOOLSET_NAMES) {
    const outcome = await smoke(input.deps, toolset).catch((error: Error) => ({ ok: false, text: error.message }));
    report(outcome.ok, `${toolset}`, outcome.text);
  }
  lines.push(failed ? `FAIL: ${failed} problem${failed === 1 ? "" : "s"}` : "PASS: ready to serve");
  return { ok: failed === 0, lines };
}

/** `module/name` of each record a local source brings that wins over an embedded (package) one of the same name. */
function overridden(catalog: Catalog): string[] {
  const origin = (source: number) => catalog.manifest.sources[source]!.origin;
  const out = new Set<string>();
  for (const r of catalog.manifest.records) {
    if (origin(r.source) === "package") continue;
    const found = catalog.resolve(r.kind, `${r.module}/${shortName(r)}`);
    if (found.ok && found.record === r && found.candidates.some((c) => origin(c.source) === "package")) out.add(`${r.module}/${shortName(r)}`);
  }
  return [...out];
}

/** The project's script files (*.py, *.sh, *.js) below a scripts/ folder of a script home, through the confined fs. */
async function projectScripts(fs: NodeRuntimeFs, root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, inScripts: boolean, depth: number): Promise<void> => {
    for (const name of (await fs.list(dir)).sort()) {
      const path = `${dir}/${name}`;
      const kind = await fs.stat(path);
      if (kind === "dir" && depth < 4 && name !== "__pycache__") await walk(path, inScripts || name === "scripts", depth + 1);
      else if (kind === "file" && inScripts && /\.(py|sh|js|mjs)$/.test(name)) out.push(path);
    }
  };
  for (const home of SCRIPT_HOMES) await walk(`${root}/${home}`, home.endsWith("scripts"), 0);
  return out.map((p) => `${root}/${relative(root, p)}`);
}

/** One toolset served alone, through a real client over an in-memory link: its tools listed, one called. */
async function smoke(deps: SurfaceDeps, toolset: ToolsetName): Promise<{ ok: boolean; text: string }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = buildServer(deps, [toolset]);
  await server.connect(serverSide);
  const client = new Client({ name: "bmad-mcp-test", version: SERVER_INFO.version });
  try {
    await client.connect(clientSide);
    const { tools } = await client.listTools();
    const call = SMOKE.get(toolset) ?? (tools[0] && !tools[0].inputSchema.required?.length ? { tool: tools[0].name, args: {} } : undefined);
    if (!call) return { ok: tools.length > 0, text: `${tools.length} tool${tools.length === 1 ? "" : "s"} listed` };
    const started = performance.now();
    const result = await client.callTool({ name: call.tool, arguments: call.args });
    const text = (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join(" ");
    const ms = Math.round(performance.now() - started);
    const ok = call.error ? result.isError === true && call.error.test(text) : result.isError !== true;
    return { ok, text: ok ? `${tools.length} tool${tools.length === 1 ? "" : "s"}; ${call.tool} answered in ${ms} ms` : `${call.tool} ${JSON.stringify(call.args)}: ${text.slice(0, 300)}` };
  } finally {
    await client.close();
    await server.close();
  }
}
