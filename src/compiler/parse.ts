// Small parsers for the formats BMAD trees use. Each returns a value or an Error: callers warn and skip.
import { parse as parseToml } from "smol-toml";
import { splitFrontmatter } from "../core/markdown.js";
import { YAMLParseError } from "yaml";
import { parseBoundedToml, parseBoundedYaml, parseErrorSummary } from "../core/yaml.js";
import type { Result } from "../core/result.js";

export type Parsed<T> = Result<{ value: T }>;

export function yaml(text: string): Parsed<unknown> {
  try {
    return { ok: true, value: parseBoundedYaml(text) };
  } catch (err) {
    // Without the text it stopped at: a tree's warnings are shown to the model (a config's password was: review 346).
    return { ok: false, error: err instanceof YAMLParseError ? parseErrorSummary(err) : firstLine(err) };
  }
}

export function toml(text: string): Parsed<Record<string, unknown>> {
  try {
    return { ok: true, value: parseBoundedToml(text, () => parseToml(text)) as Record<string, unknown> };
  } catch (err) {
    return { ok: false, error: firstLine(err) };
  }
}

/** Fields a CSV row may have: BMAD's manifests and help catalogs have under twenty. */
const MAX_CSV_COLUMNS = 256;

/** RFC 4180 CSV with a header row -> objects. Unterminated quotes, ragged rows and rows past MAX_CSV_COLUMNS are
 *  errors: 100,000 columns in an 8 MB manifest the model wrote took the bridge 3.3 s and 900 MB a rebuild (review 243). */
export function csv(text: string): Parsed<Array<Record<string, string>>> {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = 0;
  const s = text.replace(/^\uFEFF/, "");
  while (i < s.length) {
    const c = s[i]!;
    if (quoted) {
      if (c === '"' && s[i + 1] === '"') (field += '"'), (i += 2);
      else if (c === '"') (quoted = false), i++;
      else (field += c), i++;
      continue;
    }
    if (c === '"') {
      if (field !== "") return { ok: false, error: `stray quote in row ${rows.length + 1}` };
      quoted = true;
    } else if (c === ",") {
      row.push(field), (field = "");
      if (row.length >= MAX_CSV_COLUMNS) return { ok: false, error: `row ${rows.length + 1} has more than ${MAX_CSV_COLUMNS} fields, past any BMAD manifest's` };
    }
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && s[i + 1] === "\n") i++;
      row.push(field), rows.push(row), (row = []), (field = "");
    } else field += c;
    i++;
  }
  if (quoted) return { ok: false, error: "unterminated quoted field" };
  if (field !== "" || row.length) row.push(field), rows.push(row);
  const data = rows.filter((r) => !(r.length === 1 && r[0] === ""));
  const header = data.shift();
  if (!header) return { ok: true, value: [] };
  const out: Array<Record<string, string>> = [];
  for (const [n, r] of data.entries()) {
    if (r.length !== header.length) {
      return { ok: false, error: `row ${n + 2} has ${r.length} fields, header has ${header.length}` };
    }
    out.push(Object.fromEntries(header.map((h, j) => [h, r[j] ?? ""])));
  }
  return { ok: true, value: out };
}

/** Splits `---\nyaml\n---\nbody`. No frontmatter -> data {} and the whole text as body. */
export function frontmatter(text: string): Parsed<{ data: Record<string, unknown>; body: string }> {
  const split = splitFrontmatter(text);
  if (!split) return { ok: true, value: { data: {}, body: text } };
  const y = yaml(split.yaml);
  if (!y.ok) return y;
  return { ok: true, value: { data: asObject(y.value), body: split.body } };
}

/** The first fenced ```yaml block of a markdown file (v4 agents keep their definition there). */
export function yamlBlock(text: string): Parsed<Record<string, unknown>> | null {
  const m = /```ya?ml\r?\n([\s\S]*?)```/.exec(text);
  if (!m) return null;
  const y = yaml(m[1]!);
  return y.ok ? { ok: true, value: asObject(y.value) } : y;
}

export function asObject(v: unknown): Record<string, unknown> {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export function str(v: unknown): string | undefined {
  if (typeof v === "string") return v.trim() || undefined;
  if (typeof v === "number") return String(v);
  return undefined;
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split("\n")[0] ?? "parse error";
}
