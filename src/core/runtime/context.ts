// How a ported script is called and what it answers, like a process: argv in; stdout, stderr, exit code out.
import type { RunBudget } from "./budget.js";
import type { RuntimeFs } from "./fs.js";

export interface ScriptContext {
  fs: RuntimeFs;
  /** Absolute working directory; relative paths in argv resolve against it. */
  cwd: string;
  /** The clock (memlog's `updated` stamps, in local time). Default: the real one. */
  now?: () => Date;
  /** The project's IANA time zone for the times a port writes, asked only when it writes one (time-zone.ts).
   *  Absent (the bridge): the process's local time, as BMAD's Python has it. */
  timeZone?: () => Promise<string | undefined>;
  /** Environment; only COLUMNS is read (argparse's help width). */
  env?: Record<string, string | undefined>;
  /** Absolute path of the .py file as invoked (Python's __file__). resolve_customization uses it
   *  to find the project root when the script sits at {project-root}/_bmad/scripts/. */
  scriptPath?: string;
  /** The script itself, where the door may run it (the bridge, for bytes BMAD vouches for), for a part its port
   *  leaves to it: brain.py's composer page is BMAD's own HTML, which this project does not copy. The port builds
   *  `args` from what it parsed and read through `fs`, and writes what comes back through `fs` too. */
  runOriginal?: (args: string[]) => Promise<OriginalRun>;
  /** Where the client shows brain.py's composer page as a view (the remote, to a host that renders MCP Apps): what
   *  to say instead of writing it, given whether the catalog is BMAD's shipped one. */
  composerShown?: (shippedCatalog: boolean) => string;
  /** Read-only git where the door has it (the bridge); absent on the remote. */
  git?: GitRunner;
  /** What the run may spend (budget.ts): its loops spend as they go. Default: unbounded. */
  budget?: RunBudget;
  /** How a path the script was given goes into a file it writes (sprint-status.yaml's `story_location`, an action
   *  item's `ref`): on a workspace relative to the project, whose root here (`/projects/NAME`) is nowhere after a pull
   *  (review 247). Absent (the bridge): as given, as BMAD's Python writes it. */
  pathInFile?: (path: string) => string;
}

/** One git run a port asks for: it fixes every argument; a model's value goes only after `--end-of-options`
 *  or `--`. */
export interface GitRequest {
  /** The folder git runs in, a path in `fs` (the door refuses one outside its project). */
  dir: string;
  /** `name=value` settings the command needs, each passed as `-c`; the door's own safety settings come after them. */
  config?: readonly string[];
  /** The subcommand and its arguments. */
  args: readonly string[];
}

/** What git answered: its bytes as they came (paths need not be UTF-8) and its exit status. */
export interface GitRun {
  stdout: Uint8Array;
  stderr: Uint8Array;
  exitCode: number;
  /** The door ran nothing, and why (stderr says it too, as git's `fatal:` would). */
  refused?: string;
}

/** Runs git, or answers undefined where it cannot start (not installed). */
export type GitRunner = (request: GitRequest) => Promise<GitRun | undefined>;

export interface ScriptResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** It was stopped at its time limit (budget.ts). */
  timedOut?: boolean;
  /** memlog.py met a file that is no memlog (its fs path, and why): bmad-run says how to get the memlog back. */
  notAMemlog?: { path: string; reason: string };
  /** memlog.py append or set found no memlog (its path as the script names it): bmad-run says to init it first. */
  noMemlog?: string;
  /** render_skill.py found this generated file (its fs path) changed since it wrote it, with these bytes: bmad-run says
   *  how to render again. */
  generationChanged?: { path: string; sha256: string };
  /** The run failed before writing anything, and its answer holds no file's content (render_skill.py's HALT). */
  nothingWritten?: true;
}

/** In the arguments of `runOriginal`: a private file the script writes, whose bytes come back as `output`. */
export const OUTPUT_FILE = "{bmad-mcp-output-file}";

/** The script itself, run for the part its port leaves to it. */
export interface OriginalRun extends ScriptResult {
  /** What the script wrote to OUTPUT_FILE, and the path it had there (to say it as the user named it). */
  output?: { data: Uint8Array; path: string };
}

export type ScriptMain = (argv: string[], ctx: ScriptContext) => Promise<ScriptResult>;
