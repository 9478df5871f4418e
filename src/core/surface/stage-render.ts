// The one function that resolves BMAD text quoted in a stage prompt. `ctx` comes from `stageRender`
// (stage-context.ts): {project-root} is the session (`bmad://sessions/<id>`), {skill-root} the skill's
// bmad:// folder, config values the bundle's sanitized defaults, {workflow.*} / {agent.*} the skill's own
// customize.toml. Resolution itself is the rendering layer's (skill-render.ts, as render_skill.py does it),
// so a session tied to a project workspace only needs a different `ctx`.
import { renderSkillText, type SkillRender } from "./skill-render.js";

export function resolveStageText(text: string, ctx: SkillRender): string {
  return renderSkillText(text, ctx);
}
