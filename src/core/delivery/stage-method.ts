// A stage's method section: our instruction for the session, then the BMAD text the stage takes from its
// skills (STAGE_METHODS), rendered for the session, then companion files as bmad:// links.
import type { CatalogRecord } from "../catalog/bundle.js";
import type { StageSpec } from "./pipeline.js";
import { extractKey } from "../runtime/config-utils.js";
import { isDict } from "../runtime/py-json.js";
import { servedText, type BundleReader } from "../surface/reader.js";
import { skillFolderUri } from "./stage-context.js";
import { STAGE_METHODS, type Excerpt } from "./stage-methods.js";
import { renderSkillText, type SkillRender } from "../surface/skill-render.js";
import { pickMarkdown } from "./stage-sections.js";

type Render = (record: CatalogRecord) => Promise<SkillRender>;

function skill(reader: BundleReader, workflow: CatalogRecord | undefined, name: string | undefined): CatalogRecord | undefined {
  if (name === undefined) return workflow;
  const found = reader.catalog.resolve("workflow", name);
  return found.ok ? found.record : undefined;
}

function dir(record: CatalogRecord): string {
  return record.entry.slice(0, record.entry.lastIndexOf("/"));
}

/** The excerpt's text rendered for the session, or undefined when the bundle has no such file or part. */
async function excerpt(reader: BundleReader, workflow: CatalogRecord | undefined, render: Render, e: Excerpt): Promise<{ record: CatalogRecord; text: string } | undefined> {
  const record = skill(reader, workflow, e.skill);
  const file = record && reader.catalog.file(`${dir(record)}/${e.file}`);
  if (!record || !file) return undefined;
  const text = pickMarkdown(await servedText(reader, file), e.pick);
  return text === undefined ? undefined : { record, text: renderSkillText(text, await render(record)) };
}

function source(record: CatalogRecord, e: Excerpt): string {
  return `${record.name} ${e.file}${e.pick.section ? `, "${e.pick.section}"` : ""}`;
}

/** `lean`: 0 quotes everything; 1 links the excerpts instead of quoting them; 2 links the headless mode too. */
export async function stageMethodText(reader: BundleReader, spec: StageSpec, workflow: CatalogRecord | undefined, render: Render, refining: boolean, lean: 0 | 1 | 2): Promise<string> {
  const method = STAGE_METHODS[spec.stage];
  const parts: string[] = [];
  const headless = [];
  for (const e of method.headless ?? []) {
    const found = await excerpt(reader, workflow, render, e);
    if (found) headless.push({ e, ...found });
  }
  const title = workflow ? `## Method: ${workflow.name}${headless.length ? ", headless mode" : ""}` : "## Method";
  parts.push(`${title}\n${!workflow ? `${spec.role}\n` : ""}${refining && method.refine ? method.refine : method.instruction}`);
  const used: Array<{ record: CatalogRecord; e: Excerpt }> = [];
  if (headless.length) {
    if (lean === 2) used.push(...headless);
    else parts.push(`${headless[0]!.record.name}'s headless mode (${headless[0]!.e.file}), which this stage follows:\n\n${headless.map((h) => h.text).join("\n\n")}`);
  }
  let excerpts = 0;
  for (const e of method.excerpts) {
    const found = await excerpt(reader, workflow, render, e);
    if (!found) continue;
    excerpts += 1;
    if (lean) used.push({ record: found.record, e });
    else parts.push(`From ${source(found.record, e)}:\n\n${found.text}`);
  }
  if (method.listed && workflow) {
    const items = extractKey((await render(workflow)).customization, method.listed.path);
    const names = Array.isArray(items) ? items.flatMap((item) => (isDict(item) && typeof item.get(method.listed!.field) === "string" ? [item.get(method.listed!.field) as string] : [])) : [];
    if (names.length) parts.push(`${method.listed.label}: ${names.join("; ")}.`);
  }
  const links: string[] = [];
  const linked = new Set<string>();
  const link = (record: CatalogRecord, file: string, label: string) => {
    const uri = `${skillFolderUri(record)}/${file}`;
    if (linked.has(uri) || !reader.catalog.file(`${dir(record)}/${file}`)) return;
    linked.add(uri);
    links.push(`- ${uri}: ${label}`);
  };
  for (const c of method.companions) {
    const record = skill(reader, workflow, c.skill);
    if (record) link(record, c.file, c.label);
  }
  for (const { record, e } of used) link(record, e.file, `${e.pick.section ? `"${e.pick.section}", ` : ""}left out here to fit the inputs`);
  if (!headless.length && !excerpts && workflow) link(workflow, workflow.entry.slice(dir(workflow).length + 1), "the workflow; its interactive steps give way to this session's rules");
  if (links.length) parts.push(`Load on demand (a bare path in the quoted text is relative to its skill's folder${workflow ? `, e.g. ${skillFolderUri(workflow)}` : ""}):\n${links.join("\n")}`);
  return parts.join("\n\n");
}
