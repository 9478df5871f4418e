// View 2, a document: rendered markdown (sanitised), its versions (a workspace's own, or on the bridge the copies it kept
// of what it replaced and the file's git commits),
// a diff of any two, and restore, confirmed in the page, then made by the host through bmad-files with if_version.
import { diffLines } from "diff";
import { showName } from "../core/lines.js";
import { othersBeyond, type ByOthers } from "../core/workspace/line-authors.js";
import { changedSinceNote, displacedNote, type ChangedSince } from "../core/workspace/changed-since.js";
import { earlierThan, type Displaced } from "../core/workspace/store.js";
import { NOT_UTF8_NOTE } from "../core/workspace/file-text.js";
import { lastText, resultText, type ToolResult, type ViewApp } from "./app.js";
import { errorBox, errorText, h, show, statusBadge, when } from "./dom.js";
import { bidiNote, frontmatterFields, renderMarkdown, splitFrontmatter, writeOutBidi } from "./markdown.js";

const CONTEXT = 3;
/** Frontmatter fields shown, and a comparison's lines: a hostile file's 70,000 made the view show nothing (review 317). */
const MAX_FIELDS = 200;
const MAX_DIFF_LINES = 2_000;

/** `at_local`, `updated_at_local`: the time as the answers show it (the bridge: its machine's clock; a workspace: its project's zone). */
interface Version { version: number; op: string; author?: string; at: string; at_local?: string; size?: number; restored_from?: number; pruned?: boolean; purged?: boolean }
interface Commit { commit: string; author: string; at: string; at_local?: string; subject: string }
interface DocData { project: string; path: string; version: number; current_version?: number; author?: string; size: number; updated_at: string; updated_at_local?: string; not_utf8?: true; access?: "read" | "write"; older?: number; next?: number | string; history: string; versions?: Version[]; kept?: Version[]; kept_more?: true; commits?: Commit[]; commit?: string; history_note?: string; others?: ByOthers; changed_since?: ChangedSince; displaced?: Displaced; restorable?: false; restore_note?: string; deleted?: true }
/** One row of the version list: `key` names it in the page, `args` reads it with bmad-doc (absent: its content is gone,
 *  nothing to compare or restore), `restore` brings it back. */
interface Entry { key: string; label: string; args?: Record<string, unknown>; restore?: () => Promise<ToolResult> }

/** The document a bmad-doc answer names, or why it is not shown: never "Loading…" left (review 317). `notice`: shown
 *  above it (why a change was not made, or what a restore's answer said). */
export function showDocument(app: ViewApp, root: HTMLElement, result: ToolResult, back?: () => void, notice?: HTMLElement): void {
  const backButton = () => (back ? h("button", { class: "back", click: back }, "← Map") : null);
  if (result.isError) return show(root, backButton(), errorBox(resultText(result)));
  try {
    renderDocument(app, root, result, back);
  } catch (e) {
    return show(root, backButton(), errorBox(`This document cannot be shown here: ${errorText(e)}. Read it with bmad-files.`));
  }
  if (notice) root.prepend(notice);
}

function renderDocument(app: ViewApp, root: HTMLElement, result: ToolResult, back?: () => void): void {
  const doc = result.structuredContent as unknown as DocData;
  const text = shownText(result);
  // Markdown is rendered; any other file (sprint-status.yaml, a CSV) is its text (review 215: a YAML comment read as
  // a heading, and its mapping as one paragraph).
  const markdown = /\.md$/i.test(doc.path);
  const { front, body } = markdown ? splitFrontmatter(text) : { front: "", body: text };
  // Shown as the body is, controls written out (review 133: a status of "\u202elanif" read "final"), and invisible
  // format characters too (review 281).
  const fields = frontmatterFields(front).map((f) => ({ key: showName(f.key), value: showName(f.value) }));
  const status = fields.find((f) => f.key === "status")?.value;
  const others = fields.filter((f) => f.key !== "status");
  const shownFields = others.slice(0, MAX_FIELDS);
  // Lines a collaborator wrote, named as the text answer and the map name them (review 181: the header named only the last author).
  const byOthers = doc.commit ? undefined : othersBeyond(doc.others, doc.author);
  const reload = async (notice?: (now: DocData) => HTMLElement) => {
    const now = await app.callTool("bmad-doc", { project: doc.project, path: doc.path });
    showDocument(app, root, now, back, now.isError ? undefined : notice?.(now.structuredContent as unknown as DocData));
  };
  const panel = h("section", { class: "panel" });
  const list = entries(app, doc);
  // The next page of older versions, added to the list shown (review 245: v1..v50 of 250 could not be reached).
  const more = async () => {
    const page = await app.callTool("bmad-doc", { project: doc.project, path: doc.path, before: doc.next });
    // Shown again since (a restore, another page): this answer is for a list no longer there (review 258).
    if (!panel.isConnected) return;
    const merged = page.isError ? { error: resultText(page) } : withOlder(doc, page.structuredContent);
    if ("error" in merged) return show(panel, errorBox(merged.error));
    showDocument(app, root, { ...result, structuredContent: merged as unknown as Record<string, unknown> }, back);
  };
  const versions = list.length > 1 || doc.next !== undefined
    ? versionList(app, doc, list, panel, reload, more)
    : h("p", { class: "note" }, doc.history === "versions" ? "No earlier versions." : `Current version only: ${doc.history_note ?? "this project keeps no versions here."}`);
  show(
    root,
    h("header", {},
      back ? h("button", { class: "back", click: back }, "← Map") : null,
      h("h1", {}, showName(doc.path)),
      h("p", { class: "meta" }, heading(doc, byOthers), status ? " · " : "", status ? statusBadge(status) : null),
      // What others changed since the user's own last version, as bmad-doc's text says it (review 379: a collaborator's
      // removed line went unsaid). As text: the names in it are collaborators'.
      doc.changed_since ? h("p", { class: "note changed-since" }, `This file was ${changedSinceNote(doc.changed_since)}.`) : null,
      // In its place, the user's own version another's change replaced unnamed, as bmad-doc's text says it (review 403).
      doc.displaced ? h("p", { class: "note displaced" }, displacedNote(showName(doc.path), doc.displaced)) : null,
      doc.not_utf8 ? h("p", { class: "note" }, `This file is ${NOT_UTF8_NOTE}.`) : null,
      doc.restore_note ? h("p", { class: "note" }, doc.restore_note) : null,
      shownFields.length ? h("dl", { class: "fields" }, shownFields.map((f) => [h("dt", {}, f.key), h("dd", {}, f.value)]).flat()) : null,
      others.length > MAX_FIELDS ? h("p", { class: "note" }, `${others.length - MAX_FIELDS} more frontmatter fields not shown: read the file with bmad-files to see them.`) : null,
    ),
    h("div", { class: "doc" }, markdown ? renderMarkdown(body) : plainText(body), h("aside", {}, h("h2", {}, doc.history === "git" ? "Versions (git)" : "Versions"), versions)),
    panel,
  );
}

/** `doc` with an older page's rows after its own, or why the page cannot be added: a page is checked as the host gave
 *  it (review 258: a page for another file was merged, and one without its rows stopped the view). A row shown
 *  already is not added again. */
function withOlder(doc: DocData, answer: unknown): DocData | { error: string } {
  if (typeof answer !== "object" || answer === null) return { error: "The older page came back without its data; reopen the document." };
  const page = answer as Partial<DocData>;
  if (page.project !== doc.project || page.path !== doc.path || page.history !== doc.history) return { error: "The older page answered for another file; reopen the document." };
  const rows = doc.history === "git" ? page.commits : page.versions;
  if (!Array.isArray(rows)) return { error: `The older page came back without its ${doc.history === "git" ? "commits" : "versions"}; reopen the document.` };
  const shown = new Set([...(doc.versions ?? []).map((v) => String(v.version)), ...(doc.commits ?? []).map((c) => c.commit)]);
  const key = (row: unknown) => (typeof row === "object" && row !== null ? (doc.history === "git" ? (row as Commit).commit : (row as Version).version) : undefined);
  if (!rows.every((row) => typeof key(row) === (doc.history === "git" ? "string" : "number"))) return { error: "The older page came back with rows that name no version; reopen the document." };
  const added = rows.filter((row) => !shown.has(String(key(row))));
  return doc.history === "git"
    ? { ...doc, commits: [...(doc.commits ?? []), ...(added as Commit[])], older: page.older, next: page.next }
    : { ...doc, versions: [...(doc.versions ?? []), ...(added as Version[])], older: page.older, next: page.next };
}

/** Which version is shown, and whose: a workspace's version number and author; a project folder's file (which has no
 *  author, and whose version number only names its content) its size and time (review 245: "· undefined ·"). */
function heading(doc: DocData, byOthers: string | undefined): string {
  if (doc.commit) return `at commit ${doc.commit.slice(0, 12)}`;
  if (doc.deleted) return "deleted: not in the project now; restore a kept copy to bring it back";
  const which = doc.history === "versions" ? `version ${doc.version}${earlierThan(doc.version, currentVersion(doc))}` : `${doc.size} bytes`;
  return [which, doc.author, when(doc.updated_at, doc.updated_at_local), byOthers].filter(Boolean).join(" · ");
}

/** A document's text as the view shows and compares it: a version from git keeps its byte order mark (its bytes, for a
 *  restore), which the file now is served without, and which would keep a first line's `#` from reading as a heading. */
const shownText = (result: ToolResult) => lastText(result).replace(/^\uFEFF/, "");

/** A file that is not markdown, as its text, its bidirectional controls written out as a rendered document's are. */
function plainText(text: string): HTMLElement {
  const out = writeOutBidi(text);
  // In the markdown's frame, to be laid out as its code blocks are.
  return h("div", { class: "markdown" }, out.controls ? bidiNote("This document holds", out.controls) : null, h("pre", { class: "text" }, out.text));
}

/** The file's version now: the one a change names (if_version), whichever version is shown. */
const currentVersion = (doc: DocData) => doc.current_version ?? doc.version;

/** The versions to pick from: a workspace's own (restore: bmad-files restore), or the file now, the copies the bridge
 *  kept (restore: bmad-files restore, one path with the workspace's) and its git commits (restore: the commit's text
 *  written as the file, bmad-files write). All with if_version: the file's version now, whichever is shown (review 215: at an earlier version, every Restore was refused as a conflict). */
function entries(app: ViewApp, doc: DocData): Entry[] {
  const current = currentVersion(doc);
  const files = (args: Record<string, unknown>) => app.callTool("bmad-files", { project: doc.project, path: doc.path, if_version: current, ...args });
  // Read access restores nothing (review 245: its Restore failed on click); the server refuses it still.
  const writable = doc.access !== "read";
  const restore = (version: number) => (writable && version !== current ? { restore: () => files({ action: "restore", version }) } : {});
  if (doc.history === "versions") {
    // As bmad-files "history" labels them: numbers missing between two rows were dropped whole, and a pruned or purged
    // version has no content to compare or restore (review 245: they looked like any other).
    let above: number | undefined;
    return (doc.versions ?? []).flatMap((v): Entry[] => {
      const gap = above !== undefined && above - v.version > 1 ? [{ key: `gone-${v.version}`, label: `${above - v.version > 2 ? `v${v.version + 1} to v${above - 1}` : `v${v.version + 1}`}: no longer kept (dropped whole under the history cap)` }] : [];
      above = v.version;
      const gone = v.purged ? " (purged: unpurge brings it back for 7 days)" : v.pruned ? " (content pruned)" : "";
      return [...gap, {
        key: String(v.version),
        label: [`v${v.version} ${v.op}${v.restored_from ? ` of v${v.restored_from}` : ""}`, v.author, `${when(v.at, v.at_local)}${gone}`].filter(Boolean).join(" · "),
        ...(v.pruned ? {} : { args: { version: v.version } }),
        ...(v.pruned || v.op === "delete" ? {} : restore(v.version)),
      }];
    });
  }
  // A deleted file has no text now to compare: its kept copies are what there is (review 271).
  const now: Entry = doc.deleted ? { key: "current", label: "the file now: deleted" } : { key: "current", label: "the file now", args: {} };
  // A week of what the bridge replaced, newest first (review 264: the view said "current only" of a file it kept).
  // Each told from the others by its place, size and time to the second (review 281: a hundred read "kept copy ·
  // replaced 2026-11-30 08:21").
  const copies = doc.kept ?? [];
  const of = doc.kept_more ? `more than ${copies.length}` : String(copies.length);
  const kept = copies.map((v, i): Entry => ({
    key: `kept-${v.version}`,
    label: [`kept copy ${i + 1} of ${of}`, v.size === undefined ? undefined : `${v.size} bytes`, `replaced ${when(v.at, v.at_local, true)}`].filter(Boolean).join(" · "),
    args: { version: v.version },
    ...restore(v.version),
  }));
  return [now, ...kept, ...(doc.commits ?? []).map((c) => ({
    key: c.commit.slice(0, 12),
    label: `${c.commit.slice(0, 8)} · ${c.author} · ${when(c.at, c.at_local)} · ${c.subject}`,
    args: { commit: c.commit },
    // The version's text is written as the file only where it is the version's bytes, as bmad-doc says (review 188).
    ...(!writable || (c.commit === doc.commit && doc.restorable === false) ? {} : {
      restore: async (): Promise<ToolResult> => {
        const at = await app.callTool("bmad-doc", { project: doc.project, path: doc.path, commit: c.commit });
        const kept = at.structuredContent as Partial<DocData> | undefined;
        if (!at.isError && kept?.restorable === false) return { isError: true, content: [{ type: "text", text: kept.restore_note ?? "This version cannot be restored from here." }] };
        return at.isError ? at : files({ action: "write", content: lastText(at) });
      },
    }),
  }))];
}

/** How long a comparison may take in the view before it gives up on it. */
const DIFF_TIMEOUT_MS = 1000;

function versionList(app: ViewApp, doc: DocData, list: Entry[], panel: HTMLElement, reload: (notice?: (now: DocData) => HTMLElement) => Promise<void>, more: () => Promise<void>): HTMLElement {
  const readable = list.filter((e) => e.args);
  const picked = { a: readable[1], b: readable[0] };
  const rows = list.map((e) => {
    const radio = (side: "a" | "b") => {
      if (!e.args) return null;
      const input = h("input", { type: "radio", name: side, value: e.key, "aria-label": `${side === "a" ? "From" : "To"} ${e.key}`, change: () => (picked[side] = e) });
      input.checked = picked[side] === e;
      return input;
    };
    const restore = e.restore
      ? h("button", { class: "restore", "data-version": e.key, click: () => confirmRestore(doc, e, panel, reload) }, "Restore")
      : doc.access === "read" && e.args ? h("button", { class: "restore", "data-version": e.key, disabled: "", title: "You have read access: restoring needs write access." }, "Restore") : null;
    return h("li", { "data-version": e.key }, radio("a"), radio("b"), ` ${e.label} `, restore);
  });
  const compare = h("button", { class: "compare", ...(readable.length < 2 ? { disabled: "" } : {}), click: () => {
    if (picked.a && picked.b) showDiff(app, doc, picked.a, picked.b, panel).catch((e) => show(panel, errorBox(`These versions cannot be compared here: ${errorText(e)}.`)));
  } }, "Compare");
  // One page asked for at a time (review 258: ten quick clicks asked for ten, and each was added).
  const older: HTMLButtonElement | null = doc.next !== undefined ? h("button", { class: "older", click: () => {
    older!.disabled = true;
    void more().finally(() => (older!.disabled = false));
  } }, `${doc.older ?? "More"} older ${doc.history === "git" ? "commits" : "versions"}: show them`) : null;
  return h("div", {}, h("ul", { class: "versions" }, rows), older, compare);
}

async function showDiff(app: ViewApp, doc: DocData, a: Entry, b: Entry, panel: HTMLElement): Promise<void> {
  const read = (e: Entry) => app.callTool("bmad-doc", { project: doc.project, path: doc.path, ...e.args });
  const [from, to] = await Promise.all([read(a), read(b)]);
  if (from.isError || to.isError) return show(panel, errorBox(resultText(from.isError ? from : to)));
  // A side that is not UTF-8 compares its text, not its bytes (review 281: only bmad-files read said so).
  const notUtf8 = [{ e: a, read: from }, { e: b, read: to }].filter((side) => (side.read.structuredContent as Partial<DocData> | undefined)?.not_utf8).map((side) => side.e.key);
  const bytesNote = notUtf8.length ? h("p", { class: "note" }, `${notUtf8.join(" and ")} ${notUtf8.length > 1 ? "are" : "is"} ${NOT_UTF8_NOTE}.`) : null;
  // Bounded: two long versions with every line changed took 92 s in the view (review 20).
  const parts = diffLines(shownText(from), shownText(to), { timeout: DIFF_TIMEOUT_MS });
  // Worded by the limit met, not the versions' likeness (review 245: two near-identical 1 MiB versions were "too different").
  if (!parts) return show(panel, h("h2", {}, `${a.key} → ${b.key}`), bytesNote, h("p", { class: "note" }, `These versions are too large or too slow to compare here (more than ${DIFF_TIMEOUT_MS / 1000} s of work): compare smaller parts, or read each version.`));
  // Each line as the document shows it, its bidirectional controls written out (review 157: "$1000" and "‮0001$‬" read
  // the same on either side of a change).
  let controls = 0;
  const shown = (line: string) => {
    const out = writeOutBidi(line);
    controls += out.controls;
    return out.text;
  };
  // At most MAX_DIFF_LINES lines, then how many changed lines are left out.
  const lines: HTMLElement[] = [];
  let unshown = 0;
  for (const part of parts) {
    const text = part.value.replace(/\n$/, "").split("\n");
    const room = Math.max(MAX_DIFF_LINES - lines.length, 0);
    if (part.added || part.removed) {
      for (const line of text.slice(0, room)) lines.push(h(part.added ? "ins" : "del", {}, `${part.added ? "+" : "-"} ${shown(line)}`));
      unshown += Math.max(text.length - room, 0);
      continue;
    }
    if (!room) continue;
    // Unchanged runs keep CONTEXT lines on each side of a change.
    const kept = text.length > 2 * CONTEXT + 1 ? [...text.slice(0, CONTEXT), `… ${text.length - 2 * CONTEXT} unchanged lines`, ...text.slice(-CONTEXT)] : text;
    for (const line of kept) lines.push(h("span", {}, `  ${shown(line)}`));
  }
  if (unshown) lines.push(h("span", { class: "more" }, `… ${unshown} more changed lines: compare smaller parts, or read each version.`));
  show(panel, h("h2", {}, `${a.key} → ${b.key}`), bytesNote, controls ? bidiNote("This comparison holds", controls) : null, h("pre", { class: "diff" }, lines.map((l) => [l, "\n"]).flat()));
}

function confirmRestore(doc: DocData, entry: Entry, panel: HTMLElement, reload: (notice?: (now: DocData) => HTMLElement) => Promise<void>): void {
  const yes = async () => {
    const out = await entry.restore!();
    // The answer's notes (whose work it replaced) stay above the document shown anew (review 403: they were dropped).
    if (!out.isError) return reload(() => h("p", { class: "note restored" }, resultText(out)));
    // Refused: the document as it is now (review 317: the old version list stayed, under the model's wording), and
    // why, said to the user where the file changed since it was shown.
    await reload((now) => errorBox(currentVersion(now) !== currentVersion(doc)
      ? `${showName(doc.path)} changed since it was shown: ${entry.key} was not restored. This is the document now; restore again if you still want to.`
      : `${entry.key} was not restored: ${resultText(out)}`));
  };
  // On the bridge the file's text now may be in no commit: the bridge keeps it, and says where (review 215: "nothing is
  // lost" showed no way back to uncommitted work).
  const theirs = othersNow(doc);
  const kept = doc.deleted ? "It is not in the project now: this writes it back."
    : doc.history !== "versions"
    ? `Its text now, committed or not, is kept a week: listed here as a kept copy, and by bmad-files "history", whose "restore" brings it back.`
    // Said where the version it replaces is others' work (review 403: "nothing is lost" over Eve's lines, which go).
    : theirs ? `It becomes the current version, and replaces ${theirs}; history keeps it.`
    : "It becomes the current version; nothing is lost.";
  show(panel, h("div", { class: "confirm", role: "dialog" }, h("p", {}, `Restore ${showName(doc.path)} to ${entry.key}'s content? ${kept}`), h("button", { class: "confirm-yes", click: () => void yes() }, `Restore ${entry.key}`), h("button", { click: () => show(panel) }, "Cancel")));
}

/** The current version where it is not the user's own, as the data has it: "v2 by eve" where its author is one of the
 *  others who changed it since the user's version or wrote lines of it (others never name the user: "with you" too,
 *  review 405: Eve's whole rewrite of Ada's lines is told to Ada "with you", yet its version is Eve's); "v3 (written by
 *  others, not you: eve (line 3))" where others' lines are in it (the document shown is the current version). */
function othersNow(doc: DocData): string | undefined {
  const now = currentVersion(doc);
  const author = doc.versions?.find((v) => v.version === now)?.author ?? (doc.version === now ? doc.author : undefined);
  if (author !== undefined && (doc.changed_since?.by.includes(author) || doc.others?.some((o) => o.by === author))) return `v${now} by ${author}`;
  const others = doc.version === now ? othersBeyond(doc.others, undefined) : undefined;
  return others ? `v${now} (${others})` : undefined;
}
