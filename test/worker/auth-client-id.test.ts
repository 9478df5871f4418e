// Client ID Metadata Documents: a client_id that is an https URL makes the server fetch that URL. Hosts that
// are loopback, private or link-local are refused before anything is fetched, whatever the runtime's flags,
// at the authorization endpoint and at the token endpoint, in every spelling the URL parser accepts.
import { afterEach, describe, expect, it, vi } from "vitest";
import { nonPublicHostReason } from "../../src/worker/auth/public-host.js";
import { authorize, DEFAULT_REDIRECT_URI, exchange, pkce, refresh } from "../../scripts/oauth-client.js";
import { ORIGIN, workerFetch } from "./client.js";

const HOSTILE = [
  "https://127.0.0.1:8443/client.json",
  "https://localhost/client.json",
  "https://127.1/client.json",
  "https://0x7f000001/client.json",
  "https://2130706433/client.json",
  "https://[::ffff:127.0.0.1]/client.json",
  "https://[::1]/client.json",
  "https://10.1.2.3/client.json",
  "https://172.16.0.1/client.json",
  "https://172.31.255.254/client.json",
  "https://192.168.1.1/client.json",
  "https://169.254.169.254/latest/meta-data",
  "https://[fc00::1]/client.json",
  "https://[fd12:3456::1]/client.json",
  "https://[fe80::1]/client.json",
  "https://app.localhost/client.json",
  "https://0.0.0.0/client.json",
];

function authorizeUrl(clientId: string): URL {
  const url = new URL(`${ORIGIN}/authorize`);
  const query = { response_type: "code", client_id: clientId, redirect_uri: "http://127.0.0.1:33418/callback", code_challenge: "x".repeat(43), code_challenge_method: "S256", state: "s", resource: `${ORIGIN}/mcp` };
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  return url;
}

const fetched = () => vi.mocked(globalThis.fetch).mock.calls.map(([input]) => String(input instanceof Request ? input.url : input));

afterEach(() => {
  vi.restoreAllMocks();
});

// The first request of a file loads the whole Worker in workerd: seconds on a busy machine.
describe("a client_id naming a metadata document on a non-public host", { timeout: 60_000 }, () => {
  it("is refused on the consent page, naming the host problem, and never fetched", async () => {
    vi.spyOn(globalThis, "fetch");
    for (const clientId of HOSTILE) {
      const page = await workerFetch(authorizeUrl(clientId));
      const body = await page.text();
      expect({ clientId, status: page.status }).toEqual({ clientId, status: 400 });
      expect(body).toContain("must be served from a public HTTPS host");
    }
    expect(fetched().filter((url) => !url.startsWith(ORIGIN))).toEqual([]);
  });

  it("is refused at the token endpoint as invalid_client, from the form and from HTTP Basic, and never fetched", async () => {
    vi.spyOn(globalThis, "fetch");
    for (const clientId of HOSTILE) {
      const viaForm = await workerFetch(`${ORIGIN}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "authorization_code", code: "u:g:c", client_id: clientId, code_verifier: "v".repeat(43) }),
      });
      expect({ clientId, status: viaForm.status }).toEqual({ clientId, status: 401 });
      expect(await viaForm.json()).toMatchObject({ error: "invalid_client", error_description: expect.stringContaining("must be served from a public HTTPS host") });
      const viaBasic = await workerFetch(`${ORIGIN}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${btoa(`${encodeURIComponent(clientId)}:secret`)}` },
        body: new URLSearchParams({ grant_type: "authorization_code", code: "u:g:c" }),
      });
      expect({ clientId, status: viaBasic.status }).toEqual({ clientId, status: 401 });
      // Given twice, an empty one first: the check and the provider would read different ones (an eighth review).
      const twice = await workerFetch(`${ORIGIN}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams([["grant_type", "authorization_code"], ["code", "u:g:c"], ["client_id", ""], ["client_id", clientId]]),
      });
      expect({ clientId, status: twice.status }).toEqual({ clientId, status: 400 });
      expect(await twice.json()).toMatchObject({ error: "invalid_request", error_description: "The parameter client_id is given more than once; give each once." });
    }
    expect(fetched().filter((url) => !url.startsWith(ORIGIN))).toEqual([]);
  });
});

// Review 285: a refresh while the document's host answered 502 got 401 invalid_client "Client not found", which makes
// most clients drop the sign-in: a short outage of claude.ai's would disconnect every connector.
describe("a client whose metadata document's host is down", { timeout: 60_000 }, () => {
  const METADATA = "https://app.example.com/oauth/client-metadata.json";
  const DOCUMENT = { client_id: METADATA, client_name: "Metadata app", redirect_uris: [DEFAULT_REDIRECT_URI], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  const WHY = `This app's client metadata document ${METADATA} could not be read (Failed to fetch client metadata: HTTP 502). Its host may be down for a moment: try again in a minute.`;

  it("is told to try again later, naming the document and the failure, at the token endpoint and on the consent page; its sign-in outlives the outage", async () => {
    let down = false;
    const outside = globalThis.fetch;
    // The outside network: the document's host, up or answering 502.
    vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
      if (new Request(input).url !== METADATA) return outside(input, init);
      return Promise.resolve(down ? new Response("bad gateway", { status: 502 }) : Response.json(DOCUMENT, { headers: { "cache-control": "no-store" } }));
    });
    const { verifier } = await pkce();
    const signedIn = await authorize(workerFetch, ORIGIN, { clientId: METADATA, verifier });
    if (!signedIn.ok) throw new Error(JSON.stringify(signedIn));
    const tokens = await exchange(workerFetch, ORIGIN, { grant_type: "authorization_code", code: signedIn.code, redirect_uri: DEFAULT_REDIRECT_URI, client_id: METADATA, code_verifier: verifier, resource: `${ORIGIN}/mcp` });
    expect(tokens.status).toBe(200);

    down = true;
    const during = await workerFetch(`${ORIGIN}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.json.refresh_token, client_id: METADATA }),
    });
    expect(during.status).toBe(503);
    expect(during.headers.get("retry-after")).toBe("60");
    expect(during.headers.get("www-authenticate")).toBeNull();
    expect(await during.json()).toEqual({ error: "temporarily_unavailable", error_description: `${WHY} If this goes on, the app's makers must fix the document. Nothing was used up: send the same request again.` });
    const consent = await workerFetch(authorizeUrl(METADATA));
    expect(consent.status).toBe(503);
    expect(consent.headers.get("retry-after")).toBe("60");
    expect(await consent.text()).toContain(WHY.replaceAll("'", "&#39;"));

    down = false;
    expect((await refresh(workerFetch, ORIGIN, METADATA, tokens.json.refresh_token)).status).toBe(200);
  });
});

describe("public hosts", () => {
  it("are the only ones a metadata document may come from", () => {
    const reason = (host: string) => nonPublicHostReason(new URL(`https://${host}/client.json`));
    for (const host of ["example.com", "mcp.claude.ai", "93.184.216.34", "[2606:4700:4700::1111]"]) expect(reason(host)).toBeUndefined();
    for (const url of HOSTILE) expect(nonPublicHostReason(new URL(url))).toBeDefined();
    for (const host of ["intranet", "printer.local", "db.internal", "100.64.0.1", "[64:ff9b::a00:1]", "[2002:a00:1::]"]) expect(reason(host)).toBeDefined();
    // Addresses that carry an IPv4 one inside are judged by it: IPv4-compatible loopback, local-use NAT64.
    expect(reason("[::127.0.0.1]")).toBe("a loopback address");
    expect(reason("[64:ff9b:1::a00:1]")).toBe("a private address");
    expect(reason("[64:ff9b::808:808]")).toBeUndefined();
  });
});
