// bmad-architecture's lint_spine.py beside its port (what the remote runs, where Python cannot): the skill's own
// template, a spine with every kind of finding, Unicode edges of \b, and the failures that travel in the JSON.
import { copyFileSync, cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "vitest";
import { main } from "../../src/core/runtime/lint-spine.js";
import { expectSameAsPython } from "../fixtures/runtime/harness.js";
import { tempDir } from "./helpers.js";

const tmp = tempDir("runtime-spine");
const skill = join(tmp.dir, "bmad-architecture");
cpSync(join(process.cwd(), "node_modules/bmad-method/src/bmm-skills/plan/bmad-architecture"), skill, { recursive: true });
const script = join(skill, "scripts/lint_spine.py");

const SPINE = `---
paradigm: TBD
scope: {scope}
date: 2026-11-27
---
# Architecture spine

Intro with a TODO and a FIXME, but éTBD and TBDé are words, XXX stands alone. See similar to ad-7.
An {unfilled_token} and a {Not-a-token} and {a b/c.d-e}.

\`\`\`mermaid
graph TD; TODO --> AD-9
## AD-9 inside a fence
\`\`\`

## AD-1 Storage
Binds: the ledger. Prevents: drift. Rule: one writer.

### AD-1 again
Binds x. Prevents y. Rule z.

## AD-3 Missing
Binds only.

#### AD-2 Out of order
nothing here

## AD-10x not an id

## Stack & Versions

| Version | Name | Notes |
|---|:-:|---|
| 5.4 | TypeScript | fine |
|  | Hono | no version |
| {version} | Zod | token version |
| 1.0 | {name} | a skeleton row |
| only-one-cell |

## Stacked
| Name | Version |
| Lost | |

##Stack
| Name | Version |
| Ignored | |
`;

function workspace(name: string, text: string | Buffer): string {
  const dir = join(tmp.dir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "ARCHITECTURE-SPINE.md"), text);
  return dir;
}

it("lints as lint_spine.py does: the template, every finding, and the failures", async () => {
  const template = join(tmp.dir, "template");
  mkdirSync(template);
  copyFileSync(join(skill, "assets/spine-template.md"), join(template, "ARCHITECTURE-SPINE.md"));
  mkdirSync(join(tmp.dir, "a-folder/ARCHITECTURE-SPINE.md"), { recursive: true });
  const cases = [
    ["--workspace", template],
    ["--workspace", workspace("full", SPINE)],
    ["--workspace", workspace("crlf", SPINE.replace(/\n/g, "\r\n"))],
    ["--workspace", workspace("clean", "---\nparadigm: layered\n---\n## AD-1 A\nBinds a. Prevents b. Rule c.\n")],
    ["--workspace", workspace("no-frontmatter", "---\nnever closed\n## AD-1\n")],
    ["--workspace", workspace("latin1", Buffer.from([0x23, 0x20, 0xe9, 0x0a]))],
    ["--workspace", "a-folder"],
    ["--workspace", "nowhere//."],
    ["--workspace", "full", "-o", "report.json"],
    ["--workspace", "full", "--output", "missing/report.json"],
    ["--workspace", "full", "-o", ""], // empty: not given (review 129: a traceback)
    // Any decimal digits make an id, as Python's \d and int() read them (review 129: no finding).
    ["--workspace", workspace("unicode-digits", "## AD-١٢ x\nBinds Prevents Rule\n## AD-٣ y\n## AD-１ z\nsimilar to AD-٤\n")],
    // Python's `\s` (review 335): U+FEFF is no whitespace to it; U+001C-U+001F and U+0085 are.
    ["--workspace", workspace("spaces", "##\x1cAD-1 a\n##\ufeffAD-2 b\n#\x85Title\n##\x1fStack\n| lib | latest |\n##\ufeffStack\n| other | latest |\n")],
    [],
    ["--help"],
  ];
  await expectSameAsPython(script, main, cases, { cwd: tmp.dir, writes: (args) => (args.includes("-o") && args[args.indexOf("-o") + 1] ? "report.json" : undefined) });
});
