// The sign-in pages' HTML: one shape, headers that let it run no script and sit in no frame.

export const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// No form-action: Chromium and WebKit check it on the redirect that answers the consent form too, and that always
// leaves this origin (the app's redirect_uri, or the identity provider): with 'self', Allow did nothing (review 203).
// The page has no script and nothing unescaped in it, and the form's POST is checked by its Origin.
const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  // The consent page's URL holds the request (state, code_challenge, redirect_uri), and its form leads off-site: no
  // Referer leaves the origin. Not no-referrer: under it a browser sends a form's POST with `Origin: null`, which the
  // pages' Origin check refuses (the consent and the connections page's forms failed in Chromium).
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
};

export function page(status: number, title: string, body: string, headers?: Headers): Response {
  const h = new Headers(headers);
  for (const [k, v] of Object.entries(PAGE_HEADERS)) h.set(k, v);
  const html = `<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(title)}</title>
<style>body{font:16px system-ui;max-width:34rem;margin:3rem auto;padding:0 1rem}button{font:inherit;padding:.4rem 1rem}</style>
<h1>${escape(title)}</h1>${body}`;
  return new Response(html, { status, headers: h });
}

/** The origin a form was posted from, when it is not this server's own (CSRF): browsers send Origin with every form POST. */
export function foreignOrigin(request: Request): string | undefined {
  const from = request.headers.get("origin");
  return from !== null && from !== new URL(request.url).origin ? from : undefined;
}
