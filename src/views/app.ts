// The view's side of MCP Apps (ui/initialize, tool results in, tools/call and ui/message out) over postMessage to
// the host, as @modelcontextprotocol/ext-apps' App speaks it. Written here rather than bundling App: App brings the
// MCP client and zod, 650 KB minified, four times a view's whole budget. Only the parent window is listened to.
import type { McpUiInitializeRequest, McpUiMessageRequest, McpUiToolResultNotification } from "@modelcontextprotocol/ext-apps";
import { errorBox, errorText } from "./dom.js";

export type ToolResult = McpUiToolResultNotification["params"];
type Message = { jsonrpc: "2.0"; id?: number | string; method?: string; params?: Record<string, unknown>; result?: unknown; error?: { message?: string } };

const PROTOCOL_VERSION = "2026-01-26";

export class ViewApp {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  /** A result of the tool this view belongs to (the host sends it after the call). */
  onResult?: (result: ToolResult) => void;

  constructor(private readonly name: string) {
    window.addEventListener("message", (event) => {
      if (event.source === window.parent) this.receive(event.data as Message);
    });
    // Nothing in a view navigates its frame: a page it went to would speak to the host as this view, with the
    // user's token behind it. A view acts only through its own buttons' tool calls.
    for (const type of ["click", "auxclick"]) {
      document.addEventListener(type, (event) => {
        if ((event.target as Element | null)?.closest?.("a, area, [href]")) event.preventDefault();
      }, true);
    }
    document.addEventListener("submit", (event) => event.preventDefault(), true);
  }

  async connect(): Promise<void> {
    const params: McpUiInitializeRequest["params"] = { appInfo: { name: this.name, version: "1.0.0" }, appCapabilities: {}, protocolVersion: PROTOCOL_VERSION };
    await this.request("ui/initialize", params);
    this.notify("ui/notifications/initialized", {});
    // The host sizes the frame to the page.
    let last = "";
    new ResizeObserver(() => {
      const size = { width: Math.ceil(document.documentElement.scrollWidth), height: Math.ceil(document.documentElement.scrollHeight) };
      if (`${size.width}x${size.height}` !== last) (last = `${size.width}x${size.height}`), this.notify("ui/notifications/size-changed", size);
    }).observe(document.documentElement);
  }

  /** tools/call through the host, which makes it with the user's token and scopes. A call the host could not make
   *  (the server refused the token's scope, the connection dropped) answers as a refusal, which the views show as they
   *  show the tool's own (review 328: a rejected Restore left its dialog open, saying nothing). */
  async callTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    try {
      return (await this.request("tools/call", { name, arguments: args })) as ToolResult;
    } catch (e) {
      return { isError: true, content: [{ type: "text", text: `The host could not make the call (${errorText(e)}). Try again, or ask in the chat.` }] };
    }
  }

  /** Asks the host to put a message in the conversation (ui/message). */
  async sendMessage(text: string): Promise<void> {
    const params: McpUiMessageRequest["params"] = { role: "user", content: [{ type: "text", text }] };
    await this.request("ui/message", params);
  }

  private request(method: string, params: object): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.post({ jsonrpc: "2.0", id, method, params: params as Record<string, unknown> });
    });
  }

  private notify(method: string, params: Record<string, unknown>): void {
    this.post({ jsonrpc: "2.0", method, params });
  }

  private post(message: Message): void {
    window.parent.postMessage(message, "*");
  }

  private receive(message: Message): void {
    if (!message || message.jsonrpc !== "2.0") return;
    if (message.method === undefined && typeof message.id === "number") {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error) waiting?.reject(new Error(message.error.message ?? "The host refused the request."));
      else waiting?.resolve(message.result);
    } else if (message.method === "ui/notifications/tool-result") {
      // A view that cannot show its result says so, never left on "Loading…" (review 317).
      try {
        this.onResult?.(message.params as ToolResult);
      } catch (e) {
        document.getElementById("app")?.replaceChildren(errorBox(`This view cannot show the answer: ${errorText(e)}.`));
      }
    } else if (message.method !== undefined && message.id !== undefined) {
      // ping, ui/resource-teardown: nothing to keep or close.
      this.post({ jsonrpc: "2.0", id: message.id, result: {} });
    }
  }
}

/** A tool result's text blocks, and the last one (a file's content comes after its header). */
export const resultText = (result: ToolResult): string => (result.content ?? []).map((c) => (c.type === "text" ? c.text : "")).join("\n");
export const lastText = (result: ToolResult): string => {
  const blocks = (result.content ?? []).filter((c) => c.type === "text");
  const last = blocks[blocks.length - 1];
  return last && last.type === "text" ? last.text : "";
};
