// Expected failures are values. One helper turns them into MCP tool results.
export type ToolOutcome =
  | { ok: true; text: string; structured?: Record<string, unknown>; sample?: SampleRequest }
  /** `suggestions`: for an unknown name or URI, the closest that exist (sent as structuredContent.suggestions). */
  | { ok: false; error: string; suggestions?: string[] };

/** Ask the client's model first (sampling): the call comes back with its answer under `key`. */
export interface SampleRequest {
  key: string;
  params: {
    systemPrompt: string;
    messages: Array<{ role: "user"; content: { type: "text"; text: string } }>;
    maxTokens: number;
  };
}

export const done = (text: string, structured?: Record<string, unknown>): ToolOutcome => ({ ok: true, text, structured });
export const fail = (error: string, suggestions?: string[]): ToolOutcome => (suggestions ? { ok: false, error, suggestions } : { ok: false, error });
