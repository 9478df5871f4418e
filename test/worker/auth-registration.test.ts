// Dynamic client registration (RFC 7591): every stored field and the body are capped, each refusal names the
// field and the limit; registrations are counted per client address (CF-Connecting-IP, as Cloudflare's edge
// sets it) in a real Durable Object, and the next one past the limit is told when to try again.
import { describe, expect, it } from "vitest";
import { REGISTRATION_LIMITS } from "../../src/worker/auth/registration.js";
import { ORIGIN, workerFetch } from "./client.js";

const CLIENT = { redirect_uris: ["http://127.0.0.1:33418/callback"], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], client_name: "bmad test client" };

let address = 0;
/** A documentation address of its own per call site, so each test counts from zero. */
const newAddress = () => `198.51.100.${++address}`;

function registerAs(ip: string | undefined, body: unknown): Promise<Response> {
  return workerFetch(`${ORIGIN}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(ip ? { "cf-connecting-ip": ip } : {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

describe("registration limits", { timeout: 60_000 }, () => {
  it("registers an ordinary client", async () => {
    const res = await registerAs(newAddress(), CLIENT);
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ client_name: "bmad test client" });
  });

  it("refuses an oversized field with 400 invalid_client_metadata naming the field and its limit", async () => {
    const ip = newAddress();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ client_name: "n".repeat(9_000) }, "client_name must be at most 200 characters"],
      [{ client_name: "n".repeat(201) }, "client_name must be at most 200 characters"],
      [{ client_uri: `https://example.com/${"p".repeat(2000)}` }, "client_uri must be at most 2000 characters"],
      [{ logo_uri: `https://example.com/${"p".repeat(2000)}` }, "logo_uri must be at most 2000 characters"],
      [{ redirect_uris: [`http://127.0.0.1:33418/${"p".repeat(2000)}`] }, "redirect_uris.0 must be at most 2000 characters"],
      [{ redirect_uris: Array.from({ length: 11 }, (_, i) => `http://127.0.0.1:${33000 + i}/callback`) }, "redirect_uris must list at most 10 entries"],
      [{ contacts: Array.from({ length: 11 }, (_, i) => `c${i}@example.com`) }, "contacts must list at most 10 entries"],
      [{ "client_name#fr": "n".repeat(201) }, "client_name#fr must be at most 200 characters"],
    ];
    for (const [fields, message] of cases) {
      const res = await registerAs(ip, { ...CLIENT, ...fields });
      expect({ fields: Object.keys(fields), status: res.status }).toEqual({ fields: Object.keys(fields), status: 400 });
      expect(await res.json()).toMatchObject({ error: "invalid_client_metadata", error_description: expect.stringContaining(message) });
    }
    // Refused registrations are not counted: the same address still registers.
    expect((await registerAs(ip, CLIENT)).status).toBe(201);
  });

  it("names the type a wrongly typed field must have, not a length (review 95)", async () => {
    const ip = newAddress();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ client_name: { a: 1 } }, "Client metadata: client_name must be a JSON string; send it as one and register again."],
      [{ redirect_uris: "https://a.example/cb" }, "Client metadata: redirect_uris must be a JSON array; send it as one and register again."],
    ];
    for (const [fields, message] of cases) {
      const res = await registerAs(ip, { ...CLIENT, ...fields });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: "invalid_client_metadata", error_description: message });
    }
  });

  // Review 417: "Redirect URI must use https, or http on a loopback host", naming none.
  it("names a plain-http redirect_uri on a host that is not loopback, and registers one beside a loopback one", async () => {
    const ip = newAddress();
    const res = await registerAs(ip, { ...CLIENT, redirect_uris: ["http://app.example/cb"] });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "invalid_client_metadata", error_description: expect.stringContaining("redirect_uris: http://app.example/cb is plain http on a host that is not this computer") });
    expect((await registerAs(ip, { ...CLIENT, redirect_uris: ["http://app.example/cb", "http://127.0.0.1:9/cb"] })).status).toBe(201);
  });

  // Review 332: these said only "Invalid redirect URI"; a javascript: one beside a usable one refuses the list.
  it("names a redirect_uri it cannot register and the rule, a usable one beside it or not", async () => {
    const ip = newAddress();
    const cases: Array<[string[], string]> = [
      [["javascript:alert(1)", "https://ok.example/cb"], "redirect_uris: javascript:alert(1) cannot be registered: a javascript: address is never a redirect."],
      [["https://claude.ai@evil.example/cb"], "redirect_uris: https://claude.ai@evil.example/cb cannot be registered: it has a user:password@ part."],
      [["https://ok.example/cb", "https://evil.example/cb#x"], "redirect_uris: https://evil.example/cb#x cannot be registered: it has a #fragment."],
      [["not a url"], "redirect_uris: not a url cannot be registered: it is not an absolute URL."],
      [[`https://ok.example/\u0007${"a".repeat(300)}`], `redirect_uris: https://ok.example/ ${"a".repeat(180)}… cannot be registered: it holds a control character.`],
    ];
    for (const [redirect_uris, message] of cases) {
      const res = await registerAs(ip, { ...CLIENT, redirect_uris });
      expect(res.status, redirect_uris[0]).toBe(400);
      const json = (await res.json()) as { error: string; error_description: string };
      expect(json.error).toBe("invalid_client_metadata");
      expect(json.error_description).toContain(message);
      expect(json.error_description).toContain("Every one listed must be an absolute URL with no #fragment and no user:password@");
    }
  });

  // Review 332: the server's metadata lists private_key_jwt (for metadata documents), and registration refused it
  // naming only the methods it takes.
  it("says private_key_jwt is for apps with a metadata document, and registers an app that offers another method too", async () => {
    const ip = newAddress();
    for (const fields of [{ token_endpoint_auth_method: "private_key_jwt" }, { token_endpoint_auth_method: undefined, token_endpoint_auth_methods_supported: ["private_key_jwt"] }]) {
      const res = await registerAs(ip, { ...CLIENT, ...fields });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: "invalid_client_metadata", error_description: "Client metadata: private_key_jwt is taken only from apps whose client_id is the URL of their client metadata document, which this server's metadata offers it for; a registered app uses none, client_secret_basic, client_secret_post. Register with one of them, or use a metadata document." });
    }
    const either = await registerAs(ip, { ...CLIENT, token_endpoint_auth_method: "private_key_jwt", token_endpoint_auth_methods_supported: ["private_key_jwt", "none"] });
    expect(either.status).toBe(201);
    expect(await either.json()).toMatchObject({ token_endpoint_auth_method: "none" });
  });

  it("refuses a body over 16 KB with 413, naming the limit", async () => {
    const res = await registerAs(newAddress(), { ...CLIENT, software_statement: "s".repeat(REGISTRATION_LIMITS.bodyBytes) });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: "invalid_client_metadata", error_description: expect.stringContaining("larger than 16 KB") });
  });

  it(`answers the registration after ${REGISTRATION_LIMITS.perAddress} from one address with 429 and Retry-After; other addresses still register`, async () => {
    const ip = newAddress();
    for (let i = 0; i < REGISTRATION_LIMITS.perAddress; i++) expect((await registerAs(ip, CLIENT)).status).toBe(201);
    const refused = await registerAs(ip, CLIENT);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(REGISTRATION_LIMITS.windowMs / 1000);
    expect(await refused.json()).toMatchObject({ error_description: expect.stringMatching(/Too many client registrations from this address.*Try again in \d+ s, reuse a client you already registered, or use a client ID metadata document \(an https URL as client_id\), which this server takes without registering\./) });
    expect((await registerAs(newAddress(), CLIENT)).status).toBe(201);
  });

  it("counts an IPv6 client by its /64", async () => {
    for (let i = 0; i < REGISTRATION_LIMITS.perAddress; i++) expect((await registerAs(`2001:db8:1:2::${i + 1}`, CLIENT)).status).toBe(201);
    expect((await registerAs("2001:db8:1:2:ffff::1", CLIENT)).status).toBe(429);
  });

  it("counts a /64 however its addresses are written: compressed, zero groups, capitals", async () => {
    // 2001:db8:: and 2001:db8:0:0:... are one /64 (the first four groups 2001:db8:0:0).
    const spellings = (i: number) => [`2001:db8::${i + 1}`, `2001:DB8:0:0::${i + 1}:1`, `2001:0db8:0000:0000:${i + 1}::`][i % 3]!;
    for (let i = 0; i < REGISTRATION_LIMITS.perAddress; i++) expect((await registerAs(spellings(i), CLIENT)).status).toBe(201);
    expect((await registerAs("2001:db8::ffff", CLIENT)).status).toBe(429);
    expect((await registerAs("2001:db8:0:1::1", CLIENT)).status).toBe(201);
  });
});

// Review 84: each consent page stores a transaction before anyone signs in; 500 anonymous requests stored 500.
describe("consent pages", { timeout: 60_000 }, () => {
  const consentAs = (ip: string, clientId: string, extra: Record<string, string> = {}) => {
    const query = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: CLIENT.redirect_uris[0]!, code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256", state: "s", ...extra });
    return workerFetch(`${ORIGIN}/authorize?${query}`, { headers: { "cf-connecting-ip": ip } });
  };

  it(`opens ${REGISTRATION_LIMITS.authorizePerAddress} from one address, then 429 with Retry-After; a state or scope past its bound is refused`, async () => {
    const client = (await (await registerAs(newAddress(), CLIENT)).json()) as { client_id: string };
    const ip = newAddress();
    expect((await consentAs(newAddress(), client.client_id, { state: "s".repeat(REGISTRATION_LIMITS.stateChars + 1) })).status).toBe(400);
    expect((await consentAs(newAddress(), client.client_id, { scope: Array.from({ length: REGISTRATION_LIMITS.scopes + 1 }, (_, i) => `s${i}`).join(" ") })).status).toBe(302);
    for (let i = 0; i < REGISTRATION_LIMITS.authorizePerAddress; i++) expect((await consentAs(ip, client.client_id)).status).toBe(200);
    const refused = await consentAs(ip, client.client_id);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.text()).toContain("Too many sign-in pages from this address");
    expect((await consentAs(newAddress(), client.client_id)).status).toBe(200);
  });

  it("refuses a code_challenge that is no S256 challenge, or a scope past its bound, naming it (review 95: 60,000 characters were stored)", async () => {
    const client = (await (await registerAs(newAddress(), CLIENT)).json()) as { client_id: string };
    // Told to the app, whose redirect_uri is registered (review 417).
    const toldApp = (res: Response) => new URL(res.headers.get("location")!).searchParams.get("error_description");
    const res = await consentAs(newAddress(), client.client_id, { scope: `bmad:read ${"s".repeat(101)}` });
    expect(res.status).toBe(302);
    expect(toldApp(res)).toContain("This app sent a scope longer than 100 characters, more than a sign-in needs.");
    // Review 203: "abc", or 43 characters outside base64url, took a consent page and a code that could never be exchanged.
    for (const challenge of ["c".repeat(129), "abc", "!".repeat(43), "c".repeat(44)]) {
      const refused = await consentAs(newAddress(), client.client_id, { code_challenge: challenge });
      expect(refused.status, challenge).toBe(302);
      expect(toldApp(refused)).toContain("This app sent a code_challenge that is not an S256 challenge (43 characters of base64url, RFC 7636).");
    }
    expect((await consentAs(newAddress(), client.client_id, { code_challenge: "c".repeat(43) })).status).toBe(200);
  });

  it("counts the connections page's sign-ins with them, with or without Origin, each of which stores a record (review 416)", async () => {
    const ip = newAddress();
    const signInAs = (i: number) => workerFetch(`${ORIGIN}/connections/sign-in`, {
      method: "POST", redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", "cf-connecting-ip": ip, ...(i % 2 ? { origin: ORIGIN } : {}) },
      body: "user=",
    });
    for (let i = 0; i < REGISTRATION_LIMITS.authorizePerAddress; i++) expect((await signInAs(i)).status).toBe(303);
    const refused = await signInAs(0);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("set-cookie")).toBeNull();
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.text()).toContain("Too many sign-in pages from this address");
    // One count for both: the consent page is refused at this address too.
    const client = (await (await registerAs(newAddress(), CLIENT)).json()) as { client_id: string };
    expect((await consentAs(ip, client.client_id)).status).toBe(429);
  });

  it("counts an IPv6 site's /48 too, whichever of its /64s asks (review 86)", async () => {
    const client = (await (await registerAs(newAddress(), CLIENT)).json()) as { client_id: string };
    for (let i = 0; i < 4 * REGISTRATION_LIMITS.authorizePerAddress; i++) expect((await consentAs(`2001:db8:99:${i.toString(16)}::1`, client.client_id)).status).toBe(200);
    expect((await consentAs("2001:db8:99:ffff::1", client.client_id)).status).toBe(429);
    expect((await consentAs("2001:db8:98::1", client.client_id)).status).toBe(200);
  });
});
