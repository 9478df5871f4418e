// The bridge's memory index kept in step with edits (file-memory.ts): after any run of edits to the memory files, by
// hand or by remember, recall ranks exactly as an index built afresh from the same files (review 29: memories only
// marked gone kept counting in the ranking, and 43 of 320 recalls ranked otherwise, some with negative scores).
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { FileMemory } from "../../src/bridge/file-memory.js";
import { NodeRuntimeFs } from "../../src/bridge/runtime-fs.js";
import { keptOf } from "../../src/bridge/kept-versions.js";
import type { FileChange } from "../../src/core/runtime/fs.js";
import type { Memory } from "../../src/core/memory/model.js";
import { tempDir } from "./helpers.js";

const tmp = tempDir("file-memory-index");
afterAll(() => tmp.cleanup());

it("ranks as a fresh index does after every edit", async () => {
  const root = join(tmp.dir, "project");
  const learnings = join(root, "_bmad/_memory/agent-learnings/dev.md");
  const structured = join(root, "_bmad/_memory/structured/decisions.jsonl");
  mkdirSync(join(root, "_bmad/_memory/agent-learnings"), { recursive: true });
  mkdirSync(join(root, "_bmad/_memory/structured"), { recursive: true });
  let seed = 7;
  const pick = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  const words = ["cache", "deploy", "token", "schema", "latency", "retry", "migration", "index", "flaky", "auth", "queue", "epic"];
  const sentence = () => Array.from({ length: 3 + pick(5) }, () => words[pick(words.length)]).join(" ");
  const id = (n: number) => `00000000-0000-5000-8000-${String(n).padStart(12, "0")}`;
  const hand = Array.from({ length: 30 }, () => `- ${sentence()}`);
  let decisions: Memory[] = Array.from({ length: 30 }, (_, i) => ({ id: id(i), type: "decisions", agent: "pm", text: sentence(), tags: [words[pick(12)]!], created_at: "2026-11-01T00:00:00Z" }));
  const writeHand = () => writeFileSync(learnings, `## 2026-11-01\n${hand.join("\n")}\n`);
  const writeDecisions = () => writeFileSync(structured, decisions.map((m) => JSON.stringify(m)).join("\n") + "\n");
  writeHand();
  writeDecisions();
  const fs = await NodeRuntimeFs.create([root]);
  const kept = new FileMemory(root, fs);
  const ranked = async (memory: FileMemory, query: string) => {
    const found = await memory.search(query, {}, 500);
    if (!found.ok) throw new Error(found.error);
    return found.value.hits.map((h) => `${h.id} ${h.score}`).sort();
  };
  let next = 30;
  for (let round = 0; round < 40; round++) {
    const op = pick(6);
    if (op === 0) hand.push(`- ${sentence()}`);
    else if (op === 1) hand.splice(pick(hand.length), 1);
    else if (op === 2) hand[pick(hand.length)] = `- ${sentence()}`;
    else if (op === 3) decisions[pick(decisions.length)]!.text = sentence();
    else if (op === 4) decisions[pick(decisions.length)]!.tags = [words[pick(12)]!];
    else {
      expect((await kept.remember({ id: id(next++), type: "decisions", agent: "pm", text: sentence(), tags: ["x"], created_at: "2026-11-02T00:00:00Z" })).ok).toBe(true);
      decisions = readFileSync(structured, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Memory);
    }
    if (op <= 2) writeHand();
    else if (op <= 4) writeDecisions();
    const query = `${words[round % 12]} ${words[(round * 5 + 3) % 12]}`;
    expect(await ranked(kept, query), `round ${round}, edit ${op}, "${query}"`).toEqual(await ranked(new FileMemory(root, fs), query));
  }
});

// Review 246: a remember beside an editor's save (between its read and its landing) is made again over the save, and one
// that never lands keeps no copy of what it would have replaced: history shows no replacement that never happened.
it("remembers over an editor's save, and keeps no copy for a remember that never lands", async () => {
  const root = join(tmp.dir, "saved-meanwhile");
  const rel = "_bmad/_memory/structured/decisions.jsonl";
  mkdirSync(join(root, "_bmad/_memory/structured"), { recursive: true });
  writeFileSync(join(root, rel), "");
  const fs = await NodeRuntimeFs.create([root]);
  // The editor saves at the first read of each remember (`saving` of them), or at every read.
  let saves = 0;
  let saving = 1;
  const editor = { landed: (path: string, change: FileChange) => fs.landed(path, (current) => {
    if (saving-- > 0) appendFileSync(join(root, rel), `// note ${++saves}\n`);
    return change(current);
  }) };
  const memory = new FileMemory(root, editor);
  const remember = (text: string) => memory.remember({ id: `00000000-0000-5000-8000-${String(text.length).padStart(12, "0")}`, type: "decisions", agent: "pm", text, tags: [], created_at: "2026-11-01T00:00:00Z" });
  expect(await remember("Cache the ledger.")).toMatchObject({ ok: true, value: { created: true } });
  expect(readFileSync(join(root, rel), "utf8")).toMatch(/^\{.*Cache the ledger\..*\}\n\/\/ note 1\n$/);
  expect((await keptOf(root, rel)).length).toBe(1);
  saving = Infinity;
  const refused = await remember("Retry the queue.");
  expect(refused).toEqual({ ok: false, error: expect.stringMatching(/^Cannot write _bmad\/_memory\/structured\/decisions\.jsonl: was changed by another program .* 5 times running/) });
  expect(saves).toBe(6);
  expect((await keptOf(root, rel)).length).toBe(1);
  const listed = await memory.list({}, "recent", 10);
  expect(listed.ok && listed.value.entries.map((e) => e.text)).toEqual(["Cache the ledger."]);
});
