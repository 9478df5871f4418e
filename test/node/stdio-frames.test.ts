// The bridge's stdin frame limiter: lines pass whole up to the limit; a longer one is reported with the
// top-level id it names, wherever the id sits and however the bytes are split into chunks.
import { describe, expect, it } from "vitest";
import { FrameLimiter, type FrameId } from "../../src/bridge/stdio-frames";

function feed(max: number, input: string, chunkSize: number): Array<{ line: string } | { oversized: FrameId }> {
  const out: Array<{ line: string } | { oversized: FrameId }> = [];
  const limiter = new FrameLimiter(max, (line) => out.push({ line: line.toString() }), (id) => out.push({ oversized: id }));
  const bytes = Buffer.from(input);
  for (let i = 0; i < bytes.length; i += chunkSize) limiter.push(bytes.subarray(i, i + chunkSize));
  return out;
}

const big = "x".repeat(200);

describe("FrameLimiter", () => {
  it("passes lines up to the limit whole and skips empty ones, in every chunking", () => {
    const input = `{"id":1}\n\n${"a".repeat(64)}\n{"id":2}\n`;
    for (const size of [1, 2, 3, 7, 64, 1000]) {
      expect(feed(64, input, size), `chunks of ${size}`).toEqual([{ line: '{"id":1}' }, { line: "a".repeat(64) }, { line: '{"id":2}' }]);
    }
  });

  it("reports the top-level id of an oversized line wherever it is, ignoring nested ones", () => {
    const cases: Array<[string, FrameId]> = [
      [`{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"${big}"}}`, 7],
      [`{"method":"x","params":{"id":99,"a":"${big}"},"id":"last"}`, "last"],
      [`{ "id" : "with \\"quote\\" and \\\\" , "params": "${big}" }`, 'with "quote" and \\'],
      [`{"params":"${big}","id":-3.5}`, -3.5],
      [`{"method":"notifications/x","params":{"text":"${big}"}}`, null],
      [`{"idx":5,"params":"${big}"}`, null],
      [`{"params":"\\"id\\":4 ${big}"}`, null],
      [`{"id":{"nested":1},"params":"${big}"}`, null],
      [`[{"id":1,"params":"${big}"}]`, null],
      [`not json ${big}`, null],
    ];
    for (const [line, id] of cases) {
      for (const size of [1, 5, 4096]) expect(feed(100, `${line}\n{"id":0}\n`, size), `${line.slice(0, 40)} in chunks of ${size}`).toEqual([{ oversized: id }, { line: '{"id":0}' }]);
    }
  });
});
