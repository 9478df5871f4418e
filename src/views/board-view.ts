// Entry of ui://bmad/board.html (bmad-board): sprint-status.yaml as columns per epic; moving a card is bmad-board's
// move, made by the host, with the version the board was read at.
import { resultText, ViewApp, type ToolResult } from "./app.js";
import { errorBox, h, show } from "./dom.js";
import { showName } from "../core/lines.js";
import { changedSinceNote, displacedNote, type ChangedSince } from "../core/workspace/changed-since.js";
import type { Displaced } from "../core/workspace/store.js";

interface Board { project: string; path: string; version: number; columns: string[]; epics: Array<{ epic: string; status: string; retrospective?: string; stories: Array<{ key: string; status: string; written?: string }> }>; hidden?: { epics: number; stories: number }; actions?: Array<{ epic: string; action: string; status: string }>; actions_left_out?: number; moved?: string; others?: string; author?: string; changed_since?: ChangedSince; displaced?: Displaced; access?: "read" | "write" }

const app = new ViewApp("bmad-board");
const root = document.getElementById("app")!;

/** `notice`: said above the board (why a move was not made). */
function showBoard(result: ToolResult, notice?: string): void {
  const board = result.structuredContent as unknown as Board;
  // A move made, and the board not read after it: the answer says both.
  if (result.isError || !board?.epics) return show(root, errorBox(resultText(result)));
  const move = async (story: string, status: string) => {
    const out = await app.callTool("bmad-board", { project: board.project, story, status, if_version: board.version });
    if (!out.isError) return showBoard(out);
    // Refused (the file changed since this board): the board as it is now, under why (review 101: the card stayed where
    // it was chosen, and every later move was refused), said to the user, who needs no "reload" (review 317).
    const now = await app.callTool("bmad-board", { project: board.project });
    const changed = !now.isError && (now.structuredContent as unknown as Board).version !== board.version;
    showBoard(now, changed ? `${board.path} changed since this board was shown: ${story} was not moved. This is the board now; move it again if you still want to.` : `${story} was not moved: ${resultText(out)}`);
  };
  const card = (s: { key: string; status: string; written?: string }) => {
    // A card can move to the board's own statuses only (the "other" column is where a file's unknown one is shown).
    const targets = board.columns.filter((c) => c !== "other");
    // Chosen, then moved with the button: a focused select changes with each arrow key (review 101: one key moved it).
    const button = h("button", { type: "button", disabled: "", click: () => void move(s.key, select.value) }, "Move");
    // Read access moves nothing (review 245: its Move failed on click); the server refuses it still.
    const readOnly: Record<string, string> = board.access === "read" ? { disabled: "", title: "You have read access: moving a story needs write access." } : {};
    const select = h("select", { "aria-label": `Status of ${s.key}`, ...readOnly, change: () => (button.disabled = !select.value || select.value === s.status) }, ...(targets.includes(s.status) ? [] : [h("option", { value: "", disabled: "" }, "move to…")]), ...targets.map((c) => h("option", { value: c }, c)));
    select.value = targets.includes(s.status) ? s.status : "";
    return h("div", { class: "card", "data-story": s.key }, h("span", {}, s.key), s.written ? h("span", { class: "meta" }, ` (${s.written})`) : null, select, button);
  };
  show(
    root,
    h("header", {}, h("h1", {}, `Sprint board · ${board.project}`), h("p", { class: "meta" }, `${board.path} · version ${board.version}${board.author ? ` by ${board.author}` : ""}${board.others ? ` · ${board.others}` : ""}${board.access === "read" ? " · read access" : ""}`),
      // Told as the document view tells them (review 454: a collaborator's removed story went unsaid).
      board.changed_since ? h("p", { class: "note changed-since" }, `This file was ${changedSinceNote(board.changed_since)}.`) : null,
      board.displaced ? h("p", { class: "note displaced" }, displacedNote(showName(board.path), board.displaced)) : null),
    ...board.epics.map((e) =>
      h("section", { class: "epic", "data-epic": e.epic }, h("h2", {}, `${e.epic}${e.status ? ` · ${e.status}` : ""}${e.retrospective ? ` · retrospective ${e.retrospective}` : ""}`),
        h("div", { class: "columns" }, ...board.columns.map((c) => h("div", { class: "column", "data-status": c }, h("h3", {}, c), ...e.stories.filter((s) => s.status === c).map(card)))))),
    board.hidden ? h("p", { class: "note" }, `${board.hidden.epics} more epics and ${board.hidden.stories} more stories not shown.`) : null,
    board.actions ? h("section", { class: "actions" }, h("h2", {}, "Open action items"), h("ul", {}, ...board.actions.map((a) => h("li", {}, `epic ${a.epic}: ${a.action} (${a.status})`))), board.actions_left_out ? h("p", { class: "note" }, `${board.actions_left_out} more open action items not shown.`) : null) : null,
  );
  if (notice) root.prepend(errorBox(notice));
  // What a move says beyond the board (the story's own file says another status: review 348), above it.
  else if (board.moved) root.prepend(h("p", { class: "note moved" }, board.moved));
}

app.onResult = showBoard;
void app.connect();
