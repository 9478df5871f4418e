// Expected failures are values. One helper turns them into MCP tool results.
import type { Result } from "../result.js";
/** `suggestions`: for an unknown name or URI, the closest that exist (sent as structuredContent.suggestions). */
export type ToolOutcome = Result<{ text: string; structured?: Record<string, unknown> }, { suggestions?: string[] }>;

export const done = (text: string, structured?: Record<string, unknown>): ToolOutcome => ({ ok: true, text, structured });
export const fail = (error: string, suggestions?: string[]): ToolOutcome => (suggestions ? { ok: false, error, suggestions } : { ok: false, error });
