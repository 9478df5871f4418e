// Newline-delimited JSON-RPC frames from stdin, with a size limit that costs nothing on frames under it.
// A line over the limit is never buffered: its bytes are scanned as they pass for the request id it names
// (a streaming scan with constant memory), dropped, and reported once the line ends, so the bridge can
// answer that request with an error and go on reading the next line.

/** The SDK's own read buffer limit: one frame over it used to close the transport. */
export const MAX_FRAME_BYTES = 10 * 1024 * 1024;

export type FrameId = string | number | null;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_ID_CHARS = 256;

/** Finds the top-level `"id"` of a JSON object fed in pieces; null when there is none or it is not a string or number. */
class IdScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private expectKey = false;
  private key: number[] | undefined;
  private lastKey = "";
  private afterColon = false;
  private value: number[] | undefined;
  private found: FrameId = null;
  private started = false;
  private topLevelObject = false;

  feed(bytes: Uint8Array): void {
    for (const byte of bytes) this.step(byte);
  }

  id(): FrameId {
    this.endValue();
    return this.topLevelObject ? this.found : null;
  }

  private step(byte: number): void {
    if (!this.started) {
      if (byte === 0x20 || byte === 0x09 || byte === 0x0d) return;
      this.started = true;
      this.topLevelObject = byte === 0x7b;
    }
    if (this.value && !this.inString && this.value[0] !== QUOTE && (byte === 0x2c || byte === 0x7d || byte === 0x20 || byte === 0x09 || byte === 0x0d)) this.endValue();
    if (this.inString) {
      this.capture(byte);
      if (this.escaped) this.escaped = false;
      else if (byte === BACKSLASH) this.escaped = true;
      else if (byte === QUOTE) {
        this.inString = false;
        if (this.key) {
          this.lastKey = Buffer.from(this.key.slice(0, -1)).toString("latin1");
          this.key = undefined;
        } else if (this.value) this.endValue();
      }
      return;
    }
    if (this.depth === 1 && this.afterColon && this.value === undefined && byte !== 0x20 && byte !== 0x09) {
      this.afterColon = false;
      if (this.lastKey === "id") this.value = [];
    }
    this.capture(byte);
    switch (byte) {
      case QUOTE:
        this.inString = true;
        if (this.depth === 1 && this.expectKey) {
          this.key = [];
          this.expectKey = false;
        }
        break;
      case 0x7b: // {
      case 0x5b: // [
        this.depth++;
        if (this.depth === 1) this.expectKey = true;
        break;
      case 0x7d: // }
      case 0x5d: // ]
        this.depth--;
        break;
      case 0x2c: // ,
        if (this.depth === 1) this.expectKey = true;
        break;
      case 0x3a: // :
        if (this.depth === 1) this.afterColon = true;
        break;
    }
  }

  private capture(byte: number): void {
    if (this.key && this.key.length <= 8) this.key.push(byte);
    if (this.value) {
      this.value.push(byte);
      if (this.value.length > MAX_ID_CHARS) this.value = undefined; // no id is that long
    }
  }

  private endValue(): void {
    if (!this.value) return;
    const raw = Buffer.from(this.value).toString("utf8").trim();
    this.value = undefined;
    try {
      const parsed: unknown = JSON.parse(raw);
      this.found = typeof parsed === "string" || (typeof parsed === "number" && Number.isFinite(parsed)) ? parsed : null;
    } catch {
      this.found = null;
    }
  }
}

/** Splits a byte stream into lines; passes lines up to `max` bytes on whole, reports longer ones by id. */
export class FrameLimiter {
  private parts: Buffer[] = [];
  private size = 0;
  private scanner: IdScanner | undefined;

  constructor(
    private readonly max: number,
    private readonly onLine: (line: Buffer) => void,
    private readonly onOversized: (id: FrameId) => void,
  ) {}

  push(chunk: Buffer): void {
    for (let start = 0; start < chunk.length; ) {
      const newline = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, newline === -1 ? chunk.length : newline);
      if (this.scanner) this.scanner.feed(piece);
      else if (this.size + piece.length > this.max) {
        // Over the limit: scan what was kept, let it go, and scan the rest as it passes.
        this.scanner = new IdScanner();
        for (const part of this.parts) this.scanner.feed(part);
        this.scanner.feed(piece);
        this.parts = [];
        this.size = 0;
      } else if (piece.length) {
        this.parts.push(piece);
        this.size += piece.length;
      }
      if (newline === -1) return;
      start = newline + 1;
      if (this.scanner) {
        const id = this.scanner.id();
        this.scanner = undefined;
        this.onOversized(id);
      } else if (this.size) {
        const line = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
        this.parts = [];
        this.size = 0;
        this.onLine(line);
      }
    }
  }
}
