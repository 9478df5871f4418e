// The user's side of the planning lifecycle (scripts/lifecycle.ts): a small fixed script of answers, and the documents
// a literal model distils from them, one per phase. Short on purpose: the lifecycle test asserts files and their
// frontmatter, not prose, and the context bench counts what the method costs, not what the user typed.

export const PRODUCT = "Todo app";

/** What the user answers when a skill asks, by the skill's own question. */
export const USER = {
  name: "Ada",
  brainDump: "A todo list for one person on the web: add, complete, and clear todos; works offline.",
  stakes: "hobby",
  mode: "Fast path",
  decisions: ["web first; mobile later", "single user, no sync"],
  architecture: { scope: "the whole todo app", purpose: "build-substrate", altitude: "feature" },
} as const;

const front = (fields: Record<string, string>) => `---\n${Object.entries(fields).map(([k, v]) => `${k}: ${v}`).join("\n")}\n---\n`;

export function brief(status: string, date: string): string {
  return `${front({ title: PRODUCT, status, created: date, updated: date })}# Product Brief: ${PRODUCT}\n\n## Executive Summary\n\n${USER.brainDump}\n\n## Who It Serves\n\nOne person who wants a short list they trust.\n`;
}

export function prd(status: string, date: string): string {
  return (
    `${front({ title: PRODUCT, status, created: date, updated: date })}# PRD: ${PRODUCT}\n\n## Vision\n\n${USER.brainDump}\n\n` +
    "## Features\n\n### Todos\n\n- FR-1: The user adds a todo with a title.\n- FR-2: The user marks a todo complete.\n- FR-3: The user clears completed todos.\n\n" +
    "## Non-Functional Requirements\n\n- NFR-1: Works offline; changes persist across reloads.\n"
  );
}

export function design(status: string, date: string): string {
  return `${front({ title: `${PRODUCT} design`, status, created: date, updated: date })}# DESIGN\n\n## Brand & Style\n\nCalm, plain, one accent colour.\n`;
}

export function experience(status: string, date: string): string {
  return `${front({ title: `${PRODUCT} experience`, status, created: date, updated: date })}# EXPERIENCE\n\n## Key Flows\n\nAda adds "buy milk", ticks it off, clears the list.\n`;
}

/** A spine lint_spine.py passes: no placeholder, every AD with Binds/Prevents/Rule, every Stack row pinned. */
export function spine(status: string, date: string): string {
  return (
    `${front({ name: "'todo-app'", type: "architecture-spine", purpose: "build-substrate", altitude: "feature", paradigm: "'layered'", scope: "'the whole todo app'", status, created: `'${date}'`, updated: `'${date}'` })}` +
    "# Architecture Spine — todo-app\n\n## Design Paradigm\n\nLayered: ui, domain, storage; each depends only on the one below.\n\n## Invariants & Rules\n\n" +
    "### AD-1 — Local storage owns the todos\n\n- **Binds:** FR-1, FR-2, FR-3, NFR-1\n- **Prevents:** two stores of one list drifting apart\n- **Rule:** only the storage layer reads or writes IndexedDB.\n\n" +
    "### AD-2 — The domain holds no UI state\n\n- **Binds:** all\n- **Prevents:** views mutating todos directly\n- **Rule:** views call domain functions; the domain returns new lists.\n\n" +
    "## Stack\n\n| Name | Version |\n| --- | --- |\n| TypeScript | 5.9 |\n| Vite | 7.1 |\n\n## Deferred\n\n- Sync between devices: single user for now.\n"
  );
}

/** epics.md in the shape sprint_plan.py parses (`## Epic N:` / `### Story N.M:`), from the epics template. */
export function epics(inputs: string[]): string {
  const list = inputs.map((p) => `  - ${p}`).join("\n");
  return (
    `---\nstepsCompleted: [1, 2, 3, 4]\ninputDocuments:\n${list}\n---\n\n# ${PRODUCT} - Epic Breakdown\n\n## Requirements Inventory\n\n### Functional Requirements\n\nFR1: Add a todo.\nFR2: Complete a todo.\nFR3: Clear completed todos.\n\n` +
    "## Epic List\n\n1. Capture todos\n2. Finish todos\n\n## Epic 1: Capture todos\n\nThe user keeps a list.\n\n### Story 1.1: Add a todo\n\nAs a user,\nI want to add a todo,\nSo that I remember it.\n\n**Acceptance Criteria:**\n\n**Given** an empty list\n**When** I add \"buy milk\"\n**Then** the list shows it\n\n" +
    "### Story 1.2: Keep todos offline\n\nAs a user,\nI want my todos kept across reloads,\nSo that none is lost.\n\n**Acceptance Criteria:**\n\n**Given** a todo\n**When** I reload offline\n**Then** it is still there\n\n" +
    "## Epic 2: Finish todos\n\nThe user closes what is done.\n\n### Story 2.1: Complete and clear todos\n\nAs a user,\nI want to tick and clear todos,\nSo that the list stays short.\n\n**Acceptance Criteria:**\n\n**Given** a completed todo\n**When** I clear completed\n**Then** it is gone\n"
  );
}

/** The story file bmad-create-story writes from its template.md for the first backlog story. */
export function story(): string {
  return (
    "# Story 1.1: Add a todo\n\nStatus: ready-for-dev\n\n## Story\n\nAs a user,\nI want to add a todo,\nso that I remember it.\n\n## Acceptance Criteria\n\n1. Given an empty list, when I add \"buy milk\", the list shows it.\n\n" +
    "## Tasks / Subtasks\n\n- [ ] Task 1 (AC: #1)\n  - [ ] Storage layer: add to IndexedDB (AD-1)\n\n## Dev Notes\n\n- Layered paradigm; only storage touches IndexedDB (AD-1).\n\n### References\n\n- [Source: _bmad-output/planning-artifacts/epics.md#Story 1.1]\n\n## Dev Agent Record\n\n### Agent Model Used\n\nlifecycle-test\n\n### File List\n"
  );
}

/** The retrospective of epic 1, whose one story is still ready-for-dev: rejected, as the rubric forces. */
export function retro(date: string): string {
  return (
    `---\nepic: 1\ndate: ${date}\nverdict: rejected\ncriteria: declared\nheadless: false\n---\n\n# Epic 1 retrospective\n\n## Epic summary\n\nEpic 1, story 1-1-add-a-todo still ready-for-dev (the user accepted retro-ing over it). No diff or commits here: the code is in the user's clone.\n\n` +
    "## Action items\n\n- Build story 1-1 on the bridge (owner: Ada).\n\n## Acceptance verdict\n\nrejected: story 1-1 is unfinished.\n"
  );
}
