// Project memory (seed 001): the collections, the failure museum's categories, the limits on what is
// stored, and the one way a memory is checked, named and given its id on both front doors.
import * as z from "zod";
import type { Result } from "../result.js";
import { uuidV5 } from "./uuid.js";
import { count as n } from "../count.js";
import { isOneLine, writeOutInvisible } from "../lines.js";
import { secretPlace, shapedSecretAt } from "../catalog/config.js";

export const MEMORY_TYPES = ["shared-context", "decisions", "agent-learnings", "failures", "stories"] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

export const FAILURE_CATEGORIES = ["CC-FAIL", "WRONG-ASSUMPTION", "CONTEXT-LOSS", "HALLUCINATION", "ARCH-MISTAKE", "PROCESS-SKIP"] as const;
export type FailureCategory = (typeof FAILURE_CATEGORIES)[number];

/** Highest first; a failure without one of these tags is "medium". */
export const SEVERITIES = ["critical", "high", "medium", "low"] as const;
export type Severity = (typeof SEVERITIES)[number];

export const MAX_TEXT_BYTES = 32 * 1024;
export const MAX_TAGS = 20;
export const MAX_TAG_CHARS = 64;
export const MAX_AGENT_CHARS = 100;

/** A stored memory, as the bridge writes it (one JSON object per line) and the Worker keeps it (a row). */
export interface Memory {
  id: string;
  type: MemoryType;
  agent: string;
  text: string;
  tags: string[];
  created_at: string;
}

/** A memory as answers show it: where it came from (a file a person edits, with its line), and for a failure
 *  its category and severity. */
export interface MemoryEntry extends Memory {
  source?: string;
  /** Who remembered or wrote it, where not the caller (a shared workspace's member). */
  by?: string;
  category?: FailureCategory;
  severity?: Severity;
}

export interface MemoryHit extends MemoryEntry {
  /** The store's own ranking, for its order alone: no answer shows it (review 221: the remote's FTS5 BM25 and the
   *  bridge's MiniSearch gave one tool scores 10^7 apart). */
  score: number;
  snippet: string;
}

export type MemResult<T> = Result<{ value: T }>;

/** What a line of a memory file must be: parsed with zod, unknown keys dropped. */
export const MEMORY_LINE = z.object({
  id: z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, "not a memory id (UUIDv5)"),
  type: z.enum(MEMORY_TYPES),
  // A line written by hand is held to what a remember stores: an agent and tags of one line each (review 76: a break in
  // one made lines of a recall that read as the owner's own memories).
  agent: z.string().min(1).max(MAX_AGENT_CHARS).refine(isOneLine, "an agent name of one line, without control characters"),
  text: z.string().min(1).max(MAX_TEXT_BYTES),
  tags: z.array(z.string().min(1).max(MAX_TAG_CHARS).refine(isOneLine, "tags of one line, without control characters")).max(MAX_TAGS),
  created_at: z.string().max(40),
});

const bytes = (text: string) => new TextEncoder().encode(text).byteLength;

/** The text as its id sees it: the same words in another case or spacing are the same memory. */
export function normaliseText(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
}

/** The id of a memory: UUIDv5 of its type, agent and normalised text (tags are not part of it). */
export function memoryId(type: MemoryType, agent: string, text: string): Promise<string> {
  return uuidV5(`${type}\n${agent}\n${normaliseText(text)}`);
}

/** The memory under the id of one stored already as the same type, agent and text, if any: a line keeps the id its
 *  agent's older name gave (`bmad-master`, which canonicalAgent names `master`), and remembering it again is no new memory. */
export function asStored(memory: Memory, stored: Iterable<Pick<Memory, "id" | "type" | "agent" | "text">>): Memory {
  const text = normaliseText(memory.text);
  for (const m of stored) if (m.id !== memory.id && m.type === memory.type && m.agent === memory.agent && normaliseText(m.text) === text) return { ...memory, id: m.id };
  return memory;
}

/** A tag as stored, and as repeats are found by: NFC, without characters that show as nothing (a join a script writes
 *  stays), trimmed (review 321: `café` typed in two forms was two tags; review 324: a tag kept a zero-width space). */
const tagKey = (tag: string) => writeOutInvisible(tag.normalize("NFC"), () => "").trim();

/** `before`'s tags, then those of `added` it has not, by tagKey. */
export function mergeTags(before: readonly string[], added: readonly string[]): string[] {
  const seen = new Set(before.map(tagKey));
  const out = [...before];
  for (const tag of added) {
    if (!seen.has(tagKey(tag))) out.push(tag);
    seen.add(tagKey(tag));
  }
  return out;
}

/** Why a secret-shaped text, tag or agent is refused, said alike for each. */
const KEEP_SECRET_OUT = "memory is shared with the project's members and pushed with its files, so keep the secret out (say where it is kept instead).";

/** Tags as stored: trimmed, NFC, without repeats (mergeTags); or why they are refused. */
export function checkTags(tags: readonly string[]): MemResult<string[]> {
  if (tags.length > MAX_TAGS) return { ok: false, error: `${tags.length} tags given; at most ${MAX_TAGS}: keep the ones a search would use.` };
  let out: string[] = [];
  for (const raw of tags) {
    // A line break or control is refused as given, before what shows as nothing is dropped (review 325: "a\nb" was
    // stored as "ab", unsaid); the rest trimmed after it (" \u200b a" was " a").
    if (!isOneLine(raw)) return { ok: false, error: `Tag "${raw.trim().slice(0, 40)}" contains a control character (newline, tab, ...): use plain words.` };
    const tag = tagKey(raw);
    if (!tag) return { ok: false, error: "A tag is empty: drop it or give it a word." };
    if ([...tag].length > MAX_TAG_CHARS) return { ok: false, error: `Tag "${tag.slice(0, 40)}..." is ${[...tag].length} characters; tags are at most ${MAX_TAG_CHARS}.` };
    // Judged as the text is (review 320: a token as a tag was stored, shown to every member, and held its file from push).
    const secret = shapedSecretAt(tag);
    if (secret) return { ok: false, error: `A tag holds what looks like a secret${secretPlace({ ...secret, line: undefined })}: ${KEEP_SECRET_OUT}` };
    out = mergeTags(out, [tag]);
  }
  return { ok: true, value: out };
}

/** The memory's text, or why it is refused. */
export function checkText(text: string): MemResult<string> {
  const trimmed = text.trim();
  if (!trimmed) return { ok: false, error: '"text" is empty: give what to remember.' };
  const size = bytes(trimmed);
  if (size > MAX_TEXT_BYTES) return { ok: false, error: `"text" is ${n(size)} bytes; a memory holds at most ${n(MAX_TEXT_BYTES)} (32 KB): split it, or remember a summary and keep the document as a file.` };
  // By the detector that holds a file back from push (review 221: one such memory kept its whole collection from syncing).
  const secret = shapedSecretAt(trimmed);
  if (secret) return { ok: false, error: `"text" holds what looks like a secret${secretPlace(secret)}: ${KEEP_SECRET_OUT}` };
  return { ok: true, value: trimmed };
}

/** An agent as memories name it, from a tool's argument and from a memory file alike (a learnings file's name, the
 *  museum's `agent:` line), so that every memory is found by the name that asks for it: lower-cased, a module prefix
 *  and BMAD's `bmad-agent-`/`bmad-` dropped (`bmm/dev`, `bmad-agent-dev` -> `dev`; the seed's `forge` as it is). No
 *  bundle is asked: a project's files are read where none is (the remote's memory index), and must name as an argument does. */
export function canonicalAgent(raw: string): Result<{ value: string }, { secret?: true }> {
  let judged = JUDGED_AGENTS.get(raw);
  if (!judged) {
    // Judged once a name: a memory file's every line names one of a few (the secret check is most of the cost).
    if (JUDGED_AGENTS.size >= MAX_JUDGED_AGENTS) JUDGED_AGENTS.clear();
    JUDGED_AGENTS.set(raw, (judged = judgeAgent(raw)));
  }
  return judged;
}

const JUDGED_AGENTS = new Map<string, Result<{ value: string }, { secret?: true }>>();
const MAX_JUDGED_AGENTS = 1_000;

function judgeAgent(raw: string): Result<{ value: string }, { secret?: true }> {
  const given = raw.trim();
  if (!given) return { ok: false, error: '"agent" is empty: name the agent, e.g. dev, architect or bmm/dev.' };
  // Before any error quotes it; a token's characters make a name (review 436: a `ghp_` agent was stored and shown to
  // every member in full).
  const secret = shapedSecretAt(given);
  if (secret) return { ok: false, secret: true, error: `"agent" holds what looks like a secret${secretPlace({ ...secret, line: undefined })}: ${KEEP_SECRET_OUT}` };
  const tag = given.toLowerCase().replace(/^[a-z0-9_-]+\//, "").replace(/^bmad-agent-|^bmad-/, "");
  // Each problem named as such (review 96: a 200-character name was told it held wrong characters).
  if ([...tag].length > MAX_AGENT_CHARS) return { ok: false, error: `Agent "${given.slice(0, 60)}…" is ${[...tag].length} characters long; an agent's name is at most ${MAX_AGENT_CHARS} (e.g. dev, architect, forge).` };
  if (!/^[\p{L}\p{N}][\p{L}\p{N}._-]*$/u.test(tag)) {
    return { ok: false, error: `Agent "${given.slice(0, 60)}" is not a name: start with a letter or digit, then use letters, digits, ".", "_" or "-" (e.g. dev, architect, forge).` };
  }
  return { ok: true, value: tag };
}

/** A failure's category and severity, read from its tags (`CC-FAIL`, `high`, `severity:high`). */
export function failureFacets(tags: readonly string[]): { category?: FailureCategory; severity: Severity } {
  let category: FailureCategory | undefined;
  let severity: Severity | undefined;
  for (const tag of tags) {
    const upper = tag.toUpperCase();
    const lower = tag.toLowerCase().replace(/^severity[:=]\s*/, "");
    category ??= FAILURE_CATEGORIES.find((c) => c === upper);
    severity ??= SEVERITIES.find((s) => s === lower);
  }
  return { ...(category ? { category } : {}), severity: severity ?? "medium" };
}

/** The entry an answer shows for a memory: failures carry their category and severity. */
export function entryOf(memory: Memory, source?: string): MemoryEntry {
  const entry: MemoryEntry = { ...memory, ...(source ? { source } : {}) };
  return memory.type === "failures" ? { ...entry, ...failureFacets(memory.tags) } : entry;
}

/** Higher is worse: severity order for the failure museum. */
export function severityRank(severity: Severity | undefined): number {
  return SEVERITIES.length - SEVERITIES.indexOf(severity ?? "medium");
}
