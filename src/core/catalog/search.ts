// Ranks agents, workflows and skills for a free-text query: name, then title, then description,
// then the words of the entry file body (6.12's bmad-prd says "product requirements" only in its body).
import type { CatalogRecord, RecordKind, SearchIndex } from "./bundle.js";
import type { Catalog } from "./catalog.js";
import { shortName } from "./names.js";

export interface SearchHit {
  record: CatalogRecord;
  score: number;
}

const WORD = /[a-z0-9]+/g;

export function words(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).filter((w) => w.length >= 2);
}

const ACRONYM_FIRST = /\b([A-Z]{2,6})\s*\(([A-Za-z][A-Za-z -]{3,80})\)/g;
// "Product Requirements Document (PRD)": scanning for the phrase first tries up to six words at every word of the
// text (a third of a 6.12 build's time); the parenthesised acronym is rare, so it is found first and the phrase
// read back from it, within the text since the previous match.
const ACRONYM_PAREN = /\(([A-Z]{2,6})\)/g;
const PHRASE_BEFORE = /\b((?:[A-Za-z]+[ -]){1,5}[A-Za-z]+)\s*$/;
/** Longer than any phrase of six words that a text would use. */
const LOOKBACK = 400;

function initials(phrase: string[]): string {
  return phrase.map((w) => w[0]).join("");
}

/** Collects acronyms a text defines: "PRD (Product Requirements Document)" or "Product Requirements Document (PRD)". */
export function findAcronyms(text: string, into: Record<string, string>): void {
  for (const [, acronym, expansion] of text.matchAll(ACRONYM_FIRST)) {
    const w = words(expansion!);
    if (initials(w) === acronym!.toLowerCase()) into[acronym!.toLowerCase()] ??= w.join(" ");
  }
  let from = 0;
  for (const paren of text.matchAll(ACRONYM_PAREN)) {
    const phrase = PHRASE_BEFORE.exec(text.slice(Math.max(from, paren.index - LOOKBACK), paren.index));
    if (!phrase) continue;
    from = paren.index + paren[0].length;
    const acronym = paren[1]!;
    const w = words(phrase[1]!).slice(-acronym.length);
    if (initials(w) === acronym.toLowerCase()) into[acronym.toLowerCase()] ??= w.join(" ");
  }
}

/** Query words, plus any acronym whose expansion contains them all ("product requirements" -> prd). */
function queryTerms(query: string, acronyms: Record<string, string> = {}): string[] {
  const q = new Set(words(query));
  if (q.size >= 2) {
    for (const [acronym, expansion] of Object.entries(acronyms)) {
      const expanded = new Set(expansion.split(" "));
      if ([...q].every((w) => expanded.has(w))) q.add(acronym);
    }
  }
  return [...q];
}

export function search(catalog: Catalog, index: SearchIndex, query: string, kinds: RecordKind[], limit = 10): SearchHit[] {
  const q = queryTerms(query, index.acronyms);
  if (!q.length) return [];
  const records = kinds.flatMap((k) => catalog.list(k));
  const bodies = records.map((r) => index.terms[catalog.recordIndex(r)] ?? {});
  // Own keys only: the counts are plain objects, and a query word such as "constructor" names a property of every one.
  const count = (body: Record<string, number>, w: string): number => (Object.hasOwn(body, w) ? body[w]! : 0);
  // Inverse document frequency over the candidate set, so common words weigh little.
  const idf = new Map(q.map((w) => [w, Math.log(1 + records.length / (1 + bodies.filter((b) => count(b, w) > 0).length))]));
  const phrase = words(query).join(" ");
  const hits: SearchHit[] = [];
  records.forEach((record, i) => {
    const name = shortName(record).toLowerCase();
    const nameWords = new Set(words(`${record.name} ${name}`));
    const title = new Set(words(`${record.title ?? ""} ${record.displayName ?? ""}`));
    const description = (record.description ?? "").toLowerCase();
    const descWords = new Set(words(description));
    let score = name === phrase.replace(/ /g, "-") ? 100 : 0;
    for (const w of q) {
      const weight = idf.get(w)!;
      if (nameWords.has(w)) score += 30 * weight;
      if (title.has(w)) score += 15 * weight;
      if (descWords.has(w)) score += 8 * weight;
      const tf = count(bodies[i]!, w);
      if (tf) score += 2 * Math.log(1 + tf) * weight;
    }
    if (q.length > 1 && description.includes(phrase)) score += 20;
    if (score > 0) hits.push({ record, score: Math.round(score * 100) / 100 });
  });
  hits.sort((a, b) => b.score - a.score || a.record.name.localeCompare(b.record.name));
  return hits.slice(0, limit);
}
