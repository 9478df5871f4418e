// The two doors the lifecycle (scripts/lifecycle.ts) walks through. McpDoor: a client with only MCP tools on a
// workspace; what the model reads is the text of every answer. NativeDoor: BMAD in Claude Code in an installed 6.12
// project; what the model reads is SKILL.md and customize.toml, the files the path loads, and the scripts' stdout
// (BMAD's real Python), the bench's baseline.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { promisify } from "node:util";
import { split } from "shlex";
import { parse as parseYaml } from "yaml";
import { runStreams } from "../test/shared/run-output.js";
import type { Door, Entry, Phase, RunResult } from "./lifecycle.js";

const bytes = (text: string) => Buffer.byteLength(text);
const SCRIPT = /([\w-]+\.py)/;

export interface ToolAnswer {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A tool call as the client makes it. */
export type CallTool = (name: string, args: Record<string, unknown>) => Promise<ToolAnswer>;

const textOf = (answer: ToolAnswer) => (answer.content ?? []).map((c) => c.text ?? "").join("\n");

export class McpDoor implements Door {
  readonly root: string;
  readonly ledger: Entry[] = [];
  phase: Phase | "setup" = "setup";

  constructor(
    private readonly callTool: CallTool,
    readonly project: string,
  ) {
    this.root = `bmad://projects/${project}`;
  }

  /** One tool call, its answer's text counted against `label`; an error answer stops the model. */
  async call(label: string, name: string, args: Record<string, unknown>, allowError = false): Promise<ToolAnswer & { text: string }> {
    const answer = await this.callTool(name, args);
    const text = textOf(answer);
    this.ledger.push({ phase: this.phase, call: label, bytes: bytes(text) });
    if (answer.isError && !allowError) throw new Error(`${name} ${JSON.stringify(args).slice(0, 300)} answered an error: ${text.slice(0, 500)}`);
    return { ...answer, text };
  }

  async skill(name: string): Promise<string> {
    return (await this.call(`bmad *${name.replace(/^bmad-/, "")}`, "bmad", { command: `*${name.replace(/^bmad-/, "")}`, project: this.project })).text;
  }

  async load(skill: string, path: string): Promise<string> {
    const uri = `bmad://bmm/${skill}/${path}`;
    const answer = await this.call(`bmad-resources read ${skill}/${path}`, "bmad-resources", { operation: "read", uri });
    return answer.content!.length > 1 ? answer.content!.slice(1).map((c) => c.text ?? "").join("\n") : answer.text;
  }

  async read(path: string): Promise<string> {
    const answer = await this.call(`bmad-files read ${short(path)}`, "bmad-files", { action: "read", project: this.project, path });
    return answer.content!.slice(1).map((c) => c.text ?? "").join("\n");
  }

  async write(path: string, content: string): Promise<void> {
    await this.call(`bmad-files write ${short(path)}`, "bmad-files", { action: "write", project: this.project, path, content });
  }

  async run(line: string): Promise<RunResult> {
    // With "project", as the render says: a line naming only {skill-root} and config values names no workspace.
    const answer = await this.call(`bmad-run ${scriptCall(line)}`, "bmad-run", { command: line, project: this.project }, true);
    const structured = (answer.structuredContent ?? {}) as { exit_code?: number; stdout?: string; stdout_bytes?: number; stderr_bytes?: number };
    const stdout = typeof structured.stdout === "string" ? structured.stdout : runStreams(answer.text, structured).stdout;
    return { exit: structured.exit_code ?? (answer.isError ? 1 : 0), stdout, text: answer.text };
  }

  async search(path: string): Promise<void> {
    await this.call(`bmad-files list (search) ${short(path)}`, "bmad-files", { action: "list", project: this.project, path: `${PLAN_ROOT(path)}/**` });
  }

  listed(text: string, path: string): string | undefined {
    const line = text.split("\n").find((l) => l.includes(path));
    if (line === undefined) return undefined;
    return /status:?\s*[`"]?([\w-]+)/.exec(line.slice(line.indexOf(path)))?.[1] ?? "listed";
  }
}

/** A run's label: the script and its subcommand, if it has one. */
const scriptCall = (line: string) => {
  const words = uvArgs(line.replace(/\\\n/g, " "));
  const script = SCRIPT.exec(line)?.[1] ?? "?";
  const sub = words[1] && !words[1].startsWith("-") ? ` ${words[1]}` : "";
  return `${script}${sub}`;
};

/** A `uv run` line's script and its arguments: uv's own words (`uv run`, `--no-cache`) dropped. */
const uvArgs = (line: string) => split(line).slice(2).filter((word, i) => i > 0 || word !== "--no-cache");

/** The folder a search for `path` would start from: its first two parts (`_bmad-output/planning-artifacts`). */
const PLAN_ROOT = (path: string) => path.split("/").slice(0, 2).join("/");
/** A project path without the run folder's date, for labels that group across runs. */
const short = (path: string) => path.replace(/-\d{4}-\d{2}-\d{2}/, "");

/** BMAD in Claude Code: `dir` is an installed 6.12 project; `env` what python3 runs with (PYTHONPATH for ruamel.yaml). */
export class NativeDoor implements Door {
  readonly ledger: Entry[] = [];
  phase: Phase | "setup" = "setup";
  private skillName = "";

  constructor(
    readonly root: string,
    private readonly env: Record<string, string> = {},
  ) {}

  private note(call: string, text: string): void {
    this.ledger.push({ phase: this.phase, call, bytes: bytes(text) });
  }

  private skillDir(name: string): string {
    return join(this.root, ".claude/skills", name);
  }

  async skill(name: string): Promise<string> {
    this.skillName = name;
    const text = readFileSync(join(this.skillDir(name), "SKILL.md"), "utf8");
    this.note(`${name}/SKILL.md`, text);
    this.note(`${name}/customize.toml`, readFileSync(join(this.skillDir(name), "customize.toml"), "utf8"));
    return text;
  }

  async load(skill: string, path: string): Promise<string> {
    const text = readFileSync(join(this.skillDir(skill), path), "utf8");
    this.note(`${skill}/${path}`, text);
    return text;
  }

  async read(path: string): Promise<string> {
    const text = readFileSync(join(this.root, path), "utf8");
    this.note(`read ${short(path)}`, text);
    return text;
  }

  async write(path: string, content: string): Promise<void> {
    mkdirSync(dirname(join(this.root, path)), { recursive: true });
    writeFileSync(join(this.root, path), content);
    this.note(`write ${short(path)}`, "");
  }

  /** The line with what Claude Code fills in itself: the project and skill roots, and the config values it loaded. */
  async run(line: string): Promise<RunResult> {
    const config = this.config();
    const filled = line
      .replace(/\\\n/g, " ")
      .replaceAll("{project-root}", this.root)
      .replaceAll("{skill-root}", this.skillDir(this.skillName))
      .replace(/\{(\w+)\}/g, (whole, key: string) => config[key] ?? whole);
    const [script, ...args] = uvArgs(filled);
    const result = await promisify(execFile)("python3", [script!, ...args], { cwd: this.root, env: { PATH: process.env.PATH!, ...this.env } }).then(
      (r) => ({ exit: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ exit: e.code, stdout: e.stdout, stderr: e.stderr }),
    );
    this.note(scriptCall(line), result.stdout + result.stderr);
    return { exit: result.exit, stdout: result.stdout, text: result.stdout + result.stderr };
  }

  /** Claude Code's Glob: the paths it answers. */
  async search(path: string): Promise<void> {
    const start = join(this.root, PLAN_ROOT(path));
    this.note(`glob ${short(path)}`, existsSync(start) ? walkFiles(start).map((f) => relative(this.root, f)).join("\n") : "");
  }

  /** Claude Code lists no earlier artifacts: every input is searched for. */
  listed(): string | undefined {
    return undefined;
  }

  /** The bmm module's config as the skill loads it, `{project-root}` resolved. */
  private config(): Record<string, string> {
    const raw = parseYaml(readFileSync(join(this.root, "_bmad/bmm/config.yaml"), "utf8")) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, String(v).replaceAll("{project-root}", this.root)]));
  }
}

function walkFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walkFiles(join(dir, e.name)) : [join(dir, e.name)]));
}
