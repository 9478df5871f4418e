// The wall-clock time the ports write (memlog's `updated`, sprint-status's `last_updated`, recon_kit's today):
// in the project's time zone where the door gives one (a workspace: UTC unless its owner set another), else in
// the process's local time, as Python's datetime.now() has it (the bridge: byte for byte BMAD's own scripts).
import { closest, suggestion } from "../catalog/closest.js";
import type { Result } from "../result.js";
import type { ScriptContext } from "./context.js";

/** A workspace's time zone until its owner sets one. */
export const DEFAULT_TIME_ZONE = "UTC";

export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

/** An IANA zone name (`Europe/Berlin`, `UTC`) that Intl knows, in its usual case (`america/los_angeles` ->
 *  `America/Los_Angeles`) but not swapped for an alias (`Asia/Kolkata` stays; ICU's canonical name is Asia/Calcutta).
 *  Offsets (`+02:00`) are refused: a zone name follows summer time, an offset does not. */
export function checkTimeZone(name: string): Result<{ zone: string }> {
  const shape = /^[A-Za-z][A-Za-z0-9_+-]{0,40}(?:\/[A-Za-z0-9_+-]{1,40}){0,2}$/.test(name);
  const known = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  try {
    if (shape) {
      const resolved = new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
      const same = (z: string) => z.toLowerCase() === name.toLowerCase();
      return { ok: true, zone: known.find(same) ?? (same(resolved) ? resolved : name) };
    }
  } catch {
    // not a zone Intl knows: said below
  }
  return { ok: false, error: `Unknown time zone "${name.slice(0, 60)}": give an IANA name such as America/Los_Angeles, Europe/Berlin or UTC.${suggestion(closest(name, known, 3))}` };
}

/** A zone's clock, made once: a DateTimeFormat costs about a millisecond to make, and little to use. */
const clocks = new Map<string, Intl.DateTimeFormat>();

function clockIn(zone: string): Intl.DateTimeFormat {
  let clock = clocks.get(zone);
  if (!clock) {
    const numeric = "numeric" as const;
    clocks.set(zone, (clock = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: numeric, month: numeric, day: numeric, hour: numeric, minute: numeric })));
  }
  return clock;
}

/** Now, as a clock on the wall reads it where the script runs (see the file's head). */
export async function wallTime(ctx: Pick<ScriptContext, "now" | "timeZone">): Promise<WallTime> {
  return wallTimeIn(await ctx.timeZone?.(), ctx.now?.() ?? new Date());
}

/** `now` on a clock in `zone` (undefined: the process's local time). */
export function wallTimeIn(zone: string | undefined, now: Date): WallTime {
  if (zone === undefined) return { year: now.getFullYear(), month: now.getMonth() + 1, day: now.getDate(), hour: now.getHours(), minute: now.getMinutes() };
  const parts = clockIn(zone).formatToParts(now);
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)!.value);
  return { year: part("year"), month: part("month"), day: part("day"), hour: part("hour"), minute: part("minute") };
}

/** Today and the time now where the project's scripts write time, as answers say it: "2026-11-29 in Pacific/Kiritimati,
 *  now 14:05" (no zone: the machine's), for `{date}`, which the model fills in: the time too where the skill's form has
 *  one (review 183: sprint_plan.py's `MM-DD-YYYY HH:MM`, which a model without a clock could not give). */
export async function todayWhere(ctx: Pick<ScriptContext, "now" | "timeZone">): Promise<string> {
  return todayIn(await ctx.timeZone?.(), ctx.now?.() ?? new Date());
}

/** todayIn's date and time as "MM-DD-YYYY HH:MM" (sprint_status.py's --date); undefined for other words. */
export function stampOf(today: string): string | undefined {
  const at = /^(\d{4})-(\d\d)-(\d\d) in .*, now (\d\d:\d\d)$/.exec(today);
  return at ? `${at[2]}-${at[3]}-${at[1]} ${at[4]}` : undefined;
}

/** todayWhere's words for `now` on a clock in `zone` (undefined: the process's local time). */
export function todayIn(zone: string | undefined, now: Date): string {
  const at = wallTimeIn(zone, now);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${at.year}-${two(at.month)}-${two(at.day)} in ${zone ?? "this machine's time"}, now ${two(at.hour)}:${two(at.minute)}`;
}

/** `iso` as a clock in `zone` reads it (undefined: the process's local time): its wall time to the second
 *  (`2026-11-30T02:04:29`) and its offset then (`-08:00`, summer time included); undefined where `iso` is no time.
 *  What the bridge (its machine's clock) and a workspace (its project's zone) show a stored UTC time as. */
export function clockReading(zone: string | undefined, iso: string): { wall: string; offset: string } | undefined {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return undefined;
  const minute = Math.floor(at.getTime() / 60_000) * 60_000;
  const wall = zone === undefined ? undefined : wallTimeIn(zone, at);
  // Minutes east of UTC: the zone's wall minute less the UTC one.
  const east = wall ? (Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute) - minute) / 60_000 : -at.getTimezoneOffset();
  const size = Math.abs(east);
  const two = (n: number) => String(n).padStart(2, "0");
  return {
    wall: new Date(at.getTime() + east * 60_000).toISOString().slice(0, 19),
    offset: `${east < 0 ? "-" : "+"}${two(Math.floor(size / 60))}:${two(size % 60)}`,
  };
}

/** A stored UTC time as a workspace's answers show it, in its project's zone to the minute (or `toSecond`), offset
 *  named: `2026-11-30 02:04 (UTC-08:00)`, or `2026-11-30 10:04 UTC` in UTC; as given where it is no time. */
export function zonedTime(zone: string, iso: string, toSecond = false): string {
  const shown = clockReading(zone, iso);
  if (!shown) return iso;
  const wall = shown.wall.slice(0, toSecond ? 19 : 16).replace("T", " ");
  return zone === DEFAULT_TIME_ZONE ? `${wall} UTC` : `${wall} (UTC${shown.offset})`;
}
