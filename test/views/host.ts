// A test host for the views, built on ext-apps' host side (AppBridge + PostMessageTransport) as a chat client
// would be: the view runs in a sandboxed iframe (scripts only: no same origin, no forms, no popups, no modals), its
// tool calls go to `hostCallTool` (the test's real MCP client, with the user's token), its ui/message requests are
// kept in `hostMessages`, and any other message a view posts to this page lands in `strayMessages`.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { CallToolResult } from "@modelcontextprotocol/server";

declare global {
  interface Window {
    hostCallTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
    hostMessages: unknown[];
    strayMessages: unknown[];
    showView(html: string, result: CallToolResult): Promise<void>;
  }
}

window.hostMessages = [];
window.strayMessages = [];
window.addEventListener("message", (event) => {
  const data = event.data as { jsonrpc?: unknown } | null;
  if (!data || data.jsonrpc !== "2.0") window.strayMessages.push(data);
});

window.showView = async (html, result) => {
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.style.cssText = "width: 1100px; height: 700px; border: 1px solid #ccc";
  document.body.replaceChildren(iframe);
  const bridge = new AppBridge(null, { name: "bmad-test-host", version: "1.0.0" }, { serverTools: {}, message: { text: {} } });
  bridge.oncalltool = (params) => window.hostCallTool(params.name, params.arguments ?? {});
  bridge.onmessage = async (params) => {
    window.hostMessages.push(params);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = `${Math.min(height + 4, 3000)}px`;
  };
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  iframe.srcdoc = html;
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  await initialized;
  await bridge.sendToolResult(result);
};
