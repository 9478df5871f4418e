// Project memory's own rules, checked against what they stand for: UUIDv5 against Python's uuid module,
// queries reduced to words (never FTS5 syntax), snippets around the matching words, rank fusion.
import { execFileSync } from "node:child_process";
import { expect, it } from "vitest";
import { fuseRanks } from "../../src/core/memory/fusion.js";
import { memoryId, normaliseText } from "../../src/core/memory/model.js";
import { ftsQuery, snippet, words } from "../../src/core/memory/text.js";
import { MEMORY_NAMESPACE, uuidV5 } from "../../src/core/memory/uuid.js";

it("makes the same UUIDv5 as Python's uuid.uuid5", async () => {
  const names = ["", "decisions\narchitect\nuse postgresql", "Déploiement 🚀 — ünïcode", "x".repeat(5000)];
  const python = execFileSync("python3", ["-c", "import sys, uuid, json; print(json.dumps([str(uuid.uuid5(uuid.UUID(sys.argv[1]), n)) for n in json.loads(sys.argv[2])]))", MEMORY_NAMESPACE, JSON.stringify(names)], { encoding: "utf8" });
  expect(await Promise.all(names.map((n) => uuidV5(n)))).toEqual(JSON.parse(python));
  const namespace = execFileSync("python3", ["-c", "import uuid; print(uuid.uuid5(uuid.NAMESPACE_URL, 'urn:bmad-mcp:memory'))"], { encoding: "utf8" }).trim();
  expect(MEMORY_NAMESPACE).toBe(namespace);
});

it("names a memory by its type, agent and text, whatever the case or spacing", async () => {
  expect(normaliseText("  Use\tPostgreSQL\n for  the ledger ")).toBe("use postgresql for the ledger");
  expect(await memoryId("decisions", "architect", "Use PostgreSQL")).toBe(await memoryId("decisions", "architect", "use   postgresql"));
  expect(await memoryId("decisions", "architect", "Use PostgreSQL")).not.toBe(await memoryId("decisions", "dev", "Use PostgreSQL"));
});

it("reduces any query to quoted words, leaving out stop words unless there is nothing else", () => {
  expect(words("Café-Déploiement: NEAR(a* \"b\") -c")).toEqual(["cafe", "deploiement", "near", "a", "b", "c"]);
  expect(ftsQuery('"unbalanced ((x OR y:z')).toBe('"unbalanced" OR "x" OR "y" OR "z"');
  expect(ftsQuery("what is the stack?")).toBe('"stack"');
  expect(ftsQuery("what is it")).toBe('"what" OR "is" OR "it"');
  expect(ftsQuery("*** \" ( ) -")).toBeUndefined();
});

it("cuts a snippet around the matching words and marks them", () => {
  const text = `${"filler ".repeat(30)}the ledger lives in PostgreSQL ${"tail ".repeat(30)}`;
  const out = snippet(text, (w) => w === "ledger" || w === "postgresql");
  expect(out).toMatch(/^….*\*\*ledger\*\* lives in \*\*PostgreSQL\*\*.*…$/);
  expect(snippet("Short one about ledgers.", (w) => w === "ledgers")).toBe("Short one about **ledgers**.");
});

it("fuses rankings by reciprocal rank: near the top of both beats the top of one", () => {
  const fused = fuseRanks([["a", "b", "c"], ["b", "d", "a"]]);
  expect(fused.map((f) => f.id)).toEqual(["b", "a", "d", "c"]);
  expect(fused[0]!.score).toBeCloseTo(1 / 62 + 1 / 61, 12);
  expect(fuseRanks([])).toEqual([]);
});
