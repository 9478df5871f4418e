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

  it("refuses as JSON a result that begins with { or holds a ```json block outside a markdown document, saying where it broke (review 483)", () => {
    const keys = ["prd_draft", "prd_updated"];
    for (const text of ["{not json", "{prd_updated: '# PRD js literal', quality_score: 99}", "{\n  prd_draft: `# PRD`,\n  quality_score: 97\n}", "Here is the PRD:\n```json\n{'prd_draft': '# PRD', 'quality_score': 95}\n```\n"]) {
      const parsed = parseResult(text, keys, undefined, "claude_result");
      expect(parsed.ok ? parsed.document : parsed.error).toMatch(/^claude_result holds JSON that does not parse \(.*position \d+.*\); nothing was saved\./);
    }
    // A markdown document keeps its own fences, a broken JSON example among them, and its braces.
    const report = "# Implementation\n\nConfig:\n```json\n{ port: 8080 }\n```\n";
    expect(parseResult(report, ["dev_draft"])).toMatchObject({ ok: true, document: report });
    expect(parseResult("# PRD\n\n## Goals\nA {placeholder} here.", keys)).toMatchObject({ ok: true, document: "# PRD\n\n## Goals\nA {placeholder} here." });
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

  it("takes a heading for at most two items, those it names longest, and placeholder text for no words (review 329)", () => {
    const prd = `## Goals, Non-Functional Requirements and Acceptance Criteria\n${body(40)}\n## Scope\n{{ scope_summary }} {project-root} TBD. [TODO] (TODO) <TBD> TODO: … ... ${body(5)}\nTODO\n`;
    const by = new Map(gapAnalysis(prd, rubricFor("po")).map((f) => [f.name, f]));
    expect(by.has("Non-functional requirements")).toBe(false);
    expect(by.has("Acceptance criteria")).toBe(false);
    expect(by.get("Business goals")).toMatchObject({ status: "weak", detail: "mentioned, no section of its own" }); // named first, but shortest
    expect(by.get("Functional requirements")).toMatchObject({ status: "missing" }); // "non-functional" is none
    expect(by.get("Scope and priorities")).toMatchObject({ status: "weak", detail: "placeholder text" });
    // Thirty real words around them make a section.
    expect(gapAnalysis(`## Scope\nTBD {{x}} ${body(30)}`, rubricFor("po")).some((f) => f.name === "Scope and priorities")).toBe(false);
  });

  it("scores a realistic complete PRD and architecture 100: a heading naming a second item answers it too (review 336)", () => {
    expect(gapAnalysis(SHELFSHARE_PRD, rubricFor("po"))).toEqual([]);
    expect(gapAnalysis(SHELFSHARE_ARCHITECTURE, rubricFor("architect"))).toEqual([]);
  });

  it("reads a bare TODO among other words as a word (review 336)", () => {
    const todo = "# PRD: Tiny TODO\n\n## Overview\nTiny TODO is a TODO list for families. Each member keeps a TODO list, shares a TODO with others, and sees which TODO items are done. Syncing takes under 2 seconds on every phone.\n";
    expect(gapAnalysis(todo, rubricFor("po")).find((f) => f.name === "Executive summary")).toBeUndefined();
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

// The realistic drafts of review 336, each section trimmed a little: "MVP Features", "User Acceptance Criteria" and
// "Component Interfaces" each answer two items.
const SHELFSHARE_PRD = `# PRD: ShelfShare

## Overview
ShelfShare lets neighbours lend books to each other. Members list the books on their shelves, others request a loan, and the app tracks who holds what and when it is due back. It replaces the paper sign-up sheets used today.

## Goals
Grow active lending in the pilot buildings to at least 40 loans per week within three months. Reduce lost books by reminding borrowers before due dates. Keep the cost of running the service under 50 dollars per month.

## Target Users
Residents of apartment buildings who own books and want to share them; residents who read a lot but cannot afford to buy every title; building managers who approve who may join a building's shelf and resolve disputes.

## MVP Features
Members sign in with email, add books by scanning the ISBN barcode, browse the building's shelf, request a loan, and accept or decline requests for their own books. The app sends reminders two days before a loan is due.

## Non-Functional Requirements
Search answers in under 200 ms for shelves of up to 5000 books. The service is available 99.5% of the time during the pilot. All personal data stays in the EU region and is deleted within 30 days of a member leaving.

## User Acceptance Criteria
A member can add a book by scanning its barcode in under ten seconds. A borrower sees the due date on the loan screen. An owner who declines a request is never shown the borrower's address. A reminder arrives by email.

## Out of Scope
Payments, late fees, shipping between buildings and any social feed are out of scope for the pilot. We will not build native tablet layouts, and we will not integrate with public library catalogues until the pilot shows demand.

## User-Facing Errors and Edge Cases
If a barcode cannot be read the member types the ISBN instead. If two people request the same book at once, the first request wins and the second is told the book is already on loan. A book never returned is flagged.

## Dependencies and Risks
We depend on the Open Library API for book metadata and on the building managers to approve members. The main risk is low adoption in buildings with few readers; a second risk is disputes over damaged books.

## Release Timeline
The closed pilot starts in March with one building, two more buildings join in April, and a public launch follows in June if weekly loans reach the goal. Each milestone ends with a short review of loan numbers.
`;

const SHELFSHARE_ARCHITECTURE = `# Architecture: ShelfShare

## Overview and Context
ShelfShare is a small web app for lending books between neighbours in three pilot buildings. It has a browser client, one API service, a Postgres database and a job runner for reminder emails sent before a loan is due.

## Component Interfaces
The browser client talks to the API service over HTTPS with JSON. The API service exposes loans, books and members resources; the job runner reads due loans from the database each hour and calls the email provider's API.

## Data Model and Storage
Members, buildings, books and loans are tables in Postgres. A loan references a book and a borrower, with a due date and a returned flag. Books reference their owner and building. Deleted members are removed within 30 days.

## Technology Choices
TypeScript on Node for the API service and the job runner, React for the client, Postgres 16 as the database. We picked boring tools the team already knows so that two developers can run the pilot without outside help.

## Security
Members sign in with email magic links; sessions are HTTP-only cookies. Every query is scoped to the member's building, so a member never reads another building's shelf. Managers have a role flag checked on every approval endpoint.

## Deployment and Operations
One container on a managed platform in the EU region, with the managed Postgres offering and daily backups kept for 14 days. Deploys happen from the main branch after tests pass, and logs go to the platform's log viewer.

## Error Handling and Resilience
Failed reminder emails are retried three times with backoff, then logged for the manager. The API answers clear errors for invalid requests, and the client retries reads once on a network failure before showing a message.

## Performance and Scalability
Search over a shelf of 5000 books answers in under 200 ms with an index on title and author. One container handles the pilot's expected load of a few hundred members with plenty of room to spare for growth.

## Risks
The email provider may mark reminders as spam, which would make loans overdue. The platform may change its pricing. Both are watched monthly, and the email provider can be replaced behind one small adapter in the job runner.
`;
