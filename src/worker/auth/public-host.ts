// Whether a URL's host is on the public internet, judged from the host as the URL parser normalises it
// (`127.1`, `0x7f000001` and `2130706433` all become `127.0.0.1`; `[::ffff:127.0.0.1]` becomes
// `[::ffff:7f00:1]`). Names are not resolved: a public name that resolves to a private address is
// left to Cloudflare's `global_fetch_strictly_public` in production.
import ipaddr from "ipaddr.js";
import type { Result } from "../../core/result.js";

/** ipaddr.js's special ranges that are not the public internet, as an answer names them. Those it leaves out
 *  (AS112 and AMT anycast, Teredo) are public; addresses that embed an IPv4 one are judged by it (below). */
const NOT_PUBLIC = new Map<string, string>([
  ["unspecified", "a reserved address"],
  ["broadcast", "a reserved address"],
  ["multicast", "a multicast address"],
  ["linkLocal", "a link-local address"],
  ["loopback", "a loopback address"],
  ["carrierGradeNat", "a shared (carrier-grade NAT) address"],
  ["private", "a private address"],
  ["reserved", "a reserved address"],
  ["uniqueLocal", "a private (unique local) address"],
  ["deprecatedSiteLocal", "a site-local address"],
  ["discard", "a discard address"],
  ["benchmarking", "a benchmarking address"],
  ["rfc6145", "a reserved address"],
  ["deprecatedOrchid", "a reserved address"],
  ["orchid2", "a reserved address"],
  ["droneRemoteIdProtocolEntityTags", "a reserved address"],
  ["segmentRouting", "a reserved address"],
]);

/** Names that never denote a public host (RFC 6761, RFC 8375, mDNS, ICANN's private-use .internal). */
const LOCAL_SUFFIXES = ["localhost", "local", "internal", "home.arpa", "localdomain"];

function addressReason(address: ipaddr.IPv4 | ipaddr.IPv6): string | undefined {
  if (address instanceof ipaddr.IPv6) {
    const p = address.parts;
    // IPv4-mapped and -compatible (::ffff:a.b.c.d, ::a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:AABB:CCDD::)
    // reach the IPv4 address inside them.
    const embedded = (high: number, low: number) => ipaddr.fromByteArray([high >> 8, high & 255, low >> 8, low & 255]);
    if (p.slice(0, 5).every((g) => g === 0) && (p[5] === 0xffff || (p[5] === 0 && (p[6]! > 0 || p[7]! > 1)))) return addressReason(embedded(p[6]!, p[7]!));
    // 64:ff9b::/32 outside the well-known /96 is local-use NAT64 (RFC 8215).
    if (p[0] === 0x64 && p[1] === 0xff9b) return p.slice(2, 6).every((g) => g === 0) ? addressReason(embedded(p[6]!, p[7]!)) : "a private address";
    if (address.range() === "6to4") return addressReason(embedded(p[1]!, p[2]!));
  }
  return NOT_PUBLIC.get(address.range());
}

/**
 * Why `url` does not name a public host (for example "a loopback address"), or undefined when it does.
 * Only literal addresses and local-only names are judged; other names count as public.
 */
export function nonPublicHostReason(url: URL): string | undefined {
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (!host) return "no host";
  if (host.startsWith("[")) {
    const literal = host.slice(1, -1);
    return ipaddr.IPv6.isValid(literal) ? addressReason(ipaddr.IPv6.parse(literal)) : "an unreadable IPv6 address";
  }
  // The URL parser has already turned every IPv4 spelling (127.1, 0x7f000001) into four decimal parts.
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return addressReason(ipaddr.IPv4.parse(host));
  if (LOCAL_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`))) return "a local-only name";
  if (!host.includes(".")) return "a single-label (intranet) name";
  return undefined;
}

/** The longest client_id accepted: one the provider fetches (an https URL with a path, a metadata document) is a URL;
 *  any other is part of a KV key, at most 512 bytes (those the provider issues are 16 characters). */
export const CLIENT_ID_CHARS = { url: 2000, other: 128 } as const;

/** A client_id must fit its bound (review 95: 600 characters answered 500 on every OAuth endpoint), and one that is a
 *  URL must name a public host: the provider would fetch it as a Client ID Metadata Document. */
export function checkClientId(clientId: string): Result {
  // As the provider tells a metadata document URL: https, and a "/" right after the host.
  const fetched = URL.canParse(clientId) && /^https:\/\/[^/?#]*\//i.test(clientId);
  const max = fetched ? CLIENT_ID_CHARS.url : CLIENT_ID_CHARS.other;
  if (clientId.length > max) {
    return { ok: false, error: `The client_id is ${clientId.length} characters long; at most ${max} are accepted${fetched ? " for a metadata document URL" : ""}. Use the client_id this server issued at registration${fetched ? ", or a shorter metadata document URL" : ""}.` };
  }
  if (!URL.canParse(clientId)) return { ok: true };
  const url = new URL(clientId);
  if (url.protocol !== "https:" && url.protocol !== "http:") return { ok: true };
  const reason = nonPublicHostReason(url);
  if (!reason) return { ok: true };
  return { ok: false, error: `The client_id ${url.origin}${url.pathname} names ${reason} (${url.hostname}). A Client ID Metadata Document must be served from a public HTTPS host; use one, or register the client instead.` };
}
