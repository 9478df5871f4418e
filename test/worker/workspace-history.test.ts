/// <reference types="@cloudflare/vitest-plugin/types" />
// What a writer cannot take from a project's owner (review finding M5), and the file/folder clash that broke
// every pull (L1), through real SDK clients in workerd with the real workspace Durable Object: content a
// change replaced or deleted survives the history cap for the retention period, whoever churns; only the
// owner purges; a file is never written where a folder is, or below a file.
import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { WorkspaceProject } from "../../src/worker/workspace-do.js";
import { seed } from "./setup.js";
import { pastUndo, projectStub, rawCall, shareAccepted, signInAs, unique, type Person } from "./workspace-users.js";
import { TOOL } from "../../src/core/surface/names.js";
import { ownerTag } from "../../src/worker/workspace-store.js";
import { sha256 } from "../../src/worker/workspace-versions.js";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let olive: Person;
let mallory: Person;
let project: string;

beforeAll(async () => {
  await seed();
  [olive, mallory] = (await Promise.all(["olive", "mallory"].map((who) => signInAs(`${unique(who)}@example.com`)))) as [Person, Person];
  project = unique("history");
  expect((await olive.project({ action: "create", name: project })).isError).toBe(false);
  await shareAccepted(olive, project, mallory, "write");
});

const kib = (c: string, n = 1) => c.repeat(1024 * n);

/** The bytes a project's history keeps, as its object counts them against the cap. */
const historyBytes = (state: DurableObjectState) => state.storage.sql.exec<{ b: number }>("SELECT history_bytes AS b FROM meta").one().b;

describe("the history cap (M5)", () => {
  it("keeps the content of a file a writer deleted or overwrote, however much they write after; only the owner purges", async () => {
    await olive.files({ action: "write", project, path: "docs/prd.md", content: `Olive's PRD\n${kib("p")}` });
    await olive.files({ action: "write", project, path: "docs/arch.md", content: `Olive's architecture\n${kib("a")}` });
    // The cap, lowered so that half of it is what the project holds plus 8 KiB: 205 MiB of scratch writes in miniature.
    await runInDurableObject(projectStub(olive.id, project), (instance: WorkspaceProject, state) => {
      instance.files.historyCap = 2 * (state.storage.sql.exec<{ b: number }>("SELECT history_bytes AS b FROM meta").one().b + 8 * 1024);
    });
    expect((await mallory.files({ action: "delete", project, path: "docs/prd.md" })).isError).toBe(false);
    expect((await mallory.files({ action: "write", project, path: "docs/arch.md", content: "nothing" })).isError).toBe(false);
    const refused: string[] = [];
    for (let i = 0; i < 12; i++) {
      const out = await mallory.files({ action: "write", project, path: "scratch.md", content: kib(String(i % 10)) });
      if (out.isError) refused.push(out.text);
    }
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toMatch(/kept 30 days before the .* history cap may drop it \(deleting a file frees nothing before then\); past half of it only its owner's changes are taken, so that nobody it is shared with can fill it: this change does not fit\. scratch\.md's earlier versions take the most of it \(\d+ KiB\), most of that written by .+\. Its owner \(.+\) can purge earlier versions with bmad-files "purge" \(path: a glob, such as scratch\.md\), whose room comes back when they go, 7 days later\./);
    // Restoring what a file already holds stores nothing (a seventh review: 198 restores of one version filled it).
    const head = await mallory.files({ action: "write", project, path: "docs/arch.md", content: "nothing" });
    const again = await mallory.files({ action: "restore", project, path: "docs/arch.md", version: 2 });
    expect(again.text).toBe(head.text.replace(/^(Note: bmad-mcp pull leaves docs\/arch\.md .*\n)Wrote (docs\/arch\.md in "[^"]+", \S+'s project)/, "$1Restored $2 to version 2's content"));
    // The owner's changes still fit: the half the writer filled is all a share can take (a seventh review).
    expect((await olive.files({ action: "write", project, path: "docs/notes.md", content: kib("n") })).isError).toBe(false);

    // What the writer deleted and overwrote is all still there.
    expect((await olive.files({ action: "read", project, path: "docs/prd.md", version: 1 })).text).toContain("Olive's PRD");
    expect((await olive.files({ action: "read", project, path: "docs/arch.md", version: 1 })).text).toContain("Olive's architecture");

    // Only the owner drops history: the writer's scratch versions, and then the PRD comes back.
    expect((await mallory.files({ action: "purge", project, path: "**" })).text).toBe(`Only the owner of "${project}" (${olive.email}) can purge its history.`);
    expect((await olive.files({ action: "read", project, path: "docs/arch.md", version: 1 })).isError).toBe(false);
    const purged = await olive.files({ action: "purge", project, path: "scratch.md" });
    expect(purged.text).toMatch(/^Purged \d+ earlier versions/);
    // Nor does history give the digest of what nobody can read now: it would confirm a guess of it (review 48).
    const versions = (await mallory.files({ action: "history", project, path: "scratch.md" })).structured.versions as Array<{ version: number; sha256?: string; pruned?: boolean }>;
    expect(versions.filter((v) => v.pruned).length).toBeGreaterThan(0);
    for (const v of versions) expect(v.pruned ? v.sha256 : "head", String(v.version)).toBe(v.pruned ? undefined : "head");
    const restored = await olive.files({ action: "restore", project, path: "docs/prd.md", version: 1 });
    expect(restored.isError, restored.text).toBe(false);
    expect((await olive.files({ action: "read", project, path: "docs/prd.md" })).text).toContain("Olive's PRD");
  });

  /** Olive's project `name` shared with Mallory for writing, six versions of her PRD in it past the retention (0 here),
   *  and a history cap of twice what it stores and `room` KiB: the cap may drop them, but a writer's room they are not. */
  async function ownersPrdsPastRetention(name: string, room: number) {
    await olive.project({ action: "create", name });
    await shareAccepted(olive, name, mallory, "write");
    const stub = projectStub(olive.id, name);
    const prd = "docs/prd.md";
    for (let i = 0; i < 6; i++) await olive.files({ action: "write", project: name, path: prd, content: `# PRD v${i}\n${kib("o", 20)}\n` });
    const cap = await runInDurableObject(stub, (instance: WorkspaceProject, state) => {
      instance.files.retentionMs = 0;
      return (instance.files.historyCap = 2 * (historyBytes(state) + room * 1024));
    });
    return { stub, prd, cap };
  }

  it("counts none of the owner's old versions as a writer's room past half the cap, so the owner's next changes keep them (review 356)", async () => {
    const name = unique("owners-room");
    const { stub, prd, cap } = await ownersPrdsPastRetention(name, 20);
    let refused: string | undefined;
    for (let i = 0; i < 40 && !refused; i++) {
      const out = await mallory.files({ action: "write", project: name, path: `scratch/${i}.md`, content: kib("m", 20) });
      if (out.isError) refused = out.text;
    }
    expect(refused).toMatch(/past half of it only its owner's changes are taken/);
    // Counted as room, they let the writer go to 369 KB of a 263 KB half, and the owner's next writes dropped them.
    expect(await runInDurableObject(stub, (_: WorkspaceProject, state) => historyBytes(state))).toBeLessThanOrEqual(cap / 2);
    for (let i = 0; i < 5; i++) expect((await olive.files({ action: "write", project: name, path: `own/${i}.md`, content: kib("o", 20) })).isError).toBe(false);
    for (let v = 1; v <= 6; v++) expect((await olive.files({ action: "read", project: name, path: prd, version: v })).text).toContain(`# PRD v${v - 1}\n`);
  });

  it("drops only the writer's own old versions for the writer's churn of one file, never the owner's, past the retention (review 430)", async () => {
    const name = unique("churn-one");
    const { stub, prd, cap } = await ownersPrdsPastRetention(name, 100);
    // Each of her old versions is room for her next: none refused, and what goes is hers, oldest first.
    for (let i = 0; i < 30; i++) {
      const out = await mallory.files({ action: "write", project: name, path: "scratch/m.md", content: `mallory ${i}\n${kib(String.fromCharCode(97 + (i % 26)), 20)}` });
      expect(out.isError, out.text).toBe(false);
    }
    // Dropped by age over everyone's rows, the owner's PRD kept only v6 ("no longer kept" for v1 to v5).
    const prdKept = async () => { for (let v = 1; v <= 6; v++) expect((await olive.files({ action: "read", project: name, path: prd, version: v })).text).toContain(`# PRD v${v - 1}\n`); };
    await prdKept();
    const kept = (await olive.files({ action: "history", project: name, path: "scratch/m.md" })).structured.versions as Array<{ version: number; pruned?: boolean }>;
    expect(kept[0]!.version).toBe(30);
    expect(kept.filter((v) => !v.pruned).length).toBeLessThan(30);
    // Her changes filled only her half: the owner's next writes drop nothing of the owner's either.
    expect(await runInDurableObject(stub, (_: WorkspaceProject, state) => historyBytes(state))).toBeLessThanOrEqual(cap / 2);
    for (let i = 0; i < 4; i++) expect((await olive.files({ action: "write", project: name, path: `own/${i}.md`, content: kib("o", 20) })).isError).toBe(false);
    await prdKept();
  });
});

// Review 236: every version row counts against the history cap by what it stores, a deletion too: a loop writing and
// deleting empty files at long paths stored ~3 KB a round that nothing counted, until the project's object stopped.
describe("versions of empty files at long paths (review 236)", () => {
  const longPath = (i: number) => `${`${"d".repeat(60)}/`.repeat(7)}f${i}${"y".repeat(40)}.md`;
  const rowsOf = (owner: string, name: string) =>
    runInDurableObject(projectStub(owner, name), (_: WorkspaceProject, state) => ({
      rows: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM versions").one().n,
      bytes: state.storage.sql.exec<{ b: number }>("SELECT history_bytes AS b FROM meta").one().b,
    }));

  it("refuses a member's write-and-delete loop at the members' half, and the owner's versions stay", async () => {
    const name = unique("churn");
    await olive.project({ action: "create", name });
    await shareAccepted(olive, name, mallory, "write");
    await olive.files({ action: "write", project: name, path: "docs/prd.md", content: "Olive's first PRD\n" });
    await olive.files({ action: "write", project: name, path: "docs/prd.md", content: "Olive's second PRD\n" });
    // Half the cap is what the project holds plus 16 KiB: a few rounds of rows that hold no content at all.
    await runInDurableObject(projectStub(olive.id, name), (instance: WorkspaceProject, state) => {
      instance.files.historyCap = 2 * (state.storage.sql.exec<{ b: number }>("SELECT history_bytes AS b FROM meta").one().b + 16 * 1024);
    });
    const before = await rowsOf(olive.id, name);
    let refused: string | undefined;
    let rounds = 0;
    for (; rounds < 40 && !refused; rounds++) {
      for (const action of ["write", "delete"]) {
        const out = await mallory.files({ action, project: name, path: longPath(rounds), content: "" });
        if (out.isError) refused ??= out.text;
      }
    }
    expect(refused).toMatch(/keeps [\d.]+ MiB of file versions \(each counts its content and its path, a deletion too\), and .*past half of it only its owner's changes are taken, so that nobody it is shared with can fill it: this change does not fit\..* Its owner \(.+\) can purge earlier versions/);
    const after = await rowsOf(olive.id, name);
    expect(rounds).toBeLessThan(12);
    expect(after.rows - before.rows).toBeLessThanOrEqual(2 * rounds);
    expect(after.bytes - before.bytes).toBeGreaterThanOrEqual((after.rows - before.rows) * 2 * longPath(0).length);
    // Nothing of the owner's went, and the owner's own changes still fit.
    expect((await olive.files({ action: "read", project: name, path: "docs/prd.md", version: 1 })).text).toContain("Olive's first PRD");
    expect((await olive.files({ action: "write", project: name, path: "docs/notes.md", content: "Olive's notes\n" })).isError).toBe(false);
  });

  it("keeps the row of a writer's deletion of the owner's file for the retention, however full the cap (review 244)", async () => {
    const name = unique("trail");
    await olive.project({ action: "create", name });
    await shareAccepted(olive, name, mallory, "write");
    await olive.files({ action: "write", project: name, path: "docs/prd.md", content: "Olive's PRD\n" });
    expect((await mallory.files({ action: "delete", project: name, path: "docs/prd.md" })).isError).toBe(false);
    expect((await mallory.files({ action: "write", project: name, path: "docs/prd.md", content: "Mallory's PRD\n" })).isError).toBe(false);
    const stub = projectStub(olive.id, name);
    await runInDurableObject(stub, (instance: WorkspaceProject, state) => {
      instance.files.historyCap = 2 * (state.storage.sql.exec<{ b: number }>("SELECT history_bytes AS b FROM meta").one().b + 16 * 1024);
    });
    const cap = await runInDurableObject(stub, (instance: WorkspaceProject) => instance.files.historyCap);
    // The writer's churn at one path: their own deletions, made a moment ago, are no room past half the cap (it went
    // to 0.565 of it).
    let refused = false;
    for (let i = 0; i < 40 && !refused; i++) {
      for (const action of ["write", "delete"]) refused ||= (await mallory.files({ action, project: name, path: longPath(0), content: "" })).isError;
    }
    expect(refused).toBe(true);
    expect((await rowsOf(olive.id, name)).bytes).toBeLessThanOrEqual(cap / 2);
    // The owner fills the rest: the cap drops no row made within the retention, so her changes are refused at it.
    let full: string | undefined;
    for (let i = 0; i < 20 && !full; i++) {
      const out = await olive.files({ action: "write", project: name, path: `docs/notes-${i}.md`, content: kib("n", 10) });
      if (out.isError) full = out.text;
    }
    // Told whose earlier versions fill it, and spoken to as its owner (review 341).
    const churned = longPath(0).replace(/[./]/g, "\\$&");
    expect(full).toMatch(new RegExp(`: this change does not fit\\. ${churned}'s earlier versions take the most of it \\(\\d+ KiB\\), most of that written by mallory-\\w+@example\\.com\\. You own it: you can purge earlier versions with bmad-files "purge" \\(path: a glob, such as ${churned}\\)`));
    // Who deleted the owner's file is still told, in order.
    const trail = (await olive.files({ action: "history", project: name, path: "docs/prd.md" })).text;
    expect(trail, trail).toMatch(/\nv3 write .* by mallory[^\n]*\nv2 delete 0 B by mallory[^\n]*\nv1 write .* by olive/);
    // Past the retention the cap may drop it, the oldest first, and history says where a row went.
    await runInDurableObject(stub, (instance: WorkspaceProject) => void (instance.files.retentionMs = 0));
    expect((await olive.files({ action: "write", project: name, path: "docs/notes-last.md", content: kib("n", 10) })).isError).toBe(false);
    const gap = (await olive.files({ action: "history", project: name, path: "docs/prd.md" })).text;
    expect(gap, gap).toMatch(/\nv3 write .* by mallory[^\n]*\nv2: no longer kept \(dropped whole under the history cap\)\nv1 write .* by olive/);
  });

  it("drops whole the oldest rows whose content is gone past the cap, and a path made again gets a version never used", async () => {
    const name = unique("bare");
    await olive.project({ action: "create", name });
    await olive.files({ action: "write", project: name, path: "docs/prd.md", content: "Olive's first PRD\n" });
    await olive.files({ action: "write", project: name, path: "docs/prd.md", content: "Olive's second PRD\n" });
    const stub = projectStub(olive.id, name);
    // No retention: content replaced a moment ago may go, and then its row.
    await runInDurableObject(stub, (instance: WorkspaceProject, state) => {
      instance.files.historyCap = state.storage.sql.exec<{ b: number }>("SELECT history_bytes AS b FROM meta").one().b + 16 * 1024;
      instance.files.retentionMs = 0;
    });
    const before = await rowsOf(olive.id, name);
    for (let i = 0; i < 30; i++) {
      expect((await olive.files({ action: "write", project: name, path: longPath(i), content: "" })).isError).toBe(false);
      expect((await olive.files({ action: "delete", project: name, path: longPath(i) })).isError).toBe(false);
    }
    const after = await rowsOf(olive.id, name);
    // 60 rows written, and only those the cap holds are left.
    expect(after.rows - before.rows).toBeLessThan(60 / 2);
    const cap = await runInDurableObject(stub, (instance: WorkspaceProject) => instance.files.historyCap);
    expect(after.bytes).toBeLessThanOrEqual(cap);
    // The oldest went first; the file's head never does.
    expect((await olive.files({ action: "history", project: name, path: longPath(0) })).text).toMatch(/^No file /);
    expect((await olive.files({ action: "history", project: name, path: longPath(29) })).text).toMatch(/\nv\d+ delete /);
    expect((await olive.files({ action: "read", project: name, path: "docs/prd.md" })).text).toContain("Olive's second PRD");
    // A version dropped whole is said as such, in history and to a read of it (review 238: "there is no version 1").
    expect((await olive.files({ action: "read", project: name, path: "docs/prd.md", version: 1 })).text).toMatch(/^Version 1 of docs\/prd\.md is no longer kept: it was dropped to keep the project's history under its/);
    expect((await olive.files({ action: "history", project: name, path: "docs/prd.md" })).text).toMatch(/\nNo version before v2 is kept\.$/);
    const again = await olive.files({ action: "write", project: name, path: longPath(0), content: "back\n" });
    expect(again.structured.version).toBeGreaterThan(2);
  });

  it("counts a project's rows once when it comes from before they were counted", async () => {
    const name = unique("counted");
    await olive.project({ action: "create", name });
    await olive.files({ action: "write", project: name, path: longPath(0), content: "" });
    await olive.files({ action: "delete", project: name, path: longPath(0) });
    const counted = await rowsOf(olive.id, name);
    const [old, recounted] = await runInDurableObject(projectStub(olive.id, name), (instance: WorkspaceProject, state) => {
      // As it was: content alone counted, and no dropped_version in meta.
      state.storage.sql.exec("ALTER TABLE meta DROP COLUMN dropped_version");
      state.storage.sql.exec("UPDATE meta SET history_bytes = (SELECT SUM(size) FROM versions WHERE data IS NOT NULL)");
      const old = state.storage.sql.exec<{ b: number }>("SELECT history_bytes AS b FROM meta").one().b;
      (instance as unknown as { migrate(): void }).migrate();
      return [old, state.storage.sql.exec<{ b: number }>("SELECT history_bytes AS b FROM meta").one().b];
    });
    expect(old).toBeLessThan(counted.bytes);
    expect(recounted).toBe(counted.bytes);
  });
});

// The model holds the owner's token, and text it read can steer it: nothing it sends erases history at once. A purge
// or a delete takes effect now and can be undone for 7 days; only then does the content go.
describe("purge and delete, undone for 7 days", () => {

  it("hides purged versions at once and brings them back with unpurge, until the content goes for good", async () => {
    const name = unique("purge");
    await olive.project({ action: "create", name });
    await olive.files({ action: "write", project: name, path: "docs/prd.md", content: "# The PRD the team agreed\n" });
    await olive.files({ action: "write", project: name, path: "docs/prd.md", content: "garbage a steered model wrote\n" });
    const purged = await olive.files({ action: "purge", project: name, path: "**" });
    expect(purged.text).toMatch(/^Purged 1 earlier versions \(\d+ bytes\) of files matching "\*\*": nobody can read or restore them now; current files are kept\. Their content, and the room it takes, go for good at \d{4}-\d\d-\d\d \d\d:\d\d UTC; until then bmad-files "unpurge" brings them back\.$/);
    expect((await olive.files({ action: "history", project: name, path: "docs/prd.md" })).text).toMatch(/\nv1 write \d+ B by .* \(purged: unpurge brings it back for 7 days\)$/);
    for (const args of [{ action: "read", version: 1 }, { action: "restore", version: 1 }]) {
      expect((await olive.files({ project: name, path: "docs/prd.md", ...args })).text).toMatch(/^Version 1 of docs\/prd\.md was purged by the owner of .* UTC, and until then the owner can bring it back with bmad-files "unpurge"\.$/);
    }
    expect((await olive.files({ action: "unpurge", project: name, path: "docs/*" })).text).toMatch(/^Brought back 1 purged versions/);
    expect((await olive.files({ action: "read", project: name, path: "docs/prd.md", version: 1 })).text).toContain("The PRD the team agreed");

    // Purged content counts until it goes, and the cap never drops it: purging makes no room to pad with, so an
    // unpurge always fits (review 34: 205 writes of 1 MiB, each purged, made the PRD's unpurge too big ever to fit).
    const stub = projectStub(olive.id, name);
    await runInDurableObject(stub, (instance: WorkspaceProject) => void (instance.files.historyCap = 3 * 1024 * 1024));
    await olive.files({ action: "purge", project: name, path: "**" });
    const padded: string[] = [];
    for (let i = 0; i < 6; i++) {
      padded.push((await olive.files({ action: "write", project: name, path: "docs/prd.md", content: kib(String(i), 1000) })).text);
      await olive.files({ action: "purge", project: name, path: "docs/prd.md" });
    }
    expect(padded.at(-1)).toMatch(/this change does not fit\..* You own it: you can purge earlier versions with bmad-files "purge" \(path: a glob, such as [^)]+\), whose room comes back when they go, 7 days later\.$/);
    expect((await olive.files({ action: "unpurge", project: name, path: "docs/prd.md", version: 1 })).text).toMatch(/^Brought back 1 purged versions .* at version 1\.$/);
    expect((await olive.files({ action: "read", project: name, path: "docs/prd.md", version: 1 })).text).toContain("The PRD the team agreed");
    await olive.files({ action: "purge", project: name, path: "**" });
    await pastUndo(olive.id, name);
    expect((await olive.files({ action: "read", project: name, path: "docs/prd.md", version: 1 })).text).toMatch(/its content was dropped/);
    expect((await olive.files({ action: "unpurge", project: name, path: "**" })).text).toMatch(/^Brought back 0 purged versions/);
    expect((await olive.files({ action: "read", project: name, path: "docs/prd.md" })).text).toMatch(/^\[docs\/prd\.md, version \d+/);
    // Gone, their bytes leave the count: the cap takes new writes again.
    expect((await olive.files({ action: "write", project: name, path: "docs/prd.md", content: kib("n", 1000) })).isError).toBe(false);
  });

  it("answers a deleted project as not there, withdraws its shares, and brings it back with undelete, until it goes for good", async () => {
    const name = unique("deleted");
    await olive.project({ action: "create", name });
    await olive.files({ action: "write", project: name, path: "docs/prd.md", content: "# Kept\n" });
    await shareAccepted(olive, name, mallory, "write");
    const deleted = await olive.project({ action: "delete", name, confirm: name });
    expect(deleted.text).toMatch(new RegExp(`^Deleted project "${name}" with its \\d+ files and their history, and withdrew its shares\\. It is kept until \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC, when it goes for good: until then bmad-project "undelete" brings it back\\.$`));
    for (const who of [olive, mallory]) expect((await who.files({ action: "read", project: name, path: "docs/prd.md" })).text).toMatch(/not found/);
    expect((await olive.project({ action: "list" })).text).toMatch(new RegExp(`\\nDeleted, kept until they go for good \\("undelete" with "name" brings one back\\): .*${name} \\(until \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\)`));
    expect((await olive.project({ action: "list" })).structured.projects).not.toContainEqual(expect.objectContaining({ name }));
    expect((await olive.project({ action: "create", name })).text).toMatch(new RegExp(`^You deleted "${name}" at .* UTC; it is kept until .* UTC, when it goes for good\\. bmad-project "undelete" brings it back; or choose another name\\.$`));
    expect((await mallory.project({ action: "undelete", name })).text).toMatch(/You have no deleted project/);

    expect((await olive.project({ action: "undelete", name })).text).toBe(`Brought back project "${name}" as it was when deleted, shared with nobody.`);
    expect((await olive.files({ action: "read", project: name, path: "docs/prd.md" })).text).toContain("# Kept");
    expect((await olive.project({ action: "list" })).text).toContain(name);
    expect((await mallory.files({ action: "read", project: name, path: "docs/prd.md" })).text).toMatch(/not found/);

    await olive.project({ action: "delete", name, confirm: name });
    await pastUndo(olive.id, name);
    expect((await olive.project({ action: "undelete", name })).text).toMatch(/You have no deleted project/);
    expect((await olive.project({ action: "create", name })).isError).toBe(false);
    expect((await olive.files({ action: "read", project: name, path: "docs/prd.md" })).text).toMatch(/No file docs\/prd\.md/);
  });
});

describe("memories in the history", () => {
  it("takes a collaborator's memories only while the history is under half its cap, the owner's after (an eighth review)", async () => {
    const mem = unique("mem");
    expect((await olive.project({ action: "create", name: mem })).isError).toBe(false);
    await shareAccepted(olive, mem, mallory, "write");
    // Each memory is written into its structured file, stored whole again: half the cap is what the project holds plus 2 KiB.
    await runInDurableObject(projectStub(olive.id, mem), (instance: WorkspaceProject, state) => {
      instance.files.historyCap = 2 * (state.storage.sql.exec<{ b: number }>("SELECT history_bytes AS b FROM meta").one().b + 2 * 1024);
    });
    const remember = async (who: Person, project: string, text: string) => {
      const body = await (await rawCall(who.token, "tools/call", { name: TOOL.rememberStructured, arguments: { project, type: "decisions", agent: "dev", text } }, "?toolsets=default,memory")).text();
      return JSON.parse(body.slice(body.indexOf("{"))) as { result: { isError?: boolean; content: Array<{ text: string }> } };
    };
    const refused: string[] = [];
    for (let i = 0; i < 20 && !refused.length; i++) {
      const out = await remember(mallory, `${mem}@${ownerTag(olive.id)}`, `Mallory's note ${i}: ${"x".repeat(300)}`);
      if (out.result.isError) refused.push(out.result.content[0]!.text);
    }
    expect(refused[0]).toMatch(/past half of it only its owner's changes are taken/);
    expect((await remember(olive, mem, "Olive's own decision.")).result.isError).toBeFalsy();
  });
});

describe("a long history", () => {
  it("says how many earlier versions a listing leaves out, so that nobody's vanish from sight (a seventh review)", async () => {
    const busy = unique("busy");
    expect((await olive.project({ action: "create", name: busy })).isError).toBe(false);
    await shareAccepted(olive, busy, mallory, "write");
    await olive.files({ action: "write", project: busy, path: "docs/busy.md", content: "Olive's\n" });
    for (let i = 0; i < 205; i++) await mallory.files({ action: "write", project: busy, path: "docs/busy.md", content: `churn ${i}\n` });
    const doc = async (args: Record<string, unknown> = {}) => (await rawCall(olive.token, "tools/call", { name: TOOL.bmadDoc, arguments: { project: busy, path: "docs/busy.md", ...args } }, "?toolsets=default,views")).text();
    const body = await doc();
    expect(body).toContain("the newest 200 versions, 6 older kept (\\\"before\\\": 7 lists them)");
    expect(body).toContain('"older":6');
    // Rows dropped whole under the cap leave gaps: the count is of those kept, never read off the numbers (review 253:
    // "60 older" of 14 kept).
    await runInDurableObject(projectStub(olive.id, busy), (instance: WorkspaceProject, state) => {
      instance.files.historyCap = state.storage.sql.exec<{ b: number }>("SELECT history_bytes AS b FROM meta").one().b - 4 * 1024;
      instance.files.retentionMs = 0;
    });
    for (let i = 0; i < 4; i++) await olive.files({ action: "write", project: busy, path: "docs/busy.md", content: `Olive's ${i}\n` });
    const after = await doc();
    const [, older, next] = /"older":(\d+),"next":(\d+)/.exec(after)!;
    expect(Number(next)).toBeGreaterThan(Number(older) + 1);
    const rest = await doc({ before: Number(next) });
    expect([...rest.matchAll(/\{"version":\d+/g)].length).toBe(Number(older));
    // So does bmad-files history (review 255: "Versions 1 to 100 are older" of 74 kept): past a page, "more than" one.
    const page = await olive.files({ action: "history", project: busy, path: "docs/busy.md" });
    expect(page.text).toMatch(/\nMore than 50 older versions are kept: "history" with "version": \d+ lists the next page;/);
    expect(page.structured.older).toBeUndefined();
  });

  it("answers a page of 50 versions, and the next page with \"version\", down to the owner's first (review 220)", async () => {
    const paged = unique("paged");
    expect((await olive.project({ action: "create", name: paged })).isError).toBe(false);
    await shareAccepted(olive, paged, mallory, "write");
    const path = "docs/prd.md";
    await olive.files({ action: "write", project: paged, path, content: "Olive's PRD\n" });
    // A member's write-and-restore churn on top of it: 56 versions in all.
    for (let i = 0; i < 55; i++) {
      const churn = i % 2 ? mallory.files({ action: "restore", project: paged, path, version: 1 }) : mallory.files({ action: "write", project: paged, path, content: `churn ${i}\n` });
      expect((await churn).isError).toBe(false);
    }
    const first = await olive.files({ action: "history", project: paged, path });
    const lines = first.text.split("\n");
    expect(lines[0]).toBe(`${path}, newest first:`);
    expect(lines.filter((l) => /^v\d+ /.test(l))).toHaveLength(50);
    expect(lines[1]).toMatch(/^v56 write /);
    expect(lines[2]).toMatch(/^v55 restore of v1 /);
    expect(lines.at(-1)).toBe('6 older versions are kept: "history" with "version": 7 lists the next page; "read" with "version" reads one.');
    // What a program reads follows the same page.
    expect(first.structured).toMatchObject({ path, next: 7, older: 6 });
    expect((first.structured.versions as Array<{ version: number }>).map((v) => v.version)).toEqual(Array.from({ length: 50 }, (_, i) => 56 - i));

    const second = await olive.files({ action: "history", project: paged, path, version: first.structured.next });
    expect(second.text.split("\n")[0]).toBe(`${path}, versions older than v7, newest first:`);
    expect(second.text).toMatch(new RegExp(`\nv1 write 12 B by ${olive.email.replace(/[.+]/g, "\\$&")} at [^\n]+$`));
    expect(second.structured.versions).toHaveLength(6);
    expect(second.structured.next).toBeUndefined();
    expect((await olive.files({ action: "history", project: paged, path, version: 1 })).text).toBe(`${path} has no versions older than v1.`);
  });
});

describe("a file and a folder of one name (L1)", () => {
  it("refuses a file where a folder is, or below a file, on write, restore and createFolder, and says a folder is one", async () => {
    await olive.files({ action: "write", project, path: "notes", content: "a file" });
    const below = await mallory.files({ action: "write", project, path: "notes/today.md", content: "x" });
    expect(below).toMatchObject({ isError: true, text: "Cannot put a file at notes/today.md: notes is a file, and a file cannot hold others. Delete or rename notes first, or choose another path." });
    expect((await olive.files({ action: "append", project, path: "notes/a/b.md", content: "x" })).text).toMatch(/^Cannot put a file at notes\/a\/b\.md: notes is a file/);

    await olive.files({ action: "write", project, path: "docs/x/y.md", content: "y" });
    expect((await olive.files({ action: "write", project, path: "docs/x", content: "x" })).text).toBe("Cannot put a file at docs/x: it is a folder (it holds docs/x/y.md). Choose another name, or delete the files below it first.");
    // Read, delete and history say so too, as the bridge does (review 413: "No file docs/x").
    for (const action of ["read", "delete", "history"]) expect((await olive.files({ action, project, path: "docs/x" })).text, action).toBe("docs/x: is a folder, not a file; list docs/x/* for the files in it.");

    await olive.files({ action: "write", project, path: "plan", content: "v1" });
    await olive.files({ action: "delete", project, path: "plan" });
    await olive.files({ action: "write", project, path: "plan/step.md", content: "s" });
    expect((await olive.files({ action: "restore", project, path: "plan", version: 1 })).text).toMatch(/^Cannot put a file at plan: it is a folder/);

    // Nor two names a folding file system reads as one (review 47: `Plan.md` beside `plan.md` stopped every pull).
    await olive.files({ action: "write", project, path: "docs/Plan.md", content: "p" });
    expect((await mallory.files({ action: "write", project, path: "docs/plan.md", content: "x" })).text).toBe("Cannot put a file at docs/plan.md: docs/Plan.md is there, and macOS and Windows read both names as one file, or they print alike (they differ only in case, Unicode form, a trailing dot or a character that shows as nothing: a pull could not write both). Write to docs/Plan.md, or choose another name.");
    // A name Windows cuts to another is no name a workspace makes at all (review 109).
    expect((await olive.files({ action: "write", project, path: "docs/PLAN.md.", content: "x" })).text).toMatch(/^Path "docs\/PLAN\.md\." has a name ending in a dot or a space, which Windows drops/);
    expect((await olive.files({ action: "delete", project, path: "docs/Plan.md" })).isError).toBe(false);
    expect((await olive.files({ action: "write", project, path: "docs/plan.md", content: "x" })).isError).toBe(false);
    // Nor a file and a folder of names it reads as one (review 73: docs/PRD.md beside a folder docs/prd.md/).
    expect((await mallory.files({ action: "write", project, path: "docs/PLAN.md/index.md", content: "x" })).text).toMatch(/^Cannot put a file at docs\/PLAN\.md\/index\.md: docs\/plan\.md is a file, and macOS and Windows read both names as one/);
    expect((await olive.files({ action: "write", project, path: "specs/prd.md/index.md", content: "x" })).isError).toBe(false);
    expect((await mallory.files({ action: "write", project, path: "specs/PRD.md", content: "x" })).text).toMatch(/^Cannot put a file at specs\/PRD\.md: specs\/prd\.md\/index\.md is there, in a folder macOS and Windows read/);
    expect((await olive.files({ action: "delete", project, path: "specs/prd.md/index.md" })).isError).toBe(false);
    const afterDelete = await olive.files({ action: "write", project, path: "specs/PRD.md", content: "x" });
    expect(afterDelete.isError, afterDelete.text).toBe(false);

    const caller = olive.store().caller;
    const made = await runInDurableObject(projectStub(olive.id, project), (instance: WorkspaceProject) => [
      instance.createFolder(caller, "notes/run-1", [{ path: "a.md", data: new Uint8Array(1) }], new Date().toISOString()),
      instance.createFolder(caller, "run-2", [{ path: "a", data: new Uint8Array(1) }, { path: "a/b", data: new Uint8Array(1) }], new Date().toISOString()),
    ]);
    expect(made[0]).toMatchObject({ ok: false, kind: "invalid", error: expect.stringMatching(/^Cannot put a file at notes\/run-1: notes is a file/) });
    expect(made[1]).toMatchObject({ ok: false, kind: "invalid", error: "Cannot put both run-2/a and run-2/a/b: a file cannot hold others. Choose another name for one of them." });
    const listed = (await olive.files({ action: "list", project })).structured.files as Array<{ path: string }>;
    const paths = new Set(listed.map((f) => f.path));
    for (const path of paths) for (let i = path.indexOf("/"); i > 0; i = path.indexOf("/", i + 1)) expect(paths.has(path.slice(0, i)), path).toBe(false);
  });
});

describe("a folder of a name a folding file system reads as another's (review 333)", () => {
  it("refuses a new file below it on write, append, restore and createFolder, naming the folder there", async () => {
    const twins = (path: string, there: string, inTheirs: string) =>
      `Cannot put a file at ${path}: ${there} is there, and macOS and Windows read both names as one folder, or they print alike (they differ only in case, Unicode form, a trailing dot or a character that shows as nothing: a pull could not write both). Write to ${inTheirs}, or choose another name.`;
    await olive.files({ action: "write", project, path: "Minutes/a.md", content: "a" });
    expect((await mallory.files({ action: "write", project, path: "minutes/x.md", content: "x" })).text).toBe(twins("minutes/x.md", "Minutes", "Minutes/x.md"));
    expect((await olive.files({ action: "append", project, path: "MINUTES/x.md", content: "x" })).text).toBe(twins("MINUTES/x.md", "Minutes", "Minutes/x.md"));
    // A name that prints as it, spelled out.
    expect((await olive.files({ action: "write", project, path: "Min\u200butes/x.md", content: "x" })).text).toMatch(/^Cannot put a file at "Min\\u200butes\/x\.md": Minutes is there, and macOS and Windows read both names as one folder/);
    // A folder deeper down, and the folder as spelled still takes new files.
    await olive.files({ action: "write", project, path: "Minutes/Week/a.md", content: "a" });
    expect((await olive.files({ action: "write", project, path: "Minutes/week/b.md", content: "b" })).text).toBe(twins("Minutes/week/b.md", "Minutes/Week", "Minutes/Week/b.md"));
    expect((await olive.files({ action: "write", project, path: "Minutes/Week/b.md", content: "b" })).isError).toBe(false);
    // A deleted file under a folder renamed since comes back into it only by the folder's name now.
    await olive.files({ action: "write", project, path: "Drafts/a.md", content: "a" });
    await olive.files({ action: "delete", project, path: "Drafts/a.md" });
    expect((await olive.files({ action: "write", project, path: "drafts/b.md", content: "b" })).isError).toBe(false);
    expect((await olive.files({ action: "restore", project, path: "Drafts/a.md", version: 1 })).text).toBe(twins("Drafts/a.md", "drafts", "drafts/a.md"));
    const made = await runInDurableObject(projectStub(olive.id, project), (instance: WorkspaceProject) =>
      instance.createFolder(olive.store().caller, "minutes/run-1", [{ path: "a.md", data: new Uint8Array(1) }], new Date().toISOString()),
    );
    expect(made).toMatchObject({ ok: false, kind: "invalid", error: twins("minutes/run-1", "Minutes", "Minutes/run-1") });
    const listed = (await olive.files({ action: "list", project })).structured.files as Array<{ path: string }>;
    expect(listed.map((f) => f.path).filter((path) => /^(minutes|drafts)\//i.test(path))).toEqual(["Minutes/Week/a.md", "Minutes/Week/b.md", "Minutes/a.md", "drafts/b.md"]);
  });
});

describe("a name in another Unicode form (review 300-2)", () => {
  it("finds the file by its stored name for every change and read, keeps case twins refused, and refuses a name two stored forms share", async () => {
    // A project of its own: the history cap above was lowered for the other.
    const project = unique("unicode");
    expect((await olive.project({ action: "create", name: project })).isError).toBe(false);
    await shareAccepted(olive, project, mallory, "write");
    // macOS writes names decomposed (a push, or a model that writes them so); a model asks for them composed.
    const nfd = "uni/re\u0301sume\u0301/cafe\u0301.md";
    const nfc = "uni/r\u00e9sum\u00e9/caf\u00e9.md";
    expect((await olive.files({ action: "write", project, path: nfd, content: "the user's\n" })).isError).toBe(false);
    const read = await mallory.files({ action: "read", project, path: nfc });
    expect(read.isError, read.text).toBe(false);
    expect(read.text).toContain("the user's");
    for (const change of [
      { action: "write", content: "the model's\n", if_version: 1 },
      { action: "append", content: "more\n" },
      { action: "edit", old: "more", content: "edited" },
      { action: "restore", version: 1 },
    ]) {
      const out = await mallory.files({ project, path: nfc, ...change });
      expect(out.isError, `${change.action}: ${out.text}`).toBe(false);
    }
    expect((await mallory.files({ action: "history", project, path: nfc })).structured.versions).toHaveLength(5);
    // A new file in the folder as the model spells it goes into the folder that is there.
    expect((await mallory.files({ action: "write", project, path: "uni/r\u00e9sum\u00e9/new.md", content: "x\n" })).isError).toBe(false);
    const listed = (await olive.files({ action: "list", project, path: "uni/**" })).structured.files as Array<{ path: string }>;
    expect(listed.map((f) => f.path)).toEqual([nfd, "uni/re\u0301sume\u0301/new.md"]);
    // A case twin is still a new name, refused beside the stored one.
    expect((await mallory.files({ action: "write", project, path: "uni/r\u00e9sum\u00e9/CAF\u00c9.md", content: "x\n" })).text).toContain(`Cannot put a file at uni/re\u0301sume\u0301/CAF\u00c9.md: ${nfd} is there`);
    // Deleted by the other form's name; its history and a restore find it by its stored name still.
    expect((await mallory.files({ action: "delete", project, path: nfc })).isError).toBe(false);
    expect((await olive.files({ action: "read", project, path: nfc })).text).toMatch(/^uni\/re\u0301sume\u0301\/cafe\u0301\.md was deleted \(version 6\)/);
    expect((await mallory.files({ action: "history", project, path: nfc })).structured.versions).toHaveLength(6);
    expect((await mallory.files({ action: "read", project, path: nfc, version: 2 })).text).toContain("the model's");
    expect((await mallory.files({ action: "restore", project, path: nfc, version: 2 })).isError).toBe(false);
    expect((await olive.files({ action: "read", project, path: nfd })).text).toContain("the model's");

    // Two stored names of one text (made before names were found so, or beside each other by another door): refused,
    // each spelled out, as they print alike.
    await runInDurableObject(projectStub(olive.id, project), (instance: WorkspaceProject) => {
      const at = new Date().toISOString();
      for (const path of ["uni/\u1ec7.md", "uni/e\u0323\u0302.md"]) instance.files.transaction(() => instance.files.commit(path, new TextEncoder().encode(`${path}\n`), "write", { label: "olive" }, at));
    });
    const refusal = 'Path "uni/\\u00ea\\u0323.md" names no file as spelled, and "uni/e\\u0323\\u0302.md" and "uni/\\u1ec7.md" as read in another Unicode form: they print alike, so give one of them exactly as spelled here.';
    for (const action of ["read", "history", "delete"]) expect((await mallory.files({ action, project, path: "uni/\u00ea\u0323.md" })).text, action).toBe(refusal);
    expect((await mallory.files({ action: "write", project, path: "uni/\u00ea\u0323.md", content: "x" })).text).toBe(refusal);
    expect((await mallory.files({ action: "read", project, path: "uni/\u1ec7.md" })).text).toContain("uni/\u1ec7.md\n");
  });

  it("keeps one history for a deleted file whose name a new file gives in another form (review 316-1)", async () => {
    const project = unique("unicode-deleted");
    expect((await olive.project({ action: "create", name: project })).isError).toBe(false);
    await shareAccepted(olive, project, mallory, "write");
    const nfc = "docs/caf\u00e9.md";
    const nfd = "docs/cafe\u0301.md";
    expect((await olive.files({ action: "write", project, path: nfc, content: "# owner v1\n" })).isError).toBe(false);
    expect((await olive.files({ action: "append", project, path: nfc, content: "owner v2\n" })).isError).toBe(false);
    // A member deletes it by the other form's name, then makes a file of that name: it is the owner's file's next version.
    expect((await mallory.files({ action: "delete", project, path: nfd })).isError).toBe(false);
    expect((await mallory.files({ action: "write", project, path: nfd, content: "# member fresh\n" })).text).toContain("now version 4");
    expect(((await olive.files({ action: "list", project, path: "docs/**" })).structured.files as Array<{ path: string }>).map((f) => f.path)).toEqual([nfc]);
    for (const path of [nfc, nfd]) {
      const versions = (await olive.files({ action: "history", project, path })).structured.versions as Array<{ version: number; op: string; author: string }>;
      const who = (author: string) => (author === olive.email ? "olive" : author === mallory.email ? "mallory" : author);
      expect(versions.map((v) => `${v.version} ${v.op} ${who(v.author)}`), path).toEqual(["4 write mallory", "3 delete mallory", "2 append olive", "1 write olive"]);
      expect((await olive.files({ action: "read", project, path, version: 2 })).text, path).toContain("owner v2");
    }
    // Restore of version 2 by either name brings it back, deleted again between.
    expect((await olive.files({ action: "restore", project, path: nfc, version: 2 })).isError).toBe(false);
    expect((await olive.files({ action: "read", project, path: nfd })).text).toContain("owner v2");
    expect((await mallory.files({ action: "delete", project, path: nfd })).isError).toBe(false);
    expect((await olive.files({ action: "restore", project, path: nfd, version: 2 })).text).toContain("to version 2's content: now version 7");
    expect((await olive.files({ action: "read", project, path: nfc })).text).toContain("owner v2");
  });

  it("refuses a new name that differs from a file's only by a character that shows as nothing, and shows such names written out (review 316-5)", async () => {
    const project = unique("unicode-format");
    expect((await olive.project({ action: "create", name: project })).isError).toBe(false);
    await shareAccepted(olive, project, mallory, "write");
    expect((await olive.files({ action: "write", project, path: "docs/prd.md", content: "# PRD\n" })).isError).toBe(false);
    // A zero-width space, a soft hyphen, a word joiner, a bidi mark: each a twin that prints as prd.md.
    for (const c of ["\u200b", "\u00ad", "\u2060", "\u200e"]) {
      const out = await mallory.files({ action: "write", project, path: `docs/pr${c}d.md`, content: "# PRD (approved)\n" });
      expect(out.isError, JSON.stringify(c)).toBe(true);
      if (c !== "\u200e") expect(out.text).toBe(`Cannot put a file at "docs/pr\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}d.md": docs/prd.md is there, and macOS and Windows read both names as one file, or they print alike (they differ only in case, Unicode form, a trailing dot or a character that shows as nothing: a pull could not write both). Write to docs/prd.md, or choose another name.`);
    }
    // Not refused where nothing reads as it (a Persian word's zero-width non-joiner), and listed written out.
    const persian = "docs/\u0645\u06cc\u200c\u062e\u0648\u0627\u0645.md";
    expect((await mallory.files({ action: "write", project, path: persian, content: "x\n" })).isError).toBe(false);
    expect((await mallory.files({ action: "write", project, path: "docs/\u200bnotes.md", content: "x\n" })).isError).toBe(false);
    const listed = (await olive.files({ action: "list", project, path: "docs/**" })).text;
    expect(listed).toContain('\n"docs/\\u200bnotes.md" v1 2 B');
    expect(listed).toContain(`\n${persian} v1 2 B`);
  });

  // Review 321: a zero-width non-joiner between Persian letters is kept as written, so the twin without it printed alike.
  it("spells out both names where a file's twin differs by a join a script writes", async () => {
    const project = unique("unicode-join");
    expect((await olive.project({ action: "create", name: project })).isError).toBe(false);
    expect((await olive.files({ action: "write", project, path: "notes/\u06cc\u0627\u062f\u062f\u0627\u0634\u062a\u200c\u0647\u0627.md", content: "ok\n" })).isError).toBe(false);
    const out = await olive.files({ action: "write", project, path: "notes/\u06cc\u0627\u062f\u062f\u0627\u0634\u062a\u0647\u0627.md", content: "no joiner\n" });
    expect(out.isError).toBe(true);
    expect(out.text).toContain("Cannot put a file at notes/\\u06cc\\u0627\\u062f\\u062f\\u0627\\u0634\\u062a\\u0647\\u0627.md: notes/\\u06cc\\u0627\\u062f\\u062f\\u0627\\u0634\\u062a\\u200c\\u0647\\u0627.md is there");
  });
});

// Review 341: each 16-byte append to a 950 KB memlog stored 950 KB, so a member's one big append and junk locked the
// owner out of their project after 197 appends. A version that only adds at the end stores what it adds.
describe("a growing file's versions (review 341)", () => {
  const memlog = "docs/.memlog.md";
  /** Each version of `path` whose content is kept, and whether it reads back as the bytes its digest names. */
  const readBack = (owner: string, name: string, path: string) =>
    runInDurableObject(projectStub(owner, name), (instance: WorkspaceProject, state) =>
      state.storage.sql.exec<{ version: number; sha256: string }>("SELECT version, sha256 FROM versions WHERE path = ? AND data IS NOT NULL ORDER BY version", path).toArray()
        .map((r) => ({ version: r.version, exact: sha256(instance.files.content(path, r.version)) === r.sha256 })));

  it("keeps the owner's appends fitting after a member's big append to the memlog and junk up to their half", async () => {
    const name = unique("memlog-grows");
    await olive.project({ action: "create", name });
    await shareAccepted(olive, name, mallory, "write");
    // The cap, lowered so that a member may add 200 KiB: the review's 950 KB memlog and 100 MiB of junk in miniature.
    await runInDurableObject(projectStub(olive.id, name), (instance: WorkspaceProject, state) => void (instance.files.historyCap = 2 * (historyBytes(state) + 200 * 1024)));
    expect((await mallory.files({ action: "append", project: name, path: memlog, content: `${kib("m", 40)}\n` })).isError).toBe(false);
    let refused: string | undefined;
    for (let i = 0; !refused; i++) {
      const out = await mallory.files({ action: "write", project: name, path: `junk/${i}.md`, content: kib("j", 20) });
      if (out.isError) refused = out.text;
    }
    expect(refused).toMatch(/this change does not fit\. Its owner \(.+\) can purge/);
    for (let i = 0; i < 40; i++) {
      const out = await olive.files({ action: "append", project: name, path: memlog, content: `- note ${i}\n` });
      expect(out.isError, out.text).toBe(false);
    }
    const versions = await readBack(olive.id, name, memlog);
    expect(versions.length).toBe(41);
    expect(versions.filter((v) => !v.exact)).toEqual([]);
    expect((await olive.files({ action: "read", project: name, path: memlog })).text).toContain(`${kib("m", 40)}\n- note 0\n`);
  });

  it("reads every version of an appended file back byte-exact across a chain break, after a restore, a purge undone or done, and pruning", async () => {
    const name = unique("memlog-chain");
    await olive.project({ action: "create", name });
    const stub = projectStub(olive.id, name);
    await runInDurableObject(stub, (instance: WorkspaceProject) => void (instance.files.chainCap = 3));
    const texts = [`# Memlog\n${kib("a", 4)}\n`];
    await olive.files({ action: "write", project: name, path: memlog, content: texts[0]! });
    for (let i = 1; i < 9; i++) {
      expect((await olive.files({ action: "append", project: name, path: memlog, content: `- entry ${i}\n` })).isError).toBe(false);
      texts.push(`${texts.at(-1)!}- entry ${i}\n`);
    }
    const exact = async () => {
      const versions = await readBack(olive.id, name, memlog);
      expect(versions.filter((v) => !v.exact)).toEqual([]);
      return versions.map((v) => v.version);
    };
    expect(await exact()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // Stored as what they add, a whole one every third: the chain breaks.
    const bases = await runInDurableObject(stub, (_: WorkspaceProject, state) => state.storage.sql.exec<{ base: number | null }>("SELECT base FROM versions WHERE path = ? ORDER BY version", memlog).toArray().map((r) => r.base));
    expect(bases).toEqual([null, 1, 2, null, 4, 5, null, 7, 8]);
    for (const v of [2, 5, 9]) expect((await olive.files({ action: "read", project: name, path: memlog, version: v })).text).toContain(texts[v - 1]!);
    expect((await olive.files({ action: "restore", project: name, path: memlog, version: 5 })).isError).toBe(false);
    texts.push(texts[4]!);
    expect((await olive.files({ action: "read", project: name, path: memlog })).text).toContain(texts[4]!);
    expect((await olive.files({ action: "append", project: name, path: memlog, content: "- after the restore\n" })).isError).toBe(false);
    texts.push(`${texts[4]!}- after the restore\n`);
    expect(await exact()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);

    // A purge undone changes nothing; one done drops the earlier versions and leaves the head whole.
    expect((await olive.files({ action: "purge", project: name, path: memlog })).isError).toBe(false);
    expect((await olive.files({ action: "read", project: name, path: memlog })).text).toContain(texts[10]!);
    expect((await olive.files({ action: "unpurge", project: name, path: memlog })).isError).toBe(false);
    expect(await exact()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    for (const v of [3, 8]) expect((await olive.files({ action: "read", project: name, path: memlog, version: v })).text).toContain(texts[v - 1]!);

    // Pruning drops the oldest first, each moving what it stores into the version built on it.
    await runInDurableObject(stub, (instance: WorkspaceProject, state) => {
      instance.files.retentionMs = 0;
      instance.files.historyCap = historyBytes(state) - 3 * 1024;
    });
    expect((await olive.files({ action: "append", project: name, path: memlog, content: "- pruned\n" })).isError).toBe(false);
    texts.push(`${texts[10]!}- pruned\n`);
    const left = await exact();
    expect(left[0]).toBeGreaterThan(1);
    expect(left.at(-1)).toBe(12);
    for (const v of left) expect((await olive.files({ action: "read", project: name, path: memlog, version: v })).text).toContain(texts[v - 1]!);

    await runInDurableObject(stub, (instance: WorkspaceProject) => void (instance.files.historyCap = Number.MAX_SAFE_INTEGER));
    expect((await olive.files({ action: "append", project: name, path: memlog, content: "- last\n" })).isError).toBe(false);
    texts.push(`${texts[11]!}- last\n`);
    expect((await olive.files({ action: "purge", project: name, path: memlog })).isError).toBe(false);
    await pastUndo(olive.id, name);
    expect(await exact()).toEqual([13]);
    expect((await olive.files({ action: "read", project: name, path: memlog })).text).toContain(texts[12]!);
    const counted = await runInDurableObject(stub, (instance: WorkspaceProject, state) => {
      const was = historyBytes(state);
      instance.files.recount();
      return [was, historyBytes(state)];
    });
    expect(counted[0]).toBe(counted[1]);
  });

  // Review 471: a write's current bytes and an append's before are kept in the object's memory, not rebuilt from the
  // chain; a version number that comes back holding other content, or a change rolled back, is never served from there.
  it("reads and appends to a file's own bytes when its version number comes back holding other content", async () => {
    const name = unique("memlog-again");
    await olive.project({ action: "create", name });
    await olive.files({ action: "write", project: name, path: memlog, content: "# Old\n" });
    await olive.files({ action: "append", project: name, path: memlog, content: "- old\n" });
    // Deleted past its undo and made again, the project numbers its versions from 1 anew.
    await olive.project({ action: "delete", name, confirm: name });
    await pastUndo(olive.id, name);
    expect((await olive.project({ action: "create", name })).isError).toBe(false);
    await olive.files({ action: "write", project: name, path: memlog, content: "# New\n" });
    await olive.files({ action: "append", project: name, path: memlog, content: "- new\n" });
    expect((await olive.files({ action: "read", project: name, path: memlog })).text).toMatch(/, version 2,[^]*\n# New\n- new\n$/);
    // Version 2 rewritten behind the object's memory (as storage brought back from a backup would hold it): its digest
    // is not the one kept, so its own bytes are read.
    await runInDurableObject(projectStub(olive.id, name), (_: WorkspaceProject, state) => {
      const other = new TextEncoder().encode("# Two\n- two\n");
      state.storage.sql.exec("UPDATE versions SET data = ?, sha256 = ?, base = NULL, links = NULL WHERE path = ? AND version = 2", other.slice().buffer, sha256(other), memlog);
      state.storage.sql.exec("UPDATE files SET sha256 = ? WHERE path = ?", sha256(other), memlog);
    });
    expect((await olive.files({ action: "read", project: name, path: memlog })).text).toMatch(/\n# Two\n- two\n$/);
    expect((await olive.files({ action: "append", project: name, path: memlog, content: "- three\n" })).isError).toBe(false);
    expect((await olive.files({ action: "read", project: name, path: memlog })).text).toMatch(/, version 3,[^]*\n# Two\n- two\n- three\n$/);
  });

  it("reads and appends to a file as it is after a change to it was rolled back", async () => {
    const name = unique("memlog-rolled");
    await olive.project({ action: "create", name });
    await olive.files({ action: "write", project: name, path: memlog, content: "# Kept\n" });
    const refused = await runInDurableObject(projectStub(olive.id, name), (instance: WorkspaceProject) => {
      try {
        instance.files.transaction(() => {
          instance.files.commit(memlog, new TextEncoder().encode("# Rolled back\n"), "write", { label: "olive" }, new Date().toISOString());
          throw new Error("refused after the commit");
        });
      } catch (error) {
        return (error as Error).message;
      }
    });
    expect(refused).toBe("refused after the commit");
    expect((await olive.files({ action: "read", project: name, path: memlog })).text).toMatch(/, version 1,[^]*\n# Kept\n$/);
    expect((await olive.files({ action: "append", project: name, path: memlog, content: "- more\n" })).isError).toBe(false);
    expect((await olive.files({ action: "read", project: name, path: memlog })).text).toMatch(/, version 2,[^]*\n# Kept\n- more\n$/);
  });

  it("prunes an appended file's chain a version at a time, and lets in no change the history cannot hold (review 344)", async () => {
    const name = unique("chain-prune");
    await olive.project({ action: "create", name });
    const stub = projectStub(olive.id, name);
    await olive.files({ action: "write", project: name, path: memlog, content: `# A\n${"x".repeat(200)}\n` });
    for (let i = 0; i < 40; i++) await olive.files({ action: "append", project: name, path: memlog, content: `- entry ${i} ${"z".repeat(50)}\n` });
    // Just past the cap with a 2,000-byte file: two rows' worth to free, not the chain's content (39 of 41 versions lost it).
    await runInDurableObject(stub, (instance: WorkspaceProject, state) => {
      instance.files.retentionMs = 0;
      instance.files.historyCap = historyBytes(state) + 2000 - 424;
    });
    expect((await olive.files({ action: "write", project: name, path: "other.md", content: "y".repeat(2000) })).isError).toBe(false);
    const kept = await readBack(olive.id, name, memlog);
    expect(kept.length).toBeGreaterThan(35);
    expect(kept.filter((v) => !v.exact)).toEqual([]);
    // A chain's content moves into its head when its versions go: counted as freed, a write took the history 29% over.
    const big = unique("chain-room");
    await olive.project({ action: "create", name: big });
    const bigStub = projectStub(olive.id, big);
    await olive.files({ action: "write", project: big, path: memlog, content: "# A\n" });
    for (let i = 0; i < 10; i++) await olive.files({ action: "append", project: big, path: memlog, content: `- entry ${i} ${"z".repeat(20_000)}\n` });
    const cap = await runInDurableObject(bigStub, (instance: WorkspaceProject, state) => {
      instance.files.retentionMs = 0;
      return (instance.files.historyCap = historyBytes(state) + 600);
    });
    const refused = await olive.files({ action: "write", project: big, path: "other.md", content: "y".repeat(100_000) });
    expect(refused.text).toMatch(/this change does not fit/);
    expect(await runInDurableObject(bigStub, (_: WorkspaceProject, state) => historyBytes(state))).toBeLessThanOrEqual(cap);
  });

  it("moves a chain's content once into the version kept after the versions it drops, pruned or purged (review 356)", async () => {
    const name = unique("chain-once");
    await olive.project({ action: "create", name });
    const stub = projectStub(olive.id, name);
    const texts = [`# Log\n${kib("a", 64)}\n`];
    await olive.files({ action: "write", project: name, path: memlog, content: texts[0]! });
    for (let i = 0; i < 60; i++) {
      await olive.files({ action: "append", project: name, path: memlog, content: `- entry ${i}\n` });
      texts.push(`${texts.at(-1)!}- entry ${i}\n`);
    }
    // Every content written into a version that stays, counted by a trigger: one at a time, each version dropped
    // moved the 64 KiB base on into the next (the review's 2-byte write rewrote 77 MB).
    const rewrites = () => runInDurableObject(stub, (_: WorkspaceProject, state) => {
      const rows = state.storage.sql.exec<{ id: number; bytes: number }>("SELECT id, bytes FROM test_rewrites").toArray();
      state.storage.sql.exec("DELETE FROM test_rewrites");
      return rows;
    });
    await runInDurableObject(stub, (instance: WorkspaceProject, state) => {
      state.storage.sql.exec(`CREATE TABLE test_rewrites (id INTEGER, bytes INTEGER);
        CREATE TRIGGER test_rewrites AFTER UPDATE OF data ON versions WHEN NEW.data IS NOT NULL BEGIN INSERT INTO test_rewrites VALUES (NEW.rowid, length(NEW.data)); END;`);
      instance.files.retentionMs = 0;
      instance.files.historyCap = historyBytes(state) - 20 * 1024;
    });
    expect((await olive.files({ action: "write", project: name, path: "small.md", content: "s\n" })).isError).toBe(false);
    const pruned = await rewrites();
    const kept = await readBack(olive.id, name, memlog);
    expect(kept[0]!.version).toBeGreaterThan(20);
    expect(kept.filter((v) => !v.exact)).toEqual([]);
    expect(pruned.length).toBe(1);
    expect(pruned[0]!.bytes).toBe(new TextEncoder().encode(texts[kept[0]!.version - 1]!).byteLength);
    for (const v of [kept[0]!.version, kept[1]!.version, 61]) expect((await olive.files({ action: "read", project: name, path: memlog, version: v })).text).toContain(texts[v - 1]!.slice(-200));
    // So does a purge when its content goes: the head takes it once.
    expect((await olive.files({ action: "purge", project: name, path: memlog })).isError).toBe(false);
    await pastUndo(olive.id, name);
    expect((await rewrites()).length).toBe(1);
    expect((await readBack(olive.id, name, memlog)).map((v) => [v.version, v.exact])).toEqual([[61, true]]);
    const counted = await runInDurableObject(stub, (instance: WorkspaceProject, state) => {
      state.storage.sql.exec("DROP TRIGGER test_rewrites");
      const was = historyBytes(state);
      instance.files.recount();
      return [was, historyBytes(state)];
    });
    expect(counted[0]).toBe(counted[1]);
  });
});

describe("history with a glob (review 368)", () => {
  it("lists each matching file's head, newest change first, with the lines others changed since the caller's last version", async () => {
    const name = unique("since");
    expect((await olive.project({ action: "create", name })).isError).toBe(false);
    await shareAccepted(olive, name, mallory, "write");
    expect((await olive.files({ action: "write", project: name, path: "docs/prd.md", content: "# PRD\n- FR-1\n- NFR-1\n" })).isError).toBe(false);
    expect((await olive.files({ action: "write", project: name, path: "docs/brief.md", content: "# Brief\n" })).isError).toBe(false);
    expect((await mallory.files({ action: "edit", project: name, path: "docs/prd.md", old: "- NFR-1\n", content: "- FR-2\n" })).isError).toBe(false);
    expect((await mallory.files({ action: "write", project: name, path: "notes.md", content: "mine\n" })).isError).toBe(false);
    const out = await olive.files({ action: "history", project: name, path: "docs/**" });
    expect(out.isError).toBe(false);
    const lines = out.text.split("\n");
    expect(lines[0]).toBe('2 files match "docs/**", the newest change first:');
    expect(lines[1]).toMatch(new RegExp(`^docs/prd\\.md v2 by ${mallory.email.replace(/\./g, "\\.")} at [^;]+; \\+1 −1 lines since your v1$`));
    expect(lines[2]).toMatch(new RegExp(`^docs/brief\\.md v1 by ${olive.email.replace(/\./g, "\\.")} at [^;]+$`));
    expect(lines[3]).toBe(`"history" with one file's path lists its versions; where views are shown, ${TOOL.bmadDoc} (the views toolset) diffs any two.`);
    expect(out.structured.files).toEqual([
      expect.objectContaining({ path: "docs/prd.md", version: 2, author: mallory.email, changed_since: { yours: 1, versions: [2], count: 1, by: [mallory.email], added: 1, removed: 1, allOthers: true } }),
      expect.not.objectContaining({ changed_since: expect.anything() }),
    ]);
    // The writer's view: their own head needs no note; the owner's file they never wrote has no "yours".
    expect((await mallory.files({ action: "history", project: name, path: "**" })).text).not.toContain("since your");
    expect((await olive.files({ action: "history", project: name, path: "nothing/**" })).text).toBe(`No file of project "${name}" matches "nothing/**". bmad-files "list" with "**" lists them all.`);
  });

  it("counts lines for one answer's worth of bytes: past it, files are named without counts, and a read of one still counts (review 391)", async () => {
    const name = unique("budget");
    expect((await olive.project({ action: "create", name })).isError).toBe(false);
    await shareAccepted(olive, name, mallory, "write");
    // Two files of 200 KB a side: both texts of the two together pass what one answer compares (800 KB > 512 KB).
    const big = (seed: string) => Array.from({ length: 20_000 }, (_, i) => `${seed} line ${i}`.padEnd(9, ".")).join("\n").slice(0, 200 * 1024);
    for (const path of ["docs/a.md", "docs/b.md"]) expect((await olive.files({ action: "write", project: name, path, content: big("olive") })).isError).toBe(false);
    for (const path of ["docs/a.md", "docs/b.md"]) expect((await mallory.files({ action: "write", project: name, path, content: big("mallory"), if_version: 1 })).isError).toBe(false);
    const out = await olive.files({ action: "history", project: name, path: "docs/**" });
    const lines = out.text.split("\n");
    // The newest first: b is counted, a is named without counts.
    expect(lines[1]).toMatch(/^docs\/b\.md v2 by .* lines since your v1$/);
    expect(lines[2]).toMatch(/^docs\/a\.md v2 by .*; changed by others since your v1$/);
    expect(out.structured.files[1].changed_since).toEqual({ yours: 1, versions: [2], count: 1, by: [mallory.email], allOthers: true });
    // Asked again, the same: b's count, kept from the first answer (review 418), still takes its bytes from this one's.
    expect((await olive.files({ action: "history", project: name, path: "docs/**" })).text).toBe(out.text);
    // A read of one file alone counts it.
    const alone = await olive.files({ action: "read", project: name, path: "docs/a.md" });
    expect(alone.structured.changed_since, alone.text.split("\n")[0]).toMatchObject({ added: expect.any(Number), removed: expect.any(Number) });
  });

  it("refuses a glob no project path takes for what it is, as history and list of that path do (review 390)", async () => {
    const name = unique("globpath");
    expect((await olive.project({ action: "create", name })).isError).toBe(false);
    expect((await olive.files({ action: "write", project: name, path: "docs/prd.md", content: "# PRD\n" })).isError).toBe(false);
    const refused: Record<string, RegExp> = {
      "../*": /^Path "\.\.\/\*" contains "\.\.", which leaves the project/,
      "/**": /^Path "\/\*\*" is absolute/,
      ".git/*": /^Path "\.git\/\*" is inside \.git\//,
      "a\u0000*": /^Path "a\\u0000\*" contains a control character/,
      "\u202e*": /^Path "\\u202e\*" contains a control character/i,
      // A pattern's own fix, not a file's (review 396).
      "docs/*/": /^Pattern "docs\/\*\/" ends in "\/": give "docs\/\*\/\*\*" for every file below what it matches\.$/,
    };
    for (const [glob, why] of Object.entries(refused)) {
      for (const action of ["history", "list"] as const) {
        const out = await olive.files({ action, project: name, path: glob });
        expect(out.isError, `${action} ${JSON.stringify(glob)}`).toBe(true);
        expect(out.text, `${action} ${JSON.stringify(glob)}`).toMatch(why);
        expect(out.text).not.toContain("\u202e");
      }
    }
  });
});
