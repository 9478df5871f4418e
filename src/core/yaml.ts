// YAML that a user, a collaborator or the model wrote (a project's configs, sprint status, project context, a tree's
// manifests and frontmatter), parsed at a cost and a size bounded by the text's own.
import { Composer, Parser, YAMLParseError, type Document, type DocumentOptions, type ErrorCode, type ParseOptions, type SchemaOptions } from "yaml";

/** How deep a config or status file may nest: far past any BMAD's, and the parsers' cost grows with the depth. */
const MAX_NESTING = 64;
/** Entries (lines and flow items) any BMAD YAML file holds at most, many times over (its largest has about 1,100). */
export const MAX_YAML_ENTRIES = 10_000;

/** Why YAML or TOML text is not worth parsing, by one linear look, or undefined: nesting past MAX_NESTING (flow
 *  brackets `[[[…`, a line's run of indentation, dashes and `?` marks), or more than `maxEntries` entries (lines
 *  and flow items). A planted file 100,000 levels deep, or of 250,000 items, cost a second each parse. An upper
 *  bound, blind to quotes and comments: every `[`, `{` and `,` counts, in a string too. Each way of telling a
 *  string the parser sees from one it does not was got around (an apostrophe in a plain value, a continuation
 *  line, a string closed on the next line: a million items, 17 s and 1.26 GB a parse; reviews 15 and 16). No BMAD
 *  file comes near either limit. */
export function tooHeavyToParse(text: string, maxEntries: number): string | undefined {
  let depth = 0;
  let lead = 0;
  let entries = 0;
  let atLineStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      atLineStart = true;
      lead = 0;
      continue;
    }
    if (atLineStart && (c === 32 || c === 45 || c === 9 || c === 63)) {
      // Indentation, sequence dashes and complex-key marks (`- - - x`, `? ? ? x`): each a level at most.
      if (++lead > 4 * MAX_NESTING) return `it nests deeper than ${MAX_NESTING} levels`;
      continue;
    }
    if (atLineStart && ++entries > maxEntries) return `it has more than ${maxEntries} entries`;
    atLineStart = false;
    if (c === 44 && ++entries > maxEntries) return `it has more than ${maxEntries} entries`;
    else if (c === 91 || c === 123) {
      if (++depth > MAX_NESTING) return `it nests deeper than ${MAX_NESTING} levels`;
    } else if ((c === 93 || c === 125) && depth > 0) depth--;
  }
  return undefined;
}

/** Characters a YAML file parsed here may hold: BMAD's own are a few KB, a big sprint's status tens of KB. The yaml
 *  package parses about a megabyte a second whatever the text, so this holds a project's object a quarter of a second
 *  at most (review 63: 600 KB of `&a ` anchors took 41 s, each error's context built from the text before it). */
const MAX_YAML_CHARS = 256 * 1024;

/** Why a YAML file of `size` is not read (its characters, or its bytes where a caller checks before decoding: never
 *  fewer), or undefined: past MAX_YAML_CHARS, said one way wherever it is checked. */
export function pastYamlSize(size: number): string | undefined {
  return size > MAX_YAML_CHARS ? `it is ${Math.ceil(size / 1024)} KiB, past the ${MAX_YAML_CHARS / 1024} KiB a YAML file is read to` : undefined;
}

/** Why YAML text is not worth parsing: too heavy by tooHeavyToParse, or past MAX_YAML_CHARS. */
function tooHeavyYaml(text: string, maxEntries: number): string | undefined {
  return tooHeavyToParse(text, maxEntries) ?? pastYamlSize(text.length);
}

/** Double quotes a YAML file may hold: the yaml package's cost grows with a run of them (review 61: a writer's 512 KiB
 *  of `"` took 27 s a parse); 8,000 parse in 0.1 s, and BMAD's files hold a few hundred at most. */
const MAX_YAML_QUOTES = 8_000;
export function tooManyQuotes(text: string): string | undefined {
  let quotes = 0;
  for (let i = text.indexOf('"'); i >= 0; i = text.indexOf('"', i + 1)) if (++quotes > MAX_YAML_QUOTES) return `it holds more than ${MAX_YAML_QUOTES} double quotes`;
  return undefined;
}

/** The line and column of `offset` in `text`, both from 1, as the yaml package and ruamel's errors say them. */
export function linePos(text: string, offset: number): [number, number] {
  const before = text.slice(0, offset);
  return [before.split("\n").length, offset - before.lastIndexOf("\n")];
}

type ComposeError = (source: number | [number, number] | { offset?: number }, code: string, message: string, warning?: boolean) => void;

/** The text's YAML documents, composed until the first error, which is thrown (a YAMLParseError naming its line and
 *  column, with no text of the file): a planted file's thousands of errors each cost an Error, and with the package's
 *  pretty errors a scan of the text before each (review 63: 600 KB of `&a ` anchors took 41 s). Duplicate keys are
 *  not checked here (the package's check is quadratic in the keys: 40,000 took 36 s). An error `readsItself` names
 *  is passed over: the caller reads that part of the text its own way. */
export function composeUntilError(text: string, options: ParseOptions & DocumentOptions & SchemaOptions = {}, readsItself?: (code: ErrorCode, offset: number) => boolean): Document.Parsed[] {
  // The first error found, thrown again wherever the package reports it anew (it catches a throw of a tag's resolver
  // and reports it as an error at the document's start).
  let first: YAMLParseError | undefined;
  const stop = (offset: number, code: string, message: string): YAMLParseError => {
    if (first) return first;
    const [line, col] = linePos(text, offset);
    first = new YAMLParseError([offset, offset + 1], code as ErrorCode, `${message} at line ${line}, column ${col}`);
    first.linePos = [{ line, col }];
    return first;
  };
  const composer = new Composer({ ...options, uniqueKeys: false, logLevel: "silent" });
  // The composer reports each error through this (typed private, assigned in its constructor): the first one ends it.
  (composer as unknown as { onError: ComposeError }).onError = (source, code, message, warning) => {
    const offset = typeof source === "number" ? source : Array.isArray(source) ? source[0] : (source.offset ?? 0);
    if (!warning && !readsItself?.(code as ErrorCode, offset)) throw stop(offset, code, message);
  };
  function* tokens() {
    for (const token of new Parser().parse(text)) {
      if (token.type === "error") throw stop(token.offset, "UNEXPECTED_TOKEN", token.message);
      yield token;
    }
  }
  const docs = [...composer.compose(tokens(), true)] as Document.Parsed[];
  const failed = docs.find((doc) => doc.errors.length)?.errors[0];
  if (failed) throw stop(failed.pos[0], failed.code, failed.message);
  if (docs.length > 1) throw stop(docs[1]!.range[0], "MULTIPLE_DOCS", "Source contains multiple documents");
  return docs;
}

/** The text parsed, or a YAMLParseError naming what is wrong and where (composeUntilError): refused unheavy
 *  (tooHeavyYaml) first; duplicate keys not checked (the last one wins, as in BMAD's Python); and no aliases (BMAD's
 *  files have none, and each is a copy: 99 aliases of a 900 KB string made an answer of 95 MB). */
export function parseBoundedYaml(text: string, maxEntries = MAX_YAML_ENTRIES): unknown {
  const heavy = tooHeavyYaml(text, maxEntries);
  if (heavy) throw new Error(`${heavy}, far past any BMAD file's`);
  const [doc] = composeUntilError(text);
  return doc ? doc.toJS({ maxAliasCount: 0 }) : null;
}

/** What parseBoundedToml throws for a file past its bounds. */
export class TooHeavy extends Error {}

/** Entries a TOML file may hold (lines and commas, as tooHeavyToParse counts them): a skill's 7 MB customize.toml of
 *  600,000 keys took 2.8 s to parse, at every build and render (review 35). */
export const MAX_TOML_ENTRIES = 20_000;

/** `text` parsed by `parse`, refused past MAX_TOML_ENTRIES, or when it nests deeper than MAX_NESTING: dotted keys
 *  nest with no bracket for tooHeavyToParse to count (`a.a.…a = 1`, 20,000 levels in 40 KB, overflowed the stack:
 *  review 19). Measured on the parsed value with a stack of its own; one too deep for the parser itself is refused
 *  the same way. */
export function parseBoundedToml<T>(text: string, parse: () => T): T {
  // Each part of a dotted key is a table too: 19,990 lines of 63 parts parsed in 3 s and 1.1 GB (review 36).
  let dots = 0;
  for (let i = text.indexOf("."); i >= 0; i = text.indexOf(".", i + 1)) if (++dots > MAX_TOML_ENTRIES) throw new TooHeavy(`it has more than ${MAX_TOML_ENTRIES} dotted parts, far past any BMAD file's`);
  const heavy = tooHeavyToParse(text, MAX_TOML_ENTRIES);
  if (heavy) throw new TooHeavy(`${heavy}, far past any BMAD file's`);
  const tooDeep = new TooHeavy(`it nests deeper than ${MAX_NESTING} levels, far past any BMAD file's`);
  let value: T;
  try {
    value = parse();
  } catch (error) {
    if (error instanceof RangeError) throw tooDeep;
    throw error;
  }
  const todo: Array<[unknown, number]> = [[value, 0]];
  while (todo.length) {
    const [v, depth] = todo.pop()!;
    if (depth > MAX_NESTING) throw tooDeep;
    if (v && typeof v === "object" && !(v instanceof Date)) for (const child of v instanceof Map ? v.values() : Object.values(v)) todo.push([child, depth + 1]);
  }
  return value;
}

/** What a parser says is wrong, and where, without the file's own text it may quote (an unresolved alias names itself:
 *  `db_password: *Xy9secret` is one). YAML's is told by its code alone: its messages quote what they stopped at (a
 *  block scalar header's rest, `|Hunter2…`; a version; a tag: review 346, a password in a tree's warnings). */
export function parseErrorSummary(error: unknown): string {
  const e = error as { message?: unknown; linePos?: Array<{ line: number; col: number }>; line?: unknown; column?: unknown } | null;
  const at = e?.linePos?.[0] ? ` at line ${e.linePos[0].line}, column ${e.linePos[0].col}` : typeof e?.line === "number" ? ` at line ${e.line}, column ${String(e.column)}` : "";
  if (error instanceof YAMLParseError) return `${error.code.toLowerCase().replaceAll("_", " ")}${at}`;
  const first = String(e?.message ?? error).split("\n")[0]!;
  const what = first.replace(/ at line \d+, column \d+:?$/, "").replace(/:\s.*$/, "").replace(/:$/, "");
  return `${what.slice(0, 200)}${at}`;
}
