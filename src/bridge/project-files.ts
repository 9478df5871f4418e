// The project's own files for the kit tools: the completion contract script and the shared memory.
// Every read goes through the confined reader (nothing outside the project, no devices, capped), and the
// contract runs bounded: killed whole, with everything it started, at the time limit or on cancel.
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import type { ContextSection, ContractRun, ProjectFiles, Stack } from "../core/surface/deps.js";
import { projectContext } from "../core/memory/project-context.js";
import { readConfinedText, resolveConfined } from "./confined-fs.js";
import { runBounded } from "./run-bounded.js";
import { pulledOthers } from "./sync-state.js";
import { othersNamed } from "../core/workspace/line-authors.js";
import type { Result } from "../core/result.js";
import { CONTRACT_SCRIPT } from "../core/runtime/project.js";

/** 120 s (seed 001); BMAD_CONTRACT_TIMEOUT_MS lowers it (tests, impatient users). */
const CONTRACT_TIMEOUT_MS = Number(process.env.BMAD_CONTRACT_TIMEOUT_MS) > 0 ? Number(process.env.BMAD_CONTRACT_TIMEOUT_MS) : 120_000;


export class LocalProjectFiles implements ProjectFiles {
  private readonly root: string;

  /** `allowProjectScripts`: the user started the bridge with --allow-project-scripts, so the project's own scripts run. */
  constructor(
    projectDir: string,
    private readonly allowProjectScripts = false,
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
    const script = await resolveConfined(this.root, CONTRACT_SCRIPT);
    // Said as what works at once: no tool writes the script (paths.ts), and it runs only where the user allowed it.
    if (!script.ok && script.code === "missing") return { ok: false, error: `No completion contract in this project: ask the user to create ${CONTRACT_SCRIPT} themselves (a script that exits 0 when the work is complete; tools never write one)${this.allowProjectScripts ? "" : " and to start the bridge with --allow-project-scripts (in the MCP client's config), without which it does not run"}.` };
    if (!script.ok) return { ok: false, error: `Refused to run the completion contract: ${script.error}` };
    // The project's own script: a cloned repository may have committed one, and a model steered by its README would
    // run it (review 82: it ran, wrote outside the project and printed the saved sign-in). The user's word, not the model's.
    if (!this.allowProjectScripts) return { ok: false, error: `${CONTRACT_SCRIPT} is the project's own script, which runs only where the user started the bridge with --allow-project-scripts (in the MCP client's config): a cloned repository may have committed one. Nothing was run. Ask the user to run it, or to allow the project's scripts.` };
    // An argument array, never a shell string; killed whole at the time limit, on cancel or when the bridge exits.
    const run = await runBounded(["bash", script.path, stack], { cwd: dir.path, timeoutMs: this.timeoutMs, signal, env: { BMAD_STACK: stack }, userPaths: true });
    const note = run.timedOut ? `\n[killed after ${this.timeoutMs / 1000} s]` : run.cancelled ? "\n[cancelled by the client]" : "";
    const passed = run.exitCode === 0 && !run.timedOut && !run.cancelled;
    return { ok: true, value: { status: passed ? "PASS" : "FAIL", output: run.output + note, duration_ms: run.durationMs } };
  }

  projectContext(section: ContextSection, remembers: boolean): Promise<Result<{ value: Record<string, unknown> }>> {
    return projectContext(async (rel) => {
      const file = await readConfinedText(this.root, rel);
      if (!file.ok) return { ok: false, missing: file.code === "missing", error: file.error };
      // A file pulled from a shared workspace names whoever else wrote it, as the remote did (review 92).
      const others = await pulledOthers(this.root, rel, createHash("sha256").update(file.text).digest("hex"));
      return { ok: true, text: file.text, ...(others ? { by: othersNamed(others) } : {}) };
    }, section, remembers);
  }
}
