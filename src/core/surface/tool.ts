// A tool is module-level data plus a handler, tagged with its toolset. Schemas are built once;
// their JSON Schema is converted once per isolate, never per request.
import { isSpecType, type Tool } from "@modelcontextprotocol/server";
import * as z from "zod";
import type { ToolsetName } from "./toolsets.js";
import type { SurfaceDeps } from "./deps.js";
import type { ToolOutcome } from "./outcome.js";
import { terminalText } from "../workspace/paths.js";
import { LONE_SURROGATE } from "../lines.js";
import type { Result } from "../result.js";
import { editDistance } from "../catalog/closest.js";

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolDef<S extends z.ZodObject = z.ZodObject> {
  name: string;
  toolset: ToolsetName;
  description: string;
  input: S;
  annotations: ToolAnnotations;
  /** The MCP Apps view a host that renders them shows for this tool's results (`_meta.ui.resourceUri`). */
  view?: string;
  /** Listed only where a front door has the project's files (the bridge): elsewhere it is still answered, saying where
   *  it runs, but no conversation pays for its listing. */
  needsProjectFiles?: true;
  /** What one front door lists instead, where it serves less of the tool than `description` and `input` say (review
   *  399: the bridge listed create, share and purge, which it refuses): `bridge` where the door has the project's
   *  files, `remote` where it has not. Calls are still parsed with `input`, so what a door refuses, sent anyway, gets
   *  that door's refusal, not a schema error. */
  listedOn?: { bridge?: Listed; remote?: Listed };
  /** Arguments larger than this are refused before parsing (default 64 KB). */
  maxArgumentBytes?: number;
  /** For a tool that reads or writes by action: whether a call with these raw, unvalidated arguments changes
   *  state (and so needs the write scope). Absent: every call of a tool without readOnlyHint does. Anything it
   *  does not recognise must count as writing. */
  writes?(args: unknown): boolean;
  /** `signal` aborts when the client cancels the call: work the tool started must stop with it. */
  run(args: z.infer<S>, deps: SurfaceDeps, signal?: AbortSignal, call?: CallContext): Promise<ToolOutcome>;
}

/** A tool as one front door lists it. */
export interface Listed {
  description: string;
  input: z.ZodObject;
}

/** What a call knows of its client: whether it answers sampling and elicitation requests and renders views, and its
 *  answers to this call's. */
export interface CallContext {
  sampling: boolean;
  /** Whether the client asks its user a question a tool puts (a form), so that the model cannot answer it. */
  elicitation?: boolean;
  /** Whether this client is shown `tool`'s view: the tool is on here, and the client renders views (or has not said). */
  showsView?: (tool: string) => boolean;
  /** Whether this connection has `tool` (its toolsets chose it): a text names only tools the model can call. */
  has?: (tool: string) => boolean;
  inputResponses?: Record<string, unknown>;
}

export function defineTool<S extends z.ZodObject>(def: ToolDef<S>): ToolDef {
  return def;
}

export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

/** The tools/list entry for a definition, on a front door that has the project's files (the bridge) or not. */
export function toolListing(def: ToolDef, projectFiles: boolean): Tool {
  const { description, input } = (projectFiles ? def.listedOn?.bridge : def.listedOn?.remote) ?? def;
  const listing = {
    name: def.name,
    description,
    // No outputSchema: SDK clients compile a validator for each one on every tools/list, which costs
    // more than it gives; structured results still carry structuredContent beside their text.
    inputSchema: jsonSchema(input),
    annotations: def.annotations,
    ...(def.view ? { _meta: { ui: { resourceUri: def.view } } } : {}),
  };
  // The SDK's own check, once per tool: a listing it would refuse fails at startup, naming the tool.
  if (!isSpecType.Tool(listing)) throw new Error(`Tool ${def.name}: its listing is not a valid MCP tool.`);
  return listing;
}

// Size guards stay on the server, which names the limit when one is hit: in the listing they would only
// cost every conversation tokens and every client parse time (propertyNames only ever says "a string").
const SERVER_SIDE_ONLY = ["minLength", "maxLength", "maxItems", "propertyNames"] as const;

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest }: Record<string, unknown> = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
    override: ({ jsonSchema }) => SERVER_SIDE_ONLY.forEach((key) => delete jsonSchema[key]),
  });
  return rest;
}

/** A tool's arguments parsed, or why not in words for the model. A key the tool does not take is refused, not dropped
 *  (review 465: a misspelled "ifVersion" wrote without its guard, a "pattern" for list listed everything). A whole
 *  number sent as a string (`"version": "2"`, as some clients send them) is taken as the number where the tool wants
 *  one (review 117: each cost a refused call). Nothing else is coerced. */
export function parseArguments<S extends z.ZodObject>(tool: string, input: S, args: Record<string, unknown>): Result<{ data: z.infer<S> }> {
  const stray = unknownArguments(tool, input, args);
  if (stray) return { ok: false, error: stray };
  let parsed = input.safeParse(args);
  const numbers = parsed.success ? [] : parsed.error.issues.flatMap((i) => {
    const key = i.path.length === 1 && i.code === "invalid_type" && i.expected === "number" ? i.path[0] : undefined;
    const value = typeof key === "string" && Object.hasOwn(args, key) ? args[key] : undefined;
    return typeof value === "string" && /^(0|[1-9][0-9]{0,15})$/.test(value) ? [[key as string, Number(value)] as const] : [];
  });
  if (numbers.length) {
    const coerced: Record<string, unknown> = { ...args };
    for (const [key, value] of numbers) Object.defineProperty(coerced, key, { value, enumerable: true, writable: true, configurable: true });
    parsed = input.safeParse(coerced);
  }
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, error: describeInvalid(tool, parsed.error, input) };
}

/** Keys most tools take, which a model sends to the others too (list_sessions or spawn_subagent_task with the project it
 *  works in): passed over there, as before, not refused. */
const PASSED_OVER = new Set(["project"]);

/** Why arguments holding keys the tool does not take are refused, naming each (up to a few) with the known key it is
 *  near, and what the tool takes; undefined where every key is known. The published schemas say nothing of it: an
 *  `additionalProperties: false` in each would cost every tools/list. */
function unknownArguments(tool: string, input: z.ZodObject, args: Record<string, unknown>): string | undefined {
  const known = Object.keys(input.shape);
  const unknown = Object.keys(args).filter((key) => !Object.hasOwn(input.shape, key) && !PASSED_OVER.has(key));
  if (!unknown.length) return undefined;
  const named = unknown.slice(0, MAX_ISSUES_SHOWN).map((key) => {
    const near = nearKey(key, known);
    return near === undefined ? fieldName([key], "") : `${fieldName([key], "")} (did you mean "${near}"?)`;
  });
  const more = unknown.length - named.length;
  const takes = known.length ? `It takes: ${known.join(", ")}.` : "It takes none.";
  return `Invalid arguments for ${tool}: unknown argument${unknown.length > 1 ? "s" : ""} ${named.join(", ")}${more > 0 ? ` and ${more} more` : ""}. ${takes}`;
}

/** Keys a model sends for another the tool takes under its own name: get_workflow_status's run_id is also a delivery
 *  session's id, which bmad-task takes as session_id (review 483). */
const ALIASES = new Map([["session_id", "run_id"]]);

/** The known key `key` is near: its alias, the same but for case, "_" and "-" (`ifVersion`, `if-version`), or at most
 *  two characters apart (`verison`). Only keys of about the same length are compared: cheap for any key sent. */
function nearKey(key: string, known: string[]): string | undefined {
  const alias = ALIASES.get(key);
  if (alias !== undefined && known.includes(alias)) return alias;
  const bare = (name: string) => name.toLowerCase().replace(/[_-]/g, "");
  const asked = bare(key.slice(0, 100));
  const same = known.find((k) => bare(k) === asked);
  if (same !== undefined) return same;
  return known.find((k) => Math.abs(bare(k).length - asked.length) <= 2 && editDistance(bare(k), asked) <= Math.min(2, Math.floor(asked.length / 3)));
}

/** A zod failure as one line naming each bad field, what it expected, and what the field is (its describe()). */
function describeInvalid(tool: string, error: z.ZodError, input: z.ZodObject): string {
  const hint = (path: readonly PropertyKey[]) => {
    const key = path.length === 1 ? path[0] : undefined;
    return typeof key === "string" && Object.hasOwn(input.shape, key) ? input.shape[key]?.description : undefined;
  };
  return `Invalid arguments for ${tool}: ${describeIssues(error.issues, "arguments", 0, hint)}.`;
}

/** Why arguments holding half a character are refused, or undefined: a string (a value or a key, at any depth) with an
 *  unpaired UTF-16 surrogate, which storage and JSON turn into U+FFFD (review 197: an edit and a write were acknowledged,
 *  and the file held U+FFFD, not what was sent). Walked with a stack of parent links: no recursion depth to run out of,
 *  and a field's path is built only for the one refused. */
export function halfCharacter(tool: string, args: Record<string, unknown>): string | undefined {
  interface Node { value: unknown; key?: string; parent?: Node }
  const stack: Node[] = [{ value: args }];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const { value } = node;
    if (typeof value === "string") {
      const at = LONE_SURROGATE.exec(value)?.index;
      if (at !== undefined) return refusal(pathOf(node), `holds half a character (an unpaired UTF-16 surrogate) at position ${at}`);
    } else if (typeof value === "object" && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        if (LONE_SURROGATE.test(key)) return refusal(pathOf(node), "has a key holding half a character (an unpaired UTF-16 surrogate)");
        stack.push({ value: inner, key, parent: node });
      }
    }
  }
  return undefined;

  function pathOf(node: Node): string[] {
    const path: string[] = [];
    for (let at: Node | undefined = node; at?.key !== undefined; at = at.parent) path.push(at.key);
    return path.reverse();
  }
  function refusal(path: string[], problem: string): string {
    return `Invalid arguments for ${tool}: ${fieldName(path, "arguments")} ${problem}: send whole characters.`;
  }
}

/** What describeIssues reads of a zod issue: zod's own, or one the SDK sent as text. */
export interface IssueLike {
  path: readonly PropertyKey[];
  message: string;
  /** A union's: the issues of each of its shapes. */
  errors?: readonly (readonly IssueLike[])[];
}

/** Issues as `"field": problem (hint); …`, a field named by its path past the first `skip` segments (`whole` where none
 *  is left), once: its first problem, and `hint`'s word on it (review 258: a "before" of 1e308 was "Too big … int" and
 *  "Too big … number"). A union says, for each field, what each of its shapes wanted first, not zod's bare "Invalid input". */
export function describeIssues(issues: readonly IssueLike[], whole: string, skip = 0, hint?: (path: readonly PropertyKey[]) => string | undefined): string {
  // A field's name is the caller's text: shown with its controls written out, and cut (review 136: a key holding a
  // line break and "- Note: …", and one of 900 KB, came back whole).
  const field = (path: readonly PropertyKey[]) => fieldName(path.slice(skip), whole);
  const byField = new Map<string, string>();
  for (const [path, problem] of issues.flatMap(problems)) {
    const at = field(path);
    const about = hint?.(path.slice(skip));
    if (!byField.has(at)) byField.set(at, about ? `${problem} (${about})` : problem);
  }
  const parts = [...byField].map(([at, problem]) => `${at}: ${problem}`);
  const more = parts.length - MAX_ISSUES_SHOWN;
  return parts.slice(0, MAX_ISSUES_SHOWN).map((part) => cut(part, MAX_ISSUE_CHARS)).join("; ") + (more > 0 ? `; and ${more} more` : "");
}

/** An issue's problems by the field's path: its own, or a union's, each field's first problem in each shape. */
function problems(issue: IssueLike): Array<[readonly PropertyKey[], string]> {
  if (!issue.errors?.length) return [[issue.path, issue.message]];
  const wanted = new Map<string, { path: readonly PropertyKey[]; messages: Set<string> }>();
  for (const [first] of issue.errors) {
    if (!first) continue;
    const path = [...issue.path, ...first.path];
    const key = JSON.stringify(path.map(String));
    const seen = wanted.get(key) ?? { path, messages: new Set<string>() };
    wanted.set(key, seen);
    seen.messages.add(first.message);
  }
  return [...wanted.values()].map(({ path, messages }) => [path, eitherOf([...messages])]);
}

/** A field by its path, `"answers.core.user_name"`, or `whole` for none. */
const fieldName = (path: readonly PropertyKey[], whole: string) => (path.length ? `"${cut(oneLine(path.map(String).join(".")), MAX_FIELD_CHARS)}"` : whole);
const MAX_FIELD_CHARS = 80;
const MAX_ISSUE_CHARS = 300;
const MAX_ISSUES_SHOWN = 5;
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);
/** Text with its line breaks and every other control (bidi too) written as escapes. */
const oneLine = (text: string) => terminalText(JSON.stringify(text).slice(1, -1));

/** `Invalid input: expected "a"` and `Invalid input: expected "b"` as `Invalid input: expected "a" or expected "b"`. */
function eitherOf(messages: string[]): string {
  const lead = "Invalid input: ";
  return messages.every((m) => m.startsWith(lead)) ? lead + messages.map((m) => m.slice(lead.length)).join(" or ") : messages.join(" or ");
}
