// View 2, a document: rendered markdown (sanitised), its versions, a diff of any two, and restore (confirmed in the
// page, then bmad-files restore with if_version: the host's call, the user's scopes).
import { diffLines } from "diff";
import { lastText, resultText, type ToolResult, type ViewApp } from "./app.js";
import { errorBox, h, show, when } from "./dom.js";
import { renderMarkdown, splitFrontmatter } from "./markdown.js";

const CONTEXT = 3;

interface Version { version: number; op: string; author: string; at: string; restored_from?: number; pruned?: boolean }
interface DocData { project: string; path: string; version: number; author: string; updated_at: string; history: string; versions: Version[]; history_note?: string }

export function showDocument(app: ViewApp, root: HTMLElement, result: ToolResult, back?: () => void): void {
  if (result.isError) return show(root, back ? h("button", { class: "back", click: back }, "← Map") : null, errorBox(resultText(result)));
  const doc = result.structuredContent as unknown as DocData;
  const text = lastText(result);
  const { front, body } = splitFrontmatter(text);
  const status = /^status:\s*["']?([^"'\n]+)/m.exec(front)?.[1]?.trim();
  const reload = async (version?: number) => showDocument(app, root, await app.callTool("bmad-doc", { project: doc.project, path: doc.path, ...(version ? { version } : {}) }), back);
  const panel = h("section", { class: "panel" });
  const versions = doc.history === "versions" && doc.versions.length
    ? versionList(app, doc, panel, reload)
    : h("p", { class: "note" }, doc.history === "versions" ? "No versions recorded." : `Current version only: ${doc.history_note ?? "this project keeps no versions here."}`);
  show(
    root,
    h("header", {},
      back ? h("button", { class: "back", click: back }, "← Map") : null,
      h("h1", {}, doc.path),
      h("p", { class: "meta" }, `version ${doc.version} · ${doc.author} · ${when(doc.updated_at)}`, status ? " · " : "", status ? h("span", { class: `status status-${status.replace(/[^a-z-]/gi, "")}` }, status) : null),
    ),
    h("div", { class: "doc" }, renderMarkdown(body), h("aside", {}, h("h2", {}, "Versions"), versions)),
    panel,
  );
}

function versionList(app: ViewApp, doc: DocData, panel: HTMLElement, reload: (v?: number) => Promise<void>): HTMLElement {
  const [newest, older] = [doc.versions[0]?.version ?? doc.version, doc.versions[1]?.version ?? doc.version];
  const picked = { a: older, b: newest };
  const rows = doc.versions.map((v) => {
    const radio = (side: "a" | "b") => {
      const input = h("input", { type: "radio", name: side, value: String(v.version), "aria-label": `${side === "a" ? "From" : "To"} v${v.version}`, change: () => (picked[side] = v.version) });
      input.checked = picked[side] === v.version;
      return input;
    };
    const restore = v.version !== doc.version && !v.pruned && v.op !== "delete"
      ? h("button", { class: "restore", "data-version": String(v.version), click: () => confirmRestore(app, doc, v.version, panel, reload) }, "Restore")
      : null;
    return h("li", { "data-version": String(v.version) }, radio("a"), radio("b"), ` v${v.version} ${v.op}${v.restored_from ? ` of v${v.restored_from}` : ""} · ${v.author} · ${when(v.at)} `, restore);
  });
  const compare = h("button", { class: "compare", click: () => void showDiff(app, doc, picked.a, picked.b, panel) }, "Compare");
  return h("div", {}, h("ul", { class: "versions" }, ...rows), compare);
}

async function showDiff(app: ViewApp, doc: DocData, a: number, b: number, panel: HTMLElement): Promise<void> {
  const read = (version: number) => app.callTool("bmad-doc", { project: doc.project, path: doc.path, version });
  const [from, to] = await Promise.all([read(a), read(b)]);
  if (from.isError || to.isError) return show(panel, errorBox(resultText(from.isError ? from : to)));
  const lines = diffLines(lastText(from), lastText(to)).flatMap((part) => {
    const text = part.value.replace(/\n$/, "").split("\n");
    if (part.added || part.removed) return text.map((line) => h(part.added ? "ins" : "del", {}, `${part.added ? "+" : "-"} ${line}`));
    // Unchanged runs keep CONTEXT lines on each side of a change.
    const kept = text.length > 2 * CONTEXT + 1 ? [...text.slice(0, CONTEXT), `… ${text.length - 2 * CONTEXT} unchanged lines`, ...text.slice(-CONTEXT)] : text;
    return kept.map((line) => h("span", {}, `  ${line}`));
  });
  show(panel, h("h2", {}, `v${a} → v${b}`), h("pre", { class: "diff" }, ...lines.flatMap((l) => [l, "\n"])));
}

function confirmRestore(app: ViewApp, doc: DocData, version: number, panel: HTMLElement, reload: (v?: number) => Promise<void>): void {
  const yes = async () => {
    const out = await app.callTool("bmad-files", { action: "restore", project: doc.project, path: doc.path, version, if_version: doc.version });
    if (out.isError) return show(panel, errorBox(resultText(out)));
    await reload();
  };
  show(panel, h("div", { class: "confirm", role: "dialog" }, h("p", {}, `Restore ${doc.path} to v${version}'s content? It becomes a new version; nothing is lost.`), h("button", { class: "confirm-yes", click: () => void yes() }, `Restore v${version}`), h("button", { click: () => show(panel) }, "Cancel")));
}
