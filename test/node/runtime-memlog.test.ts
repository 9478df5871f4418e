// memlog.py and its port: one session (init, append, set and the errors) run by each on the same
// installed tree at the same path, compared step by step on output, exit code and every file.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ScriptResult } from "../../src/core/runtime/context.js";
import { memlogUnappended } from "../../src/core/runtime/memlog-text.js";
import { comparable, install612, resetTree, runPort, runPython, snapshot } from "../fixtures/runtime/harness.js";
import { tempDir } from "./helpers.js";

const tmp = tempDir("runtime-memlog");
const template = join(tmp.dir, "template");
const tree = join(tmp.dir, "project");
const SCRIPT = "_bmad/scripts/memlog.py";
const TYPES = ["idea", "insight", "question", "decision", "direction", "assumption", "gap", "note", "event", "technique"];

interface Step {
  args: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** Prepares files before the step (the same for both runs). */
  before?: () => void;
  /** Clears up after the step, before its files are compared. */
  after?: () => void;
}

function session(): Step[] {
  const ws = join(tree, "_bmad-output/brainstorming/run-1");
  const log = join(ws, ".memlog.md");
  const steps: Step[] = [
    { args: ["init", "--workspace", ws, "--field", "topic=Onboarding flow for a budgeting app", "--field", " goal = lift week-1 retention ", "--field", "eq=a=b", "--field", "unicode=Déjà vu ✓ 😀", "--field", "dash=Pricing --- tiers", "--field", "nl=line one\nline two\r\n---"] },
    { args: ["init", "--workspace", ws] },
    { args: ["init", "--path", log, "--field", "x=y"] },
    { args: ["append", "--workspace", ws, "--text", "skip the signup wall", "--type", "idea", "--by", "user"] },
    { args: ["append", "--path", log, "--text", "  multi\nline \t text\r\n  "] },
    { args: ["append", "--workspace", ws, "--text", "one lever", "--type", "insight"] },
    { args: ["append", "--workspace", ws, "--text", "cheer up", "--by", "coach"] },
    { args: ["append", "--workspace", ws, "--text", "empty tags", "--type", "", "--by", ""] },
    ...TYPES.map((type, i) => ({ args: ["append", i % 2 ? "--path" : "--workspace", i % 2 ? log : ws, "--type", type, "--text", `${type} entry — ü`, ...(i % 3 ? ["--by", "user"] : [])] })),
    { args: ["set", "--workspace", ws, "--key", "goal", "--value", "new goal\nsecond line\u2028third"] },
    { args: ["set", "--path", log, "--key", "new key", "--value", "  spaced  "] },
    { args: ["set", "--workspace", ws, "--key", "updated", "--value", "ignored"] },
    { args: ["append", "--workspace", ws, "--text=--looks-like-an-option", "--type=event"] },
    { args: ["append", "--work", ws, "--te", "abbreviated options", "--b", "user"] },
    { args: ["append", "--workspace", ws, "--text", "- a dash and a space"] },
    { args: ["append", "--workspace", ws, "--text", "-5.5"] },
    { args: ["append", "--workspace", ws, "--text", "-5\n"] },
    // DEL in a value, as Python writes it (in a name the port refuses it, as bmad-files does: review 413).
    { args: ["init", "--path", join(tree, "delete.md"), "--field", "k=\x7f"] },
    { args: ["append", "--workspace", ws, "--text", "-dash"] },
    { args: ["append", "--workspace", ws, "--text", "x", "--", "--by", "y"] },
    // Relative paths resolve against the working directory and print as given.
    { args: ["init", "--path", "notes//./log.md"], cwd: tree },
    { args: ["append", "--path", "notes/log.md", "--text", "relative"], cwd: tree },
    { args: ["init", "--workspace", "."], cwd: join(tree, "docs") },
    // An empty workspace is the working folder, as Path("") is (review 97: the port went to "/").
    { args: ["init", "--workspace", "", "--field", "topic=x"], cwd: join(tree, "empty-ws"), before: () => mkdirSync(join(tree, "empty-ws"), { recursive: true }) },
    { args: ["append", "--workspace", "", "--text", "x"], cwd: join(tree, "empty-ws") },
    { args: ["init", "--workspace", join(tree, "run-é")] },
    // Errors: Python's own messages, exit codes, and what it leaves behind.
    { args: ["init", "--workspace", join(tree, "made-before-the-check"), "--field", "no-equals"] },
    { args: ["append", "--workspace", join(tree, "missing"), "--text", "x"] },
    { args: ["set", "--path", join(tree, "missing.md"), "--key", "k", "--value", "v"] },
    { args: ["append", "--path", join(tree, "_bmad"), "--text", "x"] },
    { args: ["append", "--path", join(tree, "plain.md"), "--text", "x"], before: () => writeFileSync(join(tree, "plain.md"), "no frontmatter\n") },
    { args: ["append", "--path", join(tree, "open.md"), "--text", "x"], before: () => writeFileSync(join(tree, "open.md"), "---\ntopic: t\n") },
    { args: ["append", "--path", join(tree, "crlf.md"), "--text", "x"], before: () => writeFileSync(join(tree, "crlf.md"), "---\r\ntopic: t\r\nodd line\r\n---\r\n\r\n- (idea) a\r\n- b\r\nnot an entry\r\n") },
    { args: ["append", "--path", join(tree, "latin1.md"), "--text", "x"], before: () => writeFileSync(join(tree, "latin1.md"), Buffer.from("---\ntopic: caf\xe9\n---\n", "latin1")) },
    // Text UTF-8 cannot hold (a lone surrogate, which JSON arguments can carry) fails as Python's write does, and
    // nothing is written (review 335: the port wrote U+FFFD and answered ok). Python leaves its empty temp file.
    { args: ["append", "--workspace", ws, "--text", "lone \ud800 surrogate", "--by", "\udc80"], after: () => rmSync(`${log}.tmp`, { force: true }) },
    { args: ["set", "--path", log, "--key", "k", "--value", "x\udfff"], after: () => rmSync(`${log}.tmp`, { force: true }) },
    { args: ["init", "--path", join(tree, "lone.md"), "--field", "k=\udc80"], after: () => rmSync(join(tree, "lone.md.tmp"), { force: true }) },
    { args: ["append", "--path", "", "--text", "x"] },
    { args: ["append", "--workspace", ws] },
    { args: ["append", "--text", "x"] },
    { args: ["set", "--workspace", ws, "--key", "k"] },
    { args: ["set", "--workspace", ws, "--path", log, "--key", "k", "--value", "v"] },
    { args: ["init", "--path"] },
    { args: ["append", "--workspace", ws, "--t", "x"] },
    { args: ["append", "--workspace", ws, "--text", "x", "extra", "--nope"] },
    { args: [] },
    { args: ["bogus"] },
    { args: ["--workspace", ws, "init"] },
    { args: ["-h"] },
    { args: ["init", "-h"] },
    { args: ["append", "--help"] },
    { args: ["set", "-h"], env: { COLUMNS: "60" } },
    // COLUMNS as int() reads it: any decimal digits, U+0085 stripped; U+FEFF and U+001C are no whitespace to it.
    { args: ["set", "-h"], env: { COLUMNS: "\u0085\u0666\u0660" } },
    { args: ["set", "-h"], env: { COLUMNS: "\ufeff60" } },
    { args: ["set", "-h"], env: { COLUMNS: "\u001c60" } },
    { args: ["append", "--text", "x"], env: { COLUMNS: "30" } },
  ];
  return steps;
}

async function runSession(impl: "python" | "port"): Promise<Array<{ result: ScriptResult; files: Map<string, string> }>> {
  resetTree(template, tree);
  mkdirSync(join(tree, "docs"), { recursive: true });
  const out = [];
  for (const step of session()) {
    step.before?.();
    const options = { cwd: step.cwd ?? tree, env: step.env, root: tmp.dir };
    const script = join(tree, SCRIPT);
    const result = impl === "python" ? await runPython(script, step.args, options) : await runPort(script, step.args, options);
    step.after?.();
    out.push({ result: comparable(result), files: snapshot(tree) });
  }
  return out;
}

beforeAll(() => install612(template), 60_000);
afterAll(() => tmp.cleanup());

it("runs a memlog session byte for byte like Python: init, append of every kind, set, and the errors", async () => {
  const python = await runSession("python");
  const port = await runSession("port");
  const steps = session();
  expect(steps.length).toBeGreaterThan(50);
  const view = (runs: typeof python) => runs.map((r, i) => ({ step: steps[i]!.args.join(" "), ...r.result }));
  expect(view(port)).toEqual(view(python));
  for (let i = 0; i < steps.length; i++) {
    const changed = [...port[i]!.files].filter(([k, v]) => python[i]!.files.get(k) !== v).map(([k]) => k);
    const missing = [...python[i]!.files.keys()].filter((k) => !port[i]!.files.has(k));
    expect({ step: steps[i]!.args.join(" "), changed, missing }).toEqual({ step: steps[i]!.args.join(" "), changed: [], missing: [] });
  }
  // The session did what it says: a log with every entry, stamped at the fixed instant (the tree is as the port
  // left it, the same as Python's above).
  const memlog = readFileSync(join(tree, "_bmad-output/brainstorming/run-1/.memlog.md"), "utf8");
  expect(memlog).toMatch(/^---\ntopic: Onboarding flow for a budgeting app\n/);
  expect(memlog).toContain("- (idea by user) skip the signup wall\n");
  expect(memlog).toContain("- (by coach) cheer up\n");
  expect(memlog.match(/^- /gm)).toHaveLength(5 + TYPES.length + 5);
  expect(python.map((r) => r.result.exitCode)).toContain(2);
  expect(python.filter((r) => r.result.stderr.startsWith("Traceback")).length).toBeGreaterThanOrEqual(6);
}, 60_000);

it("names what a copy did to a memlog beyond appending, in text a terminal shows as it is (review 264)", () => {
  const base = "---\ntitle: x\n---\n- (event) first \u009b31m\u001b[2Jred \u202eevil\n- second\n";
  const removed = memlogUnappended(base, "---\ntitle: x\n---\n- second\n")!;
  expect(removed).toMatch(/^removed the entry "- \(event\) first /);
  expect(removed).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
  expect(memlogUnappended(base, `${base}- (event) third\n`)).toBeUndefined();
  expect(memlogUnappended(base, base.replace("- second", "- 2nd"))).toBe('changed the entry "- second"');
});
