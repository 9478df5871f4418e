// The seed feature table (docs/seeds.md) is generated from test/seed-features.ts and cannot drift: it is current,
// each row's verdicts are complete (a proof for "works", a reason for anything else), and each proof names a test
// that exists, by its title, in the file it names.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SEEDS_DOC, withSeedTable } from "../../scripts/readme-tools.js";
import { SEED_FEATURES, type Proof } from "../seed-features.js";
import { ROOT } from "./helpers.js";

const MODIFIERS = new Set(["each", "for", "skipIf", "runIf", "only", "concurrent", "sequential", "fails"]);

/** Index just past the string literal, or the balanced parentheses, that start at `i`. */
function skip(src: string, i: number): number {
  const open = src[i]!;
  if (open === "(") {
    let depth = 0;
    for (let j = i; j < src.length; j++) {
      const c = src[j]!;
      if (c === '"' || c === "'" || c === "`") j = skip(src, j) - 1;
      else if (c === "(") depth++;
      else if (c === ")" && --depth === 0) return j + 1;
    }
    return src.length;
  }
  for (let j = i + 1; j < src.length; j++) {
    if (src[j] === "\\") j++;
    else if (src[j] === open) return j + 1;
  }
  return src.length;
}

/** The titles of the tests in a file: the first argument of it(…)/test(…), it.each(…)(…), it.skipIf(…)(…).
 *  Escapes are read (\" is "); a template's ${…} is kept as written. */
function testTitles(src: string): string[] {
  const titles: string[] = [];
  // As code writes them: `it(` and `it.each(…)(` with nothing between, on a line that is not a comment.
  for (const m of src.matchAll(/(?<![\w.])(?:it|test)(?=[.(])/g)) {
    if (/\/\/|^\s*\*/.test(src.slice(src.lastIndexOf("\n", m.index) + 1, m.index))) continue;
    let i = m.index + m[0].length;
    for (let modifier; (modifier = /^\.([A-Za-z]+)\(/.exec(src.slice(i, i + 20))) && MODIFIERS.has(modifier[1]!); ) i = skip(src, i + modifier[0].length - 1);
    if (src[i] !== "(") continue;
    i++;
    while (/\s/.test(src[i] ?? "")) i++;
    if (!['"', "'", "`"].includes(src[i] ?? "")) continue;
    titles.push(src.slice(i + 1, skip(src, i) - 1).replace(/\\(.)/g, "$1"));
  }
  return titles;
}

/** What is wrong with a proof, or "" when it names exactly one test of its file. */
function checkProof({ file, test }: Proof): string {
  if (!/^test\/(node|worker)\/[\w.-]+\.test\.ts$/.test(file)) return `${file} is not a test file of test/node or test/worker`;
  if (!existsSync(join(ROOT, file))) return `${file} does not exist`;
  const titles = testTitles(readFileSync(join(ROOT, file), "utf8"));
  if (titles.includes(test)) return "";
  const matching = titles.filter((t) => t.includes(test));
  if (matching.length === 1) return "";
  return matching.length ? `"${test}" is in ${matching.length} test titles of ${file}` : `no test of ${file} has a title with "${test}"`;
}

describe("the seed feature table", () => {
  it("is current in docs/seeds.md (npm run docs)", () => {
    const doc = readFileSync(join(ROOT, SEEDS_DOC), "utf8");
    expect(doc).toBe(withSeedTable(doc));
  });

  it("numbers features in seed order, each id once", () => {
    const ids = SEED_FEATURES.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const f of SEED_FEATURES) expect(f.id, f.feature).toMatch(new RegExp(`^${f.seed}-\\d{2}$`));
    expect([...ids].sort()).toEqual(ids);
  });

  it("names a proof for every door that works, and a reason for every other verdict", () => {
    const problems = SEED_FEATURES.flatMap((f) =>
      (["remote", "bridge"] as const).flatMap((door) => {
        const v = f[door];
        if (v.status === "works" && !v.proof) return [`${f.id} ${door}: works without a proof`];
        if (v.status !== "works" && !v.reason?.trim()) return [`${f.id} ${door}: ${v.status} without a reason`];
        return [];
      }),
    );
    expect(problems).toEqual([]);
  });

  it("names, in each proof, a test that exists in the file it names", () => {
    const proofs = SEED_FEATURES.flatMap((f) => (["remote", "bridge"] as const).flatMap((door) => (f[door].proof ? [[`${f.id} ${door}`, f[door].proof] as const] : [])));
    const problems = proofs.map(([where, p]) => [where, checkProof(p)] as const).filter(([, problem]) => problem).map(([where, problem]) => `${where}: ${problem}`);
    expect(problems).toEqual([]);
  });

  it("reads test titles as vitest calls them, and nothing else", () => {
    const src = [
      `describe("a group", () => {`,
      `  it("plain \\"quoted\\"", () => {});`,
      "  it.each([[1, \"(x)\"], [2, ')']])(\"case %i: %s\", () => {});",
      "  it(`template ${name} title`, async () => {});",
      `  it.skipIf(process.platform === "win32")('skipped on windows', () => {});`,
      `  // it is a word in a comment; so is test.`,
      `  const note = "built as a deployment builds it (npm run bundle)";`,
      `});`,
    ].join("\n");
    expect(testTitles(src)).toEqual(['plain "quoted"', "case %i: %s", "template ${name} title", "skipped on windows"]);
  });
});
