// Entry of ui://bmad/map.html (bmad-map): the project's phases, as the bundle's bmad-help.csv has them, with their
// documents; a workflow starts through a message to the host, a document opens here as the document view.
import { resultText, ViewApp, type ToolResult } from "./app.js";
import { showDocument } from "./document.js";
import { showName } from "../core/lines.js";
import { changedSinceNote, type ChangedSince } from "../core/workspace/changed-since.js";
import { errorBox, h, show, statusBadge, when } from "./dom.js";

interface Artifact { path: string; status?: string; version: number; updated_at: string; updated_at_local?: string; author?: string; others?: string; changed_since?: ChangedSince }
interface ProjectMap {
  project: string;
  phases: Array<{ phase: string; workflows: Array<{ skill: string; title: string; required: boolean; done: boolean }>; artifacts: Artifact[] }>;
  other: Artifact[];
  memlogs: Array<{ path: string; updated_at: string; updated_at_local?: string; entries: string[]; author?: string; others?: string; changed_since?: ChangedSince }>;
  next?: { skill: string; title: string; phase: string; resume?: { path: string; status?: string }; sprint?: { story?: string; reason: string } };
  sprint?: { path: string; all_done?: boolean };
  stale?: Array<{ path: string; after: string; skill: string }>;
  more: number;
  more_in?: string[];
  left_out?: string[];
  catalog_rows_left_out?: number;
  access?: "read" | "write";
}

const app = new ViewApp("bmad-map");
const root = document.getElementById("app")!;

function showMap(result: ToolResult): void {
  if (result.isError) return show(root, errorBox(resultText(result)));
  const map = result.structuredContent as unknown as ProjectMap;
  // The message goes as the user's own words: it says exactly what the button shows, and the project in the header.
  // Read access starts nothing (review 424: its Resume asked the model to run a workflow whose writes are refused).
  const readOnly: Record<string, string> = map.access === "read" ? { disabled: "", title: "You have read access: running a workflow needs write access." } : {};
  const start = (verb: string, skill: string, title: string, story?: string) => {
    const label = `${verb} ${title} (${skill})`;
    // The story the sprint names goes with it, as the line above the button shows it (review 348), as a plain key only:
    // the message goes as the user's own words, and a key is a collaborator's text (review 349: a key carried
    // instructions). No document's path: a collaborator names it (review 424: a file name read as the user's
    // approval), and the workflow names the document it resumes (its "already has" line, get_workflow_status).
    const plainStory = story !== undefined && /^\d+-\d+[a-z]?-[a-z0-9-]{1,80}$/.test(story);
    return h("button", { class: "start", "data-skill": skill, ...readOnly, click: () => void app.sendMessage(`${label} on project "${map.project}"${plainStory ? `, story ${story}` : ""}.`) }, label);
  };
  const open = async (path: string) => showDocument(app, root, await app.callTool("bmad-doc", { project: map.project, path }), () => showMap(result));
  const artifact = (a: Artifact) =>
    h("li", { class: "artifact", "data-path": a.path },
      // Its invisible characters written out, as the document's own text is: `prd\u200b.md` is not `prd.md` (review 317).
      h("button", { class: "open", click: () => void open(a.path) }, showName(a.path)),
      a.status ? statusBadge(a.status) : null,
      // A project folder's file has no author (the bridge cannot know who wrote it).
      h("span", { class: "meta" }, ` ${[`v${a.version}`, a.author, when(a.updated_at, a.updated_at_local), a.others, a.changed_since && changedSinceNote(a.changed_since)].filter(Boolean).join(" · ")}`));
  show(
    root,
    h("header", {}, h("h1", {}, `Project ${map.project}`),
      // A begun step not settled (a draft PRD) is resumed, as get_workflow_status says.
      // Once a sprint is planned, what its status says (the story, or all done), as the map's text says it.
      map.next ? h("p", { class: "next" }, `Next: ${map.next.resume ? "resume " : ""}${map.next.title} (${map.next.phase})${map.next.resume ? ` from ${showName(map.next.resume.path)}` : ""}${map.next.sprint ? `${map.next.sprint.story ? `, story ${map.next.sprint.story}` : ""}: ${map.next.sprint.reason}` : ""} `, start(map.next.resume ? "Resume" : "Start", map.next.skill, map.next.title, map.next.sprint?.story)) : h("p", { class: "next" }, map.sprint?.all_done ? `Every story, epic and retrospective in ${showName(map.sprint.path)} is done.` : map.catalog_rows_left_out ? "No required workflow left to do among the catalog's rows read." : "Every required workflow from the first one begun is done."),
      // A step built on an earlier one's document that changed since, as the map's text says it.
      ...(map.stale ?? []).map((s) => h("p", { class: "note stale" }, `${showName(s.after)} changed after ${showName(s.path)} was last written: check that ${s.skill}'s output still follows it.`)),
      // A cut catalog may have left out the next workflow, and whole phases.
      map.catalog_rows_left_out ? h("p", { class: "note" }, `${map.catalog_rows_left_out} rows of bmad-help.csv left out, past the rows a help catalog gives. Remove the rows that do not belong there.`) : null),
    h("div", { class: "phases" }, ...map.phases.map((p) =>
      h("section", { class: "phase", "data-phase": p.phase },
        h("h2", {}, p.phase),
        h("ul", { class: "workflows" }, ...p.workflows.map((w) => h("li", { class: w.done ? "done" : "" }, `${w.done ? "✓ " : ""}${w.title}${w.required ? " *" : ""}`))),
        p.artifacts.length ? h("ul", { class: "artifacts" }, ...p.artifacts.map(artifact)) : h("p", { class: "note" }, "Nothing written yet.")))),
    map.other.length ? h("section", { class: "other" }, h("h2", {}, "Other documents"), h("ul", { class: "artifacts" }, ...map.other.map(artifact))) : null,
    map.more ? h("p", { class: "note" }, `${map.more} more documents not shown${map.more_in?.length ? `, in ${map.more_in.join(", ")}` : ""}.`) : null,
    ...(map.left_out ?? []).map((line) => h("p", { class: "note" }, line)),
    map.memlogs.length ? h("section", { class: "memlogs" }, h("h2", {}, "Latest memlog entries"), ...map.memlogs.map((m) => h("div", {}, h("h3", {}, [showName(m.path), m.author, when(m.updated_at, m.updated_at_local), m.others, m.changed_since && changedSinceNote(m.changed_since)].filter(Boolean).join(" · ")), h("ul", {}, ...m.entries.map((e) => h("li", {}, e)))))) : null,
  );
}

app.onResult = showMap;
void app.connect();
