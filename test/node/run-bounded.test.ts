// runBounded, the bridge's one way to run a process (the completion contract, bmad-run's skill scripts):
// argument arrays only, answered within the time limit plus a short grace, and everything the process
// started killed however the run ends, including children that left its session and cleared their environment.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { killAllRuns, runBounded } from "../../src/bridge/run-bounded.js";
import { processRuns, tempDir, waitFor } from "./helpers.js";

const tmp = tempDir("run-bounded");
const GRACE = 1000; // the answer may come this long after the limit (500 ms grace, a busy machine)
afterAll(() => tmp.cleanup());

/** A shell script (the test's own choice of program) that records its pid and an escaped sleeper's pid. */
function escaping(name: string, how: string): { argv: string[]; pids: () => Promise<number[]> } {
  const script = `echo $$ > ${name}.script; ${how} sh -c 'echo $$ > ${name}.sleeper; exec sleep 60' & echo started; wait`;
  const read = (file: string) => (existsSync(join(tmp.dir, file)) ? Number(readFileSync(join(tmp.dir, file), "utf8")) || undefined : undefined);
  return {
    argv: ["sh", "-c", script],
    pids: async () => [await waitFor("the script's pid", () => read(`${name}.script`), 5000), await waitFor("the sleeper's pid", () => read(`${name}.sleeper`), 5000)],
  };
}

const allGone = (pids: number[]) => waitFor(`processes ${pids.join(", ")} to end`, () => (pids.some(processRuns) ? undefined : true), 1000);

describe("runBounded", () => {
  it("runs an argument array as given: no shell expands it", async () => {
    const run = await runBounded(["echo", "$(touch pwned)", "`touch pwned`"], { cwd: tmp.dir, timeoutMs: 5000 });
    expect(run).toMatchObject({ stdout: "$(touch pwned) `touch pwned`\n", exitCode: 0, timedOut: false, cancelled: false });
    expect(existsSync(join(tmp.dir, "pwned"))).toBe(false);
  });

  it("takes a limit past Node's longest timer as the longest, not as none (review 184: Infinity timed every run out)", async () => {
    for (const timeoutMs of [Infinity, 2 ** 31]) {
      expect(await runBounded(["sh", "-c", "sleep 0.2; echo done"], { cwd: tmp.dir, timeoutMs })).toMatchObject({ stdout: "done\n", exitCode: 0, timedOut: false });
    }
  });

  it("answers at the limit plus the grace while a child that left the session holds the pipes, and kills both", async () => {
    const { argv, pids } = escaping("timeout", "setsid");
    const run = await runBounded(argv, { cwd: tmp.dir, timeoutMs: 800 });
    expect(run).toMatchObject({ timedOut: true, cancelled: false, exitCode: null, stdout: "started\n" });
    expect(run.durationMs).toBeGreaterThanOrEqual(800);
    expect(run.durationMs).toBeLessThan(800 + GRACE);
    await allGone(await pids());
  });

  it("kills a descendant that left the session and cleared its environment (found below the run)", async () => {
    const { argv, pids } = escaping("no-env", "setsid env -i");
    const run = await runBounded(argv, { cwd: tmp.dir, timeoutMs: 800 });
    expect(run.timedOut).toBe(true);
    await allGone(await pids());
  });

  it("kills what the process left running when it exits, and answers at once", async () => {
    const read = () => (existsSync(join(tmp.dir, "left.pid")) ? Number(readFileSync(join(tmp.dir, "left.pid"), "utf8")) || undefined : undefined);
    const run = await runBounded(["sh", "-c", "setsid sh -c 'echo $$ > left.pid; exec sleep 60' >/dev/null 2>&1 & sleep 0.2; exit 3"], { cwd: tmp.dir, timeoutMs: 30_000 });
    expect(run).toMatchObject({ exitCode: 3, timedOut: false });
    expect(run.durationMs).toBeLessThan(2000);
    await allGone([await waitFor("the left-behind pid", read, 1000)]);
  });

  it("stops on the caller's signal, marking the run cancelled", async () => {
    const { argv, pids } = escaping("cancel", "setsid");
    const cancel = new AbortController();
    const running = runBounded(argv, { cwd: tmp.dir, timeoutMs: 60_000, signal: cancel.signal });
    const started = await pids();
    cancel.abort();
    const run = await running;
    expect(run).toMatchObject({ cancelled: true, timedOut: false });
    expect(run.durationMs).toBeLessThan(5000 + GRACE);
    await allGone(started);
  });

  it("kills every live run when the bridge exits (killAllRuns)", async () => {
    const { argv, pids } = escaping("exit", "setsid");
    const running = runBounded(argv, { cwd: tmp.dir, timeoutMs: 60_000 });
    const started = await pids();
    killAllRuns();
    const run = await running;
    expect(run.exitCode).toBeNull();
    await allGone(started);
  });

  it("feeds stdin, keeps both streams in arrival order, and keeps only the last bytes of a large output", async () => {
    const echo = await runBounded(["sh", "-c", "read x; echo out:$x; sleep 0.1; echo err:$x >&2"], { cwd: tmp.dir, timeoutMs: 5000, stdin: "hi\n" });
    expect(echo).toMatchObject({ stdout: "out:hi\n", stderr: "err:hi\n", output: "out:hi\nerr:hi\n", truncated: false });
    const big = await runBounded([process.execPath, "-e", "process.stdout.write('a'.repeat(300000) + 'END')"], { cwd: tmp.dir, timeoutMs: 10_000, maxOutputBytes: 1000 });
    expect(big.stdout).toHaveLength(1000);
    expect(big.stdout.endsWith("aEND")).toBe(true);
    expect(big.truncated).toBe(true);
  });

  it("reads the environment of no process started before the run: its sweep costs the same beside 20 of 1 MB", async () => {
    const runs = async () => {
      const at = process.cpuUsage();
      for (let i = 0; i < 10; i++) await runBounded(["true"], { cwd: tmp.dir, timeoutMs: 5000 });
      const used = process.cpuUsage(at);
      return (used.user + used.system) / 1000;
    };
    const alone = await runs();
    const big = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`BMAD_TEST_BIG_${i}`, "x".repeat(120_000)]));
    const older = Array.from({ length: 20 }, () => spawn("sleep", ["60"], { env: { ...process.env, ...big }, stdio: "ignore" }));
    try {
      await waitFor("the older processes to start", () => (older.every((p) => p.pid !== undefined && processRuns(p.pid)) ? true : undefined), 5000);
      // Each sweep read their 19 MB of environments: 10 runs took 358 ms more (251 ms alone, 609 beside).
      const beside = await runs();
      expect(beside).toBeLessThan(alone + 150);
    } finally {
      for (const p of older) p.kill("SIGKILL");
    }
  });

  it("answers a command that cannot start with its error, not a throw", async () => {
    const run = await runBounded(["bmad-no-such-command"], { cwd: tmp.dir, timeoutMs: 5000 });
    expect(run).toMatchObject({ exitCode: null, timedOut: false });
    expect(run.stderr).toMatch(/bmad-no-such-command: spawn bmad-no-such-command ENOENT/);
  });
});

it("runs at most four at once, queueing the rest: a model asking for many runs forks no more (an eighth review)", async () => {
  const marks = join(tmp.dir, "at-once");
  mkdirSync(marks);
  // Each run marks its start, waits, then counts the runs started and not yet ended.
  const script = `touch "${marks}/$1.on"; sleep 0.2; ls "${marks}" | grep -c '\\.on$'; rm "${marks}/$1.on"`;
  const runs = await Promise.all(Array.from({ length: 10 }, (_, i) => runBounded(["sh", "-c", script, "sh", String(i)], { cwd: marks, timeoutMs: 10_000 })));
  expect(runs.every((r) => r.exitCode === 0)).toBe(true);
  expect(Math.max(...runs.map((r) => Number(r.stdout.trim())))).toBeLessThanOrEqual(4);
});

it("gives a child only absolute search paths: an empty or relative entry is its working folder, in the project (an eleventh review)", async () => {
  const saved = { LD_LIBRARY_PATH: process.env.LD_LIBRARY_PATH, PATH: process.env.PATH };
  process.env.LD_LIBRARY_PATH = ":/opt/lib:lib";
  process.env.PATH = `.:${saved.PATH}:bin`;
  try {
    const run = await runBounded(["/bin/sh", "-c", 'printf "%s|%s" "$LD_LIBRARY_PATH" "$PATH"'], { cwd: tmp.dir, timeoutMs: 10_000 });
    expect(run.stdout).toBe(`/opt/lib|${saved.PATH}`);
  } finally {
    process.env.LD_LIBRARY_PATH = saved.LD_LIBRARY_PATH;
    if (saved.LD_LIBRARY_PATH === undefined) delete process.env.LD_LIBRARY_PATH;
    process.env.PATH = saved.PATH;
  }
});
