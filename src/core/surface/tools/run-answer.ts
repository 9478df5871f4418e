// bmad-run's answer, the same for a port and a real script on either door: the output goes out once, in the text,
// each stream cut to 256 KB (capOutput: JSON keeps its head, other text its end, as the bridge keeps a real
// script's); structuredContent says what a program needs about it (exit code, sizes, what was cut). A non-zero exit
// is an error that still carries all of that. A stream's control characters but its lines' ends and tabs, and its bidi
// controls, are written as escapes (streamText): a name a script echoes (`brain.py show "x\u001b[2J\u202e"`) reaches
// the model as text, never as raw ESC or U+202E (review 413).
import { capOutput, MAX_OUTPUT_BYTES, type CappedStream } from "../../runtime/budget.js";
import type { ScriptResult } from "../../runtime/context.js";
import { fromFsText, projectRelative, type ProjectRuntime } from "../../runtime/project.js";
import { namedPath, PROJECTS_PREFIX, shownPath, streamText } from "../../workspace/paths.js";
import { TOOL } from "../names.js";
import type { ToolOutcome } from "../outcome.js";

/** Ports that can write their whole output to a file instead of stdout. */
const OUTPUT_OPTION = new Set(["lint_spine.py", "word_metrics.py"]);

/** What structuredContent holds about a run; the streams themselves are in the text, after `stdout:` and `stderr:`. */
export interface RunSummary {
  script: string;
  exit_code: number;
  /** UTF-8 bytes of each stream as sent in the text (after any cut). */
  stdout_bytes: number;
  stderr_bytes: number;
  /** Bytes left out of each stream (of a JSON stdout's end, else of the start); absent when nothing was; {} when the door
   *  cut it without counting. */
  truncated?: { stdout?: number; stderr?: number };
  timed_out?: boolean;
}

/** `real`: the script itself ran (the bridge), and was killed at its limit; a port is stopped at its own. `fix`: a line
 *  after the output that says how to get past the failure (generationFix). */
export function runAnswer(runtime: Pick<ProjectRuntime, "root" | "fsRoot">, name: string, result: ScriptResult & { truncated?: boolean }, real = false, fix?: string): ToolOutcome {
  const stdout = capOutput(streamText(fromFsText(runtime, result.stdout)));
  const stderr = capOutput(streamText(fromFsText(runtime, result.stderr)));
  const cut = [cutNote("stdout", stdout, name), cutNote("stderr", stderr, name)].filter(Boolean);
  // A real script's output cut where it ran: the bridge kept the last 256 KB of each stream.
  if (result.truncated && !cut.length) cut.push(`(Its output was cut to the last ${MAX_OUTPUT_BYTES / 1024} KB of each stream where it ran. To get all of it, run the line in your own terminal.)`);
  const head = `${name} exited ${result.exitCode}${!result.timedOut ? "" : real ? " (killed at the time limit)" : " (stopped at its limit)"}`;
  const text = [head, ...cut, stdout.text && `stdout:\n${stdout.text}`, stderr.text && `stderr:\n${stderr.text}`, result.notAMemlog && notAMemlogFix(runtime, result.notAMemlog), result.noMemlog !== undefined && noMemlogFix(runtime, result.noMemlog), fix].filter(Boolean).join("\n");
  const summary: RunSummary = { script: name, exit_code: result.exitCode, stdout_bytes: stdout.bytes - stdout.dropped, stderr_bytes: stderr.bytes - stderr.dropped };
  if (stdout.dropped || stderr.dropped) summary.truncated = { ...(stdout.dropped ? { stdout: stdout.dropped } : {}), ...(stderr.dropped ? { stderr: stderr.dropped } : {}) };
  else if (result.truncated) summary.truncated = {};
  if (result.timedOut) summary.timed_out = true;
  return { ok: true, text, structured: { ...summary }, ...(result.exitCode !== 0 ? { isError: true } : {}) };
}

/** After memlog.py's traceback for a file that is no memlog (a whole write replaced it): which file, and how to get the
 *  memlog back on this door. A workspace keeps every version; the bridge keeps a week of what its tools replaced, and
 *  the user's git, where they use it, the rest. */
function notAMemlogFix(runtime: Pick<ProjectRuntime, "root" | "fsRoot">, broken: { path: string; reason: string }): string {
  const path = namedPath(projectRelative(runtime, broken.path));
  const history = `${TOOL.bmadFiles} "history" with path ${path}`;
  const where = runtime.root.startsWith(PROJECTS_PREFIX)
    ? `Its history has the last good version: ${history}, then "restore" it`
    : `${history} lists the copies this bridge kept when a tool replaced it (the user's git may hold older ones): "restore" the last good one`;
  return `The memlog at ${path} is not a memlog (${broken.reason}). ${where}; or move it aside and run memlog.py init again.`;
}

/** Versions of a changed generated file looked through for the one its render wrote. */
const GENERATION_VERSIONS = 20;

/** After render_skill.py's "generation output hash mismatch": who made the file's version now and which version holds
 *  what the render wrote, where the store says (a workspace), and how to render again, which Python's HALT leaves
 *  unsaid (review 474: a member's edit of a generated file stopped every later render of it). */
export async function generationFix(runtime: Pick<ProjectRuntime, "root" | "fsRoot" | "store">, changed: { path: string; sha256: string }): Promise<string> {
  const path = projectRelative(runtime, changed.path);
  // _bmad/render/<skill>/<project slug>/<generation>/…
  const generation = namedPath(path.split("/").slice(0, 5).join("/"));
  const history = runtime.store ? await runtime.store.history(path, { limit: GENERATION_VERSIONS }) : undefined;
  const versions = history?.ok ? history.value : [];
  const now = versions[0];
  const made = now ? ` (now version ${now.version}${now.author === undefined ? "" : `, by ${now.author}`})` : "";
  const rendered = versions.find((v) => v.sha256 === changed.sha256 && !v.pruned);
  const back = `${TOOL.bmadFiles} "history" lists them, "restore" brings one back`;
  const restore = rendered
    ? `Restore version ${rendered.version}, the one render_skill.py wrote (${TOOL.bmadFiles} "restore" with "version": ${rendered.version})`
    : runtime.root.startsWith(PROJECTS_PREFIX)
      ? `Restore the version render_skill.py wrote (${back})`
      : `Restore what render_skill.py wrote, where this bridge kept a copy (${back})`;
  return `${namedPath(path)} changed after render_skill.py wrote it${made}. ${restore}, or delete the generation's folder ${generation}; then run the same line again.`;
}

/** After memlog.py's traceback for an append or set before any init: the step left out. */
function noMemlogFix(runtime: Pick<ProjectRuntime, "root" | "fsRoot">, path: string): string {
  // The path as the script was given it (a line break in it is written out: review 380).
  const shown = shownPath(fromFsText(runtime, path));
  return `No memlog at ${shown} yet: run memlog.py init --path ${shown} (or --workspace DIR) first.`;
}

function cutNote(stream: "stdout" | "stderr", capped: CappedStream, name: string): string {
  if (!capped.dropped) return "";
  const how =
    stream === "stdout" && OUTPUT_OPTION.has(name)
      ? `run it again with -o FILE (a path in the project) and read FILE with ${TOOL.bmadFiles}`
      : name === "git"
        ? "ask for less (git diff --stat first, then git diff -- PATH for each file)"
        : name === "git_evidence.py"
          ? "run it on a narrower --range (fewer commits)"
          : "give the script less input (a smaller file or fewer items)";
  const what = capped.head ? `its last ${capped.dropped} of ${capped.bytes} bytes are left out, so it is not whole JSON` : `its first ${capped.dropped} of ${capped.bytes} bytes are left out`;
  return `(${stream} was cut: ${what}, ${MAX_OUTPUT_BYTES / 1024} KB kept per stream. To get all of it, ${how}.)`;
}
