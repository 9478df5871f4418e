// Times the bridge shows, on the machine's own clock: BMAD's scripts write local times and the runtime block's {date}
// is local, so a UTC time near midnight named another day (review 273). Only what is shown: what programs read (a
// listing's updated_at, pull's and the views' fields) stays UTC.

/** An ISO time as the machine's clock reads it, with its offset (`2026-11-29T23:50:05-08:00`); as given where it is
 *  no time. */
export function localTime(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const offset = -at.getTimezoneOffset(); // minutes east of UTC, at that moment (summer time included)
  const wall = new Date(at.getTime() + offset * 60_000).toISOString().slice(0, 19);
  const size = Math.abs(offset);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${wall}${offset < 0 ? "-" : "+"}${two(Math.floor(size / 60))}:${two(size % 60)}`;
}
