// Two people writing one workspace at once (review finding H4, the remote part), through real SDK clients in
// workerd with the real workspace Durable Object and no retries: BMAD's memlog is append-only, so every
// acknowledged `memlog.py append` through bmad-run is an entry; of writers racing at one if_version exactly
// one wins; every append is a line.
import { beforeAll, describe, expect, it, vi } from "vitest";
import { TOOL } from "../../src/core/surface/names.js";
import { seed } from "./setup.js";
import { shareAccepted, signInAs, unique, type Person } from "./workspace-users.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

let ada: Person;
let bob: Person;
let project: string;

beforeAll(async () => {
  await seed();
  [ada, bob] = (await Promise.all(["ada", "bob"].map((who) => signInAs(`${unique(who)}@example.com`)))) as [Person, Person];
  project = unique("race");
  expect((await ada.project({ action: "create", name: project })).isError).toBe(false);
  await shareAccepted(ada, project, bob, "write");
});

/** `n` calls, alternating between the two people, all in flight at once. */
const both = <T>(n: number, call: (who: Person, i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => call(i % 2 ? bob : ada, i)));

describe("one person's calls at once", () => {
  it("each answer from its own request's state: 60 listings in flight at once all answer (a handler kept the first request's deps, its in-flight listing shared by the others)", async () => {
    const listed = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 3 ? ada.project({ action: "list" }) : ada.files({ action: "list", project }))));
    for (const answer of listed) expect(answer.isError, answer.text).toBe(false);
  });
});

describe("two people at once", () => {
  it("keep every one of 20 memlog appends made through bmad-run", async () => {
    const root = `bmad://projects/${project}`;
    const ws = `${root}/_bmad-output/brainstorming/race`;
    const init = await ada.call(TOOL.bmadRun, { command: `uv run ${root}/_bmad/scripts/memlog.py init --workspace ${ws} --field topic=Race` });
    expect(init.structured.exit_code, init.text).toBe(0);
    const appended = await both(20, (who, i) => who.call(TOOL.bmadRun, { command: `uv run ${root}/_bmad/scripts/memlog.py append --workspace ${ws} --by ${i % 2 ? "bob" : "ada"} --text "entry-${i}-end"` }));
    const acknowledged = appended.filter((a) => !a.isError && a.structured.exit_code === 0).length;
    const memlog = (await ada.files({ action: "read", project, path: "_bmad-output/brainstorming/race/.memlog.md" })).text;
    const kept = Array.from({ length: 20 }, (_, i) => i).filter((i) => memlog.includes(`entry-${i}-end`));
    expect(kept.length, `${acknowledged} acknowledged`).toBe(acknowledged);
    expect(acknowledged).toBe(20);
  });

  it("let exactly one of 40 writers at one if_version win; the 39 others get a conflict", async () => {
    const path = "docs/race.md";
    expect((await ada.files({ action: "write", project, path, content: "v1" })).structured.version).toBe(1);
    const wrote = await both(40, (who, i) => who.files({ action: "write", project, path, content: `writer ${i}`, if_version: 1 }));
    expect(wrote.filter((w) => !w.isError)).toHaveLength(1);
    const conflicts = wrote.filter((w) => w.isError);
    expect(conflicts).toHaveLength(39);
    for (const c of conflicts) expect(c.text).toMatch(/^Conflict: docs\/race\.md is at version 2 .* retry with if_version 2\.$/);
    expect((await ada.files({ action: "history", project, path })).structured.versions).toHaveLength(2);
  });

  it("keep every one of 20 edits of different lines made at once: each reads again what another wrote meanwhile", async () => {
    const path = "docs/edits.md";
    const lines = Array.from({ length: 20 }, (_, i) => `- story ${i}: todo`);
    expect((await ada.files({ action: "write", project, path, content: `${lines.join("\n")}\n` })).isError).toBe(false);
    const edited = await both(20, (who, i) => who.files({ action: "edit", project, path, old: `story ${i}: todo`, content: `story ${i}: done` }));
    expect(edited.filter((e) => e.isError).map((e) => e.text)).toEqual([]);
    const read = (await ada.files({ action: "read", project, path })).text;
    expect(read.slice(read.indexOf("]\n") + 2)).toBe(`${lines.map((l) => l.replace("todo", "done")).join("\n")}\n`);
    expect((await ada.files({ action: "history", project, path })).structured.versions).toHaveLength(21);
  });

  it("store installer answers only over the answers they were made from: another's change meanwhile is a conflict (review 99)", async () => {
    // A config is made from the answers as read, then stored: two members at once, and one's answer went back to its
    // old value, credited to the other. Here the other's change lands between the read and the store.
    const store = ada.store();
    const read = await store.info(project);
    expect(read.ok).toBe(true);
    const before = read.ok ? read.value.answers : {};
    expect((await bob.project({ action: "config", name: project, answers: { core: { document_output_language: "Bob-late" } } })).isError).toBe(false);
    const stale = await store.configure(project, before, { ...before, core: { ...before.core, communication_language: "Ada-stale" } }, new Map());
    expect(stale).toMatchObject({ ok: false, kind: "conflict" });
    // Through the tool, the answers are read again and merged: both stay, each credited to who set it.
    expect((await ada.project({ action: "config", name: project, answers: { core: { communication_language: "Ada-now" } } })).isError).toBe(false);
    const shown = (await ada.project({ action: "config", name: project })).text.split("\n");
    expect(shown.find((l) => l.startsWith("core.communication_language = "))).toMatch(/^core\.communication_language = "Ada-now":/);
    expect(shown.find((l) => l.startsWith("core.document_output_language = "))).toMatch(new RegExp(`^core\\.document_output_language = "Bob-late" \\(set by ${bob.email.replace(/[.]/g, "\\.")}, not you\\):`));
  });

  it("keep every one of 40 appends as a line", async () => {
    const path = "docs/log.md";
    const appended = await both(40, (who, i) => who.files({ action: "append", project, path, content: `line ${i}\n` }));
    expect(appended.filter((a) => a.isError)).toEqual([]);
    const [header, ...lines] = (await ada.files({ action: "read", project, path })).text.trimEnd().split("\n");
    expect(header).toMatch(/^\[docs\/log\.md, version 40, /);
    expect(lines).toHaveLength(40);
    expect(new Set(lines)).toEqual(new Set(Array.from({ length: 40 }, (_, i) => `line ${i}`)));
  });
});
