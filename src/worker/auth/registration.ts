// In front of the provider's dynamic client registration (RFC 7591, kept for REGISTRATION_TTL_DAYS): the body and every
// stored field are capped, each with an error naming the field and the limit, and registrations are
// counted per client address in a Durable Object. The provider then validates the meaning of the fields.
import * as z from "zod";
import ipaddr from "ipaddr.js";
import { isLoopbackHost } from "../../core/loopback.js";
import type { Env } from "../env.js";
import { readCapped } from "../read-capped.js";
import { oauthError, shown } from "./oauth-error.js";
import { LISTED_REDIRECT_RULE, redirectKind, refusedRedirect, unlistableRedirect } from "./app-redirect.js";

/** How long the provider keeps a registered client, renewed each time it gets tokens (clientRegistrationTTL). */
export const REGISTRATION_TTL_DAYS = 90;

export const REGISTRATION_LIMITS = {
  bodyBytes: 16 * 1024,
  nameChars: 200,
  uriChars: 2000,
  redirectUris: 10,
  listEntries: 10,
  /** Registrations per client address per window. */
  perAddress: 10,
  windowMs: 10 * 60_000,
  /** Consent pages opened per client address per window: each stores a transaction before anyone signs in. */
  authorizePerAddress: 30,
  /** A sign-in's state and scope as a client sends them, before the provider stores them (reviews 84, 95; a
   *  code_challenge is refused unless it is S256's 43 characters). */
  stateChars: 512,
  scopes: 10,
  /** A scope this server knows is short. */
  scopeChars: 100,
} as const;

const L = REGISTRATION_LIMITS;
const chars = (max: number) => z.string().max(max, { error: `must be at most ${max} characters` });
const list = (item: z.ZodString, max: number) => z.array(item).max(max, { error: `must list at most ${max} entries` });
const uri = chars(L.uriChars);
const word = chars(100);

/** RFC 7591 fields, capped; types and meaning are left to the provider. Unknown fields are not stored. */
const Metadata = z.looseObject({
  redirect_uris: list(uri, L.redirectUris).optional(),
  client_name: chars(L.nameChars).optional(),
  client_uri: uri.optional(),
  logo_uri: uri.optional(),
  policy_uri: uri.optional(),
  tos_uri: uri.optional(),
  jwks_uri: uri.optional(),
  contacts: list(chars(320), L.listEntries).optional(),
  grant_types: list(word, L.listEntries).optional(),
  response_types: list(word, L.listEntries).optional(),
  token_endpoint_auth_method: word.optional(),
  token_endpoint_auth_methods_supported: list(word, L.listEntries).optional(),
  scope: chars(L.nameChars).optional(),
  software_id: chars(L.nameChars).optional(),
  software_version: chars(L.nameChars).optional(),
});

/** The token endpoint methods the provider registers an app with (private_key_jwt only for metadata documents). */
const REGISTERED_AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"];

/** Localized variants (`client_name#fr`, `logo_uri#ja`) are stored too. */
const LOCALIZED = /^(client_name|client_uri|logo_uri|policy_uri|tos_uri)#.+$/;

function metadataProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined; // the provider says so
  const parsed = Metadata.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join(".") || "body";
    // A wrong type is no length problem: say the type (review 95 was told to "shorten" {"client_name": {"a": 1}}).
    if (issue.code === "invalid_type") return `${field} must be a JSON ${issue.expected}; send it as one and register again.`;
    return `${field} ${issue.message}. Shorten it and register again.`;
  }
  // One redirect_uri the provider cannot store (javascript:, a #fragment) refuses the whole list, a usable one beside it
  // or not: said with the URI and the rule (review 332).
  const uris = parsed.data.redirect_uris ?? [];
  for (const uri of uris) {
    const why = unlistableRedirect(uri);
    if (why) return `redirect_uris: ${shown(uri, 200)} cannot be registered: ${why}. ${LISTED_REDIRECT_RULE} Fix or remove it and register again.`;
  }
  // The provider needs one it would send a code to, and said only its rule (review 417): named here.
  const remoteHttp = uris.filter((uri) => URL.canParse(uri.trim()) && new URL(uri.trim()).protocol === "http:" && !isLoopbackHost(new URL(uri.trim()).hostname));
  if (uris.length > 0 && remoteHttp.length === uris.length) {
    return `redirect_uris: ${shown(remoteHttp[0]!, 200)} is plain http on a host that is not this computer, where a code could be read on its way: use https, or http on a loopback address (127.0.0.1, [::1] or localhost). Fix it and register again.`;
  }
  // Only redirect_uris /authorize always refuses (x-safari-https:): refused now, not at each sign-in (review 285). One
  // beside a usable one is taken, as the provider takes it: the sign-in with the usable one works.
  const refused = uris.filter((uri) => URL.canParse(uri) && redirectKind(uri) === "refused");
  if (uris.length > 0 && refused.length === uris.length) return `redirect_uris: ${refusedRedirect(refused[0]!)}`;
  // This server's metadata lists private_key_jwt for apps whose client_id is their metadata document's URL; the
  // provider registers no app with it, and said only which methods it takes (review 332).
  const methods = [parsed.data.token_endpoint_auth_method, ...(parsed.data.token_endpoint_auth_methods_supported ?? [])];
  if (methods.includes("private_key_jwt") && !methods.some((m) => m !== undefined && REGISTERED_AUTH_METHODS.includes(m))) {
    return `private_key_jwt is taken only from apps whose client_id is the URL of their client metadata document, which this server's metadata offers it for; a registered app uses ${REGISTERED_AUTH_METHODS.join(", ")}. Register with one of them, or use a metadata document.`;
  }
  const localized = Object.entries(value).filter(([key]) => LOCALIZED.test(key));
  if (localized.length > L.listEntries) return `at most ${L.listEntries} localized fields (such as client_name#fr) are accepted. Send fewer and register again.`;
  for (const [key, v] of localized) {
    const max = key.startsWith("client_name#") ? L.nameChars : L.uriChars;
    if (typeof v === "string" && v.length > max) return `${key} must be at most ${max} characters. Shorten it and register again.`;
  }
  return undefined;
}

/** The address registrations are counted by, or undefined for a local client of a loopback dev server. */
function clientAddress(request: Request, host: string): string | undefined {
  const ip = request.headers.get("cf-connecting-ip")?.trim().toLowerCase();
  if (isLoopbackHost(host) && (!ip || ip === "::1" || /^127\./.test(ip))) return undefined;
  if (!ip || !ipaddr.isValid(ip)) return "unknown";
  const parsed = ipaddr.process(ip); // an IPv4-mapped IPv6 address is its IPv4 address
  // One IPv6 host usually owns a whole /64: count the prefix, however the address is written ("::" or not).
  return parsed instanceof ipaddr.IPv6 ? parsed.toNormalizedString().split(":").slice(0, 4).join(":") : parsed.toString();
}

/**
 * Checks a registration and hands it to `next` (the provider) when it passes. Before a loopback dev server
 * only local clients are left uncounted; anywhere else a missing REGISTRATION_LIMIT binding fails closed.
 */
export async function registration(request: Request, env: Env, host: string, next: (request: Request) => Promise<Response>): Promise<Response> {
  if (request.method !== "POST") return next(request);
  const bytes = await readCapped(request, L.bodyBytes);
  const body = bytes && new TextDecoder().decode(bytes);
  if (body === undefined) return oauthError(request, 413, "invalid_client_metadata", `The registration body is larger than ${L.bodyBytes / 1024} KB; send only the client's metadata.`);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined; // the provider answers invalid JSON itself
  }
  const problem = metadataProblem(json);
  if (problem) return oauthError(request, 400, "invalid_client_metadata", `Client metadata: ${problem}`);

  const taken = await takeFromAddress(request, env, host, "", L.perAddress);
  if (taken === "unavailable") return oauthError(request, 503, "temporarily_unavailable", "Client registration is not available: the REGISTRATION_LIMIT Durable Object binding is missing (see wrangler.toml).");
  if (taken !== undefined) {
    return oauthError(request, 429, "too_many_requests", `Too many client registrations from this address: at most ${L.perAddress} per ${L.windowMs / 60_000} minutes. Try again in ${taken} s, reuse a client you already registered, or use a client ID metadata document (an https URL as client_id), which this server takes without registering.`, { "retry-after": String(taken) });
  }
  return next(new Request(request, { body }));
}

/** Counts one request of `purpose` for the client's address against `limit` per window (a loopback dev server's own
 *  clients are not counted): undefined where it fits, else the seconds until it would, or "unavailable" where the
 *  counter's binding is missing (fails closed). */
export async function takeFromAddress(request: Request, env: Env, host: string, purpose: "" | "authorize:", limit: number): Promise<number | "unavailable" | undefined> {
  const address = clientAddress(request, host);
  if (address === undefined) return undefined;
  if (!env.REGISTRATION_LIMIT) return "unavailable";
  const take = async (name: string, most: number) => {
    const taken = await env.REGISTRATION_LIMIT!.get(env.REGISTRATION_LIMIT!.idFromName(name)).take(most, L.windowMs);
    return taken.ok ? undefined : taken.retryAfterSeconds;
  };
  // An IPv6 site is handed a /48 (65,536 /64s): counted there too, at four addresses' worth (review 86).
  const site = address.includes(":") ? address.split(":").slice(0, 3).join(":") : undefined;
  return (await take(`${purpose}${address}`, limit)) ?? (site === undefined ? undefined : await take(`${purpose}site:${site}`, limit * 4));
}
