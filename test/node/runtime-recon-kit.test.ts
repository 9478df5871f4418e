// bmad-deep-recon's recon_kit.py beside its port (what the remote runs, where Python cannot): each subcommand on a
// research document, a memlog and claims with the edges the script names, and its errors and help.
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { NodeRuntimeFs } from "../../src/bridge/runtime-fs.js";
import { main } from "../../src/core/runtime/recon-kit.js";
import { expectSameAsPython } from "../fixtures/runtime/harness.js";
import { tempDir } from "./helpers.js";

const tmp = tempDir("runtime-recon-kit");
const skill = join(tmp.dir, "bmad-deep-recon");
cpSync(join(process.cwd(), "node_modules/bmad-method/src/core-skills/bmad-deep-recon"), skill, { recursive: true });
const script = join(skill, "scripts/recon_kit.py");

const RESEARCH = `# Research

Markets grow [1] and [2], see [3](https://x.example) which is a link, and [9] dangles.

\`\`\`
[7] inside a fence
| 8 | fenced row |
\`\`\`

## Sources
| # | Source | Note |
|---|---|---|
| [1] | [Report](https://example.com/r?a=1&b=<2>) | "quoted" & 'single' |
| 2 | plain https://example.org/path|x | bare |
|| [4] || [bad](javascript:alert(1)) | ftp://old.example |
| [5] | [no label]() | http:/nohost |
| [2] | duplicate id wins | later |
| x | not a row |
| 6 |
`;

const MEMLOG = `---
topic: t
---

- (claim) market is big status=verified ref=[1]
- (claim by web) market is big status=refuted ref=1
- (claim) unreferenced status=draft
- (claim) no status at all
- (finding) something
- plain entry
- (ünïcode-type) x
-not an entry
  - indented
`;

it("answers every subcommand, error and help as recon_kit.py does", async () => {
  writeFileSync(join(tmp.dir, "research.md"), RESEARCH);
  writeFileSync(join(tmp.dir, "memlog.md"), MEMLOG);
  writeFileSync(join(tmp.dir, "no-frontmatter.md"), "- (claim) a status=ok\n--- not front\n- b\n");
  writeFileSync(join(tmp.dir, "claims.json"), JSON.stringify({ claims: [
    { claim: "size", class: "Size/Growth", pub_date: "2025-01-31" },
    { claim: "price", class: "pricing", pub_date: "2026-11" },
    { claim: "old", class: "pricing", pub_date: 2020, recheck: "kept?" },
    { claim: "nowin", class: "other", pub_date: "2026-01-05" },
    { claim: "padded", class: "pricing", pub_date: " 2026-3- 7 " },
  ] }));
  writeFileSync(join(tmp.dir, "bad-date.json"), JSON.stringify([{ claim: "x", class: "pricing", pub_date: "2026-02-30" }]));
  writeFileSync(join(tmp.dir, "no-date.json"), JSON.stringify([{ claim: "x", class: "pricing" }]));
  writeFileSync(join(tmp.dir, "no-rows.md"), "# nothing\n");
  // Python's `\s` (review 335): U+FEFF is no whitespace to it; U+001C-U+001F and U+0085 are.
  writeFileSync(join(tmp.dir, "spaces.md"), "a [1] b [2] c [3]\n\n## Sources\n| # | Source | Note |\n|---|---|---|\n| 1 | [a](https://a.example/x\x1cy) | n |\n| 2 | https://b.example/p\x85q | n |\n| 3 | [c](https://c.example/\ufeffz) | n |\n");
  writeFileSync(join(tmp.dir, "spaces-memlog.md"), "---\ntopic: t\n---\n\n- (claim)\x1fx status=ok\n- (claim)\ufeffy status=ok\n");
  // Python's `\d` is any decimal digit, and int() reads them (Arabic-Indic ٣, fullwidth ２).
  writeFileSync(join(tmp.dir, "digits.md"), "a [\u0663] b [\uff12] c [1\u0660]\n\n## Sources\n| # | Source |\n|---|---|\n| [3] | x |\n| \u0662 | y |\n| 10 | z |\n");
  writeFileSync(join(tmp.dir, "digits-memlog.md"), "- (claim) a status=ok ref=[\u0663]\n- (claim) b status=no ref=3\n");
  mkdirSync(join(tmp.dir, "a-folder"), { recursive: true });
  const windows = JSON.stringify({ "size/growth": 18, PRICING: "3", other2: 2.9 });
  const cases = [
    ["citations", "research.md"],
    ["citations", "no-rows.md"],
    ["citations", "spaces.md"],
    ["escape-sources", "spaces.md"],
    ["tally", "spaces-memlog.md"],
    ["citations", "digits.md"],
    ["tally", "digits-memlog.md"],
    ["tally", "memlog.md"],
    ["tally", "no-frontmatter.md"],
    ["staleness", "claims.json", "--windows", windows, "--today", "2026-11-27"],
    ["staleness", "claims.json", "--windows", '{"pricing": -14}', "--today", "2026"],
    ["staleness", "claims.json", "--windows", '{"pricing": "x"}', "--today", "2026-11-27"],
    ["staleness", "claims.json", "--windows", '{"pricing": " \u0663 "}', "--today", "2026-11-27"], // any decimal digits, as int() (review 136)
    ["staleness", "claims.json", "--windows", '{"pricing": "\u0085\u06603"}', "--today", "2026-11-27"], // int() strips U+0085
    ["staleness", "claims.json", "--windows", '{"pricing": "\\u001c3"}', "--today", "2026-11-27"], // but not U+001C-U+001F
    ["staleness", "claims.json", "--windows", `{"pricing": ${"7".repeat(4301)}}`, "--today", "2026-11-27"], // past int()'s 4,300 digits
    ["staleness", "claims.json", "--windows", windows, "--today", "27/11/2026"],
    ["staleness", "bad-date.json", "--windows", windows, "--today", "2026-11-27"],
    ["staleness", "no-date.json", "--windows", windows, "--today", "2026-11-27"],
    ["staleness", "missing.json", "--windows", windows],
    ["slug", "Reading-Habit Apps: Café Über ñ — 2026!!", "--type", "market", "--date", "2026-11-27"],
    ["slug", "x".repeat(39) + " yz", "--type", "t", "--pattern", "{date}/{topic_slug}/{research_type}-{research_type}", "--date", "d"],
    ["slug", "日本語", "--type", "t"],
    ["escape-sources", "research.md"],
    ["escape-sources", "no-rows.md"],
    ["citations", "missing.md"],
    ["tally"],
    ["slug", "x"],
    ["bogus"],
    ["--help"],
    ["staleness", "--help"],
  ];
  await expectSameAsPython(script, main, cases, { cwd: tmp.dir });
});

it("dates a slug with today's date when none is given", async () => {
  const fs = await NodeRuntimeFs.create([tmp.dir]);
  const slug = await main(["slug", "Topic", "--type", "market"], { fs, cwd: tmp.dir, env: {}, scriptPath: script });
  const now = new Date();
  const today = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, "0")}-${String(now.getDate()).padStart(2, "0")}`;
  expect(JSON.parse(slug.stdout)).toEqual({ topic_slug: "topic", folder: `market-topic-${today}` });
});
