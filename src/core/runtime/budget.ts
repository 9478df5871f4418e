// What a ported script may spend: a few seconds and a bounded amount of work, on both doors. A Worker's clock
// stands still while code runs (it moves only across I/O), so work is counted too: a loop spends units as it goes
// (about one per character or item it handles), every file call spends some and reads the clock, and the first
// spend past either limit throws ScriptTimeout, which the run answers as a clear error. Output is capped in one
// place too (capOutput), as the bridge caps a real script's.
import type { RuntimeFs } from "./fs.js";

/** A ported script's time limit on every door. */
export const PORT_TIME_LIMIT_MS = 5_000;
/** Work units a run may spend, a unit about one character read or written: a 1 MiB input read a few times over
 *  and a few MB of output are far below it; a run that would answer 20 MB or more (lint_spine's findings on a spine of
 *  placeholders) is stopped, where the Worker's memory would not hold it. */
export const PORT_WORK_LIMIT = 32_000_000;
/** Each stream of a script's output, as the bridge keeps of a real script's (run-bounded.ts). */
export const MAX_OUTPUT_BYTES = 256 * 1024;
/** What a file call costs in units, besides reading the clock. */
const FS_UNITS = 1_000;

export class ScriptTimeout extends Error {
  constructor(readonly limit: "time" | "work", ms: number, units: number) {
    super(
      limit === "time"
        ? `it ran past ${ms / 1000} s, bmad-run's time limit for a ported script: give it less input`
        : `it reached bmad-run's work limit for a ported script (about ${Math.round(units / 1e6)} MB read or written): give it less input`,
    );
    this.name = "ScriptTimeout";
  }
}

export interface RunBudget {
  /** Counts `units` of work (default 1); throws ScriptTimeout once the run is over its time or work. */
  spend(units?: number): void;
  /** Runs `work` off the clock: a real script the port hands a part to is bounded by its own door. */
  offClock<T>(work: () => Promise<T>): Promise<T>;
}

/** A budget that starts now: `ms` of the clock and `units` of work, whichever runs out first. */
export function runBudget(ms = PORT_TIME_LIMIT_MS, units = PORT_WORK_LIMIT, now: () => number = Date.now): RunBudget {
  let deadline = now() + ms;
  let used = 0;
  let nextClock = 0;
  return {
    spend(n = 1) {
      used += n;
      if (used > units) throw new ScriptTimeout("work", ms, units);
      // The clock is read every 64k units and at every large spend (file calls): cheap, and enough.
      if (used >= nextClock) {
        nextClock = used + 65_536;
        if (now() > deadline) throw new ScriptTimeout("time", ms, units);
      }
    },
    async offClock(work) {
      const start = now();
      try {
        return await work();
      } finally {
        deadline += now() - start;
      }
    },
  };
}

/** The file system's calls, each counted against the budget before and after (time passes in I/O). */
const FS_CALLS = ["readFile", "writeFile", "stat", "list", "createTree", "mkdir", "realpath", "update", "editText"] as const;

/** The file system with every call counted against the budget, before it and after it. */
export function budgetedFs(fs: RuntimeFs, budget: RunBudget): RuntimeFs {
  const out: Record<string, unknown> = {};
  for (const name of FS_CALLS) {
    const call = (fs as unknown as Record<string, unknown>)[name];
    if (typeof call !== "function") continue;
    out[name] = async (...args: unknown[]) => {
      budget.spend(FS_UNITS);
      const result: unknown = await call.apply(fs, args);
      budget.spend(FS_UNITS);
      return result;
    };
  }
  return out as unknown as RuntimeFs;
}

/** A fresh budget and the file system counted against it: what a port's ScriptContext takes. */
export function withBudget(fs: RuntimeFs, budget = runBudget()): { fs: RuntimeFs; budget: RunBudget } {
  return { fs: budgetedFs(fs, budget), budget };
}

export interface CappedStream {
  text: string;
  /** Bytes of the whole stream (UTF-8). */
  bytes: number;
  /** Bytes left out: of the end where `head` (JSON keeps its start), else of the start. */
  dropped: number;
  head?: true;
}

/** A stream cut to MAX_OUTPUT_BYTES at a character boundary. Text keeps its end, as the bridge keeps a real script's:
 *  the end holds the error and how the run ended. JSON keeps its head: what it is about (git_evidence's range and
 *  totals) comes first, and a cut JSON is no whole JSON either way (review 228: 1.4 MB of 1.68 dropped from its start). */
export function capOutput(text: string, max = MAX_OUTPUT_BYTES): CappedStream {
  const bytes = utf8Length(text);
  if (bytes <= max) return { text, bytes, dropped: 0 };
  const head = /^\s*[[{]/.test(text);
  let kept = 0;
  let at = head ? 0 : text.length;
  while (head ? at < text.length : at > 0) {
    const ch = head ? text.slice(at, isPair(text, at) ? at + 2 : at + 1) : text.slice(isPair(text, at - 2) ? at - 2 : at - 1, at);
    const size = utf8Length(ch);
    if (kept + size > max) break;
    kept += size;
    at += head ? ch.length : -ch.length;
  }
  return head ? { text: text.slice(0, at), bytes, dropped: bytes - kept, head } : { text: text.slice(at), bytes, dropped: bytes - kept };
}

/** Whether a surrogate pair starts at `i`. */
const isPair = (text: string, i: number) => i >= 0 && (text.charCodeAt(i) & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
