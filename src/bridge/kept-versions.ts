// What the bridge replaced or removed in the project folder, kept a week in `.bmad-mcp/kept/` (machinery: no tool
// reads or writes it), so that a change a model made, steered by what it read, is undone from the model's own tools
// (bmad-files history, read with a version, restore) even where the user's git never saw the file. Each content is
// stored once, by its sha256, and `index.jsonl` says which file held it and when it was replaced. Bounded: a week,
// 2,000 entries and 100 MiB, the oldest going first; a change never fails for want of keeping (it is not the change).
import { createHash } from "node:crypto";
import * as z from "zod";
import { readConfined, removeConfined, writeConfined } from "./confined-fs.js";
import { withFileLock } from "./file-lock.js";

/** A version that names content: 48 bits of its sha256, never 0 (0 is "absent"). */
export function contentVersion(data: Uint8Array): { version: number; sha256: string } {
  const sha256 = createHash("sha256").update(data).digest("hex");
  return { version: Number.parseInt(sha256.slice(0, 12), 16) || 1, sha256 };
}

const DIR = ".bmad-mcp";
const KEPT = `${DIR}/kept`;
const INDEX = `${KEPT}/index.jsonl`;
export const KEPT_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface KeptLimits {
  maxEntries: number;
  maxBytes: number;
  keepMs: number;
}
const LIMITS: KeptLimits = { maxEntries: 2000, maxBytes: 100 * 1024 * 1024, keepMs: KEPT_DAYS * DAY_MS };

const ENTRY = z.object({
  path: z.string().max(1024),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.number().int().nonnegative(),
  version: z.number().int().positive(),
  at: z.string().max(40),
});
export type KeptEntry = z.infer<typeof ENTRY>;

/** The index's entries, oldest first; a line that is not one (cut short by a killed bridge) is skipped. */
async function entries(root: string): Promise<KeptEntry[]> {
  const read = await readConfined(root, INDEX, { own: DIR });
  if (!read.ok) return [];
  return read.bytes.toString("utf8").split("\n").flatMap((line) => {
    if (!line) return [];
    try {
      const parsed = ENTRY.safeParse(JSON.parse(line));
      return parsed.success ? [parsed.data] : [];
    } catch {
      return [];
    }
  });
}

/** Keeps `bytes`, the content `rel` held until now, unless it is too large to read back or the folder refuses it. */
export async function keep(root: string, rel: string, bytes: Uint8Array, now = new Date(), limits = LIMITS): Promise<void> {
  if (bytes.byteLength > limits.maxBytes) return;
  const { version, sha256 } = contentVersion(bytes);
  const entry: KeptEntry = { path: rel, sha256, size: bytes.byteLength, version, at: now.toISOString() };
  await withFileLock(root, INDEX, async () => {
    const all = [...(await entries(root)), entry];
    // The newest that fit; content no entry names any more goes with its last entry.
    const since = now.getTime() - limits.keepMs;
    const kept: KeptEntry[] = [];
    let total = 0;
    const counted = new Set<string>();
    for (const e of all.reverse()) {
      if (kept.length >= limits.maxEntries || Date.parse(e.at) < since) continue;
      const size = counted.has(e.sha256) ? 0 : e.size;
      if (total + size > limits.maxBytes) continue;
      total += size;
      counted.add(e.sha256);
      kept.push(e);
    }
    kept.reverse();
    const blob = await writeConfined(root, `${KEPT}/${sha256}`, bytes, { own: DIR });
    if (!blob.ok) return;
    await writeConfined(root, `${KEPT}/.gitignore`, "*\n", { exclusive: true, own: DIR });
    const written = await writeConfined(root, INDEX, kept.map((e) => `${JSON.stringify(e)}\n`).join(""), { own: DIR });
    if (!written.ok) return;
    for (const gone of new Set(all.map((e) => e.sha256))) if (!counted.has(gone)) await removeConfined(root, `${KEPT}/${gone}`, { own: DIR });
  });
}

/** What the bridge kept of `rel`, newest first. */
export async function keptOf(root: string, rel: string): Promise<KeptEntry[]> {
  return (await entries(root)).filter((e) => e.path === rel).reverse();
}

/** The kept content of `rel` at `version`, if the bridge kept it. */
export async function keptContent(root: string, rel: string, version: number): Promise<Uint8Array | undefined> {
  const entry = (await keptOf(root, rel)).find((e) => e.version === version);
  if (!entry) return undefined;
  const read = await readConfined(root, `${KEPT}/${entry.sha256}`, { own: DIR });
  return read.ok && createHash("sha256").update(read.bytes).digest("hex") === entry.sha256 ? read.bytes : undefined;
}
