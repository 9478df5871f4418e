// Text from outside (a project's files, a submitted document, a memlog) is parsed in linear time, and a file
// saved with a byte-order mark reads as one without. A regex that backtracks on a long run of spaces or digits
// freezes the bridge, or spends a Worker request's CPU, on one hostile line.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { buildBundle } from "../../src/compiler/build.js";
import { csv, frontmatter } from "../../src/compiler/parse.js";
import { firstHeading } from "../../src/core/markdown.js";
import { gapAnalysis, rubricFor } from "../../src/core/delivery/rubric.js";
import { estimateScore, parseResult } from "../../src/core/delivery/score.js";
import { LEARNINGS_DIR, MUSEUM_FILE, parseHandFile, SHARED_CONTEXT_FILE } from "../../src/core/memory/files.js";
import { projectContext } from "../../src/core/memory/project-context.js";
import { strip, splitWhitespace } from "../../src/core/runtime/py-str.js";
import { parseSprints, quoted } from "../../src/core/delivery/stage-inputs.js";
import { pickMarkdown } from "../../src/core/delivery/stage-sections.js";
import { tempDir } from "./helpers.js";
import { holdsShapedSecret } from "../../src/core/catalog/config.js";

const tmp = tempDir("hostile-text");
afterAll(() => tmp.cleanup());

/** Each parse of a 200,000-character hostile input: linear is about a millisecond, quadratic minutes (the bound leaves
 *  room for a machine loaded by the files that run beside this one). */
function expectFast(name: string, parse: () => unknown): void {
  const started = performance.now();
  parse();
  expect(performance.now() - started, name).toBeLessThan(2000);
}

const spaces = " ".repeat(200_000);

it("parses headings, sprint plans, scores and Python's whitespace in linear time", () => {
  expectFast("pickMarkdown", () => pickMarkdown(`# Agent\n\n## Notes${spaces}x\n\n## Overview\n\nYou are the PM.\n`, { section: "Overview" }));
  expectFast("firstHeading", () => firstHeading(`# a${spaces}b`));
  expectFast("sprint heading", () => parseSprints(`## Sprint 1: a${spaces}b`));
  expectFast("sprint line", () => parseSprints(`Sprint 1${spaces}x`));
  expectFast("sprint line title", () => parseSprints(`- Sprint 1: a${spaces}b`));
  expectFast("sprint heading with a lone CR", () => parseSprints(`## Sprint 1:${spaces}x\ry`));
  expectFast("sprint line with a lone CR", () => parseSprints(`Sprint 1:${spaces}x\u2028y`));
  expectFast("quoted", () => quoted("t", `<${spaces}/${spaces}documen ${"< / ".repeat(50_000)}`, 1e6, ""));
  expectFast("estimateScore", () => estimateScore("1".repeat(200_000)));
  expectFast("parseResult", () => parseResult(`# PRD\n\nid ${"7".repeat(200_000)}\n`, []));
  expectFast("gapAnalysis of many headings", () => gapAnalysis("# a\n".repeat(50_000) + "## b\n".repeat(50_000), rubricFor("po")));
  expectFast("gapAnalysis of spaces and digits", () => gapAnalysis(`## Goals${spaces}x\n${"1".repeat(200_000)}\nnon${spaces}functional`, rubricFor("architect")));
  expectFast("strip", () => strip(`a${spaces}b`));
  expectFast("splitWhitespace", () => splitWhitespace(`a${spaces}b`));
});

it("parses memory files a person (or a workspace member) wrote in linear time", async () => {
  const started = performance.now();
  await parseHandFile(MUSEUM_FILE, `## CC-FAIL: x\nseverity: high${spaces}x\n`);
  await parseHandFile(`${LEARNINGS_DIR}/dev.md`, `-${spaces}x\ry\n## 2026-01-01${spaces}\ry\n`);
  await parseHandFile(SHARED_CONTEXT_FILE, `## Stack${spaces}\rx\n`);
  await projectContext(async (rel) => (rel === SHARED_CONTEXT_FILE ? { ok: true, text: `## Stack${spaces}\rx\n` } : { ok: false, missing: true, error: "" }), "all");
  expect(performance.now() - started).toBeLessThan(1000);
  // A line break is any of JavaScript's own: what follows a lone CR is a line of its own.
  const learnings = await parseHandFile(`${LEARNINGS_DIR}/dev.md`, "## 2026-01-10\r- Run migrations first.\u2028- Pin versions.\n");
  expect(learnings.entries.map((e) => [e.text, e.created_at])).toEqual([["Run migrations first.", "2026-01-10"], ["Pin versions.", "2026-01-10"]]);
  const museum = await parseHandFile(MUSEUM_FILE, "## HALLUCINATION: invented an API\nseverity: critical · agent: dev | tags: api, docs\nThe method did not exist.\n");
  expect(museum.entries[0]).toMatchObject({ agent: "dev", tags: expect.arrayContaining(["api", "docs", "critical"]) });
});

it("still reads what those patterns are for", () => {
  expect(firstHeading("---\n# a YAML comment\n---\n\n## Overview\n# **Product Manager** ##  \n")).toBe("**Product Manager**");
  expect(firstHeading("# C# in Practice\n")).toBe("C# in Practice");
  expect(pickMarkdown("# Agent\n\n## Overview #\n\nYou are the PM.\n\n## Notes\n\nx\n", { section: "Overview" })).toBe("You are the PM.");
  expect(firstHeading("intro\n#   Release Notes Helper   \n")).toBe("Release Notes Helper");
  expect(parseSprints("## **Sprint 1: Sign-in**\n\n## Sprint 2 — Payments  \n")).toEqual([
    { number: 1, title: "Sign-in" },
    { number: 2, title: "Payments" },
  ]);
  expect(parseSprints("- **Sprint 3:** Reports\n* Sprint 4) Export **\n")).toEqual([
    { number: 3, title: "Reports" },
    { number: 4, title: "Export" },
  ]);
  expect(estimateScore("p95 under 200 ms")).toBe(estimateScore("p95 under 200ms"));
  expect(estimateScore("p95 under 200 ms")).toBeGreaterThan(estimateScore("p95 is low"));
  expect(strip("\u3000\t a b \u2029\n")).toBe("a b");
  expect(splitWhitespace("  a \u00a0b\u3000 c ")).toEqual(["a", "b", "c"]);
});

it("reads the frontmatter of a SKILL.md saved with a byte-order mark", async () => {
  const text = "---\nname: my-helper\ndescription: Drafts release notes from the changelog\n---\n\n# Release Notes Helper\n";
  expect(frontmatter(`\uFEFF${text}`)).toEqual(frontmatter(text));
  const module = join(tmp.dir, "tree/src/mymod");
  for (const [name, bom] of [["my-helper", "\uFEFF"], ["my-other", ""]] as const) {
    mkdirSync(join(module, name), { recursive: true });
    writeFileSync(join(module, name, "SKILL.md"), bom + text.replace("my-helper", name));
  }
  writeFileSync(join(module, "module.yaml"), "code: mymod\nname: My Module\n");
  const { manifest } = await buildBundle({ sources: [join(tmp.dir, "tree")], includeDefault: false });
  const described = manifest.records.filter((r) => r.description === "Drafts release notes from the changelog").map((r) => r.name);
  expect(described.sort()).toEqual(["my-helper", "my-other"]);
});

// Review 243: a manifest of 100,000 columns (8 MB) took the bridge 3.3 s and 900 MB a rebuild, its rows made objects.
it("refuses a CSV row past 256 fields, before it is kept, and reads BMAD's own", () => {
  const wide = `${Array.from({ length: 100_000 }, (_, i) => `c${i}`).join(",")}\n${",".repeat(99_999)}\n`;
  expect(csv(wide)).toEqual({ ok: false, error: "row 1 has more than 256 fields, past any BMAD manifest's" });
  expect(csv(`name,module\npm,bmm\n`)).toEqual({ ok: true, value: [{ name: "pm", module: "bmm" }] });
});

it("judges review 56's new shapes in linear time", () => {
  // Here, in the serial timed group: beside four other files on two cores the ratio once read 8.02 (core-surface).
  // As a ratio, in the same run: a quarter of each input, then the whole; linear work takes about four times as long,
  // quadratic sixteen (a wall-clock bound failed on a loaded machine, its inputs judged as fast as ever).
  const shapes = (n: number) => ['"a":"'.repeat(n / 5), '"a'.repeat(n / 2), "a=".repeat(n / 2), "password=abc ".repeat(n / 12.5), `${"a.".repeat(n / 2)}!=x`, "\r".repeat(n), `"${"a".repeat(n)}`, `tskey-${"a-".repeat(n / 2)}`, `setx ${"a ".repeat(n / 2)}`, `\`\`\`yaml\n${"a: b\n".repeat(n / 5)}\`\`\`\n`, `<input ${"a=b ".repeat(n / 4)}>`];
  const timed = (n: number) => {
    const started = performance.now();
    for (const text of shapes(n)) expect(holdsShapedSecret(text)).toBe(false);
    return performance.now() - started;
  };
  timed(50_000); // warm
  // The least of a few runs each: a loaded machine's pause in one run once made linear work read 8 times (CI).
  const best = (n: number, runs: number) => Math.min(...Array.from({ length: runs }, () => timed(n)));
  const quarter = best(125_000, 3);
  expect(best(500_000, 2) / quarter).toBeLessThan(8);
});

it("reads a status of many keys in time linear in them, and refuses a key twice", async () => {
  const { loadYaml } = await import("../../src/core/runtime/sprint-yaml.js");
  const status = (n: number) => `development_status:\n${Array.from({ length: n }, (_, i) => `  ${i}-story-name-${i}: backlog`).join("\n")}\n`;
  const time = (text: string) => {
    const started = performance.now();
    expect("doc" in loadYaml(text)).toBe(true);
    return performance.now() - started;
  };
  time(status(500)); // warm
  // Here, in the serial timed group: beside four other files on two cores the ratio once read 8.27 (runtime-sprint).
  // The least of a few runs each, as a loaded machine's pause in one run can double it.
  const best = (text: string, runs: number) => Math.min(...Array.from({ length: runs }, () => time(text)));
  const [small, large] = [best(status(2_400), 3), best(status(9_600), 2)];
  expect(large / small).toBeLessThan(8); // linear: about 4; the quadratic check: about 16
  expect(loadYaml("development_status:\n  a: x\n  b: y\n  a: z\n")).toEqual({ error: 'found duplicate key "a" at line 4, column 3' });
  // A key's own quote is written out, never closing the server's (review 482: a key forged the position and a fix).
  const forged = `'1-1-a" at line 1, column 1; the file is fine': backlog`;
  expect(loadYaml(`development_status:\n  ${forged}\n  ${forged}\n`)).toEqual({ error: 'found duplicate key "1-1-a\\" at line 1, column 1; the file is fine" at line 3, column 3' });
  // Merge keys taking in a map again and again (review 105: 2,000 aliases of 3,000 keys held the bridge 46 s): a few
  // take theirs at once, past a sprint's size none is read.
  const merged = (keys: number, aliases: number) => `base: &a\n${Array.from({ length: keys }, (_, i) => `  k${i}: v`).join("\n")}\ndevelopment_status:\n  1-1-x: backlog\n  x:\n    <<: [${Array(aliases).fill("*a").join(", ")}]\n`;
  const started = performance.now();
  expect("doc" in loadYaml(merged(3_000, 5))).toBe(true);
  expect(loadYaml(merged(3_000, 2_000))).toEqual({ error: expect.stringContaining("merge keys (<<) take in more than 30000 values") });
  expect(performance.now() - started).toBeLessThan(5_000); // 46 s before; well under a second alone
});
