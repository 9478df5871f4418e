// Expected failures are values. One helper turns them into MCP tool results.
export type ToolOutcome =
  | { ok: true; text: string; structured?: Record<string, unknown> }
  | { ok: false; error: string };

export const done = (text: string, structured?: Record<string, unknown>): ToolOutcome => ({ ok: true, text, structured });
export const fail = (error: string): ToolOutcome => ({ ok: false, error });
