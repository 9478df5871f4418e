// The browser side of the views tests: headless Chromium (Debian's chromium-headless-shell, the same Blink as its
// chromium package without the browser's UI, a third of its CPU here; through playwright-core) with a test
// host page (test/views/host.ts: ext-apps' AppBridge) that loads a view in a sandboxed iframe and routes its tool
// calls to a real MCP client. Chromium missing is a failure naming the fix, never a skip.
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { chromium, type Browser, type FrameLocator, type Page } from "playwright-core";
import { ROOT } from "./helpers.js";

export const CHROMIUM = "/usr/bin/chromium-headless-shell";
export const SHOTS = join(ROOT, "test-results/views");

type Call = (name: string, args: Record<string, unknown>) => Promise<unknown>;
interface McpLike {
  listTools(): Promise<{ tools: Array<{ name: string; _meta?: Record<string, unknown> }> }>;
  readResource(params: { uri: string }): Promise<{ contents: Array<{ uri: string; mimeType?: string; text?: string; _meta?: Record<string, unknown> }> }>;
}

export async function launch(): Promise<{ browser: Browser; hostHtml: string }> {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: install the Debian package (apt-get install -y chromium-headless-shell); .ci/run does.`);
  mkdirSync(SHOTS, { recursive: true });
  const built = await build({ entryPoints: [join(ROOT, "test/views/host.ts")], bundle: true, write: false, format: "iife", platform: "browser", target: "es2020", logLevel: "warning" });
  const hostHtml = `<!doctype html><html><head><meta charset="utf-8"><title>test host</title></head><body><script>${built.outputFiles[0]!.text.replace(/<\/script/gi, "<\\/script")}</script></body></html>`;
  return { browser: await chromium.launch({ executablePath: CHROMIUM }), hostHtml };
}

/** The view a tool names, as a host finds it: the tool's `_meta.ui.resourceUri`, then resources/read. */
export async function viewOf(client: McpLike, tool: string): Promise<{ uri: string; html: string; mimeType?: string; meta?: Record<string, unknown> }> {
  const listed = (await client.listTools()).tools.find((t) => t.name === tool);
  const uri = (listed?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
  if (!uri) throw new Error(`${tool} names no view in tools/list`);
  const content = (await client.readResource({ uri })).contents[0]!;
  return { uri, html: content.text ?? "", mimeType: content.mimeType, meta: content._meta };
}

/** A new page of the host showing `html` with `result`; the view's tool calls go to `call`. `watch` sees the page
 *  before anything loads (to listen for its requests). */
export async function showView(browser: Browser, hostHtml: string, html: string, result: unknown, call: Call, watch?: (page: Page) => Promise<void>): Promise<{ page: Page; frame: FrameLocator }> {
  const page = await browser.newPage({ viewport: { width: 1150, height: 900 } });
  await watch?.(page);
  await page.exposeFunction("hostCallTool", (name: string, args: Record<string, unknown>) => call(name, args));
  await page.setContent(hostHtml);
  await page.evaluate(([h, r]) => (globalThis as unknown as HostPage).showView(h, r), [html, result] as [string, unknown]);
  return { page, frame: page.frameLocator("iframe") };
}

/** What host.ts puts on the host page's window. */
export interface HostPage {
  showView(html: string, result: unknown): Promise<void>;
  hostMessages: Array<{ role: string; content: Array<{ type: string; text?: string }> }>;
  strayMessages: unknown[];
}

export const hostState = (page: Page) => page.evaluate(() => ({ messages: (globalThis as unknown as HostPage).hostMessages, stray: (globalThis as unknown as HostPage).strayMessages }));

export const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
