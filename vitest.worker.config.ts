import { readFileSync } from "node:fs";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig, type Plugin } from "vitest/config";
import { useMemoryTmpdir } from "./test/memory-tmpdir.ts";

useMemoryTmpdir();

/** workerd cannot load node_modules, so vite transforms every dependency a test imports. Some packages ship source
 *  maps that name sources they do not ship (the 1.x SDK's point at its src/*.ts), and vite warns once per file
 *  when it loads such a map. Dependencies are loaded here as plain code, their maps left unread: a stack trace
 *  through one names its dist/ file, and vite's warnings about our own files stay. */
const dependenciesWithoutSourceMaps: Plugin = {
  name: "dependencies-without-source-maps",
  load(id) {
    const file = id.split("?")[0]!;
    if (!file.includes("/node_modules/") || !/\.[cm]?js$/.test(file)) return null;
    return readFileSync(file, "utf8").replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n");
  },
};

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: { bindings: { BMAD_TOOLSETS: "" } },
    }),
    dependenciesWithoutSourceMaps,
  ],
  test: {
    name: "workerd",
    // One worker: a workerd process that loads the Worker's modules once, and one stream of modules from vite to it.
    // Each more worker loads them all again and has vite's modules sent again, compressed (permessage-deflate): on
    // 2 cores, two workers took 1.4x the CPU of one (49.2 s against 34.9 s) and no less time (33.8 s against 34.2 s).
    maxWorkers: 1,
    // Files share the isolate: the Worker's modules load once (about 2.7 s of CPU a file saved). Each /mcp request
    // had imported mcp.js again, and vite's runner shares a pending import between requests: one awaiting another's
    // went on in that one's I/O context ("Cannot perform I/O on behalf of a different request", then cancelled as
    // hung) in two of three clean-clone runs under load; index.ts keeps the module once loaded (review 193).
    isolate: false,
    include: ["test/worker/**/*.test.ts"],
    globalSetup: ["test/worker/global-setup.ts"],
  },
});
