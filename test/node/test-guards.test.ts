// Assertions that cannot fail, kept out of the suite: a scan of every test file for the shapes that hid them
// (issue 31), naming each file:line. The scanner itself is tested on samples, so the guard can fail.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "./helpers";

/** Text any output holds: a regex or string that matches one of these proves nothing about the output. */
const NOISE = ["", " ", "0", "a", "_", "2026-11-28T01:41:58.574Z"];
/** After `expect(a && b)`: a matcher that passes when `a` is falsy, whatever `b` would have been. */
const PASSES_ON_FALSY = /^\s*\.(not\b|toBe\(false\)|toBeFalsy\(\)|toEqual\(false\)|toStrictEqual\(false\))/;

/** The index just past the string, template or regex literal opening at `i` (`open` is its quote). */
function skipLiteral(text: string, i: number, open: string): number {
  let inClass = false;
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j];
    if (c === "\\") j++;
    else if (open === "/" && c === "[") inClass = true;
    else if (open === "/" && c === "]") inClass = false;
    else if (c === open && !inClass) return j + 1;
    else if (open !== "`" && c === "\n") return j; // not a literal after all
  }
  return text.length;
}

/** Whether a `/` at `i` opens a regex literal (not a division or a comment), from the code before it. */
function opensRegex(text: string, i: number): boolean {
  const before = text.slice(0, i).trimEnd();
  return before === "" || /[(,=:[!&|?{};]$|\breturn$/.test(before);
}

/** From `(` at `open`: the text inside the balanced parentheses, and where the `)` is; literals are skipped. */
function inside(text: string, open: number): { arg: string; end: number; andAtTop: boolean } {
  let depth = 0;
  let andAtTop = false;
  for (let j = open; j < text.length; j++) {
    const c = text[j]!;
    if (c === '"' || c === "'" || c === "`" || (c === "/" && text[j + 1] !== "/" && text[j + 1] !== "*" && opensRegex(text, j))) {
      j = skipLiteral(text, j, c) - 1;
    } else if (c === "/" && text[j + 1] === "/") {
      j = text.indexOf("\n", j) < 0 ? text.length : text.indexOf("\n", j);
    } else if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") {
      depth--;
      if (depth === 0) return { arg: text.slice(open + 1, j), end: j + 1, andAtTop };
    } else if (depth === 1 && c === "&" && text[j + 1] === "&") andAtTop = true;
  }
  return { arg: text.slice(open + 1), end: text.length, andAtTop };
}

/** `file:line: why` for each assertion in `text` that cannot fail, or asserts nothing about its subject. */
function weakAssertions(file: string, text: string): string[] {
  const found: string[] = [];
  const at = (i: number, why: string) => found.push(`${file}:${text.slice(0, i).split("\n").length}: ${why}`);
  for (const m of text.matchAll(/\bexpect\(/g)) {
    const open = m.index + m[0].length - 1;
    const { arg, end, andAtTop } = inside(text, open);
    if (andAtTop && PASSES_ON_FALSY.test(text.slice(end))) at(m.index, `expect(${arg.slice(0, 60)}) with a matcher that passes when the left of && is falsy: assert it on its own first`);
  }
  for (const m of text.matchAll(/(\.not)?\.toMatch\(\s*/g)) {
    if (m[1]) continue; // a negative match is as strong as its pattern is close to the truth; no scan can tell
    const start = m.index + m[0].length;
    const quote = text[start]!;
    if (quote !== "/" && quote !== '"' && quote !== "'") continue;
    const end = skipLiteral(text, start, quote);
    const literal = text.slice(start, end);
    let matches: (probe: string) => boolean;
    if (quote === "/") {
      const flags = /^[a-z]*/.exec(text.slice(end))![0];
      let re: RegExp;
      try {
        re = new RegExp(literal.slice(1, -1), flags);
      } catch {
        continue; // not a regex literal after all
      }
      // Anchored at both ends, a pattern must match the whole output: only one that takes "" takes anything.
      const whole = /^\^[\s\S]*\$$/.test(re.source) && !re.multiline;
      matches = (probe) => (!whole || probe === "") && re.test(probe);
    } else matches = (probe) => probe.includes(literal.slice(1, -1));
    const noise = NOISE.find(matches);
    if (noise !== undefined) at(m.index, `toMatch(${literal}) matches ${JSON.stringify(noise)}, which any output holds: match what only the behaviour writes`);
  }
  return found;
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "fixtures" ? [] : testFiles(path);
    return /\.(test\.)?ts$/.test(e.name) ? [path] : [];
  });
}

it("finds the shapes of assertion that cannot fail, naming file and line", () => {
  const sample = [
    "expect(read.ok && read.text).not.toContain(MARKER);", // line 1
    "expect(x.ok && x.text.includes(m)).toBe(false);",
    "expect(!x.ok && x.error).toMatch(/refused/);", // fails when x.ok: fine
    "expect(history.text).toMatch(/2/);",
    'expect(out).toMatch("");',
    "expect(out).toMatch(/\\d/);",
    "expect(out).toMatch(/[\\s\\S]*/);",
    "expect(out).not.toMatch(/2/);", // a negative: not judged
    "expect(out).toMatch(/^v2 write /m);",
    "expect(f(a && b)).not.toBe(1);", // the && is inside a call: not the subject
    "expect(a).toBe(b && c);",
    "expect(token).toMatch(/^\\S{20,}$/);", // a whole-output shape
    "expect(out).toMatch(/^.*$/);",
  ].join("\n");
  expect(weakAssertions("sample.ts", sample).map((line) => line.slice(0, line.indexOf(": ")))).toEqual(["sample.ts:1", "sample.ts:2", "sample.ts:4", "sample.ts:5", "sample.ts:6", "sample.ts:7", "sample.ts:13"]);
});

it("keeps every test file free of them", () => {
  const found = testFiles(join(ROOT, "test"))
    .filter((file) => file !== import.meta.filename) // its samples are strings
    .flatMap((file) => weakAssertions(relative(ROOT, file), readFileSync(file, "utf8")));
  expect(found).toEqual([]);
});
