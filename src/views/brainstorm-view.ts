// Entry of ui://bmad/brainstorm.html (bmad-brainstorm): a loader for BMAD's own composer page (brain.py's `html`,
// the bundle's bmad-brainstorming/assets/brain-selector.html), which the server puts in PAGE gzip-compressed in
// base64 (core/surface/composer.ts). It unpacks the page and writes it over this document, where its own inline
// scripts run under this page's CSP; the page is BMAD's, unchanged, but for one thing: the sandbox has no clipboard,
// so its "Copy prompt" (navigator.clipboard.writeText) sends the composed prompt to the chat as the user's message.
import { COMPOSER_SLOT } from "../core/surface/composer.js";
import { ViewApp } from "./app.js";
import { errorBox, show } from "./dom.js";

const PAGE: string = COMPOSER_SLOT;

async function unpack(base64: string): Promise<string> {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
}

async function main(): Promise<void> {
  const page = await unpack(PAGE).catch(() => undefined);
  if (page === undefined) {
    show(document.getElementById("app")!, errorBox("The composer page did not come with this view: pick techniques in chat."));
  } else {
    let app: ViewApp | undefined;
    // document.open() erases the window's listeners: the app connects once the page is written.
    document.open();
    const clipboard = { writeText: (text: string) => (app ? app.sendMessage(text) : Promise.reject(new Error("Not connected to the host yet."))) };
    Object.defineProperty(navigator, "clipboard", { value: clipboard, configurable: true });
    document.write(page);
    document.close();
    app = new ViewApp("bmad-brainstorm");
    return app.connect();
  }
  await new ViewApp("bmad-brainstorm").connect();
}

void main();
