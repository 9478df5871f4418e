// The agent in brief for a stage prompt: who it is (name, title, its Overview lines) and its customized
// role, identity, style and principles; not its activation steps or menu.
import type { CatalogRecord } from "../catalog/bundle.js";
import { extractKey } from "../runtime/config-utils.js";
import type { PyValue } from "../runtime/py-json.js";
import { servedText, type BundleReader } from "../surface/reader.js";
import { renderShown, renderSkillText, showCustom, type SkillRender } from "../surface/skill-render.js";
import { pickMarkdown } from "./stage-sections.js";

function scalar(value: PyValue | undefined): string | undefined {
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

export async function stagePersona(reader: BundleReader, agent: CatalogRecord, ctx: SkillRender): Promise<string> {
  const file = reader.catalog.file(agent.entry);
  const text = file ? await servedText(reader, file) : "";
  const custom = (key: string) => extractKey(ctx.customization, `agent.${key}`);
  const name = scalar(custom("name")) ?? agent.displayName ?? agent.name;
  const title = scalar(custom("title")) ?? agent.title;
  const icon = scalar(custom("icon")) ?? agent.icon;
  const overview = pickMarkdown(text, { section: "Overview" }) ?? agent.description;
  const lines = [`## Persona: ${[name, title].filter(Boolean).join(", ")}${icon ? ` ${icon}` : ""}`];
  // Within a render's caps, as the agent's own render shows these values (review 189: a project's 1 MB role and
  // principles made every delegate_to_agent 2 MB twice).
  const shown = renderShown();
  if (overview) lines.push(renderSkillText(overview, ctx, shown));
  for (const [key, label] of [["role", "Role"], ["identity", "Identity"], ["communication_style", "Style"]] as const) {
    const value = scalar(custom(key));
    if (value) lines.push(`- ${label}: ${showCustom(`agent.${key}`, renderSkillText(value, ctx), ctx, shown)}`);
  }
  const principles = custom("principles");
  const sentences = Array.isArray(principles) ? principles.flatMap((p) => (typeof p === "string" ? [/[.!?]$/.test(p.trim()) ? p.trim() : `${p.trim()}.`] : [])) : [];
  if (sentences.length) lines.push(`- Principles: ${showCustom("agent.principles", sentences.join(" "), ctx, shown)}`);
  return lines.join("\n");
}
