// The bridge's stdio wire. Results are written as ASCII-only JSON (\u escapes): a client decodes an ASCII
// line on its fast path, about twice as fast as UTF-8 with emoji and arrows in it (BMAD agent files have both).
// A frozen result (the surface's cached tool list and prompts) cannot change, so its bytes are encoded once.
// A tool's answer arrives as the SDK's validated copy, a new object each time, and a resource is read into a new
// one, so a result that carries one long text is known by it: the last few stay encoded (an agent or a file
// loaded again costs a lookup, not a JSON encoding).
// Requests and notifications go through the SDK's own send.
// Input passes through a frame limiter first: a line over 10 MiB is answered with a JSON-RPC error and
// dropped, where the SDK's reader would close the transport and the bridge would answer nothing more. Output is
// held to the same: an answer over MAX_ANSWER_BYTES goes as an error saying so, since a client's reader closes
// on a longer line and every later call fails (review 33: 8 MiB of quotes answered 16.8 MB).
import { PassThrough } from "node:stream";
import { parseJSONRPCMessage, type JSONRPCMessage } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { boundsRefusal } from "../core/request-checks.js";
import { FrameLimiter, MAX_FRAME_BYTES, type FrameId } from "./stdio-frames.js";

const LINE_END = Buffer.from("}\n");
const CR = 0x0d;
const encodedOnce = new WeakMap<object, Buffer>();

/** The id a parsed message names, where it is one JSON-RPC takes (a string or a number); else null. */
function idOf(parsed: unknown): FrameId {
  const id = parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as { id?: unknown }).id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Texts under this are cheap to encode; over it, kept up to TEXT_KEEP_BYTES, the oldest dropped first. */
const TEXT_MIN = 1024;
const TEXT_KEEP_BYTES = 2 * 1024 * 1024;
/** By text: the result's other fields (`rest`) and its bytes. */
const encodedTexts = new Map<string, { rest: string; bytes: Buffer }>();
let keptBytes = 0;

const keys = (value: object, n: number) => Object.keys(value).length === n;

/** A long text a result carries alone, and the rest of what it says: `{ content: [{ type: "text", text }] }`
 *  (a tool's answer) or `{ contents: [{ uri, mimeType, text }] }` (a resource). */
function soleText(result: object): { text: string; rest: string } | undefined {
  const { content, contents } = result as { content?: unknown; contents?: unknown };
  const list = content ?? contents;
  if (!Array.isArray(list) || list.length !== 1 || !keys(result, 1)) return undefined;
  const item = list[0] as { type?: unknown; uri?: unknown; mimeType?: unknown; text?: unknown };
  if (typeof item?.text !== "string" || item.text.length < TEXT_MIN) return undefined;
  if (content && item.type === "text" && keys(item, 2)) return { text: item.text, rest: "" };
  if (contents && typeof item.uri === "string" && typeof item.mimeType === "string" && keys(item, 3)) return { text: item.text, rest: `${item.uri}\0${item.mimeType}` };
  return undefined;
}

function encodeText(result: object, { text, rest }: { text: string; rest: string }): Buffer {
  const known = encodedTexts.get(text);
  if (known?.rest === rest) {
    encodedTexts.delete(text); // most recently used goes last
    encodedTexts.set(text, known);
    return known.bytes;
  }
  if (known) {
    encodedTexts.delete(text);
    keptBytes -= known.bytes.length;
  }
  const bytes = Buffer.from(asciiJson(result), "latin1");
  encodedTexts.set(text, { rest, bytes });
  keptBytes += bytes.length;
  for (const [old, kept] of encodedTexts) {
    if (keptBytes <= TEXT_KEEP_BYTES) break;
    encodedTexts.delete(old);
    keptBytes -= kept.bytes.length;
  }
  return bytes;
}

function encode(result: unknown): Buffer {
  if (typeof result !== "object" || result === null) return Buffer.from(asciiJson(result), "latin1");
  if (!Object.isFrozen(result)) {
    const sole = soleText(result);
    return sole ? encodeText(result, sole) : Buffer.from(asciiJson(result), "latin1");
  }
  const known = encodedOnce.get(result);
  if (known) return known;
  const bytes = Buffer.from(asciiJson(result), "latin1");
  encodedOnce.set(result, bytes);
  return bytes;
}

/** One answer's line, at most: under the 10 MiB line MCP's SDK clients read (and what they buffer beside it). */
export const MAX_ANSWER_BYTES = 9.5 * 1024 * 1024;
const INTERNAL_ERROR = -32603;
const INVALID_REQUEST = -32600;
const PARSE_ERROR = -32700;
/** Requests answered at once, at most: past it a request is refused at once (20,000 pipelined reads held 800 MB). */
const MAX_IN_FLIGHT = 64;
const SERVER_BUSY = -32000;
/** How long a cancelled request keeps its place, its handler perhaps still running: long enough that cancelling at once
 *  makes no room, short enough that a client's burst of cancels does not keep its next requests out long (a minute's
 *  hold refused every request for 60 s: review 31). */
const CANCELLED_HOLD_MS = 5_000;

export class StdioTransport extends StdioServerTransport {
  private closed = false;
  private readonly input: PassThrough;
  private readonly frames: FrameLimiter;
  private readonly onData = (chunk: Buffer) => this.frames.push(chunk);
  private readonly onEnd = () => this.input.end();
  private readonly onError = (error: Error) => this.input.destroy(error);
  /** Ids of the requests handed to the server and not yet answered. */
  private readonly inFlight = new Set<string | number>();
  /** When requests in flight were cancelled: their handlers may still run, answering nothing, so each keeps its place
   *  for a while (cancelled at once, 5,000 reads held 1.2 GB: review 29). */
  private cancelledAt: number[] = [];
  /** Ids of the initialize requests not yet answered, and whether one was answered with a result: the connection's
   *  protocol version holds until it closes (review 219: a second initialize switched it mid-connection). */
  private readonly initializing = new Set<string | number>();
  private initialized = false;

  constructor() {
    // The SDK's reader gets no data, only stdin's end and errors: the frame limiter hands each line straight
    // to deliver(), the reader's own steps without its stream and buffer copies on the way.
    const input = new PassThrough();
    super(input, process.stdout);
    this.input = input;
    this.frames = new FrameLimiter(MAX_FRAME_BYTES, (line) => this.deliver(line), (id) => this.refuse(id));
  }

  /** As JSON-RPC says, where the SDK's reader skipped them and a client waited on an answer that never came (review
   *  187): a line that is not JSON is a parse error, a batch and a message that is not JSON-RPC an invalid request,
   *  each answered with the id it names (a string or a number), else null. */
  private deliver(line: Buffer): void {
    if (this.closed) return;
    const text = line.toString("utf8", 0, line[line.length - 1] === CR ? line.length - 1 : line.length);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return this.answerError(null, PARSE_ERROR, "Parse error: this line is not JSON. Send each JSON-RPC message as one line of JSON.");
    }
    // The bounds every door keeps (review 219: 2,000,000 levels of arguments overflowed the stack of the tool call).
    const over = boundsRefusal(parsed);
    if (over) return this.answerError(idOf(parsed), over.code, over.message);
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(parsed);
    } catch {
      // One answer for the whole array, as JSON-RPC answers a batch it cannot take: the frame and in-flight bounds
      // hold per line, and MCP after 2025-03-26 has no batches.
      if (Array.isArray(parsed)) return this.answerError(null, INVALID_REQUEST, "Invalid request: a batch (a JSON array) is not taken here. Send each message on its own line.");
      this.answerError(idOf(parsed), INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 request (it needs \"jsonrpc\": \"2.0\", an id that is a string or a number, a \"method\" string and, if it has them, \"params\" an object whose \"_meta.progressToken\" is a string or a number; a notification, all but the id).");
      return;
    }
    // A request is what has an id and a method, whatever its method says (a "notifications/cancelled" with an id freed
    // another request's place: review 31). A cancelled request may get no answer (MCP's rule): it leaves the ids in
    // flight, and holds a place a while.
    if ("method" in message && !("id" in message) && message.method === "notifications/cancelled") {
      if (this.inFlight.delete((message.params as { requestId?: string | number } | undefined)?.requestId ?? "")) this.cancelledAt.push(Date.now());
    } else if ("method" in message && "id" in message) {
      if (this.inFlight.has(message.id)) return this.answerError(message.id, INVALID_REQUEST, `Request id ${JSON.stringify(message.id).slice(0, 40)} is already being answered; give each request its own id.`);
      if (this.busy()) return this.answerError(message.id, SERVER_BUSY, `${MAX_IN_FLIGHT} requests are being answered; send this one again once some are.`);
      if (message.method === "initialize") {
        if (this.initialized || this.initializing.size) return this.answerError(message.id, INVALID_REQUEST, "This connection is initialized already, and keeps its protocol version until it closes: start a new connection to initialize again.");
        this.initializing.add(message.id);
      }
      this.inFlight.add(message.id);
    }
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  override async start(): Promise<void> {
    await super.start();
    process.stdin.on("data", this.onData);
    process.stdin.on("end", this.onEnd);
    process.stdin.on("error", this.onError);
  }

  override close(): Promise<void> {
    this.closed = true;
    process.stdin.off("data", this.onData);
    process.stdin.off("end", this.onEnd);
    process.stdin.off("error", this.onError);
    if (process.stdin.listenerCount("data") === 0) process.stdin.pause();
    return super.close();
  }

  /** Whether the requests in flight, and those cancelled within CANCELLED_HOLD_MS, fill every place. */
  private busy(): boolean {
    const since = Date.now() - CANCELLED_HOLD_MS;
    if (this.cancelledAt.length && this.cancelledAt[0]! < since) this.cancelledAt = this.cancelledAt.filter((at) => at >= since);
    return this.inFlight.size + this.cancelledAt.length >= MAX_IN_FLIGHT;
  }

  /** The answer to a frame over the limit; `id` is null when the frame named none (a notification, or not JSON). */
  private refuse(id: FrameId): void {
    this.answerError(id, INVALID_REQUEST, `Message over ${MAX_FRAME_BYTES / 1024 / 1024} MiB (one line of stdin): refused. Send large content in smaller pieces.`);
  }

  /** An error answer the server never saw the request of. */
  private answerError(id: FrameId, code: number, message: string): void {
    if (this.closed) return;
    process.stdout.write(`${asciiJson({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
  }

  /** An answer stays in flight until it is written: answers a client does not read hold memory too. */
  override async send(message: JSONRPCMessage): Promise<void> {
    const answered = "id" in message && ("result" in message || "error" in message) ? (message.id as string | number) : undefined;
    try {
      await this.write(message);
    } finally {
      if (answered !== undefined) this.inFlight.delete(answered);
      if (answered !== undefined && this.initializing.delete(answered) && "result" in message) this.initialized = true;
    }
  }

  private write(message: JSONRPCMessage): Promise<void> {
    if (this.closed || !("result" in message)) return super.send(message); // the SDK refuses sends after close
    // One buffer for the line: the head written into it, the (often kept) result copied after it.
    const head = `{"jsonrpc":"2.0","id":${asciiJson(message.id)},"result":`;
    let result = encode(message.result);
    if (head.length + result.length + LINE_END.length > MAX_ANSWER_BYTES) {
      const why = `This answer would be ${(result.length / 1024 / 1024).toFixed(1)} MiB on the wire, more than the ${MAX_ANSWER_BYTES / 1024 / 1024} MiB one message to an MCP client may carry. Ask for less where the call can (a narrower glob or path); a file this large is for the user's own tools.`;
      // A tool's answer is a tool error the model reads; any other (a resource, a prompt) a JSON-RPC error.
      if (!Array.isArray((message.result as { content?: unknown }).content)) return super.send({ jsonrpc: "2.0", id: message.id, error: { code: INTERNAL_ERROR, message: why } });
      result = encode({ content: [{ type: "text", text: why }], isError: true });
    }
    const line = Buffer.allocUnsafe(head.length + result.length + LINE_END.length);
    line.write(head, 0, "latin1");
    result.copy(line, head.length);
    LINE_END.copy(line, head.length + result.length);
    return new Promise((done, fail) => void process.stdout.write(line, (error) => (error ? fail(error) : done())));
  }
}
