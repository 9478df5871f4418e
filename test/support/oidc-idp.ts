// A tiny but real OpenID Connect provider on loopback, standing in for the upstream IdP in tests.
// No UI: /authorize signs in `idp.user` at once (or refuses when `idp.deny`), so a scripted browser
// can drive the whole code flow. Tokens are real RS256 JWTs, checkable against /jwks.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";

export interface IdpUser {
  sub: string;
  email: string;
  email_verified?: boolean;
  name?: string;
}

export interface Idp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who the next login signs in as. */
  user: IdpUser;
  /** When true, /authorize answers error=access_denied (the user declined upstream). */
  deny: boolean;
  /** Paths answered with an HTML page in place of their JSON, as a proxy's error page would be. */
  html: string[];
  /** Paths hit, in order. */
  requests: string[];
  close(): Promise<void>;
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  nonce: string;
  user: IdpUser;
  expires: number;
}

const CODE_TTL_MS = 60_000;
const TOKEN_TTL_S = 300;

/** `port`: to come back where a closed one was (its keys are new). */
export async function startIdp(options: { clientId?: string; clientSecret?: string; port?: number } = {}): Promise<Idp> {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const kid = randomBytes(8).toString("hex");
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  const codes = new Map<string, PendingCode>();
  const accessTokens = new Map<string, { user: IdpUser; expires: number }>();

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: "server_error", error_description: String(error) });
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const idp: Idp = {
    issuer,
    clientId: options.clientId ?? "bmad-test-client",
    clientSecret: options.clientSecret ?? randomBytes(24).toString("base64url"),
    user: { sub: "user-1", email: "ada@example.com", email_verified: true, name: "Ada Lovelace" },
    deny: false,
    html: [],
    requests: [],
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // fetch keeps sockets alive; without this close() waits for them to time out.
        server.closeAllConnections();
      }),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", issuer);
    idp.requests.push(url.pathname);
    const route = `${req.method} ${url.pathname}`;
    if (idp.html.includes(url.pathname)) return void res.writeHead(200, { "Content-Type": "text/html" }).end("<html>secret page of the proxy</html>");
    if (route === "GET /.well-known/openid-configuration") return json(res, 200, discovery());
    if (route === "GET /jwks") return json(res, 200, { keys: [jwk] });
    if (route === "GET /authorize") return authorize(url, res);
    if (route === "POST /token") return token(req, await readBody(req), res);
    if (route === "GET /userinfo") return userinfo(req, res);
    json(res, 404, { error: "not_found" });
  }

  function discovery(): Record<string, unknown> {
    return {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      userinfo_endpoint: `${issuer}/userinfo`,
      jwks_uri: `${issuer}/jwks`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code"],
      subject_types_supported: ["public"],
      code_challenge_methods_supported: ["S256"],
      id_token_signing_alg_values_supported: ["RS256"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      scopes_supported: ["openid", "email", "profile"],
      claims_supported: ["iss", "sub", "aud", "exp", "iat", "nonce", "email", "email_verified", "name"],
      authorization_response_iss_parameter_supported: true,
    };
  }

  function authorize(url: URL, res: ServerResponse): void {
    const q = url.searchParams;
    const redirectUri = q.get("redirect_uri");
    // An unknown client or missing redirect_uri is shown here, never redirected (RFC 6749 §4.1.2.1).
    if (q.get("client_id") !== idp.clientId) return text(res, 400, "unknown client_id");
    if (!redirectUri || !URL.canParse(redirectUri)) return text(res, 400, "missing or invalid redirect_uri");
    const state = q.get("state");
    const back = (params: Record<string, string>) => {
      const target = new URL(redirectUri);
      for (const [key, value] of Object.entries({ ...params, ...(state ? { state } : {}), iss: issuer })) {
        target.searchParams.set(key, value);
      }
      res.writeHead(302, { Location: target.href }).end();
    };
    if (q.get("response_type") !== "code") return back({ error: "unsupported_response_type" });
    const challenge = q.get("code_challenge");
    const nonce = q.get("nonce");
    if (!challenge || q.get("code_challenge_method") !== "S256") {
      return back({ error: "invalid_request", error_description: "PKCE S256 is required" });
    }
    if (!state || !nonce) return back({ error: "invalid_request", error_description: "state and nonce are required" });
    if (idp.deny) return back({ error: "access_denied", error_description: "the user declined" });
    const code = randomBytes(24).toString("base64url");
    codes.set(code, {
      clientId: idp.clientId,
      redirectUri,
      challenge,
      nonce,
      user: { ...idp.user },
      expires: Date.now() + CODE_TTL_MS,
    });
    back({ code });
  }

  async function token(req: IncomingMessage, body: URLSearchParams, res: ServerResponse): Promise<void> {
    const client = clientCredentials(req, body);
    if (!client || client.id !== idp.clientId || !sameSecret(client.secret, idp.clientSecret)) {
      const headers: Record<string, string> = client?.basic ? { "WWW-Authenticate": 'Basic realm="idp"' } : {};
      return json(res, 401, { error: "invalid_client" }, headers);
    }
    if (body.get("grant_type") !== "authorization_code") return json(res, 400, { error: "unsupported_grant_type" });
    const code = body.get("code") ?? "";
    const pending = codes.get(code);
    codes.delete(code); // single use, whatever happens next
    const grantError = (description: string) => json(res, 400, { error: "invalid_grant", error_description: description });
    if (!pending || pending.expires < Date.now()) return grantError("unknown, used or expired code");
    if (pending.clientId !== client.id) return grantError("code was issued to another client");
    if (body.get("redirect_uri") !== pending.redirectUri) return grantError("redirect_uri does not match");
    const verifier = body.get("code_verifier") ?? "";
    if (createHash("sha256").update(verifier).digest("base64url") !== pending.challenge) {
      return grantError("code_verifier does not match code_challenge");
    }
    const { user, nonce } = pending;
    const idToken = await new SignJWT({ nonce, email: user.email, email_verified: user.email_verified, name: user.name })
      .setProtectedHeader({ alg: "RS256", kid, typ: "JWT" })
      .setIssuer(issuer)
      .setSubject(user.sub)
      .setAudience(client.id)
      .setIssuedAt()
      .setExpirationTime(`${TOKEN_TTL_S}s`)
      .sign(privateKey);
    const accessToken = randomBytes(24).toString("base64url");
    accessTokens.set(accessToken, { user, expires: Date.now() + TOKEN_TTL_S * 1000 });
    json(res, 200, { access_token: accessToken, token_type: "Bearer", expires_in: TOKEN_TTL_S, id_token: idToken });
  }

  function userinfo(req: IncomingMessage, res: ServerResponse): void {
    const match = /^Bearer (.+)$/i.exec(req.headers.authorization ?? "");
    const entry = match?.[1] ? accessTokens.get(match[1]) : undefined;
    if (!entry || entry.expires < Date.now()) {
      return json(res, 401, { error: "invalid_token" }, { "WWW-Authenticate": 'Bearer error="invalid_token"' });
    }
    json(res, 200, { ...entry.user });
  }

  return idp;
}

/** client_secret_basic (form-encoded id and secret, RFC 6749 §2.3.1) or client_secret_post. */
function clientCredentials(req: IncomingMessage, body: URLSearchParams): { id: string; secret: string; basic: boolean } | null {
  const match = /^Basic (.+)$/i.exec(req.headers.authorization ?? "");
  if (match?.[1]) {
    const decoded = Buffer.from(match[1], "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) return null;
    const unform = (value: string) => decodeURIComponent(value.replace(/\+/g, " "));
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)), basic: true };
  }
  const id = body.get("client_id");
  const secret = body.get("client_secret");
  return id && secret ? { id, secret, basic: false } : null;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function readBody(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store", ...headers });
  res.end(JSON.stringify(body));
}

function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8" }).end(body);
}
