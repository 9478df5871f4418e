/// <reference types="@cloudflare/vitest-plugin/types" />
// A ported script on the remote is bounded as on the bridge (test/node/run-bounds.test.ts): lint_spine on a 1 MiB
// spine of placeholders ran 96 s here and answered 126.6 MB, the findings twice.
import { beforeAll, expect, it, vi } from "vitest";
import { TOOL } from "../../src/core/surface/names.js";
import { seed } from "./setup.js";
import { signInAs, unique, type Person } from "./workspace-users.js";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let ada: Person;
let root: string;

beforeAll(async () => {
  await seed();
  ada = await signInAs(`${unique("ada")}@example.com`);
  const project = unique("bounds");
  root = `bmad://projects/${project}`;
  expect((await ada.project({ action: "create", name: project })).isError).toBe(false);
  for (const [path, content] of [["big/ARCHITECTURE-SPINE.md", "TBD\n".repeat(64 * 1024)], ["huge/ARCHITECTURE-SPINE.md", "TBD ".repeat(256 * 1024)]]) {
    const written = await ada.files({ action: "write", project, path, content });
    expect(written.isError, written.text).toBe(false);
  }
});

async function lint(workspace: string) {
  const started = Date.now();
  const raw = await ada.client.callTool({ name: TOOL.bmadRun, arguments: { command: `uv run {skill-root}/scripts/lint_spine.py --workspace ${root}/${workspace}` } });
  return { ms: Date.now() - started, raw, text: (raw.content as Array<{ text: string }>).map((c) => c.text).join("\n"), structured: raw.structuredContent as Record<string, any> };
}

it("cuts a large JSON answer to its first 256 KB, says it is not whole JSON, and sends it once", async () => {
  const big = await lint("big");
  expect(big.ms).toBeLessThan(15_000);
  expect(big.raw.isError, big.text.slice(0, 300)).toBeFalsy();
  expect(big.structured).toMatchObject({ script: "lint_spine.py", exit_code: 0, stdout_bytes: 256 * 1024, stderr_bytes: 0 });
  expect(big.structured.truncated.stdout).toBeGreaterThan(10_000_000);
  expect(big.text).toMatch(/^lint_spine\.py exited 0\n\(stdout was cut: its last \d+ of \d+ bytes are left out, so it is not whole JSON, .* run it again with -o FILE/);
  expect(big.text).toMatch(/\nstdout:\n{\n {2}"ok": false,\n {2}"spine": "ARCHITECTURE-SPINE\.md",\n {2}"total_findings": 65536,/);
  expect(JSON.stringify(big.raw).length).toBeLessThanOrEqual(1.3 * big.text.length);
});

it("stops a run past its limit within seconds, with a clear error", async () => {
  const huge = await lint("huge");
  expect(huge.ms).toBeLessThan(15_000);
  expect(huge.raw.isError).toBe(true);
  expect(huge.structured).toMatchObject({ exit_code: 1, timed_out: true });
  expect(huge.text).toMatch(/Stopped: it reached bmad-run's work limit for a ported script .*: give it less input\./);
});
