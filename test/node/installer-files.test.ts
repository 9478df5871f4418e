// installerFiles() against BMAD's real installer (6.12 `bmad-cli install --yes`): the same answers give the
// same `_bmad/` files. The installer runs with its clock pinned to NOW (a preload that fixes `new Date()`),
// so dates compare exactly; one more run on the real clock (the install test files share, helpers' install) differs
// only in its date lines.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { userInfo } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { parse as parseToml } from "smol-toml";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { csv } from "../../src/compiler/parse";
import { loadBundleFromDir } from "../../src/compiler/read";
import type { BundleFile, BundleManifest } from "../../src/core/catalog/bundle";
import { MemoryBundleReader } from "../../src/core/surface/memory-reader";
import type { BundleReader } from "../../src/core/surface/reader";
import { type InstallerAnswers, installerFiles, installerQuestions, installerScripts } from "../../src/core/workspace/installer";
import { install as cachedInstall, INSTALLER_NPM, PKG, ROOT, tempDir } from "./helpers";

const run = promisify(execFile);
const CLI = join(PKG, "bmad-method/tools/installer/bmad-cli.js");
const PINNED_CLOCK = join(ROOT, "test/fixtures/installer/pinned-clock.cjs");
const NOW = new Date("2026-03-04T05:06:07.089Z");
const tmp = tempDir("installer-files");

/** What `--yes` answers for user_name: the OS user, capitalised (the module.yaml default is "BMad"). */
const osUser = userInfo().username;
const OS_USER_NAME = osUser.charAt(0).toUpperCase() + osUser.slice(1);

const CUSTOM_FLAGS = [
  "--user-name",
  'Ada "A" O:Brien',
  "--document-output-language",
  "German",
  "--output-folder",
  "out/docs",
  "--set",
  "core.communication_language=Français",
  "--set",
  "core.project_name=Moon Base",
  "--set",
  "bmm.planning_artifacts={project-root}/plans",
  "--set",
  "bmm.user_skill_level=expert",
  "--set",
  'bmm.project_knowledge=C:\\kb "main"',
];
const CUSTOM_ANSWERS: InstallerAnswers = {
  core: {
    user_name: 'Ada "A" O:Brien',
    document_output_language: "German",
    output_folder: "out/docs",
    communication_language: "Français",
    project_name: "Moon Base",
  },
  bmm: { planning_artifacts: "{project-root}/plans", user_skill_level: "expert", project_knowledge: 'C:\\kb "main"' },
};

/** Runs the real installer, its clock pinned, into `<tmp>/<name>` and returns every file under its `_bmad/`, by project path. */
async function install(name: string, flags: string[]): Promise<Map<string, string>> {
  const dir = join(tmp.dir, name);
  mkdirSync(dir, { recursive: true });
  const argv = ["--require", PINNED_CLOCK, CLI, "install", "--directory", dir, "--modules", "bmm", "--tools", "claude-code", "--yes", ...flags];
  const child = run(process.execPath, argv, { cwd: dir, env: { ...process.env, ...INSTALLER_NPM, BMAD_PINNED_NOW: NOW.toISOString() }, maxBuffer: 16 << 20 });
  child.child.stdin?.end();
  await child;
  return bmadFiles(dir);
}

/** Every file under `dir`'s `_bmad/`, by project path. */
function bmadFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (d: string): void => {
    for (const entry of readdirSync(d).sort()) {
      const p = join(d, entry);
      if (statSync(p).isDirectory()) walk(p);
      else files.set(relative(dir, p), readFileSync(p, "utf8"));
    }
  };
  walk(join(dir, "_bmad"));
  return files;
}

const text = new TextDecoder();
let bundle: BundleReader;
let real: Record<"defaults" | "custom" | "realClock", Map<string, string>>;

beforeAll(async () => {
  const loaded = loadBundleFromDir(join(ROOT, "bmad-bundle"));
  bundle = new MemoryBundleReader(loaded.manifest, (sha) => {
    const bytes = loaded.blobs.get(sha);
    return bytes && text.decode(bytes);
  });
  const clock = join(tmp.dir, "clock-project");
  const [defaults, custom, realClock] = await Promise.all([install("my-project", []), install("moon-base", CUSTOM_FLAGS), cachedInstall("v6.12", clock).then(() => bmadFiles(clock))]);
  real = { defaults, custom, realClock };
}, 120_000);

afterAll(() => tmp.cleanup());

/** installerFiles() plus the scripts it names, read from the same reader. */
async function generate(reader: BundleReader, projectName: string, answers: InstallerAnswers, now = NOW): Promise<Map<string, string>> {
  const result = await installerFiles(reader, { projectName, answers, now, ides: ["claude-code"] });
  if (!result.ok) throw new Error(result.error);
  const files = new Map(result.files);
  for (const script of installerScripts(reader)) files.set(script.path, await reader.readText(reader.catalog.file(script.bundlePath)!));
  return files;
}

function parsed(path: string, content: string): unknown {
  if (path.endsWith(".yaml")) return parseYaml(content);
  if (path.endsWith(".toml")) return parseToml(content);
  if (path.endsWith(".csv")) {
    const rows = csv(content);
    if (!rows.ok) throw new Error(`${path}: ${rows.error}`);
    return rows.value;
  }
  return content;
}

const SKILL_MANIFEST = "_bmad/_config/skill-manifest.csv";
const FILES_MANIFEST = "_bmad/_config/files-manifest.csv";

function rows(content: string): Array<Record<string, string>> {
  return parsed(".csv", content) as Array<Record<string, string>>;
}

/**
 * The bundle keeps a skill at `<module>/<skill>/`, the package at `<module>/<group>/<skill>/` (`bmm/plan/bmad-prd`):
 * drops the grouping folders from an installer path, given the skill ids.
 */
function flatten(path: string, skillIds: Set<string>): string {
  const parts = path.split("/");
  const start = parts[0] === "_bmad" ? 2 : 1;
  const at = parts.findIndex((p, i) => i >= start && skillIds.has(p));
  return at === -1 ? path : [...parts.slice(0, start), ...parts.slice(at)].join("/");
}

/** The comparison: the same file set; every file parses to the same data and matches byte for byte, except as `mask` says. */
function expectSameFiles(ours: Map<string, string>, theirs: Map<string, string>, mask: (path: string, content: string) => string = (_, c) => c) {
  expect([...ours.keys()].sort()).toEqual([...theirs.keys()].sort());
  const skillIds = new Set(rows(ours.get(SKILL_MANIFEST)!).map((r) => r.canonicalId!));
  for (const [path, content] of theirs) {
    const mine = ours.get(path)!;
    if (path === SKILL_MANIFEST) {
      // Same skills, same fields; the path lacks the package's grouping folder, which the bundle does not keep.
      const expected = rows(content).map((r) => ({ ...r, path: flatten(r.path!, skillIds) }));
      const byId = (a: Record<string, string>, b: Record<string, string>) => a.canonicalId!.localeCompare(b.canonicalId!);
      expect(rows(mine).sort(byId), path).toEqual(expected.sort(byId));
      continue;
    }
    if (path === FILES_MANIFEST) {
      // Same rows but grouping folders, and no rows for the package's Python caches (*.pyc), which the bundle does not carry.
      const expected = rows(mask(path, content)).filter((r) => r.type !== "pyc");
      const key = (r: Record<string, string>) => [r.type, r.name, r.module, r.path, r.hash].join("\t");
      const mineRows = rows(mask(path, mine)).map(key).sort();
      expect(mineRows, path).toEqual(expected.map((r) => key({ ...r, path: flatten(r.path!, skillIds) })).sort());
      continue;
    }
    expect(parsed(path, mask(path, mine)), path).toEqual(parsed(path, mask(path, content)));
    expect(mask(path, mine), path).toBe(mask(path, content));
  }
}

it("writes the installer's files for the default answers", async () => {
  const ours = await generate(bundle, "my-project", { core: { user_name: OS_USER_NAME } });
  expectSameFiles(ours, real.defaults);
  expect(ours.get("_bmad/config.user.toml")).toContain(`user_name = "${OS_USER_NAME}"`);
  expect(ours.get("_bmad/bmm/config.yaml")).toContain(`# Date: ${NOW.toISOString()}\n`);
});

it("writes the installer's files for custom answers given as flags and --set", async () => {
  const ours = await generate(bundle, "moon-base", CUSTOM_ANSWERS);
  expectSameFiles(ours, real.custom);
  const team = parseToml(ours.get("_bmad/config.toml")!) as { core: Record<string, string>; modules: { bmm: Record<string, string> } };
  expect(team.core).toEqual({ project_name: "Moon Base", document_output_language: "German", output_folder: "out/docs" });
  expect(team.modules.bmm.implementation_artifacts).toBe("{project-root}/out/docs/implementation-artifacts");
  expect(team.modules.bmm.planning_artifacts).toBe("{project-root}/plans");
});

it("differs from an installer run on the real clock only in its date lines and the hashes of the dated files", async () => {
  const theirs = real.realClock;
  const stamped = parseYaml(theirs.get("_bmad/_config/manifest.yaml")!) as { installation: { installDate: string } };
  // The shared install was made in a folder of its own name: the project is named after that folder.
  const { project_name } = (parseToml(theirs.get("_bmad/config.toml")!) as { core: { project_name: string } }).core;
  const ours = await generate(bundle, project_name, { core: { user_name: OS_USER_NAME } }, new Date(stamped.installation.installDate));
  const dated = new Set(["_config/manifest.yaml", "core/config.yaml", "bmm/config.yaml"]);
  const mask = (path: string, content: string) =>
    path === FILES_MANIFEST
      ? content.replace(/^("[^"]*","[^"]*","[^"]*","([^"]*)",")([0-9a-f]{64})"$/gm, (line, head: string, file: string) => (dated.has(file) ? `${head}DATED"` : line))
      : content.replace(/^# Date: .*$/m, "# Date: DATE").replace(/^(\s*(?:- )?(?:installDate|lastUpdated): ).*$/gm, "$1DATE");
  expectSameFiles(ours, theirs, mask);
});

/** A bundle over the package's own src/ tree, paths as the package has them (grouping folders and Python caches kept). */
function sourceLayoutBundle(): BundleReader {
  const src = join(PKG, "bmad-method/src");
  const version = (JSON.parse(readFileSync(join(PKG, "bmad-method/package.json"), "utf8")) as { version: string }).version;
  const files: BundleFile[] = [];
  const blobs = new Map<string, string>();
  const walk = (dir: string, prefix: string): void => {
    for (const entry of readdirSync(dir)) {
      const p = join(dir, entry);
      if (statSync(p).isDirectory()) walk(p, `${prefix}/${entry}`);
      else {
        const bytes = readFileSync(p);
        const sha256 = createHash("sha256").update(bytes).digest("hex");
        blobs.set(sha256, bytes.toString("utf8"));
        files.push({ path: `${prefix}/${entry}`, source: 0, sha256, size: bytes.length, mime: "text/plain" });
      }
    }
  };
  walk(join(src, "core-skills"), "core");
  walk(join(src, "bmm-skills"), "bmm");
  walk(join(src, "scripts"), "scripts");
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  const manifest: BundleManifest = {
    format: 1,
    id: "package-source-layout",
    sources: [{ kind: "npm", name: "bmad-method", version, origin: "package", priority: 5, layout: "v6-skills-source" }],
    modules: [
      { name: "bmm", source: 0 },
      { name: "core", source: 0 },
    ],
    records: [],
    files,
    config: {},
    searchIndex: "",
  };
  return new MemoryBundleReader(manifest, (sha) => blobs.get(sha));
}

it("writes files-manifest.csv and skill-manifest.csv byte for byte from a bundle that keeps the package's paths", async () => {
  const ours = await generate(sourceLayoutBundle(), "moon-base", CUSTOM_ANSWERS);
  expect([...ours.keys()].sort()).toEqual([...real.custom.keys()].sort());
  for (const [path, content] of real.custom) expect(ours.get(path), path).toBe(content);
});

/** `bmad-cli install --list-options`: the installer's own list of questions. */
async function listedOptions(): Promise<Array<{ module: string; key: string; scope: string; prompt: string; values?: string[] }>> {
  const { stdout } = await run(process.execPath, [CLI, "install", "--list-options"], { cwd: tmp.dir, env: { ...process.env, ...INSTALLER_NPM } });
  const out: Array<{ module: string; key: string; scope: string; prompt: string; values?: string[] }> = [];
  const lines = stdout.split("\n");
  for (const [i, line] of lines.entries()) {
    const m = /^ {2}(\w[\w-]*)\.(\S+)\s+\((\S+)( \[user-scope\])?\)\s+default: /.exec(line);
    if (!m) continue;
    const values = /^ {4}values: (.*)$/.exec(lines[i + 2] ?? "")?.[1]?.split(" | ");
    out.push({ module: m[1]!, key: m[2]!, scope: m[4] ? "user" : "team", prompt: lines[i + 1]!.trim(), ...(values ? { values } : {}) });
  }
  return out;
}

it("lists every question the installer asks, with the default it writes", async () => {
  const questions = await installerQuestions(bundle, { projectName: "my-project" });
  const options = await listedOptions();
  expect(options.length).toBeGreaterThan(0);
  expect(
    questions.map((q) => ({ module: q.module, key: q.key, scope: q.scope, prompt: q.prompt.replaceAll("\n", " "), ...(q.choices ? { values: q.choices.map((c) => c.value) } : {}) })),
  ).toEqual(options);

  // The defaults are the values a --yes install writes (user_name aside: the CLI takes the OS user's name).
  const team = parseToml(real.defaults.get("_bmad/config.toml")!) as Record<string, Record<string, unknown>>;
  const user = parseToml(real.defaults.get("_bmad/config.user.toml")!) as Record<string, Record<string, unknown>>;
  const section = (file: Record<string, Record<string, unknown>>, module: string) => (module === "core" ? file.core : (file.modules as Record<string, Record<string, unknown>>)?.[module]);
  for (const q of questions) {
    const written = section(q.scope === "user" ? user : team, q.module)?.[q.key];
    expect({ key: `${q.module}.${q.key}`, default: q.default }).toEqual({ key: `${q.module}.${q.key}`, default: q.key === "user_name" ? "BMad" : written });
  }
  expect(questions.find((q) => q.key === "planning_artifacts")?.default).toBe("{project-root}/_bmad-output/planning-artifacts");
});

it("refuses unknown modules and keys, naming the valid ones, and answers it cannot write", async () => {
  const attempt = async (answers: unknown) => installerFiles(bundle, { projectName: "p", answers: answers as InstallerAnswers, now: NOW });
  expect(await attempt({ bmb: { user_name: "Ada" } })).toEqual({ ok: false, error: 'Unknown module "bmb" in answers. Modules: core, bmm.' });
  expect(await attempt({ bmm: { planing_artifacts: "x" } })).toEqual({
    ok: false,
    error: 'Unknown question "bmm.planing_artifacts". bmm asks: user_skill_level, planning_artifacts, implementation_artifacts, project_knowledge.',
  });
  expect(await attempt({ bmm: { user_name: "Ada" } })).toEqual({
    ok: false,
    error: 'Unknown question "bmm.user_name". bmm asks: user_skill_level, planning_artifacts, implementation_artifacts, project_knowledge.',
  });
  expect(await attempt({ core: { output_folder: 3 } })).toEqual({ ok: false, error: "Answer core.output_folder must be a string." });
  expect(await attempt({ bmm: { user_skill_level: "guru" } })).toEqual({
    ok: false,
    error: "Answer bmm.user_skill_level must be one of: beginner, intermediate, expert.",
  });
  expect(await attempt(["core"])).toEqual({ ok: false, error: "answers must be an object keyed by module, then by question key." });
  expect(await installerFiles(bundle, { projectName: "", answers: {} })).toEqual({ ok: false, error: "projectName must be a non-empty string." });
});

it("has no questions and no files for a bundle without BMAD 6 modules", async () => {
  const empty: BundleManifest = { format: 1, id: "empty", sources: [], modules: [], records: [], files: [], config: {}, searchIndex: "" };
  const reader = new MemoryBundleReader(empty, () => undefined);
  expect(await installerQuestions(reader)).toEqual([]);
  expect(installerScripts(reader)).toEqual([]);
  expect(await installerFiles(reader, { projectName: "p", answers: {} })).toEqual({
    ok: false,
    error: "This bundle has no core/module.yaml: the installer's files need a BMAD 6 skills bundle.",
  });
});
