import { stemmer } from "stemmer";
import { cutAt } from "../lines.js";

// Words as both indexes see them: SQLite's unicode61 tokenizer with remove_diacritics 2 on the Worker,
// the same rule in JavaScript on the bridge. A query is only ever words: FTS5 syntax (quotes, *, NEAR,
// -, :, parentheses) is separators, so no query can fail.

/** At most this many words of a query are searched. */
export const MAX_QUERY_WORDS = 32;

/** Lower-cased letter and digit runs, diacritics removed ("Café-Déploiement" -> cafe, deploiement). */
export function words(text: string): string[] {
  return text.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** English words too common to tell memories apart: left out of a query (unless it has nothing else), which
 *  keeps BM25 from scoring most of a large memory for "how", "the" and "and". */
const STOP_WORDS = new Set(
  ("a an and any are as at be been but by can could did do does for from had has have how i if in into is it its me my no not " +
    "of on or our so than that the their them then there these they this those to too us was we were what when where which who " +
    "why will with would you your").split(" "),
);

/** The query's distinct words, in order, without stop words, at most MAX_QUERY_WORDS. */
export function queryWords(query: string): string[] {
  const all = [...new Set(words(query))];
  const kept = all.filter((w) => !STOP_WORDS.has(w));
  return (kept.length ? kept : all).slice(0, MAX_QUERY_WORDS);
}

/** The same query for FTS5: each word a quoted string, any of them may match. */
export function ftsQuery(query: string): string | undefined {
  const list = queryWords(query);
  return list.length ? list.map((w) => `"${w}"`).join(" OR ") : undefined;
}

/** Whether a word of a memory (as words() gives it) matches one of the query's, stem for stem (Porter, as
 *  FTS5's porter tokenizer and the bridge's index stem them). */
export function queryMatcher(query: string): (word: string) => boolean {
  const stems = new Set(queryWords(query).map(stemmer));
  // Porter stemming rewrites endings only, so a word can match only if it starts as a query stem does; the
  // others are not stemmed at all, and the rest once each (a recall's snippets see the same words again).
  const initials = new Set([...stems].map((s) => s[0]));
  const seen = new Map<string, boolean>();
  return (word) => {
    if (!initials.has(word[0])) return false;
    let match = seen.get(word);
    if (match === undefined) seen.set(word, (match = stems.has(stemmer(word))));
    return match;
  };
}

/** A snippet's characters at most, and each of its words' and gaps': a window of 16 words of 30,000 characters each
 *  made one recall of 30 memories 905 KB (review 426). */
export const SNIPPET_CHARS = 300;
const SNIPPET_PART_CHARS = 60;

/** `text` cut to `max` characters, "…" saying so. */
const shortened = (text: string, max: number) => (text.length > max ? `${cutAt(text, max)}…` : text);

/**
 * A short window of `text` around its first matching words, matches in **bold**: what FTS5's snippet()
 * gives on the Worker, at most SNIPPET_CHARS. `matches` says whether a word of the text (as words() gives it) is a
 * query word.
 */
export function snippet(text: string, matches: (word: string) => boolean, size = 16): string {
  const tokens = [...text.matchAll(/[\p{L}\p{N}\p{M}]+/gu)];
  if (!tokens.length) return text.slice(0, 200);
  // Plain ASCII letters and digits are their own word, lower-cased; anything else goes through words().
  const hits = tokens.map((t) => matches(/^[a-z0-9]+$/i.test(t[0]) ? t[0].toLowerCase() : words(t[0]).join("")));
  // The window of `size` tokens with the most matches (the first such), by a running count.
  let count = hits.slice(0, size).filter(Boolean).length;
  let [best, bestCount] = [0, count];
  for (let start = 1; start + size <= tokens.length; start++) {
    count += (hits[start + size - 1] ? 1 : 0) - (hits[start - 1] ? 1 : 0);
    if (count > bestCount) [best, bestCount] = [start, count];
  }
  const end = Math.min(tokens.length, best + size);
  let out = best > 0 ? "…" : "";
  let at = tokens[best]!.index!;
  for (let i = best; i < end; i++) {
    const token = tokens[i]!;
    const word = shortened(token[0], SNIPPET_PART_CHARS);
    out += shortened(text.slice(at, token.index), SNIPPET_PART_CHARS) + (hits[i] ? `**${word}**` : word);
    at = token.index! + token[0].length;
  }
  return shortened((out + (end < tokens.length ? "…" : shortened(text.slice(at), SNIPPET_PART_CHARS))).replace(/\s+/g, " ").trim(), SNIPPET_CHARS);
}
