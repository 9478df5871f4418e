// Glob matching in linear time: the pattern is compiled to a list of steps and a path is matched by
// walking every live step at once (a Thompson NFA), never by backtracking. `**************Q` costs what
// `*Q` costs. Used wherever a caller's pattern meets many paths (bmad-resources list, workspace files).
import type { Result } from "../result.js";

/** A path's length (512) and a wildcard after it: a pull lists a folder as `<its path>/**` (review 118: a member's
 *  folder of a 250-character name stopped every pull). Each pattern's cost is bounded apart (tooCostly). */
export const MAX_GLOB_LENGTH = 520;
export const MAX_GLOB_WILDCARDS = 32;
/** Steps × characters one compiled pattern may walk over all the paths it is tested on (about 0.1 s): linear
 *  is not small when a long pattern meets thousands of long paths, so past this a listing is refused. */
export const MAX_GLOB_WORK = 20_000_000;

type Step =
  | { kind: "char"; char: string }
  | { kind: "one" } // ?   one character within a segment
  | { kind: "star" } // *   any run within a segment
  | { kind: "any" } // **  any run, across segments
  | { kind: "dirs" } // **/ zero or more whole segments: entered here, may be skipped whole...
  | { kind: "dirsLoop" }; // ...or run through any characters up to a "/"

export interface Glob {
  readonly pattern: string;
  /** Whether the path matches; false for every path once `exhausted`. */
  test(path: string): boolean;
  /** Matching has walked MAX_GLOB_WORK: the listing must be refused (with tooCostly), not served in part. */
  readonly exhausted: boolean;
}

/** Why a listing whose pattern was `exhausted` is refused, and what to do. */
export function tooCostly(glob: Glob, files: string): string {
  return `Pattern "${glob.pattern.slice(0, 80)}" costs too much to match against ${files}: give it a longer literal start (e.g. "docs/") or fewer wildcards.`;
}

/** The folder every match of `pattern` lies in: its segments before the first with a wildcard, never the last (a
 *  file's name); "" when it starts with one. A walk for it need look nowhere else. */
export function literalFolder(pattern: string): string {
  const segments = pattern.split("/");
  const wild = segments.findIndex((s) => /[*?]/.test(s));
  return segments.slice(0, wild === -1 ? -1 : wild).join("/");
}

/** Shell glob syntax this matcher takes literally, `{a,b}` or `[abc]`, named where a pattern holding it matched nothing
 *  (review 372: a brace list listed "0 files", read as "there are none"). */
export function literalSyntaxNote(pattern: string): string | undefined {
  const found = /\{[^{},]*,[^{}]*\}|\[[^\]]+\]/.exec(pattern)?.[0];
  return found && ` ${JSON.stringify(found)} is literal here (only *, ** and ? are wildcards): give each alternative its own pattern, or use * or ?.`;
}

export type GlobCompile = Result<{ glob: Glob }>;

/** `**` any depth, `*` within a segment, `?` one character; everything else is literal. */
export function compileGlob(pattern: string): GlobCompile {
  if (pattern.length > MAX_GLOB_LENGTH) return { ok: false, error: `Pattern is ${pattern.length} characters; at most ${MAX_GLOB_LENGTH} are allowed.` };
  const steps: Step[] = [];
  let wildcards = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "*" && pattern[i + 1] === "*") {
      // Runs of stars collapse: `***` or `****` mean what `**` means.
      while (pattern[i + 1] === "*") i++;
      if (pattern[i + 1] === "/") {
        steps.push({ kind: "dirs" }, { kind: "dirsLoop" });
        i++;
      } else steps.push({ kind: "any" });
      wildcards++;
    } else if (c === "*") {
      steps.push({ kind: "star" });
      wildcards++;
    } else if (c === "?") {
      steps.push({ kind: "one" });
      wildcards++;
    } else steps.push({ kind: "char", char: c });
  }
  if (wildcards > MAX_GLOB_WILDCARDS) {
    return { ok: false, error: `Pattern has ${wildcards} wildcards; at most ${MAX_GLOB_WILDCARDS} are allowed (one "**" already matches any depth).` };
  }
  // The literal start and end decide most paths with a string compare; the matcher walks only what lies between.
  const first = steps.findIndex((s) => s.kind !== "char");
  if (first < 0) return { ok: true, glob: { pattern, test: (path) => path === pattern, exhausted: false } };
  const prefix = pattern.slice(0, first);
  let last = steps.length;
  while (steps[last - 1]!.kind === "char") last--;
  const suffix = steps.slice(last).map((s) => (s as { char: string }).char).join("");
  const middle = steps.slice(first, last);
  // `docs/**` (a lone "**" between them) takes anything, so the compares decide it.
  const between = middle.length === 1 && middle[0]!.kind === "any" ? () => true : matcher(middle);
  let work = 0;
  const glob = {
    pattern,
    exhausted: false,
    test(path: string): boolean {
      if (glob.exhausted || path.length < prefix.length + suffix.length || !path.startsWith(prefix) || !path.endsWith(suffix)) return false;
      work += middle.length * (path.length - prefix.length - suffix.length);
      if (work > MAX_GLOB_WORK) glob.exhausted = true;
      return !glob.exhausted && between(path.slice(prefix.length, path.length - suffix.length));
    },
  };
  return { ok: true, glob };
}

/** Steps that may match nothing are passed through at once, so `live` holds every reachable step. */
function close(steps: Step[], live: Uint8Array): void {
  for (let i = 0; i < steps.length; i++) {
    if (!live[i]) continue;
    const kind = steps[i]!.kind;
    if (kind === "star" || kind === "any") live[i + 1] = 1;
    else if (kind === "dirs") live[i + 1] = live[i + 2] = 1;
  }
}

/** Matches a whole path against the steps, every live step at once. The two step sets are reused: a test runs to its end. */
function matcher(steps: Step[]): (path: string) => boolean {
  let live = new Uint8Array(steps.length + 1);
  let next = new Uint8Array(steps.length + 1);
  return (path) => {
    live.fill(0);
    live[0] = 1;
    close(steps, live);
    for (const c of path) {
      next.fill(0);
      let alive = false;
      for (let i = 0; i < steps.length; i++) {
        if (!live[i]) continue;
        const step = steps[i]!;
        let stay = false;
        let advance = false;
        switch (step.kind) {
          case "char":
            advance = step.char === c;
            break;
          case "one":
            advance = c !== "/";
            break;
          case "star":
            stay = c !== "/";
            break;
          case "any":
            stay = true;
            break;
          case "dirs":
            break; // its loop, always live beside it, consumes
          case "dirsLoop":
            stay = true;
            advance = c === "/";
            break;
        }
        if (stay) next[i] = 1;
        if (advance) next[i + 1] = 1;
        alive ||= stay || advance;
      }
      if (!alive) return false;
      close(steps, next);
      [live, next] = [next, live];
    }
    return live[steps.length] === 1;
  };
}
