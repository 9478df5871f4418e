// The README's set-up on a fresh clone: two commands, which .ci/run runs; `npm ci` accepts the lock file on
// every platform, and on the system's Node (20 in CI) it prints no warnings the user cannot act on.
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { missingOptional } from "../../scripts/complete-lock.js";
import { ROOT, tempDir } from "./helpers";

const run = promisify(execFile);
const tmp = tempDir("install");
afterAll(() => tmp.cleanup());

/** PATH without the project's node_modules/.bin: `node` and `npm` are the system's, as on a fresh clone. */
const systemPath = (process.env.PATH ?? "").split(delimiter).filter((dir) => !dir.startsWith(join(ROOT, "node_modules"))).join(delimiter);

/** `npm ci` as the README runs it, dry and offline: it checks the lock file against package.json. */
async function npmCiDry(): Promise<{ code: number; output: string }> {
  for (const file of ["package.json", "package-lock.json", ".npmrc"]) copyFileSync(join(ROOT, file), join(tmp.dir, file));
  const done = await run("npm", ["ci", "--dry-run", "--offline", "--ignore-scripts"], { cwd: tmp.dir, env: { ...process.env, PATH: systemPath }, maxBuffer: 16 << 20 }).then(
    (r) => ({ code: 0, output: `${r.stdout}${r.stderr}` }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, output: `${e.stdout}${e.stderr}` }),
  );
  return done;
}

it("says how to start in two commands, one that sets up and serves and one that tests, as .ci/run runs them", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.split("\n## Two commands\n")[1]!.split("\n## ")[0]!;
  const commands = section.split("```sh\n")[1]!.split("```")[0]!.trim().split("\n").map((line) => line.split("#")[0]!.trim());
  expect(commands).toEqual(["npm ci && npm run dev", "npm test"]);
  const ci = readFileSync(join(ROOT, ".ci/run"), "utf8").split("\n").filter((line) => line && !line.startsWith("#"));
  // npm test runs under bash's `time`, which prints its CPU and wall time at the end.
  expect(ci.slice(-3)).toEqual(["npm ci", "TIMEFORMAT='npm test: %R s wall, %U s user + %S s sys CPU'", "time npm test"]);
});

it("locks every platform's optional packages, so npm ci works on macOS and Windows too", () => {
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8"));
  expect(missingOptional(lock.packages)).toEqual([]);
  expect(Object.keys(lock.packages)).toEqual(expect.arrayContaining(["node_modules/@cloudflare/workerd-darwin-arm64", "node_modules/@cloudflare/workerd-windows-64"]));
});

it("runs npm ci on a fresh clone without a warning, on the system's Node", async () => {
  expect(existsSync(join(ROOT, ".npmrc"))).toBe(true);
  const { code, output } = await npmCiDry();
  expect(output).not.toMatch(/npm error|Missing: /);
  expect(code).toBe(0);
  expect(output).not.toMatch(/npm warn/i);
}, 60_000);
