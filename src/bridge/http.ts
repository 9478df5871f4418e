// `bmad-mcp --http`: the same MCP surface over Streamable HTTP on loopback (127.0.0.1 and [::1]), for several local
// clients at once. Stateless, as the Worker is: each request is answered by a fresh server from the same factory (the
// SDK's createMcpHandler serves 2026-07-28 and 2025-era clients). In front of it, the loopback checks of
// core/loopback.ts: a foreign Host (DNS rebinding) or a foreign Origin (another site's page) gets 403, and so does
// another user's program on this machine (peer-user.ts, on Linux), whose idle connections are closed at once.
import { once } from "node:events";
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createMcpHandler, type McpHttpHandler, type McpServerFactory } from "@modelcontextprotocol/server";
import { loopbackRefusal } from "../core/loopback.js";
import { bodyRefusal, codeOfStatus, errorAnswer } from "../core/request-checks.js";
import type { Result } from "../core/result.js";
import { otherUsersClient } from "./peer-user.js";

/** As the Worker: room for a 2 MiB submission plus JSON escaping. */
const MAX_REQUEST_BYTES = 6 * 1024 * 1024;
/** What the MCP handler answers (others that it would not take are its 405s). */
const METHODS = new Set(["POST", "GET", "DELETE", "HEAD", "OPTIONS", "PUT", "PATCH"]);
/** A loopback client sends its headers and body at once: a connection that has not after these is let go (Node's 60 s
 *  and 300 s let another user's 18,848 idle connections hold the owner's initialize off: review 214). */
const TIMEOUTS = { headersTimeout: 5_000, requestTimeout: 10_000, connectionsCheckingInterval: 1_000 };
/** Requests answered at once, across all connections, counted once their bodies have come; past it, 503 and
 *  Retry-After. With DRAIN_MS this bounds what the bridge holds to about this many bodies and answers (review 330: a
 *  client that never read its answers grew it to 8 GB, held bodies to 4 GB). A stream a client keeps open holds one
 *  while it is. */
const MAX_IN_FLIGHT = 16;
/** Bodies being read at once, apart from the requests answered: bodies that never finish took every place of those,
 *  and locked every client out until the request timeout (review 437). Past it, 503 as for those. */
const MAX_READING = 32;
/** How long a body may go without a byte before it is refused with 408: a loopback client sends its body at once. */
const BODY_IDLE_MS = 2_000;
/** How long a body may take in all before it is refused with 408: 6 MiB on loopback comes in milliseconds, and bodies
 *  dripped a byte a second, never idle, held every reading place until the request timeout (review 475). */
const BODY_READ_MS = 5_000;
/** Seconds a client told 503 is asked to wait. */
const RETRY_AFTER_S = 1;
/** How long an answer may wait for its client to take what was written: one that does not read is let go. */
const DRAIN_MS = 5_000;
/** Free ports tried for --port 0 when [::1] has the one 127.0.0.1 gave taken already. */
const FREE_PORT_TRIES = 5;

export interface Listening {
  url: string;
  /** The endpoint on [::1]; none where the machine has no IPv6 loopback. */
  ipv6Url?: string;
  close: () => void;
}

/** Listens on 127.0.0.1:`port` and [::1]:`port` (0: a port free on both): a client configured with `localhost` may
 *  try ::1 first (macOS, many Linux desktops), and a port left free there was another user's to take and hear the
 *  owner's requests on (review 214). Either address taken is a failure naming it; a machine without ::1 is not. */
export async function serveHttp(factory: McpServerFactory, port: number): Promise<Result<{ listening: Listening }>> {
  const handler = createMcpHandler(factory, { maxRequestBodySize: MAX_REQUEST_BYTES });
  const places: Places = { inFlight: 0, reading: 0 }; // shared by both addresses' servers
  for (let tries = 1; ; tries++) {
    const v4 = loopbackServer(handler, places);
    const failed = await listen(v4, port, "127.0.0.1");
    if (failed) return { ok: false, error: cannotListen("127.0.0.1", port, failed) };
    const bound = (v4.address() as AddressInfo).port;
    const url = `http://127.0.0.1:${bound}/mcp`;
    const v6 = loopbackServer(handler, places);
    const failed6 = await listen(v6, bound, "::1");
    if (!failed6) return { ok: true, listening: { url, ipv6Url: `http://[::1]:${bound}/mcp`, close: () => (v4.close(), v6.close()) } };
    if (failed6.code === "EADDRNOTAVAIL" || failed6.code === "EAFNOSUPPORT") return { ok: true, listening: { url, close: () => v4.close() } };
    v4.close();
    if (failed6.code !== "EADDRINUSE" || port !== 0 || tries === FREE_PORT_TRIES) return { ok: false, error: cannotListen("[::1]", bound, failed6) };
  }
}

/** Why `server` could not listen, or undefined once it does. */
function listen(server: Server, port: number, host: string): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    server.once("error", resolve);
    server.listen(port, host, () => resolve(undefined));
  });
}

function cannotListen(address: string, port: number, error: NodeJS.ErrnoException): string {
  const held = error.code === "EADDRINUSE" ? " Another program holds it, perhaps another user's: point no client at that port until you know whose it is." : "";
  return `--http: cannot listen on ${address}:${port} (${error.message}); choose another --port.${held}`;
}

/** What the requests under way hold, across both addresses' servers: places answering, and bodies being read. */
interface Places {
  inFlight: number;
  reading: number;
}

function loopbackServer(handler: McpHttpHandler, places: Places): Server {
  /** Each connection's latest answer: a connection a request has started on is refused with the reason in a 403, the
   *  others closed unanswered. */
  const answers = new WeakMap<Socket, ServerResponse>();
  const server = createServer(TIMEOUTS, (req, res) => {
    answers.set(req.socket, res);
    answer(req, res, handler, places).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, error instanceof Error ? error.message : String(error));
      else res.destroy();
    });
  });
  // Judged as it connects, not when its headers come: another user's idle connection is not held until a timeout.
  server.on("connection", (socket: Socket) => {
    void otherUsersClient(socket).then((refused) => refused?.anotherUser && !answers.has(socket) && socket.destroy());
  });
  // What Node cannot parse or waited too long for is answered as every refusal is, not with Node's empty answer.
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || answers.get(socket)?.headersSent) return void socket.destroy();
    const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
    const message = status === 431 ? "The request's headers are too large." : status === 408 ? "The request did not come in time: send it at once." : "The request is not HTTP this server can read.";
    const body = JSON.stringify(errorAnswer(null, codeOfStatus(status), message));
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });
  return server;
}

/** Requests come in as to the fixed loopback address, whatever Host the client named (review 330: `Host: a@localhost`
 *  made a URL with credentials, which Request refused, as a 500). */
const BASE_URL = "http://127.0.0.1";

async function answer(req: IncomingMessage, res: ServerResponse, handler: McpHttpHandler, places: Places): Promise<void> {
  const refused = loopbackRefusal(req.headers.host, req.headers.origin) ?? (await otherUsersClient(req.socket))?.message;
  if (refused) return send(res, 403, refused);
  // Turned away as the client's mistakes they are, not as the server's (review 121: TRACE and a malformed target were 500s).
  if (!METHODS.has(req.method ?? "")) return send(res, 405, `${String(req.method).slice(0, 20)} is not an MCP request: POST, GET or DELETE /mcp.`);
  const url = URL.parse(req.url ?? "/", BASE_URL);
  if (!url) return send(res, 400, "The request's target is not a URL.");
  if (url.pathname !== "/mcp") return send(res, 404, "The MCP endpoint is /mcp.");
  const busy = (what: string) => send(res, 503, `This server is ${what} already: try again in a moment.`, undefined, { "retry-after": String(RETRY_AFTER_S) });
  let body: Body = { ok: true };
  if (req.method !== "GET" && req.method !== "HEAD" && req.method !== "DELETE") {
    if (places.reading >= MAX_READING) return busy(`reading ${MAX_READING} request bodies`);
    places.reading++;
    body = await readBody(req).finally(() => places.reading--);
  }
  if (!body.ok) return send(res, body.status, body.error, body.code);
  if (places.inFlight >= MAX_IN_FLIGHT) return busy(`answering ${MAX_IN_FLIGHT} requests`);
  places.inFlight++;
  res.once("close", () => places.inFlight--);
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  // The client going away cancels its request (a tool call's signal, an SSE stream).
  const abort = new AbortController();
  res.once("close", () => abort.abort());
  const forwarded = new Request(url, { method: req.method, headers, body: body.bytes, signal: abort.signal });
  const response = await handler.fetch(forwarded, body.parsed === undefined ? undefined : { parsedBody: body.parsed });
  res.writeHead(response.status, [...response.headers].flat());
  // Written no faster than the client takes it: one gone, or not reading for DRAIN_MS, throws here and is let go. (A
  // timeout inside AbortSignal.any can be collected before it fires: this one is held by its listener.)
  for await (const chunk of response.body ?? []) {
    if (!res.write(chunk)) await once(res, "drain", { signal: AbortSignal.timeout(DRAIN_MS) });
  }
  res.end();
}

type Body = Result<{ bytes?: Uint8Array; parsed?: unknown }, { status: number; code?: number }>;

/** The whole body, refused past the limit (what is over it is not read), once BODY_IDLE_MS pass without a byte of
 *  it or once BODY_READ_MS pass before its end; and its JSON where it is JSON (else the SDK answers the parse error),
 *  refused past the bounds every door keeps (core/request-checks.ts). */
async function readBody(req: IncomingMessage): Promise<Body> {
  type Read = (Body & { ok: false }) | { ok: true; bytes: Buffer };
  const read = await new Promise<Read>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (result: Read) => {
      req.off("data", take).off("end", ended).off("close", gone).off("error", reject).off("timeout", stalled);
      req.socket.setTimeout(0);
      clearTimeout(deadline);
      resolve(result);
    };
    const take = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) return settle({ ok: false, status: 413, error: `A request body may hold ${MAX_REQUEST_BYTES / 1024 / 1024} MiB at most.` });
      chunks.push(chunk);
    };
    const ended = () => settle({ ok: true, bytes: Buffer.concat(chunks) });
    const gone = () => settle({ ok: false, status: 400, error: "The request's body did not come whole." });
    const stalled = () => settle({ ok: false, status: 408, error: `The request's body stopped coming for ${BODY_IDLE_MS / 1000} s: send it at once.` });
    const late = () => settle({ ok: false, status: 408, error: `The request's body did not come whole within ${BODY_READ_MS / 1000} s: send it at once.` });
    // Idle on the connection, set on the request, which Node tells of the idle socket before it would close it
    // unanswered; and a bound on the whole read, which a body dripped slowly enough is never idle for.
    req.setTimeout(BODY_IDLE_MS, stalled);
    const deadline = setTimeout(late, BODY_READ_MS);
    req.on("data", take).once("end", ended).once("close", gone).once("error", reject);
  });
  if (!read.ok) return read;
  const { bytes } = read;
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    return { ok: true, bytes };
  }
  const refused = bodyRefusal(parsed);
  if (refused) return { ok: false, status: refused.status, code: refused.code, error: refused.message };
  return { ok: true, bytes, parsed };
}

/** A refusal as the Worker answers it: a JSON-RPC error (no request id: the body was not read, or not taken). */
function send(res: ServerResponse, status: number, message: string, code = codeOfStatus(status), headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", connection: "close", ...headers }).end(JSON.stringify(errorAnswer(null, code, message)));
}
