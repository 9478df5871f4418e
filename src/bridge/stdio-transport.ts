// The bridge's stdio wire. Results are written as ASCII-only JSON (\u escapes): a client decodes an ASCII
// line on its fast path, about twice as fast as UTF-8 with emoji and arrows in it (BMAD agent files have both).
// A frozen result (the surface's cached tool list and prompts) cannot change, so its bytes are encoded once.
// Requests and notifications go through the SDK's own send.
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";

const LINE_END = Buffer.from("}\n");
const encodedOnce = new WeakMap<object, Buffer>();

function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function encode(result: unknown): Buffer {
  if (typeof result !== "object" || result === null || !Object.isFrozen(result)) return Buffer.from(asciiJson(result), "latin1");
  const known = encodedOnce.get(result);
  if (known) return known;
  const bytes = Buffer.from(asciiJson(result), "latin1");
  encodedOnce.set(result, bytes);
  return bytes;
}

export class StdioTransport extends StdioServerTransport {
  private closed = false;

  override close(): Promise<void> {
    this.closed = true;
    return super.close();
  }

  override send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || !("result" in message)) return super.send(message); // the SDK refuses sends after close
    const head = Buffer.from(`{"jsonrpc":"2.0","id":${asciiJson(message.id)},"result":`, "latin1");
    const line = Buffer.concat([head, encode(message.result), LINE_END]);
    return new Promise((done, fail) => void process.stdout.write(line, (error) => (error ? fail(error) : done())));
  }
}
