import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: { bindings: { BMAD_TOOLSETS: "" } },
    }),
  ],
  test: {
    name: "workerd",
    maxWorkers: 4, // as vitest.node.config.ts: the two suites then share one pool in npm test
    include: ["test/worker/**/*.test.ts"],
    globalSetup: ["test/worker/global-setup.ts"],
  },
});
