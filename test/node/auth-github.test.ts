// Sign-in through GitHub, against a stand-in GitHub run by the test (same endpoints and shapes as
// github.com and api.github.com): PKCE is checked, org membership decides access.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { LocalWorker } from "../../scripts/local-worker.js";
import { localWorker } from "./helpers";
import { authorize, register, signIn, withBearer } from "../../scripts/oauth-client.js";
import { githubBindings, OCTOCAT, startGitHub, type GitHubStandIn } from "../support/github.js";

let github: GitHubStandIn;
let worker: LocalWorker;

beforeAll(async () => {
  github = await startGitHub();
  worker = await localWorker({ bindings: githubBindings(github) });
}, 120_000);
afterAll(async () => {
  await worker?.dispose();
  await github?.close();
});

it("signs in an org member through GitHub with PKCE, and serves MCP on the membership it recorded", async () => {
  github.next = OCTOCAT;
  const tokens = await signIn(fetch, worker.url.origin);
  expect(github.paths).toEqual(expect.arrayContaining(["/login/oauth/authorize", "/login/oauth/access_token", "/user", `/user/memberships/orgs/${github.org}`]));
  // Every request is judged on the access rules (the org alone here) against what the sign-in recorded.
  const asked = github.paths.length;
  const client = new Client({ name: "github-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${worker.url.origin}/mcp`), { fetch: withBearer(fetch, tokens.access_token) }));
  expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  expect(github.paths.slice(asked)).toEqual([]); // GitHub is asked at sign-in only
});

it("turns away a GitHub user outside the org, telling the app (access_denied)", async () => {
  github.next = { ...OCTOCAT, member: false };
  const client = await register(fetch, worker.url.origin);
  const outcome = await authorize(fetch, worker.url.origin, { clientId: client.client_id });
  expect(outcome).toMatchObject({ ok: false, error: "access_denied", body: "The account you signed in with is not allowed on this server. Ask its administrator to add you." });
});
