// Writes a bundle directory atomically: build in a sibling temp dir, then swap it in with renames. The same
// bundle again (its manifest names every blob by hash) leaves the directory alone, so readers never see a gap.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { BuiltBundle } from "./manifest";
import { manifestBytes } from "./manifest";

/** Returns the manifest.json size in bytes. Refuses to replace a non-empty dir that is not a bundle. */
export function writeBundle(outDir: string, bundle: BuiltBundle): number {
  const out = resolve(outDir);
  if (existsSync(out) && readdirSync(out).length && !existsSync(join(out, "manifest.json"))) {
    throw new Error(`Refusing to replace ${outDir}: it is not empty and has no manifest.json (not a bundle dir)`);
  }
  const bytes = manifestBytes(bundle.manifest);
  if (existsSync(join(out, "manifest.json")) && Buffer.from(bytes).equals(readFileSync(join(out, "manifest.json"))) && [...bundle.blobs.keys()].every((hash) => existsSync(join(out, "blobs", hash)))) {
    return bytes.length;
  }
  const parent = dirname(out);
  mkdirSync(parent, { recursive: true });
  const tmp = join(parent, `.${basename(out)}.tmp-${process.pid}`);
  const old = join(parent, `.${basename(out)}.old-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  try {
    mkdirSync(join(tmp, "blobs"), { recursive: true });
    for (const [hash, data] of [...bundle.blobs].sort(([a], [b]) => (a < b ? -1 : 1))) {
      writeFileSync(join(tmp, "blobs", hash), data);
    }
    writeFileSync(join(tmp, "manifest.json"), bytes);
    if (existsSync(out)) renameSync(out, old);
    renameSync(tmp, out);
    rmSync(old, { recursive: true, force: true });
    return bytes.length;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
