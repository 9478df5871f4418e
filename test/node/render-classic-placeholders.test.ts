// Classic (6.0.4) and v4 workflows rendered for a project, on both doors: a config value written `{{user_name}}`
// renders whole (`Tester`), never as `{` + `{user_name}` + `}` (`{Tester}`), in every workflow of both trees,
// loaded as a client loads one (the `bmad` tool) from the real Worker in workerd and from the built bridge.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { LocalWorker } from "../../scripts/local-worker.js";
import { signIn } from "../../scripts/oauth-client.js";
import { buildBundle } from "../../src/compiler/build";
import type { BundleManifest } from "../../src/core/catalog/bundle";
import { shortName } from "../../src/core/catalog/names";
import { TOOL } from "../../src/core/surface/names";
import { fillConfigValues } from "../../src/core/surface/skill-render";
import { connectBridge, install, localWorker, PKG, tempDir, toolText } from "./helpers";

const USER = "Tester";
const PROJECT = "v604";
const VALUES: Record<string, string> = { user_name: USER, project_name: PROJECT };
/** The classic workflows whose inlined files name a config value in double braces (issue 28, item 11). */
const AFFECTED = [
  "bmm/code-review", "bmm/create-architecture", "bmm/create-product-brief", "bmm/create-ux-design", "bmm/domain-research",
  "bmm/generate-project-context", "bmm/market-research", "bmm/technical-research", "core/brainstorming", "core/party-mode",
];

const tmp = tempDir("placeholders");
const classic = join(tmp.dir, PROJECT);
const v4 = join(PKG, "bmad-v4");
const bundleDir = join(tmp.dir, "bundle");
let manifest: BundleManifest;
let blobs: Map<string, Uint8Array>;
let worker: LocalWorker | undefined;
let remote: Client | undefined;
let bridge: Awaited<ReturnType<typeof connectBridge>> | undefined;

beforeAll(async () => {
  await install("v6.0", classic);
  // The project's own answers: the installer wrote the OS user's name.
  for (const file of ["_bmad/core/config.yaml", "_bmad/bmm/config.yaml"]) {
    const path = join(classic, file);
    writeFileSync(path, readFileSync(path, "utf8").replace(/^user_name: .*$/m, `user_name: ${USER}`).replace(/^project_name: .*$/m, `project_name: ${PROJECT}`));
  }
  // With the default package, as a deployment builds it (`npm run bundle -- --source DIR`): its installer makes the workspace.
  ({ manifest, blobs } = await buildBundle({ sources: [classic, v4], outDir: bundleDir }));
  const [started, connected] = await Promise.all([localWorker({ bundleDir }), connectBridge(inject("bridge"), classic, { args: ["--path", v4] })]);
  worker = started;
  bridge = connected;
  const { access_token } = await signIn(fetch, worker.url.origin, { scope: "bmad:read bmad:write" });
  remote = new Client({ name: "placeholders-test", version: "1.0.0" });
  await remote.connect(new StreamableHTTPClientTransport(new URL("/mcp", worker.url), { requestInit: { headers: { authorization: `Bearer ${access_token}` } } }));
  const created = await remote.callTool({ name: TOOL.bmadProject, arguments: { action: "create", name: PROJECT, answers: { core: { user_name: USER, project_name: PROJECT } } } });
  expect(created.isError, toolText(created)).not.toBe(true);
}, 120_000);
afterAll(async () => {
  await remote?.close();
  await bridge?.close();
  await worker?.dispose();
  tmp.cleanup();
});

const decoder = new TextDecoder();
/** Every workflow of the 6.0.4 tree (source 0) and the v4 tree (source 1), as `module/name`. */
const workflows = (source: number) => manifest.records.filter((r) => r.kind === "workflow" && r.source === source).map((r) => `${r.module}/${shortName(r)}`);
const raw = (path: string) => decoder.decode(blobs.get(manifest.files.find((f) => f.path === path)!.sha256));

/** What each workflow's answer must say: no `{Tester}` or `{{user_name}}` left, and every line that named a value in
 *  double braces (and nothing else in braces) as it reads with the value in place. Returns the workflows that had one. */
function checkAnswers(answers: Map<string, string>): string[] {
  const affected: string[] = [];
  for (const [name, text] of answers) {
    expect(text, name).toMatch(/\nOrigin: (project|cli) /);
    expect(text, name).not.toMatch(/\{(Tester|v604)\}|\{\{(user_name|project_name)\}\}/);
    const inlined = [...text.matchAll(/^## (\S+)$/gm)].map((m) => m[1]!).filter((p) => manifest.files.some((f) => f.path === p));
    const lines = inlined.flatMap((p) => raw(p).split("\n")).filter((l) => /\{\{(user_name|project_name)\}\}/.test(l));
    if (lines.length) affected.push(name);
    for (const line of lines.filter((l) => !/[{}]/.test(l.replace(/\{\{(user_name|project_name)\}\}/g, "")))) {
      expect(text, `${name}: ${line}`).toContain(line.replace(/\{\{(user_name|project_name)\}\}/g, (_m, key: string) => VALUES[key]!));
    }
  }
  return affected.sort();
}

async function answers(call: (command: string) => Promise<unknown>, names: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const name of names) out.set(name, toolText(await call(`*${name}`)));
  return out;
}

describe.each([
  ["the Worker, in a workspace", () => (command: string) => remote!.callTool({ name: TOOL.bmad, arguments: { command, project: PROJECT } })],
  ["the bridge, in its project", () => (command: string) => bridge!.client.callTool({ name: TOOL.bmad, arguments: { command } })],
])("%s", (_door, caller) => {
  it("renders {{user_name}} and {{project_name}} whole in every 6.0.4 workflow", async () => {
    const names = workflows(0);
    expect(names).toHaveLength(25);
    expect(checkAnswers(await answers(caller(), names))).toEqual(AFFECTED);
  });

  it("leaves no braced config value in any v4 workflow", async () => {
    const names = workflows(1);
    expect(names).toHaveLength(19);
    expect(checkAnswers(await answers(caller(), names))).toEqual([]);
  });
});

it("fills {{key}} whole where a model left a placeholder in a bmad-run argument or a bmad-files path", () => {
  const config = new Map(Object.entries(VALUES));
  expect(fillConfigValues("{{project_name}}-brief.md by {user_name}", config)).toBe("v604-brief.md by Tester");
  expect(fillConfigValues("{{date}} {doc_workspace} {{config.user_name}}", config)).toBe("{{date}} {doc_workspace} {{config.user_name}}");
});
