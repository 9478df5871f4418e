// One zod schema per field, reused across tools; descriptions are part of tools/list, keep them short.
import * as z from "zod";

const name = (what: string, example: string) =>
  z.string().min(1).max(200).describe(`${what} name, e.g. ${example}; module-qualified works too`);

export const workflowName = name("Workflow", "prd, create-prd or bmm/prd");
export const taskName = name("Task", "shard-doc (classic trees)");
export const params = z.record(z.string(), z.unknown()).optional().describe("Optional parameters passed to the workflow");
export const bmadUriField = z.string().min(1).max(1100).describe('bmad:// URI, e.g. "bmad://bmm/bmad-prd/SKILL.md"');
