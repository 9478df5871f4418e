// The whole project type-checks (src, scripts, tests): run inside `npm test`, beside the other files. Incremental:
// a later run re-checks what changed (about 4 s of CPU instead of 15).
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { ROOT } from "./helpers";

it("type-checks with tsc", async () => {
  const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
  const out = await promisify(execFile)(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.json"), "--incremental", "--tsBuildInfoFile", join(ROOT, "node_modules/.cache/bmad-mcp/tsconfig.tsbuildinfo")], { cwd: ROOT, maxBuffer: 16 << 20 }).then(
    () => "",
    (e: { stdout: string }) => e.stdout || String(e),
  );
  expect(out).toBe("");
}, 120_000);
