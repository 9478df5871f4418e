// The project's own files for the kit tools: the completion contract script and the shared memory.
// Every path stays inside the project (real paths, so symlinks cannot lead out).
import { spawn } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import type { ContextSection, ContractRun, ProjectFiles, Stack } from "../core/surface/deps.js";

const CONTRACT = "_bmad/_config/custom/cc-verify.sh";
/** 120 s (seed 001); BMAD_CONTRACT_TIMEOUT_MS lowers it (tests, impatient users). */
const CONTRACT_TIMEOUT_MS = Number(process.env.BMAD_CONTRACT_TIMEOUT_MS) > 0 ? Number(process.env.BMAD_CONTRACT_TIMEOUT_MS) : 120_000;
const MAX_OUTPUT = 256 * 1024;

export class LocalProjectFiles implements ProjectFiles {
  private readonly root: string;

  constructor(
    projectDir: string,
    private readonly timeoutMs = CONTRACT_TIMEOUT_MS,
  ) {
    this.root = realpathSync(projectDir);
  }

  /** A directory inside the project, or an error naming the problem. */
  private inside(dir: string | undefined): { ok: true; path: string } | { ok: false; error: string } {
    const wanted = dir ? resolve(this.root, dir) : this.root;
    if (!existsSync(wanted)) return { ok: false, error: `working_dir ${dir} does not exist in the project.` };
    const real = realpathSync(wanted);
    const rel = relative(this.root, real);
    if (rel.startsWith("..") || isAbsolute(rel)) return { ok: false, error: `working_dir must stay inside the project (${this.root}); ${dir} leads outside it.` };
    return { ok: true, path: real };
  }

  runCompletionContract(stack: Stack, workingDir?: string): Promise<{ ok: true; value: ContractRun } | { ok: false; error: string }> {
    const dir = this.inside(workingDir);
    if (!dir.ok) return Promise.resolve(dir);
    const script = join(this.root, CONTRACT);
    if (!existsSync(script)) return Promise.resolve({ ok: false, error: `No completion contract: create ${CONTRACT} in the project (a script that exits 0 when the work is complete).` });
    const started = performance.now();
    return new Promise((done) => {
      // An argument array, never a shell string. Its own process group, so a hang is killed whole
      // (the script and whatever it started) at the timeout, keeping the output so far.
      const child = spawn("bash", [script, stack], { cwd: dir.path, env: { ...process.env, BMAD_STACK: stack }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-MAX_OUTPUT));
      child.stdout.on("data", collect);
      child.stderr.on("data", collect);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        process.kill(-child.pid!, "SIGKILL");
      }, this.timeoutMs);
      const finish = (code: number | null) => {
        clearTimeout(timer);
        const note = timedOut ? `\n[killed after ${this.timeoutMs / 1000} s]` : "";
        done({ ok: true, value: { status: code === 0 && !timedOut ? "PASS" : "FAIL", output: output + note, duration_ms: Math.round(performance.now() - started) } });
      };
      child.on("error", (error) => {
        output += error.message;
        finish(null);
      });
      child.on("close", finish);
    });
  }

  async projectContext(section: ContextSection): Promise<{ ok: true; value: Record<string, unknown> } | { ok: false; error: string }> {
    const memory = join(this.root, "_bmad", "_memory");
    const shared = read(join(memory, "shared-context.md"));
    const yamlText = read(join(memory, "project-context.yaml"));
    if (shared === undefined && yamlText === undefined) return { ok: false, error: "No project context yet: create _bmad/_memory/shared-context.md or project-context.yaml." };
    let data: Record<string, unknown> = {};
    const warnings: string[] = [];
    if (yamlText !== undefined) {
      // The compiler's parser (loaded on demand): one place for YAML, errors as values.
      const { yaml } = await import("../../scripts/bundle/parse.js");
      const parsed = yaml(yamlText);
      if (!parsed.ok) warnings.push(`skipped _bmad/_memory/project-context.yaml: ${parsed.error}`);
      else if (parsed.value && typeof parsed.value === "object" && !Array.isArray(parsed.value)) data = parsed.value as Record<string, unknown>;
    }
    const sections = markdownSections(shared ?? "");
    const pick = (key: string) => data[key] ?? sections[key];
    const all = { name: data.name ?? data.project ?? sections.project, stack: pick("stack"), agents: pick("agents"), decisions: pick("decisions"), architecture: pick("architecture") };
    const value: Record<string, unknown> = section === "all" ? { ...all, shared_context: shared ?? null } : { [section]: all[section] ?? null };
    if (warnings.length) value.warnings = warnings;
    return { ok: true, value };
  }
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** `## Stack` ... -> { stack: "..." } (lower-cased first word of each level-2 heading). */
function markdownSections(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  let key: string | undefined;
  for (const line of text.split("\n")) {
    const heading = /^##\s+(.+)$/.exec(line);
    if (heading) key = heading[1]!.trim().toLowerCase().split(/\s+/)[0]!.replace(/[^a-z]/g, "");
    else if (key) out[key] = `${out[key] ?? ""}${line}\n`;
  }
  for (const k of Object.keys(out)) out[k] = out[k]!.trim();
  return out;
}
