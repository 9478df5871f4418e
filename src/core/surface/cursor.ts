// Where a listed page starts. Every list (tools, prompts, resources, skills) takes the cursor the same way: a page's
// nextCursor is the offset of the next, and any other cursor is refused, as the spec asks (-32602).
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";

export function parseCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const n = /^\d{1,9}$/.test(cursor) ? Number(cursor) : NaN;
  if (!Number.isFinite(n)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid cursor "${cursor.slice(0, 50)}": pass the nextCursor of the previous page.`);
  return n;
}
