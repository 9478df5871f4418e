// Memory in a project's files (seed 001's `_bmad/_memory/`), read the same way on both front doors:
//   structured/{type}.jsonl        remember_structured's memories, one JSON object per line, sorted by id
//                                  (a line per memory merges well in git)
//   agent-learnings/{agent}.md     an agent's learnings, one per list item; `## 2026-05-01` dates those below
//   failure-museum.md              `## CC-FAIL: title`, then `severity: high`, `date:`, `agent:`, `tags:` lines, then the story
//   shared-context.md              the project's shared context, one memory per `##` section
// A person edits these by hand: a line that cannot be read is reported with its number, the rest is served.
import { canonicalAgent, FAILURE_CATEGORIES, MAX_AGENT_CHARS, MAX_TAG_CHARS, MAX_TAGS, MEMORY_LINE, MEMORY_TYPES, mergeTags, SEVERITIES, entryOf, memoryId, type FailureCategory, type Memory, type MemoryEntry, type MemoryType, type Severity } from "./model.js";
import { cutAt, lines } from "../lines.js";

export const MEMORY_DIR = "_bmad/_memory";
export const STRUCTURED_DIR = `${MEMORY_DIR}/structured`;
export const LEARNINGS_DIR = `${MEMORY_DIR}/agent-learnings`;
export const MUSEUM_FILE = `${MEMORY_DIR}/failure-museum.md`;
export const SHARED_CONTEXT_FILE = `${MEMORY_DIR}/shared-context.md`;
export const PROJECT_CONTEXT_FILE = `${MEMORY_DIR}/project-context.yaml`;

export const structuredFile = (type: MemoryType) => `${STRUCTURED_DIR}/${type}.jsonl`;

/** The file's memory type, if it is one of the structured files. */
export function structuredType(path: string): MemoryType | undefined {
  return MEMORY_TYPES.find((t) => structuredFile(t) === path);
}

/** The files a person edits by hand that hold memories (beside the structured ones). */
export function isHandFile(path: string): boolean {
  return path === MUSEUM_FILE || path === SHARED_CONTEXT_FILE || (path.startsWith(`${LEARNINGS_DIR}/`) && /^[^/]+\.md$/.test(path.slice(LEARNINGS_DIR.length + 1)));
}

/** Agents' learnings files memory reads at most (one per agent), and the memories all hand-edited files give at most:
 *  files anyone with write access can fill cost each recall that indexes them no more than that (review 20: 359
 *  learnings files of 2,000 lines held a project's object for 40 s). */
export const MAX_LEARNINGS_FILES = 50;
export const MAX_HAND_MEMORIES = 10_000;
/** The memories one structured file gives recall at most (each type its own file). */
export const MAX_STRUCTURED_MEMORIES = 20_000;

/** The memory files among `paths` (a project's files), in the order memory reads them: the structured ones, the museum,
 *  the shared context, then the first MAX_LEARNINGS_FILES learnings files by name; and a warning naming what was left. */
export function memoryFilesOf(paths: Iterable<string>): { paths: string[]; warnings: string[] } {
  const learnings = [...paths].filter((p) => p.startsWith(`${LEARNINGS_DIR}/`) && isHandFile(p)).sort();
  const skipped = learnings.length - MAX_LEARNINGS_FILES;
  return {
    paths: [...MEMORY_TYPES.map(structuredFile), MUSEUM_FILE, SHARED_CONTEXT_FILE, ...learnings.slice(0, MAX_LEARNINGS_FILES)],
    warnings: skipped > 0 ? [`${LEARNINGS_DIR} holds ${skipped} more learnings files than the ${MAX_LEARNINGS_FILES} memory reads (one per agent); merge them.`] : [],
  };
}

/** What a hand-edited file's memories past the room are told as. */
const pastHandRoom = (path: string, left: number) => `${path}: ${left} memories past the ${MAX_HAND_MEMORIES} that hand-edited memory files give at most are not recalled; move older ones out of _bmad/_memory.`;

/** The first of `entries` that fit in what hand-edited files may still give (`room`), with a warning when some do not. */
export function withinHandMemories<T>(path: string, entries: T[], room: number): { entries: T[]; warnings: string[] } {
  if (entries.length <= room) return { entries, warnings: [] };
  return { entries: entries.slice(0, Math.max(0, room)), warnings: [pastHandRoom(path, entries.length - Math.max(0, room))] };
}

export interface Parsed {
  entries: MemoryEntry[];
  warnings: string[];
  /** The last line of each entry (a hand-edited file's first is in its source; a structured file's is its one line), so
   *  that every line of it is credited to whoever wrote it. */
  lastLines?: number[];
}

/** Why a file's agent is not served, without quoting it (a warning reads as the server's own words, and a secret's
 *  is served to no one: review 436). */
const agentProblem = (agent: { secret?: true }) => (agent.secret ? "an agent that looks like a secret (keep secrets out of memory files)" : 'an agent that is not a name (letters, digits, ".", "_" or "-", e.g. dev)');

/** A date, with its time if it has one; never longer than a timestamp (`2024-01-01T12:00:00.000000Z`). */
const DATE = /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]{1,16}Z?)?/;

/** One memory per line; a line that is not one is reported and skipped, and kept in `broken` so that writing the
 *  file again does not lose it. `entries` are the memories of the file's own type, named by their id (a line
 *  number changes whenever the file is sorted again); others are reported, as they are served from their own file. */
export function parseMemoryLines(text: string, path: string): Parsed & { memories: Memory[]; broken: string[]; lastLines: number[] } {
  const byId = new Map<string, Memory>();
  const lineOf = new Map<string, number>();
  const warnings: string[] = [];
  const broken: string[] = [];
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      broken.push(line);
      warnings.push(`${path} line ${i + 1}: not a JSON object (cut short or edited by hand?); skipped.`);
      return;
    }
    const parsed = MEMORY_LINE.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      broken.push(line);
      warnings.push(`${path} line ${i + 1}: ${issue.path.join(".") || "line"}: ${issue.message}; skipped.`);
      return;
    }
    // The agent as an argument names it: a line stored when `bmad-master` kept its prefix is found by `master` too.
    const agent = canonicalAgent(parsed.data.agent);
    if (!agent.ok) {
      broken.push(line);
      warnings.push(`${path} line ${i + 1}: ${agentProblem(agent)}; skipped.`);
      return;
    }
    parsed.data.agent = agent.value;
    const first = byId.get(parsed.data.id);
    if (first) {
      // Recalled as the first, and kept in the file as written (review 122: a rewrite dropped a merge's second line).
      byId.set(first.id, withTags(first, parsed.data.tags));
      broken.push(line);
      return void warnings.push(`${path} line ${i + 1}: id ${parsed.data.id} again; recalled as the first, with the tags of both, and kept in the file as written.`);
    }
    byId.set(parsed.data.id, parsed.data);
    lineOf.set(parsed.data.id, i + 1);
  });
  const memories = [...byId.values()];
  const type = structuredType(path);
  const ofType = memories.filter((m) => m.type === type);
  // Recalled: the first MAX_STRUCTURED_MEMORIES (review 22: 300,000 planted memories rebuilt a bridge's index 3 to 4 s a
  // change); all are kept in the file.
  const entries = ofType.slice(0, MAX_STRUCTURED_MEMORIES).map((m) => entryOf(m));
  if (ofType.length > MAX_STRUCTURED_MEMORIES) warnings.unshift(`${path} holds ${ofType.length} memories; the first ${MAX_STRUCTURED_MEMORIES} are recalled. Move older ones to another file (e.g. ${path}.old).`);
  const misplaced = memories.length - ofType.length;
  if (misplaced) warnings.push(`${path}: ${misplaced} memories of another type; they are served from the file named after their type only.`);
  // At most MAX_WARNINGS, as for hand-edited files: 800 KB of broken lines answered every recall with 46 MB of
  // warnings, and the client dropped the bridge (review 21).
  return { memories, entries, warnings: fewWarnings(path, warnings), broken, lastLines: entries.map((e) => lineOf.get(e.id)!) };
}

/** The memory with these tags added (the first MAX_TAGS kept). */
function withTags(memory: Memory, tags: readonly string[]): Memory {
  const merged = mergeTags(memory.tags, tags);
  return merged.length > memory.tags.length ? { ...memory, tags: merged.slice(0, MAX_TAGS) } : memory;
}

/** The file's text: sorted by id, keys in one order, one memory per line. */
export function memoryLines(memories: Iterable<Memory>): string {
  const sorted = [...memories].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return sorted.map((m) => JSON.stringify({ id: m.id, type: m.type, agent: m.agent, text: m.text, tags: m.tags, created_at: m.created_at })).join("\n") + (sorted.length ? "\n" : "");
}

/** One structured file from two copies of it (the project's and the workspace's, or the file and the memories
 *  remembered since, given as memories), sorted by id. A memory either side added is kept, with the tags of every copy; given
 *  `base`, the copy both started from, one that either side removed from it stays removed. Lines no copy could
 *  read are kept at the end, once each, by the same rule. So memory files need no conflicts. */
export function mergeMemoryFiles(path: string, texts: ReadonlyArray<string | readonly Memory[]>, base?: string): string {
  // A copy given as memories (rows the Worker holds) is used as it is, not written out and read back.
  const copies = texts.map((t) => (typeof t === "string" ? parseMemoryLines(t, path) : { memories: t, broken: [] as string[] }));
  const before = base === undefined ? undefined : parseMemoryLines(base, path);
  const wasThere = new Set([...(before?.memories.map((m) => m.id) ?? []), ...(before?.broken ?? [])]);
  // In the base and missing from a copy: that side removed it.
  const kept = (key: string, inCopy: (i: number) => boolean) => !wasThere.has(key) || copies.every((_, i) => inCopy(i));
  const ids = copies.map((c) => new Set(c.memories.map((m) => m.id)));
  // Changed since the base on a side that kept it: that edit outlives the other side's removal (review 47: a pull
  // dropped the user's edited memory because a collaborator had deleted it).
  const was = new Map(before?.memories.map((m) => [m.id, JSON.stringify(m)]) ?? []);
  const edited = new Set(copies.flatMap((c) => c.memories.filter((m) => was.has(m.id) && was.get(m.id) !== JSON.stringify(m)).map((m) => m.id)));
  const byId = new Map<string, Memory>();
  for (const copy of copies) {
    for (const m of copy.memories) {
      if (!edited.has(m.id) && !kept(m.id, (i) => ids[i]!.has(m.id))) continue;
      const first = byId.get(m.id);
      byId.set(m.id, first ? withTags(first, m.tags) : m);
    }
  }
  const broken = new Set(copies.flatMap((c) => c.broken).filter((line) => kept(line, (i) => copies[i]!.broken.includes(line))));
  return memoryLines(byId.values()) + [...broken].map((l) => `${l}\n`).join("");
}

/** The memories two copies of a structured file both changed since `base` (undefined: not known), each its own way (tags aside, which merge):
 *  mergeMemoryFiles would keep one side's edit and lose the other's (review 54: a pull kept the owner's, and the push
 *  after it replaced a collaborator's edit of the same memory, unsaid). */
export function memoriesChangedBothWays(path: string, copies: readonly [string, string], base: string | undefined): string[] {
  const fields = (text: string) => new Map(parseMemoryLines(text, path).memories.map((m) => [m.id, JSON.stringify({ ...m, tags: undefined })]));
  const [mine, theirs] = [fields(copies[0]), fields(copies[1])];
  // With no copy both started from (never pulled here, or its version purged), any memory the two hold differently
  // may have been edited on both sides (review 56: the merge kept the one here, unsaid).
  const was = base === undefined ? undefined : fields(base);
  const changed = (id: string, now: string) => (was ? was.has(id) && now !== was.get(id) && theirs.get(id) !== was.get(id) : true);
  return [...mine].filter(([id, now]) => theirs.has(id) && theirs.get(id) !== now && changed(id, now)).map(([id]) => id);
}

/** Learnings of `agent`: each list item (with the lines indented under it), dated by the `##` date above it. */
export async function parseLearnings(text: string, agent: string, path: string, limit = MAX_FILE_MEMORIES): Promise<Parsed> {
  const items: Array<{ line: number; last: number; text: string; date: string }> = [];
  let date = "";
  let current: (typeof items)[number] | undefined;
  let prose = 0;
  lines(text).forEach((line, i) => {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    const item = /^[-*+]\s+(.*)$|^\d+[.)]\s+(.*)$/.exec(line);
    if (heading) {
      date = DATE.exec(heading[1]!.trim())?.[0] ?? date;
      current = undefined;
    } else if (item) {
      const body = (item[1] ?? item[2] ?? "").trim();
      const own = DATE.exec(body)?.[0];
      items.push((current = { line: i + 1, last: i + 1, text: own ? body.slice(own.length).replace(/^\s*[:—–-]\s*/, "") : body, date: own ?? date }));
    } else if (current && /^\s+\S/.test(line)) {
      current.text += ` ${line.trim()}`;
      current.last = i + 1;
    }
    else if (!line.trim()) current = undefined;
    else prose++;
  });
  const entries: MemoryEntry[] = [];
  const lastLines: number[] = [];
  const warnings: string[] = [];
  for (const item of firstOf(items.filter((it) => it.text), path, warnings, limit)) {
    entries.push({ id: await memoryId("agent-learnings", agent, item.text), type: "agent-learnings", agent, text: item.text, tags: [], created_at: item.date, source: `${path}:${item.line}` });
    lastLines.push(item.last);
  }
  // A file of prose holds no learnings: said, not "none yet" (review 342).
  if (!entries.length && prose) warnings.push(`${path}: ${prose === 1 ? "1 line is not a list item" : `${prose} lines are not list items`} ("- text"): only list items are learnings.`);
  return { entries, warnings, lastLines };
}

const META = /^[-*]?\s*(severity|date|agent|tags)\s*:\s*(.*)$/i;

/** The failure museum: `## CATEGORY: title`, metadata lines, the story. Unknown categories are reported. */
export async function parseMuseum(text: string, path: string, limit = MAX_FILE_MEMORIES): Promise<Parsed> {
  const warnings: string[] = [];
  const blocks: Array<{ line: number; last: number; category: FailureCategory; title: string; severity: Severity; date: string; agent: string; tags: string[]; body: string[]; meta: boolean }> = [];
  let block: (typeof blocks)[number] | undefined;
  lines(text).forEach((line, i) => {
    const heading = /^##\s+(.*)$/.exec(line);
    if (heading) {
      block = undefined;
      const m = /^\[?([A-Za-z-]+)\]?\s*(?:[:—–]|\s-\s)?\s*(.*)$/.exec(heading[1]!.trim());
      const category = FAILURE_CATEGORIES.find((c) => c === m?.[1]?.toUpperCase());
      // Said without quoting the line: a warning is shown as the server's own words, and the line may be a
      // collaborator's (review 53: their heading was quoted, unattributed, under "Memory files with problems").
      if (!category) return void warnings.push(`${path} line ${i + 1}: a "##" heading that does not start with a category (${FAILURE_CATEGORIES.join(", ")}); entry skipped.`);
      blocks.push((block = { line: i + 1, last: i + 1, category, title: m![2]!.trim(), severity: "medium", date: "", agent: "unknown", tags: [], body: [], meta: true }));
      return;
    }
    if (!block) return;
    // A blank line carries no one's words: who left one between entries is not theirs.
    if (line.trim()) block.last = i + 1;
    const meta = block.meta ? META.exec(line.trim()) : null;
    if (!meta) {
      if (line.trim()) block.meta = false;
      block.body.push(line);
      return;
    }
    // Split at a lone separator between spaces; matched one character at a time (\s+ around it rescanned a long run).
    for (const part of line.trim().replace(/^[-*]\s*/, "").split(/(?<=\s)[·|](?=\s)/)) {
      const kv = /^(severity|date|agent|tags)\s*:\s*(.*)$/i.exec(part.trim());
      if (!kv) continue;
      const [key, value] = [kv[1]!.toLowerCase(), kv[2]!.trim()];
      if (key === "severity") {
        const severity = SEVERITIES.find((s) => s === value.toLowerCase());
        if (severity) block.severity = severity;
        else warnings.push(`${path} line ${i + 1}: a severity that is not one of ${SEVERITIES.join(", ")}; medium used.`);
      } else if (key === "date") block.date = DATE.exec(value)?.[0] ?? "";
      // An agent and tags cut at what a remember stores: every tool that shows a failure shows them whole (review 189:
      // 15 failures of 60 KB of tags made a recall 1 MB twice). The agent as an argument names it (`bmm/dev` is `dev`),
      // or "unknown", never a name no argument asks for (review 221).
      else if (key === "agent") {
        const agent = canonicalAgent(cutAt(value, MAX_AGENT_CHARS));
        if (agent.ok) block.agent = agent.value;
        else warnings.push(`${path} line ${i + 1}: ${agentProblem(agent)}; "unknown" used.`);
      } else block.tags = value.split(",").map((t) => cutAt(t.trim(), MAX_TAG_CHARS)).filter(Boolean).slice(0, MAX_TAGS);
    }
  });
  const entries: MemoryEntry[] = [];
  const lastLines: number[] = [];
  for (const b of firstOf(blocks, path, warnings, limit)) {
    const text = [b.title, b.body.join("\n").trim()].filter(Boolean).join("\n");
    if (!text) continue;
    const tags = [b.category, b.severity, ...b.tags.filter((t) => t.toUpperCase() !== b.category && t.toLowerCase() !== b.severity)];
    entries.push({ id: await memoryId("failures", b.agent, text), type: "failures", agent: b.agent, text, tags, created_at: b.date, source: `${path}:${b.line}`, category: b.category, severity: b.severity });
    lastLines.push(b.last);
  }
  return { entries, warnings, lastLines };
}

/** Shared context: one memory per `##` section (its heading and text). */
export async function parseSharedContext(text: string, path: string, limit = MAX_FILE_MEMORIES): Promise<Parsed> {
  const sections: Array<{ line: number; last: number; lines: string[] }> = [];
  lines(text).forEach((line, i) => {
    if (/^##\s/.test(line) || !sections.length) sections.push({ line: i + 1, last: i + 1, lines: [] });
    const section = sections.at(-1)!;
    section.lines.push(line.replace(/^#+\s*/, ""));
    if (line.trim()) section.last = i + 1;
  });
  const entries: MemoryEntry[] = [];
  const lastLines: number[] = [];
  const warnings: string[] = [];
  for (const s of firstOf(sections, path, warnings, limit)) {
    const body = s.lines.join("\n").trim();
    if (!body) continue;
    entries.push({ id: await memoryId("shared-context", "shared", body), type: "shared-context", agent: "shared", text: body, tags: [], created_at: "", source: `${path}:${s.line}` });
    lastLines.push(s.last);
  }
  return { entries, warnings, lastLines };
}

/** The memories of one hand-edited file (at most MAX_FILE_MEMORIES, and no more than `room`, what hand-edited files
 *  may still give; MAX_WARNINGS warnings): a file anyone with write access can fill costs each recall that indexes it
 *  no more than that, and what is past the room is never hashed into a memory. */
export async function parseHandFile(path: string, text: string, room = MAX_HAND_MEMORIES): Promise<Parsed> {
  const limit = Math.max(0, Math.min(MAX_FILE_MEMORIES, room));
  if (path === MUSEUM_FILE || path === SHARED_CONTEXT_FILE) {
    const parsed = await (path === MUSEUM_FILE ? parseMuseum(text, path, limit) : parseSharedContext(text, path, limit));
    return { ...parsed, warnings: fewWarnings(path, parsed.warnings) };
  }
  // The file's agent is its name as an argument names it (`bmad-agent-dev.md` is dev's): one no argument can name
  // (`My Agent.md`, `__proto__.md`) is said, not served under it (review 221).
  const agent = canonicalAgent(path.slice(LEARNINGS_DIR.length + 1, -".md".length));
  if (!agent.ok && agent.secret) return { entries: [], warnings: [`${LEARNINGS_DIR}: a file whose name looks like a secret; its learnings are not served: rename it.`] };
  if (!agent.ok) return { entries: [], warnings: [`${path}: the file's name is not an agent's name (letters, digits, ".", "_" or "-", e.g. dev.md); its learnings are not served: rename it.`] };
  const parsed = await parseLearnings(text, agent.value, path, limit);
  return { ...parsed, warnings: fewWarnings(path, parsed.warnings) };
}

export const MAX_FILE_MEMORIES = 2000;
const MAX_WARNINGS = 20;

/** The first MAX_WARNINGS of a file's warnings, and how many more there were. */
function fewWarnings(path: string, warnings: string[]): string[] {
  return warnings.length > MAX_WARNINGS ? [...warnings.slice(0, MAX_WARNINGS), `${path}: and ${warnings.length - MAX_WARNINGS} more warnings.`] : warnings;
}

/** The first `limit` of a file's parts, before any is hashed into a memory; a warning says what was left, and why. */
function firstOf<T>(items: T[], path: string, warnings: string[], limit = MAX_FILE_MEMORIES): T[] {
  if (items.length <= limit) return items;
  warnings.push(limit < MAX_FILE_MEMORIES
    ? pastHandRoom(path, items.length - limit)
    : `${path} holds ${items.length} memories; the first ${MAX_FILE_MEMORIES} are recalled. Split it, or move the rest to another file.`);
  return items.slice(0, limit);
}
