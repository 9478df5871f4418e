// Project memory on the bridge, in the project's own files (core/memory/files.ts says which and how), so it
// travels with the project in git. Every read goes through the confined reader, every write through the
// confined writer (temp file + rename). The files are indexed for full-text search with MiniSearch (BM25,
// Porter stems: the Worker's FTS5 tokenizer, in JavaScript) and read again when one of them changes,
// whoever changed it. Lines a person broke are reported with their number and kept as they are.
import { createHash } from "node:crypto";
import type { BigIntStats } from "node:fs";
import { resolve } from "node:path";
import type MiniSearch from "minisearch";
import { stemmer } from "stemmer";
import { asStored, entryOf, MAX_TAGS, mergeTags, type Memory, type MemoryEntry, type MemResult, MEMORY_TYPES, normaliseText } from "../core/memory/model.js";
import { LEARNINGS_DIR, MAX_HAND_MEMORIES, MAX_STRUCTURED_MEMORIES, memoryFilesOf, memoryLines, parseHandFile, parseMemoryLines, structuredFile, withinHandMemories } from "../core/memory/files.js";
import { byRecency, bySeverity, matchesFilter, type Listed, type MemoryFilter, type MemoryOrder, type ProjectMemory, type Recalled } from "../core/memory/store.js";
import { queryMatcher, queryWords, snippet, words } from "../core/memory/text.js";
import { ABSENT, fileStamp, listConfined, MAX_READ_BYTES, readConfinedText, stamped } from "./confined-fs.js";
import type { NodeRuntimeFs } from "./runtime-fs.js";
import { MAX_FILE_BYTES } from "../core/workspace/limits.js";
import { othersOn, type ByOthers } from "../core/workspace/line-authors.js";
import { pulledOthers, pulledWithOthers } from "./sync-state.js";

/** Agents' learnings files memory reads: BMAD keeps one per agent, a dozen or so. More (a planted thousand of 1 MiB)
 *  would make every recall read and index them all. */

/** One file as last read: how to tell it changed, what it held. */
interface FileState {
  stamp: string;
  /** Why the confined reader refused it (a link out, a FIFO): not written either. */
  refused?: string;
  entries: MemoryEntry[];
  warnings: string[];
  /** Structured files: the memories, and lines that could not be read (written back unchanged). */
  memories?: Map<string, Memory>;
  broken?: string[];
}

interface Loaded {
  entries: Map<string, MemoryEntry>;
  index: MiniSearch<{ id: string; text: string; tags: string }>;
  warnings: string[];
}

/** A memory as the index holds it. */
const indexed = (e: MemoryEntry) => ({ id: e.id, text: e.text, tags: e.tags.join(" ") });

let engine: Promise<typeof MiniSearch> | undefined;

/** Loaded on first use: the bridge starts without it. */
function loadEngine(): Promise<typeof MiniSearch> {
  return (engine ??= import("minisearch").then((m) => m.default));
}

export class FileMemory implements ProjectMemory {
  private readonly files = new Map<string, FileState>();
  private loaded?: Loaded;
  private chain: Promise<unknown> = Promise.resolve();

  /** A file's state was set from our own write, not yet in the index. */
  private unindexed = false;

  /** `fs`: the project's confined file system, which every change of the bridge's goes through. */
  constructor(private readonly root: string, private readonly fs: Pick<NodeRuntimeFs, "landed">) {}

  /** One operation at a time: a remember reads, changes and writes its file without another in between. */
  private serial<T>(op: () => Promise<T>): Promise<T> {
    const next = this.chain.then(op, op);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** The files memory is read from (memoryFilesOf: the structured ones, the museum, shared context, and the first
   *  MAX_LEARNINGS_FILES agents' learnings), and a warning naming what was left. */
  private async paths(): Promise<{ paths: string[]; warnings: string[] }> {
    const learnings = await listConfined(this.root, LEARNINGS_DIR);
    return memoryFilesOf(learnings.ok ? learnings.names.map((n) => `${LEARNINGS_DIR}/${n}`) : []);
  }

  /** The file's stamp (confined-fs fileStamp: a change by anyone shows in it), undefined where there is none. Only a
   *  change detector (one stat, as it is checked on every call): contents are read through the confined reader alone. */
  private async stamp(rel: string): Promise<string | undefined> {
    const stamp = await fileStamp(this.root, rel);
    return stamp === ABSENT ? undefined : stamp;
  }

  private async readFile(rel: string, stamp: string): Promise<FileState> {
    const type = MEMORY_TYPES.find((t) => structuredFile(t) === rel);
    // A hand-written file is read up to a workspace file's size: 50 of them are at most 50 MiB to index.
    const read = await readConfinedText(this.root, rel, { maxBytes: type ? MAX_READ_BYTES : MAX_FILE_BYTES });
    if (!read.ok) {
      const refused = read.code === "missing" ? undefined : read.error;
      // A warning goes out with every memory answer: where a link leads outside is not said there (review 436: "/etc/passwd").
      const warning = read.linksOut ? `${rel}: links outside the project; refused.` : refused;
      return { stamp, entries: [], warnings: warning ? [warning] : [], ...(refused ? { refused } : {}), ...(type ? { memories: new Map(), broken: [] } : {}) };
    }
    // A leading byte-order mark (Windows editors save one) is no part of the first memory, as the remote's decoder reads
    // it (review 342: the first learning, or the first JSON line, was lost).
    const text = read.text.replace(/^\uFEFF/, "");
    if (!type) {
      const hand = await parseHandFile(rel, text);
      const others = await pulledOthers(this.root, rel, createHash("sha256").update(read.text).digest("hex"));
      return { stamp, ...hand, entries: withAuthors(hand.entries, hand.lastLines, others) };
    }
    return this.structuredState(rel, text, stamp);
  }

  /** A structured memory file holding `text`, as loaded. */
  private async structuredState(rel: string, text: string, stamp: string): Promise<FileState> {
    const parsed = parseMemoryLines(text, rel);
    const by = new Map((await pulledWithOthers(this.root, rel))?.memories_by);
    const entries = by.size ? parsed.entries.map((e) => (by.has(e.id) ? { ...e, by: by.get(e.id)! } : e)) : parsed.entries;
    return { stamp, entries, warnings: parsed.warnings, memories: new Map(parsed.memories.map((m) => [m.id, m])), broken: parsed.broken };
  }

  /** The files as they are now: unchanged ones from before, changed ones read again, the index rebuilt if any changed. */
  private async load(): Promise<Loaded> {
    const { paths, warnings: listing } = await this.paths();
    let changed = this.unindexed || !this.loaded || [...this.files.keys()].some((p) => !paths.includes(p));
    for (const rel of paths) {
      const stamp = await this.stamp(rel);
      if (stamp === undefined) {
        if (this.files.delete(rel)) changed = true;
        continue;
      }
      if (this.files.get(rel)?.stamp === stamp) continue;
      this.files.set(rel, await this.readFile(rel, stamp));
      changed = true;
    }
    for (const rel of [...this.files.keys()]) if (!paths.includes(rel)) this.files.delete(rel);
    if (!changed && this.loaded) return this.loaded;
    this.unindexed = false;
    const MiniSearch = await loadEngine();
    const entries = new Map<string, MemoryEntry>();
    const capped: string[] = [];
    // Structured memories first: a hand-written line saying the same thing is the same memory. Then the hand-edited
    // files, in the order they are read, up to what they give together.
    for (const rel of paths) for (const e of this.files.get(rel)?.memories ? this.files.get(rel)!.entries : []) if (!entries.has(e.id)) entries.set(e.id, e);
    let handRoom = MAX_HAND_MEMORIES;
    for (const rel of paths) {
      const state = this.files.get(rel);
      if (!state || state.memories) continue;
      const kept = withinHandMemories(rel, state.entries, handRoom);
      handRoom -= kept.entries.length;
      capped.push(...kept.warnings);
      for (const e of kept.entries) if (!entries.has(e.id)) entries.set(e.id, e);
    }
    const warnings = [...paths.flatMap((p) => this.files.get(p)?.warnings ?? []), ...capped, ...listing];
    return (this.loaded = { entries, index: this.reindexed(entries, MiniSearch), warnings });
  }

  /** The index brought to `entries`: only the memories that changed since the last load are taken out and put in (an
   *  append of one line to a file of 15,000 rebuilt the index of all of them, half a second on every recall after it). */
  private reindexed(entries: Map<string, MemoryEntry>, MiniSearch: typeof import("minisearch").default): Loaded["index"] {
    if (!this.loaded) {
      const index = new MiniSearch<{ id: string; text: string; tags: string }>({ fields: ["text", "tags"], tokenize: words, processTerm: stemmer, searchOptions: { boost: { text: 2, tags: 1 }, combineWith: "OR" } });
      index.addAll([...entries.values()].map(indexed));
      return index;
    }
    const { index, entries: before } = this.loaded;
    const same = (a: MemoryEntry, b: MemoryEntry) => a === b || (a.text === b.text && a.tags.join(" ") === b.tags.join(" "));
    // Taken out by what was indexed (remove), not marked gone (discard): discarded documents still counted in the
    // ranking's statistics, and 43 of 320 recalls after edits ranked unlike a rebuilt index (review 29).
    for (const [id, was] of before) {
      const now = entries.get(id);
      if (!now || !same(was, now)) index.remove(indexed(was));
    }
    for (const [id, now] of entries) {
      const was = before.get(id);
      if (!was || !same(was, now)) index.add(indexed(now));
    }
    return index;
  }

  remember(given: Memory): Promise<MemResult<Remembered>> {
    const rel = structuredFile(given.type);
    return this.serial(async () => {
      // Made from the file as it is under its lock, as every change of the bridge's is (NodeRuntimeFs.landed): another
      // bridge's memories (or bmad-files') are in what this write keeps; another program's save meanwhile stands, and the
      // memory is made again over it (review 17); what the write replaces is kept a week (review 41).
      let made: Made | undefined;
      let written: BigIntStats | undefined;
      try {
        written = await this.fs.landed(resolve(this.root, rel), async (current) => {
          made = remembered(rel, await this.structuredState(rel, current ? Buffer.from(current).toString("utf8") : "", ""), given);
          return made.write && new TextEncoder().encode(made.write.text);
        });
      } catch (error) {
        return { ok: false, error: `Cannot write ${(error as Error).message}` };
      }
      // Our own write: what is loaded is updated rather than read again, by the stamp of the file as it landed (a save
      // that lands after it has another, and is read next time, never written over: review 19).
      if (made!.write && written) {
        this.files.set(rel, { ...made!.write.state, stamp: stamped(written) });
        this.unindexed = true;
      }
      return made!.answer;
    });
  }

  search(query: string, filter: MemoryFilter, limit: number): Promise<MemResult<Recalled>> {
    return this.serial(async () => {
      const { entries, index, warnings } = await this.load();
      const matches = queryMatcher(query);
      const results = index.search(queryWords(query).join(" "), { filter: (r) => matchesFilter(entries.get(r.id)!, filter) }).slice(0, limit);
      const hits = results.map((r) => {
        const entry = entries.get(r.id)!;
        return { ...entry, score: Math.round(r.score * 1000) / 1000, snippet: snippet(entry.text, matches) };
      });
      return { ok: true, value: { mode: "bm25", hits, warnings } };
    });
  }

  list(filter: MemoryFilter, order: MemoryOrder, limit: number): Promise<MemResult<Listed>> {
    return this.serial(async () => {
      const { entries, warnings } = await this.load();
      const all = [...entries.values()].filter((e) => matchesFilter(e, filter)).sort(order === "severity" ? bySeverity : byRecency);
      return { ok: true, value: { entries: all.slice(0, limit), total: all.length, warnings } };
    });
  }
}

type Remembered = { id: string; created: boolean; tags: string[] };

/** What remembering `given` does to a structured file as loaded (`file`): the answer, and the text to write with the file as
 *  it then is (none: nothing to write). */
interface Made {
  answer: MemResult<Remembered>;
  write?: { text: string; state: FileState };
}

function remembered(rel: string, file: FileState, given: Memory): Made {
  const memories = new Map(file.memories);
  const memory = memories.has(given.id) ? given : asStored(given, memories.values());
  // Stored already only as this memory: a line that kept the id with another type, agent or text (hand-edited, or
  // planted) is not it (review 122: "Already remembered", and recall found a planted "MySQL" for "Postgres"). Such a
  // line is kept in the file as written, after the memory the id names, as the remote stores it.
  const found = memories.get(memory.id);
  const before = found && found.type === memory.type && found.agent === memory.agent && normaliseText(found.text) === normaliseText(memory.text) ? found : undefined;
  const displaced = found && !before ? [memoryLines([found]).trimEnd()] : [];
  const tags = before ? mergeTags(before.tags, memory.tags) : memory.tags;
  if (before && tags.length === before.tags.length) return { answer: { ok: true, value: { id: memory.id, created: false, tags } } };
  if (tags.length > MAX_TAGS) return { answer: { ok: false, error: `Memory ${memory.id} already has ${before!.tags.length} tags; with these it would pass ${MAX_TAGS}.` } };
  const stored: Memory = before ? { ...before, tags } : memory;
  memories.set(memory.id, stored);
  if (!before && memories.size > MAX_STRUCTURED_MEMORIES) return { answer: { ok: false, error: `${rel} holds ${memories.size - 1} memories, the most one type's file gives recall: move older ones of this type to another file (e.g. ${rel}.old) and remember again.` } };
  // The displaced line among the ones kept as written (review 123: the next remember, written from what was loaded, dropped it).
  const broken = [...displaced, ...(file.broken ?? [])];
  const text = memoryLines(memories.values()) + broken.map((l) => `${l}\n`).join("");
  if (Buffer.byteLength(text) > MAX_READ_BYTES) return { answer: { ok: false, error: `${rel} would pass ${MAX_READ_BYTES / 1024 / 1024} MiB, the most the bridge reads: move older memories of this type to another file (e.g. ${rel}.old) and remember again.` } };
  const entries = [...file.entries.filter((e) => e.id !== memory.id), entryOf(stored)];
  return { answer: { ok: true, value: { id: memory.id, created: !before, tags } }, write: { text, state: { ...file, memories, broken, entries } } };
}

/** Each memory of a hand-edited file credited to whoever else wrote its lines, as the remote said when the file was
 *  pulled (review 92: a collaborator's memory, pulled, was recalled here as the user's own). A structured file's are
 *  credited by id (SyncedFile.memories_by). */
function withAuthors(entries: MemoryEntry[], lastLines: number[] | undefined, others: ByOthers | undefined): MemoryEntry[] {
  if (!others || !lastLines) return entries;
  return entries.map((e, i) => {
    const last = lastLines[i]!;
    const first = Number(/:(\d+)$/.exec(e.source ?? "")?.[1] ?? last);
    const by = othersOn(others, first, last);
    return by ? { ...e, by } : e;
  });
}
