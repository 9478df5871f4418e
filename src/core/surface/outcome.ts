// Expected failures are values. One helper turns them into MCP tool results.
export type ToolOutcome =
  | { ok: true; text: string; structured?: Record<string, unknown>; sample?: SampleRequest }
  | { ok: false; error: string };

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
export const fail = (error: string): ToolOutcome => ({ ok: false, error });
