// Entry of ui://bmad/session.html (bmad-session): a delivery session's stages, scores and gates, its questions and
// artifacts; confirm, approve, reject (with the user's reason) and answers go through bmad-task, made by the host.
import { resultText, ViewApp, type ToolResult } from "./app.js";
import { errorBox, h, show } from "./dom.js";

interface Session {
  session_id: string;
  task_name: string;
  current_stage: string;
  current_state: string;
  user_message: string;
  pending_user_actions: string[];
  questions?: Array<{ id: string; question: string; context?: string }>;
  artifacts: string[];
  stages: Array<{ stage: string; title: string; gate: string; status: string; iteration: number; score?: number }>;
  revision: number;
  access?: "read" | "write";
}

const app = new ViewApp("bmad-session");
const root = document.getElementById("app")!;

/** `notice`: said above the session (why an action was not taken). */
function showSession(result: ToolResult, notice?: string): void {
  if (result.isError) return show(root, errorBox(resultText(result)));
  const s = result.structuredContent as unknown as Session;
  const act = async (args: Record<string, unknown>) => {
    // At the revision shown: a session that moved on meanwhile is told so, not acted on unseen.
    const out = await app.callTool("bmad-task", { session_id: s.session_id, revision: s.revision, ...args });
    const now = await app.callTool("bmad-session", { session_id: s.session_id });
    if (!out.isError) return showSession(now);
    // Refused: the session as it is now, under why (review 317: Confirm stayed, and each refusal stacked another in
    // the model's words), said to the user where the session moved on since it was shown.
    const moved = !now.isError && (now.structuredContent as unknown as Session).revision !== s.revision;
    showSession(now, moved ? "This session moved on since it was shown: nothing was done. This is where it is now; act again if you still want to." : `Nothing was done: ${resultText(out)}`);
  };
  const reason = h("input", { type: "text", class: "reason", placeholder: "Why (for reject)", "aria-label": "Reason" });
  const answers = (s.questions ?? []).map((q) => ({ q, input: h("textarea", { "data-question": q.id, "aria-label": q.question, rows: "2" }) }));
  // A token that may not write acts on nothing (review 328); the server refuses it still.
  const readOnly: Record<string, string> = s.access === "read" ? { disabled: "", title: "You have read access: acting on a session needs write access." } : {};
  const buttons = s.pending_user_actions.flatMap((a) =>
    a === "confirm" || a === "approve" ? [h("button", { class: `act-${a}`, ...readOnly, click: () => void act({ action: a }) }, a === "confirm" ? "Confirm" : "Approve")]
    : a === "reject" ? [reason, h("button", { class: "act-reject", ...readOnly, click: () => void act({ action: "reject", reason: reason.value }) }, "Reject")]
    : a === "answer" ? [h("button", { class: "act-answer", ...readOnly, click: () => void act({ action: "answer", answers: Object.fromEntries(answers.map(({ q, input }) => [q.id, input.value])) }) }, "Send answers")]
    : []);
  show(
    root,
    h("header", {}, h("h1", {}, s.task_name), h("p", { class: "meta" }, `${s.session_id} · ${s.current_stage} · ${s.current_state}`), h("p", { class: "next" }, s.user_message)),
    h("ol", { class: "stages" }, ...s.stages.map((st) =>
      h("li", { class: `stage stage-${st.status}`, "data-stage": st.stage }, h("strong", {}, st.title), ` · ${st.status}`, st.score !== undefined ? ` · score ${st.score}` : "", ` · gate ${st.gate}`, st.iteration ? ` · iteration ${st.iteration}` : ""))),
    answers.length ? h("section", { class: "questions" }, h("h2", {}, "Questions"), ...answers.map(({ q, input }) => h("label", {}, h("p", {}, q.question), input))) : null,
    buttons.length ? h("p", { class: "actions" }, ...buttons) : null,
    s.artifacts.length ? h("section", {}, h("h2", {}, "Artifacts"), h("ul", {}, ...s.artifacts.map((a) => h("li", {}, a)))) : null,
  );
  if (notice) root.prepend(errorBox(notice));
}

app.onResult = showSession;
void app.connect();
