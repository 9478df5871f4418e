// A signed-in user of the local Worker, calling its tools with raw JSON-RPC (stateless /mcp): what npm run load
// and npm run faults drive the Worker with, and the invariant checks they share.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signIn } from "./oauth-client.js";

const MEMLOG_PY = join(import.meta.dirname, "../node_modules/bmad-method/src/scripts/memlog.py");

export interface Answer {
  ok: boolean;
  text: string;
  /** The last content block: a read's file text (its header is a block of its own). */
  last: string;
  structured: Record<string, any>;
  /** No answer came (the connection failed or was cut): the call may or may not have happened. */
  lost?: true;
}

export class User {
  constructor(readonly index: number, readonly email: string, readonly token: string, private mcp: URL) {}

  /** Signs `email` in to the Worker at `origin` (read and write) and talks to `mcp`. */
  static async signIn(index: number, email: string, origin: string, mcp: URL): Promise<User> {
    const { access_token } = await signIn(fetch, origin, { scope: "bmad:read bmad:write", approveScopes: ["bmad:read", "bmad:write"], user: email });
    return new User(index, email, access_token, mcp);
  }

  async call(name: string, args: Record<string, unknown>): Promise<Answer> {
    return this.request("tools/call", { name, arguments: args });
  }

  /** Any JSON-RPC request: a tool's answer, or a resource's text (the first of its contents). */
  async request(method: string, params: Record<string, unknown>): Promise<Answer> {
    let raw: string;
    let res: Response;
    try {
      res = await fetch(this.mcp, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25", authorization: `Bearer ${this.token}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        signal: AbortSignal.timeout(60_000),
      });
      raw = await res.text();
    } catch (e) {
      return { ok: false, text: `no answer: ${String((e as Error).cause ?? e)}`, last: "", structured: {}, lost: true };
    }
    if (!res.ok) return { ok: false, text: `HTTP ${res.status} ${raw.slice(0, 300)}`, last: "", structured: {}, ...(res.status >= 500 ? { lost: true as const } : {}) };
    const body = JSON.parse(raw.replace(/^event: message\ndata: /, "")) as {
      result?: { isError?: boolean; content?: Array<{ text?: string }>; contents?: Array<{ text?: string }>; structuredContent?: Record<string, any> };
      error?: { message: string };
    };
    if (body.error) return { ok: false, text: body.error.message, last: "", structured: {} };
    const blocks = (body.result?.content ?? body.result?.contents ?? []).map((c) => c.text ?? "");
    return { ok: body.result?.isError !== true, text: blocks.join("\n"), last: blocks.at(-1) ?? "", structured: body.result?.structuredContent ?? {} };
  }

  async must(name: string, args: Record<string, unknown>): Promise<Answer> {
    const out = await this.call(name, args);
    if (!out.ok) throw new Error(`${this.email} ${name} ${JSON.stringify(args).slice(0, 200)}: ${out.text.slice(0, 400)}`);
    return out;
  }
}

/** A file's whole history, newest first: bmad-files "history" page by page, each asked for with the `next` the page
 *  before names (`page(before)` makes the call). Undefined where a page is refused. */
export async function wholeHistory(page: (before?: number) => Promise<Pick<Answer, "ok" | "structured">>): Promise<Array<{ version: number }> | undefined> {
  const versions: Array<{ version: number }> = [];
  for (let before: number | undefined; ; ) {
    const out = await page(before);
    if (!out.ok) return undefined;
    const listed = (out.structured.versions ?? []) as Array<{ version: number }>;
    versions.push(...listed);
    if (typeof out.structured.next !== "number" || !listed.length) return versions;
    before = out.structured.next;
  }
}

/** Why a file's history (bmad-files history, newest first) is not versions 1..n, each once; undefined: it is. */
export function historyGap(versions: Array<{ version: number }>): string | undefined {
  const ascending = versions.map((v) => v.version).reverse();
  return ascending.some((v, i) => v !== i + 1) ? `history is not 1..${ascending.length}: ${JSON.stringify(ascending).slice(0, 100)}` : undefined;
}

/** Why BMAD's own memlog.py cannot read this memlog text; undefined: it can. */
export function memlogUnreadable(text: string): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), "bmad-memlog-check-"));
  try {
    const file = join(dir, "memlog.md");
    writeFileSync(file, text);
    execFileSync("python3", [MEMLOG_PY, "set", "--path", file, "--key", "checked", "--value", "yes"], { stdio: "pipe", timeout: 30_000 });
    return undefined;
  } catch (e) {
    return `BMAD's memlog.py does not read it: ${String((e as { stderr?: Buffer }).stderr ?? e).slice(-300)}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Where a project list (bmad-project list's `projects`) differs from `expected` (project -> access): each project
 *  missing, listed twice, listed with another access, or listed that should not be; empty: they agree. */
export function listingDiffers(listed: Array<{ project: string; access: string }>, expected: ReadonlyMap<string, string>): string[] {
  const found = new Map<string, string[]>();
  for (const p of listed) found.set(p.project, [...(found.get(p.project) ?? []), p.access]);
  const differ = [...expected].filter(([name]) => !found.has(name)).map(([name, access]) => `${name} (${access}) is not listed`);
  for (const [name, access] of found) {
    const want = expected.get(name);
    if (want === undefined) differ.push(`${name} (${access.join(", ")}) is listed, but should not be`);
    else if (access.length !== 1 || access[0] !== want) differ.push(`${name} is listed as ${access.join(", ")}, not once as ${want}`);
  }
  return differ;
}
