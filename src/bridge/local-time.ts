// Times the bridge shows, on the machine's own clock: BMAD's scripts write local times and the runtime block's {date}
// is local, so a UTC time near midnight named another day (review 273). Only what is shown: what programs read (a
// listing's updated_at, pull's and the views' fields) stays UTC.
import { clockReading } from "../core/runtime/time-zone.js";

/** An ISO time as the machine's clock reads it, with its offset (`2026-11-29T23:50:05-08:00`); as given where it is
 *  no time. */
export function localTime(iso: string): string {
  const shown = clockReading(undefined, iso);
  return shown ? `${shown.wall}${shown.offset}` : iso;
}
