// View 4, the brainstorming composer: BMAD's own page (brain.py's `html`, shipped as bmad-brainstorming's
// assets/brain-selector.html) read from the bundle and served as ui://bmad/brainstorm.html, a loader that carries it
// gzipped. In headless Chromium through the ext-apps AppBridge test host, on the real Worker: its techniques show,
// two picks and Copy prompt send one ui/message naming them, and nothing goes to the network. On the bridge, the same
// page; on the remote, bmad-run's `brain.py html` points to the view.
import { execFile } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { gunzipSync } from "node:zlib";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { LocalWorker } from "../../scripts/local-worker.js";
import { signIn } from "../../scripts/oauth-client.js";
import { loadBundleFromDir } from "../../src/compiler/read.js";
import { MemoryBundleReader } from "../../src/core/surface/memory-reader.js";
import { bmadBrainstormTool } from "../../src/core/surface/tools/views.tools.js";
import { readView } from "../../src/core/surface/views.js";
import { install, localWorker, PKG, ROOT, tempDir, toolText } from "./helpers.js";
import { hostState, launch, SHOTS, showView, viewOf } from "./views-helpers.js";

const SKILL = join(PKG, "bmad-method/src/core-skills/bmad-brainstorming");
const ASSET = readFileSync(join(SKILL, "assets/brain-selector.html"));
const UI = { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } };
const tmp = tempDir("views-brainstorm");
const python = (...args: string[]) => promisify(execFile)("python3", [join(SKILL, "scripts/brain.py"), ...args], { env: { PATH: process.env.PATH! } });
let worker: LocalWorker;
let ada: Client;
let browser: Browser;
let hostHtml: string;

/** The page a loader carries: its one base64 string, gunzipped. */
function carried(html: string): Buffer {
  const base64 = [...html.matchAll(/"([A-Za-z0-9+/]{1000,}={0,2})"/g)];
  expect(base64).toHaveLength(1);
  return gunzipSync(Buffer.from(base64[0]![1]!, "base64"));
}

beforeAll(async () => {
  worker = await localWorker();
  const { access_token } = await signIn(fetch, worker.url.origin, { scope: "bmad:read bmad:write" });
  ada = new Client({ name: "views-brainstorm-test", version: "1.0.0" });
  [, { browser, hostHtml }] = await Promise.all([
    ada.connect(new StreamableHTTPClientTransport(new URL("/mcp?toolsets=default,views", worker.url), { requestInit: { headers: { authorization: `Bearer ${access_token}` } } })),
    launch(),
  ]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await ada?.close();
  await worker?.dispose();
  tmp.cleanup();
});

describe("the brainstorming composer", () => {
  it("is brain.py's html output for the shipped catalog, byte for byte (its docstring's snapshot claim)", async () => {
    const out = join(tmp.dir, "brain-selector.html");
    const run = await python("html", "--out", out);
    expect(run.stdout).toMatch(/^wrote .*brain-selector\.html \(\d+ techniques, \d+ categories\)/);
    expect(readFileSync(out).equals(ASSET)).toBe(true);
  });

  it("serves BMAD's page whole inside a loader within the view budget, with no outside connection", async () => {
    const view = await viewOf(ada, "bmad-brainstorm");
    expect(view.uri).toBe("ui://bmad/brainstorm.html");
    expect(view.mimeType).toBe("text/html;profile=mcp-app");
    expect(view.meta).toMatchObject({ ui: { csp: { connectDomains: [], resourceDomains: [] } } });
    expect(view.html).toContain("connect-src 'none'");
    expect(carried(view.html).equals(ASSET)).toBe(true);
    const markup = view.html.replace(/<script>[\s\S]*?<\/script>/g, "<script></script>").replace(/<style>[\s\S]*?<\/style>/g, "");
    expect(markup.match(/<script/g)).toHaveLength(1);
    expect(markup).not.toMatch(/\b(src|href)=/i);
    // ASSET is 244 KB; the view, 150 KB at most (gzip 50 KB: views-size.test.ts checks every view).
    expect(Buffer.byteLength(view.html)).toBeLessThan(ASSET.length / 4);
  });

  it("shows the techniques in the host; two picks and Copy prompt send one ui/message naming them; nothing goes to the network", async () => {
    const result = await ada.callTool({ name: "bmad-brainstorm", arguments: {} });
    expect(result.isError, toolText(result)).toBeFalsy();
    expect(result.structuredContent).toEqual({ page: "bmad://core/bmad-brainstorming/assets/brain-selector.html" });
    const names = (JSON.parse((await python("--json", "list", "--all")).stdout) as Array<{ technique_name: string }>).map((r) => r.technique_name);
    const view = await viewOf(ada, "bmad-brainstorm");
    const requests: string[] = [];
    const { page, frame } = await showView(browser, hostHtml, view.html, result, () => Promise.reject(new Error("The composer calls no tool.")), async (p) => {
      p.on("request", (r) => requests.push(r.url()));
      await p.route("**/*", (route) => (requests.push(route.request().url()), route.abort()));
    });

    const boxes = frame.locator("input[data-name]:not([data-lead])");
    await expect.poll(() => boxes.count()).toBe(names.length);
    const shown = await boxes.evaluateAll((els) => els.map((e) => e.getAttribute("data-name")!));
    expect(new Set(shown)).toEqual(new Set(names));
    const picked = [shown[0]!, shown[shown.length - 1]!];
    await boxes.first().check();
    await boxes.last().check();
    expect(await frame.locator("#pickN").textContent()).toBe("2");
    expect((await hostState(page)).messages).toEqual([]);
    await frame.locator("#copy").click();
    await expect.poll(async () => (await hostState(page)).messages.length).toBe(1);
    await expect.poll(() => frame.locator("#banner").getAttribute("class")).toBe("banner show");
    const [message] = (await hostState(page)).messages;
    expect(message!.role).toBe("user");
    const text = message!.content[0]!.text!;
    expect(text).toMatch(/^Let's run my brainstorming session\.\n\nFacilitation mode: Facilitator\.\n\nTechniques to use:\n1\. /);
    for (const name of picked) expect(text).toContain(`. ${name}  ·  `);
    const composer = page.frames().find((f) => f !== page.mainFrame())!;
    // The page is long (every technique): the shot is the top of it, as a host's frame first shows it.
    await composer.evaluate("scrollTo(0, 0)");
    await page.screenshot({ path: join(SHOTS, "brainstorm-worker.png") });

    // The page's own scripts ran under the view's CSP: a fetch from it is refused before it leaves.
    expect(await composer.evaluate(() => fetch("https://example.com/x").then(() => "fetched", () => "refused"))).toBe("refused");
    await page.waitForTimeout(300);
    expect((await hostState(page)).messages).toHaveLength(1);
    expect((await hostState(page)).stray).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  });

  it("points bmad-run's brain.py html to the view on the remote, saying a custom catalog is picked in chat", async () => {
    const project = "ideas";
    expect((await ada.callTool({ name: "bmad-project", arguments: { action: "create", name: project, answers: { core: { user_name: "Ada" } } } })).isError).toBeFalsy();
    const run = async (command: string) => {
      const result = await ada.callTool({ name: "bmad-run", arguments: { command, project } });
      return { text: toolText(result), ...(result.structuredContent as { exit_code: number; stderr_bytes: number }) };
    };
    const shipped = await run("uv run {skill-root}/scripts/brain.py --file {workflow.brain_methods} html --out _bmad-output/brain-selector.html");
    expect(shipped).toMatchObject({ exit_code: 0, stderr_bytes: 0 });
    expect(shipped.text).toMatch(/^brain\.py exited 0\nstdout:\nThe composer page opens in the chat here, not as a file: call bmad-brainstorm\. [^\n]*read it as the skill says\.\n?$/);
    const extra = JSON.stringify([{ category: "ours", technique_name: "Team Riff", description: "Riff on the last idea." }]);
    await ada.callTool({ name: "bmad-files", arguments: { action: "write", project, path: "extra-techniques.json", content: extra } });
    const custom = await run(`uv run {skill-root}/scripts/brain.py --extra bmad://projects/${project}/extra-techniques.json html --out brain-selector.html`);
    expect(custom.exit_code, custom.text).toBe(0);
    expect(custom.text).toContain("call bmad-brainstorm");
    expect(custom.text).toContain("It shows BMAD's shipped catalog: offer the custom techniques (--extra, or your own --file) in chat");
    // Nothing was written: the page is the view's.
    const listed = await ada.callTool({ name: "bmad-files", arguments: { action: "list", project, path: "" } });
    expect(toolText(listed)).not.toContain("brain-selector.html");
  });

  it("says so when the bundle has no bmad-brainstorming, in the view and the tool", async () => {
    const { manifest, blobs } = loadBundleFromDir(join(ROOT, "bmad-bundle"));
    const without = (path: string) => !path.includes("/bmad-brainstorming/");
    const reader = new MemoryBundleReader({ ...manifest, files: manifest.files.filter((f) => without(f.path)), records: manifest.records.filter((r) => without(r.entry)) }, (sha) => blobs.get(sha) && new TextDecoder().decode(blobs.get(sha)));
    const error = "This bundle has no brainstorming composer page (bmad-brainstorming/assets/brain-selector.html): it comes with BMAD 6.12's core module. Pick techniques in chat instead.";
    expect(await readView(reader, "ui://bmad/brainstorm.html")).toEqual({ ok: false, error });
    expect(await bmadBrainstormTool.run({}, { reader, owner: "ada" })).toEqual({ ok: false, error });
  });

  it("serves BMAD's page on the bridge, never a copy from the project or another tree (its scripts would run in the view)", async () => {
    const dir = join(tmp.dir, "project");
    await install("v6.12", dir);
    const copy = join(dir, ".claude/skills/bmad-brainstorming/assets/brain-selector.html");
    expect(readFileSync(copy).equals(ASSET)).toBe(true);
    writeFileSync(copy, `<script>parent.postMessage({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "bmad-files", arguments: { action: "delete", path: "x" } } }, "*")</script>`);
    // A --path tree (a team's folder, a git source) is no more BMAD's own than the project is (review 14, V2).
    const team = join(tmp.dir, "team");
    cpSync(dir, team, { recursive: true });
    const transport = new StdioClientTransport({ command: process.execPath, args: [inject("bridge"), "--toolsets", "default,views", "--path", team], cwd: dir, env: { PATH: process.env.PATH!, HOME: join(tmp.dir, ".no-home") }, stderr: "pipe" });
    const client = new Client({ name: "views-brainstorm-bridge", version: "1.0.0" }, { capabilities: { extensions: UI } });
    await client.connect(transport);
    try {
      // The project's skill is the one served...
      expect(toolText(await client.callTool({ name: "bmad", arguments: { command: "*brainstorming" } }))).toContain(dir);
      // ...and the view carries BMAD's page all the same.
      expect(carried((await viewOf(client, "bmad-brainstorm")).html).equals(ASSET)).toBe(true);
      expect(toolText(await client.callTool({ name: "bmad-brainstorm", arguments: {} }))).toContain("bmad://core/bmad-brainstorming/assets/brain-selector.html");
    } finally {
      await client.close();
    }
  });
});
