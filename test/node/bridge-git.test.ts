// Git sources on the bridge: `--path git+file://…/repo.git#tag:/subdir` is fetched into the user's cache once
// per start and served like a folder; a later start without the remote serves the cached checkout; `bmad-mcp cache
// list|clear` show and empty the cache; a fetch that hangs is killed at --git-timeout, with what git started; git runs
// outside the project, without the bridge's token, and a URL's query is shown nowhere.
import { execFile, execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { connectBridge, tempDir, toolText, waitFor } from "./helpers.js";

const run = promisify(execFile);
const tmp = tempDir("bridge-git");
const work = join(tmp.dir, "work");
const bare = join(tmp.dir, "acme/repo.git"); // labelled acme/repo.git: never the path above it
const home = join(tmp.dir, "home");
const project = join(tmp.dir, "project");
const git = (args: string[], cwd?: string) => execFileSync("git", args, { cwd, stdio: "pipe" }).toString().trim();
let bridge: string;

/** A module's source with one skill, its body saying `marker`, committed and tagged `tag`. */
function commitSkill(marker: string, tag: string): void {
  const skill = join(work, "content/src/acme/acme-lint-story");
  mkdirSync(skill, { recursive: true });
  writeFileSync(join(work, "content/src/acme/module.yaml"), 'code: acme\nname: "Acme Module"\ndescription: "Team conventions"\n');
  writeFileSync(join(skill, "SKILL.md"), `---\nname: acme-lint-story\ndescription: Checks a story file for missing acceptance criteria.\n---\n\n# Lint a story\n\n${marker}\n`);
  git(["add", "."], work);
  git(["-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", tag], work);
  git(["tag", tag], work);
}

/** The CLI's exit code and output, for a run that ends by itself. */
async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  const out = await run(process.execPath, [bridge, ...args], { cwd: project, env: { PATH: process.env.PATH!, HOME: home, ...env }, timeout: 60_000 }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
  return { ...out, ms: Date.now() - started };
}

const SKILL_URI = "bmad://acme/acme-lint-story/SKILL.md";

beforeAll(() => {
  bridge = inject("bridge");
  mkdirSync(work, { recursive: true });
  mkdirSync(project, { recursive: true });
  git(["init", "--quiet", "-b", "main"], work);
  commitSkill("marker-one", "v1");
  commitSkill("marker-two", "v2");
  git(["clone", "--quiet", "--bare", work, bare]);
});
afterAll(() => tmp.cleanup());

describe("--path with a git URL", () => {
  it("serves the tree at the ref and subdir, caches it, and lists and clears the cache", async () => {
    const source = `git+file://${bare}#v1:/content`;
    const b = await connectBridge(bridge, project, { args: ["--path", source], home });
    try {
      const read = await b.client.readResource({ uri: SKILL_URI });
      expect((read.contents[0] as { text: string }).text).toContain("marker-one");
      expect(toolText(await b.client.callTool({ name: "bmad", arguments: { command: "*acme-lint-story" } }))).toMatch(/cli \(priority 2, acme\/repo\.git#v1:\/content@v1\)/);
    } finally {
      await b.close();
    }
    // The user's alone: a private repository fetched with their credentials (review 82: 0755 and 0644 before).
    const cache = join(home, ".cache/bmad-mcp/git");
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    for (const name of readdirSync(cache).filter((n) => n.endsWith(".json"))) expect(statSync(join(cache, name)).mode & 0o777, name).toBe(0o600);
    const listed = await cli(["cache", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`acme/repo.git#v1:/content  ${git(["rev-parse", "v1^{commit}"], work).slice(0, 12)}`);
    expect(listed.stdout).not.toContain(bare); // the label hides local paths

    // The remote gone, the next start serves the checkout it has, and says so on stderr and to the client, naming the
    // commit (review 214: in silence).
    renameSync(bare, `${bare}.away`);
    try {
      const offline = await connectBridge(bridge, project, { args: ["--path", source], home });
      try {
        expect((await offline.client.readResource({ uri: SKILL_URI })).contents[0]).toMatchObject({ text: expect.stringContaining("marker-one") });
        const stale = `acme/repo.git#v1:/content: cannot refresh it (git fetch failed: fatal: '${bare}' does not appear to be a git repository); serving the cached checkout at commit ${git(["rev-parse", "v1^{commit}"], work).slice(0, 12)}, fetched 20`;
        expect(offline.stderr()).toContain(`bmad-mcp: warning: ${stale}`);
        expect(offline.client.getInstructions()).toContain(stale);
        expect(toolText(await offline.client.callTool({ name: "bmad", arguments: { command: "*acme-lint-story" } }))).toContain(stale);
      } finally {
        await offline.close();
      }
    } finally {
      renameSync(`${bare}.away`, bare);
    }

    const cleared = await cli(["cache", "clear"]);
    expect(cleared.stdout).toMatch(/Removed 1 cached git source from .*\.cache\/bmad-mcp\/git/);
    expect(readdirSync(cache)).toEqual([]);
    expect((await cli(["cache", "list"])).stdout).toMatch(/No cached git sources/);
  });

  it("serves another tag from its own checkout", async () => {
    const b = await connectBridge(bridge, project, { args: ["--path", `git+file://${bare}#v2:/content`], home });
    try {
      expect((await b.client.readResource({ uri: SKILL_URI })).contents[0]).toMatchObject({ text: expect.stringContaining("marker-two") });
    } finally {
      await b.close();
    }
  });

  it("stops with exit 2 naming a ref the repository lacks", async () => {
    const out = await cli(["--path", `git+file://${bare}#no-such-tag`, "--list"]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/--path acme\/repo\.git#no-such-tag: Cannot fetch ref "no-such-tag" from acme\/repo\.git#no-such-tag/);
  });

  it("kills a fetch that hangs at --git-timeout, with everything git started", async () => {
    // git runs the ssh command through sh: "#" comments out the host and command git appends.
    // A duration of this run's own, so that no other run's sleeper (a suite beside this one) is taken for this one's.
    const seconds = `41.${process.pid}`;
    const out = await cli(["--path", "git+ssh://example.invalid/team/bmad.git", "--git-timeout", "1", "--list"], { GIT_SSH_COMMAND: `sleep ${seconds} #` });
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/git fetch timed out after 1 s \(--git-timeout SECONDS or BMAD_GIT_TIMEOUT_MS raises the limit\)/);
    expect(out.ms).toBeLessThan(20_000);
    // Killed: gone within 2 s of the bridge's exit, on a loaded machine too (the kernel ends a killed process after the
    // signal is sent; CI once saw it still there at once). It sleeps 41 s: left running, it is still there.
    const sleepers = () => readdirSync("/proc").filter((p) => /^\d+$/.test(p) && cmdline(p) === `sleep\u0000${seconds}`);
    await waitFor("the fetch's sleeper to end", () => (sleepers().length ? undefined : true), 2000);
  });

  it("serves a cached checkout within seconds when the remote takes the connection and never answers (review 59: 120 s)", async () => {
    const url = "git+ssh://example.invalid/acme/slow.git#v2:/content";
    // Fetched once through an ssh command that serves the repository (git appends host and command after the "#")...
    const first = await cli(["--path", url, "--list"], { GIT_SSH_COMMAND: `git-upload-pack ${bare} #` });
    expect(first.code, first.stderr).toBe(0);
    // ...then served from the cache while the remote hangs, long before the git timeout.
    const slow = await cli(["--path", url, "--git-timeout", "60", "--list"], { GIT_SSH_COMMAND: "sleep 41.5 #" });
    expect(slow.code, slow.stderr).toBe(0);
    expect(slow.stdout).toContain("acme-lint-story");
    expect(slow.ms).toBeLessThan(30_000);
    expect(slow.stderr).toMatch(/warning: ssh:\/\/example\.invalid\/acme\/slow\.git#v2:\/content: cannot refresh it \(git fetch timed out after 10 s\); serving the cached checkout at commit [0-9a-f]{12}, fetched /);
  }, 60_000);

  it("takes the scp-like URL GitHub shows (user@host:path) for ssh, not for a local folder (review 214)", async () => {
    // git appends the host and the command after the "#": this ssh command serves the bare repository.
    const out = await cli(["--path", "git+git@example.invalid:acme/repo.git#v1:/content", "--list"], { GIT_SSH_COMMAND: `git-upload-pack ${bare} #`, XDG_CACHE_HOME: join(tmp.dir, "scp-cache") });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/acme\/acme-lint-story +cli \(example\.invalid:acme\/repo\.git#v1:\/content\)/);
    // A local repository that is not there is said so, without git's advice about access rights.
    const missing = await cli(["--path", join(tmp.dir, "nowhere/repo.git"), "--list"], { XDG_CACHE_HOME: join(tmp.dir, "scp-cache") });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`does not appear to be a git repository`);
    expect(missing.stderr).not.toContain("access rights");
  });

  it("leaves the user's own repository alone when GIT_DIR, GIT_WORK_TREE or GIT_INDEX_FILE is inherited (review 214)", async () => {
    // A repository of the user's, as a pre-commit hook (GIT_INDEX_FILE) or vcsh (GIT_DIR, GIT_WORK_TREE) names it.
    const leaks = [
      (mine: string) => ({ GIT_INDEX_FILE: join(mine, ".git/index") }),
      (mine: string) => ({ GIT_DIR: join(mine, ".git"), GIT_WORK_TREE: mine }),
      (mine: string) => ({ GIT_OBJECT_DIRECTORY: join(mine, ".git/objects"), GIT_CONFIG_PARAMETERS: `'core.worktree'='${mine}'` }),
    ];
    for (const [i, leakOf] of leaks.entries()) {
      const mine = join(tmp.dir, `mine-${i}`);
      mkdirSync(mine, { recursive: true });
      git(["init", "--quiet", "-b", "main"], mine);
      writeFileSync(join(mine, "mine.txt"), "mine\n");
      git(["add", "."], mine);
      git(["-c", "user.name=u", "-c", "user.email=u@u", "commit", "--quiet", "-m", "mine"], mine);
      const state = () => ({ files: git(["ls-files"], mine), head: git(["rev-parse", "--symbolic-full-name", "HEAD"], mine), commit: git(["log", "--format=%s", "-1"], mine), tree: readdirSync(mine).sort(), objects: git(["count-objects"], mine), status: git(["status", "--porcelain"], mine) });
      const before = state();
      const leak = leakOf(mine);
      const out = await cli(["--path", `git+file://${bare}#v1:/content`, "--list"], { ...leak, XDG_CACHE_HOME: join(tmp.dir, `leak-cache-${i}`) });
      const what = Object.keys(leak).join(" ");
      expect.soft(out.code, `${what}: ${out.stderr}`).toBe(0);
      expect.soft(out.stdout, what).toContain("acme/acme-lint-story");
      expect.soft(state(), what).toEqual(before);
    }
  });

  it("runs the system git outside the project, without the bridge's token, though PATH names the working folder (review 184)", async () => {
    // A program named git in the project, and PATH starting with an empty entry (the working folder)...
    const marker = join(tmp.dir, "planted-git-ran");
    writeFileSync(join(project, "git"), `#!/bin/sh\ntouch '${marker}'\nexit 1\n`, { mode: 0o755 });
    // ...ahead of a git outside it that records what it is given and runs the real one.
    const bin = join(tmp.dir, "bin");
    const seen = join(tmp.dir, "git-env");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "git"), `#!/bin/sh\nenv >> '${seen}'\nexec '${execFileSync("sh", ["-c", "command -v git"]).toString().trim()}' "$@"\n`, { mode: 0o755 });
    try {
      const out = await cli(["--path", `git+file://${bare}#main:/content`, "--list"], { PATH: `:${bin}:${process.env.PATH}`, BMAD_MCP_TOKEN: "bridge-token-184" });
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toMatch(/acme\/acme-lint-story +cli \(acme\/repo\.git#main:\/content\)/);
      expect(existsSync(marker)).toBe(false);
      expect(readFileSync(seen, "utf8")).toMatch(/^GIT_TERMINAL_PROMPT=0$/m);
      expect(readFileSync(seen, "utf8")).not.toContain("bridge-token-184");
      // Nor a git in a folder of the project that PATH names (an activated .venv/bin): named, never run (review 327).
      mkdirSync(join(project, "venv327/bin"), { recursive: true });
      copyFileSync(join(project, "git"), join(project, "venv327/bin/git"));
      const inside = await cli(["--path", `git+file://${bare}#main:/content`, "--list"], { PATH: `${join(project, "venv327/bin")}:${process.env.PATH}`, XDG_CACHE_HOME: join(tmp.dir, "cache-327") });
      expect(inside.stderr).toContain("venv327/bin/git is inside the project: the bridge runs no program from the project's own folders");
      expect(existsSync(marker)).toBe(false);
    } finally {
      rmSync(join(project, "git"));
      rmSync(join(project, "venv327"), { recursive: true, force: true });
    }
  });

  it("shows a URL's query nowhere: not in the origin, the cache list or a failed fetch's message (review 184)", async () => {
    const server = await gitHttpServer(tmp.dir);
    const base = `http://127.0.0.1:${server.port}`;
    try {
      const served = await cli(["--path", `git+${base}/acme/repo.git?token=QTOKEN184#v1:/content`, "--list"]);
      expect(served.code, served.stderr).toBe(0);
      expect(served.stdout).toContain(`cli (${base}/acme/repo.git#v1:/content)`);
      const missing = await cli(["--path", `git+${base}/acme/gone.git?token=QTOKEN184#v1`, "--list"]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(`Cannot fetch ref "v1" from ${base}/acme/gone.git#v1: git fetch failed: fatal: repository '${base}/acme/gone.git/' not found`);
      const listed = await cli(["cache", "list"]);
      expect(listed.stdout).toContain(`${base}/acme/repo.git#v1:/content  `);
      for (const out of [served, missing, listed]) expect(out.stdout + out.stderr).not.toContain("QTOKEN184");
    } finally {
      await server.close();
    }
  });

  it("refuses a bad --git-timeout and a bad cache command", async () => {
    expect(await cli(["--git-timeout", "soon", "--list"])).toMatchObject({ code: 2, stderr: expect.stringMatching(/--git-timeout soon: give a number of seconds/) });
    // Node fires a timer over 2^31-1 ms at once: every git run "timed out" at start; under a second no fetch finishes.
    for (const seconds of ["3000000", "1e400", "Infinity", "0.0001"]) {
      expect(await cli(["--git-timeout", seconds, "--list"]), seconds).toMatchObject({ code: 2, stderr: expect.stringContaining(`--git-timeout ${seconds}: give a number of seconds from 1 to 2147483 (Node's longest timer`) });
    }
    expect(await cli(["--list"], { BMAD_GIT_TIMEOUT_MS: "Infinity" })).toMatchObject({ code: 2, stderr: expect.stringContaining("BMAD_GIT_TIMEOUT_MS=Infinity: give a number of milliseconds from 1000 to 2147483647") });
    expect(await cli(["cache", "purge"])).toMatchObject({ code: 2, stderr: expect.stringMatching(/expected `cache list` or `cache clear`/) });
  });
});

/** git's smart HTTP (git http-backend, as CGI) for the repositories under `root`, on a free loopback port. It takes a
 *  token in the query, where git leaves it: before the path it appends (`repo.git?token=…/info/refs&service=…`). */
async function gitHttpServer(root: string): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const raw = req.url!.replace(/\?token=[^/]*/, "");
    const cut = raw.search(/[?&]/);
    const url = { pathname: cut < 0 ? raw : raw.slice(0, cut), query: cut < 0 ? "" : raw.slice(cut + 1) };
    const header = (name: string) => String(req.headers[name] ?? "");
    const cgi = spawn("git", ["http-backend"], {
      env: { PATH: process.env.PATH, GIT_PROJECT_ROOT: root, GIT_HTTP_EXPORT_ALL: "1", REQUEST_METHOD: req.method, PATH_INFO: url.pathname, QUERY_STRING: url.query, CONTENT_TYPE: header("content-type"), HTTP_CONTENT_ENCODING: header("content-encoding"), GIT_PROTOCOL: header("git-protocol") },
      stdio: ["pipe", "pipe", "ignore"],
    });
    req.pipe(cgi.stdin);
    const chunks: Buffer[] = [];
    cgi.stdout.on("data", (c: Buffer) => chunks.push(c));
    cgi.on("close", () => {
      const out = Buffer.concat(chunks);
      const end = out.indexOf("\r\n\r\n");
      let status = 200;
      for (const line of out.subarray(0, end).toString().split("\r\n")) {
        const [name, value] = [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim()];
        if (name.toLowerCase() === "status") status = Number(value.split(" ")[0]);
        else res.setHeader(name, value);
      }
      res.statusCode = status;
      res.end(out.subarray(end + 4));
    });
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((done) => server.close(() => done())) };
}

function cmdline(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1").replace(/\0$/, "");
  } catch {
    return "";
  }
}
