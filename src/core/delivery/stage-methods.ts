// What each delivery stage takes from BMAD: the skill's headless mode where it ships one, the parts of
// the skill that carry its substance (chosen by heading or paragraph, never rewritten), companion files
// to load on demand, and our instruction mapping the skill's interactive flow onto a session.
import type { Stage } from "./pipeline.js";
import type { Pick } from "./stage-sections.js";

/** A part of a skill file. `skill` absent: the stage's own workflow. */
export interface Excerpt {
  skill?: string;
  file: string;
  pick: Pick;
}

export interface Companion {
  skill?: string;
  file: string;
  label: string;
}

export interface StageMethod {
  /** The part of the skill's headless mode this stage follows. */
  headless?: Excerpt[];
  excerpts: Excerpt[];
  /** Names listed from the skill's customization, e.g. its review layers. */
  listed?: { path: string; field: string; label: string };
  companions: Companion[];
  /** How the skill's flow runs in a session; `refine` replaces it on refine iterations. */
  instruction: string;
  refine?: string;
}

// The headless modes end an ambiguous run "blocked"; a session asks its clarification questions instead
// (the output contract says so), so those sentences are left out. So is bmad-architecture's "every write
// through memlog.py": a session has no memlog to log in (its Overview keeps the web check).
const HALT_PRD = "If intent remains ambiguous after inference";
const HALT_ARCHITECTURE = "If intent stays ambiguous after inference";
const MEMLOG_WRITES = "You still verify named tech on the web";

// A session saves what is submitted, with or without a project: the skill's own writes are skipped, the project's
// files (named under "This session" where it has one) are not (review 190: "this session has none" in one that had).
const NO_PROJECT_STEPS = "memlog entries, `uv run` scripts and the files the skill writes under the project root are for its runs in a project; a session saves what you submit instead, so skip them";

export const STAGE_METHODS: Record<Stage, StageMethod> = {
  po: {
    headless: [
      { file: "references/headless.md", pick: { section: "Inputs the caller is expected to provide", from: "Anything the caller" } },
      { file: "references/headless.md", pick: { section: "General", until: "End with the JSON response", drop: [HALT_PRD] } },
    ],
    excerpts: [{ file: "SKILL.md", pick: { section: "PRD Discipline" } }],
    companions: [
      { file: "assets/prd-template.md", label: "the PRD structure: Essential Spine and Adapt-In Menu" },
      { file: "assets/prd-validation-checklist.md", label: "the quality rubric your score rests on" },
    ],
    instruction: `Intent: create. The objective is the brief. Write the whole PRD; put what bmad-prd would keep in addendum.md under a closing "## Addendum" heading; ${NO_PROJECT_STEPS}.`,
    refine: `Intent: update. The change signal is the user's answers and the gaps below: apply them to the PRD and name any conflict with an earlier decision in gaps; ${NO_PROJECT_STEPS}.`,
  },
  architect: {
    headless: [{ file: "references/headless.md", pick: { until: "End with JSON", drop: [HALT_ARCHITECTURE, MEMLOG_WRITES] } }],
    excerpts: [{ file: "SKILL.md", pick: { section: "Overview" } }],
    companions: [
      { file: "assets/spine-template.md", label: "the spine's shape" },
      { file: "references/reviewer-gate.md", label: "the reviewer gate and good-spine checklist: apply each lens yourself" },
    ],
    instruction: `Intent: create; altitude: initiative; purpose: build-substrate; the driving input is the PRD below. Keep each decision as an AD-n entry in the spine and open items in gaps; run the reviewer lenses yourself and apply their clear fixes; ${NO_PROJECT_STEPS} (memlog.py, lint_spine.py).`,
    refine: `Intent: update. Apply the user's answers and the gaps below to the spine, keeping AD IDs stable; ${NO_PROJECT_STEPS}.`,
  },
  sm: {
    excerpts: [
      { skill: "create-epics-and-stories", file: "SKILL.md", pick: { from: "**Goal:**", until: "**Your Role:**" } },
      { skill: "sprint-planning", file: "references/readiness-gate.md", pick: { from: "Assess the plan", until: "Deliver a verdict" } },
    ],
    companions: [
      { skill: "create-epics-and-stories", file: "templates/epics-template.md", label: "epic and story format, Given/When/Then acceptance criteria" },
      { skill: "sprint-planning", file: "references/readiness-gate.md", label: "the readiness gate" },
    ],
    instruction:
      'Break the PRD and architecture below into epics and stories, judge readiness as below, then sequence the stories into numbered sprints. Give each sprint its own heading, "## Sprint N: <goal>", with its stories under it: Dev reads these headings. Put the readiness verdict (PASS, CONCERNS or FAIL) and its findings in a "## Readiness" section instead of asking. sprint-status.yaml and sprint_plan.py belong to projects; this plan replaces them here.',
  },
  dev: {
    excerpts: [{ skill: "build", file: "workflow.md", pick: { from: "**Goal:**", until: "**CRITICAL" } }],
    companions: [
      { skill: "build", file: "review-prompts/edge-case-hunter.md", label: "edge-case lens for a self-check before you submit" },
      { skill: "build", file: "review-prompts/verification-gap.md", label: "verification-gap lens for a self-check" },
    ],
    instruction:
      "Implement directly from the approved sprint plan below: the chosen sprints' stories in order, test first, every acceptance criterion met. This replaces bmad-build's render_skill step and its spec and checkpoint steps: don't run render_skill or load bmad-build's step files. Work in the user's repository with your own tools when you have one; otherwise put the code in the submission. The submission is the implementation report: sprints done, files changed, tests and their results, and how each acceptance criterion is met.",
  },
  review: {
    excerpts: [{ skill: "code-review", file: "SKILL.md", pick: { from: "**Goal:**", until: "Subagents" } }],
    listed: { path: "workflow.review_layers", field: "name", label: "Review layers (bmad-code-review), each a pass you make yourself" },
    companions: [
      { skill: "code-review", file: "review-prompts/edge-case-hunter.md", label: "Edge Case Hunter" },
      { skill: "code-review", file: "review-prompts/verification-gap.md", label: "Verification Gap Reviewer" },
      { skill: "code-review", file: "steps/step-03-triage.md", label: "verdicts (high, medium, low, false, maybe-false) and buckets (patch, decision_needed, defer)" },
    ],
    instruction:
      "Review Dev's implementation (04-dev-implementation.md below) and the code it names against the PRD, architecture and sprint plan; the Acceptance Auditor checks the sprint plan's acceptance criteria. Triage every finding, fix each patch, and list decision_needed findings for the user, who decides at the confirmation point. The submission is the reviewed implementation: findings with verdicts, the fixes made, and what remains.",
  },
  qa: {
    excerpts: [
      { skill: "qa-generate-e2e-tests", file: "SKILL.md", pick: { from: "**Goal:**", until: "## Conventions" } },
      { skill: "qa-generate-e2e-tests", file: "SKILL.md", pick: { section: "Step 2: Generate API Tests (if applicable)" } },
      { skill: "qa-generate-e2e-tests", file: "SKILL.md", pick: { section: "Step 3: Generate E2E Tests (if UI exists)" } },
      { skill: "qa-generate-e2e-tests", file: "SKILL.md", pick: { section: "Keep It Simple", until: "**For Advanced Features:**" } },
    ],
    companions: [{ skill: "qa-generate-e2e-tests", file: "checklist.md", label: "the validation checklist" }],
    instruction:
      "Test the features Dev implemented and Review accepted (the 04 artifacts below): their stories are what to test, so there is no need to ask. Use the project's test framework, or the one the architecture names. Run the tests where you have the code and fix failures. The submission is the test report: tests generated, what ran and passed, coverage against the acceptance criteria, open defects.",
  },
};
