// Whether a URL's host is on the public internet, judged from the host as the URL parser normalises it
// (`127.1`, `0x7f000001` and `2130706433` all become `127.0.0.1`; `[::ffff:127.0.0.1]` becomes
// `[::ffff:7f00:1]`). Names are not resolved: a public name that resolves to a private address is
// left to Cloudflare's `global_fetch_strictly_public` in production.
import type { Result } from "../../core/result.js";

/** IPv4 ranges that are not public unicast (RFC 6890 and friends): [first octets, prefix length, what]. */
const IPV4_RANGES: Array<[number, number, string]> = [
  [ip4(0, 0, 0, 0), 8, "a reserved address"],
  [ip4(10, 0, 0, 0), 8, "a private address"],
  [ip4(100, 64, 0, 0), 10, "a shared (carrier-grade NAT) address"],
  [ip4(127, 0, 0, 0), 8, "a loopback address"],
  [ip4(169, 254, 0, 0), 16, "a link-local address"],
  [ip4(172, 16, 0, 0), 12, "a private address"],
  [ip4(192, 0, 0, 0), 24, "a reserved address"],
  [ip4(192, 0, 2, 0), 24, "a documentation address"],
  [ip4(192, 168, 0, 0), 16, "a private address"],
  [ip4(198, 18, 0, 0), 15, "a benchmarking address"],
  [ip4(198, 51, 100, 0), 24, "a documentation address"],
  [ip4(203, 0, 113, 0), 24, "a documentation address"],
  [ip4(224, 0, 0, 0), 4, "a multicast address"],
  [ip4(240, 0, 0, 0), 4, "a reserved address"],
];

/** Names that never denote a public host (RFC 6761, RFC 8375, mDNS, ICANN's private-use .internal). */
const LOCAL_SUFFIXES = ["localhost", "local", "internal", "home.arpa", "localdomain"];

function ip4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

function inRange(address: number, base: number, prefix: number): boolean {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return ((address & mask) >>> 0) === base;
}

function ipv4Reason(address: number): string | undefined {
  return IPV4_RANGES.find(([base, prefix]) => inRange(address, base, prefix))?.[2];
}

function parseIpv4(host: string): number | undefined {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return ip4(Number(parts[0]), Number(parts[1]), Number(parts[2]), Number(parts[3]));
}

/** The eight 16-bit groups of a normalised IPv6 literal (hex groups and at most one `::`). */
function parseIpv6(host: string): number[] | undefined {
  const halves = host.split("::");
  if (halves.length > 2) return undefined;
  const groups = (part: string) => (part ? part.split(":").map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN)) : []);
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  return all.some(Number.isNaN) ? undefined : all;
}

function embeddedIpv4(high: number, low: number): number {
  return ((high << 16) | low) >>> 0;
}

function ipv6Reason(g: number[]): string | undefined {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0) {
    if (g5 === 0 && g6 === 0 && g7 <= 1) return g7 === 1 ? "a loopback address" : "a reserved address";
    if (g5 === 0xffff || g5 === 0) return ipv4Reason(embeddedIpv4(g6, g7)); // IPv4-mapped or -compatible
    return "a reserved address";
  }
  if (g0 === 0x64 && g1 === 0xff9b) return g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 ? ipv4Reason(embeddedIpv4(g6, g7)) : "a private address";
  if (g0 === 0x2002) return ipv4Reason(embeddedIpv4(g1, g2)); // 6to4
  if ((g0 & 0xfe00) === 0xfc00) return "a private (unique local) address";
  if ((g0 & 0xffc0) === 0xfe80) return "a link-local address";
  if ((g0 & 0xffc0) === 0xfec0) return "a site-local address";
  if ((g0 & 0xff00) === 0xff00) return "a multicast address";
  if (g0 === 0x2001 && g1 === 0x0db8) return "a documentation address";
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return "a discard address";
  return undefined;
}

/**
 * Why `url` does not name a public host (for example "a loopback address"), or undefined when it does.
 * Only literal addresses and local-only names are judged; other names count as public.
 */
export function nonPublicHostReason(url: URL): string | undefined {
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (!host) return "no host";
  if (host.startsWith("[")) {
    const groups = parseIpv6(host.slice(1, -1));
    return groups ? ipv6Reason(groups) : "an unreadable IPv6 address";
  }
  const v4 = parseIpv4(host);
  if (v4 !== undefined) return ipv4Reason(v4);
  if (LOCAL_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`))) return "a local-only name";
  if (!host.includes(".")) return "a single-label (intranet) name";
  return undefined;
}

/** A client_id that is a URL must name a public host: the provider would fetch it as a Client ID Metadata Document. */
export function checkClientId(clientId: string): Result {
  if (!URL.canParse(clientId)) return { ok: true };
  const url = new URL(clientId);
  if (url.protocol !== "https:" && url.protocol !== "http:") return { ok: true };
  const reason = nonPublicHostReason(url);
  if (!reason) return { ok: true };
  return { ok: false, error: `The client_id ${url.origin}${url.pathname} names ${reason} (${url.hostname}). A Client ID Metadata Document must be served from a public HTTPS host; use one, or register the client instead.` };
}
