// npm run profile:test -- <command...> (default: vitest run): where a command's CPU goes, by kind of process
// (bridges, workerd, python3, installers, vitest's own workers, ...) and, for processes started in a test's temp
// folder, by test. Linux only: it samples /proc every 100 ms, so a process's last 100 ms may be missed.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

const TICK = 100; // clock ticks per second on Linux (sysconf(_SC_CLK_TCK))
const KINDS: Array<[string, RegExp]> = [
  ["workerd", /workerd/],
  ["bridge", /bridge(-main)?\.js/],
  ["python3", /python/],
  ["BMAD installer", /bmad-cli\.js|bmad\.js install/],
  ["chromium", /chromium/],
  ["conformance suite", /conformance/],
  ["tsc", /\btsc\b|typescript/],
  ["esbuild", /esbuild/],
  ["git", /(^|\/)git /],
  ["wrangler", /wrangler/],
  ["npm", /npm-cli|\/npm /],
  ["vitest", /vitest/],
  ["tsx", /tsx/],
];

const [cmd, ...args] = process.argv.length > 2 ? process.argv.slice(2) : ["npx", "vitest", "run"];
const child = spawn(cmd!, args, { stdio: "inherit" });
/** cpu is user + sys; sys alone is kept too, since a sweep of stat calls shows there, not in user time. */
const seen = new Map<number, { kind: string; test: string; cpu: number; sys: number; line: string }>();

function parents(): Map<number, number[]> {
  const kids = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      kids.set(ppid, [...(kids.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  return kids;
}

function sample(): void {
  const kids = parents();
  const stack = [child.pid!];
  while (stack.length) {
    const pid = stack.pop()!;
    stack.push(...(kids.get(pid) ?? []));
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      const sys = Number(fields[12]) / TICK;
      const cpu = Number(fields[11]) / TICK + sys;
      const known = seen.get(pid);
      if (known) {
        known.cpu = cpu;
        known.sys = sys;
        continue;
      }
      const line = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      const where = `${line} ${readlinkSync(`/proc/${pid}/cwd`)}`;
      // Test temp folders are named after their test (tempDir("missing-path") -> .../bmad-missing-path-XXXXXX).
      const test = /bmad-mcp-tests\/\d+\/bmad-([a-z0-9-]+)-[A-Za-z0-9]{6}(?=\/|\s|$)/.exec(where)?.[1] ?? "";
      seen.set(pid, { kind: KINDS.find(([, re]) => re.test(line))?.[0] ?? `other: ${line.slice(0, 50)}`, test, cpu, sys, line });
    } catch {
      // gone meanwhile
    }
  }
}

const timer = setInterval(sample, 100);
child.on("exit", (code) => {
  clearInterval(timer);
  const sum = (key: (p: { kind: string; test: string }) => string) => {
    const totals = new Map<string, { cpu: number; sys: number; n: number }>();
    for (const p of seen.values()) {
      const t = totals.get(key(p)) ?? { cpu: 0, sys: 0, n: 0 };
      totals.set(key(p), { cpu: t.cpu + p.cpu, sys: t.sys + p.sys, n: t.n + 1 });
    }
    return [...totals].sort((a, b) => b[1].cpu - a[1].cpu);
  };
  const all = [...seen.values()].reduce((n, p) => n + p.cpu, 0);
  const allSys = [...seen.values()].reduce((n, p) => n + p.sys, 0);
  const cpu = (t: { cpu: number; sys: number }) => `${t.cpu.toFixed(1).padStart(7)} s (sys ${t.sys.toFixed(1).padStart(5)} s)`;
  console.error(`\nCPU by kind of process (${all.toFixed(1)} s sampled, ${allSys.toFixed(1)} s of it sys):`);
  for (const [kind, t] of sum((p) => p.kind).slice(0, 15)) console.error(`  ${cpu(t)}  ${String(t.n).padStart(4)} processes  ${kind}`);
  console.error("CPU of processes started in a test's folder, by test and kind:");
  for (const [key, t] of sum((p) => (p.test ? `${p.test}: ${p.kind}` : "")).filter(([k]) => k).slice(0, 20)) console.error(`  ${cpu(t)}  ${String(t.n).padStart(4)} processes  ${key}`);
  // The largest single processes: a long-lived one (vitest's workers, a pool's workerd) hides in its kind's total.
  console.error("The largest single processes:");
  for (const p of [...seen.values()].sort((a, b) => b.cpu - a.cpu).slice(0, 12)) console.error(`  ${cpu(p)}  ${p.line.replace(/\s+/g, " ").slice(0, 110)}`);
  process.exitCode = code ?? 1;
});
