const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** `host` as in a URL's hostname (no port). */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** True when both the Host and, where the runtime reports it, the client address are loopback. */
export function isLoopbackRequest(request: Request): boolean {
  if (!isLoopbackHost(new URL(request.url).hostname)) return false;
  const ip = request.headers.get("cf-connecting-ip");
  return ip === null || ip === "::1" || ip.startsWith("127.");
}
