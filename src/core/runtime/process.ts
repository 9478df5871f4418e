// A ported script's run as a process: what it printed, its exit status, and Python's last words
// when it would have died with a traceback.
import { ArgparseExit } from "./argparse.js";
import { ScriptTimeout } from "./budget.js";
import type { ScriptContext, ScriptResult } from "./context.js";
import { FsRefusal } from "./fs.js";
import { pyInt } from "./py-int.js";
import { ChangeRefused, RefusedOsError } from "./py-io.js";
import { PyError } from "./py-json.js";

export interface Output {
  stdout: string;
  stderr: string;
}

/** shutil.get_terminal_size().columns for a process whose output is captured: int(COLUMNS) if positive, else 80. */
export function terminalWidth(ctx: ScriptContext): { width: number } {
  let columns = 0;
  try {
    columns = Number(pyInt(ctx.env?.COLUMNS ?? ""));
  } catch (error) {
    if (!(error instanceof PyError)) throw error; // int()'s ValueError: shutil takes it as no width given
  }
  return { width: columns > 0 ? columns : 80 };
}

/** Runs a script body; argparse exits and uncaught Python exceptions become results, never throws. */
export async function runScript(body: (out: Output) => Promise<number>): Promise<ScriptResult> {
  const out: Output = { stdout: "", stderr: "" };
  try {
    const exitCode = await body(out);
    return { ...out, exitCode };
  } catch (error) {
    if (error instanceof ArgparseExit) return { stdout: out.stdout + error.out, stderr: out.stderr + error.err, exitCode: error.status };
    // Not Python's: the run was stopped, as the bridge stops a real script at its limit.
    if (error instanceof ScriptTimeout) return { stdout: out.stdout, stderr: `${out.stderr}Stopped: ${error.message}.\n`, exitCode: 1, timedOut: true };
    if (error instanceof ChangeRefused) return { stdout: out.stdout, stderr: `${out.stderr}Not made: ${error.message}\n`, exitCode: 1 };
    // Python would have read or written it: a traceback would be false, the refusal is ours (review 359).
    const refused = error instanceof RefusedOsError ? error.refusal : error instanceof FsRefusal ? error.message : undefined;
    if (refused !== undefined) return { stdout: out.stdout, stderr: `${out.stderr}Refused: ${refused}\n`, exitCode: 1 };
    // Python prints a traceback and exits 1; its last line names the exception.
    const last = error instanceof PyError ? (error.message ? `${error.pyType}: ${error.message}` : error.pyType) : `${error instanceof Error ? error.name : "Error"}: ${error instanceof Error ? error.message : String(error)}`;
    return { stdout: out.stdout, stderr: `${out.stderr}Traceback (most recent call last):\n${last}\n`, exitCode: 1 };
  }
}
