// The `<agent …>` tags of a classic agent file, each looked at once, from `<agent` to its `>`: a pattern like
// /<agent\b[^>]*>/ scanned to the file's end from every `<agent` without a `>` after it (review 243: 40,000 of them in
// one file the model wrote held the bridge 12 s a rebuild; reviews 225 and 243).

/** A tag's characters kept at most: attributes, not a file's worth. */
const MAX_TAG_CHARS = 4096;
const WORD = /[A-Za-z0-9_]/;

/** Each `<agent` tag of `text` (a word boundary after `agent`), cut at MAX_TAG_CHARS, in order. */
export function* agentTags(text: string): Generator<string> {
  for (let at = text.indexOf("<agent"); at >= 0; at = text.indexOf("<agent", at + 1)) {
    if (WORD.test(text[at + 6] ?? "")) continue;
    const end = text.indexOf(">", at);
    // No `>` after this one: none after a later one either.
    if (end < 0) return;
    yield text.slice(at, Math.min(end + 1, at + MAX_TAG_CHARS));
    at = end;
  }
}
