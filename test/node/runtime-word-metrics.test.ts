// bmad-review's word_metrics.py beside its port (what the remote runs, where Python cannot): word counts of real
// BMAD documents and of one with every edge the script names (fences, CJK, headings, bad UTF-8, no markdown).
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "vitest";
import { main } from "../../src/core/runtime/word-metrics.js";
import { expectSameAsPython } from "../fixtures/runtime/harness.js";
import { tempDir } from "./helpers.js";

const tmp = tempDir("runtime-word-metrics");
const skill = join(tmp.dir, "bmad-review");
cpSync(join(process.cwd(), "node_modules/bmad-method/src/core-skills/bmad-review"), skill, { recursive: true });
cpSync(join(process.cwd(), "node_modules/bmad-method/src/bmm-skills/plan/bmad-prd/SKILL.md"), join(tmp.dir, "prd-skill.md"));
const script = join(skill, "scripts/word_metrics.py");

const EDGES = `\ufeffA preamble, with  spaces\tand tabs.
# Title   
Words here 日本語のテキスト and 한국어 and ｶﾀｶﾅ.
\`\`\`\`md
# not a heading
\`\`\`
still inside
\`\`\`\`
   ~~~
## inside tilde
~~~~
####### seven is no heading
###### Six
#NoSpace
##   
## Last\u2028line two\u000bthree\r\nfour\rfive
`;

it("counts words as word_metrics.py does", async () => {
  mkdirSync(join(tmp.dir, "out"), { recursive: true });
  writeFileSync(join(tmp.dir, "edges.md"), EDGES);
  writeFileSync(join(tmp.dir, "bad.md"), Buffer.from([0x23, 0x20, 0x61, 0xff, 0xfe, 0x62, 0x0a, 0xe6, 0x97, 0x20, 0x63]));
  writeFileSync(join(tmp.dir, "plain.txt"), "no markdown at all\n\njust words");
  writeFileSync(join(tmp.dir, "empty.md"), "");
  // Python's `\s` (review 335): U+FEFF is no whitespace to it; U+001C-U+001F and U+0085 are.
  writeFileSync(join(tmp.dir, "spaces.md"), "##\ufeffTitle one\nwords\n##\x1fOther\nmore words\n#\x85\ufeffThird x\n");
  const cases = [
    ["prd-skill.md"],
    [join(skill, "SKILL.md")],
    ["edges.md"],
    ["bad.md"],
    ["plain.txt"],
    ["empty.md"],
    ["spaces.md"],
    ["./out//"],
    ["missing.md"],
    ["edges.md", "-o", "out/report.json"],
    ["edges.md", "--output", "nowhere/report.json"],
    ["edges.md", "--output="], // empty: not given (review 129: a traceback)
    [],
    ["--help"],
  ];
  await expectSameAsPython(script, main, cases, { cwd: tmp.dir, writes: (args) => (args.includes("-o") ? "out/report.json" : undefined) });
});
