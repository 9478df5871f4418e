// Upload: the pure KV/R2 key layout, and a real `--local` upload into a temp persist dir, once in full and
// then not at all when the store already holds the bundle.
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { BundleManifest } from "../../src/core/catalog/bundle";
import { buildBundle } from "../../src/compiler/build";
import { loadBundleFromDir } from "../../src/compiler/read";
import { KV_MAX_VALUE } from "../../src/core/catalog/bundle";
import { blobPlacement, planUpload } from "../../src/compiler/upload-plan";
import { parseUploadArgs, uploadBundle } from "../../scripts/upload-bundle";
import { ROOT, tempDir } from "./helpers";

const tmp = tempDir("upload");
afterAll(() => tmp.cleanup());

const sha = (c: string) => c.repeat(64);
const manifest = (shas: string[], index: string): BundleManifest =>
  ({ format: 1, id: sha("f"), sources: [], modules: [], records: [], config: {}, searchIndex: index, files: shas.map((s, i) => ({ path: `p${i}`, source: 0, sha256: s, size: 0, mime: "text/plain" })) }) as BundleManifest;

describe("upload plan", () => {
  it("puts blobs up to 1 MiB in KV and larger ones in R2, pointer last", () => {
    expect(blobPlacement(KV_MAX_VALUE)).toBe("kv");
    expect(blobPlacement(KV_MAX_VALUE + 1)).toBe("r2");
    const sizes = new Map([[sha("a"), 10], [sha("b"), KV_MAX_VALUE + 1], [sha("c"), 20]]);
    const plan = planUpload(manifest([sha("a"), sha("b"), sha("a")], sha("c")), sizes);
    expect(plan.kvBatches).toEqual([[{ key: `blob:${sha("a")}`, sha: sha("a") }, { key: `blob:${sha("c")}`, sha: sha("c") }]]);
    expect(plan.r2).toEqual([{ key: `blobs/${sha("b")}`, sha: sha("b") }]);
    expect(plan.manifestKey).toBe(`bundle:${sha("f")}:manifest`);
    expect(plan.pointer).toEqual({ key: "bundle:current", value: sha("f") });
  });

  it("splits KV batches and refuses a missing blob", () => {
    const shas = ["a", "b", "c"].map(sha);
    const sizes = new Map(shas.map((s) => [s, 300]));
    expect(planUpload(manifest(shas.slice(0, 2), shas[2]!), sizes, 1000).kvBatches.map((b) => b.length)).toEqual([2, 1]);
    expect(() => planUpload(manifest([sha("d")], sha("a")), sizes)).toThrow(/missing from the bundle dir/);
  });

  it("validates its arguments", () => {
    expect(parseUploadArgs(["--local", "--dir", "x"])).toMatchObject({ target: "local", dir: "x", persistTo: ".wrangler/state" });
    expect(() => parseUploadArgs([])).toThrow(/--local .* or --remote/);
    expect(() => parseUploadArgs(["--local", "--remote"])).toThrow(/exactly one/);
    expect(() => parseUploadArgs(["--local", "--nope"])).toThrow(/Unknown argument "--nope"/);
  });
});

describe("upload --local", () => {
  it("writes blobs, manifest and pointer where wrangler reads them", { timeout: 120_000 }, async () => {
    const dir = join(tmp.dir, "bundle");
    const persist = join(tmp.dir, "state");
    const config = join(tmp.dir, "wrangler.toml");
    writeFileSync(config, 'name = "t"\n[[kv_namespaces]]\nbinding = "BUNDLE_KV"\nid = "kv"\n[[r2_buckets]]\nbinding = "BUNDLE_R2"\nbucket_name = "bmad-bundle"\n');
    await buildBundle({ sources: [join(ROOT, "test/fixtures/v6-alpha")], includeDefault: false, outDir: dir });
    const id = await uploadBundle({ target: "local", dir, persistTo: persist, config }, () => {});
    expect(id).toBe(loadBundleFromDir(dir).manifest.id);
    expect(existsSync(join(persist, "v3/kv"))).toBe(true);
    // Read back by wrangler itself, in one run (a wrangler start costs 1.5 s of CPU).
    const { manifest: m, blobs } = loadBundleFromDir(dir);
    const f = m.files.find((x) => x.path === "bmm/agents/pm.md")!;
    const keys = join(tmp.dir, "keys.json");
    writeFileSync(keys, JSON.stringify(["bundle:current", `blob:${f.sha256}`]));
    const node = join(ROOT, "node_modules/node/bin/node");
    const read = execFileSync(node, [join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "kv", "bulk", "get", keys, "--binding", "BUNDLE_KV", "--local", "--persist-to", persist, "--config", config], { cwd: ROOT, stdio: "pipe" }).toString();
    expect(JSON.parse(read)).toEqual({ "bundle:current": { value: id }, [`blob:${f.sha256}`]: { value: new TextDecoder().decode(blobs.get(f.sha256)) } });

    // The same bundle again (the next `npm run dev`): nothing is written.
    const logged: string[] = [];
    await uploadBundle({ target: "local", dir, persistTo: persist, config }, (line) => logged.push(line));
    expect(logged.join("\n")).toMatch(/already there, nothing to upload/);
  });
});
