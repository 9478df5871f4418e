// A ported script's run is bounded on both doors: each stream of its answer is cut to 256 KB (JSON keeps its head,
// other text its end), saying so and how to get the rest; it stops with a clear error at its time or work limit; and its output goes out once, in
// the text (structuredContent holds the exit code and sizes). lint_spine on a 1 MiB spine of placeholders used to run
// 96 s on the remote and answer 126.6 MB (the findings twice). The Worker's side is test/worker/run-bounds.test.ts.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { budgetedFs, capOutput, MAX_OUTPUT_BYTES, runBudget, ScriptTimeout } from "../../src/core/runtime/budget.js";
import { main as lintSpine } from "../../src/core/runtime/lint-spine.js";
import { runAnswer } from "../../src/core/surface/tools/run-answer.js";
import { MemoryFs } from "../fixtures/runtime/memory-fs.js";
import { runStreams } from "../shared/run-output.js";
import { connectBridge, tempDir, toolText } from "./helpers.js";

const tmp = tempDir("run-bounds");
const dir = join(tmp.dir, "project");
let client: Client;
let close: () => Promise<void>;

beforeAll(async () => {
  mkdirSync(join(dir, "big"), { recursive: true });
  mkdirSync(join(dir, "huge"), { recursive: true });
  mkdirSync(join(dir, "some"), { recursive: true });
  writeFileSync(join(dir, "big/ARCHITECTURE-SPINE.md"), "TBD\n".repeat(64 * 1024)); // 65,536 findings: 11 MB of JSON
  writeFileSync(join(dir, "huge/ARCHITECTURE-SPINE.md"), "TBD ".repeat(256 * 1024)); // 1 MiB
  writeFileSync(join(dir, "some/ARCHITECTURE-SPINE.md"), "TBD\n".repeat(2400)); // 400 KB of JSON
  ({ client, close } = await connectBridge(inject("bridge"), dir, { home: join(tmp.dir, "home") }));
}, 120_000);
afterAll(async () => {
  await close?.();
  tmp.cleanup();
});

const lint = (workspace: string, extra = "") => `uv run {skill-root}/scripts/lint_spine.py --workspace ${workspace}${extra}`;

async function bmadRun(command: string) {
  const started = performance.now();
  const result = await client.callTool({ name: "bmad-run", arguments: { command } });
  const ms = performance.now() - started;
  const text = toolText(result);
  return { ms, text, result, structured: result.structuredContent as Record<string, any>, ...runStreams(text, result.structuredContent as Record<string, number>) };
}

it("cuts a JSON answer to its first 256 KB, says it is not whole JSON and how to get the rest, and sends it once", async () => {
  const big = await bmadRun(lint("big"));
  expect(big.ms).toBeLessThan(10_000);
  expect(big.result.isError, big.text.slice(0, 300)).toBeFalsy();
  expect(big.structured).toMatchObject({ script: "lint_spine.py", exit_code: 0, stdout_bytes: MAX_OUTPUT_BYTES, stderr_bytes: 0 });
  expect(big.structured.truncated.stdout).toBeGreaterThan(10_000_000);
  expect(big.text).toMatch(/^lint_spine\.py exited 0\n\(stdout was cut: its last \d+ of \d+ bytes are left out, so it is not whole JSON, 256 KB kept per stream\. To get all of it, run it again with -o FILE/);
  // The head is kept (review 228): the totals, and the first findings.
  expect(big.stdout.slice(0, 1000)).toMatch(/^{\n {2}"ok": false,\n {2}"spine": "ARCHITECTURE-SPINE\.md",\n {2}"total_findings": 65536,[^]*"location": "ARCHITECTURE-SPINE\.md \(line 1\)"/);
  expect(Buffer.byteLength(big.text)).toBeLessThan(MAX_OUTPUT_BYTES + 1024);
  expect(JSON.stringify(big.result).length).toBeLessThanOrEqual(1.3 * big.text.length);
  expect(JSON.stringify(big.structured)).not.toContain("TBD");
});

it("keeps the range and totals of a long git_evidence answer, and names a narrower --range (review 228: its first 1.4 MB were dropped)", async () => {
  // 600 commits of long subjects: about 400 KB of JSON, made at once by fast-import.
  const subject = "s".repeat(500);
  const commits = Array.from({ length: 600 }, (_, i) => `commit refs/heads/main\ncommitter t <t@example.com> ${1_700_000_000 + i} +0000\ndata ${subject.length + 6}\n${String(i).padStart(5, "0")} ${subject}\n`).join("");
  execFileSync("git", ["init", "-q", "-b", "main", dir]);
  execFileSync("git", ["fast-import", "--quiet"], { cwd: dir, input: commits });
  const long = await bmadRun("uv run bmad://bmm/bmad-retrospective/scripts/git_evidence.py --repo {project-root} --range HEAD~599..HEAD");
  expect(long.result.isError, long.text.slice(0, 300)).toBeFalsy();
  expect(long.structured.truncated.stdout).toBeGreaterThan(0);
  expect(long.text).toMatch(/^git_evidence\.py exited 0\n\(stdout was cut: its last \d+ of \d+ bytes are left out, so it is not whole JSON, 256 KB kept per stream\. To get all of it, run it on a narrower --range/);
  expect(long.stdout.slice(0, 100)).toMatch(/^{"range": "HEAD~599\.\.HEAD", "commit_count": 599, "merge_count": 0, /);
});

it("writes the whole of a large answer with -o, to read with bmad-files", async () => {
  const some = await bmadRun(lint("some"));
  expect(some.structured.truncated?.stdout).toBeGreaterThan(0);
  const written = await bmadRun(lint("some", " -o some/lint.json"));
  expect(written.structured).toMatchObject({ exit_code: 0, stdout_bytes: 0 });
  expect(JSON.parse(readFileSync(join(dir, "some/lint.json"), "utf8"))).toMatchObject({ total_findings: 2400 });
});

it("stops a run past its limit within seconds, with a clear error that keeps the code and output", async () => {
  const huge = await bmadRun(lint("huge"));
  expect(huge.ms).toBeLessThan(8_000);
  expect(huge.result.isError).toBe(true);
  expect(huge.structured).toMatchObject({ script: "lint_spine.py", exit_code: 1, timed_out: true });
  expect(huge.text).toMatch(/^lint_spine\.py exited 1 \(stopped at its limit\)\nstderr:\nStopped: it reached bmad-run's work limit for a ported script .*: give it less input\.\n$/);
});

it("keeps every answer's JSON within 1.3 times its text (and a fixed envelope of 300 bytes on a short one)", async () => {
  writeFileSync(join(dir, "doc.md"), "# A\none two\n## B\nthree\n");
  for (const command of [lint("some"), lint("big"), "uv run {skill-root}/scripts/word_metrics.py doc.md", "uv run {skill-root}/scripts/lint_spine.py --workspace nowhere", "uv run {skill-root}/scripts/recon_kit.py slug 'A topic' --type market --date 2026-01-01", "uv run {skill-root}/scripts/recon_kit.py --help"]) {
    const { result, text } = await bmadRun(command);
    const json = JSON.stringify(result).length;
    expect(json, command).toBeLessThanOrEqual(Math.max(1.3 * text.length, text.length + 300));
  }
});

it("answers a non-zero exit as an error that still carries the code, stdout and stderr", async () => {
  const failed = await bmadRun("uv run {skill-root}/scripts/recon_kit.py slug '!!!' --type market");
  expect(failed.result.isError).toBe(true);
  expect(failed.structured).toMatchObject({ exit_code: 2, stdout_bytes: 0 });
  expect(failed.stderr).toBe("error: topic slugified to an empty string\n");
});

it("cuts text at a character boundary and keeps the end, JSON its head", () => {
  const text = `${"é".repeat(MAX_OUTPUT_BYTES)}end`;
  const cut = capOutput(text);
  expect(cut.text.endsWith("end")).toBe(true);
  expect(Buffer.byteLength(cut.text)).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
  expect(cut.bytes).toBe(Buffer.byteLength(text));
  expect(cut.dropped).toBe(cut.bytes - Buffer.byteLength(cut.text));
  expect(capOutput("😀".repeat(3), 5).text).toBe("😀");
  const answer = runAnswer({ root: "/p", fsRoot: "/p" }, "x.py", { stdout: text, stderr: "", exitCode: 0 });
  expect(answer.ok && answer.structured).toMatchObject({ stdout_bytes: Buffer.byteLength(cut.text), truncated: { stdout: cut.dropped } });
  // A real script's output the bridge cut where it ran is said to be cut too.
  const real = runAnswer({ root: "/p", fsRoot: "/p" }, "x.py", { stdout: "tail", stderr: "", exitCode: 0, truncated: true }, true);
  expect(real.ok && real.text).toMatch(/^x\.py exited 0\n\(Its output was cut to the last 256 KB of each stream where it ran\./);
  expect(real.ok && real.structured).toMatchObject({ stdout_bytes: 4, truncated: {} });
  const json = ` \n[${"\"😀\",".repeat(MAX_OUTPUT_BYTES)}"end"]`;
  const head = capOutput(json);
  expect(head.text.startsWith(" \n[\"😀\",")).toBe(true);
  expect(head.text).not.toContain("end");
  expect(Buffer.byteLength(head.text)).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
  expect(head.dropped).toBe(head.bytes - Buffer.byteLength(head.text));
  expect(capOutput("{😀😀", 4).text).toBe("{");
  expect(capOutput("[😀😀", 6).text).toBe("[😀");
});

it("stops at the clock, at the work count, and counts every file call", async () => {
  let now = 0;
  const clock = runBudget(5_000, Number.MAX_SAFE_INTEGER, () => now);
  clock.spend(70_000);
  now = 5_001;
  expect(() => clock.spend(70_000)).toThrow(ScriptTimeout);
  const work = runBudget(60_000, 1_000, () => 0);
  expect(() => work.spend(1_001)).toThrow(/work limit/);
  const fs = new MemoryFs();
  const counted = budgetedFs(fs, runBudget(60_000, 5_000, () => 0));
  await counted.stat("/a");
  await counted.stat("/a");
  await expect(counted.stat("/a")).rejects.toThrow(ScriptTimeout);
  // Time in a real script the port hands a part to is not the port's.
  let t = 0;
  const off = runBudget(1_000, Number.MAX_SAFE_INTEGER, () => t);
  await off.offClock(async () => void (t += 10_000));
  expect(() => off.spend(70_000)).not.toThrow();
  // A port run with a budget: lint_spine's findings stop at the work limit.
  fs.files.set("/w/ARCHITECTURE-SPINE.md", new TextEncoder().encode("TBD ".repeat(256 * 1024)));
  const started = performance.now();
  const stopped = await lintSpine(["--workspace", "/w"], { fs, cwd: "/", budget: runBudget() });
  expect(performance.now() - started).toBeLessThan(5_000);
  expect(stopped).toMatchObject({ exitCode: 1, timedOut: true, stdout: "" });
});
