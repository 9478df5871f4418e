// The project's own files for the kit tools: the completion contract script and the shared memory.
// Every read goes through the confined reader (nothing outside the project, no devices, capped), and the
// contract runs bounded: killed whole, with everything it started, at the time limit or on cancel.
import { realpathSync } from "node:fs";
import type { ContextSection, ContractRun, ProjectFiles, Stack } from "../core/surface/deps.js";
import { readConfinedText, resolveConfined } from "./confined-fs.js";
import { runBounded } from "./run-bounded.js";
import type { Result } from "../core/result.js";

const CONTRACT = "_bmad/_config/custom/cc-verify.sh";
const MEMORY = "_bmad/_memory";
/** 120 s (seed 001); BMAD_CONTRACT_TIMEOUT_MS lowers it (tests, impatient users). */
const CONTRACT_TIMEOUT_MS = Number(process.env.BMAD_CONTRACT_TIMEOUT_MS) > 0 ? Number(process.env.BMAD_CONTRACT_TIMEOUT_MS) : 120_000;


export class LocalProjectFiles implements ProjectFiles {
  private readonly root: string;

  constructor(
    projectDir: string,
    private readonly timeoutMs = CONTRACT_TIMEOUT_MS,
  ) {
    this.root = realpathSync(projectDir);
  }

  async runCompletionContract(stack: Stack, workingDir?: string, signal?: AbortSignal): Promise<Result<{ value: ContractRun }>> {
    const dir = await resolveConfined(this.root, workingDir ?? ".");
    if (!dir.ok) {
      if (dir.code === "missing") return { ok: false, error: `working_dir ${workingDir} does not exist in the project.` };
      return { ok: false, error: `working_dir must stay inside the project (${this.root}): ${dir.error}` };
    }
    if (!dir.isDir) return { ok: false, error: `working_dir ${workingDir} is a file; give a folder inside the project.` };
    const script = await resolveConfined(this.root, CONTRACT);
    if (!script.ok && script.code === "missing") return { ok: false, error: `No completion contract: create ${CONTRACT} in the project (a script that exits 0 when the work is complete).` };
    if (!script.ok) return { ok: false, error: `Refused to run the completion contract: ${script.error}` };
    // An argument array, never a shell string; killed whole at the time limit, on cancel or when the bridge exits.
    const run = await runBounded(["bash", script.path, stack], { cwd: dir.path, timeoutMs: this.timeoutMs, signal, env: { BMAD_STACK: stack } });
    const note = run.timedOut ? `\n[killed after ${this.timeoutMs / 1000} s]` : run.cancelled ? "\n[cancelled by the client]" : "";
    const passed = run.exitCode === 0 && !run.timedOut && !run.cancelled;
    return { ok: true, value: { status: passed ? "PASS" : "FAIL", output: run.output + note, duration_ms: run.durationMs } };
  }

  async projectContext(section: ContextSection): Promise<Result<{ value: Record<string, unknown> }>> {
    const warnings: string[] = [];
    const read = async (name: string) => {
      const file = await readConfinedText(this.root, `${MEMORY}/${name}`);
      if (file.ok) return file.text;
      if (file.code !== "missing") warnings.push(`skipped ${file.error}`);
      return undefined;
    };
    const shared = await read("shared-context.md");
    const yamlText = await read("project-context.yaml");
    if (shared === undefined && yamlText === undefined) {
      const why = warnings.length ? ` (${warnings.join("; ")})` : "";
      return { ok: false, error: `No project context yet: create ${MEMORY}/shared-context.md or project-context.yaml${why}.` };
    }
    let data = new Map<string, unknown>();
    if (yamlText !== undefined) {
      // The compiler's parser (loaded on demand): one place for YAML, errors as values.
      const { yaml } = await import("../compiler/parse.js");
      const parsed = yaml(yamlText);
      if (!parsed.ok) warnings.push(`skipped ${MEMORY}/project-context.yaml: ${parsed.error}`);
      else if (parsed.value && typeof parsed.value === "object" && !Array.isArray(parsed.value)) data = new Map(Object.entries(parsed.value));
    }
    const sections = markdownSections(shared ?? "");
    const pick = (key: string) => data.get(key) ?? sections.get(key);
    const all = { name: data.get("name") ?? data.get("project") ?? sections.get("project"), stack: pick("stack"), agents: pick("agents"), decisions: pick("decisions"), architecture: pick("architecture") };
    const value: Record<string, unknown> = section === "all" ? { ...all, shared_context: shared ?? null } : { [section]: all[section] ?? null };
    if (warnings.length) value.warnings = warnings;
    return { ok: true, value };
  }
}

/** `## Stack` ... -> stack: "..." (lower-cased first word of each level-2 heading; a Map, as headings are file content). */
function markdownSections(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let key: string | undefined;
  for (const line of text.split("\n")) {
    const heading = /^##\s+(.+)$/.exec(line);
    if (heading) key = heading[1]!.trim().toLowerCase().split(/\s+/)[0]!.replace(/[^a-z]/g, "");
    else if (key) out.set(key, `${out.get(key) ?? ""}${line}\n`);
  }
  for (const [k, v] of out) out.set(k, v.trim());
  return out;
}
