// Worker faults: workerd killed (SIGKILL) at random points while tools write, append, run memlog, publish a
// rendered skill, create, delete and share projects; then a new Miniflare from the same state on disk, and each
// operation is resolved against what it answered: acknowledged ones are there, the others are there whole or not
// at all, histories run 1..n, and each user's project list agrees with the projects. Used by npm run faults and
// test/node/faults.test.ts (a fixed sample).
import { readdirSync, readFileSync } from "node:fs";
import { startLocalWorker, type LocalWorker } from "./local-worker.js";
import { historyGap, listingDiffers, memlogUnreadable, User, wholeHistory, type Answer } from "./mcp-user.js";

/** mulberry32: a small seeded generator, so that a run's kill points can be replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Each invariant: how often it was checked, and what broke it. */
export class Tally {
  readonly checks = new Map<string, { checked: number; broken: string[] }>();

  check(invariant: string, broken: string | undefined): void {
    const c = this.checks.get(invariant) ?? { checked: 0, broken: [] };
    c.checked++;
    if (broken) c.broken.push(broken);
    this.checks.set(invariant, c);
  }

  get broken(): string[] {
    return [...this.checks].flatMap(([name, c]) => c.broken.map((b) => `${name}: ${b}`));
  }

  lines(): string[] {
    return [...this.checks].map(([name, c]) => `  ${name}: ${c.broken.length ? `${c.broken.length} of ${c.checked} BROKEN` : `holds (${c.checked} checks)`}`);
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The workerd processes this process started (Linux /proc: Name workerd, PPid ours). */
export function workerdChildren(): Set<number> {
  const pids = new Set<number>();
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      if (/^Name:\s+workerd$/m.test(status) && status.includes(`PPid:\t${process.pid}\n`)) pids.add(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** The Worker on a fixed port (tokens name their resource URL) from `state`, and its workerd's pid. */
async function start(scriptPath: string, state: string, port?: number): Promise<{ worker: LocalWorker; pid: number }> {
  const before = workerdChildren();
  const worker = await startLocalWorker({ scriptPath, persistTo: state, seed: false, ...(port ? { port } : {}) });
  const started = [...workerdChildren()].filter((p) => !before.has(p));
  if (started.length !== 1) throw new Error(`expected one new workerd, found ${started.length}`);
  return { worker, pid: started[0]! };
}

const MAIN = "main";
const KINDS = ["write", "append", "memlog", "render", "project", "share"] as const;
type Kind = (typeof KINDS)[number];
const ACCESS = ["none", "read", "write"] as const;
type Share = (typeof ACCESS)[number];
type Op =
  | { kind: "write"; path: string; content: string }
  | { kind: "append"; path: string; line: string }
  | { kind: "memlog"; ws: string; text: string }
  | { kind: "render" }
  | { kind: "create" | "delete"; name: string }
  | { kind: "share"; access: Share };

export interface WorkerFaultOptions {
  kills: number;
  seed: number;
  scriptPath: string;
  /** Worker storage with the bundle seeded (seedState), used in place. */
  state: string;
  log?: (line: string) => void;
}

export interface WorkerFaultReport {
  kills: number;
  tally: Tally;
  acknowledged: number;
  lost: number;
  /** Tool errors from a live server: none is expected. */
  errors: string[];
}

export async function workerFaults(o: WorkerFaultOptions): Promise<WorkerFaultReport> {
  const random = prng(o.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const tally = new Tally();
  const errors: string[] = [];
  let { worker, pid } = await start(o.scriptPath, o.state);
  const port = Number(worker.url.port);
  const mcp = new URL("/mcp?toolsets=default", worker.url);
  let acknowledged = 0;
  let lost = 0;
  try {
    const [a, b] = await Promise.all([User.signIn(0, "faults-a@example.com", worker.url.origin, mcp), User.signIn(1, "faults-b@example.com", worker.url.origin, mcp)]);
    const run = (command: string) => a.call("bmad-run", { command, project: MAIN });
    const files = (args: Record<string, unknown>) => a.call("bmad-files", { project: MAIN, ...args });
    const createdFiles = (await a.must("bmad-project", { action: "create", name: MAIN })).structured.files as number;
    const memlogs = new Map<string, string[]>(["runs/m0", "runs/m1"].map((ws) => [ws, []]));
    for (const ws of memlogs.keys()) await a.must("bmad-run", { command: `uv run {project-root}/_bmad/scripts/memlog.py init --workspace {project-root}/${ws}`, project: MAIN });
    const build = (await a.must("bmad", { command: "*build", project: MAIN })).text;
    const renderLine = /uv run [^\n`]*render_skill\.py[^\n`]*/.exec(build)?.[0];
    if (!renderLine) throw new Error(`bmad *build gave no render_skill.py line: ${build.slice(0, 300)}`);
    const generations = async () => {
      const listed = ((await files({ action: "list", path: "_bmad/render/bmad-build/**" })).structured.files ?? []) as Array<{ path: string }>;
      const groups = new Map<string, string[]>();
      for (const { path } of listed) {
        const parts = path.split("/");
        const dir = parts.slice(0, 5).join("/");
        groups.set(dir, [...(groups.get(dir) ?? []), parts.slice(5).join("/")]);
      }
      return new Map([...groups].map(([dir, names]) => [dir, names.sort().join(",")]));
    };
    const rendered = await run(renderLine);
    if (rendered.structured.exit_code !== 0) throw new Error(`render: ${rendered.text.slice(0, 300)}`);
    const whole = [...(await generations()).values()][0]!;
    let generationCount = 1;

    const writes = new Map<string, string[]>(["notes/n0.md", "notes/n1.md", "notes/n2.md"].map((p) => [p, []]));
    const logs = new Map<string, string[]>(["log/l0.md", "log/l1.md"].map((p) => [p, []]));
    const projects = new Map<string, boolean>([[MAIN, true]]);
    let share: Share = "none";

    const choose = (i: number): Op[] => {
      const kinds = new Set<Kind>();
      for (let n = 1 + Math.floor(random() * 3); kinds.size < n; ) kinds.add(pick(KINDS));
      const present = [...projects].filter(([name, here]) => here && name !== MAIN).map(([name]) => name);
      return [...kinds].flatMap((kind, j): Op[] => {
        const tag = `k${i}.${j}`;
        switch (kind) {
          case "write":
            return [{ kind, path: pick([...writes.keys()]), content: `${tag} ${"x".repeat(Math.floor(random() * 2000))}\n` }];
          case "append":
            return [{ kind, path: pick([...logs.keys()]), line: `line ${tag}` }];
          case "memlog":
            return [{ kind, ws: pick([...memlogs.keys()]), text: `entry-${tag}-end` }];
          case "render":
            return [{ kind }];
          case "project":
            // A few projects at a time: create while there are few, else as likely to delete one that is there.
            return present.length < 2 || (present.length < 5 && random() < 0.5) ? [{ kind: "create", name: `c${i}` }] : [{ kind: "delete", name: pick(present) }];
          case "share":
            return [{ kind, access: pick(ACCESS.filter((x) => x !== share)) }];
        }
      });
    };

    const fire = (op: Op): Promise<Answer> => {
      switch (op.kind) {
        case "write":
          return files({ action: "write", path: op.path, content: op.content });
        case "append":
          return files({ action: "append", path: op.path, content: `${op.line}\n` });
        case "memlog":
          return run(`uv run {project-root}/_bmad/scripts/memlog.py append --workspace {project-root}/${op.ws} --type note --text "${op.text}"`);
        case "render":
          return run(renderLine).then((r) => (r.ok && r.structured.exit_code !== 0 ? { ...r, ok: false } : r));
        case "create":
          return a.call("bmad-project", { action: "create", name: op.name });
        case "delete":
          return a.call("bmad-project", { action: "delete", name: op.name, confirm: op.name });
        case "share":
          return a.call("bmad-project", { action: "share", name: MAIN, with: b.email, access: op.access });
      }
    };

    /** Checks what `op` left against its answer, and records what is there now. */
    const resolve = async (op: Op, answer: Answer): Promise<void> => {
      const acked = answer.ok;
      const outcome = (now: unknown, before: unknown, after: unknown, what: string) => {
        landed.set(op, now === after);
        if (acked) tally.check("acknowledged present", now === after ? undefined : `${what}: acknowledged, but not there`);
        else tally.check("unacknowledged absent or whole", now === before || now === after ? undefined : `${what}: neither as before nor done (${String(now).slice(0, 120)})`);
      };
      const history = async (path: string, count: number) => {
        const versions = (await wholeHistory((before) => files({ action: "history", path, ...(before === undefined ? {} : { version: before }) }))) ?? [];
        tally.check("history consecutive", historyGap(versions) ?? (versions.length === count ? undefined : `${path}: ${versions.length} versions, ${count} changes made`));
      };
      switch (op.kind) {
        case "write": {
          const done = writes.get(op.path)!;
          const read = await files({ action: "read", path: op.path });
          const now = read.ok ? read.last : undefined;
          outcome(now, done.at(-1), op.content, `write ${op.path}`);
          if (now === op.content) done.push(op.content);
          return history(op.path, done.length);
        }
        case "append": {
          const done = logs.get(op.path)!;
          const read = await files({ action: "read", path: op.path });
          const before = done.map((l) => `${l}\n`).join("");
          const now = read.ok ? read.last : "";
          outcome(now, before, `${before}${op.line}\n`, `append to ${op.path}`);
          if (now === `${before}${op.line}\n`) done.push(op.line);
          return history(op.path, done.length);
        }
        case "memlog": {
          const done = memlogs.get(op.ws)!;
          const text = (await files({ action: "read", path: `${op.ws}/.memlog.md` })).last;
          const times = (entry: string) => text.split(entry).length - 1;
          outcome(times(op.text), 0, 1, `memlog entry in ${op.ws}`);
          for (const entry of done) tally.check("acknowledged present", times(entry) === 1 ? undefined : `${op.ws}: an earlier entry is there ${times(entry)} times`);
          if (times(op.text) === 1) done.push(op.text);
          return history(`${op.ws}/.memlog.md`, done.length + 1);
        }
        case "render": {
          const found = await generations();
          const broken = [...found].filter(([, names]) => names !== whole).map(([dir]) => dir);
          tally.check(acked ? "acknowledged present" : "unacknowledged absent or whole", broken.length ? `render: ${broken.join(", ")} not whole` : undefined);
          // Acknowledged: the generation its answer names is there; cut: one more generation, or none.
          const named = /render\/bmad-build\/([^/\s]+\/[^/\s]+)\/workflow\.md/.exec(answer.text)?.[1];
          if (acked) tally.check("acknowledged present", named && found.has(`_bmad/render/bmad-build/${named}`) ? undefined : `render_skill publish: acknowledged ${named ?? "(no path)"}, but not there`);
          else outcome(found.size, generationCount, generationCount + 1, "render_skill publish");
          landed.set(op, found.size > generationCount);
          generationCount = found.size;
          return;
        }
        case "create":
        case "delete": {
          const info = await a.call("bmad-project", { action: "config", name: op.name });
          const here = info.ok;
          if (here) tally.check(acked ? "acknowledged present" : "unacknowledged absent or whole", info.structured.files === createdFiles ? undefined : `${op.name}: ${info.structured.files} files, not ${createdFiles}`);
          outcome(here, op.kind === "delete", op.kind === "create", `${op.kind} ${op.name}`);
          projects.set(op.name, here);
          return;
        }
        case "share": {
          const [info, offers] = await Promise.all([a.must("bmad-project", { action: "config", name: MAIN }), b.must("bmad-project", { action: "list" })]);
          const inProject = ((info.structured.shares ?? []) as Array<{ with: string; access: Share }>).find((s) => s.with === b.email)?.access ?? "none";
          const inIndex = ((offers.structured.offers ?? []) as Array<{ name: string; access: Share }>).find((p) => p.name === MAIN)?.access ?? "none";
          tally.check("index agrees with projects", inProject === inIndex ? undefined : `share of ${MAIN}: the project says ${inProject}, ${b.email}'s list says ${inIndex}`);
          outcome(inProject, share, op.access, `share ${op.access}`);
          share = inProject;
          return;
        }
      }
    };

    /** Each user's project list against the projects: every one listed answers, every one that answers is listed, once, as owner. */
    const checkIndex = async () => {
      const listed = (await a.must("bmad-project", { action: "list" })).structured.projects as Array<{ project: string; access: string }>;
      const names = [...new Set([...projects.keys(), ...listed.map((p) => p.project)])];
      const answering = await Promise.all(names.map(async (n) => [n, (await a.call("bmad-project", { action: "config", name: n })).ok] as const));
      const disagree = listingDiffers(listed, new Map(answering.filter(([, ok]) => ok).map(([n]) => [n, "owner"])));
      tally.check("index agrees with projects", disagree.length ? disagree.join("; ") : undefined);
    };

    const landed = new Map<Op, boolean>();
    for (let i = 0; i < o.kills; i++) {
      const ops = choose(i);
      // A new generation to publish: a config value the skill renders with changes.
      if (ops.some((op) => op.kind === "render")) await a.must("bmad-project", { action: "config", name: MAIN, answers: { core: { user_name: `User ${i}` } } });
      const answers = ops.map(fire);
      // Most kills land within 30 ms of the calls, cutting them; a quarter later, so that some are answered first on a
      // quick machine too (a run of 20 there cut every one, and "acknowledged present" was never checked).
      const delay = random() < 0.25 ? 150 + Math.floor(random() * 250) : Math.floor(random() * 31);
      await sleep(delay);
      process.kill(pid, "SIGKILL");
      // Disposed at once, so that Miniflare does not restart workerd itself: the restart is a new one, as after a crash.
      const disposed = worker.miniflare.dispose();
      const answered = await Promise.all(answers);
      await disposed;
      ({ worker, pid } = await start(o.scriptPath, o.state, port));
      for (const [j, op] of ops.entries()) {
        const answer = answered[j]!;
        if (answer.ok) acknowledged++;
        else if (answer.lost) lost++;
        else errors.push(`${op.kind}: ${answer.text.slice(0, 200)}`);
        await resolve(op, answer);
      }
      await checkIndex();
      o.log?.(`kill ${i + 1}/${o.kills} after ${delay} ms: ${ops.map((op, j) => `${op.kind} ${answered[j]!.ok ? "acknowledged" : landed.get(op) ? "cut, done" : "cut, not done"}`).join(", ")}`);
    }

    // At the end, every memlog as BMAD's Python reads it, and every generation whole.
    for (const ws of memlogs.keys()) tally.check("memlogs read by memlog.py", memlogUnreadable((await files({ action: "read", path: `${ws}/.memlog.md` })).last));
    for (const [dir, names] of await generations()) tally.check("unacknowledged absent or whole", names === whole ? undefined : `${dir} not whole at the end`);
    return { kills: o.kills, tally, acknowledged, lost, errors };
  } finally {
    await worker.dispose();
  }
}
