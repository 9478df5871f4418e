// Every stage prompt of the default pipeline over the real default bundle, driven by the real state
// machine: followable literally (no halt or wait, nothing unresolved), within 12 KB, carrying what the
// stage needs (headless mode, earlier artifacts, the sprint list).
import { describe, expect, it } from "vitest";
import { loadBundleFromDir } from "../../src/compiler/read";
import { newSession, step, type Action } from "../../src/core/delivery/machine";
import type { SessionState } from "../../src/core/delivery/session";
import { MemoryBundleReader } from "../../src/core/surface/memory-reader";
import { rolePrompt, type StageSources } from "../../src/core/delivery/role-prompt";

const bundle = loadBundleFromDir("bmad-bundle");
const decoder = new TextDecoder();
const reader = new MemoryBundleReader(bundle.manifest, (sha) => {
  const blob = bundle.blobs.get(sha);
  return blob && decoder.decode(blob);
});
const NOW = "2026-11-22T00:00:00.000Z";
const LIMIT = 12 * 1024;

function bundleText(path: string): string {
  const file = reader.catalog.file(path);
  if (!file) throw new Error(`${path} is not in the default bundle`);
  return decoder.decode(bundle.blobs.get(file.sha256)!);
}

/** A session driven through the real machine, keeping content and artifacts as a store would. */
class Drive {
  state: SessionState;
  content = new Map<string, string>();
  artifacts = new Map<string, string>();
  prompts: Array<{ label: string; prompt: string }> = [];
  readonly sources: StageSources = {
    content: async (ref) => this.content.get(ref),
  };

  constructor(objective: string) {
    this.state = newSession({ session_id: "a".repeat(64), task_name: "build-user-auth", objective, owner: "me", now: NOW });
  }

  async prompt(label: string): Promise<string> {
    expect(["generating", "refining"]).toContain(this.state.current_state);
    const prompt = await rolePrompt(reader, this.state, this.sources);
    this.prompts.push({ label, prompt });
    return prompt;
  }

  act(action: Action): void {
    const out = step(this.state, action, NOW);
    if (!out.ok) throw new Error(out.error);
    for (const c of out.content) this.content.set(c.ref, c.text);
    if (out.artifact) this.artifacts.set(out.artifact.file, this.content.get(out.artifact.ref)!);
    this.state = out.state;
  }
}

function expectFollowable(label: string, prompt: string): void {
  const size = new TextEncoder().encode(prompt).length;
  expect(size, `${label}: ${size} bytes`).toBeLessThanOrEqual(LIMIT);
  expect(prompt, label).not.toMatch(/\bhalt/i);
  expect(prompt, label).not.toMatch(/stop and wait/i);
  expect(prompt, label).not.toMatch(/wait for input/i);
  expect(prompt, label).not.toContain("{project-root}");
  expect(prompt, label).not.toContain("{skill-root}");
  expect(prompt, label).not.toMatch(/\{workflow\.[A-Za-z0-9_.-]+\}/);
  expect(prompt, label).not.toContain("{{");
}

/** The paragraphs of a markdown section, read straight from the file. */
function sectionParagraphs(text: string, heading: string): string[] {
  const start = text.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThan(0);
  const rest = text.slice(start + heading.length + 2);
  const end = rest.search(/\n#{1,2} /);
  return (end < 0 ? rest : rest.slice(0, end))
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
}

const prd = ["# PRD: user authentication", "## Goals", "Sign-in with Google and GitHub, TOTP second factor.", ...Array.from({ length: 600 }, (_, i) => `- FR-${i + 1}: requirement number ${i + 1} with its acceptance criterion.`)].join("\n");
const plan = "# Sprint plan\n\n## Readiness\nPASS\n\n## Sprint 1: Sign-in with Google and GitHub\n- Story 1.1\n\n## Sprint 2: TOTP second factor\n- Story 2.1\n\n## Sprint 3: Audit log\n- Story 3.1\n";
const implementation = "# Implementation\nSprints 1-3 done.\n- src/auth/oauth.ts: Google and GitHub providers\n- test/auth/totp.test.ts: 14 tests, all pass\n";

describe("stage prompts over the default bundle", () => {
  it("every stage, refine iterations and dev after sprint approval: followable literally, within 12 KB, with what each stage needs", async () => {
    const d = new Drive("Build user authentication with Google and GitHub sign-in and TOTP");
    const po = await d.prompt("po");
    // bmad-prd's headless instructions, as the bundle has them.
    const headless = bundleText("bmm/bmad-prd/references/headless.md");
    // The General section up to its own JSON ending, which the session's submit contract replaces.
    const all = sectionParagraphs(headless, "## General");
    const general = all.slice(0, all.findIndex((p) => p.startsWith("End with the JSON")));
    expect(general.length).toBeGreaterThan(1);
    // Placeholders are rendered for the session: the text up to the first one is as written.
    for (const paragraph of general) expect(po).toContain(paragraph.split("{")[0]);
    // Its blocked ending is left out whole; the session's clarification questions take its place.
    expect(headless).toContain("If intent remains ambiguous after inference, halt");
    expect(po).toContain("or what you can discover yourself. Do not greet.");
    expect(po).toContain("where intent stays ambiguous after inference, submit what you have with a low score and the questions that would settle it");
    expect(po).not.toContain("End with the JSON response");
    expect(po).toContain("John");
    expect(po).not.toContain("Greet the user"); // the persona in brief, not the agent's activation

    d.act({ type: "submit", claude_result: JSON.stringify({ prd_draft: "# PRD draft", quality_score: 70, gaps: ["no metrics"], questions: [{ id: "q1", question: "Which identity providers?" }] }) });
    d.act({ type: "answer", answers: { q1: "Google and GitHub" } });
    const poRefine = await d.prompt("po refine");
    expect(poRefine).toContain("q1: Google and GitHub");
    expect(poRefine).toContain("# PRD draft");
    expect(poRefine).toContain('"prd_updated"');
    d.act({ type: "submit", claude_result: JSON.stringify({ prd_updated: prd, quality_score: 93 }) });
    d.act({ type: "confirm" });

    const architect = await d.prompt("architect");
    // bmad-architecture's headless mode, as the bundle has it: its first paragraph whole.
    const archHeadless = bundleText("bmm/bmad-architecture/references/headless.md");
    const firstParagraph = archHeadless.slice(archHeadless.indexOf("No interactive user")).split("\n\n")[0]!;
    expect(firstParagraph.length).toBeGreaterThan(200);
    expect(architect).toContain(firstParagraph);
    expect(architect).not.toContain("/_bmad/scripts/"); // a session has no project scripts to write through
    expect(architect).toContain(prd.slice(0, 2000));
    expect(architect).toContain(`bmad://sessions/${d.state.session_id}/artifacts/01-product-requirements.md`);
    d.act({ type: "submit", claude_result: "# Architecture spine\nAD-1: one auth service." });
    expect(d.state.current_state).toBe("refining");
    const architectRefine = await d.prompt("architect refine");
    expect(architectRefine).toContain("# Architecture spine");
    d.act({ type: "submit", claude_result: JSON.stringify({ architecture_updated: "# Architecture spine\nAD-1: one auth service.\nAD-2: sessions in KV.", quality_score: 94 }) });
    d.act({ type: "confirm" });

    const sm = await d.prompt("sm");
    expect(sm).toContain("AD-2: sessions in KV.");
    d.act({ type: "submit", claude_result: JSON.stringify({ sprint_plan: plan }) });
    d.act({ type: "approve" });

    const dev = await d.prompt("dev");
    for (const sprint of ["Sprint 1: Sign-in with Google and GitHub", "Sprint 2: TOTP second factor", "Sprint 3: Audit log"]) expect(dev).toContain(sprint);
    expect(dev).toContain("specify_sprint_scope_then_generate");
    d.act({ type: "submit", codex_result: JSON.stringify({ implementation }) });
    d.act({ type: "confirm" });
    expect(d.artifacts.get("04-dev-implementation.md")).toBe(implementation);

    const review = await d.prompt("review");
    expect(review).toContain(implementation);
    d.act({ type: "submit", codex_result: JSON.stringify({ review: "# Review\nClean." }) });
    d.act({ type: "confirm" });

    const qa = await d.prompt("qa");
    expect(qa).toContain("# Review\nClean.");
    d.act({ type: "submit", codex_result: "# QA report" });
    d.act({ type: "confirm" });
    expect(d.state.current_state).toBe("completed");
    expect([...d.artifacts.keys()]).toEqual(["01-product-requirements.md", "02-system-architecture.md", "03-sprint-plan.md", "04-dev-implementation.md", "04-dev-reviewed.md", "05-qa-report.md"]);

    expect(d.prompts.map((p) => p.label)).toEqual(["po", "po refine", "architect", "architect refine", "sm", "dev", "review", "qa"]);
    for (const { label, prompt } of d.prompts) expectFollowable(label, prompt);
    console.log(d.prompts.map(({ label, prompt }) => `${label}: ${new TextEncoder().encode(prompt).length} bytes`).join("\n"));
  });

  it("stay within 12 KB with a long multi-byte objective, long answers and large artifacts", async () => {
    // Near the 4,000 characters bmad-task takes (MAX_OBJECTIVE_CHARS), which a state read back is held to.
    const d = new Drive("認証システムを構築する 🔐 ".repeat(266));
    const big = (n: number) => `# Doc\n${"段落とテキスト 📄 `code` ".repeat(n)}`;
    d.act({ type: "submit", claude_result: JSON.stringify({ prd_draft: big(4000), quality_score: 50, questions: ["a?", "b?", "c?"] }) });
    d.act({ type: "answer", answers: { q1: "答え".repeat(8000), q2: "x".repeat(16000), q3: "```".repeat(5000) } });
    await d.prompt("po refine");
    d.act({ type: "submit", claude_result: JSON.stringify({ prd_updated: big(9000), quality_score: 95 }) });
    d.act({ type: "confirm" });
    d.act({ type: "submit", claude_result: JSON.stringify({ architecture_draft: big(9000), quality_score: 95 }) });
    d.act({ type: "confirm" });
    await d.prompt("sm");
    d.act({ type: "submit", claude_result: Array.from({ length: 80 }, (_, i) => `## Sprint ${i + 1}: ${"goal ".repeat(40)}`).join("\n") });
    d.act({ type: "approve" });
    const dev = await d.prompt("dev");
    expect(dev).toContain("- Sprint 1: goal goal");
    expect(dev).toMatch(/The approved sprint plan has 80 sprints\. The first \d+ are quoted here; the rest are in bmad:\/\/sessions\/a{64}\/artifacts\/03-sprint-plan\.md\./);
    d.act({ type: "submit", codex_result: big(9000) });
    d.act({ type: "confirm" });
    await d.prompt("review");
    for (const { label, prompt } of d.prompts) {
      expectFollowable(label, prompt);
      expect(prompt, label).toContain("## Output");
    }
  });
});

describe("a stage whose skill text alone would not fit", () => {
  it("links the quoted parts instead, keeping the headless mode and the output contract", async () => {
    const path = "bmm/bmad-prd/SKILL.md";
    const manifest = structuredClone(bundle.manifest);
    const file = manifest.files.find((f) => f.path === path)!;
    const long = bundleText(path).replace("## PRD Discipline\n\n", `## PRD Discipline\n\n${"A long discipline paragraph. ".repeat(600)}\n\n`);
    file.sha256 = "f".repeat(64);
    const padded = new MemoryBundleReader(manifest, (sha) => (sha === file.sha256 ? long : bundle.blobs.has(sha) ? decoder.decode(bundle.blobs.get(sha)!) : undefined));
    const state = newSession({ session_id: "b".repeat(64), task_name: "t", objective: "o", owner: "me", now: NOW });
    const prompt = await rolePrompt(padded, state);
    expectFollowable("po", prompt);
    expect(prompt).not.toContain("A long discipline paragraph.");
    expect(prompt).toContain('- bmad://bmm/bmad-prd/SKILL.md: "PRD Discipline", left out here to fit the inputs');
    expect(prompt).toContain("bmad-prd's headless mode");
    expect(prompt).toContain('"prd_draft"');
  });
});
