// Seed 003 score extraction: JSON `quality_score`, then "Quality Score: N/100", then a content estimate
// capped at 85 (so 90+ always needs an explicit score). Also pulls the document, gaps and questions.
import { BASE_SCORE, mentionedPoints, rubricFor, type RubricItem } from "./rubric.js";
import { byteLength } from "./stage-inputs.js";

export interface Question {
  id: string;
  question: string;
  context?: string;
}

export interface ParsedResult {
  score: number;
  scoreSource: "json" | "text" | "estimate";
  document: string;
  gaps: string[];
  questions: Question[];
}

const ESTIMATE_CAP = 85;
/** What a draft's gaps and questions give the session at most (they are kept in its state): the rest is left out. */
const MAX_QUESTIONS = 20;
const MAX_GAPS = 50;
const MAX_ITEM_CHARS = 2000;
/** Their bytes as JSON together, the questions first. */
const MAX_NOTES_BYTES = 32 * 1024;
/** A question id as an answer can name it (bmad-task's answers take ids of at most 64 characters). */
const QUESTION_ID = /^[\w.-]{1,64}$/;
/** Ids no answer can name: a JSON object's `__proto__` is dropped on the way in (review 96: the session was stuck). */
const UNNAMEABLE = new Set(["__proto__"]);

function asJson(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n```\s*$/.exec(trimmed);
  const candidate = fenced ? fenced[1]! : trimmed;
  if (!candidate.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(candidate);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function clamp(n: number): number {
  return Math.max(0, Math.min(100, Math.round(n)));
}

/** The base plus the points of the rubric's items the document mentions, at most 85. */
export function estimateScore(document: string, rubric: RubricItem[] = rubricFor(undefined)): number {
  return Math.min(BASE_SCORE + mentionedPoints(document, rubric), ESTIMATE_CAP);
}

/** `documentKeys`: the JSON keys that hold the document, e.g. prd_draft, prd_updated; `rubric`: the stage's, for an estimate. */
export function parseResult(text: string, documentKeys: string[], rubric?: RubricItem[]): ParsedResult {
  const json = asJson(text);
  const document =
    (json && documentKeys.map((k) => json[k]).find((v): v is string => typeof v === "string")) ??
    (json && Object.entries(json).find(([k, v]) => /(_draft|_updated|content|document)$/.test(k) && typeof v === "string")?.[1]) ??
    text;
  const cut = (text: string) => text.slice(0, MAX_ITEM_CHARS);
  const gaps = Array.isArray(json?.gaps) ? json.gaps.filter((g): g is string => typeof g === "string").slice(0, MAX_GAPS).map(cut) : [];
  const questions: Question[] = [];
  const ids = new Set<string>();
  if (Array.isArray(json?.questions)) {
    json.questions.slice(0, MAX_QUESTIONS).forEach((q, i) => {
      const { id, question, context } = typeof q === "string" ? { question: q } : ((q ?? {}) as Partial<Question>);
      if (typeof question !== "string") return;
      // An id an answer could not name, or one taken, is numbered instead.
      let given = typeof id === "string" && QUESTION_ID.test(id) && !UNNAMEABLE.has(id) && !ids.has(id) ? id : `q${i + 1}`;
      while (ids.has(given)) given = `${given}-${i + 1}`;
      ids.add(given);
      questions.push({ id: given, question: cut(question), ...(typeof context === "string" ? { context: cut(context) } : {}) });
    });
  }
  let room = MAX_NOTES_BYTES;
  const fits = (item: unknown) => (room -= byteLength(JSON.stringify(item))) >= 0;
  const base = { document: String(document), questions: questions.filter(fits), gaps: gaps.filter(fits) };
  if (typeof json?.quality_score === "number") return { ...base, score: clamp(json.quality_score), scoreSource: "json" };
  const quoted = /"quality_score"\s*:\s*(\d{1,3})/.exec(text) ?? /quality\s*score\s*[:=]\s*(\d{1,3})\s*(?:\/\s*100)?/i.exec(text);
  if (quoted) return { ...base, score: clamp(Number(quoted[1])), scoreSource: json ? "json" : "text" };
  return { ...base, score: estimateScore(base.document, rubric), scoreSource: "estimate" };
}
