// Bridge faults: the bmad-mcp process killed (SIGKILL) while it writes a file, publishes a rendered skill, writes
// a memory, appends to a memlog through bmad-run (memlog.py), or pulls a workspace, in the two-* kinds while a
// second bridge writes the same file or appends to the same memlog; then every file is the old one or a new one
// whole (never torn), the new one where the change was acknowledged (answered ok, or a pull exited 0), every
// acknowledged memlog entry is there once and BMAD's memlog.py reads the memlog, and a new bridge's next change
// succeeds within STALE_BOUND_MS: a lock the dead process held is taken over at once. Used by npm run faults and
// test/node/bridge-faults.test.ts (a fixed sample).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, watch } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join, relative } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { prng, sleep, Tally } from "./faults-worker.js";
import { memlogUnreadable, type User } from "./mcp-user.js";
import { notCarried } from "../src/core/workspace/sync-kinds.js";

/** A lock whose holder died is taken over at once (src/bridge/file-lock.ts): the bound is the change itself, a pull's
 *  process start included, on a loaded machine (an age-judged lock made it 5 s more). */
export const STALE_BOUND_MS = 4_000;
/** Where src/bridge/file-lock.ts keeps this user's locks, by the same rule (scripts do not import the bridge; a test
 *  holds the two equal): in the home the user database names, one folder per machine id; /tmp without one. */
export const LOCKS = (() => {
  let home: string | undefined;
  try {
    home = userInfo().homedir;
  } catch {
    home = undefined;
  }
  let host: string | undefined;
  try {
    host = /^[0-9a-f]{32}$/.exec(readFileSync("/etc/machine-id", "utf8").trim())?.[0].slice(0, 12);
  } catch {
    host = undefined;
  }
  const inHome = home && home !== "/" ? join(home, ".cache", "bmad-mcp", host ? `locks-${host}` : "locks") : undefined;
  if (inHome) {
    try {
      mkdirSync(inHome, { recursive: true, mode: 0o700 });
      return inHome;
    } catch {
      // a home that cannot hold it: /tmp, as the bridge
    }
  }
  return join(process.platform === "win32" ? tmpdir() : "/tmp", `bmad-mcp-locks-${process.getuid?.() ?? userInfo().username}`);
})();

/** The locks held now for files below `dir`, by their holders' records. */
function locksUnder(dir: string): string[] {
  if (!existsSync(LOCKS)) return [];
  const real = realpathSync(dir);
  return readdirSync(LOCKS).filter((name) => {
    try {
      return /^[0-9a-f]{32}$/.test(name) && (JSON.parse(readFileSync(join(LOCKS, name, "holder"), "utf8")) as { path?: unknown }).path?.toString().startsWith(`${real}/`);
    } catch {
      return false;
    }
  });
}
const USER_CONFIG = "_bmad/config.user.toml";
/** The run folder whose memlog the memlog kinds append to. */
const RUN = "_bmad-output/runs/faults";
const MEMLOG = `${RUN}/.memlog.md`;
const memlogLine = (action: string) => `uv run {project-root}/_bmad/scripts/memlog.py ${action} --workspace {project-root}/${RUN}`;
/** How often `entry` is in `text`: each entry ends in "-end", so "kill-1-end" is not found in "kill-10-end". */
const times = (text: string, entry: string) => text.split(entry).length - 1;

/** The two-* kinds kill one bridge while a second one, alive, makes the same kind of change to the same file. */
export type BridgeKind = "write" | "render" | "memory" | "pull" | "memlog" | "two-write" | "two-memlog";
export const BRIDGE_KINDS: readonly BridgeKind[] = ["write", "render", "memory", "pull", "memlog", "two-write", "two-memlog"];

export interface PullSource {
  /** The Worker's /mcp URL, a token for it, and the project to pull. */
  remote: string;
  token: string;
  project: string;
  /** Changes some of the project's files, so that the next pull has something to write. */
  change: () => Promise<void>;
  /** The project's files now: path -> content. */
  files: () => Promise<Map<string, string>>;
}

export interface BridgeFaultOptions {
  bridge: string;
  /** A folder with BMAD 6.12 installed: the project the bridge serves (changed in place). */
  dir: string;
  seed: number;
  /** The kill points, in order (e.g. ["write", "render", ...]). */
  kinds: BridgeKind[];
  pull?: PullSource;
  home: string;
  log?: (line: string) => void;
}

/** `user`'s workspace `project` (created here) as a pull source; each change rewrites a few files. */
export async function pullSource(user: User, remote: string, project: string): Promise<PullSource> {
  await user.must("bmad-project", { action: "create", name: project });
  let n = 0;
  const change = async () => {
    n++;
    for (let k = 0; k < 4; k++) await user.must("bmad-files", { action: "write", project, path: `_bmad-output/docs/p${(n + k) % 6}.md`, content: `change ${n}.${k}\n${"x".repeat(20_000 * k)}\n` });
  };
  const files = async () => {
    const listed = (await user.must("bmad-files", { action: "list", project, path: "**" })).structured.files as Array<{ path: string }>;
    return new Map(await Promise.all(listed.map(async (f) => [f.path, (await user.must("bmad-files", { action: "read", project, path: f.path })).last] as const)));
  };
  await change();
  return { remote, token: user.token, project, change, files };
}

async function open(o: BridgeFaultOptions) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [o.bridge, "--toolsets", "default,memory"],
    cwd: o.dir,
    env: { PATH: process.env.PATH!, HOME: o.home },
    stderr: "pipe",
  });
  const client = new Client({ name: "faults", version: "1.0.0" });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) => {
    try {
      const out = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content?: Array<{ text?: string }>; structuredContent?: Record<string, any> };
      return { ok: out.isError !== true, text: (out.content ?? []).map((c) => c.text ?? "").join("\n"), structured: out.structuredContent ?? {} };
    } catch (e) {
      return { ok: false, text: String(e), structured: {} as Record<string, any> };
    }
  };
  return { pid: transport.pid!, call, close: () => client.close() };
}

/** Every file below `dir` (relative path -> content), machinery and temp files included. */
function snapshot(dir: string, out = new Map<string, string>(), base = dir): Map<string, string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) snapshot(path, out, base);
    else out.set(relative(base, path), readFileSync(path, "utf8"));
  }
  return out;
}

/** The pulled files that differ from the remote's (`remote`: path -> content); undefined: none. What sync carries:
 *  not the installer's `.gitignore` files, nor anything else it leaves on the remote. */
function notTheRemotes(remote: Map<string, string>, pullDir: string): string | undefined {
  const local = existsSync(pullDir) ? snapshot(pullDir) : new Map<string, string>();
  const differ = [...remote].filter(([rel, data]) => !notCarried(rel) && local.get(rel) !== data).map(([rel]) => rel);
  return differ.length ? differ.slice(0, 5).join(", ") : undefined;
}

/** Resolves once a lock folder appears in `dir`'s locks (or after `ms`): the moment to kill a holder. */
function lockTaken(dir: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    const watcher = existsSync(LOCKS) ? watch(LOCKS, () => locksUnder(dir).length && done()) : undefined;
    function done() {
      clearTimeout(timer);
      watcher?.close();
      resolve();
    }
  });
}

export async function bridgeFaults(o: BridgeFaultOptions): Promise<{ kills: number; tally: Tally; staleLocks: number; takeoverMs: number[] }> {
  const random = prng(o.seed);
  const tally = new Tally();
  const takeoverMs: number[] = [];
  let staleLocks = 0;
  let bridge = await open(o);
  /** Opened at the first two-* kill and kept: a bridge start costs ~0.3 s of CPU. */
  let second: Awaited<ReturnType<typeof open>> | undefined;
  try {
    const build = (await bridge.call("bmad", { command: "*build" })).text;
    const renderLine = /uv run [^\n`]*render_skill\.py[^\n`]*/.exec(build)?.[0];
    if (!renderLine) throw new Error(`bmad *build gave no render_skill.py line: ${build.slice(0, 300)}`);
    const renderDir = join(o.dir, "_bmad/render/bmad-build");
    const generations = () => {
      const found = new Map<string, string>();
      for (const slug of existsSync(renderDir) ? readdirSync(renderDir) : []) {
        // A staging folder (".staging-…") a killed publish left is not a generation: it is counted apart.
        for (const gen of readdirSync(join(renderDir, slug)).filter((n) => !n.startsWith("."))) found.set(`${slug}/${gen}`, [...snapshot(join(renderDir, slug, gen)).keys()].sort().join(","));
      }
      return found;
    };
    const first = await bridge.call("bmad-run", { command: renderLine });
    if (first.structured.exit_code !== 0) throw new Error(`render: ${first.text.slice(0, 300)}`);
    const whole = [...generations().values()][0]!;
    const userConfig = readFileSync(join(o.dir, USER_CONFIG), "utf8");
    if (!/^user_name = /m.test(userConfig)) throw new Error(`${USER_CONFIG} names no user_name`);
    const pullDir = join(o.home, "pulled");
    const pull = (extra: string[] = []) =>
      spawn(process.execPath, [o.bridge, "pull", "--remote", o.pull!.remote, "--project", o.pull!.project, "--dir", pullDir, ...extra], {
        env: { PATH: process.env.PATH!, HOME: o.home, BMAD_MCP_TOKEN: o.pull!.token },
        stdio: "ignore",
      });
    const exited = (child: ReturnType<typeof spawn>) => new Promise<number | null>((r) => child.on("close", (code) => r(code)));

    const init = await bridge.call("bmad-run", { command: memlogLine("init") });
    if (init.structured.exit_code !== 0) throw new Error(`memlog init: ${init.text.slice(0, 300)}`);
    /** Memlog entries acknowledged so far: each must stay there exactly once. */
    const entries: string[] = [];

    for (const [i, kind] of o.kinds.entries()) {
      const before = snapshot(o.dir);
      const pulledBefore = existsSync(pullDir) ? snapshot(pullDir) : new Map<string, string>();
      const path = `docs/f${i % 3}.md`;
      // Large enough to be cut part way: a torn file would show.
      const content = `kill ${i}\n${"abcdefghij".repeat(Math.floor(random() * 40_000))}\n`;
      const text = `memory of kill ${i}`;
      const shared = kind === "two-write" || kind === "two-memlog";
      const writes = kind === "write" || kind === "two-write";
      const memlog = kind === "memlog" || kind === "two-memlog";
      // A new generation to publish: the user's name, which the skill renders with, changes.
      if (kind === "render") await bridge.call("bmad-files", { action: "write", path: USER_CONFIG, content: userConfig.replace(/^user_name = .*$/m, `user_name = "User ${i}"`) });
      if (kind === "pull") await o.pull!.change();
      if (shared) second ??= await open(o);
      // Half the kills wait for a lock to be taken (then the holder dies holding it), half come at a random moment.
      const atLock = random() < 0.5 && kind !== "pull";
      const delay = Math.floor(random() * 31);
      let child: ReturnType<typeof spawn> | undefined;
      const started =
        writes ? bridge.call("bmad-files", { action: "write", path, content })
        : kind === "render" ? bridge.call("bmad-run", { command: renderLine })
        : kind === "memory" ? bridge.call("remember_structured", { type: "decisions", agent: "architect", text, tags: [] })
        : memlog ? bridge.call("bmad-run", { command: `${memlogLine("append")} --text "kill-${i}-end"` })
        : ((child = pull()), exited(child).then((code) => ({ ok: code === 0, text: String(code), structured: {} })));
      // The second bridge's change, of another length: which one the file holds shows. (Drawn only here: the other
      // kinds' draws, and so a seed's kill points, stay as they were.)
      const besideContent = kind === "two-write" ? `beside ${i}\n${"klmnopqrst".repeat(Math.floor(random() * 40_000))}\n` : "";
      const besideStarted =
        kind === "two-write" ? second!.call("bmad-files", { action: "write", path, content: besideContent })
        : kind === "two-memlog" ? second!.call("bmad-run", { command: `${memlogLine("append")} --text "beside-${i}-end"` })
        : undefined;
      if (atLock) await lockTaken(o.dir, 2_000);
      // A memlog append runs memlog.py's port in the bridge: hundreds of ms, like a pull.
      else await sleep(kind === "pull" || memlog ? Math.floor(random() * 400) : delay);
      try {
        process.kill(child?.pid ?? bridge.pid, "SIGKILL");
      } catch {
        // It finished first (a short pull): the point still checks what it left.
      }
      const answer = await started;
      const beside = await besideStarted;
      if (kind !== "pull") await bridge.close().catch(() => undefined);
      // The live bridge waited for the lock the dead one held, if it did, and took it over.
      if (beside) tally.check("the second bridge's change succeeds beside the kill", beside.ok ? undefined : `kill ${i + 1} (${kind}): ${beside.text.slice(0, 200)}`);
      const locks = locksUnder(o.dir).length;
      if (locks) staleLocks++;

      // Every file is as before or as the operation makes it: compared whole. An acknowledged write, memory or pull
      // is done: only a cut one may have left the old.
      const after = snapshot(o.dir);
      const torn: string[] = [];
      let undone: string | undefined;
      if (writes) {
        const now = after.get(path);
        // Beside a second bridge, the file is either one's whole: the later landing wins, acknowledged or not.
        const made = shared ? [content, besideContent] : [content];
        const describe = `${now === before.get(path) ? "as before" : `${now?.length ?? "missing"} chars`}, not the ${made.map((m) => m.length).join(" or ")} written`;
        if (answer.ok || beside?.ok) undone = made.includes(now!) ? undefined : `${path} is ${describe}`;
        else if (now !== before.get(path) && !made.includes(now!)) torn.push(`${path} (${now?.length ?? "missing"} chars)`);
      } else if (kind === "render") {
        for (const [gen, names] of generations()) if (names !== whole) torn.push(`generation ${gen} not whole`);
      } else if (kind === "memory") {
        const rel = "_bmad/_memory/structured/decisions.jsonl";
        const was = before.get(rel) ?? "";
        const now = after.get(rel) ?? "";
        // The text as JSON writes it, quotes included: "memory of kill 1" is not found in "… kill 10".
        const added = now.includes(JSON.stringify(text)) && was.split("\n").filter(Boolean).every((l) => now.includes(l));
        if (answer.ok) undone = added ? undefined : `${rel} lacks the memory (or an earlier one)`;
        else if (now !== was && !added) torn.push(`${rel} is neither as before nor with the memory added`);
        for (const line of now.split("\n").filter(Boolean)) {
          try {
            JSON.parse(line);
          } catch {
            torn.push(`${rel} holds a torn line`);
          }
        }
      } else if (memlog) {
        // Append-only: what was acknowledged, this kill's or any earlier, is there once; a cut entry at most once.
        const now = after.get(MEMLOG) ?? "";
        if (answer.ok) entries.push(`kill-${i}-end`);
        if (beside?.ok) entries.push(`beside-${i}-end`);
        const notOnce = entries.filter((entry) => times(now, entry) !== 1);
        undone = notOnce.length ? `${MEMLOG} holds ${notOnce.map((entry) => `${entry} ${times(now, entry)} times`).join(", ")}` : undefined;
        if (times(now, `kill-${i}-end`) > 1) torn.push(`${MEMLOG} holds the cut entry twice`);
        const unreadable = memlogUnreadable(now);
        if (unreadable) torn.push(`${MEMLOG}: ${unreadable}`);
      } else {
        const remote = await o.pull!.files();
        for (const [rel, now] of existsSync(pullDir) ? snapshot(pullDir) : []) {
          if (rel.startsWith(".bmad-mcp/") || rel.endsWith(".tmp")) continue;
          if (now !== pulledBefore.get(rel) && now !== remote.get(rel)) torn.push(`pulled ${rel}`);
        }
        if (answer.ok) undone = notTheRemotes(remote, pullDir);
      }
      if (kind !== "render" && (answer.ok || beside?.ok || undone)) tally.check("acknowledged change there", undone && `kill ${i + 1} (${kind}): ${undone}`);
      // What other files the operation did not touch stay as they were (temp files and staging aside).
      for (const [rel, was] of before) {
        if (rel === path || rel === MEMLOG || rel.startsWith(".bmad-mcp/") || rel.startsWith("_bmad/render/") || rel.startsWith("_bmad/_memory/") || rel === USER_CONFIG) continue;
        if (after.get(rel) !== was) torn.push(`${rel} changed`);
      }
      tally.check("every file old or new", torn.length ? `kill ${i + 1} (${kind}): ${torn.join(", ")}` : undefined);

      // The next change after a restart: within the bound, whatever lock the dead process held.
      if (kind !== "pull") bridge = await open(o);
      const t = performance.now();
      const next =
        writes ? await bridge.call("bmad-files", { action: "write", path, content: `after kill ${i}\n` })
        : kind === "render" ? await bridge.call("bmad-run", { command: renderLine })
        : kind === "memory" ? await bridge.call("remember_structured", { type: "decisions", agent: "architect", text: `after ${text}`, tags: [] })
        : memlog ? await bridge.call("bmad-run", { command: `${memlogLine("append")} --text "after-${i}-end"` })
        : await exited(pull());
      const ms = performance.now() - t;
      takeoverMs.push(ms);
      const failed = kind === "pull" ? next !== 0 && `pull exited ${next}` : !(next as { ok: boolean }).ok && (next as { text: string }).text.slice(0, 200);
      if (memlog && !failed) entries.push(`after-${i}-end`);
      tally.check("next change after restart succeeds", failed ? `kill ${i + 1} (${kind}): ${failed}` : undefined);
      tally.check(`next change within ${STALE_BOUND_MS / 1000} s (stale lock taken over)`, ms <= STALE_BOUND_MS ? undefined : `kill ${i + 1} (${kind}): ${Math.round(ms)} ms`);
      if (kind === "pull") {
        const differ = notTheRemotes(await o.pull!.files(), pullDir);
        tally.check("a pull after the kill makes the folder the remote's", differ && `kill ${i + 1}: ${differ}`);
      }
      o.log?.(`bridge kill ${i + 1}/${o.kinds.length} (${kind}, ${atLock ? "holding a lock" : "at random"}): ${answer.ok ? "acknowledged" : "cut"}${beside ? `, the second bridge's ${beside.ok ? "acknowledged" : "failed"}` : ""}, ${locks} lock(s) left, next change in ${Math.round(ms)} ms`);
    }
    return { kills: o.kinds.length, tally, staleLocks, takeoverMs };
  } finally {
    await bridge.close().catch(() => undefined);
    await second?.close().catch(() => undefined);
  }
}
