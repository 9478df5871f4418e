/// <reference types="@cloudflare/vitest-plugin/types" />
// Every tool of the remote (all toolsets), called by a signed-in user with arguments generated from its inputSchema,
// valid and hostile, from a fixed seed: no crash, nothing from another user's project or session, Object.prototype
// unchanged (the Worker runs in this isolate), and the Worker answers the next call.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { withBearer } from "../../scripts/oauth-client.js";
import { TOOL } from "../../src/core/surface/names.js";
import { fuzzTools, prototypeWatch, type FuzzDoor } from "../support/fuzz-tools.js";
import { ORIGIN, workerFetch } from "./client.js";
import { seed } from "./setup.js";
import { signInAs, unique, type Person } from "./workspace-users.js";

// Room for a loaded machine: a test vitest times out leaves fast-check's loop calling tools until afterAll closes the
// client (review 146).
vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });

const RUNS = 400;
const SECRETS = ["SECRET-EVE-FILE-5a9c", "SECRET-EVE-SESSION-0e47"];
let ada: Person;
let door: FuzzDoor;
let client: Client | undefined;

beforeAll(async () => {
  await seed();
  const eve = await signInAs(`${unique("eve")}@example.com`);
  ada = await signInAs(`${unique("ada")}@example.com`);
  const secret = unique("eves");
  const mine = unique("adas");
  expect((await eve.project({ action: "create", name: secret })).isError).toBe(false);
  expect((await eve.files({ action: "write", project: secret, path: "docs/plan.md", content: SECRETS[0] })).isError).toBe(false);
  const session = await eve.call(TOOL.bmadTask, { action: "start", objective: SECRETS[1] });
  expect(session.isError, session.text).toBe(false);
  expect((await ada.project({ action: "create", name: mine })).isError).toBe(false);
  expect((await ada.files({ action: "write", project: mine, path: "docs/readme.md", content: "# Readme\n" })).isError).toBe(false);
  client = new Client({ name: "fuzz", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp?toolsets=all`), { fetch: withBearer(workerFetch, ada.token) }));
  const eveSession = String(session.structured.session_id ?? session.structured.current_state?.session_id ?? "");
  door = {
    client,
    secrets: SECRETS,
    extra: [secret, `${eve.email}/${secret}`, `bmad://projects/${secret}`, `bmad://projects/${secret}/docs/plan.md`, eve.email, eve.id, mine, `bmad://projects/${mine}`, "docs/readme.md", "docs/plan.md", ...(eveSession ? [eveSession] : [])],
    prototypeChanges: prototypeWatch(),
  };
});

// Closed here: a call the checks stopped waiting for (past CALL_MS) would run on into the next file's test, whose I/O
// it cannot use (a run of run-bounds.test.ts after this file was cancelled as hung, reading such a request's body).
afterAll(() => client?.close());

it("answers every tool's generated calls without a crash, a leak or a polluted prototype", async () => {
  const { tools } = await fuzzTools(door, { seed: 31, numRuns: RUNS });
  expect(tools.length).toBeGreaterThan(20);
});
