// Sign-in through GitHub, against a stand-in GitHub run by the test (same endpoints and shapes as
// github.com and api.github.com): PKCE is checked, org membership decides access.
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { LocalWorker } from "../../scripts/local-worker.js";
import { localWorker } from "./helpers";
import { authorize, register, signIn } from "../../scripts/oauth-client.js";

const ORG = "bmad-org";
const fake = { member: true, codes: new Map<string, string>(), paths: [] as string[] };
let github: Server;
let githubUrl: string;
let worker: LocalWorker;

function startGitHub(): Promise<void> {
  github = createServer(async (req, res) => {
    const url = new URL(req.url!, githubUrl);
    fake.paths.push(url.pathname);
    const json = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (url.pathname === "/login/oauth/authorize") {
      const code = `code-${fake.codes.size}`;
      fake.codes.set(code, url.searchParams.get("code_challenge")!);
      const back = new URL(url.searchParams.get("redirect_uri")!);
      back.searchParams.set("code", code);
      back.searchParams.set("state", url.searchParams.get("state")!);
      return res.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === "/login/oauth/access_token") {
      let body = "";
      for await (const chunk of req) body += chunk;
      const form = new URLSearchParams(body);
      const challenge = fake.codes.get(form.get("code") ?? "");
      const verified = createHash("sha256").update(form.get("code_verifier") ?? "").digest("base64url") === challenge;
      if (form.get("client_secret") !== "gh-secret" || !verified) return json(200, { error: "bad_verification_code" });
      return json(200, { access_token: "gho_test", token_type: "bearer" });
    }
    if (req.headers.authorization !== "Bearer gho_test") return json(401, { message: "Bad credentials" });
    if (url.pathname === "/user") return json(200, { id: 42, login: "octocat", name: "The Octocat" });
    if (url.pathname === "/user/emails") return json(200, [{ email: "octocat@github.test", primary: true, verified: true }]);
    if (url.pathname === `/user/memberships/orgs/${ORG}`) return fake.member ? json(200, { state: "active" }) : json(404, { message: "Not Found" });
    json(404, { message: "Not Found" });
  });
  return new Promise((ok) => github.listen(0, "127.0.0.1", () => ok()));
}

beforeAll(async () => {
  await startGitHub();
  githubUrl = `http://127.0.0.1:${(github.address() as AddressInfo).port}`;
  worker = await localWorker({
    bindings: { AUTH_UPSTREAM: "github", GITHUB_CLIENT_ID: "gh-client", GITHUB_CLIENT_SECRET: "gh-secret", GITHUB_URL: githubUrl, GITHUB_API_URL: githubUrl, ALLOWED_GITHUB_ORG: ORG },
  });
}, 120_000);
afterAll(async () => {
  await worker?.dispose();
  await new Promise((ok) => github?.close(ok));
});

it("signs in an org member through GitHub with PKCE", async () => {
  fake.member = true;
  const tokens = await signIn(fetch, worker.url.origin);
  expect(tokens.access_token).toBeTruthy();
  expect(fake.paths).toEqual(expect.arrayContaining(["/login/oauth/authorize", "/login/oauth/access_token", "/user", `/user/memberships/orgs/${ORG}`]));
});

it("turns away a GitHub user outside the org", async () => {
  fake.member = false;
  const client = await register(fetch, worker.url.origin);
  const outcome = await authorize(fetch, worker.url.origin, { clientId: client.client_id });
  expect(outcome).toMatchObject({ ok: false, status: 403 });
  expect(!outcome.ok && outcome.body).toContain("octocat@github.test is not allowed");
});
