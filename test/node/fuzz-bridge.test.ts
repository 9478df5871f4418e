// Every tool of the bridge (all toolsets), called over stdio with arguments generated from its inputSchema, valid
// and hostile, from a fixed seed: no crash, no content from outside the project, Object.prototype unchanged in the
// bridge's process, and the bridge answers the next call. BMAD_FUZZ_RUNS and BMAD_FUZZ_SEED set the number of calls and the seed (a long run).
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { fuzzTools, type FuzzDoor } from "../support/fuzz-tools.js";
import { connectBridge, ROOT, tempDir } from "./helpers";

const RUNS = Number(process.env.BMAD_FUZZ_RUNS ?? 600);
const SEED = Number(process.env.BMAD_FUZZ_SEED ?? 31);
const tmp = tempDir("fuzz-bridge");
const project = join(tmp.dir, "project");
const home = join(tmp.dir, "home");
const report = join(tmp.dir, "prototype.json");
const SECRETS = { outside: "SECRET-OUTSIDE-7f3a", git: "SECRET-GIT-91c2", state: "SECRET-STATE-4d1e", home: "SECRET-HOME-b6e0" };
let bridge: Awaited<ReturnType<typeof connectBridge>>;

beforeAll(async () => {
  mkdirSync(join(project, "docs"), { recursive: true });
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(join(project, ".bmad-mcp"), { recursive: true });
  mkdirSync(join(home, ".ssh"), { recursive: true });
  writeFileSync(join(project, "docs/readme.md"), "# Readme\n\nA project under fuzz.\n");
  writeFileSync(join(project, ".git/config"), `[core]\n# ${SECRETS.git}\n`);
  writeFileSync(join(project, ".bmad-mcp/notes"), SECRETS.state);
  writeFileSync(join(tmp.dir, "outside.md"), SECRETS.outside);
  writeFileSync(join(home, ".ssh/id_rsa"), SECRETS.home);
  symlinkSync(join(tmp.dir, "outside.md"), join(project, "docs/link.md"));
  symlinkSync(tmp.dir, join(project, "up"));
  bridge = await connectBridge(inject("bridge"), project, {
    args: ["--toolsets", "all"],
    home,
    env: { NODE_OPTIONS: `--import=${pathToFileURL(join(ROOT, "test/fixtures/fuzz/proto-watch.mjs")).href}`, BMAD_PROTO_REPORT: report },
  });
}, Math.max(60_000, RUNS * 20));
afterAll(async () => {
  await bridge?.close();
  tmp.cleanup();
});

it("answers every tool's generated calls without a crash, a leak or a polluted prototype", async () => {
  const door: FuzzDoor = {
    client: bridge.client,
    secrets: Object.values(SECRETS),
    extra: [join(tmp.dir, "outside.md"), tmp.dir, join(home, ".ssh/id_rsa"), "docs/link.md", "up/outside.md", "up", "docs/readme.md", "docs/**", ".bmad-mcp/notes", ".git/config"],
  };
  const { tools, outcomes } = await fuzzTools(door, { seed: SEED, numRuns: RUNS });
  if (process.env.BMAD_FUZZ_STATS) console.log([...outcomes].sort().map(([k, v]) => `${k}: ${v}`).join("\n"));
  expect(tools.length).toBeGreaterThan(20);
  // The bridge's own Object.prototype, as its process sees it (the preload answers SIGUSR2).
  process.kill(bridge.pid, "SIGUSR2");
  for (const end = Date.now() + 10_000; !existsSync(report) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
  expect(JSON.parse(readFileSync(report, "utf8"))).toEqual([]);
}, Math.max(60_000, RUNS * 20));
