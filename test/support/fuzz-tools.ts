// Property-based fuzzing of every tool a door lists, with arguments generated from the tools' own inputSchemas
// (so a new tool is covered without a new test): valid-shaped values and hostile ones (long strings, odd Unicode,
// __proto__ keys, path tricks, FTS syntax, template words, argv metacharacters). Shared by both doors' tests.
import fc from "fast-check";
import { textBytes } from "../../src/core/workspace/file-text.js";

/** Strings a model or an attacker might send where a name, path, query or command goes. */
export const HOSTILE: readonly string[] = [
  "..", "../", "../../../../etc/passwd", "..\\..\\windows\\win.ini", "%2e%2e/%2e%2e/etc/passwd", "/etc/passwd", "C:\\Windows\\win.ini", "\\\\server\\share\\x",
  ".git/config", ".GIT/config", ".git./HEAD", "GIT~1/config", ".git::$INDEX_ALLOCATION/config", ".bmad-mcp/locks", ".bmad-task/x", "_bmad/../../x", "docs/./../../x", "a//b", "file.md:stream", "CON", "aux.txt", "nul",
  "__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "__proto__/polluted", "constructor.prototype",
  '"unterminated', "NEAR(a b)", "a OR b*", "title:x", "^start", "a AND (b", "*", "-", '""', "a NOT", "{project-root}", "{skill-root}", "{workflow.name}", "{{config.user_name}}", "{agent.name}", "${HOME}", "%(x)s",
  "; rm -rf /", "$(id)", "`id`", "| cat /etc/passwd", "&& ls", "> /tmp/bmad-fuzz", "'", '"', "\\", "uv run ../../x.py", "uv run {project-root}/_bmad/scripts/memlog.py init --workspace ../..", "python3 -c 'import os'", "bash -c id", "-h", "--help", "--", "-",
  "**", "**************Q*", "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*Q*", "?", "[", "]", "{", "}",
  "", " ", "\t\n", "\u0000", "a\u0000b", "\u202egnp.exe", "\u200b", "\uFEFF", "\uD800", "🙂", "e\u0301", "ǅ", "\u0130", "İstanbul", "ß", "\u2028", "\r\n", "\x1b[31mred",
  "x".repeat(5_000), "é".repeat(2_000), "../".repeat(300), "a/".repeat(600), "{".repeat(1_000), "🙂".repeat(100_000),
];

type Schema = Record<string, unknown>;

/** JSON values of any shape: what a wrong type looks like. */
const anyJson = fc.jsonValue({ maxDepth: 4 });

function hostileString(extra: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...HOSTILE, ...extra) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 500, maxLength: 3_000 }) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...HOSTILE, ...extra), fc.constantFrom(...HOSTILE, ...extra)).map(([a, b]) => `${a}/${b}`) },
  );
}

function validString(schema: Schema): fc.Arbitrary<string> {
  if (typeof schema.pattern === "string") {
    try {
      return fc.stringMatching(new RegExp(schema.pattern), { size: "small" });
    } catch {
      // a pattern JavaScript cannot compile: plain strings
    }
  }
  const minLength = typeof schema.minLength === "number" ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === "number" ? Math.min(schema.maxLength, minLength + 60) : minLength + 30;
  return fc.string({ minLength, maxLength });
}

function number(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = typeof schema.minimum === "number" ? schema.minimum : -1_000;
  const max = typeof schema.maximum === "number" ? schema.maximum : 1_000;
  const valid = integer ? fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) }) : fc.double({ min, max, noNaN: true });
  return fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: fc.constantFrom(-1, 0, 1.5, -0, 2 ** 53, -(2 ** 53), 1e300, Number.MAX_SAFE_INTEGER) });
}

/** An object with own keys that name the prototype: what JSON.parse makes of `{"__proto__": …}`. */
function withPrototypeKeys(value: Record<string, unknown>): Record<string, unknown> {
  const out = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  Object.defineProperty(out, "__proto__", { value: { bmadFuzzPolluted: "yes" }, enumerable: true, configurable: true, writable: true });
  Object.defineProperty(out, "constructor", { value: { prototype: { bmadFuzzPolluted: "yes" } }, enumerable: true, configurable: true, writable: true });
  return out;
}

/** Values for `schema`: mostly valid-shaped, sometimes hostile, sometimes of the wrong type. */
export function valueOf(schema: Schema, extra: readonly string[], depth = 0): fc.Arbitrary<unknown> {
  const options = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(options) && options.length) return fc.oneof(...options.map((s) => valueOf(s, extra, depth + 1)));
  if (Array.isArray(schema.enum) && schema.enum.length) {
    return fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...(schema.enum as unknown[])) }, { weight: 1, arbitrary: hostileString(extra) });
  }
  if ("const" in schema) return fc.constant(schema.const);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  let valid: fc.Arbitrary<unknown>;
  switch (type) {
    case "string":
      valid = fc.oneof({ weight: 2, arbitrary: validString(schema) }, { weight: 3, arbitrary: hostileString(extra) });
      break;
    case "integer":
    case "number":
      valid = number(schema, type === "integer");
      break;
    case "boolean":
      valid = fc.boolean();
      break;
    case "array":
      valid = depth > 3 ? fc.constant([]) : fc.array(valueOf((schema.items as Schema) ?? {}, extra, depth + 1), { maxLength: typeof schema.maxItems === "number" ? Math.min(schema.maxItems, 6) : 6 });
      break;
    case "object":
      valid = depth > 3 ? fc.constant({}) : objectOf(schema, extra, depth);
      break;
    default:
      valid = anyJson;
  }
  return fc.oneof({ weight: 12, arbitrary: valid }, { weight: 1, arbitrary: anyJson });
}

function objectOf(schema: Schema, extra: readonly string[], depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, sub] of Object.entries(properties)) model[key] = valueOf(sub, extra, depth + 1);
  const record = fc.record(model, { requiredKeys: [...required].filter((k) => k in model) }) as fc.Arbitrary<Record<string, unknown>>;
  const free = typeof schema.additionalProperties === "object" ? valueOf(schema.additionalProperties as Schema, extra, depth + 1) : anyJson;
  return fc.oneof(
    { weight: 8, arbitrary: record },
    // The required keys dropped: every field may be missing.
    { weight: 1, arbitrary: fc.record(model, { requiredKeys: [] }) as fc.Arbitrary<Record<string, unknown>> },
    { weight: 1, arbitrary: record.map(withPrototypeKeys) },
    { weight: 1, arbitrary: fc.tuple(record, fc.dictionary(fc.constantFrom(...HOSTILE.slice(0, 40), ...extra), free, { maxKeys: 3 })).map(([a, b]) => ({ ...b, ...a })) },
  );
}

/** What the fuzz needs of an MCP client (the SDK's v1 and v2 clients both have it). */
export interface FuzzClient {
  listTools(): Promise<{ tools: Array<{ name: string; inputSchema: unknown }> }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Record<string, unknown>>;
  ping(): Promise<unknown>;
}

export interface FuzzDoor {
  client: FuzzClient;
  /** Text that lives outside the caller's projects: it must never come back in any answer. */
  secrets: readonly string[];
  /** Door-specific hostile strings (another user's project name, an absolute path outside the project). */
  extra: readonly string[];
  /** Object.prototype's own keys that differ from before the run (the door's process), if the test can see them. */
  prototypeChanges?: () => string[] | Promise<string[]>;
}

/** Longest a call or a ping may take (generous: a loaded machine). */
const CALL_MS = 10_000;

/** What an uncaught JavaScript exception says when it reaches an answer. */
export const JS_CRASH = /Cannot read propert(y|ies) of|is not a function|is not iterable|Maximum call stack size exceeded|Cannot convert undefined or null|undefined is not an object|\[object Object\]/;

export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
}

/** Checks one call against the properties; returns what is wrong (empty: nothing). */
/** A promise that gives up after `ms`: a call that never ends is an answer the server did not give. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

export async function checkCall(door: FuzzDoor, call: ToolCall, tally?: (kind: "answered" | "tool error" | "invalid params") => void): Promise<string[]> {
  const problems: string[] = [];
  let answer: string;
  try {
    const result = await within(CALL_MS, "the call", door.client.callTool({ name: call.name, arguments: call.args }));
    answer = JSON.stringify(result);
    const text = ((result.content ?? []) as Array<{ text?: string }>).map((c) => c.text ?? "").join("\n");
    tally?.(!result.isError ? "answered" : /^(MCP error -32602|Input validation error|Invalid arguments)/i.test(text) ? "invalid params" : "tool error");
    if (result.isError && !text.trim()) problems.push("an error result with no text");
    if (result.isError && JS_CRASH.test(text)) problems.push(`an uncaught exception in the answer: ${text.slice(0, 300)}`);
  } catch (error) {
    // A JSON-RPC error is fine when it is the SDK's invalid-params answer with a message; anything else (an
    // internal error, a 5xx, a closed connection) is a crash.
    const e = error as { code?: unknown; message?: unknown };
    tally?.("invalid params");
    answer = String(e.message);
    if (e.code !== -32602 || typeof e.message !== "string" || !e.message.trim()) problems.push(`a protocol error that is no invalid-params answer: ${String(e.code)} ${String(e.message).slice(0, 300)}`);
  }
  for (const secret of door.secrets) if (answer.includes(secret)) problems.push(`content from outside the caller's projects (${secret}) in: ${answer.slice(0, 300)}`);
  // Before the next request: a polluted prototype is put back, so the ping is judged on its own.
  const changed = (await door.prototypeChanges?.()) ?? [];
  if (changed.length) problems.push(`Object.prototype changed: ${changed.join(", ")}`);
  try {
    await within(CALL_MS, "ping", door.client.ping());
  } catch (error) {
    problems.push(`the server no longer answers: ${String(error)}`);
  }
  return problems;
}

/** `numRuns` calls of the door's tools with generated arguments, from a fixed seed; fails with the smallest call found. */
export async function fuzzTools(door: FuzzDoor, options: { seed: number; numRuns: number; skip?: (name: string) => boolean }): Promise<{ tools: string[]; outcomes: Map<string, number> }> {
  const outcomes = new Map<string, number>();
  const { tools } = await door.client.listTools();
  const fuzzed = tools.filter((t) => !options.skip?.(t.name));
  const call = fc.oneof(...fuzzed.map((t) => valueOf(t.inputSchema as Schema, door.extra).map((args): ToolCall => ({ name: t.name, args: (args ?? {}) as Record<string, unknown> }))));
  await fc.assert(
    fc.asyncProperty(call, async (c) => {
      const problems = await checkCall(door, c, (kind) => outcomes.set(`${c.name} ${kind}`, (outcomes.get(`${c.name} ${kind}`) ?? 0) + 1));
      if (problems.length) throw new Error(`${c.name}: ${problems.join("; ")}`);
    }),
    { seed: options.seed, numRuns: options.numRuns },
  );
  return { tools: fuzzed.map((t) => t.name), outcomes };
}

/** Object.prototype's own property descriptors, to compare with later: the changed keys, each put back as it was
 *  (so the call after a pollution is judged on its own, and shrinking finds the call that did it). */
export function prototypeWatch(): () => string[] {
  const before = new Map(Reflect.ownKeys(Object.prototype).map((k) => [k, Object.getOwnPropertyDescriptor(Object.prototype, k)!]));
  return () => {
    const now = Reflect.ownKeys(Object.prototype);
    const changed = now.filter((k) => {
      const a = before.get(k);
      const b = Object.getOwnPropertyDescriptor(Object.prototype, k)!;
      return !a || a.value !== b.value || a.get !== b.get || a.set !== b.set;
    });
    const gone = [...before.keys()].filter((k) => !now.includes(k));
    for (const k of [...changed, ...gone]) {
      const was = before.get(k);
      if (was) Object.defineProperty(Object.prototype, k, was);
      else delete (Object.prototype as Record<PropertyKey, unknown>)[k];
    }
    return [...changed, ...gone].map(String);
  };
}

// The stateful fuzzes' draws (test/worker/fuzz.test.ts, test/node/fuzz-bridge.test.ts): what a model working a BMAD
// project sends, from one seeded PRNG, so a seed gives the same run on both doors' tests and on any machine.

/** mulberry32: a small PRNG, the same draws for a seed. */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** A whole number from the environment (BMAD_FUZZ_STEPS, BMAD_FUZZ_SEED), or `otherwise` when it is not set. */
export function wholeNumber(name: string, otherwise: number): number {
  const value = process.env[name];
  if (value === undefined || value === "") return otherwise;
  if (!/^[0-9]{1,9}$/.test(value)) throw new Error(`${name}=${JSON.stringify(value)} is not a whole number: give one, e.g. ${name}=${otherwise}.`);
  return Number(value);
}

/** Where BMAD's skills write, and a few names of the user's own. */
export const PATHS = [
  "_bmad-output/planning-artifacts/prd.md", "_bmad-output/planning-artifacts/architecture.md", "_bmad-output/planning-artifacts/epics.md",
  "_bmad-output/planning-artifacts/product-brief.md", "_bmad-output/implementation-artifacts/sprint-status.yaml",
  "_bmad-output/implementation-artifacts/1-1-setup.md", "_bmad-output/planning-artifacts/.memlog.md", "_bmad-output/brainstorming/session-1.md",
  "_bmad-output/project-context.md", "_bmad/custom/bmad-prd.toml", "docs/prd.md", "docs/notes.md", "docs/a b/ü.md", "README.md", "src/index.ts",
];
export const CONTENTS = [
  "# PRD\n\n## Goals\n- ship\n", "---\nstatus: draft\n---\n# Architecture\n", "", "\n", "line1\nline2\n", "🙂 unicode é\u0301 \u202e",
  "{project-root}/docs/x.md", "a".repeat(20_000), "```yaml\nkey: value\n```\n", "## Epic 1\n### Story 1.1: Setup\n",
  "development_status:\n  1-1-setup: ready-for-dev\n", "\r\nCRLF\r\n", "x\u0000y",
];
/** A file's text after bmad-files appends `content` to it, as the user's bytes are kept (file-text.ts: the append starts
 *  a line of its own, in the file's line ending). */
export const appendedText = (before: string, content: string): string =>
  new TextDecoder().decode(textBytes(new TextEncoder().encode(before), new TextEncoder().encode(content), "append"));

export const APPENDS = ["\n- more\n", "tail", "🙂\n", "", "x".repeat(3000)];
/** What `bmad` renders: skills and agents. */
export const COMMANDS = ["*prd", "*create-architecture", "*create-epics-and-stories", "*sprint-planning", "*dev-story", "*brainstorming", "pm", "architect", "*product-brief", "*help", "*correct-course"];
