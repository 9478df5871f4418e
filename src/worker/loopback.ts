const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** True when both the Host and, where the runtime reports it, the client address are loopback. */
export function isLoopbackRequest(request: Request): boolean {
  if (!LOOPBACK_HOSTS.has(new URL(request.url).hostname)) return false;
  const ip = request.headers.get("cf-connecting-ip");
  return ip === null || ip === "::1" || ip.startsWith("127.");
}
