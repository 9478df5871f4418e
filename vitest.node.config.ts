import { defineConfig } from "vitest/config";

// Node-side tests (bundle scripts, bridge). Worker tests have their own config.
export default defineConfig({
  test: {
    include: ["test/node/**/*.test.ts"],
    testTimeout: 30_000,
    // The dev test rebuilds bmad-bundle/ that other files read: run files one at a time.
    fileParallelism: false,
    hookTimeout: 60_000,
  },
});
