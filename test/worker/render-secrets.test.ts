/// <reference types="@cloudflare/vitest-plugin/types" />
// A rendered skill fills in config values: never a secret-looking one, as every other path that serves config
// leaves them out (config-secrets.test.ts). The bundle's module config may carry the keys its tree had
// (`{openai_api_key} is sk-…` was printed in the runtime block), and so may the workspace's own config files.
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { TOOL } from "../../src/core/surface/names.js";
import { seedBundle } from "./seed.js";
import { bundle } from "./setup.js";
import { rawCall, signInAs, unique, type Person } from "./workspace-users.js";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const SECRETS = ["sk-live-remote-1", "tok-remote-2", "shh-remote-3", "pw-remote-4", "ghp-remote-5"];
let ada: Person;
let project: string;
let moves = 0;

/** Test files share one isolate, which keeps the bundle pointer it read for a few seconds: moves the clock past
 *  that and makes one request, so the isolate serves the bundle seeded last from now on. */
async function servePointer(): Promise<void> {
  vi.setSystemTime(Date.now() + (moves += 1) * 60_000);
  await ada.client.listTools();
  vi.useRealTimers();
}

beforeAll(async () => {
  const config = structuredClone(bundle.manifest.config) as Record<string, Record<string, unknown>>;
  config.bmm = { ...config.bmm, api_key: SECRETS[0], token: SECRETS[1], client_secret: SECRETS[2], password: SECRETS[3] };
  await seedBundle(env, { manifest: { ...bundle.manifest, id: `${bundle.manifest.id}-with-secrets`, config }, blobs: bundle.blobs });
  ada = await signInAs(`${unique("ada")}@example.com`);
  await servePointer();
  project = unique("secrets");
  expect((await ada.project({ action: "create", name: project })).isError).toBe(false);
  const toml = (await ada.files({ action: "read", project, path: "_bmad/config.toml" })).text;
  const written = await ada.files({ action: "write", project, path: "_bmad/config.toml", content: `${toml.slice(toml.indexOf("\n") + 1)}\n[modules.bmm]\ngithub_token = "${SECRETS[4]}"\n` });
  expect(written.isError, written.text).toBe(false);
});
afterAll(async () => {
  await seedBundle(env, bundle);
  await servePointer();
});

it("shows a workspace's config file in the document view without its secrets, now and at every version", async () => {
  const doc = async (args: Record<string, unknown>) => (await (await rawCall(ada.token, "tools/call", { name: TOOL.bmadDoc, arguments: { project, path: "_bmad/config.toml", ...args } }, "?toolsets=default,views")).text());
  const now = await doc({});
  expect(now).toContain("versions");
  for (const body of [now, await doc({ version: 2 })]) for (const secret of SECRETS) expect(body).not.toContain(secret);
});

it("renders skills, prompts and the runtime block for a workspace without a secret config value", async () => {
  const texts = [(await ada.call(TOOL.bmad, { command: "*prd", project })).text, (await ada.call(TOOL.bmadWorkflow, { workflow: "prd", project })).text];
  const { prompts } = await ada.client.listPrompts();
  for (const p of prompts) texts.push(JSON.stringify(await ada.client.getPrompt({ name: p.name, arguments: { project } })));
  expect(texts[0]).toContain("## Running this skill here");
  for (const text of texts) for (const secret of SECRETS) expect(text).not.toContain(secret);
  // Without a project, the bundle's config is rendered too.
  for (const secret of SECRETS) expect((await ada.call(TOOL.bmad, { command: "*prd" })).text).not.toContain(secret);
});
