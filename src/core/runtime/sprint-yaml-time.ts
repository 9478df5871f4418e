// A plain timestamp scalar as ruamel.yaml's round-trip constructor builds it (util.create_timestamp and
// RoundTripConstructor.construct_yaml_timestamp): a date, a datetime, or a TimeStamp (a `T`, or a numeric zone), and
// what str(), repr() and the representer make of each. Review 97: the port kept the source text, Python writes these.

const TIMESTAMP = /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:([Tt])|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?)?$/;

export interface Stamp {
  type: "date" | "datetime" | "TimeStamp";
  /** year, month, day, hour, minute, second, microsecond */
  fields: number[];
  t: boolean;
  /** datetime.timezone(offset, name) */
  zone?: { seconds: number; name: string };
}

/** The value a timestamp's text constructs, or the ValueError datetime raises on it. */
export function parseStamp(text: string): Stamp | { error: string } {
  const m = TIMESTAMP.exec(text)!;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const bad = dateError(year, month, day);
  if (bad) return { error: bad };
  if (m[5] === undefined) return { type: "date", fields: [year, month, day], t: false };
  const [hour, minute, second] = [Number(m[5]), Number(m[6]), Number(m[7])];
  if (hour > 23) return { error: "hour must be in 0..23" };
  if (minute > 59) return { error: "minute must be in 0..59" };
  if (second > 59) return { error: "second must be in 0..59" };
  // Six digits of the fraction, rounded on the seventh; a round up to a whole second adds it.
  const fraction = m[8] ?? "";
  let micro = fraction ? Number(fraction.slice(0, 6).padEnd(6, "0")) + (Number(fraction[6] ?? 0) > 4 ? 1 : 0) : 0;
  let carry = 0;
  if (micro > 999_999) [micro, carry] = [0, 1];
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, second + carry);
  if (at.getUTCFullYear() > 9999) return { error: "date value out of range" };
  const fields = [at.getUTCFullYear(), at.getUTCMonth() + 1, at.getUTCDate(), at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds(), micro];
  const zone = m[9] === undefined ? undefined : { seconds: m[10] ? (m[10] === "-" ? -1 : 1) * (Number(m[11]) * 3600 + Number(m[12] ?? 0) * 60) : 0, name: m[9] };
  if (zone && Math.abs(zone.seconds) >= 86400) return { error: `offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24), not ${timedelta(zone.seconds)}.` };
  // A `T` or a numeric zone keeps the TimeStamp subclass; without either it is a plain datetime.
  return { type: m[4] || m[10] ? "TimeStamp" : "datetime", fields, t: Boolean(m[4]), ...(zone ? { zone } : {}) };
}

/** The value of a timestamp loadYaml accepted. */
export function stampOf(text: string): Stamp {
  const s = parseStamp(text);
  if ("error" in s) throw new Error(`unchecked timestamp ${text}`);
  return s;
}

function dateError(year: number, month: number, day: number): string | undefined {
  if (year < 1) return `year ${year} is out of range`;
  if (month < 1 || month > 12) return "month must be in 1..12";
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day < 1 || day > days ? "day is out of range for month" : undefined;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** isoformat(sep) */
function isoformat(s: Stamp, sep: string): string {
  const [y, mo, d, h, mi, sec, us] = s.fields as [number, number, number, number, number, number, number];
  const date = `${pad(y, 4)}-${pad(mo)}-${pad(d)}`;
  if (s.type === "date") return date;
  let out = `${date}${sep}${pad(h)}:${pad(mi)}:${pad(sec)}${us ? `.${pad(us, 6)}` : ""}`;
  if (s.zone) {
    const off = Math.abs(s.zone.seconds);
    out += `${s.zone.seconds < 0 ? "-" : "+"}${pad(Math.floor(off / 3600))}:${pad(Math.floor(off / 60) % 60)}`;
  }
  return out;
}

/** str(value): a TimeStamp keeps its `T`. */
export const stampStr = (s: Stamp): string => isoformat(s, s.t ? "T" : " ");

/** The representer's text: a datetime's isoformat(" "); a TimeStamp's with its `T`, its zone as written. */
export function stampDump(s: Stamp): string {
  const value = stampStr(s);
  return s.type === "TimeStamp" && s.zone ? value.slice(0, -6) + s.zone.name : value;
}

/** repr(value) */
export function stampRepr(s: Stamp): string {
  const f = [...s.fields];
  if (s.type === "date") return `datetime.date(${f.join(", ")})`;
  // datetime's repr drops a zero microsecond, then a zero second.
  while (f.length > 5 && f[f.length - 1] === 0) f.pop();
  const zone = s.zone ? `, tzinfo=datetime.timezone(${timedelta(s.zone.seconds)}, '${s.zone.name}')` : "";
  return `${s.type === "TimeStamp" ? "TimeStamp" : "datetime.datetime"}(${f.join(", ")}${zone})`;
}

function timedelta(seconds: number): string {
  const days = Math.floor(seconds / 86400);
  const rest = seconds - days * 86400;
  const parts = [days ? `days=${days}` : "", rest ? `seconds=${rest}` : ""].filter(Boolean);
  return `datetime.timedelta(${parts.length ? parts.join(", ") : "0"})`;
}
