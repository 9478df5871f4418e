// npm run build:bridge: the bmad-mcp CLI as one ES module (fast to start: no TypeScript, no module
// resolution at run time) in dist/bridge.js, with the embedded bundle beside it in dist/bundle/.
import { cpSync, existsSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "esbuild";

const ROOT = resolve(import.meta.dirname, "..");
const DIST = join(ROOT, "dist");

export async function buildBridge(): Promise<string> {
  const bundleDir = join(ROOT, "bmad-bundle");
  if (!existsSync(join(bundleDir, "manifest.json"))) throw new Error("No bundle in bmad-bundle/: run `npm run bundle` first.");
  await build({
    entryPoints: [join(ROOT, "src/bridge/cli.ts")],
    outfile: join(DIST, "bridge.js"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    minify: true,
    legalComments: "none",
    // Some dependencies still call require(); give the ES module one.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: "warning",
  });
  rmSync(join(DIST, "bundle"), { recursive: true, force: true });
  cpSync(bundleDir, join(DIST, "bundle"), { recursive: true });
  return join(DIST, "bridge.js");
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const out = await buildBridge();
  console.log(`wrote ${out} and dist/bundle/`);
}
