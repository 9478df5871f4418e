// The one way the browser is sent to a client's redirect_uri, a success or an error: its scheme judged first.
import { escape, page } from "./page.js";

/** Cursor's OAuth callback: its one cursor: link that takes a sign-in's answer (others install a server or open a
 *  chat: review 210, an install link carrying someone else's config was accepted as an app's). */
const CURSOR_CALLBACK = "cursor://anysphere.cursor-mcp/oauth/callback";

/** Where a client's redirect_uri sends the browser: a web address (https, http), an app's own scheme (RFC 8252 §7.1:
 *  a reverse domain name such as com.example.app:, or Cursor's callback), or "refused": a scheme the browser or the
 *  system opens itself (x-safari-https:, googlechrome:, intent:, web+…:, ftp:, about:), a website or a page that the
 *  consent page would call an app on the computer (review 206). Judged on every way to the client, errors too. */
export function redirectKind(url: string): "web" | "app" | "refused" {
  const target = new URL(url);
  if (target.protocol === "https:" || target.protocol === "http:") return "web";
  if (/^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+:$/.test(target.protocol)) return "app";
  target.search = "";
  target.hash = "";
  return target.href === CURSOR_CALLBACK ? "app" : "refused";
}

/** Why a redirect_uri redirectKind refuses is refused: said at registration and on the sign-in page alike. */
export function refusedRedirect(url: string): string {
  return `This app's redirect_uri, a ${new URL(url).protocol} address, is not one this server sends access to: it sends it to https, http on a loopback address, or an app's own scheme (a reverse domain name such as com.example.app:/, or Cursor's callback ${CURSOR_CALLBACK}), never to a scheme the browser or the system opens itself. Update the app, or ask its makers to.`;
}

/** Schemes no redirect_uri may have, even listed beside a usable one: the provider's list. */
const NEVER_SCHEMES = new Set(["javascript:", "data:", "vbscript:", "file:", "mailto:", "blob:"]);

/** What every redirect_uri a client lists must be, as a refusal says it. */
export const LISTED_REDIRECT_RULE = `Every one listed must be an absolute URL with no #fragment and no user:password@, never ${[...NEVER_SCHEMES].join(", ")}.`;

/** Why the provider will not store `uri` among a client's redirect_uris at all, or undefined: its rules for every
 *  listed URI, said (review 332: "Invalid redirect URI" named neither the URI nor the rule). */
export function unlistableRedirect(uri: string): string | undefined {
  const trimmed = uri.trim(); // as the provider reads it
  if (/[\u0000-\u001f\u007f-\u009f]/.test(trimmed)) return "it holds a control character";
  if (!URL.canParse(trimmed)) return "it is not an absolute URL";
  const url = new URL(trimmed);
  if (NEVER_SCHEMES.has(url.protocol)) return `a ${url.protocol} address is never a redirect`;
  if (trimmed.includes("#")) return "it has a #fragment";
  if (url.username || url.password) return "it has a user:password@ part";
  return undefined;
}

export function refusedRedirectPage(url: string, headers?: Headers): Response {
  return page(400, "Sign-in failed", `<p>${escape(refusedRedirect(url))}</p>`, headers);
}

/** The answer that sends the browser on to the app, at `headers`' Location: a web address by redirect; an app's own
 *  scheme (cursor:) by a page that opens it and stays, since the browser shows nothing of its own there (review 209:
 *  the consent page stayed up, and a second click said the sign-in was not started in this browser). */
export function toApp(headers: Headers): Response {
  const location = headers.get("Location")!;
  const kind = redirectKind(location);
  if (kind === "web") return new Response(null, { status: 302, headers });
  headers.delete("Location");
  if (kind === "refused") return refusedRedirectPage(location, headers);
  return page(200, "Back to your app", `<meta http-equiv="refresh" content="0;url=${escape(location)}"><p>Your app opens now with your answer. If it does not, <a href="${escape(location)}">open it</a>. Then close this tab.</p>`, headers);
}
