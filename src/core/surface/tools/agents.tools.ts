// Toolset `agents` (opt-in, seed 004): one tool per agent, named like its prompt (`bmad-{agent}`, or
// `bmad-{module}-{agent}` where a higher-priority agent holds the name), taking a message.
import * as z from "zod";
import type { Catalog } from "../../catalog/catalog.js";
import { shortName } from "../../catalog/names.js";
import { TOOL } from "../names.js";
import { done } from "../outcome.js";
import { recordNames } from "../prompts.js";
import { renderRecord, renderTarget } from "../render.js";
import { defineTool, READ_ONLY, type ToolDef } from "../tool.js";

const STATIC_NAMES = new Set<string>(Object.values(TOOL));

const input = z.object({ message: z.string().min(1).max(32000).describe("Your message or question for the agent") });

export function agentTools(catalog: Catalog): ToolDef[] {
  const names = recordNames(catalog);
  const taken = new Set(STATIC_NAMES);
  return catalog.list("agent").flatMap((agent) => {
    const toolName = (raw: string) => raw.replace(/[^A-Za-z0-9_.-]/g, "-").slice(0, 64);
    // Names as listed, once each: an agent called "task" must not take the bmad-task tool's name, nor two agents whose
    // names read alike once made a tool's (characters past 64, or other than these) one name; the first keeps it.
    const served = names.get(agent);
    const name = [served && toolName(served), toolName(`bmad-${agent.module}-${shortName(agent)}`)].find((n) => n && !taken.has(n));
    if (!name) return [];
    taken.add(name);
    return defineTool({
      name,
      toolset: "agents",
      description: `${[agent.displayName, agent.title].filter(Boolean).join(", ") || shortName(agent)}: ${(agent.description ?? "").slice(0, 160)}`,
      input,
      annotations: READ_ONLY,
      async run({ message }, deps) {
        const target = await renderTarget(deps);
        return done(await renderRecord(deps.reader, agent, { heading: "User message", body: message }, typeof target === "object" && "error" in target ? undefined : target));
      },
    });
  });
}
