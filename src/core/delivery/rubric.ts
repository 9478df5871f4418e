// Each scored stage's rubric (seed 003): the sections a good document has, with the points each is worth above the
// base of 60. The score estimate counts what a draft mentions; the gap analysis, for every draft, names what is missing
// or weak: below the gate the refine loop aims at it, at or above it the user confirms knowing it.
import { lines } from "../lines.js";
import { atxHeading } from "../markdown.js";
import type { Stage } from "./pipeline.js";

export interface RubricItem {
  name: string;
  points: number;
  pattern: RegExp;
  /** Wants a section of its own (a heading that matches, with a body); otherwise a mention anywhere is enough. */
  section: boolean;
}

export interface Finding {
  name: string;
  status: "missing" | "weak";
  points: number;
  /** Why weak: how short its section is, that it holds only placeholder text, or that it is only mentioned. */
  detail?: string;
}

export const BASE_SCORE = 60;
/** What a scored stage's items are worth together, above the base. */
const RUBRIC_POINTS = 40;
/** A section shorter than this is weak. */
export const MIN_SECTION_WORDS = 30;
// Template and placeholder text fills a section and says nothing: a body of `TBD {{placeholder}} [TODO]` read as a
// substantial section (review 329). Spans: `{{name}}`, `{config_word}`, and "lorem ipsum" to the end of its line; words:
// TBD or TODO bracketed (`[TODO]`, `<TBD>`, `*TBD*`) or with a colon (`TODO:`), and an ellipsis alone; lines: TBD or TODO
// alone. A bare TODO among other words is a word ("a Tiny TODO app", review 336).
const PLACEHOLDER_SPAN = /\{\{[^{}]*\}\}|\{[\w.-]+\}|\blorem ipsum\b.*$/gi;
const PLACEHOLDER_WORD = /^(?:[[(<*_]+(?:TBD|TODO)[\])>*_]+[.,:;!]*|(?:TBD|TODO):|…|\.{3,})$/;
const PLACEHOLDER_LINE = /^\s*(?:TBD|TODO)[.!]?\s*$/;
// Only from the start of a number: tried inside a long run of digits, the match backtracked quadratically.
const QUANTIFIED = /(?<!\d)\d+\s*(?:%|ms|users|requests|seconds)/i;

const item = (name: string, points: number, pattern: RegExp, section = true): RubricItem => ({ name, points, pattern, section });

// Points per stage add up to RUBRIC_POINTS: all of it scores 100 (the estimate itself stops at 85).
const PO: RubricItem[] = [
  item("Executive summary", 3, /executive summary|overview|summary/i),
  item("Business goals", 4, /goals?|objectives?/i),
  item("Users and user stories", 5, /user stor(?:y|ies)|personas?|users?/i),
  item("Functional requirements", 6, /(?<!non[- ]?)functional requirements?|features?/i),
  item("Non-functional requirements", 4, /non[- ]?functional|technical requirements?|quality attributes?/i),
  item("Acceptance criteria", 5, /acceptance criteria/i),
  item("Scope and priorities", 3, /scope|priorit(?:y|ies)|mvp/i),
  item("Error handling and edge cases", 3, /errors?|edge cases?|failures?/i),
  item("Dependencies and risks", 2, /dependenc(?:y|ies)|risks?/i),
  item("Milestones and timeline", 2, /milestones?|timeline|roadmap|release plan/i),
  item("Quantified targets (e.g. 200 ms, 99.9%)", 3, QUANTIFIED, false),
];

const ARCHITECT: RubricItem[] = [
  item("Overview and context", 3, /overview|context|summary/i),
  item("Components and responsibilities", 6, /components?|modules?|services?|containers?/i),
  item("Data model", 5, /data model|schema|entit(?:y|ies)|database|storage/i),
  item("Interfaces and APIs", 5, /interfaces?|\bapis?\b|endpoints?|contracts?/i),
  item("Technology choices and trade-offs", 4, /technolog(?:y|ies)|tech stack|trade-?offs?|decisions?/i),
  item("Security", 4, /security|authenti|authori|threat/i),
  item("Deployment and operations", 3, /deploy|infrastructure|hosting|operations/i),
  item("Error handling and resilience", 3, /error handling|resilien|failures?|fault/i),
  item("Performance and scalability", 3, /performance|scalab|capacity|latency/i),
  item("Risks", 2, /risks?/i),
  item("Quantified targets (e.g. 200 ms, 99.9%)", 2, QUANTIFIED, false),
];

// Stages without a score gate: only the estimate reads this (sections mentioned, 5 points each).
const GENERIC: RubricItem[] = [
  /executive summary|overview/i, /goals?|objectives?/i, /users?|personas?/i, /requirements?/i, /acceptance criteria/i, /risks?/i,
  /architecture|components?/i, /metrics?|kpi/i, QUANTIFIED,
].map((pattern) => item(pattern.source, 5, pattern, false));

const RUBRICS = new Map<Stage, RubricItem[]>([["po", PO], ["architect", ARCHITECT]]);

export function rubricFor(stage: Stage | undefined): RubricItem[] {
  return (stage && RUBRICS.get(stage)) || GENERIC;
}

/** The points of every item the document mentions anywhere (seed 003's estimate counts presence). */
export function mentionedPoints(document: string, rubric: RubricItem[]): number {
  return rubric.reduce((n, i) => n + (i.pattern.test(document) ? i.points : 0), 0);
}

interface Section {
  heading: string;
  /** Its body's words, placeholders left out. */
  words: number;
  placeholders: number;
}

/** A line's words and its placeholders, counted apart. */
function countWords(line: string): { words: number; placeholders: number } {
  if (PLACEHOLDER_LINE.test(line)) return { words: 0, placeholders: 1 };
  let placeholders = 0;
  const rest = line.replace(PLACEHOLDER_SPAN, () => {
    placeholders++;
    return " ";
  });
  let words = 0;
  for (const token of rest.split(/\s+/)) {
    if (!token) continue;
    if (PLACEHOLDER_WORD.test(token)) placeholders++;
    else words++;
  }
  return { words, placeholders };
}

/** Every ATX heading outside code fences, with the words of its body (its subsections included). */
function sections(document: string): Section[] {
  const all = lines(document);
  const heads: Array<{ line: number; level: number; text: string }> = [];
  // words[k], placeholders[k]: those in lines 0..k-1, so a section's count is one subtraction.
  const words = [0];
  const placeholders = [0];
  let fenced = false;
  for (const [k, line] of all.entries()) {
    if (/^\s{0,3}(?:```|~~~)/.test(line)) fenced = !fenced;
    const h = fenced ? undefined : atxHeading(line);
    if (h) heads.push({ line: k, ...h });
    const counted = h ? { words: 0, placeholders: 0 } : countWords(line);
    words.push(words[k]! + counted.words);
    placeholders.push(placeholders[k]! + counted.placeholders);
  }
  // A section ends at the next heading of its level or above: a stack finds every end in one pass.
  const ends = heads.map(() => all.length);
  const open: number[] = [];
  for (const [i, h] of heads.entries()) {
    while (open.length && heads[open[open.length - 1]!]!.level >= h.level) ends[open.pop()!] = h.line;
    open.push(i);
  }
  const between = (counts: number[], i: number) => counts[ends[i]!]! - counts[heads[i]!.line + 1]!;
  return heads.map((h, i) => ({ heading: h.text, words: between(words, i), placeholders: between(placeholders, i) }));
}

/** A heading answers at most this many items: one naming every item ("Summary: goals, user stories, functional
 *  requirements, …") answered them all (review 329), and "User Acceptance Criteria" names two. */
const ITEMS_PER_HEADING = 2;

/** The items a heading answers: those it names most specifically (the longest matches), the rubric's order breaking a
 *  tie. Taken by the name it holds first, "MVP Features" answered scope alone and lost its features (review 336). */
function itemsOf(heading: string, rubric: RubricItem[]): RubricItem[] {
  const named = rubric.flatMap((i) => {
    const longest = i.section ? longestMatch(heading, i.pattern) : 0;
    return longest ? [{ i, longest }] : [];
  });
  return named.sort((a, b) => b.longest - a.longest).slice(0, ITEMS_PER_HEADING).map((n) => n.i);
}

function longestMatch(text: string, pattern: RegExp): number {
  let longest = 0;
  for (const m of text.matchAll(new RegExp(pattern.source, `${pattern.flags}g`))) longest = Math.max(longest, m[0].length);
  return longest;
}

/** What a draft lacks by the rubric: missing items, and sections that are thin, placeholders or only mentioned. */
export function gapAnalysis(document: string, rubric: RubricItem[]): Finding[] {
  // Each item's fullest section among the headings that answer it.
  const fullest = new Map<RubricItem, Section>();
  for (const s of sections(document)) {
    for (const i of itemsOf(s.heading, rubric)) if (s.words > (fullest.get(i)?.words ?? -1)) fullest.set(i, s);
  }
  const findings: Finding[] = [];
  for (const i of rubric) {
    if (!i.pattern.test(document)) {
      findings.push({ name: i.name, status: "missing", points: i.points });
      continue;
    }
    if (!i.section) continue;
    const section = fullest.get(i);
    const weak = (detail: string) => findings.push({ name: i.name, status: "weak", points: i.points, detail });
    if (!section) weak("mentioned, no section of its own");
    else if (section.words < MIN_SECTION_WORDS) weak(section.placeholders ? "placeholder text" : `its section has ${section.words} word${section.words === 1 ? "" : "s"}`);
  }
  return findings;
}

/** A scored draft's score by the server's reading: the base, and the points of every item not found missing or weak. */
export function readingScore(findings: Finding[]): number {
  return BASE_SCORE + RUBRIC_POINTS - findings.reduce((n, f) => n + f.points, 0);
}

export function formatFinding(f: Finding): string {
  return `${f.name}: ${f.status}${f.detail ? ` (${f.detail})` : ""}, ${f.points} points`;
}
