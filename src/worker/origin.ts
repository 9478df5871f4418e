// This server's own origin, as a request reached it: what its OAuth metadata and its renders name. Never a Host a
// client made up: a loopback origin (a dev server), else PUBLIC_URL's alone.
import { isLoopbackHost } from "../core/loopback.js";
import type { Env } from "./env.js";

/** This server's origin for the request: the loopback origin it was reached at, or PUBLIC_URL; undefined for any
 *  other Host (DNS rebinding), which is refused. */
export function canonicalOrigin(env: Env, url: URL): string | undefined {
  if (isLoopbackHost(url.hostname)) return url.origin;
  if (env.PUBLIC_URL && new URL(env.PUBLIC_URL).origin === url.origin) return url.origin;
  return undefined;
}
