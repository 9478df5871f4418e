// npm run build:bridge: the bmad-mcp CLI bundled by esbuild (fast to start: no TypeScript, no module
// resolution at run time): dist/bridge.js, a launcher that turns on Node's compile cache and loads
// dist/bridge-main.js (remote-mode code split off into dist/chunks/), with the embedded bundle in dist/bundle/
// and the licences of everything bundled in dist/THIRD-PARTY-NOTICES.md (the npm package ships dist/ alone).
import { chmodSync, cpSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { build, type Plugin } from "esbuild";
import { thirdPartyNotices } from "./notices.js";

const ROOT = resolve(import.meta.dirname, "..");
const DIST = join(ROOT, "dist");

/** The MCP SDK's environment shims: the bridge's own (src/bridge/sdk-shims.ts says why). */
const sdkShims: Plugin = {
  name: "sdk-shims",
  setup: (b) => void b.onResolve({ filter: /^@modelcontextprotocol\/(server|client)\/_shims$/ }, () => ({ path: join(ROOT, "src/bridge/sdk-shims.ts") })),
};

/** Builds into `outDir` (dist/ by default; the tests and the .mcpb build use folders of their own). */
export async function buildBridge(outDir = DIST): Promise<string> {
  const bundleDir = join(ROOT, "bmad-bundle");
  if (!existsSync(join(bundleDir, "manifest.json"))) throw new Error("No bundle in bmad-bundle/: run `npm run bundle` first.");
  rmSync(outDir, { recursive: true, force: true });
  const result = await build({
    metafile: true,
    entryPoints: { "bridge-main": join(ROOT, "src/bridge/cli.ts") },
    outdir: outDir,
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    minify: true,
    legalComments: "none",
    // Some dependencies still call require(); give the ES module one.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: "warning",
    plugins: [sdkShims],
  });
  const launcher = join(outDir, "bridge.js");
  writeFileSync(
    launcher,
    `#!/usr/bin/env node\n// bmad-mcp. Node 22+ keeps a compile cache, so later starts skip compiling the bundle.\nimport module from "node:module";\nmodule.enableCompileCache?.();\nawait import("./bridge-main.js");\n`,
  );
  chmodSync(launcher, 0o755);
  cpSync(bundleDir, join(outDir, "bundle"), { recursive: true });
  // The embedded bundle is bmad-method's content; the code is the npm packages esbuild pulled in.
  writeFileSync(join(outDir, "THIRD-PARTY-NOTICES.md"), thirdPartyNotices(ROOT, ["node_modules/bmad-method/package.json", ...Object.keys(result.metafile.inputs)]));
  return launcher;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const out = await buildBridge();
  console.log(`wrote ${out} and dist/bundle/`);
}
