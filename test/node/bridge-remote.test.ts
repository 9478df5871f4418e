// bmad-mcp --remote against the Worker run locally: browser sign-in with a loopback redirect (the test
// plays the browser), credentials kept 0600 and reused, state on the remote, file-system tools local,
// and content from the local bundle, said so, when the remote is down.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { z } from "zod";
import type { LocalWorker } from "../../scripts/local-worker.js";
import { signIn } from "../../scripts/oauth-client.js";
import { connectBridge, localWorker, silentRemote, tempDir, toolText } from "./helpers.js";

const tmp = tempDir("remote");
const config = join(tmp.dir, "config");
const project = join(tmp.dir, "project");
let bridge: string;
let worker: LocalWorker;
let remote: string;
const clients: Client[] = [];

beforeAll(async () => {
  bridge = inject("bridge");
  worker = await localWorker();
  remote = `${worker.url.origin}/mcp`;
  mkdirSync(join(project, "_bmad/_config/custom"), { recursive: true });
  writeFileSync(join(project, "_bmad/_config/custom/cc-verify.sh"), "echo local contract ran\n");
  chmodSync(join(project, "_bmad/_config/custom/cc-verify.sh"), 0o755);
  // The folder's own config and work, which no workspace on the remote has.
  writeFileSync(join(project, "_bmad/config.toml"), '[core]\nuser_name = "Bob"\n\n[modules.bmm]\nplanning_artifacts = "{project-root}/_bmad-output/planning-artifacts"\n');
  mkdirSync(join(project, "_bmad-output/planning-artifacts/prds/prd-local"), { recursive: true });
  writeFileSync(join(project, "_bmad-output/planning-artifacts/prds/prd-local/prd.md"), "---\nstatus: draft\n---\n# Local PRD\n");
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await worker?.dispose();
  tmp.cleanup();
});

/** `named`: started in `/` (as Claude Desktop starts servers) with that project named by --project. */
async function spawnRemote(configHome = config, extraEnv: Record<string, string> = {}, named?: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bridge, "--remote", remote, "--allow-project-scripts", ...(named ? ["--project", named] : [])],
    cwd: named ? "/" : project,
    env: { PATH: process.env.PATH!, HOME: tmp.dir, XDG_CONFIG_HOME: configHome, BMAD_MCP_BROWSER: "none", ...extraEnv },
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d) => (err += d));
  const client = new Client({ name: "remote-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return { client, stderr: () => err };
}

/** A bridge on the saved sign-in, started at first use and asked again by later tests that need no fresh one:
 *  a bridge start costs more CPU than most tests. `restarted` is the start after the first sign-in, `renewed`
 *  the one that signs in again after the saved tokens stopped working. */
let restarted: ReturnType<typeof spawnRemote> | undefined;
let renewed: ReturnType<typeof spawnRemote> | undefined;

async function until<T>(what: string, get: () => T | undefined, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = get();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Plays the user's browser: the consent page, Allow, and the redirect back to the bridge's loopback port. */
async function approveInBrowser(authorizeUrl: string, scopes = ["bmad:read", "bmad:write"]): Promise<void> {
  const consent = await fetch(authorizeUrl, { redirect: "manual" });
  const cookies = consent.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const handle = /name="handle" value="([^"]+)"/.exec(await consent.text())?.[1];
  if (!handle) throw new Error(`no consent form at ${authorizeUrl}`);
  const approved = await fetch(new URL("/authorize", authorizeUrl), {
    method: "POST", redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookies, origin: new URL(authorizeUrl).origin },
    body: new URLSearchParams([["handle", handle], ["decision", "approve"], ...scopes.map((scope) => ["scope", scope])]),
  });
  const back = approved.headers.get("location")!;
  expect(back).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
  // Another program that found the port cannot end the wait with a callback of its own (review 72).
  const forged = new URL(back);
  forged.searchParams.set("state", "forged");
  expect((await fetch(forged)).status).toBe(400);
  expect(await (await fetch(back)).text()).toContain("Signed in");
}

const text = (r: unknown) => ((r as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? "").join("\n");
const signInUrl = (stderr: string) => /sign in to \S+ in your browser: (\S+)/.exec(stderr)?.[1];

it("signs in through the browser, keeps sessions on the remote and runs file-system tools locally", async () => {
  const { client, stderr } = await spawnRemote();
  const first = await until("the sign-in link", () => signInUrl(stderr()));
  // What the remote's challenge names (review 203: with bmad:read alone, no SDK client ever wrote).
  expect(new URL(first).searchParams.get("scope")).toBe("bmad:read bmad:write offline_access");
  // The user unticks bmad:write: the token reads only, and the first writing call asks for bmad:write again.
  await approveInBrowser(first, ["bmad:read"]);
  await until("the sign-in", () => (stderr().includes(`signed in to ${remote}`) ? true : undefined));

  const links = () => [...stderr().matchAll(/sign in to \S+ in your browser: (\S+)/g)].map((m) => m[1]!);
  expect(text(await client.callTool({ name: "bmad-task", arguments: { action: "start", objective: "Remote plan" } }))).toMatch(/needs you to sign in again/);
  await approveInBrowser(await until("the write sign-in link", () => links()[1]));
  await until("the second sign-in", () => (stderr().split(`signed in to ${remote}`).length > 2 ? true : undefined));
  const started = await client.callTool({ name: "bmad-task", arguments: { action: "start", objective: "Remote plan" } });
  expect(started.isError, text(started)).toBeFalsy();
  expect(existsSync(join(project, ".bmad-task"))).toBe(false); // not a local session
  const listed = await client.callTool({ name: "list_sessions", arguments: {} });
  expect(text(listed)).toContain("remote-plan");

  // The tools that run here are listed, beside the remote's (review 148: the completion contract was never listed).
  const tools = (await client.listTools()).tools;
  const names = tools.map((t) => t.name);
  expect(names).toContain("run_completion_contract");
  // Workspaces are the remote's, listed as it serves them: create, share and the rest work here (review 399).
  expect((tools.find((t) => t.name === "bmad-project")?.inputSchema.properties?.action as { enum?: string[] }).enum).toContain("share");
  expect(names).toContain("bmad-task");
  expect(new Set(names).size).toBe(names.length);
  const contract = await client.callTool({ name: "run_completion_contract", arguments: {} });
  expect(contract.structuredContent).toMatchObject({ status: "PASS", output_bytes: Buffer.byteLength("local contract ran\n") });
  expect(toolText(contract)).toMatch(/^PASS in \d+ ms\nlocal contract ran\n$/);
  // bmad-files and bmad-run work on this folder, as the docs say (a review found them sent to the remote).
  const written = await client.callTool({ name: "bmad-files", arguments: { action: "write", path: "docs/local.md", content: "# Local\n\nA few words.\n" } });
  expect(written.isError, text(written)).toBeFalsy();
  expect(readFileSync(join(project, "docs/local.md"), "utf8")).toBe("# Local\n\nA few words.\n");
  const counted = await client.callTool({ name: "bmad-run", arguments: { command: `uv run bmad://core/bmad-review/scripts/word_metrics.py ${join(project, "docs/local.md")}` } });
  expect(text(counted)).toMatch(/"total_words": 5\b/);
  // One naming a workspace goes to the remote, where it lives (review 189: the remote's render for it said to run its
  // lines with its name, and this folder refused them).
  expect(text(await client.callTool({ name: "bmad-project", arguments: { action: "create", name: "linked-plan" } }))).toMatch(/^Created project/);
  const there = await client.callTool({ name: "bmad-files", arguments: { action: "write", project: "linked-plan", path: "docs/remote.md", content: "# Remote\n" } });
  expect(there.isError, text(there)).toBeFalsy();
  expect(existsSync(join(project, "docs/remote.md"))).toBe(false);
  expect(text(await client.callTool({ name: "bmad-files", arguments: { action: "read", project: "linked-plan", path: "docs/remote.md" } }))).toMatch(/\n# Remote\n$/);
  // Nor a secret from this folder, which push would hold back (review 201: a steered model read a local note's keys and
  // wrote them into a shared workspace, where a member read them).
  const secret = await client.callTool({ name: "bmad-files", arguments: { action: "write", project: "linked-plan", path: "docs/notes.md", content: "# Notes\nDATABASE_URL=postgres://app:hunter2@db.internal/prod\n" } });
  expect([secret.isError, text(secret)]).toEqual([true, "docs/notes.md holds what looks like a secret (line 2, \"DATABASE…\") (a known token, a private key, a URL with a password, a password given), which bmad-mcp sends to no remote; not sent. Take it out of the file."]);
  expect(text(await client.callTool({ name: "bmad-files", arguments: { action: "read", project: "linked-plan", path: "docs/notes.md" } }))).not.toContain("hunter2");
  // An append carries its secret by its shape; a config's part, which parses alone or not, goes (the remote hides a
  // config's secret-looking keys from its members).
  const appended = await client.callTool({ name: "bmad-files", arguments: { action: "append", project: "linked-plan", path: "docs/remote.md", content: "token: ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\n" } });
  expect([appended.isError, text(appended)]).toEqual([true, expect.stringMatching(/^docs\/remote\.md holds what looks like a secret \(line 1, "ghp_0123…"\)/)]);
  expect((await client.callTool({ name: "bmad-files", arguments: { action: "append", project: "linked-plan", path: "_bmad/custom/bmad-prd.toml", content: "  - a list item of a YAML config\n" } })).isError).toBeFalsy();

  const file = join(config, "bmad-mcp", "credentials.json");
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(JSON.parse(readFileSync(file, "utf8"))[remote].tokens.access_token).toBeTruthy();
}, 60_000);

it("asks for write access when a writing tool needs it, and has it on the next call once the user signs in", async () => {
  const { client, stderr } = await spawnRemote(join(tmp.dir, "read-only-config"));
  await approveInBrowser(await until("the sign-in link", () => signInUrl(stderr())), ["bmad:read"]);
  await until("the sign-in", () => (stderr().includes(`signed in to ${remote}`) ? true : undefined));
  const links = () => [...stderr().matchAll(/sign in to \S+ in your browser: (\S+)/g)].map((m) => m[1]!);
  expect(links()).toHaveLength(1);

  const refused = await client.callTool({ name: "bmad-task", arguments: { action: "start", objective: "Needs write" } });
  expect(refused.isError).toBe(true);
  expect(text(refused)).toMatch(/needs you to sign in again .*open the link on stderr, then retry/);
  const stepUp = await until("the write sign-in link", () => links()[1]);
  expect(new URL(stepUp).searchParams.get("scope")).toContain("bmad:write");
  // Retried before the user approves (review 209): no second page, whose verifier replaced the first's, and the
  // user's Allow on the first then failed while both tabs said "Signed in".
  expect(text(await client.callTool({ name: "bmad-task", arguments: { action: "start", objective: "Needs write" } }))).toMatch(/sign in/);
  await until("the reminder", () => (stderr().includes(`still waiting for the sign-in to ${remote} in your browser, at ${stepUp}`) ? true : undefined));
  expect(links()).toHaveLength(2);
  await approveInBrowser(stepUp);
  await until("the second sign-in", () => (stderr().split(`signed in to ${remote}`).length > 2 ? true : undefined)).catch((e) => { console.log(stderr()); throw e; });

  const started = await client.callTool({ name: "bmad-task", arguments: { action: "start", objective: "Needs write" } });
  expect(started.isError).toBeFalsy();
  expect(text(await client.callTool({ name: "list_sessions", arguments: {} }))).toContain("needs-write");
}, 60_000);

it("says a sign-in the user refused was refused, not that the server is unreachable (review 209)", async () => {
  const { client, stderr } = await spawnRemote(join(tmp.dir, "denied-config"));
  const link = await until("the sign-in link", () => signInUrl(stderr()));
  const consent = await fetch(link, { redirect: "manual" });
  const cookie = consent.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const handle = /name="handle" value="([^"]+)"/.exec(await consent.text())![1]!;
  // A call waiting for the sign-in when the user clicks Deny.
  const waiting = client.callTool({ name: "bmad-resources", arguments: { operation: "list", pattern: "core/**" } });
  const denied = await fetch(new URL("/authorize", link), { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: new URL(link).origin }, body: new URLSearchParams({ handle, decision: "deny" }) });
  expect(await (await fetch(denied.headers.get("location")!)).text()).toContain("Sign-in was refused, so bmad-mcp is not signed in.");
  expect(text(await waiting)).toMatch(/^Note: the sign-in to \S+ was refused in the browser; the next call asks again; this answer comes from the local bundle\./);
  // The terminal says so too, as the tab says it does (review 210: it never did).
  expect(stderr()).toContain(`the sign-in to ${remote} was refused in the browser; the next call asks again\n`);
}, 30_000);

it("gives each sign-in its own state, refuses an older tab's answer, and says signed in only once it is (review 210)", async () => {
  const { client, stderr } = await spawnRemote(join(tmp.dir, "stale-tab-config"), { BMAD_MCP_SIGN_IN_SECONDS: "6" });
  const links = () => [...stderr().matchAll(/sign in to \S+ in your browser: (\S+)/g)].map((m) => m[1]!);
  const stateOf = (link: string) => new URL(link).searchParams.get("state");
  const first = await until("the sign-in link", () => links()[0]);
  await until("the end of the wait", () => (stderr().includes("no sign-in came back from the browser within 6 seconds") ? true : undefined));
  // The next call opens a page of its own, with a state of its own.
  const calls = [client.callTool({ name: "bmad-resources", arguments: { operation: "list", pattern: "core/**" } })];
  const second = await until("a second sign-in link", () => links()[1]);
  expect(stateOf(second)).not.toBe(stateOf(first));
  // A callback whose code cannot be traded: the tab says the sign-in failed, not "Signed in", and the terminal says why.
  const forged = new URL(new URL(second).searchParams.get("redirect_uri")!);
  forged.searchParams.set("code", "not-a-code");
  forged.searchParams.set("state", stateOf(second)!);
  const failedPage = await (await fetch(forged)).text();
  expect(failedPage, `${failedPage}\n${stderr()}`).toContain("The sign-in failed: the terminal says why.");
  await until("the reason on the terminal", () => (stderr().includes(`the sign-in to ${remote} failed as the browser's answer was traded for a token`) ? true : undefined));
  calls.push(client.callTool({ name: "bmad-resources", arguments: { operation: "list", pattern: "core/**" } }));
  const third = await until("a third sign-in link", () => links()[2]);
  // The user clicks Allow in the first tab, left from the sign-in that timed out: refused, pointing at the newest tab.
  const consent = await fetch(first, { redirect: "manual" });
  const cookie = consent.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const handle = /name="handle" value="([^"]+)"/.exec(await consent.text())![1]!;
  const approved = await fetch(new URL("/authorize", first), { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: new URL(first).origin }, body: new URLSearchParams([["handle", handle], ["decision", "approve"], ["scope", "bmad:read"], ["scope", "bmad:write"]]) });
  const stale = await fetch(approved.headers.get("location")!);
  expect([stale.status, await stale.text()]).toEqual([400, expect.stringContaining("it comes from an older sign-in tab")]);
  // The newest tab signs in.
  await approveInBrowser(third);
  await until("the sign-in", () => (stderr().includes(`signed in to ${remote}`) ? true : undefined));
  expect(links()).toHaveLength(3);
  await Promise.all(calls);
}, 60_000);

it("reuses the saved sign-in next time", async () => {
  const { client, stderr } = await (restarted ??= spawnRemote());
  expect(text(await client.callTool({ name: "list_sessions", arguments: {} }))).toContain("remote-plan");
  expect(signInUrl(stderr())).toBeUndefined();
}, 30_000);

it("renders a skill for this folder here, with its files, config and clock, and a workspace's on the remote (review 205)", async () => {
  const { client } = await (restarted ??= spawnRemote());
  const workspace = `zoned-${Date.now().toString(36)}`;
  const created = await client.callTool({ name: "bmad-project", arguments: { action: "create", name: workspace, time_zone: "America/Los_Angeles", answers: { core: { user_name: "Alice" } } } });
  expect(text(created)).toMatch(/^Created project/);
  const block = async (name: string, args: Record<string, unknown>) => {
    const answer = text(await client.callTool({ name, arguments: args }));
    return /## Running this skill here\n[\s\S]*?\n\n/.exec(answer)?.[0] ?? answer;
  };
  // No "project", or the folder's name: the folder, as without --remote (the remote offered its workspaces, and
  // knew no "project"), with the time the folder's scripts write.
  for (const [name, args] of [["bmad", { command: "*architecture" }], ["bmad", { command: "*architecture", project: "project" }], ["bmad-workflow", { workflow: "architecture" }]] as const) {
    const mine = await block(name, args);
    expect(mine).toContain(`- The project root is \`${project}\``);
    expect(mine).toContain('{user_name} is "Bob"');
    expect(mine).toContain("- This project already has `_bmad-output/planning-artifacts/prds/prd-local/prd.md` (status: \"draft\").");
    expect(mine).toMatch(/\{date\} is today's date \(\d{4}-\d\d-\d\d in this machine's time, /);
  }
  // The user's slash command (a prompt) by the same rule: the folder's render here.
  const prompt = async (args?: Record<string, string>) => {
    const message = (await client.getPrompt({ name: "bmad-architecture", ...(args ? { arguments: args } : {}) })).messages[0]!.content as { text: string };
    return /## Running this skill here\n[\s\S]*?\n\n/.exec(message.text)?.[0] ?? message.text;
  };
  expect(await prompt()).toContain(`- The project root is \`${project}\``);
  expect(await prompt()).toContain("prd-local/prd.md");
  expect(await prompt({ project: workspace })).toContain(`- The project root is \`bmad://projects/${workspace}\``);
  // A workspace's name: the remote's render, its files, its config and its time zone.
  const theirs = await block("bmad", { command: "*architecture", project: workspace });
  expect(theirs).toContain(`- The project root is \`bmad://projects/${workspace}\``);
  expect(theirs).toContain('{user_name} is "Alice"');
  expect(theirs).not.toContain("prd-local");
  // The skills it hands on to as well: with no "project", they would render for this folder.
  expect(theirs).toContain(`call bmad with {"command": "*NAME", "project": "${workspace}"} (an agent: "NAME").`);
  expect(theirs).toMatch(/\{date\} is today's date \(\d{4}-\d\d-\d\d in America\/Los_Angeles, /);
  // A workspace of the folder's own name: here the name means the folder, said (review 206).
  const same = text(await client.callTool({ name: "bmad-project", arguments: { action: "create", name: "project" } }));
  expect(same).toMatch(/^Created project/);
  expect(same).toContain('Note: through this bridge, "project" names this folder: bmad-files, bmad-run and bmad with "project": "project" work on the folder here.');
  expect(text(created)).not.toContain("Note: through this bridge");
}, 30_000);

it("passes the skills extension's methods through to the remote", async () => {
  const { client } = await (restarted ??= spawnRemote());
  expect(client.getServerCapabilities()).toMatchObject({ extensions: { "io.modelcontextprotocol/skills": { directoryRead: true } } });
  const got = await client.request({ method: "skills/get", params: { uri: "skill://bmad-prd/SKILL.md" } }, z.looseObject({ skill: z.looseObject({ uri: z.string() }) }));
  expect(got.skill.uri).toBe("skill://bmad-prd/SKILL.md");
  const unknown = await client.request({ method: "skills/get", params: { uri: "skill://bmad-prdd/SKILL.md" } }, z.looseObject({})).catch((e: unknown) => e);
  expect((unknown as { code: number; data: { suggestions: string[] } }).data.suggestions[0]).toBe("skill://bmad-prd/SKILL.md");
}, 30_000);

it("answers a badly shaped request as invalid params naming the field, as the remote does (review 131)", async () => {
  const { client } = await (restarted ??= spawnRemote());
  const refused = await client.request({ method: "resources/read", params: { uri: 5 as unknown as string } }, z.looseObject({})).catch((e: unknown) => e);
  expect(refused).toMatchObject({ code: -32602, message: expect.stringContaining('Invalid params for resources/read: "uri": Invalid input: expected string, received number.') });
}, 30_000);

it("asks to sign in again when the saved sign-in no longer works, serving the local bundle meanwhile", async () => {
  const file = join(config, "bmad-mcp", "credentials.json");
  const saved = JSON.parse(readFileSync(file, "utf8"));
  saved[remote].tokens = { ...saved[remote].tokens, access_token: "expired", refresh_token: "revoked" };
  writeFileSync(file, JSON.stringify(saved), { mode: 0o600 });
  const { client, stderr } = await (renewed ??= spawnRemote());
  const answer = await client.callTool({ name: "bmad-resources", arguments: { operation: "read", uri: "bmad://bmm/bmad-agent-pm/SKILL.md" } });
  expect(text(answer)).toMatch(/^Note: waiting for you to sign in to .*; this answer comes from the local bundle\./);
  expect(text(answer)).toContain("bmad-agent-pm");
  await approveInBrowser(await until("a new sign-in link", () => signInUrl(stderr())));
  await until("the new sign-in", () => (stderr().includes(`signed in to ${remote}`) ? true : undefined));
}, 30_000);

it("takes an access token from BMAD_MCP_TOKEN instead of the browser, saves nothing, and says plainly when it is refused", async () => {
  const headless = join(tmp.dir, "headless-config");
  const { access_token } = await signIn(fetch, worker.url.origin, { scope: "bmad:read bmad:write" });
  const { client, stderr } = await spawnRemote(headless, { BMAD_MCP_TOKEN: access_token });
  const started = await client.callTool({ name: "bmad-task", arguments: { action: "start", objective: "Headless plan" } });
  expect(started.isError, text(started)).toBeFalsy();
  expect(text(await client.callTool({ name: "list_sessions", arguments: {} }))).toContain("headless-plan");
  expect(signInUrl(stderr())).toBeUndefined();
  expect(existsSync(join(headless, "bmad-mcp", "credentials.json"))).toBe(false);
  const refused = await spawnRemote(headless, { BMAD_MCP_TOKEN: "not-a-token" });
  const state = await refused.client.callTool({ name: "bmad-task", arguments: { action: "status", session_id: "headless-plan" } });
  expect(state.isError).toBe(true);
  expect(text(state)).toMatch(/keeps its state on the remote server, and \S+ cannot be used: the server refused the token in BMAD_MCP_TOKEN/);
}, 30_000);

// Review 423: with a token, a remote that took connections and never answered held tools/list for 60 s, and the next
// call as long again (the OAuth link answered from the local bundle in seconds).
it("answers from the local bundle within seconds with a token too, when the remote takes connections and never answers", async () => {
  const silent = await silentRemote();
  const { client, close } = await connectBridge(bridge, project, { args: ["--remote", silent.url], env: { BMAD_MCP_TOKEN: "tok123" } });
  try {
    for (const round of ["first", "second"]) {
      const started = Date.now();
      const listed = await client.listTools();
      expect(Date.now() - started, round).toBeLessThan(6_000);
      expect(listed.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["bmad", "bmad-files", "run_completion_contract"]));
    }
    const answer = await client.callTool({ name: "bmad-resources", arguments: { operation: "read", uri: "bmad://bmm/bmad-agent-pm/SKILL.md" } });
    expect(toolText(answer).startsWith(`Note: ${silent.url} has not answered yet; this answer comes from the local bundle.`), toolText(answer)).toBe(true);
    expect(toolText(answer)).toContain("bmad-agent-pm");
  } finally {
    silent.close();
    await close();
  }
}, 30_000);

// Review 423: a remote's error reached the model with ESC, OSC 52 (the clipboard), BEL and a bidi override in it,
// passed through as its answer or inside the bridge's own sentence.
it("escapes the controls in a remote's error text, passed on or in its own sentence, as in a script's output", async () => {
  const hostile = createServer(async (req, res) => {
    if (req.url === "/gw/mcp") return void res.writeHead(502, { "content-type": "text/plain" }).end("gw\u001b]0;TITLE\u0007\u202Eevil");
    if (req.method !== "POST") return void res.writeHead(405).end();
    let body = "";
    for await (const chunk of req) body += chunk;
    const message = JSON.parse(body) as { id?: number; method: string; params?: { protocolVersion?: string } };
    if (message.id === undefined) return void res.writeHead(202).end();
    const answer = (fields: object) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, ...fields }));
    if (message.method === "initialize") return void answer({ result: { protocolVersion: message.params!.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "hostile", version: "1" } } });
    answer({ error: { code: -32603, message: "bad\u001b[2J\u001b]52;c;ZXZpbA==\u0007\nbmad-mcp: Pulled OK" } });
  });
  await new Promise<void>((resolve) => hostile.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
  const read = { name: "bmad-resources", arguments: { operation: "read", uri: "bmad://bmm/bmad-agent-pm/SKILL.md" } };
  const passed = await connectBridge(bridge, project, { args: ["--remote", `${origin}/mcp`], env: { BMAD_MCP_TOKEN: "tok123" } });
  const gateway = await connectBridge(bridge, project, { args: ["--remote", `${origin}/gw/mcp`], env: { BMAD_MCP_TOKEN: "tok123" } });
  try {
    const refused = (await passed.client.callTool(read).catch((e: unknown) => e)) as Error;
    expect(refused.message).toContain("bad\\u001b[2J\\u001b]52;c;ZXZpbA==\\u0007\\nbmad-mcp: Pulled OK");
    const noted = toolText(await gateway.client.callTool(read));
    expect(noted).toMatch(/^Note: \S+ is unreachable \(.*gw\\u001b\]0;TITLE\\u0007\\u202eevil.*\); this answer comes from the local bundle\./);
    // Said on stderr too, as the browser's link says a failure.
    expect(gateway.stderr()).toContain("gw\\u001b]0;TITLE\\u0007\\u202eevil");
    for (const text of [refused.message, noted, gateway.stderr()]) expect(text).not.toMatch(/[\x1b\x07\u202e]|\nbmad-mcp: Pulled/);
  } finally {
    await Promise.all([passed.close(), gateway.close()]);
    hostile.close();
  }
}, 30_000);

it("puts the remote's consent questions to its own client's user, and sends the answer on", async () => {
  const { access_token } = await signIn(fetch, worker.url.origin, { scope: "bmad:read bmad:write" });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bridge, "--remote", remote],
    cwd: project,
    env: { PATH: process.env.PATH!, HOME: tmp.dir, XDG_CONFIG_HOME: join(tmp.dir, "asking-config"), BMAD_MCP_BROWSER: "none", BMAD_MCP_TOKEN: access_token },
    stderr: "pipe",
  });
  const asked: string[] = [];
  let says: { action: "accept" | "decline"; content?: Record<string, boolean> } = { action: "decline" };
  const client = new Client({ name: "asking-desktop", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return says;
  });
  await client.connect(transport);
  clients.push(client);
  const name = `relay-${Date.now().toString(36)}`;
  const call = async (args: Record<string, unknown>) => text(await client.callTool({ name: "bmad-project", arguments: args }));
  expect(await call({ action: "create", name })).toMatch(/^Created project/);
  expect(await call({ action: "share", name, with: "pat@example.com", access: "read" })).toBe(`The user did not agree to share "${name}" with whoever signs in with the email pat@example.com: nothing was shared.`);
  says = { action: "accept", content: { confirm: true } };
  expect(await call({ action: "share", name, with: "pat@example.com", access: "read" })).toMatch(/^Offered pat@example\.com read access/);
  expect(asked).toEqual(Array(2).fill(`Share your project "${name}" with whoever signs in with the email pat@example.com? They get read access to all its files, now and later.`));
  expect(await call({ action: "config", name })).toContain("Shared with: pat@example.com (read, not accepted yet).");

  // A 2026-07-28 client declares what it can do on each request, and never initializes (review 40: it was never asked).
  const modern = new ModernClient({ name: "asking-2026", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const modernAsked: string[] = [];
  modern.setRequestHandler("elicitation/create", async (request) => {
    modernAsked.push(request.params.message);
    return { action: "decline" };
  });
  await modern.connect(new ModernStdio({
    command: process.execPath,
    args: [bridge, "--remote", remote],
    cwd: project,
    env: { PATH: process.env.PATH!, HOME: tmp.dir, XDG_CONFIG_HOME: join(tmp.dir, "asking-config"), BMAD_MCP_BROWSER: "none", BMAD_MCP_TOKEN: access_token },
    stderr: "pipe",
  }));
  const refused = await modern.callTool({ name: "bmad-project", arguments: { action: "share", name, with: "sam@example.com", access: "write" } });
  await modern.close();
  expect(text(refused)).toBe(`The user did not agree to share "${name}" with whoever signs in with the email sam@example.com: nothing was shared.`);
  expect(modernAsked).toHaveLength(1);
  expect(await call({ action: "config", name })).not.toContain("sam@example.com");
}, 30_000);

it("opens the browser with no program from the project, found on PATH's absolute entries, from outside it (review 327)", async () => {
  const marker = join(tmp.dir, "planted-opener-ran");
  const planted = `#!/bin/sh\necho "$0" > "${marker}"\n`;
  mkdirSync(join(project, "bin327"), { recursive: true });
  for (const path of ["xdg-open", "bin327/xdg-open"]) writeFileSync(join(project, path), planted, { mode: 0o755 });
  const opener = join(tmp.dir, "opener-bin");
  mkdirSync(opener, { recursive: true });
  writeFileSync(join(opener, "xdg-open"), `#!/bin/sh\nprintf '%s|%s|%s' "$PWD" "$PATH" "$1" > "${join(opener, "ran")}"\n`, { mode: 0o755 });
  // An empty PATH entry (a trailing ':') is the working folder, the project: its committed ./xdg-open ran.
  const fromCwd = await spawnRemote(join(tmp.dir, "opener-config-1"), { PATH: `:${process.env.PATH}`, BMAD_MCP_BROWSER: "" });
  await until("the sign-in link", () => signInUrl(fromCwd.stderr()));
  // A folder of the project on PATH: said, not run, though the bridge started elsewhere (review 338: the folder it
  // started in was judged, not the project). A project named by --project holds a BMAD tree.
  const named = join(tmp.dir, "named338");
  mkdirSync(join(named, "bin327"), { recursive: true });
  mkdirSync(join(named, "_bmad/_config"), { recursive: true });
  writeFileSync(join(named, "_bmad/_config/skill-manifest.csv"), "canonicalId,name,description,module,path\n");
  writeFileSync(join(named, "bin327/xdg-open"), planted, { mode: 0o755 });
  const inside = await spawnRemote(join(tmp.dir, "opener-config-2"), { PATH: `${join(named, "bin327")}:${opener}:${process.env.PATH}`, BMAD_MCP_BROWSER: "xdg-open" }, named);
  await until("the refusal", () => (inside.stderr().includes("no browser opened: bin327/xdg-open is inside the project") ? true : undefined));
  // One outside runs with the link, from outside the project, with PATH's absolute entries alone; started in `/`, where
  // every program was "inside the project" (review 338).
  const outside = await spawnRemote(join(tmp.dir, "opener-config-3"), { PATH: `${opener}:${process.env.PATH}`, BMAD_MCP_BROWSER: "" }, named);
  const link = await until("the sign-in link", () => signInUrl(outside.stderr()));
  const [cwd, path, given] = (await until("the opener", () => (existsSync(join(opener, "ran")) ? readFileSync(join(opener, "ran"), "utf8") : undefined))).split("|");
  expect(given).toBe(link);
  expect(path).toBe(`${opener}:${process.env.PATH}`);
  expect(cwd).not.toContain(tmp.dir);
  expect(existsSync(marker)).toBe(false);
}, 30_000);

it("falls back to the local bundle when the remote is down, and says so", async () => {
  const { client } = await (renewed ??= spawnRemote());
  expect((await client.callTool({ name: "list_sessions", arguments: {} })).isError).toBeFalsy();
  // afterAll's dispose waits on this one: no second workerd started only to be stopped.
  const stopped = worker.dispose();
  worker = { ...worker, dispose: () => stopped };
  await stopped;
  const answer = await client.callTool({ name: "bmad-resources", arguments: { operation: "read", uri: "bmad://bmm/bmad-agent-architect/SKILL.md" } });
  expect(text(answer)).toMatch(/^Note: .* is unreachable .*; this answer comes from the local bundle\./);
  expect(text(answer)).toContain("bmad-agent-architect");
  // A prompt for this folder is rendered here, the remote up or down.
  const prompt = await client.getPrompt({ name: "bmad-architect" });
  expect((prompt.messages[0]!.content as { text: string }).text).toMatch(/^# BMAD agent: bmm\/architect\b/);
  // One for a workspace cannot be: said, with the way that works here.
  const workspace = await client.getPrompt({ name: "bmad-architect", arguments: { project: "elsewhere" } }).catch((e: unknown) => e);
  expect((workspace as Error).message).toMatch(/The prompt renders for workspace "elsewhere" on the remote server, and .* is unreachable .*\. Without "project" it renders for this folder\./);
  const state = await client.callTool({ name: "bmad-task", arguments: { action: "status", session_id: "remote-plan" } });
  expect(state.isError).toBe(true);
  expect(text(state)).toMatch(/keeps its state on the remote server, and .* is unreachable/);
}, 60_000);

