// The delivery state machine and score extraction, pure (seed 003).
import { describe, expect, it } from "vitest";
import { newSession, step, type Action } from "../../src/core/delivery/machine";
import { formatFinding, gapAnalysis, rubricFor } from "../../src/core/delivery/rubric";
import { parseResult } from "../../src/core/delivery/score";
import { taskSlug, uniqueTaskName, type SessionState } from "../../src/core/delivery/session";
import { sessionView } from "../../src/core/delivery/view";

const NOW = "2026-11-22T00:00:00.000Z";
const fresh = () => newSession({ session_id: "a".repeat(64), task_name: "t", objective: "o", owner: "me", now: NOW });

function run(state: SessionState, ...actions: Action[]): SessionState {
  for (const action of actions) {
    const out = step(state, action, NOW);
    if (!out.ok) throw new Error(out.error);
    state = out.state;
  }
  return state;
}

describe("score extraction", () => {
  it("reads JSON quality_score first, then 'Quality Score: N/100', then estimates at most 85", () => {
    expect(parseResult('{"prd_draft": "# PRD", "quality_score": 91}', ["prd_draft"])).toMatchObject({ score: 91, scoreSource: "json", document: "# PRD" });
    expect(parseResult("```json\n{\"prd_updated\": \"x\", \"quality_score\": 88}\n```", ["prd_updated"])).toMatchObject({ score: 88, document: "x" });
    expect(parseResult("# Arch\n\nQuality Score: 94/100", [])).toMatchObject({ score: 94, scoreSource: "text" });
    const rich = "# Executive Summary\n## Goals\n## Users\n## Requirements\n## Acceptance Criteria\n## Risks\n## Architecture\n## Metrics 99% uptime";
    expect(parseResult(rich, [])).toMatchObject({ score: 85, scoreSource: "estimate" });
    expect(parseResult("just a few words", [])).toMatchObject({ score: 60 });
  });

  it("reads a text score only from a line of its own at the very end, never from the prose", () => {
    const prose = "# PRD\n\nQuality score: 95 is the threshold we hold releases to.\n\n## Goals\nShip.";
    expect(parseResult(prose, [])).toMatchObject({ scoreSource: "estimate" });
    expect(parseResult(`${prose}\n\n**Quality Score: 91/100**\n`, [])).toMatchObject({ score: 91, scoreSource: "text" });
    expect(parseResult(JSON.stringify({ prd_draft: prose }), ["prd_draft"])).toMatchObject({ scoreSource: "estimate" });
  });

  it("keeps gaps and questions, numbering questions without ids", () => {
    const parsed = parseResult(JSON.stringify({ prd_draft: "d", quality_score: 70, gaps: ["g1"], questions: ["Why?", { id: "scope", question: "Scope?", context: "c" }] }), ["prd_draft"]);
    expect(parsed).toMatchObject({ gaps: ["g1"] });
    expect(parsed.ok && parsed.questions).toEqual([{ id: "q1", question: "Why?" }, { id: "scope", question: "Scope?", context: "c" }]);
  });
});

describe("the state machine", () => {
  it("takes the higher of two engine scores and stores each result once", () => {
    const out = step(fresh(), { type: "submit", claude_result: '{"prd_draft":"c","quality_score":80}', codex_result: '{"prd_draft":"x","quality_score":92}' }, NOW);
    expect(out.ok && out.state).toMatchObject({ current_state: "awaiting_confirmation", stages: { po: { score: 92, iteration: 1 } } });
    expect(out.ok && out.content.map((c) => c.ref)).toEqual(["po/1/claude", "po/1/codex", "po/1/final"]);
    expect(out.ok && out.content[2]!.text).toBe("x");
  });

  it("asks again after answers when the score is still below the gate", () => {
    const q = (id: string) => JSON.stringify({ prd_draft: "d", quality_score: 70, questions: [{ id, question: "?" }] });
    let s = run(fresh(), { type: "submit", claude_result: q("q1") }, { type: "answer", answers: { q1: "a" } });
    expect(s.current_state).toBe("refining");
    s = run(s, { type: "submit", claude_result: q("q2") });
    expect(s.current_state).toBe("clarifying");
    expect(s.stages.po.answers).toEqual({ q1: "a" });
    s = run(s, { type: "answer", answers: { q2: "b" } }, { type: "submit", claude_result: '{"prd_updated":"d","quality_score":90}' });
    expect(s.current_state).toBe("awaiting_confirmation");
  });

  it("refines without questions below the gate, and completes after qa", () => {
    let s = run(fresh(), { type: "submit", claude_result: "plain text, no score" });
    expect(s.current_state).toBe("refining");
    s = run(s, { type: "submit", claude_result: "Quality Score: 90/100" }, { type: "confirm" });
    s = run(s, { type: "submit", claude_result: "Quality Score: 99/100" }, { type: "confirm" });
    s = run(s, { type: "submit", claude_result: "plan" }, { type: "approve" });
    for (let i = 0; i < 3; i++) s = run(s, { type: "submit", codex_result: "r" }, { type: "confirm" });
    expect(s).toMatchObject({ current_state: "completed", artifacts: ["01-product-requirements.md", "02-system-architecture.md", "03-sprint-plan.md", "04-dev-implementation.md", "04-dev-reviewed.md", "05-qa-report.md"] });
  });

  it("refuses what the state does not allow and leaves the input state untouched", () => {
    const s = fresh();
    const before = JSON.stringify(s);
    const out = step(s, { type: "confirm" }, NOW);
    expect(out).toMatchObject({ ok: false, kind: "conflict" });
    expect(!out.ok && out.error).toMatch(/Allowed: submit, status\./);
    expect(JSON.stringify(s)).toBe(before);
    expect(step(s, { type: "submit" }, NOW)).toMatchObject({ ok: false, kind: "invalid" });
  });
});

describe("the rubric (seed 003's gap analysis)", () => {
  const body = (n: number) => "word ".repeat(n);
  it("names missing items, thin sections and mere mentions with the points each is worth", () => {
    const prd = `# PRD\n## Executive Summary\n${body(40)}\n## Goals\nShip it.\n## Functional Requirements\n### Sync\n${body(20)}\n### Search\n${body(20)}\nThe risks are few.\n`;
    const findings = gapAnalysis(prd, rubricFor("po"));
    const by = new Map(findings.map((f) => [f.name, f]));
    expect(by.has("Executive summary")).toBe(false); // 40 words
    expect(by.has("Functional requirements")).toBe(false); // its subsections' words count: 40
    expect(by.get("Business goals")).toEqual({ name: "Business goals", status: "weak", points: 4, detail: "its section has 2 words" });
    expect(by.get("Dependencies and risks")).toMatchObject({ status: "weak", detail: "mentioned, no section of its own" });
    expect(by.get("Acceptance criteria")).toEqual({ name: "Acceptance criteria", status: "missing", points: 5 });
    expect(formatFinding(by.get("Acceptance criteria")!)).toBe("Acceptance criteria: missing, 5 points");
    // Headings inside a code fence are code, not sections.
    expect(gapAnalysis("```\n# Acceptance criteria\n```\n", rubricFor("po")).find((f) => f.name === "Acceptance criteria")).toMatchObject({ status: "weak" });
  });

  it("takes a heading for the one item it names first, and placeholder text for no words (review 329)", () => {
    const prd = `## Non-Functional Requirements and Acceptance Criteria\n${body(40)}\n## Scope\n{{ scope_summary }} {project-root} TBD. [TODO] (TODO) … ... ${body(5)}\n`;
    const by = new Map(gapAnalysis(prd, rubricFor("po")).map((f) => [f.name, f]));
    expect(by.has("Non-functional requirements")).toBe(false);
    expect(by.get("Functional requirements")).toMatchObject({ status: "missing" }); // "non-functional" is none
    expect(by.get("Acceptance criteria")).toMatchObject({ status: "weak", detail: "mentioned, no section of its own" });
    expect(by.get("Scope and priorities")).toMatchObject({ status: "weak", detail: "placeholder text" });
    // Thirty real words around them make a section.
    expect(gapAnalysis(`## Scope\nTBD {{x}} ${body(30)}`, rubricFor("po")).some((f) => f.name === "Scope and priorities")).toBe(false);
  });

  it("gives each scored stage 40 points above the base of 60, and the architect its own items", () => {
    for (const stage of ["po", "architect"] as const) expect(rubricFor(stage).reduce((n, i) => n + i.points, 0)).toBe(40);
    expect(rubricFor("architect").map((i) => i.name)).toContain("Data model");
  });
});

describe("a session's state", () => {
  // Review 28: filled to a few bytes under one cap, every answer was refused and no other step was allowed: stuck.
  it("always has room for its next step, however large each draft, answer, rejection and sub-task is", () => {
    const big = (n: number) => "\u0001é".repeat(n); // 6 + 2 bytes a pair as JSON
    const questions = Array.from({ length: 25 }, (_, i) => ({ id: `q${i}`, question: big(1200), context: big(1200) }));
    const draft = JSON.stringify({ prd_draft: "# PRD", quality_score: 40, questions, gaps: Array.from({ length: 60 }, () => big(1200)) });
    let s = fresh();
    for (let round = 0; round < 30; round++) {
      s = run(s, { type: "submit", claude_result: draft });
      expect(s.current_state).toBe("clarifying");
      const ids = s.stages.po.questions!.map((q) => q.id);
      const answers = Object.fromEntries(ids.map((id) => [id, big(1500)]));
      const answered = step(s, { type: "answer", answers }, NOW);
      s = answered.ok ? answered.state : run(s, { type: "answer", answers: { [ids[0]!]: big(100) } });
      s = run(s, { type: "submit", claude_result: JSON.stringify({ prd_draft: "# PRD", quality_score: 95 }) }, { type: "reject", reason: big(4000) });
      expect(new TextEncoder().encode(JSON.stringify(s)).byteLength).toBeLessThan(512 * 1024);
    }
    // The stage's first rejection and the newest ten (review 30: reject cycles erased the user's first reason).
    expect(s.history.map((h) => h.file)).toEqual(["01-product-requirements.rejected-2.md", ...Array.from({ length: 10 }, (_, i) => `01-product-requirements.rejected-${42 + 2 * i}.md`)]);
    s = run(s, { type: "submit", claude_result: JSON.stringify({ prd_draft: "# PRD", quality_score: 95 }) }, { type: "confirm" });
    expect(s.stages.po).not.toHaveProperty("answers");
    expect(s.current_stage).toBe("architect");
  });
});

describe("reject and revise", () => {
  const good = '{"prd_draft":"# v1","quality_score":95}';
  it("sends a draft back to refining with the user's reason, keeping it as a version of the artifact", () => {
    const s = run(fresh(), { type: "submit", claude_result: good }, { type: "reject", reason: " Needs offline mode " });
    expect(s).toMatchObject({ current_state: "refining", artifacts: [], history: [{ stage: "po", file: "01-product-requirements.rejected-1.md", ref: "po/1/final", score: 95, reason: "Needs offline mode", at: NOW }] });
    const again = run(s, { type: "submit", claude_result: '{"prd_updated":"# v2","quality_score":96}' }, { type: "reject", reason: "Still no offline mode" });
    expect(again.history.map((h) => [h.file, h.ref])).toEqual([["01-product-requirements.rejected-1.md", "po/1/final"], ["01-product-requirements.rejected-2.md", "po/2/final"]]);
  });

  it("needs a reason, and is offered wherever the user decides", () => {
    const waiting = run(fresh(), { type: "submit", claude_result: good });
    expect(step(waiting, { type: "reject", reason: "  " }, NOW)).toMatchObject({ ok: false, kind: "invalid", error: expect.stringMatching(/"reject" needs "reason"/) });
    expect(step(fresh(), { type: "reject", reason: "x" }, NOW)).toMatchObject({ ok: false, kind: "conflict" });
    const plan = run(waiting, { type: "confirm" }, { type: "submit", claude_result: "Quality Score: 95/100" }, { type: "confirm" }, { type: "submit", claude_result: "plan" });
    expect(plan.current_state).toBe("awaiting_approval");
    expect(run(plan, { type: "reject", reason: "Fewer sprints" })).toMatchObject({ current_stage: "sm", current_state: "refining", history: [{ file: "03-sprint-plan.rejected-1.md" }] });
  });

  it("analyses a draft below the gate, and drops the analysis once the stage is confirmed", () => {
    const low = run(fresh(), { type: "submit", claude_result: '{"prd_draft":"# PRD\\n## Goals\\nGrow.","quality_score":70}' });
    expect(low.stages.po.gaps).toEqual([]);
    expect(low.stages.po.findings).toContainEqual({ name: "Acceptance criteria", status: "missing", points: 5 });
    expect(run(low, { type: "submit", claude_result: good }, { type: "confirm" }).stages.po.findings).toBeUndefined();
  });

  it("tells the user the rubric's gaps of a draft that claims the gate, at its confirmation", () => {
    const claimed = run(fresh(), { type: "submit", claude_result: '{"prd_updated":"todo","quality_score":95}' });
    expect(claimed.current_state).toBe("awaiting_confirmation");
    expect(claimed.stages.po.findings).toHaveLength(11);
    const view = sessionView(claimed, (f) => f);
    expect(view.user_message).toContain("the server's reading of this draft finds: Executive summary: missing, 3 points;");
    expect(view.rubric_gaps).toContain("Acceptance criteria: missing, 5 points");
  });
});

describe("task names", () => {
  it("slug the objective to at most 50 characters and stay unique", () => {
    expect(taskSlug("Build user authentication system!")).toBe("build-user-authentication-system");
    expect(taskSlug("Créer l'API   de paiement")).toBe("creer-lapi-de-paiement");
    expect(taskSlug("x".repeat(80))).toHaveLength(50);
    expect(taskSlug("???")).toBe("task");
    expect(uniqueTaskName("Build user auth", new Set(["build-user-auth", "build-user-auth-1"]))).toBe("build-user-auth-2");
  });
});
