// Glob matching in linear time: the pattern is compiled to a list of steps and a path is matched by
// walking every live step at once (a Thompson NFA), never by backtracking. `**************Q` costs what
// `*Q` costs. Used wherever a caller's pattern meets many paths (bmad-resources list, workspace files).
import type { Result } from "../result.js";

export const MAX_GLOB_LENGTH = 256;
export const MAX_GLOB_WILDCARDS = 32;

type Step =
  | { kind: "char"; char: string }
  | { kind: "one" } // ?   one character within a segment
  | { kind: "star" } // *   any run within a segment
  | { kind: "any" } // **  any run, across segments
  | { kind: "dirs" } // **/ zero or more whole segments: entered here, may be skipped whole...
  | { kind: "dirsLoop" }; // ...or run through any characters up to a "/"

export interface Glob {
  readonly pattern: string;
  test(path: string): boolean;
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
  return { ok: true, glob: { pattern, test: (path) => matches(steps, path) } };
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

function matches(steps: Step[], path: string): boolean {
  let live = new Uint8Array(steps.length + 1);
  let next = new Uint8Array(steps.length + 1);
  live[0] = 1;
  close(steps, live);
  for (const c of path) {
    next.fill(0);
    for (let i = 0; i < steps.length; i++) {
      if (!live[i]) continue;
      const step = steps[i]!;
      switch (step.kind) {
        case "char":
          if (step.char === c) next[i + 1] = 1;
          break;
        case "one":
          if (c !== "/") next[i + 1] = 1;
          break;
        case "star":
          if (c !== "/") next[i] = 1;
          break;
        case "any":
          next[i] = 1;
          break;
        case "dirs":
          break; // its loop, always live beside it, consumes
        case "dirsLoop":
          next[i] = 1;
          if (c === "/") next[i + 1] = 1;
          break;
      }
    }
    if (!next.includes(1)) return false;
    close(steps, next);
    [live, next] = [next, live];
  }
  return live[steps.length] === 1;
}
