// The roots the bridge layers over its embedded bundle. A root the user named (--path, --project) that
// yields nothing is an error at start-up; an implicit one (BMAD_ROOT, ~/.bmad) is skipped with a warning
// that says what was looked for. Several --path roots are served, ranked in the order given.
import { execFile } from "node:child_process";
import { appendFileSync, cpSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { connectBridge, install, tempDir, toolText, waitFor } from "./helpers.js";
import { MAX_WATCHED_FOLDERS } from "../../src/bridge/tree-watch.js";

const run = promisify(execFile);
const tmp = tempDir("bridge-roots");
let bridge: string;
let pristine: string;
const closers: Array<() => Promise<void>> = [];
const LOOKED_FOR = /Looked for: _bmad\/_config\/skill-manifest\.csv/;

beforeAll(async () => {
  bridge = inject("bridge");
  pristine = join(tmp.dir, "pristine");
  await install("v6.12", pristine);
}, 120_000);
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  tmp.cleanup();
});

function folder(name: string, from?: string): string {
  const dir = join(tmp.dir, name);
  if (from) cpSync(from, dir, { recursive: true });
  else mkdirSync(dir, { recursive: true });
  return dir;
}

/** The CLI's exit code and stderr, for a run expected to stop. */
async function refused(args: string[], cwd: string): Promise<{ code: number; stderr: string }> {
  const out = await run(process.execPath, [bridge, ...args], { cwd, env: { PATH: process.env.PATH!, HOME: join(tmp.dir, "home-empty") }, timeout: 20_000 }).then(
    () => ({ code: 0, stderr: "" }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  );
  return out;
}

describe("roots named on the command line", () => {
  it("stops with exit 2 when --path holds no BMAD tree, saying what was looked for", async () => {
    const empty = folder("no-tree");
    writeFileSync(join(empty, "README.md"), "not BMAD\n");
    for (const args of [["--path", empty], ["--path", empty, "--list"]]) {
      const out = await refused(args, folder("cwd-1"));
      expect(out.code, args.join(" ")).toBe(2);
      expect(out.stderr).toMatch(/bmad-mcp: --path .*no-tree: no BMAD tree found/);
      expect(out.stderr).toMatch(LOOKED_FOR);
      expect(out.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
  });

  it("stops with exit 2, saying how to name the project, when started with none in the home folder or at /", async () => {
    const home = folder("home-empty");
    for (const cwd of [home, "/"]) {
      const out = await refused([], cwd);
      expect(out.code, cwd).toBe(2);
      expect(out.stderr).toContain(`bmad-mcp: not serving ${cwd}: it is ${cwd === "/" ? "the file system's root" : "your home folder"}, where the MCP client started bmad-mcp`);
      expect(out.stderr).toContain('add "--project", "/path/to/project" to bmad-mcp\'s args in the client\'s config (or set BMAD_PROJECT_ROOT)');
    }
  });

  it("stops with exit 2 when a --path tree yields no agents, workflows, tasks or skills", async () => {
    const hollow = folder("hollow");
    mkdirSync(join(hollow, "_bmad/_config"), { recursive: true });
    writeFileSync(join(hollow, "_bmad/_config/skill-manifest.csv"), "canonicalId,name,description,module,path\n");
    const out = await refused(["--path", hollow], folder("cwd-2"));
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/--path .*hollow: .*no agents, workflows, tasks or skills/);
  });

  it("stops with exit 2 when --project has a BMAD folder that yields nothing", async () => {
    const broken = folder("broken-project");
    mkdirSync(join(broken, "_bmad/bmm/agents"), { recursive: true });
    writeFileSync(join(broken, "_bmad/bmm/agents/pm.md"), "# PM\n");
    const out = await refused(["--project", broken], folder("cwd-3"));
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/--project .*broken-project: no BMAD tree found/);
    expect(out.stderr).toMatch(LOOKED_FOR);
  });

  it("serves a --project that holds only the kit's memory, or no BMAD folder at all, from the embedded bundle", async () => {
    const kit = folder("kit-only");
    mkdirSync(join(kit, "_bmad/_memory"), { recursive: true });
    writeFileSync(join(kit, "_bmad/_memory/shared-context.md"), "# Shared\n## Stack\nGo\n");
    for (const [i, dir] of [kit, folder("plain-project")].entries()) {
      const bridgeProcess = await connectBridge(bridge, folder(`cwd-kit-${i}`), { args: ["--project", dir] });
      closers.push(bridgeProcess.close);
      expect(toolText(await bridgeProcess.client.callTool({ name: "bmad", arguments: { command: "pm" } }))).toMatch(/\nOrigin: package /);
      expect(bridgeProcess.stderr()).toBe("");
    }
  });

  it("serves several --path roots, ranked in the order given", async () => {
    const first = folder("path-first", pristine);
    const second = folder("path-second", pristine);
    appendFileSync(join(first, ".claude/skills/bmad-agent-pm/SKILL.md"), "\nLEVEL first\n");
    appendFileSync(join(second, ".claude/skills/bmad-agent-pm/SKILL.md"), "\nLEVEL second\n");
    for (const [a, b] of [[first, second], [second, first]] as const) {
      const { client, close } = await connectBridge(bridge, folder(`cwd-order-${closers.length}`), { args: ["--path", a, "--path", b] });
      closers.push(close);
      const out = toolText(await client.callTool({ name: "bmad", arguments: { command: "pm" } }));
      const [won, lost] = a === first ? ["first", "second"] : ["second", "first"];
      expect(out).toMatch(new RegExp(`^Resolved bmm/bmad-agent-pm from cli \\(priority 2, path-${won}@6\\.12\\.0\\)`));
      expect(out).toContain(`LEVEL ${won}`);
      expect(out).not.toContain(`LEVEL ${lost}`);
      expect(out).toMatch(new RegExp(`Also available: .*from cli \\(priority 2, path-${lost}@6\\.12\\.0\\).*from package`));
    }
  });
});

// Review 35: a --path module whose code is BMAD's own module put a file at a path of BMAD's bmad-prd, and the answer
// said "from package" while serving it.
it("names each file of a skill that another source serves in its place", async () => {
  const module = folder("overlaying-module");
  mkdirSync(join(module, "src/bmm/decoy"), { recursive: true });
  mkdirSync(join(module, "src/bmm/bmad-prd/assets"), { recursive: true });
  writeFileSync(join(module, "src/bmm/module.yaml"), "code: bmm\nname: Decoy\n");
  writeFileSync(join(module, "src/bmm/decoy/SKILL.md"), "---\nname: decoy\ndescription: a decoy\n---\n# Decoy\n");
  writeFileSync(join(module, "src/bmm/bmad-prd/assets/prd-template.md"), "# INJECTED\n");
  const { client, close } = await connectBridge(bridge, folder("cwd-overlay"), { args: ["--path", module] });
  closers.push(close);
  const out = toolText(await client.callTool({ name: "bmad", arguments: { command: "*prd" } }));
  expect(out).toMatch(/^Resolved bmm\/bmad-prd from package \([^)]*\)\. 1 of its files come from elsewhere: bmm\/bmad-prd\/assets\/prd-template\.md from cli \(priority 2, overlaying-module\)\./);
});

describe("implicit roots", () => {
  it("warns about a BMAD_ROOT and a ~/.bmad with no tree, naming what was looked for, and serves the rest", async () => {
    const home = folder("home-with-bmad");
    mkdirSync(join(home, ".bmad"));
    writeFileSync(join(home, ".bmad/notes.txt"), "mine\n");
    const envRoot = folder("env-no-tree");
    const { client, stderr, close } = await connectBridge(bridge, folder("cwd-implicit"), { home, env: { BMAD_ROOT: envRoot } });
    closers.push(close);
    expect(toolText(await client.callTool({ name: "bmad", arguments: { command: "pm" } }))).toMatch(/\nOrigin: package /);
    expect(stderr()).toMatch(/warning: BMAD_ROOT=.*env-no-tree has no BMAD tree; skipped\. Looked for: _bmad\/_config\/skill-manifest\.csv/);
    expect(stderr()).toMatch(/warning: ~\/\.bmad \(.*home-with-bmad\/\.bmad\) has no BMAD tree; skipped\. Looked for: _bmad\/_config\/skill-manifest\.csv/);
  });
});

/** The inotify watches process `pid` holds, as the kernel lists them in /proc/PID/fdinfo. */
function inotifyWatches(pid: number): number {
  let watches = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    if (!readlinkSync(`/proc/${pid}/fd/${fd}`, { encoding: "utf8" }).includes("inotify")) continue;
    watches += readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8").split("\n").filter((line) => line.startsWith("inotify ")).length;
  }
  return watches;
}

/** The text of prompt `name`; given `awaited`, once it holds that or after 5 s (a reload follows an edit shortly). */
async function promptText(client: Awaited<ReturnType<typeof connectBridge>>["client"], name: string, awaited?: string): Promise<string> {
  const text = async () => ((await client.getPrompt({ name })).messages[0]!.content as { text: string }).text;
  let now = await text();
  for (const end = Date.now() + 5000; awaited !== undefined && !now.includes(awaited) && Date.now() < end; now = await text()) await new Promise((r) => setTimeout(r, 25));
  return now;
}

/** `dir` and the folders below it, but those named in `skip`. */
function foldersIn(dir: string, skip: string[] = []): number {
  return 1 + readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory() && !skip.includes(e.name)).reduce((n, e) => n + foldersIn(join(dir, e.name)), 0);
}

// Review 214: a --path, BMAD_ROOT or ~/.bmad tree was watched whole, node_modules and .git with it: one of 33,000 files
// took 37,696 inotify watches and 169 MB, one of 200,000 all of its user's watches, and no failure was said.
describe("watching a root", () => {
  it("watches each folder of its BMAD folders once, none of node_modules, .git or the rest, and follows folders moved in and out", async () => {
    const root = folder("watched-root", pristine);
    for (const heavy of ["node_modules/pkg", ".git/objects", "docs/site"]) {
      for (let i = 0; i < 100; i++) {
        mkdirSync(join(root, `${heavy}${i}`), { recursive: true });
        for (let f = 0; f < 10; f++) writeFileSync(join(root, `${heavy}${i}`, `f${f}.js`), "x\n");
      }
    }
    const { client, pid, stderr, close } = await connectBridge(bridge, folder("cwd-watched"), { args: ["--path", root] });
    closers.push(close);
    expect(toolText(await client.callTool({ name: "bmad", arguments: { command: "pm" } }))).toContain("watched-root");
    // One per folder of _bmad/ (its render snapshots and memory are not content) and of .claude/skills/.
    const bmadFolders = foldersIn(join(root, "_bmad"), ["_memory", "render"]) + foldersIn(join(root, ".claude/skills"));
    expect(inotifyWatches(pid)).toBe(bmadFolders);

    // A skill made beside the tree and moved in is watched with its folders, and unwatched once moved out.
    const staged = join(root, "staged");
    mkdirSync(join(staged, "assets"), { recursive: true });
    writeFileSync(join(staged, "SKILL.md"), "---\nname: bmad-wombat\ndescription: Counts wombats.\n---\nCount them.\n");
    renameSync(staged, join(root, ".claude/skills/bmad-wombat"));
    await waitFor("the moved-in skill's folders to be watched", () => (inotifyWatches(pid) === bmadFolders + 2 ? true : undefined), 5000);
    renameSync(join(root, ".claude/skills/bmad-wombat"), staged);
    await waitFor("the moved-out skill's folders to be let go", () => (inotifyWatches(pid) === bmadFolders ? true : undefined), 5000);
    expect(stderr()).not.toContain("cannot watch");
  });

  it("watches no more than its limit of folders, and says so once", async () => {
    const root = folder("many-folders", pristine);
    for (let i = 0; i < MAX_WATCHED_FOLDERS + 50; i++) mkdirSync(join(root, "_bmad/bmm/notes", `n${i}`), { recursive: true });
    const { pid, stderr, close } = await connectBridge(bridge, folder("cwd-many"), { args: ["--path", root] });
    closers.push(close);
    expect(inotifyWatches(pid)).toBe(MAX_WATCHED_FOLDERS);
    expect(stderr().match(/cannot watch/g)).toHaveLength(1);
    expect(stderr()).toMatch(/warning: cannot watch _bmad\/bmm\/notes\/n\d+: 2000 folders are watched already, the most this server watches; edits there, and in any other folder left unwatched, show only after a restart\n/);
    rmSync(join(root, "_bmad/bmm/notes"), { recursive: true });
  });

  // Review 448: `.a/skills` -> /usr (listed before `.claude`) filled the watch's limit with /usr: an edit of a project
  // skill never showed, stderr named paths outside the project, and writes there rebuilt the bundle.
  it("follows no link out of the project, and still sees an edit of a project skill", async () => {
    const root = folder("linked-out", pristine);
    const elsewhere = folder("linked-out-elsewhere");
    for (let i = 0; i < MAX_WATCHED_FOLDERS + 50; i++) mkdirSync(join(elsewhere, `d${i}`));
    mkdirSync(join(root, ".a"));
    symlinkSync(elsewhere, join(root, ".a/skills"));
    const { client, pid, stderr, close } = await connectBridge(bridge, root, { home: folder("home-linked-out") });
    closers.push(close);
    expect(await promptText(client, "bmad-prd")).not.toContain("LINKED-OUT MARKER");
    // The project's own folders, none of those outside: writes there reach no watch.
    expect(inotifyWatches(pid)).toBe(foldersIn(join(root, "_bmad"), ["_memory", "render"]) + foldersIn(join(root, ".claude/skills")));
    appendFileSync(join(root, ".claude/skills/bmad-prd/SKILL.md"), "\nLINKED-OUT MARKER\n");
    expect(await promptText(client, "bmad-prd", "LINKED-OUT MARKER")).toContain("LINKED-OUT MARKER");
    // Said on stderr: the build's refusal of the link (naming its target for the user), and nothing below it.
    expect(stderr()).toContain("Refused symlink .a/skills");
    expect(stderr()).not.toMatch(/cannot watch|linked-out-elsewhere\//);
  });

  it("watches the project's own skills before another dot-folder's, and tells clients what it left unwatched", async () => {
    const root = folder("crowded-dots", pristine);
    for (let i = 0; i < MAX_WATCHED_FOLDERS + 50; i++) mkdirSync(join(root, ".a/skills", `d${i}`), { recursive: true });
    const { client, pid, close } = await connectBridge(bridge, root, { home: folder("home-crowded-dots") });
    closers.push(close);
    expect(inotifyWatches(pid)).toBe(MAX_WATCHED_FOLDERS);
    appendFileSync(join(root, ".claude/skills/bmad-prd/SKILL.md"), "\nCROWDED MARKER\n");
    expect(await promptText(client, "bmad-prd", "CROWDED MARKER")).toContain("CROWDED MARKER");
    const listed = toolText(await client.callTool({ name: "bmad", arguments: { command: "" } }));
    expect(listed).toMatch(/cannot watch \.a\/skills\/d\d+: 2000 folders are watched already, the most this server watches; edits there, and in any other folder left unwatched, show only after a restart/);
    expect(listed).not.toContain(realpathSync(root));
  });
});
