// npm run load: many signed-in users at once against the Worker in workerd (Miniflare API, state on disk), each
// with their own token, for a fixed time; then every project's invariants are checked from what was acknowledged.
// LOAD_CLIENTS=16,64 (default) and LOAD_SECONDS=180 (default) per round. Not part of npm test.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_FILE_BYTES } from "../src/core/workspace/limits.js";
import { buildWorker, startLocalWorker, type LocalWorker } from "./local-worker.js";
import { historyGap, listingDiffers, memlogUnreadable, User, wholeHistory, type Answer } from "./mcp-user.js";

const ROUNDS = (process.env.LOAD_CLIENTS ?? "16,64").split(",").map(Number);
const SECONDS = Number(process.env.LOAD_SECONDS ?? 180);
/** Users per shared project: its owner and the members it is shared with (write access). */
const GROUP = 4;

type Op = "render" | "read" | "write" | "append" | "memlog" | "recall" | "task";
const ALL_OPS: Op[] = ["render", "read", "read", "write", "write", "append", "memlog", "recall", "task"];
/** Operations a round does before its heap is judged (and a third of its time); a round that does fewer is judged
 *  from a third of its time. */
const WARM_OPS = 30_000;
/** LOAD_OPS=read,write: only these operations (to find which one a figure comes from). */
const MIX: Op[] = process.env.LOAD_OPS ? ALL_OPS.filter((op) => process.env.LOAD_OPS!.split(",").includes(op)) : ALL_OPS;

/** What the server acknowledged, to be found afterwards. */
interface Acked {
  writes: Map<string, Array<{ version: number; content: string }>>; // "user|path" -> in the order acknowledged
  appends: Map<string, string[]>; // "owner|path" -> lines
  memlogs: Map<string, string[]>; // "owner|workspace" -> entry texts
}

const stats = (samples: number[]) => {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  return { n: s.length, p50: at(0.5), p99: at(0.99), max: s[s.length - 1] ?? 0 };
};

/** Resident memory of the workerd processes this one started, in MiB (Linux /proc). */
function workerdMiB(): number {
  let kib = 0;
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      if (!/^Name:\s+workerd$/m.test(status) || !status.includes(`PPid:\t${process.pid}\n`)) continue;
      kib += Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return kib / 1024;
}

async function round(clients: number): Promise<boolean> {
  const state = mkdtempSync(join(tmpdir(), "bmad-load-"));
  const worker: LocalWorker = await startLocalWorker({ persistTo: state });
  try {
    const mcp = new URL("/mcp?toolsets=default,memory", worker.url);
    const users = await Promise.all(
      Array.from({ length: clients }, (_, i) => User.signIn(i, `load-${i}@example.com`, worker.url.origin, mcp)),
    );
    const ownerOf = (u: User) => users[u.index - (u.index % GROUP)]!;
    for (const u of users) {
      await u.must("bmad-project", { action: "create", name: "own" });
      await u.must("bmad-files", { action: "write", project: "own", path: "notes/readme.md", content: `# ${u.email}\n` });
      if (u === ownerOf(u)) {
        await u.must("bmad-project", { action: "create", name: "team" });
        await u.must("bmad-files", { action: "write", project: "team", path: "shared/readme.md", content: "# Team\n" });
      }
    }
    for (const u of users) {
      const owner = ownerOf(u);
      if (owner === u) continue;
      await owner.must("bmad-project", { action: "share", name: "team", with: u.email, access: "write" });
      await u.must("bmad-project", { action: "accept", name: "team" });
    }

    const acked: Acked = { writes: new Map(), appends: new Map(), memlogs: new Map() };
    const latencies = new Map<Op, number[]>(MIX.map((op) => [op, []]));
    const errors: string[] = [];
    const started = performance.now();
    const end = started + SECONDS * 1000;
    // The heap grows to its working size with the operations done, about 30,000 (review 120: a slower machine's run,
    // measured from a third of its time, was judged growing where the heap had not yet reached it), then stays. A
    // round too short for that is judged from a third of its time all the same: every round is judged.
    const warm = started + (SECONDS / 3) * 1000;
    let done = 0;
    let memoryAtThird = 0;
    let memoryAtWarm = 0;
    // workerd's memory every 10 s: a heap that settles, or one that keeps growing.
    const memorySeries: number[] = [];
    const sampler = setInterval(() => memorySeries.push(Math.round(workerdMiB())), 10_000);
    const third = setTimeout(() => (memoryAtThird = workerdMiB()), warm - started);
    const initialized = new Set<string>();
    /** Memlogs whose init was answered (made, or already there): an append to one of these finds it. */
    const made = new Set<string>();
    const minute = () => Math.floor((performance.now() - started) / 60_000);
    const sessions = new Map<User, string>();

    const one = async (u: User, seq: number): Promise<void> => {
      const op = MIX[(u.index * 7 + seq * 13) % MIX.length]!;
      const owner = ownerOf(u);
      const t = performance.now();
      let out: Answer;
      switch (op) {
        case "render":
          out = await u.call("bmad", { command: "*prd", project: "own" });
          break;
        case "read":
          out = await u.call("bmad-files", seq % 2 ? { action: "read", project: "own", path: "notes/readme.md" } : { action: "read", project: "team", path: "shared/readme.md" });
          break;
        case "write": {
          const path = `w/${seq % 5}.md`;
          const content = `${u.email} ${seq}\n`;
          out = await u.call("bmad-files", { action: "write", project: "own", path, content });
          if (out.ok) {
            const key = `${u.email}|${path}`;
            acked.writes.set(key, [...(acked.writes.get(key) ?? []), { version: out.structured.version as number, content }]);
          }
          break;
        }
        case "append": {
          // A file per minute, so that history (every version of a growing file) stays far below its cap.
          const path = `log/${minute()}.md`;
          const line = `${u.email} ${seq}`;
          out = await u.call("bmad-files", { action: "append", project: "team", path, content: `${line}\n` });
          if (out.ok) acked.appends.set(`${owner.email}|${path}`, [...(acked.appends.get(`${owner.email}|${path}`) ?? []), line]);
          break;
        }
        case "memlog": {
          const ws = `runs/load-${minute()}`;
          const key = `${owner.email}|${ws}`;
          if (!initialized.has(key)) {
            initialized.add(key);
            const init = await u.call("bmad-run", { command: `uv run {project-root}/_bmad/scripts/memlog.py init --workspace {project-root}/${ws}`, project: "team" });
            // Another member may have made it first: "already exists" is that, not an error.
            if (init.ok || /already exists/.test(init.text)) made.add(key);
            else errors.push(`memlog init: ${init.text.slice(0, 200)}`);
          }
          const text = `${u.email} ${seq}`;
          const wasMade = made.has(key);
          out = await u.call("bmad-run", { command: `uv run {project-root}/_bmad/scripts/memlog.py append --workspace {project-root}/${ws} --type note --text "${text}"`, project: "team" });
          // A member who came before the init call was answered finds no memlog yet: not acknowledged, and not an
          // error. After it, a memlog not found is one lost.
          if (!out.ok && !wasMade && /No such file|not found|ENOENT/i.test(out.text)) out = { ...out, ok: true, text: "(memlog not made yet)" };
          else if (out.ok) acked.memlogs.set(key, [...(acked.memlogs.get(key) ?? []), text]);
          break;
        }
        case "recall":
          out = await u.call("recall_structured", { query: "decision about the stack", project: "own" });
          break;
        case "task": {
          // As a person works: a session started now and then, its status asked between (a start is a new object).
          const session = sessions.get(u);
          if (!session || seq % 20 === 0) {
            out = await u.call("bmad-task", { action: "start", objective: `Load ${u.email} ${seq}` });
            if (out.ok) sessions.set(u, out.structured.session_id as string);
          } else out = await u.call("bmad-task", { action: "status", session_id: session });
          break;
        }
      }
      latencies.get(op)!.push(performance.now() - t);
      if (!out.ok) errors.push(`${op} by ${u.email}: ${out.text.slice(0, 200)}`);
    };

    await Promise.all(
      users.map(async (u) => {
        for (let seq = 0; performance.now() < end; seq++) {
          if (!memoryAtWarm && performance.now() > warm && done >= WARM_OPS) memoryAtWarm = workerdMiB();
          await one(u, seq);
          done++;
        }
      }),
    );
    const memoryAtEnd = workerdMiB();
    const calls = [...latencies.values()].reduce((n, l) => n + l.length, 0);

    console.log(`\n${clients} clients for ${SECONDS} s: ${calls} operations (${(calls / SECONDS).toFixed(0)}/s), ${errors.length} errors`);
    console.log("op".padEnd(10) + "calls".padStart(8) + "p50".padStart(10) + "p99".padStart(10) + "max".padStart(10));
    for (const [op, samples] of latencies) {
      const s = stats(samples);
      console.log(op.padEnd(10) + String(s.n).padStart(8) + `${s.p50.toFixed(1)} ms`.padStart(10) + `${s.p99.toFixed(1)} ms`.padStart(10) + `${s.max.toFixed(0)} ms`.padStart(10));
    }
    clearInterval(sampler);
    clearTimeout(third);
    const base = memoryAtWarm || memoryAtThird;
    const growth = (memoryAtEnd - base) / base;
    // A round too short to reach the heap's working size is not judged: its growth is the warm-up (review 255: a 60 s
    // round rose to 502 MiB and held there, and was called BROKEN).
    const judged = memoryAtWarm > 0;
    const grew = judged && growth > 0.1;
    const from = judged ? "after warm-up" : `after a third of the time (${calls} operations, fewer than the ${WARM_OPS.toLocaleString("en-US")} the heap takes to reach its working size: not judged; a longer LOAD_SECONDS judges it after warm-up)`;
    console.log(`workerd memory: ${base.toFixed(0)} MiB ${from}, ${memoryAtEnd.toFixed(0)} MiB at the end (${(growth * 100).toFixed(1)}%${grew ? ", over the 10% a round may grow: BROKEN" : ""}); every 10 s: ${memorySeries.join(", ")} MiB`);
    for (const e of errors.slice(0, 10)) console.log(`  error: ${e}`);

    const broken = await invariants(users, ownerOf, acked);
    console.log(`invariants: ${broken.length ? `${broken.length} broken` : "all hold"} (${[...acked.writes.values()].reduce((n, w) => n + w.length, 0)} writes, ${[...acked.appends.values()].reduce((n, a) => n + a.length, 0)} appends, ${[...acked.memlogs.values()].reduce((n, a) => n + a.length, 0)} memlog entries acknowledged)`);
    for (const b of broken.slice(0, 20)) console.log(`  broken: ${b}`);
    return errors.length === 0 && broken.length === 0 && !grew;
  } finally {
    await worker.dispose();
    rmSync(state, { recursive: true, force: true });
  }
}

/** Every acknowledged write in history once, in order; every append's line and memlog entry present once; memlogs
 *  read by BMAD's Python; no file over its limit; each user's project list agrees with the projects. */
async function invariants(users: User[], ownerOf: (u: User) => User, acked: Acked): Promise<string[]> {
  const broken: string[] = [];
  const byEmail = new Map(users.map((u) => [u.email, u]));
  for (const [key, writes] of acked.writes) {
    const [email, path] = key.split("|") as [string, string];
    const u = byEmail.get(email)!;
    const history = (await wholeHistory((before) => u.must("bmad-files", { action: "history", project: "own", path, ...(before === undefined ? {} : { version: before }) })))!;
    const versions = history.map((v) => v.version).reverse();
    const gap = historyGap(history);
    if (gap) broken.push(`${key}: ${gap}, acked ${JSON.stringify(writes.map((w) => w.version)).slice(0, 100)}`);
    const acks = writes.map((w) => w.version);
    if (acks.some((v, i) => i > 0 && v <= acks[i - 1]!)) broken.push(`${key}: acknowledged versions out of order`);
    // The setup's first write is not counted here: every acknowledged one is a version of its own.
    if (new Set(acks).size !== acks.length || acks.some((v) => !versions.includes(v))) broken.push(`${key}: an acknowledged version is missing or repeated`);
    const now = (await u.must("bmad-files", { action: "read", project: "own", path })).last;
    if (now !== writes.at(-1)!.content) broken.push(`${key}: the file is not the last acknowledged write`);
  }
  const once = (text: string, lines: string[], what: string) => {
    const counts = new Map<string, number>();
    for (const line of text.split("\n")) counts.set(line, (counts.get(line) ?? 0) + 1);
    for (const line of lines) if (counts.get(line) !== 1 && counts.get(`- (note) ${line}`) !== 1) broken.push(`${what}: "${line}" is there ${counts.get(line) ?? counts.get(`- (note) ${line}`) ?? 0} times`);
  };
  for (const [key, lines] of acked.appends) {
    const [email, path] = key.split("|") as [string, string];
    once((await byEmail.get(email)!.must("bmad-files", { action: "read", project: "team", path })).last, lines, key);
  }
  for (const [key, entries] of acked.memlogs) {
    const [email, ws] = key.split("|") as [string, string];
    const text = (await byEmail.get(email)!.must("bmad-files", { action: "read", project: "team", path: `${ws}/.memlog.md` })).last;
    once(text, entries, key);
    const unreadable = memlogUnreadable(text);
    if (unreadable) broken.push(`${key}: ${unreadable}`);
  }
  for (const u of users) {
    // Compared by name and access, both ways: the list's text names "team" even where it is only an offer.
    const listed = (await u.must("bmad-project", { action: "list" })).structured.projects as Array<{ project: string; access: string }>;
    const expected = new Map([["own", "owner"], ["team", ownerOf(u) === u ? "owner" : "write"]]);
    for (const differ of listingDiffers(listed, expected)) broken.push(`${u.email}'s project list: ${differ}`);
    for (const project of ownerOf(u) === u ? ["own", "team"] : ["own"]) {
      const files = (await u.must("bmad-files", { action: "list", project, path: "**" })).structured.files as Array<{ path: string; size: number }> | undefined;
      for (const f of files ?? []) if (f.size > MAX_FILE_BYTES) broken.push(`${u.email}/${project}/${f.path}: ${f.size} bytes, over the limit`);
    }
  }
  return broken;
}

await buildWorker();
let ok = true;
for (const clients of ROUNDS) ok = (await round(clients)) && ok;
if (!ok) process.exitCode = 1;
