import { defineConfig } from "vitest/config";
import { useMemoryTmpdir } from "./test/memory-tmpdir.ts";

useMemoryTmpdir();

// Node-side tests (bundle scripts, bridge, npm run dev, the Worker through Miniflare). Files run side by side:
// each has its own temp dirs and ports; the bridge and the Worker are built once, in global-setup.ts.
// Most of their time is spent waiting on processes they start (bridges, installers, python3, workerd), so
// more files run at once than there are cores (vitest's default is one fewer than the cores: 1 on 2 cores).
export default defineConfig({
  test: {
    name: "node",
    maxWorkers: 4,
    isolate: false,
    include: ["test/node/**/*.test.ts"],
    globalSetup: ["test/node/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
