// Bundle faults: a second bundle uploaded and its pointer flipped while clients read, and a blob taken away and
// put back. A reader sees the old bundle or the new one whole (the skill's description from the manifest and its
// SKILL.md from the blobs agree), never a mix; a missing blob is a clear error, and the read works once it is back.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { blobKvKey, blobR2Key, type BundleManifest } from "../src/core/catalog/bundle.js";
import { loadBundleFromDir } from "../src/compiler/read.js";
import { seedBindings } from "../src/compiler/seed.js";
import type { LocalWorker } from "./local-worker.js";
import { sleep, Tally } from "./faults-worker.js";
import type { User } from "./mcp-user.js";

const SKILL = "bmad-agent-architect";
/** What bundle B says in the agent's title (from the manifest) and in its SKILL.md (a blob). */
const TITLE = "Bundle B title";
const BODY = "Bundle B body";

/** The default bundle, and a second that differs in one skill: its title (manifest) and its SKILL.md (blob). */
function twoBundles(bundleDir: string) {
  const a = loadBundleFromDir(bundleDir);
  const record = a.manifest.records.find((r) => r.name === SKILL);
  const file = record && a.manifest.files.find((f) => f.path.endsWith(`/${SKILL}/SKILL.md`));
  if (!record || !file) throw new Error(`no ${SKILL} skill in ${bundleDir}`);
  const text = `${new TextDecoder().decode(a.blobs.get(file.sha256))}\n${BODY}.\n`;
  const sha = createHash("sha256").update(text).digest("hex");
  const manifest: BundleManifest = structuredClone(a.manifest);
  manifest.records = manifest.records.map((r) => (r.name === SKILL && r.kind === record.kind ? { ...r, title: TITLE } : r));
  manifest.files = manifest.files.map((f) => (f.path === file.path ? { ...f, sha256: sha, size: Buffer.byteLength(text) } : f));
  manifest.id = createHash("sha256").update(JSON.stringify({ ...manifest, id: "" })).digest("hex");
  const blobs = new Map(a.blobs);
  blobs.set(sha, new TextEncoder().encode(text));
  return { b: manifest, blobs };
}

export async function bundleFaults(o: { worker: LocalWorker; users: User[]; bundleDir: string; /** How long readers read after the flip. */ seconds: number }) {
  const tally = new Tally();
  const { b, blobs } = twoBundles(o.bundleDir);
  const decoder = new TextDecoder();
  const kv = await o.worker.miniflare.getKVNamespace("BUNDLE_KV");
  const r2 = await o.worker.miniflare.getR2Bucket("BUNDLE_R2");
  const seen = { a: 0, b: 0, mixed: 0, errors: 0 };
  let stop = false;
  const readers = o.users.map(async (u) => {
    while (!stop) {
      const out = await u.call("bmad", { command: "architect" });
      if (!out.ok) {
        seen.errors++;
        tally.check("a reader sees one bundle whole", `error: ${out.text.slice(0, 200)}`);
        continue;
      }
      const [title, body] = [out.text.includes(TITLE), out.text.includes(BODY)];
      if (title !== body) seen.mixed++;
      else if (title) seen.b++;
      else seen.a++;
      tally.check("a reader sees one bundle whole", title === body ? undefined : `bundle B's ${title ? "title" : "SKILL.md"} with bundle A's ${title ? "SKILL.md" : "title"}`);
    }
  });
  await sleep(300);
  // As npm run bundle:upload does it: blobs, manifest, then the pointer, while the readers read.
  const flipped = performance.now();
  await seedBindings(kv, r2, b, (s) => decoder.decode(blobs.get(s)));
  let reached = 0;
  while (!reached && performance.now() - flipped < o.seconds * 1000) {
    await sleep(100);
    if (seen.b) reached = performance.now() - flipped;
  }
  const bAtFlip = seen.b;
  await sleep(500);
  stop = true;
  await Promise.all(readers);
  tally.check("every reader reaches the new bundle", reached && seen.b > bAtFlip ? undefined : `no answer from bundle B within ${o.seconds} s`);

  // The blob store without a file no one read yet (the isolate keeps the texts it read): a clear error, then
  // the same read answers once the blob is back.
  const file = b.files.filter((f) => f.mime === "text/markdown" && !f.path.includes(SKILL)).at(-1)!;
  const read = () => o.users[0]!.request("resources/read", { uri: `bmad://${file.path}` });
  await Promise.all([kv.delete(blobKvKey(file.sha256)), r2.delete(blobR2Key(file.sha256))]);
  const missing = await read();
  const clear = missing.text.includes(file.sha256.slice(0, 12)) && /bundle:upload/.test(missing.text);
  tally.check("an unavailable blob store is a clear MCP error", !missing.ok && clear ? undefined : `answer: ${missing.text.slice(0, 200)}`);
  await kv.put(blobKvKey(file.sha256), decoder.decode(blobs.get(file.sha256)));
  const back = await read();
  tally.check("the server recovers once the store is back", back.ok && back.text === decoder.decode(blobs.get(file.sha256)) ? undefined : `answer: ${back.text.slice(0, 200)}`);
  return { tally, seen, flipMs: reached };
}

export const BUNDLE_DIR = join(import.meta.dirname, "..", "bmad-bundle");
