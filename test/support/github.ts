// A stand-in GitHub run by the test: the same endpoints and shapes as github.com and api.github.com (the
// code flow with PKCE, /user, /user/emails, org membership), for the Worker's real GitHub sign-in to talk to.
// `next` says who is signed in at GitHub when the next sign-in reaches it.
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface GitHubUser {
  id: number;
  login: string;
  name?: string;
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
  member: boolean;
}

export interface GitHubStandIn {
  url: string;
  org: string;
  /** Who signs in next. */
  next: GitHubUser;
  /** Every path requested, in order. */
  paths: string[];
  close(): Promise<void>;
}

export const OCTOCAT: GitHubUser = { id: 42, login: "octocat", name: "The Octocat", emails: [{ email: "octocat@github.test", primary: true, verified: true }], member: true };

export async function startGitHub(org = "bmad-org"): Promise<GitHubStandIn> {
  const codes = new Map<string, { challenge: string; user: GitHubUser }>();
  const tokens = new Map<string, GitHubUser>();
  let server: Server;
  const standIn: GitHubStandIn = { url: "", org, next: OCTOCAT, paths: [], close: () => new Promise((ok) => server.close(() => ok())) };
  server = createServer(async (req, res) => {
    const url = new URL(req.url!, standIn.url);
    standIn.paths.push(url.pathname);
    const json = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (url.pathname === "/login/oauth/authorize") {
      const code = `code-${codes.size}`;
      codes.set(code, { challenge: url.searchParams.get("code_challenge")!, user: standIn.next });
      const back = new URL(url.searchParams.get("redirect_uri")!);
      back.searchParams.set("code", code);
      back.searchParams.set("state", url.searchParams.get("state")!);
      return res.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === "/login/oauth/access_token") {
      let body = "";
      for await (const chunk of req) body += chunk;
      const form = new URLSearchParams(body);
      const grant = codes.get(form.get("code") ?? "");
      const verified = grant && createHash("sha256").update(form.get("code_verifier") ?? "").digest("base64url") === grant.challenge;
      if (form.get("client_secret") !== "gh-secret" || !verified) return json(200, { error: "bad_verification_code" });
      const token = `gho_${tokens.size}`;
      tokens.set(token, grant.user);
      return json(200, { access_token: token, token_type: "bearer" });
    }
    const user = tokens.get((req.headers.authorization ?? "").replace(/^Bearer /, ""));
    if (!user) return json(401, { message: "Bad credentials" });
    if (url.pathname === "/user") return json(200, { id: user.id, login: user.login, name: user.name ?? null });
    if (url.pathname === "/user/emails") return json(200, user.emails);
    if (url.pathname === `/user/memberships/orgs/${org}`) return user.member ? json(200, { state: "active" }) : json(404, { message: "Not Found" });
    json(404, { message: "Not Found" });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", () => ok()));
  standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return standIn;
}

/** The Worker's bindings for GitHub sign-in through this stand-in, open to its org. */
export function githubBindings(github: GitHubStandIn): Record<string, string> {
  return { AUTH_UPSTREAM: "github", GITHUB_CLIENT_ID: "gh-client", GITHUB_CLIENT_SECRET: "gh-secret", GITHUB_URL: github.url, GITHUB_API_URL: github.url, ALLOWED_GITHUB_ORG: github.org };
}
