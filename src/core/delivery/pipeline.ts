// The BMAD delivery pipeline as data (seed 003): each stage names its BMAD agent and workflow
// (first name the bundle has wins), its artifact, its gate and which engines generate it.

export const STAGES = ["po", "architect", "sm", "dev", "review", "qa"] as const;
export type Stage = (typeof STAGES)[number];

export type Gate = { kind: "score"; min: number } | { kind: "approval" } | { kind: "confirm" };
export type Engine = "claude" | "codex";

export interface StageSpec {
  stage: Stage;
  title: string;
  /** Candidate agent names, in order; the first the bundle has is used. */
  agents: string[];
  /** Candidate workflow names, in order. */
  workflows: string[];
  artifact?: string;
  gate: Gate;
  engines: Engine[];
  /** The JSON the role prompt asks for: draft key, updated key. */
  output: { draft: string; updated: string };
  /** A generic role text used when the bundle has none of the agents. */
  role: string;
}

export const PIPELINE: StageSpec[] = [
  {
    stage: "po",
    title: "Product Owner: product requirements",
    agents: ["pm", "po"],
    workflows: ["prd", "create-prd"],
    artifact: "01-product-requirements.md",
    gate: { kind: "score", min: 90 },
    engines: ["claude", "codex"],
    output: { draft: "prd_draft", updated: "prd_updated" },
    role: "You are the product owner. Turn the objective into a product requirements document with goals, users, scope, functional and non-functional requirements, acceptance criteria and success metrics.",
  },
  {
    stage: "architect",
    title: "Architect: system architecture",
    agents: ["architect"],
    workflows: ["architecture", "create-architecture"],
    artifact: "02-system-architecture.md",
    gate: { kind: "score", min: 90 },
    engines: ["claude", "codex"],
    output: { draft: "architecture_draft", updated: "architecture_updated" },
    role: "You are the system architect. Design the architecture that meets the PRD: components, data, interfaces, technology choices with trade-offs, security, deployment and risks.",
  },
  {
    stage: "sm",
    title: "Scrum Master: sprint plan",
    // 6.12 has no scrum master: its PM owns epics, stories and the readiness check (menu CE, IR).
    agents: ["sm", "pm"],
    workflows: ["sprint-planning", "create-epics-and-stories"],
    artifact: "03-sprint-plan.md",
    gate: { kind: "approval" },
    engines: ["claude"],
    output: { draft: "sprint_plan", updated: "sprint_plan" },
    role: "You are the scrum master. Break the PRD and architecture into epics, stories with acceptance criteria, and numbered sprints.",
  },
  {
    stage: "dev",
    title: "Developer: implementation",
    agents: ["dev"],
    workflows: ["build", "dev-story"],
    // Seed 003 names no Dev artifact; Review reads this one, and its 04-dev-reviewed.md is the reviewed version.
    artifact: "04-dev-implementation.md",
    gate: { kind: "confirm" },
    engines: ["codex"],
    output: { draft: "implementation", updated: "implementation" },
    role: "You are the developer. Implement the sprint scope the user chose, following the architecture, with tests.",
  },
  {
    stage: "review",
    title: "Reviewer: code review",
    agents: ["dev"],
    workflows: ["code-review"],
    artifact: "04-dev-reviewed.md",
    gate: { kind: "confirm" },
    engines: ["codex"],
    output: { draft: "review", updated: "review" },
    role: "You are the code reviewer. Review the implementation against the PRD, architecture and sprint plan; list findings by severity and fix what must be fixed.",
  },
  {
    stage: "qa",
    title: "QA: test report",
    agents: ["qa", "dev"],
    workflows: ["qa-generate-e2e-tests", "qa"],
    artifact: "05-qa-report.md",
    gate: { kind: "confirm" },
    engines: ["codex"],
    output: { draft: "qa_report", updated: "qa_report" },
    role: "You are the QA engineer. Write and run end-to-end tests for the acceptance criteria and report results, coverage and open defects.",
  },
];

export function stageSpec(stage: Stage): StageSpec {
  return PIPELINE.find((s) => s.stage === stage)!;
}

/** Which stage's output contract names a result's JSON key (prd_draft, prd_updated: po). */
const CONTRACT_KEYS = new Map(PIPELINE.flatMap((s) => [[s.output.draft, s], [s.output.updated, s]] as const));

export function contractStage(key: string): StageSpec | undefined {
  return CONTRACT_KEYS.get(key);
}

export function nextStage(stage: Stage): Stage | undefined {
  return STAGES[STAGES.indexOf(stage) + 1];
}

/** Seed 003: po and architect use both engines only when the objective asks for codex. */
export function enginesFor(spec: StageSpec, objective: string): Engine[] {
  if (spec.engines.length > 1 && !/codex/i.test(objective)) return ["claude"];
  return spec.engines;
}
