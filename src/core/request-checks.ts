// What every door (the Worker's /mcp, the bridge's --http and stdio) refuses in a JSON-RPC body before any MCP server
// sees it, in the same words everywhere. Each door answers a refusal as a JSON-RPC error of its own wire.
import { count } from "./count.js";

/** A body refused: the HTTP status a door over HTTP answers with, the JSON-RPC error code and why, with the fix. */
export interface Refusal {
  status: 400 | 413;
  code: number;
  message: string;
}

const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;
const SERVER_ERROR = -32000;

/** JSON values (keys' values and array items) one request may hold. */
const MAX_REQUEST_VALUES = 20_000;
/** Levels of objects and arrays one request may nest: a tool call's arguments sit at the third. */
const MAX_REQUEST_DEPTH = 64;

/** The JSON-RPC code of an HTTP refusal that names none: a 400 is the caller's params, the rest the server's error. */
export const codeOfStatus = (status: number): number => (status === 400 ? INVALID_PARAMS : SERVER_ERROR);

/** The JSON-RPC error answer to a request no server saw; `id` is null where the body named none. */
export function errorAnswer(id: string | number | null, code: number, message: string) {
  return { jsonrpc: "2.0" as const, id, error: { code, message } };
}

/** Why a body parsed from an HTTP POST is refused: past the bounds, or a batch the SDK cannot answer whole. */
export function bodyRefusal(body: unknown): Refusal | undefined {
  return boundsRefusal(body) ?? (Array.isArray(body) ? batchRefusal(body) : undefined);
}

/** Past the bounds: the SDK checks every value against its schemas (300,000 keys in 4 MB cost about a second of CPU:
 *  review 84), and deep nesting overflowed its stack (review 95) and the bridge's JSON.stringify of the arguments
 *  (review 219: 2,000,000 levels answered "Maximum call stack size exceeded"). */
export function boundsRefusal(value: unknown): Refusal | undefined {
  const over = overBounds(value);
  if (over === "values") return { status: 413, code: SERVER_ERROR, message: `This request holds more than ${count(MAX_REQUEST_VALUES)} JSON values, far past any call's: send less at once.` };
  if (over === "depth") return { status: 400, code: INVALID_PARAMS, message: `This request nests JSON more than ${MAX_REQUEST_DEPTH} levels deep, far past any call's: send flatter arguments.` };
  return undefined;
}

/** Which bound `value` is past: more than MAX_REQUEST_VALUES values, or objects and arrays nested more than
 *  MAX_REQUEST_DEPTH deep. Counted without recursion (a body may nest 100,000 deep), and at a cost bounded by the
 *  count: a container's size is counted before anything in it is copied (review 86: copying 6 MB of items before the
 *  count fired doubled the cost it was to spare). */
function overBounds(value: unknown): "values" | "depth" | undefined {
  const stack: unknown[] = value && typeof value === "object" ? [value, 1] : []; // each container, then its depth
  let seen = 1;
  while (stack.length) {
    const depth = stack.pop() as number;
    const next = stack.pop() as object;
    if (depth > MAX_REQUEST_DEPTH) return "depth";
    if (Array.isArray(next)) {
      if ((seen += next.length) > MAX_REQUEST_VALUES) return "values";
      for (const child of next) if (child && typeof child === "object") stack.push(child, depth + 1);
    } else {
      for (const key in next) {
        if (++seen > MAX_REQUEST_VALUES) return "values";
        const child = (next as Record<string, unknown>)[key];
        if (child && typeof child === "object") stack.push(child, depth + 1);
      }
    }
  }
  return undefined;
}

/** Requests that render, read or run something, per batch: one POST of 100 prompts/get renders cost about a second
 *  of the isolate's CPU, and stalled other users' requests behind it (review 465). The bounds above count values,
 *  not work. */
const MAX_COSTLY_PER_BATCH = 10;
const COSTLY_METHODS = new Set(["tools/call", "prompts/get", "resources/read"]);

/** A batch the SDK's stateless transport would never finish: it answers a POST once every request id in it is
 *  answered, so a request the batch itself cancels held the response open for good, and a repeated id was answered
 *  once, the other request lost (review 219). A request is what has an id and a method, whatever the method says.
 *  Or one holding more costly requests than MAX_COSTLY_PER_BATCH. */
function batchRefusal(batch: unknown[]): Refusal | undefined {
  const ids = new Set<unknown>();
  const cancelled: unknown[] = [];
  let costly = 0;
  for (const item of batch) {
    const message = item as { id?: unknown; method?: unknown; params?: { requestId?: unknown } } | null;
    if (typeof message !== "object" || message === null || typeof message.method !== "string") continue;
    if (!("id" in message)) {
      if (message.method === "notifications/cancelled") cancelled.push(message.params?.requestId);
      continue;
    }
    if (ids.has(message.id)) return { status: 400, code: INVALID_REQUEST, message: `Request id ${shownId(message.id)} is repeated in this batch; give each request its own id.` };
    ids.add(message.id);
    if (COSTLY_METHODS.has(message.method) && ++costly > MAX_COSTLY_PER_BATCH) {
      return { status: 400, code: INVALID_REQUEST, message: `This batch holds more than ${MAX_COSTLY_PER_BATCH} tools/call, prompts/get and resources/read requests, the most one batch may: split it into several POSTs, or send them one at a time.` };
    }
  }
  for (const id of cancelled) {
    if (ids.has(id)) return { status: 400, code: INVALID_REQUEST, message: `This batch cancels its own request ${shownId(id)}, which would leave it unanswered and the response open: send notifications/cancelled in a POST of its own, after the request's.` };
  }
  return undefined;
}

const shownId = (id: unknown) => JSON.stringify(id)?.slice(0, 40) ?? String(id);
