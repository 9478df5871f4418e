// A project bundle may carry the user's installed config with keys in it: every path that serves a
// config-shaped file removes them, as bmad://config/current always did.
import type { Client } from "@modelcontextprotocol/client";
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { TOOL } from "../../src/core/surface/names.js";
import { connect, text } from "./client.js";
import { seedBundle } from "./seed.js";
import { bundle } from "./setup.js";

// The last two given in sentences, as a comment may give one (review 158: a value's or a list item's was served).
const SECRETS = ["sk-live-123", "hunter2", "ghp_abc", "s3cr3t", "Winter2024!xQ", "MK11_deploykey_Zq9vR2"];
const FILES: Record<string, string> = {
  "bmm/config.yaml": `user_name: Ada\nopenai_api_key: ${SECRETS[0]}\ndatabase:\n  password: ${SECRETS[1]}\n`,
  "config.toml": `[core]\nuser_name = "Ada"\ngithub_token = "${SECRETS[2]}"\n`,
  "config.user.toml": `[core]\napi_key = "${SECRETS[3]}"\ncommunication_language = "French"\nnotes = "The staging DB password is ${SECRETS[4]}"\n`,
  "custom/bmad-prd.toml": `[workflow]\nactivation_steps_append = ["x", "deploy key is ${SECRETS[5]}"]\nauth_header = "${SECRETS[0]}"\n`,
};

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

let client: Client;

beforeAll(async () => {
  const blobs = { ...bundle.blobs };
  const files = [...bundle.manifest.files];
  for (const [path, body] of Object.entries(FILES)) {
    const sha = await sha256(body);
    blobs[sha] = body;
    files.push({ path, source: 0, sha256: sha, size: body.length, mime: path.endsWith(".toml") ? "application/toml" : "application/x-yaml" });
  }
  await seedBundle(env, { manifest: { ...bundle.manifest, id: `${bundle.manifest.id}-with-config`, files }, blobs });
  client = await connect();
  await servePointer();
});
// The next test file may run in this same isolate: it gets the bundle every other file has.
afterAll(async () => {
  await seedBundle(env, bundle);
  await servePointer();
});

let moves = 0;

/** Test files share one isolate, which keeps the bundle pointer it read for a few seconds: moves the clock past
 *  that and makes one request, so the isolate serves the bundle seeded last from now on. */
async function servePointer(): Promise<void> {
  vi.setSystemTime(Date.now() + (moves += 1) * 60_000);
  await client.listTools();
  vi.useRealTimers();
}

it.each(Object.keys(FILES))("serves %s without its secrets, through resources/read and bmad-resources", async (path) => {
  const read = await client.readResource({ uri: `bmad://${path}` });
  const served = (read.contents[0] as { text: string }).text;
  const viaTool = text(await client.callTool({ name: TOOL.bmadResources, arguments: { operation: "read", uri: `bmad://${path}` } }));
  for (const body of [served, viaTool]) {
    expect(body).toMatch(/^# secret-looking keys removed by bmad-mcp\n/);
    for (const secret of SECRETS) expect(body).not.toContain(secret);
  }
  expect(served).toMatch(/Ada|French|activation_steps_append/);
});
