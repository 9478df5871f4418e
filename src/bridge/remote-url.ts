// The remote's MCP endpoint as the user gave it (--remote URL), checked once for every command that takes it.
import { isLoopbackHost } from "../core/loopback.js";
import type { Result } from "../core/result.js";

/** https, or http on a loopback host (a server run locally). */
export function parseRemoteUrl(raw: string): Result<{ url: URL }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, error: `--remote ${raw}: not a URL; give the server's MCP endpoint, e.g. https://bmad.example.com/mcp` };
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname))) return { ok: false, error: `--remote ${raw}: use https (plain http only for a server on this machine).` };
  return { ok: true, url };
}
