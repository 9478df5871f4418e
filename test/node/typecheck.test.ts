// The whole project type-checks (src, scripts, tests): run inside `npm test`, beside the other files. TypeScript 7
// (the native compiler) checks it in about 3 s; 5.9 took 25 s of CPU, a sixth of the suite's.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { ROOT } from "./helpers";

// The views' browser code (src/views, test/views) has a config of its own: the DOM's types, which the rest has not.
it.each(["tsconfig.json", "src/views/tsconfig.json"])("type-checks with tsc -p %s", async (config) => {
  const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
  // One thread: the files beside this one keep the other cores busy, and tsc's parallel checkers cost 2 s more CPU.
  const out = await promisify(execFile)(process.execPath, [tsc, "-p", join(ROOT, config), "--singleThreaded"], { cwd: ROOT, maxBuffer: 16 << 20 }).then(
    () => "",
    (e: { stdout: string }) => e.stdout || String(e),
  );
  expect(out).toBe("");
}, 60_000);
