/// <reference types="@cloudflare/vitest-plugin/types" />
// A workspace carries its time zone: asked at create (UTC unless given, and the answer says so), shown and set
// with config, checked against Intl's IANA names; every time the ports write (memlog's `updated`, sprint_status's
// `last_updated`, recon_kit's dated folder) is the project's wall-clock time.
import { beforeAll, expect, it, vi } from "vitest";
import { TOOL } from "../../src/core/surface/names.js";
import { seed } from "./setup.js";
import { rawCall, signInAs, unique, type Person } from "./workspace-users.js";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let ada: Person;
beforeAll(async () => {
  await seed();
  ada = await signInAs(`${unique("ada")}@example.com`);
});

/** The wall clock in `zone` now, as each script writes it. */
function wall(zone: string): { memlog: string; sprint: string; day: string } {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit" }).formatToParts(new Date());
  const p = Object.fromEntries(parts.map((x) => [x.type, x.value]));
  return { memlog: `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`, sprint: `${p.month}-${p.day}-${p.year} ${p.hour}:${p.minute}`, day: `${p.year}-${p.month}-${p.day}` };
}

/** Runs `act` and answers with what it gave and the wall clock in `zone` before and after it (a minute may turn). */
async function bracketed<T>(zone: string, act: () => Promise<T>): Promise<{ out: T; clocks: Array<ReturnType<typeof wall>> }> {
  const before = wall(zone);
  const out = await act();
  return { out, clocks: [before, wall(zone)] };
}

/** A sprint file with an epic whose retrospective is due. */
const SPRINT = 'last_updated: "01-01-2026 09:00"\ndevelopment_status:\n  epic-1: done\n  1-1-login: done\n  epic-1-retrospective: optional\n';
const updated = (memlog: string) => /^updated: (.*)$/m.exec(memlog)?.[1];

it("keeps UTC unless told, and says so at create", async () => {
  const project = unique("utc");
  const created = await ada.project({ action: "create", name: project });
  expect(created.isError, created.text).toBe(false);
  expect(created.text).toContain(`Times scripts write are in UTC (the default): if the user is elsewhere, ask their zone and set it with ${TOOL.bmadProject} {"action": "config", "name": "${project}", "time_zone": "Europe/Paris"}.`);
  expect(created.structured.time_zone).toBe("UTC");
  expect((await ada.project({ action: "config", name: project })).text).toContain("; time zone UTC (default).");
  const { out, clocks } = await bracketed("UTC", () => ada.call(TOOL.bmadRun, { command: `uv run bmad://projects/${project}/_bmad/scripts/memlog.py init --workspace bmad://projects/${project}/run` }));
  expect(out.structured.exit_code, out.text).toBe(0);
  const log = (await ada.files({ action: "read", project, path: "run/.memlog.md" })).text;
  expect(clocks.map((c) => c.memlog)).toContain(updated(log));
});

it("writes every time in the zone given at create, and in the one config sets later", async () => {
  const project = unique("la");
  const root = `bmad://projects/${project}`;
  const created = await ada.project({ action: "create", name: project, time_zone: "america/los_angeles" });
  expect(created.isError, created.text).toBe(false);
  expect(created.text).toContain("Times scripts write are in America/Los_Angeles.");
  expect((await ada.project({ action: "config", name: project })).structured.time_zone).toBe("America/Los_Angeles");

  const init = await bracketed("America/Los_Angeles", () => ada.call(TOOL.bmadRun, { command: `uv run ${root}/_bmad/scripts/memlog.py init --workspace ${root}/run --field topic=Todo` }));
  expect(init.out.structured.exit_code, init.out.text).toBe(0);
  const log = () => ada.files({ action: "read", project, path: "run/.memlog.md" }).then((r) => r.text);
  expect(init.clocks.map((c) => c.memlog)).toContain(updated(await log()));

  const set = await ada.project({ action: "config", name: project, time_zone: "Asia/Kolkata" });
  expect(set.isError, set.text).toBe(false);
  expect(set.text).toBe(`Times scripts write in "${project}" are in Asia/Kolkata now.`);
  expect((await ada.project({ action: "config", name: project })).text).toContain("; time zone Asia/Kolkata.");
  const append = await bracketed("Asia/Kolkata", () => ada.call(TOOL.bmadRun, { command: `uv run ${root}/_bmad/scripts/memlog.py append --workspace ${root}/run --text "web first"` }));
  expect(append.out.structured.exit_code, append.out.text).toBe(0);
  expect(append.clocks.map((c) => c.memlog)).toContain(updated(await log()));

  // bmad-retrospective's sprint_status.py stamps last_updated; deep-recon's recon_kit.py dates its run folder.
  expect((await ada.files({ action: "write", project, path: "sprint-status.yaml", content: SPRINT })).isError).toBe(false);
  const sprint = await bracketed("Asia/Kolkata", () => ada.call(TOOL.bmadRun, { command: `uv run {skill-root}/scripts/sprint_status.py update --file ${root}/sprint-status.yaml --epic 1 --set-retro-done`, project }));
  expect(sprint.out.structured.exit_code, sprint.out.text).toBe(0);
  expect(sprint.clocks.map((c) => c.sprint)).toContain(JSON.parse(sprint.out.structured.stdout).last_updated);
  const slug = await bracketed("Asia/Kolkata", () => ada.call(TOOL.bmadRun, { command: `uv run {skill-root}/scripts/recon_kit.py slug "reading apps" --type market`, project }));
  expect(slug.clocks.map((c) => `market-reading-apps-${c.day}`)).toContain(JSON.parse(slug.out.structured.stdout).folder);
  // A line that leaves {date} to fill is told today's date there, not UTC's (review 147: the folder and its memlog a day
  // apart), and the time there (review 183: sprint_plan.py's --date is `MM-DD-YYYY HH:MM`).
  const dated = await bracketed("Asia/Kolkata", () => ada.call(TOOL.bmadRun, { command: `uv run ${root}/_bmad/scripts/memlog.py init --workspace ${root}/run-{date}`, project }));
  expect(dated.clocks.map((c) => `{date} is today's date (${c.day} in Asia/Kolkata, now ${c.memlog.slice(11)})`).some((hint) => dated.out.text.includes(hint)), dated.out.text).toBe(true);
});

it("refuses a zone Intl does not know, or an offset, naming the closest zones", async () => {
  const project = unique("tz");
  const wrong = await ada.project({ action: "create", name: project, time_zone: "Europe/Pariss" });
  expect(wrong.isError).toBe(true);
  expect(wrong.text).toMatch(/^Unknown time zone "Europe\/Pariss": give an IANA name such as America\/Los_Angeles, Europe\/Berlin or UTC\. Closest: Europe\/Paris/);
  expect((await ada.project({ action: "list" })).text).not.toContain(project);
  expect((await ada.project({ action: "create", name: project })).isError).toBe(false);
  const offset = await ada.project({ action: "config", name: project, time_zone: "+02:00" });
  expect(offset.isError).toBe(true);
  expect(offset.text).toContain('Unknown time zone "+02:00"');
  expect((await ada.project({ action: "config", name: project })).text).toContain("; time zone UTC (default).");
});

/** A stored UTC time on a clock in `zone`, to the minute, with its offset, worked out here from Intl's own offset name. */
function shownIn(zone: string, iso: string): string {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", timeZoneName: "longOffset" }).formatToParts(new Date(iso));
  const p = Object.fromEntries(parts.map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute} (${p.timeZoneName!.replace("GMT", "UTC")})`;
}

it("shows stored times in the project's zone with its offset where people read them, and keeps UTC where programs do (review 305-F6)", async () => {
  const project = unique("lashow");
  const zone = "America/Los_Angeles";
  expect((await ada.project({ action: "create", name: project, time_zone: zone })).isError).toBe(false);
  expect((await ada.files({ action: "write", project, path: "docs/prd.md", content: "# PRD\n" })).isError).toBe(false);
  expect((await ada.files({ action: "append", project, path: "docs/prd.md", content: "More.\n" })).isError).toBe(false);

  const read = await ada.files({ action: "read", project, path: "docs/prd.md" });
  const at = read.structured.updated_at as string;
  expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  expect(shownIn(zone, at)).toMatch(/ \(UTC-0[78]:00\)$/);
  expect(read.text.split("\n")[0]).toBe(`[docs/prd.md, version 2, 12 bytes, by ${ada.email} at ${shownIn(zone, at)}]`);

  const history = await ada.files({ action: "history", project, path: "docs/prd.md" });
  const versions = history.structured.versions as Array<{ at: string }>;
  expect(versions.map((v) => v.at).every((t) => /Z$/.test(t))).toBe(true);
  expect(history.text).toContain(`v2 append 12 B by ${ada.email} at ${shownIn(zone, versions[0]!.at)}\nv1 write 6 B by ${ada.email} at ${shownIn(zone, versions[1]!.at)}`);

  const config = await ada.project({ action: "config", name: project });
  expect(config.text).toContain(`, created ${shownIn(zone, config.structured.created_at as string)}; time zone ${zone}.`);

  // The document view shows the time as the text answer does, from `_local`; its UTC fields stay as stored.
  const body = await (await rawCall(ada.token, "tools/call", { name: TOOL.bmadDoc, arguments: { project, path: "docs/prd.md" } }, "?toolsets=default,views")).text();
  const doc = (JSON.parse(body.replace(/^event: message\ndata: /, "")) as { result: { structuredContent: { updated_at: string; updated_at_local: string; versions: Array<{ at: string; at_local: string }> } } }).result.structuredContent;
  expect(doc.updated_at).toBe(at);
  expect(doc.updated_at_local).toBe(shownIn(zone, at));
  expect(doc.versions.map((v) => v.at_local)).toEqual(versions.map((v) => shownIn(zone, v.at)));

  // A UTC project says UTC.
  const utc = unique("utcshow");
  expect((await ada.project({ action: "create", name: utc })).isError).toBe(false);
  expect((await ada.files({ action: "write", project: utc, path: "a.md", content: "a\n" })).isError).toBe(false);
  const plain = await ada.files({ action: "read", project: utc, path: "a.md" });
  expect(plain.text.split("\n")[0]).toBe(`[a.md, version 1, 2 bytes, by ${ada.email} at ${(plain.structured.updated_at as string).slice(0, 16).replace("T", " ")} UTC]`);
});
