// bmad-mcp --remote keeps its sign-in bound to the authorization server that issued it. A small local
// server plays the MCP server and two authorization servers, and changes which one its resource metadata
// names: the saved refresh token goes to no other, the saved sign-in is dropped, and the bridge asks the user
// to sign in again at the server now named. Bridges sharing a sign-in refresh it once, save at once without losing
// one another's, and a server's unusable sign-in metadata is named in one sentence.
import { spawn } from "node:child_process";
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, beforeEach, expect, inject, it } from "vitest";
import { connectBridge, ROOT, tempDir, toolText, waitFor } from "./helpers.js";
import { TOOL } from "../../src/core/surface/names.js";
import { FileOAuthProvider, forgetSignIn, withCredentialsLock } from "../../src/bridge/credentials.js";
import { LoopbackCallback } from "../../src/bridge/loopback-callback.js";

const tmp = tempDir("remote-issuer");
let bridge: string;
let server: Server;
let origin: string;
let remote: string;
/** Which authorization server the resource metadata names now. */
let named: "as-a" | "as-b" | "as-f" | "as-h" | "as-j" | "as-l" | "as-r";
/** Refreshes as-h holds unanswered, ended by the test that makes them. */
const held: Array<() => void> = [];
/** Every token request: which server got it and its form fields. */
let tokenRequests: Array<{ server: string; form: Record<string, string> }>;
let registrations: string[];
/** The Authorization header of every call to /mcp. */
let bearers: Array<string | undefined>;
/** Refresh tokens as-r has taken: it gives a new one with each refresh, and one used twice is refused (the Worker
 *  then revokes the whole sign-in). */
const rotated = new Set<string>();
const closers: Array<() => Promise<void>> = [];

const issuer = (as: string) => `${origin}/${as}`;

async function body(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text;
}

beforeAll(async () => {
  bridge = inject("bridge");
  server = createServer(async (req, res) => {
    const url = new URL(req.url!, origin);
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(value));
    if (url.pathname === "/.well-known/oauth-protected-resource/mcp") return json(200, { resource: remote, authorization_servers: [issuer(named)] });
    const metadata = /^\/\.well-known\/oauth-authorization-server\/(as-[abfhjlr])$/.exec(url.pathname);
    if (metadata) {
      const base = issuer(metadata[1]!);
      // as-f names a file to open as its sign-in page (on a desktop, a launcher: mcp-remote's CVE-2025-6514 class).
      // as-j a script address, which the SDK refuses (review 210: pull printed the validator's JSON dump).
      // as-l names one 20,000 characters long (review 31: 15 MB went to the terminal on one line).
      const pages: Record<string, string> = { "as-f": "file:///tmp/bmad-evil.desktop", "as-j": "javascript:alert(1)", "as-l": `${base}/authorize?pad=${"x".repeat(20_000)}` };
      const authorize = pages[metadata[1]!] ?? `${base}/authorize`;
      return json(200, {
        issuer: base, authorization_endpoint: authorize, token_endpoint: `${base}/token`, registration_endpoint: `${base}/register`,
        response_types_supported: ["code"], grant_types_supported: ["authorization_code", "refresh_token"], code_challenge_methods_supported: ["S256"], token_endpoint_auth_methods_supported: ["none"],
      });
    }
    const endpoint = /^\/(as-[abfhjlr])\/(token|register)$/.exec(url.pathname);
    if (endpoint && endpoint[2] === "token") {
      const form = Object.fromEntries(new URLSearchParams(await body(req)));
      tokenRequests.push({ server: endpoint[1]!, form });
      // as-h takes a refresh and never answers it.
      if (endpoint[1] === "as-h" && form.grant_type === "refresh_token") return void held.push(() => json(400, { error: "invalid_grant" }));
      if (endpoint[1] === "as-r" && form.grant_type === "refresh_token") {
        const n = Number(/^rot-(\d+)$/.exec(form.refresh_token ?? "")?.[1] ?? 0);
        if (!n || rotated.has(form.refresh_token!)) return json(400, { error: "invalid_grant", error_description: "refresh token reused" });
        rotated.add(form.refresh_token!);
        // Answered once the three bridges sharing the sign-in have all found its access token stale, and had a moment
        // to ask for a refresh of their own.
        await waitFor("three stale calls", () => (bearers.filter((b) => b === "Bearer stale-r").length >= 3 ? true : undefined), 15_000).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 1500));
        return json(200, { access_token: `fresh-r-${n + 1}`, refresh_token: `rot-${n + 1}`, token_type: "Bearer", expires_in: 3600 });
      }
      // Refresh tokens are honoured only by the server that issued them.
      if (form.grant_type === "refresh_token" && form.refresh_token === `rt-${endpoint[1]}`) return json(200, { access_token: `fresh-${endpoint[1]}`, token_type: "Bearer", expires_in: 3600 });
      return json(400, { error: "invalid_grant" });
    }
    if (endpoint) {
      const client = JSON.parse(await body(req)) as Record<string, unknown>;
      registrations.push(endpoint[1]!);
      return json(201, { ...client, client_id: `client-${endpoint[1]}-${registrations.length}` });
    }
    if (url.pathname === "/mcp") {
      bearers.push(req.headers.authorization);
      return json(401, { error: "invalid_token" }, { "www-authenticate": `Bearer error="invalid_token", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` });
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  remote = `${origin}/mcp`;
}, 60_000);
beforeEach(() => {
  tokenRequests = [];
  registrations = [];
  bearers = [];
});
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  server?.close();
  tmp.cleanup();
});

/** A config folder whose credentials.json holds a sign-in made at authorization server A. */
function savedSignIn(name: string, stamped: boolean): { config: string; file: string } {
  const config = join(tmp.dir, name);
  const file = join(config, "bmad-mcp", "credentials.json");
  mkdirSync(join(config, "bmad-mcp"), { recursive: true });
  const stamp = stamped ? { issuer: issuer("as-a") } : {};
  const entry = {
    client: { client_id: "client-as-a", redirect_uris: ["http://127.0.0.1:1/callback"], token_endpoint_auth_method: "none", ...stamp },
    tokens: { access_token: "expired-a", token_type: "Bearer", refresh_token: "rt-as-a", ...stamp },
  };
  writeFileSync(file, JSON.stringify({ [remote]: entry }), { mode: 0o600 });
  return { config, file };
}

async function startRemote(config: string, env: Record<string, string> = {}) {
  const project = join(tmp.dir, `project-${closers.length}`);
  mkdirSync(project, { recursive: true });
  const bridgeProcess = await connectBridge(bridge, project, { args: ["--remote", remote], env: { XDG_CONFIG_HOME: config, BMAD_MCP_BROWSER: "none", ...env } });
  closers.push(bridgeProcess.close);
  return bridgeProcess;
}

const signInUrl = (stderr: string) => /sign in to \S+ in your browser: (\S+)/.exec(stderr)?.[1];

for (const stamped of [true, false]) {
  it(`sends a saved refresh token to no other authorization server, and signs in again at the new one (${stamped ? "stamped" : "saved by an older bridge"})`, async () => {
    named = "as-b";
    const { config, file } = savedSignIn(`config-${stamped}`, stamped);
    const { stderr } = await startRemote(config);
    const link = await waitFor("the sign-in link", () => signInUrl(stderr()), 15_000);
    expect(link.startsWith(`${issuer("as-b")}/authorize?`)).toBe(true);
    expect(tokenRequests.filter((r) => r.form.refresh_token === "rt-as-a")).toEqual([]);
    expect(new URL(link).searchParams.get("client_id")).not.toBe("client-as-a");
    expect(registrations).toEqual(["as-b"]);
    // The old sign-in is gone from disk, and the user is told why.
    expect(readFileSync(file, "utf8")).not.toContain("rt-as-a");
    expect(stderr()).toMatch(stamped
      ? new RegExp(`the saved sign-in for ${remote} was issued by ${issuer("as-a")}, but the server now names ${issuer("as-b")}; signing in again`)
      : new RegExp(`the saved sign-in for ${remote} does not record which authorization server issued it; signing in again`));
  }, 30_000);
}

it("refreshes a saved sign-in at the authorization server that issued it", async () => {
  named = "as-a";
  const { config } = savedSignIn("config-same", true);
  const { stderr } = await startRemote(config);
  await waitFor("a refresh at A", () => (tokenRequests.length ? true : undefined), 15_000);
  expect(tokenRequests[0]).toMatchObject({ server: "as-a", form: { grant_type: "refresh_token", refresh_token: "rt-as-a", client_id: "client-as-a" } });
  expect(tokenRequests.every((r) => r.server === "as-a")).toBe(true);
  expect(stderr()).not.toMatch(/signing in again/);
}, 30_000);

/** The bridge's stderr once it refused the sign-in page the authorization server `as` names. */
async function refusedSignIn(as: typeof named, configName: string): Promise<string> {
  named = as;
  const config = join(tmp.dir, configName);
  mkdirSync(config, { recursive: true });
  const { stderr } = await startRemote(config);
  await waitFor("the refusal", () => (/refused to open it/.test(stderr()) ? true : undefined), 15_000);
  return stderr();
}

it("opens no sign-in page that is not a web address over https (or http on this machine)", async () => {
  const stderr = await refusedSignIn("as-f", "config-file-url");
  expect(stderr).toContain(`${remote} named a sign-in page that is not a web address over https (file://…)`);
  expect(signInUrl(stderr)).toBeUndefined();
}, 30_000);

it("opens and shows no sign-in page longer than a sign-in address needs", async () => {
  const stderr = await refusedSignIn("as-l", "config-long-url");
  expect(stderr).toMatch(new RegExp(`${remote.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} named a sign-in page \\d+ characters long, more than a sign-in address needs \\(8192\\)`));
  expect(stderr).not.toContain("x".repeat(100));
}, 30_000);

it("keeps no token a request header cannot carry, and forgets one kept before (review 125: every later run failed, quoting it)", async () => {
  const config = join(tmp.dir, "header-unsafe");
  mkdirSync(config, { recursive: true });
  const file = join(config, "credentials.json");
  const provider = new FileOAuthProvider(remote, new LoopbackCallback(), () => {}, tmpdir(), file);
  await expect(provider.saveTokens({ access_token: "abc\r\nX-Evil: 1", token_type: "Bearer" })).rejects.toThrow(/characters no request header carries .* it was not saved/);
  expect(await provider.tokens()).toBeUndefined();
  writeFileSync(file, JSON.stringify({ [remote]: { tokens: { access_token: "abc\nX-Evil: 1", token_type: "Bearer" } } }), { mode: 0o600 });
  expect(await provider.tokens()).toBeUndefined();
  await provider.saveTokens({ access_token: "good-token", token_type: "Bearer" });
  expect(await provider.tokens()).toMatchObject({ access_token: "good-token" });
});

it("moves a damaged credentials file aside, writes through a link, and names a folder or a dangling link in its place (review 251)", async () => {
  const config = join(tmp.dir, "config-odd-file");
  mkdirSync(config, { recursive: true });
  const file = join(config, "credentials.json");
  const logged: string[] = [];
  const provider = new FileOAuthProvider(remote, new LoopbackCallback(), (m) => logged.push(m), tmpdir(), file);
  const tokens = { access_token: "fresh", token_type: "Bearer" };
  // Damaged: kept aside (0600) with every other remote's sign-in, said once; a save was a silent rewrite.
  writeFileSync(file, '{"https://other.example/mcp": {"tokens": {"access_token": "OTHER"}}', { mode: 0o644 });
  await provider.saveTokens(tokens);
  await provider.saveTokens({ ...tokens, access_token: "fresher" });
  const aside = readdirSync(config).filter((name) => name.startsWith("credentials.json.broken-"));
  expect(aside).toHaveLength(1);
  expect(readFileSync(join(config, aside[0]!), "utf8")).toContain("OTHER");
  expect(statSync(join(config, aside[0]!)).mode & 0o777).toBe(0o600);
  expect(logged.filter((m) => m.includes(aside[0]!))).toHaveLength(1);
  // Saved by an editor with a BOM: read, not set aside (review 253: every sign-in in it stopped working).
  rmSync(join(config, aside[0]!));
  writeFileSync(file, `\uFEFF${JSON.stringify({ "https://other.example/mcp": { tokens: { access_token: "OTHER" } } })}`, { mode: 0o600 });
  await provider.saveTokens(tokens);
  expect(readdirSync(config).filter((name) => name.startsWith("credentials.json.broken-"))).toEqual([]);
  expect(Object.keys(JSON.parse(readFileSync(file, "utf8")))).toEqual(["https://other.example/mcp", remote]);
  // A link: written through to its target, which keeps the other remote's sign-in; the link stays.
  const target = join(config, "kept.json");
  writeFileSync(target, JSON.stringify({ "https://other.example/mcp": { tokens: { access_token: "OTHER" } } }), { mode: 0o600 });
  rmSync(file);
  symlinkSync(target, file);
  await provider.saveTokens(tokens);
  expect(lstatSync(file).isSymbolicLink()).toBe(true);
  expect(Object.keys(JSON.parse(readFileSync(target, "utf8")))).toEqual(["https://other.example/mcp", remote]);
  // A link to nothing, and a folder: refused in a sentence naming the path and the fix, no temp file of tokens left.
  rmSync(file);
  symlinkSync(join(config, "nowhere.json"), file);
  await expect(provider.saveTokens(tokens)).rejects.toThrow(`${file} is a symlink to nothing; sign-ins are not saved through it. Remove the link, or make the file it points to, and sign in again.`);
  rmSync(file);
  mkdirSync(file);
  await expect(provider.saveTokens(tokens)).rejects.toThrow(`Cannot save the sign-in: ${file} is a folder, where bmad-mcp keeps its sign-ins in a file. Remove or rename that folder, and sign in again.`);
  expect(readdirSync(config).filter((name) => name.endsWith(".tmp"))).toEqual([]);
});

it("refreshes a sign-in that bridges started at once share only once, the others taking its tokens (review 210)", async () => {
  named = "as-r";
  const config = join(tmp.dir, "config-shared");
  const file = join(config, "bmad-mcp", "credentials.json");
  mkdirSync(join(config, "bmad-mcp"), { recursive: true });
  const stamp = { issuer: issuer("as-r") };
  const entry = {
    client: { client_id: "client-as-r", redirect_uris: ["http://127.0.0.1:1/callback"], token_endpoint_auth_method: "none", ...stamp },
    tokens: { access_token: "stale-r", token_type: "Bearer", refresh_token: "rot-1", ...stamp },
  };
  writeFileSync(file, JSON.stringify({ [remote]: entry }), { mode: 0o600 });
  // An editor's three windows, each starting a bridge on the saved sign-in, whose access token has expired.
  const bridges = await Promise.all([0, 1, 2].map(() => startRemote(config)));
  const settled = () => bearers.filter((b) => b === "Bearer fresh-r-2").length >= 3 || bridges.some(({ stderr }) => signInUrl(stderr()));
  await waitFor("every bridge on the refreshed token, or one sent to sign in", () => (settled() ? true : undefined), 20_000);
  expect(tokenRequests.filter((r) => r.form.grant_type === "refresh_token")).toEqual([{ server: "as-r", form: expect.objectContaining({ refresh_token: "rot-1" }) }]);
  expect(JSON.parse(readFileSync(file, "utf8"))[remote].tokens).toMatchObject({ access_token: "fresh-r-2", refresh_token: "rot-2", issuer: issuer("as-r") });
  for (const { stderr } of bridges) expect(signInUrl(stderr()), stderr()).toBeUndefined();
}, 40_000);

it("lets go of the shared sign-in's lock when a refresh gets no answer, so the next bridge's refresh goes out (review 217)", async () => {
  named = "as-h";
  const config = join(tmp.dir, "config-hung");
  mkdirSync(join(config, "bmad-mcp"), { recursive: true });
  const stamp = { issuer: issuer("as-h") };
  const entry = {
    client: { client_id: "client-as-h", redirect_uris: ["http://127.0.0.1:1/callback"], token_endpoint_auth_method: "none", ...stamp },
    tokens: { access_token: "stale-h", token_type: "Bearer", refresh_token: "rot-h", ...stamp },
  };
  writeFileSync(join(config, "bmad-mcp", "credentials.json"), JSON.stringify({ [remote]: entry }), { mode: 0o600 });
  try {
    // Two bridges on the sign-in: the first's refresh holds the lock, unanswered; the second waits for it (11 s at
    // most), and sends its own once the first gives up. Held for Node's 300 s, the second gave up first.
    await Promise.all([startRemote(config), startRemote(config)]);
    const refreshes = () => tokenRequests.filter((r) => r.server === "as-h" && r.form.grant_type === "refresh_token").length;
    await waitFor("the second bridge's refresh", () => (refreshes() >= 2 ? true : undefined), 20_000);
  } finally {
    for (const answer of held.splice(0)) answer();
  }
}, 40_000);

/** `bmad-mcp <argv>` to its end, with nobody at a browser. */
function runCli(argv: string[], config: string, env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [bridge, ...argv], { env: { PATH: process.env.PATH!, HOME: tmp.dir, XDG_CONFIG_HOME: config, BMAD_MCP_BROWSER: "none", ...env }, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

it("names what is wrong with a server's sign-in metadata in one sentence, not the validator's dump (review 210)", async () => {
  named = "as-j";
  const sentence = `${remote} sent sign-in details bmad-mcp cannot use (authorization_endpoint: URL cannot use javascript:, data:, or vbscript: scheme); check the --remote URL`;
  const pulled = await runCli(["pull", "--remote", remote, "--project", "x", "--dir", join(tmp.dir, "pull-j")], join(tmp.dir, "config-j"));
  expect(pulled.code).toBe(1);
  expect(pulled.stderr).toBe(`bmad-mcp: pull: ${sentence}.\n`);
  const { stderr } = await startRemote(join(tmp.dir, "config-j-remote"));
  await waitFor("the sentence", () => (stderr().includes(sentence) ? true : undefined), 15_000);
  expect(stderr()).not.toMatch(/"code"|unreachable/);
}, 30_000);

/** A bridge saving sign-ins in a process of its own: from the time given, each remote `<prefix><k>` (k below the count)
 *  gets a client saved; says "saving" first. */
const SAVER = `
import { FileOAuthProvider } from ${JSON.stringify(pathToFileURL(join(ROOT, "src/bridge/credentials.ts")).href)};
const [file, prefix, count, start] = process.argv.slice(2);
process.stdout.write("saving\\n");
while (Date.now() < Number(start)) {}
for (let k = 0; k < Number(count); k++) {
  const provider = new FileOAuthProvider(prefix + k, { url: "http://127.0.0.1:1/callback" }, () => {}, "/nonexistent-project", file, {});
  await provider.saveClientInformation({ client_id: "client-" + k, redirect_uris: ["http://127.0.0.1:1/callback"] });
}
`;

/** Runs SAVER; resolves once it says it is saving, with its end. */
async function startSaver(file: string, prefix: string, count: number, start: number): Promise<{ ended: Promise<number | null> }> {
  const script = join(tmp.dir, "saver.mts");
  writeFileSync(script, SAVER);
  const child = spawn(process.execPath, [join(ROOT, "node_modules/tsx/dist/cli.mjs"), script, file, prefix, String(count), String(start)], { stdio: ["ignore", "pipe", "inherit"] });
  const ended = new Promise<number | null>((resolve) => child.on("close", resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", () => resolve());
    child.on("error", reject);
    child.on("close", () => reject(new Error("the saver ended before it began")));
  });
  return { ended };
}

it("keeps every sign-in two bridges save at once (review 246: 278 of 800 were lost)", async () => {
  const file = join(tmp.dir, "config-two-savers", "credentials.json");
  const start = Date.now() + 3000;
  const savers = await Promise.all(["https://a.example/", "https://b.example/"].map((prefix) => startSaver(file, prefix, 150, start)));
  expect(await Promise.all(savers.map((s) => s.ended))).toEqual([0, 0]);
  expect(Object.keys(JSON.parse(readFileSync(file, "utf8"))).length).toBe(300);
}, 60_000);

it("saves no sign-in while a logout holds the file, and writes none it deleted back (review 246)", async () => {
  const file = join(tmp.dir, "config-logout-race", "credentials.json");
  const key = "https://race.example/0";
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ [key]: { client: { client_id: "logged-out" }, tokens: { access_token: "revoked", token_type: "Bearer" } } }), { mode: 0o600 });
  const before = readFileSync(file, "utf8");
  let saver: { ended: Promise<number | null> } | undefined;
  // What a logout does: under the file's lock, revoke (a while), then delete the sign-in.
  await withCredentialsLock(file, async () => {
    saver = await startSaver(file, "https://race.example/", 1, 0);
    await new Promise((r) => setTimeout(r, 500));
    expect(readFileSync(file, "utf8")).toBe(before);
    forgetSignIn(file, key);
  });
  expect(await saver!.ended).toBe(0);
  expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ [key]: { client: { client_id: "client-0", redirect_uris: ["http://127.0.0.1:1/callback"] } } });
}, 30_000);

/** The lock of a saved sign-in's credentials file held by this process (another bridge, to the ones the test runs),
 *  while `work` runs bridges on it that wait 0.3 s for it, not 11 (one that signed in afresh would wait 2 s for the
 *  browser); the lock's refusal they meet, and the file is left as it was. */
async function whileCredentialsHeld(name: string, work: (config: string, env: Record<string, string>, busy: string) => Promise<void>): Promise<void> {
  named = "as-a";
  const { config, file } = savedSignIn(name, true);
  const before = readFileSync(file, "utf8");
  const busy = `Cannot lock credentials.json: another bridge (process ${process.pid}) has held it for over 0.3 s. If that process hangs, stop it; its lock is then taken over at once.`;
  await withCredentialsLock(file, () => work(config, { BMAD_MCP_TEST_LOCK_WAIT_MS: "300", BMAD_MCP_SIGN_IN_SECONDS: "2" }, busy));
  expect(tokenRequests).toEqual([]);
  expect(registrations).toEqual([]);
  expect(readFileSync(file, "utf8")).toBe(before);
}

it("says the credentials file is busy, and starts no new sign-in, when a refresh finds another bridge holding it (review 257)", async () => {
  await whileCredentialsHeld("config-busy-refresh", async (config, env, busy) => {
    const pulled = await runCli(["pull", "--remote", remote, "--project", "x", "--dir", join(tmp.dir, "pull-busy")], config, env);
    expect(pulled.stderr).toBe(`bmad-mcp: pull: the saved sign-in to ${remote} was not refreshed: ${busy}\n`);
    expect(pulled.code).toBe(1);
    const { client, stderr } = await startRemote(config, env);
    const answer = await client.callTool({ name: TOOL.listSessions, arguments: {} });
    expect(toolText(answer)).toBe(`${TOOL.listSessions} keeps its state on the remote server, and the saved sign-in to ${remote} was not refreshed (${busy.slice(0, -1)}); the next call tries again.`);
    expect(stderr()).not.toMatch(/sign in to|mcp-sdk/);
  });
}, 60_000);

it("says the credentials file is busy, and that nothing was done, when a logout finds another bridge holding it (review 257)", async () => {
  await whileCredentialsHeld("config-busy-logout", async (config, env, busy) => {
    const loggedOut = await runCli(["logout", "--remote", remote], config, env);
    expect(loggedOut.stderr).toBe(`bmad-mcp logout: ${busy} Nothing was revoked or deleted; run the logout again once it is done.\n`);
    expect(loggedOut.code).toBe(3);
  });
}, 60_000);

it("says a failure no command expected in one line, with a status of its own, never Node's stack (review 257)", async () => {
  const notAFolder = join(tmp.dir, "pull-into-a-file");
  writeFileSync(notAFolder, "");
  const pulled = await runCli(["pull", "--remote", remote, "--project", "x", "--dir", notAFolder], join(tmp.dir, "config-unexpected"));
  expect(pulled.stderr).toBe(`bmad-mcp pull: EEXIST: file already exists, mkdir '${notAFolder}'\n`);
  expect(pulled.code).toBe(70);
});

// Review 437: the page the browser comes back to took any request from anyone. A target `new URL` threw on ended the
// whole bridge; a foreign Host (a rebound name) or a POST was taken as the browser's answer. Whose program connects is
// not judged here, as --http judges it: a browser may come through another user's relay (WSL, a forwarded port).
it("answers the sign-in page's odd requests without ending, and only a GET to its own host ends the sign-in", async () => {
  const callback = new LoopbackCallback(30_000);
  await callback.start();
  closers.push(async () => callback.close());
  const { port } = new URL(callback.url);
  const finished: URLSearchParams[] = [];
  const signedIn = callback.next("the-state", async (query) => void finished.push(query));
  /** The status line, the headers asked for and the page a raw request gets (empty where the connection was closed). */
  const raw = (bytes: string) => new Promise<string>((resolve) => {
    const s = connect(Number(port), "127.0.0.1", () => s.write(bytes));
    let text = "";
    s.on("data", (d) => (text += d));
    s.on("error", () => {});
    s.on("close", () => resolve(text));
  });
  const host = `Host: 127.0.0.1:${port}\r\nConnection: close\r\n`;
  expect(await raw(`GET http://[/callback HTTP/1.1\r\n${host}\r\n`)).toMatch(/^HTTP\/1\.1 400 .*This address is not one this page can read\./s);
  expect(await raw(`GET /callback?state=the-state&error=access_denied HTTP/1.1\r\nHost: evil.example:${port}\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403 .*loopback hosts only/s);
  const posted = await raw(`POST /callback?state=the-state&error=access_denied HTTP/1.1\r\n${host}content-length: 0\r\n\r\n`);
  expect(posted).toMatch(/^HTTP\/1\.1 405 /);
  expect(posted.toLowerCase()).toContain("allow: get");
  expect(finished).toEqual([]);
  // The owner's browser, with the state waited for: kept by no cache, its address (the code) sent to no other site.
  const back = await fetch(`${callback.url}?state=the-state&code=c0de`);
  expect([back.status, back.headers.get("cache-control"), back.headers.get("referrer-policy"), await back.text()]).toEqual([200, "no-store", "no-referrer", expect.stringContaining("Signed in.")]);
  await signedIn;
  expect(finished.map((query) => query.get("code"))).toEqual(["c0de"]);
});
