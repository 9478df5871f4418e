import { defineConfig } from "vitest/config";

// Node-side tests (bundle scripts, bridge). Worker tests have their own config.
export default defineConfig({
  test: {
    include: ["test/node/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
