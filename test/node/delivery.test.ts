// The delivery state machine and score extraction, pure (seed 003).
import { describe, expect, it } from "vitest";
import { newSession, step, type Action } from "../../src/core/delivery/machine";
import { parseResult } from "../../src/core/delivery/score";
import { taskSlug, uniqueTaskName, type SessionState } from "../../src/core/delivery/session";

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
    expect(parseResult("just a few words", []).score).toBe(60);
  });

  it("keeps gaps and questions, numbering questions without ids", () => {
    const parsed = parseResult(JSON.stringify({ prd_draft: "d", quality_score: 70, gaps: ["g1"], questions: ["Why?", { id: "scope", question: "Scope?", context: "c" }] }), ["prd_draft"]);
    expect(parsed.gaps).toEqual(["g1"]);
    expect(parsed.questions).toEqual([{ id: "q1", question: "Why?" }, { id: "scope", question: "Scope?", context: "c" }]);
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

describe("task names", () => {
  it("slug the objective to at most 50 characters and stay unique", () => {
    expect(taskSlug("Build user authentication system!")).toBe("build-user-authentication-system");
    expect(taskSlug("Créer l'API   de paiement")).toBe("creer-lapi-de-paiement");
    expect(taskSlug("x".repeat(80))).toHaveLength(50);
    expect(taskSlug("???")).toBe("task");
    expect(uniqueTaskName("Build user auth", new Set(["build-user-auth", "build-user-auth-1"]))).toBe("build-user-auth-2");
  });
});
