import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { useMemoryTmpdir } from "./test/memory-tmpdir.ts";

useMemoryTmpdir();

/** Files that hold a wall-clock budget: the budgets themselves, the completion contract's timeouts, the Worker's
 *  startup profile, a missing path's suggestions, a stale lock's takeover after a killed bridge, a costly document's
 *  view shown at once, another user's flood of connections turned away, hostile text parsed in linear time (a 2 s
 *  limit missed by 19 ms beside the other files). They run last, one at a time, so that the other files' load does not spend it. */
const TIMED = ["test/node/budgets.test.ts", "test/node/bridge-contract.test.ts", "test/node/deploy.test.ts", "test/node/missing-path.test.ts", "test/node/bridge-faults.test.ts", "test/node/views-bridge.test.ts", "test/node/bridge-http.test.ts", "test/node/hostile-text.test.ts"];

// Node-side tests (bundle scripts, bridge, npm run dev, the Worker through Miniflare). Files run side by side:
// each has its own temp dirs and ports; the bridge and the Worker are built once, in global-setup.ts.
// Most of their time is spent waiting on processes they start (bridges, installers, python3, workerd), so
// more files run at once than there are cores (vitest's default is one fewer than the cores: 1 on 2 cores).
export const nodeProject = {
  test: {
    name: "node",
    maxWorkers: 4,
    isolate: false,
    include: ["test/node/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...TIMED],
    globalSetup: ["test/node/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
} satisfies TestProjectInlineConfiguration;

/** The TIMED files, after every group before `groupOrder`. */
export function timedProject(groupOrder: number): TestProjectInlineConfiguration {
  return { test: { ...nodeProject.test, name: "node (timed)", include: TIMED, exclude: configDefaults.exclude, maxWorkers: 1, sequence: { groupOrder } } };
}

export default defineConfig({ test: { projects: [nodeProject, timedProject(1)] } });
