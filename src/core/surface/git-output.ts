// What bmad-run's read-only git lines may show of the project's files (command-line.ts): what bmad-files would.
// A diff shows a file's lines, so each file's section of git's output passes the rule bmad-files reads by
// (catalog/config.ts): a file that holds secrets (.env, a key) is read by no tool, so its section becomes a one-line
// note; a config file is served without its secret-looking keys, which a hunk cannot be judged for (a key's line may
// lie outside it), so its changed lines are withheld and bmad-files read named instead (review 213); so are a data
// file's that holds secrets at either side, judged by its whole text there (review 250; by the hunk's lines, a value
// under a `password:` key above the hunk was shown: review 260). Any other file's hunks are judged as push judges its
// text (review 429): one holding a private key is withheld whole, one holding a token or a password given its changed
// lines. No other line bmad-run runs prints a file's text
// (READ_ONLY_GIT_LINES: no `git show`, no `log -p`). Machinery
// (.bmad-mcp) is no content, and a file a diff reads in the working tree is read as bmad-files reads it (a hard link,
// a link out, too large: review 216).
import { holdsPrivateKey, holdsShapedSecret, isConfigShaped, isSecretFile, mayServeAsConfig, servedAsConfig } from "../catalog/config.js";
import type { Result } from "../result.js";
import { machineryName } from "../workspace/paths.js";
import { TOOL } from "./names.js";

/** What was left out of git's output, by path. */
export interface Withheld {
  secrets: string[];
  configs: string[];
  /** Files bmad-files read refuses for another reason: machinery, or the working tree's file as it is. */
  refused: string[];
  /** Files whose hunks hold what looks like a secret by its shape (a token, a password given): push holds them back. */
  shaped: string[];
}

/** How the filter reads a file's whole text at each side of a diff. */
export interface DiffSides {
  /** The text of the blob an `index` line names (abbreviated, as git prints it); undefined where the store holds none
   *  (a diff of the working tree hashes the file there without storing it). */
  blob: (id: string) => Promise<string | undefined>;
  /** For a diff that reads the working tree: its file at `path` (from the work tree's top) as bmad-files reads it,
   *  its text (undefined where none is there), or why bmad-files refuses it. */
  workTree?: (path: string) => Promise<Result<{ text: string | undefined }>>;
}

/** Where a file's section begins in a diff: `diff --git a/X b/Y`, a conflicted merge's `diff --cc X`. Lines of a
 *  hunk begin with a space, `+`, `-` or `\`, so no file's text can begin a section. */
const SECTION = /^diff --(?:git|cc|combined) /;
/** Where a section's file text begins: a hunk, or a binary patch. */
const CONTENT = /^(?:@@|GIT binary patch)/;
/** An `index` line's blob ids: the old side's (a merge's several, comma-separated) and the new side's. */
const INDEX = /^index ([0-9a-f]+(?:,[0-9a-f]+)*)\.\.([0-9a-f]+)(?: |$)/;
/** Header lines that name a path whole (after `--- `, `rename from `, …). */
const NAMING = /^(?:--- |\+\+\+ |rename from |rename to |copy from |copy to )(.*)$/;
const MACHINERY = "it is tools' machinery rather than the project's content";

/** Whether a path passes through a machinery folder (.git, .bmad-mcp: the bridge's own state). */
export const inMachinery = (path: string): boolean => path.split("/").some((part) => machineryName(part) !== undefined);

/** `stdout` of a git line with each file section that bmad-files would not serve as it is withheld, its files read
 *  through `sides`. A section runs to the next one: anything after a withheld file's header goes with it. */
export async function withholdUnserved(stdout: string, sides: DiffSides): Promise<{ text: string; withheld: Withheld }> {
  const withheld: Withheld = { secrets: [], configs: [], refused: [], shaped: [] };
  // The line break that ends git's output ends no section: put back after.
  const ended = stdout.endsWith("\n");
  const lines = (ended ? stdout.slice(0, -1) : stdout).split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    if (!SECTION.test(lines[i]!)) {
      out.push(lines[i++]!);
      continue;
    }
    let end = i + 1;
    while (end < lines.length && !SECTION.test(lines[end]!)) end++;
    const section = lines.slice(i, end);
    const content = section.findIndex((line) => CONTENT.test(line));
    const header = content < 0 ? section : section.slice(0, content);
    const { paths, shown, after } = sectionPaths(header);
    // A file's hunks judged as push judges its text, their diff marks aside (review 429: a key in `deploy_key`, a token
    // in notes.md went out between commits, where no working tree's read refuses them).
    const hunks = content >= 0 && section[content]!.startsWith("@@") ? section.slice(content).map((line) => line.slice(1)).join("\n") : "";
    const secret = paths.some(isSecretFile);
    const refused = secret ? undefined : paths.some(inMachinery) ? MACHINERY : sides.workTree && (await firstRefusal(paths, sides.workTree));
    if (secret || (!refused && holdsPrivateKey(hunks))) {
      withheld.secrets.push(shown);
      out.push(`[bmad-mcp withheld the diff of ${shown}: it holds secrets, which no tool reads]`);
    } else if (refused) {
      withheld.refused.push(shown);
      out.push(`[bmad-mcp withheld the diff of ${shown}: ${TOOL.bmadFiles} read refuses it: ${refused}]`);
    } else if (content >= 0 && (await servedAsConfigAtASide(header, paths, after, sides))) {
      withheld.configs.push(shown);
      // Nor its `index` line: the blob ids it gives name the config's versions (review 216: `git diff <id> <id>` printed one whole).
      out.push(...header.filter((line) => !line.startsWith("index ")), `[bmad-mcp withheld the changed lines of ${shown}: a config's lines can hold secrets; ${TOOL.bmadFiles} read serves it without its secret-looking keys]`);
    } else if (holdsShapedSecret(hunks)) {
      withheld.shaped.push(shown);
      out.push(...header.filter((line) => !line.startsWith("index ")), `[bmad-mcp withheld the changed lines of ${shown}: they hold what looks like a secret (a token, a password given), which push sends to no remote either]`);
    } else out.push(...section);
    i = end;
  }
  return { text: `${out.join("\n")}${ended ? "\n" : ""}`, withheld };
}

/** Whether a section's file (every name it may have, `paths`; its new one, `after`) is served as a config at either
 *  side: one named so, or a data file whose whole text holds secrets at the old side (the blob) or the new (the blob,
 *  or the working tree's file), as bmad-files judges the file. A side that cannot be read is taken to hold them. */
async function servedAsConfigAtASide(header: string[], paths: string[], after: string | undefined, sides: DiffSides): Promise<boolean> {
  if (paths.some(isConfigShaped)) return true;
  if (!paths.some(mayServeAsConfig)) return false;
  const ids = INDEX.exec(header.find((line) => line.startsWith("index ")) ?? "");
  if (!ids) return true;
  const now = ids[2]!;
  for (const id of [...ids[1]!.split(","), now]) {
    if (/^0+$/.test(id)) continue; // no file at that side (added, deleted)
    const text = (await sides.blob(id)) ?? (id === now && after !== undefined ? await workTreeText(sides, after) : undefined);
    if (text === undefined || paths.some((path) => servedAsConfig(path, text))) return true;
  }
  return false;
}

/** The working tree's file at `path` as bmad-files reads it, undefined where there is none to read. */
async function workTreeText(sides: DiffSides, path: string): Promise<string | undefined> {
  const read = await sides.workTree?.(path);
  return read?.ok ? read.text : undefined;
}

/** Why bmad-files read refuses the first of `paths` it refuses in the working tree, or undefined. */
async function firstRefusal(paths: string[], workTree: NonNullable<DiffSides["workTree"]>): Promise<string | undefined> {
  for (const path of paths) {
    const read = await workTree(path);
    if (!read.ok) return read.error;
  }
  return undefined;
}

/** Every path a section's header may name (`paths`): each side of `diff --git` (read every way a name with spaces
 *  splits it), and the names that `---`, `+++`, rename and copy lines give whole, which are the ones `shown`; `after`,
 *  the new side's name (`+++`). */
function sectionPaths(header: string[]): { paths: string[]; shown: string; after?: string } {
  const first = header[0]!;
  const sides = first.startsWith("diff --git ") ? gitSides(first.slice("diff --git ".length)) : [unquote(first.replace(SECTION, ""))];
  const whole = new Set<string>();
  let after: string | undefined;
  for (const line of header.slice(1)) {
    const named = NAMING.exec(line)?.[1];
    if (named === undefined || named === "/dev/null") continue;
    // git ends a name holding a space with a tab on `---`/`+++` lines, after its `a/` or `b/` (git-readonly.ts fixes them).
    const onSide = line.startsWith("---") || line.startsWith("+++");
    const path = onSide ? unquote(named.replace(/\t$/, "")).replace(/^[ab]\//, "") : unquote(named);
    whole.add(path);
    if (line.startsWith("+++")) after = path;
  }
  const shown = [...(whole.size ? whole : new Set(sides))].join(" and ");
  return { paths: [...new Set([...sides, ...whole])], shown, ...(after === undefined ? {} : { after }) };
}

/** The two sides of `a/X b/Y`: quoted ones read as quoted, else every split at a ` b/` (a rename's names may hold
 *  one), so that no reading of the line is missed. */
function gitSides(rest: string): string[] {
  if (rest.startsWith('"')) {
    const close = quotedEnd(rest);
    return [unquote(rest.slice(0, close + 1)), unquote(rest.slice(close + 2))].map((p) => p.replace(/^[ab]\//, ""));
  }
  const sides: string[] = [];
  for (let at = rest.indexOf(" b/"); at >= 0; at = rest.indexOf(" b/", at + 1)) sides.push(rest.slice(0, at), rest.slice(at + 1));
  const quoted = rest.indexOf(' "b/');
  if (quoted >= 0) sides.push(rest.slice(0, quoted), unquote(rest.slice(quoted + 1)));
  return (sides.length ? sides : [rest]).map((p) => p.replace(/^[ab]\//, ""));
}

/** Where a C-quoted word that starts `text` ends (its closing quote). */
function quotedEnd(text: string): number {
  for (let i = 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i;
  }
  return text.length;
}

const UTF8 = new TextEncoder();
const ESCAPES = new Map([["a", 7], ["b", 8], ["t", 9], ["n", 10], ["v", 11], ["f", 12], ["r", 13]]);

/** A path as git quotes one (`"caf\303\251 .env"`): its bytes back, read as UTF-8. Unquoted text is itself. */
function unquote(word: string): string {
  if (!word.startsWith('"')) return word;
  const bytes: number[] = [];
  const end = quotedEnd(word);
  for (let i = 1; i < end; i++) {
    const c = word[i]!;
    if (c !== "\\") bytes.push(...UTF8.encode(c));
    else if (/^[0-7]{3}$/.test(word.slice(i + 1, i + 4))) bytes.push(parseInt(word.slice(i + 1, (i += 3) + 1), 8));
    else bytes.push(ESCAPES.get(word[++i]!) ?? word.charCodeAt(i));
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** Paths a note names, at most; the rest counted. */
const NAMED_AT_MOST = 20;

/** What the answer says beside git's output: what was withheld, and the untracked files (`ls-files --others`, NUL
 *  separated) that a diff of the working tree leaves out: a secret one named as withheld only. */
export function gitNotes(withheld: Withheld, listed: string[] = []): string[] {
  const notes: string[] = [];
  // The bridge's own folders (.bmad-mcp) are no file of the project's to read.
  const untracked = listed.filter((path) => !inMachinery(path));
  const secrets = [...withheld.secrets, ...untracked.filter(isSecretFile)];
  const others = untracked.filter((path) => !isSecretFile(path));
  if (secrets.length) notes.push(`withheld: ${named(secrets)}, which hold secrets; no tool reads them. Ask the user for what you need from them.`);
  if (withheld.refused.length) notes.push(`withheld: ${named(withheld.refused)}, which ${TOOL.bmadFiles} read refuses (the output says why in each one's place).`);
  if (withheld.configs.length) notes.push(`the changed lines of ${named(withheld.configs)} are withheld (a config's lines can hold secrets): read the file with ${TOOL.bmadFiles}, which serves it without its secret-looking keys.`);
  if (withheld.shaped.length) notes.push(`the changed lines of ${named(withheld.shaped)} are withheld: they hold what looks like a secret. Ask the user to take it out of the file.`);
  if (others.length) notes.push(`untracked, not in this diff: ${named(others)}; read them with ${TOOL.bmadFiles}.`);
  return notes;
}

const named = (paths: string[]) => `${paths.slice(0, NAMED_AT_MOST).join(", ")}${paths.length > NAMED_AT_MOST ? ` and ${paths.length - NAMED_AT_MOST} more` : ""}`;
