// YAML that a user, a collaborator or the model wrote (a project's configs, sprint status, project context, a tree's
// manifests and frontmatter), parsed at a cost and a size bounded by the text's own.
import { parse } from "yaml";

/** How deep a config or status file may nest: far past any BMAD's, and the parsers' cost grows with the depth. */
const MAX_NESTING = 64;
/** Entries (lines and flow items) any BMAD YAML file holds at most, many times over (its largest has about 1,100). */
export const MAX_YAML_ENTRIES = 10_000;

/** Why YAML or TOML text is not worth parsing, by one linear look, or undefined: nesting past MAX_NESTING (flow
 *  brackets `[[[…`, a line's run of indentation, dashes and `?` marks), or more than `maxEntries` entries (lines
 *  and flow items). A planted file 100,000 levels deep, or of 250,000 items, cost a second each parse. Brackets and
 *  commas in strings and comments are text, where the parser takes them so: a quote opens a string only where a
 *  value starts (after `: `, `- `, `[`, `{`, `,`, a line's indentation, or in TOML `=`), and `#` a comment only after
 *  a space. Where in doubt they are counted: `k: [a', 1, 1, …]` is a plain `a'` and a million items to the parser
 *  (review 15: counting none of them let 1.28 GB through). */
export function tooHeavyToParse(text: string, maxEntries: number, format: "yaml" | "toml" = "yaml"): string | undefined {
  let depth = 0;
  let lead = 0;
  let entries = 0;
  let atLineStart = true;
  let quote = 0; // the open string's quote, '"' or "'", or 0
  let comment = false;
  let prev = 10; // the character before this one on its line (a newline at its start)
  let valueStarts = true; // only indicators and spaces since the line's start or the last `[`, `{`, `,` or `: `
  let colon = false; // the character before was `:`, an indicator if a space follows
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      // A string is taken to end with its line: what follows it is counted, never hidden.
      atLineStart = valueStarts = true;
      comment = colon = false;
      lead = quote = 0;
      prev = 10;
      continue;
    }
    if (comment) continue;
    if (quote) {
      if (c === 92 && quote === 34) i++; // a backslash escape in a double-quoted string
      else if (c === quote) quote = 0;
      prev = c;
      continue;
    }
    if (atLineStart && (c === 32 || c === 45 || c === 9 || c === 63)) {
      // Indentation, sequence dashes and complex-key marks (`- - - x`, `? ? ? x`): each a level at most.
      if (++lead > 4 * MAX_NESTING) return `it nests deeper than ${MAX_NESTING} levels`;
      prev = c;
      continue;
    }
    if (atLineStart && ++entries > maxEntries) return `it has more than ${maxEntries} entries`;
    atLineStart = false;
    if (colon) valueStarts = c === 32 || c === 9;
    colon = false;
    if (c === 35 && (prev === 32 || prev === 9 || prev === 10)) comment = true;
    else if ((c === 34 || c === 39) && valueStarts) {
      quote = c;
      valueStarts = false;
    } else if (c === 44 && ++entries > maxEntries) return `it has more than ${maxEntries} entries`;
    else if (c === 91 || c === 123) {
      if (++depth > MAX_NESTING) return `it nests deeper than ${MAX_NESTING} levels`;
    } else if ((c === 93 || c === 125) && depth > 0) depth--;
    if (c === 91 || c === 123 || c === 44 || (format === "toml" && c === 61)) valueStarts = true;
    else if (c === 58) colon = true;
    else if (c !== 32 && c !== 9 && !quote) valueStarts = false;
    prev = c;
  }
  return undefined;
}

/** The text parsed, or an Error naming what is wrong: refused unheavy (tooHeavyToParse) first; duplicate keys not
 *  checked (the yaml package's check is quadratic in the keys: 40,000 took 36 s; the last one wins, as in BMAD's
 *  Python); and no aliases (BMAD's files have none, and each is a copy: 99 aliases of a 900 KB string made an
 *  answer of 95 MB). */
export function parseBoundedYaml(text: string, maxEntries = MAX_YAML_ENTRIES): unknown {
  const heavy = tooHeavyToParse(text, maxEntries);
  if (heavy) throw new Error(`${heavy}, far past any BMAD file's`);
  return parse(text, { uniqueKeys: false, maxAliasCount: 0 });
}
