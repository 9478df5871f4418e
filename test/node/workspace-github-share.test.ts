// Sharing a workspace with a GitHub login, on the Worker in workerd signed in through GitHub (a stand-in
// GitHub run by the test): the login comes from sign-in, matches in any case, and is not an email.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalWorker } from "../../scripts/local-worker.js";
import { signIn, withBearer } from "../../scripts/oauth-client.js";
import { TOOL } from "../../src/core/surface/names.js";
import { githubBindings, startGitHub, type GitHubStandIn, type GitHubUser } from "../support/github.js";
import { localWorker } from "./helpers.js";

const member = (id: number, login: string, email?: string): GitHubUser => ({ id, login, emails: email ? [{ email, primary: true, verified: true }] : [], member: true });
// The grantee has no verified email: their login is all a share can name them by.
const OWNER = member(1, "Owner-Cat", "owner@github.test");
const GRANTEE = member(2, "MonaLisa");
// A stranger whose email spells the grantee's login: an email and a login are different identities.
const STRANGER = member(3, "stranger", "monalisa@github.test");

let github: GitHubStandIn;
let worker: LocalWorker;
const people = new Map<GitHubUser, Client>();

async function as(user: GitHubUser): Promise<Client> {
  let client = people.get(user);
  if (!client) {
    github.next = user;
    const { access_token } = await signIn(fetch, worker.url.origin, { scope: "bmad:read bmad:write", approveScopes: ["bmad:read", "bmad:write"] });
    client = new Client({ name: "github-share-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", worker.url), { fetch: withBearer(fetch, access_token) }));
    people.set(user, client);
  }
  return client;
}

async function call(user: GitHubUser, tool: string, args: Record<string, unknown>) {
  const out = (await (await as(user)).callTool({ name: tool, arguments: args })) as CallToolResult;
  const text = out.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  return { text, isError: out.isError === true, structured: (out.structuredContent ?? {}) as Record<string, any> };
}

beforeAll(async () => {
  github = await startGitHub();
  worker = await localWorker({ bindings: githubBindings(github) });
  expect((await call(OWNER, TOOL.bmadProject, { action: "create", name: "team-app" })).isError).toBe(false);
  await call(OWNER, TOOL.bmadFiles, { action: "write", project: "team-app", path: "docs/prd.md", content: "# PRD\n" });
}, 120_000);
afterAll(async () => {
  for (const client of people.values()) await client.close();
  await worker?.dispose();
  await github?.close();
});

describe("a share to a GitHub login", () => {
  it("reaches the user GitHub signs in with that login, in any case, who writes as github:<login>", async () => {
    const shared = await call(OWNER, TOOL.bmadProject, { action: "share", name: "team-app", with: "github:MONALISA", access: "write" });
    expect(shared.text).toBe('Offered github:monalisa write access to "team-app": it applies once they accept it.');
    expect((await call(GRANTEE, TOOL.bmadProject, { action: "accept", name: "team-app" })).isError).toBe(false);
    expect((await call(GRANTEE, TOOL.bmadProject, { action: "list" })).text).toContain("team-app (write, shared by owner@github.test)");
    const wrote = await call(GRANTEE, TOOL.bmadFiles, { action: "append", project: "team-app", path: "docs/prd.md", content: "by Mona\n", if_version: 1 });
    expect(wrote.structured).toMatchObject({ version: 2, author: "github:monalisa" });
    const history = await call(OWNER, TOOL.bmadFiles, { action: "history", project: "team-app", path: "docs/prd.md" });
    expect(history.text).toContain("v2 append 14 B by github:monalisa");
    expect((await call(OWNER, TOOL.bmadProject, { action: "config", name: "team-app" })).text).toContain("Shared with: github:monalisa (write).");
  });

  it("gives nothing to anyone else: a stranger, even one whose email spells the login, sees not found", async () => {
    const theirs = await call(STRANGER, TOOL.bmadFiles, { action: "read", project: "team-app", path: "docs/prd.md" });
    const none = await call(STRANGER, TOOL.bmadFiles, { action: "read", project: "no-such-app", path: "docs/prd.md" });
    expect(theirs.isError).toBe(true);
    expect(theirs.text.replace("team-app", "<name>")).toBe(none.text.replace("no-such-app", "<name>"));
    expect((await call(STRANGER, TOOL.bmadProject, { action: "list" })).text).not.toContain("team-app");
    // Nor does a share to the email reach the login.
    await call(OWNER, TOOL.bmadProject, { action: "share", name: "team-app", with: "github:monalisa", access: "none" });
    await call(OWNER, TOOL.bmadProject, { action: "share", name: "team-app", with: "monalisa@github.test", access: "read" });
    expect((await call(GRANTEE, TOOL.bmadProject, { action: "accept", name: "team-app" })).isError).toBe(true);
    expect((await call(STRANGER, TOOL.bmadProject, { action: "accept", name: "team-app" })).isError).toBe(false);
    expect((await call(GRANTEE, TOOL.bmadFiles, { action: "read", project: "team-app", path: "docs/prd.md" })).text).toMatch(/Project "team-app" not found/);
    expect((await call(STRANGER, TOOL.bmadFiles, { action: "read", project: "team-app", path: "docs/prd.md" })).text).toContain("by Mona");
    await call(OWNER, TOOL.bmadProject, { action: "share", name: "team-app", with: "monalisa@github.test", access: "none" });
  });

  it("takes a revocation on the next call", async () => {
    await call(OWNER, TOOL.bmadProject, { action: "share", name: "team-app", with: "github:monalisa", access: "read" });
    expect((await call(GRANTEE, TOOL.bmadProject, { action: "accept", name: "team-app" })).isError).toBe(false);
    expect((await call(GRANTEE, TOOL.bmadFiles, { action: "read", project: "team-app", path: "docs/prd.md" })).text).toContain("# PRD");
    expect((await call(GRANTEE, TOOL.bmadFiles, { action: "write", project: "team-app", path: "x.md", content: "x" })).text).toMatch(/You have read access/);
    const revoked = await call(OWNER, TOOL.bmadProject, { action: "share", name: "team-app", with: "github:MonaLisa", access: "none" });
    expect(revoked.text).toBe('github:monalisa no longer has access to "team-app".');
    expect((await call(GRANTEE, TOOL.bmadFiles, { action: "read", project: "team-app", path: "docs/prd.md" })).text).toMatch(/Project "team-app" not found/);
    expect((await call(GRANTEE, TOOL.bmadProject, { action: "list" })).text).not.toContain("team-app");
  });

  it("refuses a login GitHub could not have, and the owner's own login", async () => {
    for (const bad of ["github:", "github:-mona", "github:mona--lisa", "github:mona lisa", `github:${"a".repeat(40)}`]) {
      expect((await call(OWNER, TOOL.bmadProject, { action: "share", name: "team-app", with: bad, access: "read" })).text, bad).toMatch(/is not a GitHub login/);
    }
    expect((await call(OWNER, TOOL.bmadProject, { action: "share", name: "team-app", with: "github:owner-cat", access: "read" })).text).toMatch(/That is you/);
  });
});
