// Seed 003 score extraction: JSON `quality_score`, then a closing "Quality Score: N/100" line, then a content estimate
// capped at 85 (so 90+ always needs an explicit score). Also pulls the document, gaps and questions.
import { contractStage } from "./pipeline.js";
import { BASE_SCORE, mentionedPoints, rubricFor, type RubricItem } from "./rubric.js";
import { MAX_GAPS, MAX_ITEM_CHARS, MAX_QUESTIONS } from "./session.schemas.js";
import { byteLength } from "./stage-inputs.js";
import type { Result } from "../result.js";

export interface Question {
  id: string;
  question: string;
  context?: string;
}

export interface ParsedResult {
  /** The JSON key the document came from, if it came from one. */
  key?: string;
  score: number;
  scoreSource: "json" | "text" | "estimate";
  document: string;
  gaps: string[];
  questions: Question[];
}

const ESTIMATE_CAP = 85;
/** What a draft's gaps and questions give the session at most (they are kept in its state), the rest left out: so many,
 *  so long each (session.schemas.ts), and their bytes as JSON together, the questions first. */
const MAX_NOTES_BYTES = 32 * 1024;
/** A question id as an answer can name it (bmad-task's answers take ids of at most 64 characters). */
const QUESTION_ID = /^[\w.-]{1,64}$/;
/** Ids no answer can name: a JSON object's `__proto__` is dropped on the way in (review 96: the session was stuck). */
const UNNAMEABLE = new Set(["__proto__"]);

/** The first ```json fenced block of a result, else its first ``` one, wherever it is: a model adds a line after it
 *  ("Let me know what you think"), and a fence only at the end left the whole wrapper saved as the PRD (review 190).
 *  indexOf, block after block: linear in the text. */
function fencedBlock(text: string): { body: string; json: boolean } | undefined {
  let plain: string | undefined;
  for (let at = text.indexOf("```"); at >= 0; at = text.indexOf("```", at)) {
    const lineEnd = text.indexOf("\n", at);
    const close = lineEnd < 0 ? -1 : text.indexOf("\n```", lineEnd);
    if (close < 0) break;
    const tag = text.slice(at + 3, lineEnd).trim().toLowerCase();
    const body = text.slice(lineEnd + 1, close);
    if (tag === "json") return { body, json: true };
    if (tag === "") plain ??= body;
    at = close + 4;
  }
  return plain === undefined ? undefined : { body: plain, json: false };
}

/** The JSON object a result holds (the text itself, or its fenced block), or why text that reads as one is none.
 *  Reads as JSON: a text that begins with "{", a ```json block in a text that is no markdown document (which begins
 *  with a heading, its fences its own), any block beginning with {", or a document key's name before a colon anywhere, in
 *  quotes or after { or ,: `{prd_draft: '…'}` and `{not json` were saved whole as the document (review 483). */
function asJson(text: string, documentKeys: string[]): { json?: Record<string, unknown>; error?: string } {
  const fenced = fencedBlock(text);
  const candidate = (fenced?.body ?? text).trim();
  const trimmed = text.trimStart();
  const looksLikeJson =
    trimmed.startsWith("{") ||
    (fenced?.json === true && !trimmed.startsWith("#")) ||
    /^\{\s*"/.test(candidate) ||
    documentKeys.some((k) => new RegExp(`(?:(["'])${k}\\1|[{,]\\s*${k})\\s*:`).test(text));
  if (!looksLikeJson) return {};
  try {
    const value: unknown = JSON.parse(candidate);
    if (value && typeof value === "object" && !Array.isArray(value)) return { json: value as Record<string, unknown> };
    return { error: "is JSON, but not an object" };
  } catch (error) {
    return { error: `holds JSON that does not parse (${(error as Error).message.slice(0, 200)})` };
  }
}

function clamp(n: number): number {
  return Math.max(0, Math.min(100, Math.round(n)));
}

/** The base plus the points of the rubric's items the document mentions, at most 85. */
export function estimateScore(document: string, rubric: RubricItem[] = rubricFor(undefined)): number {
  return Math.min(BASE_SCORE + mentionedPoints(document, rubric), ESTIMATE_CAP);
}

/** A document's key by the stage's output contract; else another stage's (a late submit, which the caller refuses,
 *  review 212: a PRD sent after its confirm was saved as the architecture); else one named like one. */
function documentEntry(json: Record<string, unknown>, documentKeys: string[]): [string, string] | undefined {
  for (const key of documentKeys) if (typeof json[key] === "string") return [key, json[key]];
  const texts = Object.entries(json).filter((e): e is [string, string] => typeof e[1] === "string");
  return texts.find(([key]) => contractStage(key)) ?? texts.find(([key]) => /(_draft|_updated|content|document)$/.test(key));
}

/** A JSON value as a list: [] where it is none. */
const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** A quality_score as a number or a numeric string ("95"); a string was read as no score and estimated (review 190). */
function scoreOf(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  return typeof value === "string" && /^\s*\d{1,3}(?:\.\d+)?\s*$/.test(value) ? Number(value) : undefined;
}

/** "Quality Score: N/100" on a line of its own at the very end of a text (bold or a heading allowed): a score the
 *  document's prose quotes ("Quality score: 95 is the threshold…") is no score of the draft (review 291). */
function closingScore(text: string): number | undefined {
  const last = text.trimEnd().slice(text.trimEnd().lastIndexOf("\n") + 1);
  const found = /^[\s#*_]*quality\s*score\s*[:=]\s*(\d{1,3})\s*(?:\/\s*100)?[\s*_]*$/i.exec(last);
  return found ? clamp(Number(found[1])) : undefined;
}

/** `documentKeys`: the JSON keys that hold the document, e.g. prd_draft, prd_updated; `rubric`: the stage's, for an
 *  estimate; `field`: where the text came from (claude_result), for a refusal. Refused: JSON that does not parse or
 *  holds no document, which would have been saved raw as the document (review 190). */
export function parseResult(text: string, documentKeys: string[], rubric?: RubricItem[], field = "the result"): Result<ParsedResult> {
  const found = asJson(text, documentKeys);
  const contract = documentKeys[0] ? `"${documentKeys[0]}"` : "the document's key";
  if (found.error) {
    return { ok: false, error: `${field} ${found.error}; nothing was saved. Put only the JSON in ${field}, without prose around it (one \`\`\`json fence at most), keys and strings in double quotes, with the whole document, markdown, in ${contract}; or send the markdown document alone.` };
  }
  const entry = found.json && documentEntry(found.json, documentKeys);
  // JSON without a document, where the result begins with it; a fenced block inside a markdown document (a config in a
  // Dev report) is the document's own.
  if (found.json && !entry && /^(?:\{|```json)/.test(text.trim())) {
    return { ok: false, error: `${field} is JSON without a document; nothing was saved. Put the whole document, markdown, in ${contract}.` };
  }
  const usable = entry ? found.json : undefined;
  if (entry && !entry[1].trim()) {
    const status = typeof usable?.status === "string" ? ` (status ${JSON.stringify(usable.status.slice(0, 40))})` : "";
    return { ok: false, error: `${field}'s "${entry[0]}" is empty${status}; nothing was saved. A session does not stop blocked: put the draft you have in "${entry[0]}", with a low quality_score where the stage has one, and what would settle the rest in questions, which the user answers.` };
  }
  const document = entry?.[1] ?? text;
  const cut = (text: string) => text.slice(0, MAX_ITEM_CHARS);
  // bmad-prd's headless mode names its own: assumptions are gaps, open questions are questions.
  const gaps = [...arrayOf(usable?.gaps), ...arrayOf(usable?.assumptions)].filter((g): g is string => typeof g === "string").slice(0, MAX_GAPS).map(cut);
  const questions: Question[] = [];
  const ids = new Set<string>();
  [...arrayOf(usable?.questions), ...arrayOf(usable?.open_questions)].slice(0, MAX_QUESTIONS).forEach((q, i) => {
    const { id, question, context } = typeof q === "string" ? { question: q } : ((q ?? {}) as Partial<Question>);
    if (typeof question !== "string") return;
    // An id an answer could not name, or one taken, is numbered instead.
    let given = typeof id === "string" && QUESTION_ID.test(id) && !UNNAMEABLE.has(id) && !ids.has(id) ? id : `q${i + 1}`;
    while (ids.has(given)) given = `${given}-${i + 1}`;
    ids.add(given);
    questions.push({ id: given, question: cut(question), ...(typeof context === "string" ? { context: cut(context) } : {}) });
  });
  let room = MAX_NOTES_BYTES;
  const fits = (item: unknown) => (room -= byteLength(JSON.stringify(item))) >= 0;
  const base = { ok: true as const, ...(entry ? { key: entry[0] } : {}), document, questions: questions.filter(fits), gaps: gaps.filter(fits) };
  const given = scoreOf(usable?.quality_score);
  // A score past the scale is a malformed draft, not a perfect one (review 320: 1000 and 1e999 read as 100 and passed
  // the gate).
  if (given !== undefined && !(given >= 0 && given <= 100)) {
    return { ok: false, error: `${field}'s quality_score ${String(usable?.quality_score)} is outside 0-100; nothing was saved. Send the draft's own score, from 0 to 100.` };
  }
  if (given !== undefined) return { ...base, score: clamp(given), scoreSource: "json" };
  const stated = closingScore(base.document);
  if (stated !== undefined) return { ...base, score: stated, scoreSource: "text" };
  return { ...base, score: estimateScore(base.document, rubric), scoreSource: "estimate" };
}
