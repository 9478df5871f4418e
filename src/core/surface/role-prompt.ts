// Role prompts for delivery stages, built from the bundle's real agent and workflow files (file proxy),
// with a generic role text where the bundle lacks them.
import type { CatalogRecord } from "../catalog/bundle.js";
import { enginesFor, PIPELINE, stageSpec } from "../delivery/pipeline.js";
import type { SessionState } from "../delivery/session.js";
import type { BundleReader } from "./reader.js";
import { renderRecord } from "./render.js";
import { artifactUri } from "./resources.js";

function firstFound(reader: BundleReader, kind: "agent" | "workflow", names: string[]): CatalogRecord | undefined {
  for (const name of names) {
    const found = reader.catalog.resolve(kind, name);
    if (found.ok) return found.record;
  }
  return undefined;
}

export async function rolePrompt(reader: BundleReader, state: SessionState): Promise<string> {
  const spec = stageSpec(state.current_stage);
  const record = state.stages[state.current_stage];
  const index = PIPELINE.indexOf(spec) + 1;
  const agent = firstFound(reader, "agent", spec.agents);
  const workflow = firstFound(reader, "workflow", spec.workflows);
  const parts = [
    `# BMAD delivery, stage ${index}/${PIPELINE.length}: ${spec.title}`,
    `Task: ${state.task_name}. Objective: ${state.objective}`,
    `Engines: ${enginesFor(spec, state.objective).join(" + ")}.`,
    agent ? await renderRecord(reader, agent) : `## Role\nThe bundle has no ${spec.agents.join(" or ")} agent; use this role:\n${spec.role}`,
    workflow ? await renderRecord(reader, workflow) : `## Method\nThe bundle has no ${spec.workflows.join(" or ")} workflow; ${spec.role}`,
  ];
  if (state.artifacts.length) {
    parts.push(`## Inputs\nRead these first:\n${state.artifacts.map((f) => `- ${artifactUri(state.session_id, f)}`).join("\n")}`);
  }
  if (record.iteration > 0) {
    const answers = Object.entries(record.answers ?? {}).map(([id, a]) => `- ${id}: ${a}`);
    parts.push(
      `## Refine (iteration ${record.iteration + 1})\nPrevious score: ${record.score ?? "none"}. Gaps: ${(record.gaps ?? []).join("; ") || "none"}.` +
        (answers.length ? `\nUser answers:\n${answers.join("\n")}` : "") +
        (record.final_result_ref ? `\nPrevious draft begins: ${record.final_result_ref.summary}` : ""),
    );
  }
  if (spec.stage === "dev") parts.push("## Scope\nAsk the user which sprints to implement before generating; if they do not say, implement all sprints.");
  const draftKey = record.iteration > 0 ? spec.output.updated : spec.output.draft;
  const scored = spec.gate.kind === "score" ? `, "quality_score": 0-100, "gaps": ["..."], "questions": [{"id": "q1", "question": "...", "context": "..."}]` : "";
  parts.push(
    `## Output\nShow the user the result, then submit it with bmad-task action "submit" as JSON: {"${draftKey}": "<markdown>"${scored}}.` +
      (spec.gate.kind === "score" ? ` Score honestly; ${spec.gate.min}+ means ready to save. Ask 3-5 questions while below it.` : ""),
  );
  return parts.join("\n\n");
}
