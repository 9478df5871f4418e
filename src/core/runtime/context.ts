// How a ported script is called and what it answers, like a process: argv in; stdout, stderr, exit code out.
import type { RuntimeFs } from "./fs.js";

export interface ScriptContext {
  fs: RuntimeFs;
  /** Absolute working directory; relative paths in argv resolve against it. */
  cwd: string;
  /** The clock (memlog's `updated` stamps, in local time). Default: the real one. */
  now?: () => Date;
  /** Environment; only COLUMNS is read (argparse's help width). */
  env?: Record<string, string | undefined>;
  /** Absolute path of the .py file as invoked (Python's __file__). resolve_customization uses it
   *  to find the project root when the script sits at {project-root}/_bmad/scripts/. */
  scriptPath?: string;
}

export interface ScriptResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export type ScriptMain = (argv: string[], ctx: ScriptContext) => Promise<ScriptResult>;
