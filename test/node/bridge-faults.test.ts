// Bridge faults, a fixed sample of what npm run faults does at length: bmad-mcp killed (SIGKILL) while it writes a
// file (once while a second bridge writes the same file), publishes a rendered skill, writes a memory, appends to a
// memlog through bmad-run and pulls a workspace, some of them while it holds a file's lock. Every file is then the
// old one or a new one whole, every acknowledged memlog entry is there once in a memlog BMAD's memlog.py reads, and a
// new bridge's next change succeeds within 4 s (a lock the dead process held is taken over at once). Timed: that
// bound is wall clock.
import { join } from "node:path";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { bridgeFaults, pullSource, type PullSource } from "../../scripts/faults-bridge.js";
import type { LocalWorker } from "../../scripts/local-worker.js";
import { User } from "../../scripts/mcp-user.js";
import { installedProjects, localWorker } from "./helpers.js";

const projects = installedProjects("bridge-faults");
let worker: LocalWorker;
let pull: PullSource;

beforeAll(async () => {
  worker = await localWorker();
  const mcp = new URL("/mcp", worker.url);
  pull = await pullSource(await User.signIn(0, "pull@example.com", worker.url.origin, mcp), mcp.href, "pulled");
}, 120_000);
afterAll(() => worker?.dispose());

it("leaves every file old or new, every acknowledged memlog entry once, and no lock stale, across kills during writes (one beside a second bridge), publishes, memories, memlog appends and pulls (seed 3)", async () => {
  const r = await bridgeFaults({ bridge: inject("bridge"), dir: projects.project("p"), seed: 3, kinds: ["memory", "write", "render", "write", "pull", "render", "two-write", "memlog"], pull, home: join(projects.dir, "home") });
  expect(r.tally.broken).toEqual([]);
  // The sample kills a holder of a lock at least once, so that taking a stale one over is what it proves (the first six
  // kills as they always were: a second bridge takes a dead holder's lock over before it can be counted).
  expect(r.staleLocks).toBeGreaterThan(0);
  expect(r.takeoverMs).toHaveLength(8);
  // The two new kinds were checked: a memlog read by memlog.py, and the second bridge's write beside the kill.
  expect(r.tally.checks.get("the second bridge's change succeeds beside the kill")?.checked).toBe(1);
}, 120_000);
