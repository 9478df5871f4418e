// The bridge's stdin over raw JSON-RPC lines: a frame over the 10 MiB limit gets a JSON-RPC error (with its
// id when the frame names one) and is dropped, and the bridge goes on answering everything after it. A request the
// protocol's schema refuses is answered as invalid params naming the field.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { tempDir } from "./helpers.js";

const tmp = tempDir("bridge-frames");
const LIMIT = 10 * 1024 * 1024;
let bridge: string;
let child: ChildProcessWithoutNullStreams;
let lines: AsyncIterator<string>;

type Reply = { id: number | string | null; result?: Record<string, unknown>; error?: { code: number; message: string } };

beforeAll(async () => {
  bridge = inject("bridge");
  const dir = join(tmp.dir, "project");
  mkdirSync(dir);
  child = spawn(process.execPath, [bridge], { cwd: dir, env: { PATH: process.env.PATH!, HOME: join(tmp.dir, "home") }, stdio: ["pipe", "pipe", "pipe"] });
  lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "frames", version: "1" } } });
  expect((await reply()).id).toBe(1);
  send({ method: "notifications/initialized" });
}, 60_000);
afterAll(() => {
  child?.kill("SIGKILL");
  tmp.cleanup();
});

function send(message: object): void {
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
}

async function reply(ms = 5000): Promise<Reply> {
  const next = await Promise.race([lines.next(), new Promise<never>((_, fail) => setTimeout(() => fail(new Error(`no answer within ${ms} ms`)), ms))]);
  return JSON.parse(next.value as string) as Reply;
}

/** A tools/call line of about `bytes` bytes, its id before or after the big argument. */
function bigCall(id: number | string, bytes: number, idLast = false): string {
  const args = { name: "bmad", arguments: { command: "x".repeat(bytes) } };
  const body = idLast ? { jsonrpc: "2.0", method: "tools/call", params: args, id } : { jsonrpc: "2.0", id, method: "tools/call", params: args };
  return `${JSON.stringify(body)}\n`;
}

describe("frames over the size limit", () => {
  it("refuses an oversized request with an error carrying its id, then answers the next one", async () => {
    child.stdin.write(bigCall(7, LIMIT + 1024));
    const refused = await reply();
    expect(refused).toMatchObject({ id: 7, error: { code: -32600, message: expect.stringMatching(/over 10 MiB/) } });
    send({ id: 8, method: "ping" });
    expect(await reply()).toEqual({ jsonrpc: "2.0", id: 8, result: {} });
  });

  it("finds the id after the oversized part, and answers a string id", async () => {
    child.stdin.write(bigCall("big-9", LIMIT * 2, true));
    expect(await reply()).toMatchObject({ id: "big-9", error: { code: -32600 } });
    send({ id: 10, method: "tools/list" });
    expect((await reply()).result).toHaveProperty("tools");
  });

  it("answers an oversized line that names no id with a null id, and a request sent in the same write", async () => {
    child.stdin.write(`${"[".repeat(16)}${" ".repeat(LIMIT)}\n${JSON.stringify({ jsonrpc: "2.0", id: 11, method: "ping" })}\n`);
    expect(await reply()).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await reply()).toEqual({ jsonrpc: "2.0", id: 11, result: {} });
  });

  it("answers a line that is not JSON, a batch, and a message with no usable id with a null id, as JSON-RPC says, and takes a CRLF line (review 186: nothing came, and a client waited)", async () => {
    child.stdin.write(`{not json\n[]\n[${JSON.stringify({ jsonrpc: "2.0", id: 30, method: "ping" })}]\n`);
    expect(await reply()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: this line is not JSON. Send each JSON-RPC message as one line of JSON." } });
    for (let i = 0; i < 2; i++) expect(await reply()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request: a batch (a JSON array) is not taken here. Send each message on its own line." } });
    child.stdin.write('{"jsonrpc":"2.0","id":null,"method":"ping"}\n{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}\n{"jsonrpc":"2.0","nonsense":true}\n');
    for (let i = 0; i < 3; i++) expect(await reply()).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining("an id that is a string or a number") } });
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 13, method: "ping" })}\r\n`);
    expect(await reply()).toEqual({ jsonrpc: "2.0", id: 13, result: {} });
  });

  it("answers a message that names an id but is no JSON-RPC request as an invalid request (review 27: no answer came)", async () => {
    child.stdin.write('{"jsonrpc":"2.0","id":4}\n{"id":"x","method":7}\n');
    expect(await reply()).toMatchObject({ id: 4, error: { code: -32600, message: expect.stringMatching(/^Invalid request: not a JSON-RPC 2\.0 request/) } });
    expect(await reply()).toMatchObject({ id: "x", error: { code: -32600 } });
    // A request with all three whose progress token is no string or number: the answer names that, not what it has (review 136).
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "bmad", arguments: {}, _meta: { progressToken: { a: 1 } } } })}\n`);
    expect(await reply()).toMatchObject({ id: 5, error: { code: -32600, message: expect.stringContaining('"_meta.progressToken" is a string or a number') } });
  });

  it("answers at most 64 requests at once, refusing the rest at once, and takes more as they are answered (review 27: 20,000 pipelined held 800 MB)", async () => {
    const calls = Array.from({ length: 100 }, (_, i) => JSON.stringify({ jsonrpc: "2.0", id: 1000 + i, method: "resources/read", params: { uri: "bmad://bmm/module.yaml" } })).join("\n");
    // Its answers unread meanwhile: they fill the pipe, and an answer not yet written is still in flight.
    child.stdout.pause();
    await new Promise<void>((done) => child.stdin.write(`${calls}\n`, () => done()));
    await new Promise((r) => setTimeout(r, 500));
    child.stdout.resume();
    const answers = await Promise.all(Array.from({ length: 100 }, () => reply(15_000)));
    const busy = answers.filter((a) => a.error?.code === -32000);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy[0]!.error!.message).toBe("64 requests are being answered; send this one again once some are.");
    expect(answers.filter((a) => a.result).length).toBeGreaterThanOrEqual(64);
    send({ id: 14, method: "ping" });
    expect(await reply()).toEqual({ jsonrpc: "2.0", id: 14, result: {} });
  });

  it("still takes a request just under the limit", async () => {
    child.stdin.write(bigCall(12, LIMIT - 4096));
    const answer = await reply(15_000);
    expect(answer.id).toBe(12);
    expect(answer.error?.message ?? "").not.toMatch(/over 10 MiB/);
  });
});

describe("initialize", () => {
  // Review 219: a second initialize on the same connection switched its protocol version mid-connection.
  it("is taken once a connection, invalid params named first (review 131); a second is refused and the first's version holds", async () => {
    const fresh = spawn(process.execPath, [bridge], { cwd: join(tmp.dir, "project"), env: { PATH: process.env.PATH!, HOME: join(tmp.dir, "home") }, stdio: ["pipe", "pipe", "pipe"] });
    try {
      const answers = createInterface({ input: fresh.stdout })[Symbol.asyncIterator]();
      const ask = async (id: number, method: string, params: object = {}) => {
        fresh.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
        return JSON.parse((await answers.next()).value as string) as Reply;
      };
      const clientInfo = { name: "again", version: "1" };
      expect(await ask(1, "initialize", { capabilities: {}, clientInfo })).toMatchObject({ id: 1, error: { code: -32602, message: 'Invalid params for initialize: "protocolVersion": Invalid input: expected string, received undefined.' } });
      expect((await ask(2, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo })).result?.protocolVersion).toBe("2025-06-18");
      expect(await ask(3, "initialize", { protocolVersion: "2025-03-26", capabilities: {}, clientInfo })).toEqual({
        jsonrpc: "2.0", id: 3, error: { code: -32600, message: "This connection is initialized already, and keeps its protocol version until it closes: start a new connection to initialize again." },
      });
      expect(await ask(4, "ping")).toEqual({ jsonrpc: "2.0", id: 4, result: {} });
    } finally {
      fresh.kill("SIGKILL");
    }
  });
});

describe("badly shaped requests (review 131)", () => {
  it("get invalid params naming the field, and a forged cursor is refused by every list", async () => {
    send({ id: 20, method: "prompts/get", params: { name: "bmad-analyst", arguments: { project: 5 } } });
    expect(await reply()).toMatchObject({ id: 20, error: { code: -32602, message: 'Invalid params for prompts/get: "arguments.project": Invalid input: expected string, received number.' } });
    for (const method of ["tools/list", "prompts/list"]) {
      send({ id: 22, method, params: { cursor: "garbage" } });
      expect(await reply(), method).toMatchObject({ id: 22, error: { code: -32602, message: 'Invalid cursor "garbage": pass the nextCursor of the previous page.' } });
    }
  });
});

// Last: the cancelled requests' answers, some sent and some not, are never read.
describe("requests in flight", () => {
  it("counts a place by request, not by id, and keeps a cancelled request's place a while (review 29: 5,000 reads sharing one id, or cancelled at once, held 1 to 2 GB)", async () => {
    const read = (id: number | string) => JSON.stringify({ jsonrpc: "2.0", id, method: "resources/read", params: { uri: "bmad://bmm/module.yaml" } });
    const cancel = (id: number) => JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
    child.stdout.pause();
    const lines = [read("same"), read("same"), ...Array.from({ length: 63 }, (_, i) => `${read(2000 + i)}\n${cancel(2000 + i)}`), read(3000)];
    await new Promise<void>((done) => child.stdin.write(`${lines.join("\n")}\n`, () => done()));
    await new Promise((r) => setTimeout(r, 500));
    child.stdout.resume();
    const answers: Reply[] = [];
    // 1 + 1 refusal of the second "same", up to 63 reads (a cancelled one may still answer), and 3000's refusal.
    for (let next = await reply(15_000); ; next = await reply(15_000)) {
      answers.push(next);
      if (next.id === 3000) break;
    }
    expect(answers.find((a) => a.id === "same" && a.error)?.error).toEqual({ code: -32600, message: 'Request id "same" is already being answered; give each request its own id.' });
    expect(answers.find((a) => a.id === 3000)?.error?.code).toBe(-32000);
  });

  // Review 219: 2,000,000 levels overflowed the stack of the tool call's JSON.stringify ("Maximum call stack size
  // exceeded"); the Worker and --http refuse them, and past 20,000 values too, in these words.
  it("refuses arguments nested past 64 levels or past 20,000 values, with the request's id, as every door does", async () => {
    const call = (id: number, args: string) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"bmad","arguments":{"command":${args}}}}\n`;
    // A read cancelled above may still answer first.
    const answerTo = async (id: number) => {
      for (;;) {
        const next = await reply(15_000);
        if (next.id === id) return next;
      }
    };
    child.stdin.write(call(4100, `${"[".repeat(2_000_000)}${"]".repeat(2_000_000)}`));
    expect(await answerTo(4100)).toEqual({ jsonrpc: "2.0", id: 4100, error: { code: -32602, message: "This request nests JSON more than 64 levels deep, far past any call's: send flatter arguments." } });
    // Just past the limit (400,000 values took 0.4 s of the bridge's CPU to prove no more).
    child.stdin.write(call(4101, JSON.stringify(Object.fromEntries(Array.from({ length: 20_001 }, (_, i) => [`k${i}`, 1])))));
    expect(await answerTo(4101)).toEqual({ jsonrpc: "2.0", id: 4101, error: { code: -32000, message: "This request holds more than 20,000 JSON values, far past any call's: send less at once." } });
    send({ id: 4102, method: "ping" });
    expect(await answerTo(4102)).toEqual({ jsonrpc: "2.0", id: 4102, result: {} });
  });

  it("takes a message with an id as a request, whatever its method says (review 31: a cancel with an id freed another's place)", async () => {
    await new Promise((r) => setTimeout(r, 5_500)); // the places cancelled above are free again
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 4000, method: "ping" })}\n${JSON.stringify({ jsonrpc: "2.0", id: 4000, method: "notifications/cancelled", params: { requestId: 4000 } })}\n`);
    const seen: Reply[] = [];
    while (seen.filter((a) => a.id === 4000).length < 2) seen.push(await reply(15_000));
    expect(seen.filter((a) => a.id === 4000).map((a) => a.error?.code ?? "result").sort()).toEqual([-32600, "result"]);
  });
});
