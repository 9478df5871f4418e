// Faults, a fixed sample of what npm run faults does at length: workerd killed (SIGKILL) at 20 random points while
// tools change files, publish a rendered skill, create, delete and share projects, then restarted from the same
// state; and the bundle pointer flipped while clients read, with a blob taken away and put back.
import { cpSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, inject, it } from "vitest";
import { bundleFaults, BUNDLE_DIR } from "../../scripts/faults-bundle.js";
import { workerFaults } from "../../scripts/faults-worker.js";
import { User } from "../../scripts/mcp-user.js";
import { localWorker, tempDir } from "./helpers.js";

const tmp = tempDir("faults");
afterAll(() => tmp.cleanup());

it("keeps every acknowledged change, and leaves none half done, across 20 workerd kills (seed 2)", async () => {
  const state = join(tmp.dir, "state");
  cpSync(inject("workerState"), state, { recursive: true });
  const r = await workerFaults({ kills: 20, seed: 2, scriptPath: inject("workerScript"), state });
  expect(r.tally.broken).toEqual([]);
  expect(r.errors).toEqual([]);
  expect([...r.tally.checks.keys()].sort()).toEqual(["acknowledged present", "history consecutive", "index agrees with projects", "memlogs read by memlog.py", "unacknowledged absent or whole"]);
  // The sample reaches what it is about: changes the kill cut (and some it did not).
  expect(r.lost).toBeGreaterThan(10);
  expect(r.acknowledged + r.lost).toBeGreaterThan(30);
}, 180_000);

it("serves the old bundle or the new one whole while its pointer flips, and a clear error while a blob is gone", async () => {
  const worker = await localWorker();
  try {
    const mcp = new URL("/mcp", worker.url);
    const users = await Promise.all([0, 1, 2, 3].map((i) => User.signIn(i, `reader-${i}@example.com`, worker.url.origin, mcp)));
    const r = await bundleFaults({ worker, users, bundleDir: BUNDLE_DIR, seconds: 20 });
    expect(r.tally.broken).toEqual([]);
    expect(r.seen.a).toBeGreaterThan(0);
    expect(r.seen.b).toBeGreaterThan(0);
  } finally {
    await worker.dispose();
  }
}, 120_000);
