// Expected failures are values. One helper turns them into MCP tool results.
import type { Result } from "../result.js";
/** `suggestions`: for an unknown name or URI, the closest that exist (sent as structuredContent.suggestions);
 *  `header`: a line about `text`, sent as a content block of its own before it, so that `text` (a file's content)
 *  can be taken whole; `sample`: ask the client's model first (delegate_to_agent); `confirm`: ask the user first, in
 *  the client (a share or an accept: consent is the person's, never the model's); `kept`: the same arguments get
 *  this same answer until the bundle changes, so the server keeps it and answers a repeat without running the tool;
 *  `isError`: a failure that still carries its result (a script that exited non-zero, with its output and code). */
export type ToolOutcome = Result<
  { text: string; header?: string; structured?: Record<string, unknown>; sample?: SampleRequest; confirm?: ConfirmRequest; kept?: boolean; isError?: boolean },
  { suggestions?: string[] }
>;

/** Ask the client's model first (sampling): the call comes back with its answer under `key`. */
export interface SampleRequest {
  key: string;
  params: {
    systemPrompt: string;
    messages: Array<{ role: "user"; content: { type: "text"; text: string } }>;
    maxTokens: number;
  };
}

/** Ask the user, not the model (elicitation): the call comes back with their answer under `key`. */
export interface ConfirmRequest {
  key: string;
  message: string;
  /** The box the user ticks to say yes. */
  label: string;
}

export const done = (text: string, structured?: Record<string, unknown>): ToolOutcome => ({ ok: true, text, structured });
export const fail = (error: string, suggestions?: string[]): ToolOutcome => (suggestions ? { ok: false, error, suggestions } : { ok: false, error });
