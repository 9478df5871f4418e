// Project memory's own rules, checked against what they stand for: UUIDv5 against Python's uuid module,
// queries reduced to words (never FTS5 syntax), snippets around the matching words, rank fusion,
// and the memory tools' schemas as seed 001 gives them.
import { execFileSync } from "node:child_process";
import { expect, it } from "vitest";
import { fuseRanks } from "../../src/core/memory/fusion.js";
import { STATIC_TOOLS } from "../../src/core/surface/surface.js";
import { toolListing } from "../../src/core/surface/tool.js";
import { LEARNINGS_DIR, memoryLines, mergeMemoryFiles, MUSEUM_FILE, parseHandFile, SHARED_CONTEXT_FILE } from "../../src/core/memory/files.js";
import { projectContext } from "../../src/core/memory/project-context.js";
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

it("keeps seed 001's names, arguments, enums (but the agents), defaults and required lists for the memory tools", () => {
  const listing = (name: string) => toolListing(STATIC_TOOLS.find((t) => t.name === name)!, true) as { inputSchema: { properties: Record<string, any>; required?: string[] } };
  const types = ["shared-context", "decisions", "agent-learnings", "failures", "stories"];
  const remember = listing("remember_structured").inputSchema;
  expect(remember.required).toEqual(["type", "agent", "text"]);
  expect(remember.properties.type.enum).toEqual(types);
  expect(remember.properties.tags).toMatchObject({ type: "array", items: { type: "string" } });
  const recall = listing("recall_structured").inputSchema;
  expect(recall.required).toEqual(["query"]);
  expect(recall.properties.type.enum).toEqual(types);
  expect(recall.properties.limit).toMatchObject({ type: "integer", default: 5 });
  const agentMemory = listing("get_agent_memory").inputSchema;
  expect(agentMemory.required).toEqual(["agent"]);
  // Whole numbers: every count the seed's clients send is one (review 399: 1.5 was taken).
  expect(agentMemory.properties.last_n.type).toBe("integer");
  const museum = listing("get_failure_museum").inputSchema;
  expect(museum.properties.category.enum).toEqual(["all", "CC-FAIL", "WRONG-ASSUMPTION", "CONTEXT-LOSS", "HALLUCINATION", "ARCH-MISTAKE", "PROCESS-SKIP"]);
  expect(museum.properties.top_n.type).toBe("integer");
  const delegate = listing("delegate_to_agent").inputSchema;
  expect(delegate.required).toEqual(["agent_id", "task"]);
  // Any agent of the bundle by name, not the seed's five as a list: three of them are not in 6.12 (review 399).
  expect(delegate.properties.agent_id).toMatchObject({ type: "string" });
  expect(delegate.properties.max_tokens).toMatchObject({ type: "integer", default: 2048 });
  expect(Object.keys(delegate.properties)).toEqual(["agent_id", "task", "context", "max_tokens"]);
  const status = listing("get_workflow_status").inputSchema;
  expect(Object.keys(status.properties)).toEqual(["run_id", "branch", "project"]);
  expect(status.properties.branch.type).toBe("string");
});

it("merges two copies of a memory file: additions of both kept, removals from the base kept removed, tags joined", async () => {
  const path = "_bmad/_memory/structured/decisions.jsonl";
  const memory = async (text: string, tags: string[] = []) => ({ id: await memoryId("decisions", "pm", text), type: "decisions" as const, agent: "pm", text, tags, created_at: "2026-01-01" });
  const [kept, removed, ours, theirs] = await Promise.all(["Kept by both.", "Removed here.", "Added here.", "Added there."].map((t) => memory(t)));
  const base = memoryLines([kept!, removed!]) + "broken base line\n";
  const here = memoryLines([{ ...kept!, tags: ["mine"] }, ours!]); // removed one memory and the broken line
  const there = memoryLines([{ ...kept!, tags: ["theirs"] }, removed!, theirs!]) + "broken base line\nbroken there\n";
  const merged = mergeMemoryFiles(path, [here, there], base);
  const parsed = merged.trim().split("\n");
  expect(parsed.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l).text).sort()).toEqual(["Added here.", "Added there.", "Kept by both."]);
  expect(JSON.parse(parsed.find((l) => l.includes("Kept by both"))!).tags).toEqual(["mine", "theirs"]);
  expect(parsed.filter((l) => !l.startsWith("{"))).toEqual(["broken there"]);
  // Without the base nothing counts as removed: every memory of both copies.
  expect(mergeMemoryFiles(path, [here, there]).match(/"text"/g)).toHaveLength(4);
});

it("keeps a memory one side edited when the other side removed it (review 47: a pull dropped the user's edit)", async () => {
  const path = "_bmad/_memory/structured/decisions.jsonl";
  const memory = { id: await memoryId("decisions", "pm", "Launch in March."), type: "decisions" as const, agent: "pm", text: "Launch in March.", tags: [], created_at: "2026-01-01" };
  const base = memoryLines([memory]);
  const edited = memoryLines([{ ...memory, text: "Launch on March 10. DO NOT LOSE." }]);
  expect(mergeMemoryFiles(path, [edited, ""], base)).toContain("March 10");
  expect(mergeMemoryFiles(path, ["", edited], base)).toContain("March 10");
  // Unedited, the removal stands.
  expect(mergeMemoryFiles(path, [base, ""], base)).toBe("");
});

it("reads hand-edited memory files saved with Windows line endings as it reads them with Unix ones", async () => {
  const files = new Map([
    [MUSEUM_FILE, "# Failure museum\n\n## HALLUCINATION: invented an API\n- severity: critical\n- agent: dev\nThe method did not exist.\n"],
    [SHARED_CONTEXT_FILE, "# Shared\n\n## Stack\nTypeScript on Workers\n\n## Decisions\n- KV for bundles\n"],
    [`${LEARNINGS_DIR}/dev.md`, "## 2026-01-10\n- Run migrations before deploying.\n  Always.\n"],
  ]);
  const crlf = (text: string) => text.replaceAll("\n", "\r\n");
  for (const [path, text] of files) {
    const unix = await parseHandFile(path, text);
    expect(unix.entries.length, path).toBeGreaterThan(0);
    expect(await parseHandFile(path, crlf(text)), path).toEqual(unix);
  }
  const context = (convert: (text: string) => string) =>
    projectContext(async (rel) => (files.has(rel) ? { ok: true, text: convert(files.get(rel)!) } : { ok: false, missing: true, error: `${rel} missing` }), "all");
  const unix = await context((text) => text);
  expect(unix).toMatchObject({ ok: true, value: { stack: "TypeScript on Workers", decisions: "- KV for bundles" } });
  // The sections are read the same; the rest of the file (the sections given as fields, named) with its line endings.
  const rest = "# Shared\n\n## Stack\n(given as stack)\n## Decisions\n(given as decisions)\n";
  expect(unix.ok && unix.value.shared_context).toBe(rest);
  expect(await context(crlf)).toEqual({ ...unix, value: { ...(unix.ok && unix.value), shared_context: crlf(rest) } });
});

it("reports at most 20 problems of a structured memory file, and how many more (review 21: 46 MB of warnings ended a session)", async () => {
  const { parseMemoryLines, MAX_STRUCTURED_MEMORIES } = await import("../../src/core/memory/files.js");
  // Past the memories recalled, so that the broken lines are seen kept beyond that cap too (review 21's 800 KB, 400,000
  // lines, proved no more and took 3.4 s of CPU).
  const lines = MAX_STRUCTURED_MEMORIES + 5_000;
  const parsed = parseMemoryLines("x\n".repeat(lines), "_bmad/_memory/structured/decisions.jsonl");
  expect(parsed.warnings).toHaveLength(21);
  expect(parsed.warnings.at(-1)).toBe(`_bmad/_memory/structured/decisions.jsonl: and ${lines - 20} more warnings.`);
  expect(parsed.broken).toHaveLength(lines); // kept, so that the file written again loses none of them
});

it("recalls at most 20,000 memories of one structured file, saying so, and keeps them all in the file (review 22)", async () => {
  const { parseMemoryLines, MAX_STRUCTURED_MEMORIES } = await import("../../src/core/memory/files.js");
  const id = (i: number) => `${i.toString(16).padStart(8, "0")}-0000-5000-8000-000000000000`;
  const line = (i: number) => JSON.stringify({ agent: "dev", created_at: "2026-01-01T00:00:00Z", id: id(i), tags: [], text: `d${i}`, type: "decisions" });
  const parsed = parseMemoryLines(Array.from({ length: MAX_STRUCTURED_MEMORIES + 5 }, (_, i) => line(i)).join("\n"), "_bmad/_memory/structured/decisions.jsonl");
  expect(parsed.entries).toHaveLength(MAX_STRUCTURED_MEMORIES);
  expect(parsed.memories).toHaveLength(MAX_STRUCTURED_MEMORIES + 5);
  expect(parsed.warnings[0]).toBe(`_bmad/_memory/structured/decisions.jsonl holds ${MAX_STRUCTURED_MEMORIES + 5} memories; the first ${MAX_STRUCTURED_MEMORIES} are recalled. Move older ones to another file (e.g. _bmad/_memory/structured/decisions.jsonl.old).`);
});
