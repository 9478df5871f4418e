// Expected failures are values. One helper turns them into MCP tool results.
import type { Result } from "../result.js";
export type ToolOutcome = Result<{ text: string; structured?: Record<string, unknown> }>;

export const done = (text: string, structured?: Record<string, unknown>): ToolOutcome => ({ ok: true, text, structured });
export const fail = (error: string): ToolOutcome => ({ ok: false, error });
