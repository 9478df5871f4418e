// The short block in front of a rendered skill: what was substituted, and how this server carries out
// the lines BMAD's text asks for (`uv run ...`, `skill:NAME`, files under {project-root}).
import { uvRunScripts } from "../runtime/command-line.js";
import { SHARED_SCRIPTS } from "../runtime/scripts.js";
import { TOOL } from "./names.js";
import type { SkillRender } from "./skill-render.js";

/** Where files under {project-root} are read and written: a workspace by name, or the local project. */
export type FilesAccess = { kind: "workspace"; project: string } | { kind: "local" };

export function runtimeBlock(ctx: SkillRender, files: FilesAccess, renderedTexts: string[]): string {
  const scripts = new Set<string>();
  for (const text of renderedTexts) for (const script of uvRunScripts(text)) scripts.add(script);
  const shared = [...scripts].filter((s) => SHARED_SCRIPTS.has(s));
  const own = [...scripts].filter((s) => !SHARED_SCRIPTS.has(s));
  const lines = [
    "## Running this skill here",
    `- The project root is \`${ctx.projectRoot}\` and this skill's root is \`${ctx.skillRoot}\`. They, the config values and the customization values are filled in below: customization is resolved, so the "resolve customization" step is done.`,
  ];
  if (scripts.size) {
    lines.push(
      `- Run each \`uv run …\` line with the ${TOOL.bmadRun} tool, exactly as written: {"command": "<the line>"}.` +
        (shared.length ? ` ${shared.join(", ")}: BMAD's shared scripts, run here on the project's files.` : "") +
        (own.length ? ` ${own.join(", ")}: this skill's own, run by the bmad-mcp bridge (Python).` : ""),
    );
  }
  lines.push(
    files.kind === "workspace"
      ? `- Files in the project: ${TOOL.bmadFiles} with "project": "${files.project}" and the path inside it (read, write, append, list).`
      : `- Files in the project: your own file tools, or ${TOOL.bmadFiles} with "project": "${ctx.projectRoot.slice(ctx.projectRoot.lastIndexOf("/") + 1)}" and the path inside it.`,
    `- \`skill:NAME\` or "invoke the bmad-NAME skill": call ${TOOL.bmad} with {"command": "*NAME"} (an agent: "NAME").`,
    `- Project memory: to remember a decision or learning, ${TOOL.rememberStructured}; to check past failures or earlier decisions, ${TOOL.getFailureMuseum} and ${TOOL.recallStructured} (the "memory" toolset: if they are not in your tools, the user adds it to the server's toolsets).`,
  );
  for (const note of ctx.notes) lines.push(`- Note: ${note}`);
  return lines.join("\n");
}

/** For a skill served without a project: it writes files, and this is how to get somewhere to write them. */
export function noWorkspaceBlock(): string {
  return `## Where this skill writes\nThis skill reads its project's config (_bmad/) and writes files in the project ({project-root}), and no project is given. Create one with ${TOOL.bmadProject} {"action": "create", "name": "my-app"}, then call ${TOOL.bmad} again with "project": "my-app". (On your machine, the bmad-mcp bridge uses your project folder.)`;
}
