// Loopback hosts: where local sign-in, plain http and the local consent page are allowed.
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** `host` as in a URL's hostname (no port). */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Why a server listening on loopback refuses a request, or undefined. Its Host must name a loopback address (a
 * DNS-rebinding page reaches it under the attacker's name), and an Origin, which browsers send, must be a loopback
 * origin too (another site's page). MCP clients that are not browsers send no Origin.
 */
export function loopbackRefusal(host: string | undefined, origin: string | undefined): string | undefined {
  // A Host is a name and a port: what would read as a URL's user, path, query or fragment is none (review 330: `a@localhost`).
  const hostname = host && !/[@/\\?#]/.test(host) ? hostnameOf(`http://${host}`) : undefined;
  if (!hostname || !isLoopbackHost(hostname)) return `This server answers for loopback hosts only (127.0.0.1, localhost), not ${host ? host.slice(0, 100) : "a request without a Host"}.`;
  const from = origin === undefined ? undefined : hostnameOf(origin);
  if (origin !== undefined && (!from || !isLoopbackHost(from))) return `Requests from ${origin.slice(0, 100)} are refused: only local clients may use this server.`;
  return undefined;
}

function hostnameOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}
