// Port of BMAD 6.12 bmad-forge-idea's scripts/resolve_personas.py, for where its Python cannot run (the remote): the
// personas and parties the forge can bring in, from the installed agents and bmad-party-mode's members and groups
// (roster.ts runs the resolvers it shells out to).
import { addArgument, createParser, parseArgs } from "./argparse.js";
import type { ScriptContext, ScriptResult } from "./context.js";
import { dumps, isDict, type PyDict, type PyValue } from "./py-json.js";
import { get, iterate, lower, pyStr, truthy } from "./py-ops.js";
import { statPath } from "./py-io.js";
import { joinPath, parentPath, resolvePath } from "./py-path.js";
import { alias, customMember, installedAgents, installedEntry, resolvedWorkflow, tomlTable } from "./roster.js";
import { runScript, terminalWidth } from "./process.js";

const PARTY_SKILL = "bmad-party-mode";

function parser() {
  const p = createParser("resolve_personas.py", "Resolve forge personas and parties.");
  addArgument(p, ["--project-root"], { required: true });
  addArgument(p, ["--skill"], { required: true, help: "Path to the bmad-forge-idea skill dir" });
  return p;
}

const dictOrEmpty = (v: PyValue | undefined): PyDict => (isDict(v) ? v : new Map());

/** Installed agents as {code: entry}, from a dict or an array of tables. */
async function loadAgents(ctx: ScriptContext, root: string): Promise<[PyDict, boolean]> {
  const data = await installedAgents(ctx, root);
  if (data === undefined) return [new Map(), false];
  const agents = get(data, "agents", new Map());
  const value = truthy(agents) ? agents! : new Map();
  if (Array.isArray(value)) {
    const byCode: PyDict = new Map();
    for (const a of value) {
      if (!isDict(a) || !truthy(a.get("code"))) continue;
      byCode.set(a.get("code") as string, a);
    }
    return [byCode, true];
  }
  return [dictOrEmpty(value), true];
}

async function findPartySkill(ctx: ScriptContext, root: string, skill: string): Promise<string | undefined> {
  for (const dir of [joinPath(parentPath(skill), PARTY_SKILL), joinPath(root, ".claude", "skills", PARTY_SKILL), joinPath(root, "_bmad", "skills", PARTY_SKILL)]) {
    if ((await statPath(ctx.fs, joinPath(dir, "customize.toml"))) !== "missing") return dir;
  }
  return undefined;
}

async function partyWorkflow(ctx: ScriptContext, root: string, partySkill: string): Promise<PyDict> {
  const data = await resolvedWorkflow(ctx, root, partySkill);
  if (data !== undefined && isDict(get(data, "workflow"))) return get(data, "workflow") as PyDict;
  return dictOrEmpty((await tomlTable(ctx, joinPath(partySkill, "customize.toml"))).get("workflow"));
}

/** Without bmad-party-mode: the user's override TOMLs, team then personal (lists joined, the rest replaced). */
async function partyOverrides(ctx: ScriptContext, root: string): Promise<PyDict> {
  const custom = joinPath(root, "_bmad", "custom");
  const team = dictOrEmpty((await tomlTable(ctx, joinPath(custom, `${PARTY_SKILL}.toml`))).get("workflow"));
  const user = dictOrEmpty((await tomlTable(ctx, joinPath(custom, `${PARTY_SKILL}.user.toml`))).get("workflow"));
  const merged: PyDict = new Map(team);
  for (const [key, value] of user) {
    const current = merged.get(key);
    merged.set(key, Array.isArray(value) && Array.isArray(current) ? [...current, ...value] : value);
  }
  return merged;
}

interface Pool {
  entries: Map<string, PyDict>;
  index: Map<string, string>;
  installed: string[];
  custom: string[];
}

function buildPool(agents: PyDict, partyMembers: PyValue | undefined): Pool {
  const pool: Pool = { entries: new Map(), index: new Map(), installed: [], custom: [] };
  const register = (code: string, entry: PyDict) => {
    pool.entries.set(code, entry);
    pool.index.set(code, code);
    pool.index.set(code.toLowerCase(), code);
    pool.index.set(alias(code).toLowerCase(), code);
    const name = entry.get("name");
    if (truthy(name)) {
      const key = lower(name!);
      // A custom rename must not take another agent's name.
      if ((pool.index.get(key) ?? code) === code) pool.index.set(key, code);
    }
  };
  for (const [code, info] of agents) {
    register(code, installedEntry(code, info, ["icon", "title", "description"]));
    pool.installed.push(code);
  }
  for (const m of Array.isArray(partyMembers) ? partyMembers : []) {
    const custom = customMember(m, pool.entries, pool.index);
    if (!custom) continue;
    const isNew = !pool.entries.has(custom[0]);
    register(...custom);
    if (isNew) pool.custom.push(custom[0]);
  }
  return pool;
}

/** The slim card the forge casts a persona from. */
function brief(entry: PyDict): PyDict {
  const out: PyDict = new Map();
  for (const k of ["code", "name", "icon", "title", "source", "description", "persona", "capabilities", "model"]) if (truthy(entry.get(k))) out.set(k, entry.get(k)!);
  return out;
}

function resolveParties(groups: PyValue, pool: Pool): PyValue[] {
  const out: PyValue[] = [];
  for (const g of truthy(groups) ? iterate(groups) : []) {
    if (!isDict(g) || !truthy(g.get("id"))) continue;
    const raw = truthy(g.get("members")) ? g.get("members")! : [];
    const members: PyValue[] = [];
    for (const t of iterate(raw)) {
      const key = typeof t === "string" ? t : pyStr(t);
      const code = pool.index.get(key) || pool.index.get(key.toLowerCase());
      if (code !== undefined && pool.entries.has(code)) members.push(brief(pool.entries.get(code)!));
    }
    const party: PyDict = new Map<string, PyValue>([["id", g.get("id")!], ["name", g.has("name") ? g.get("name")! : g.get("id")!], ["members", members]]);
    if (truthy(g.get("scene"))) party.set("scene", g.get("scene")!);
    if (!truthy(raw)) party.set("open_cast", true);
    out.push(party);
  }
  return out;
}

export function main(argv: string[], ctx: ScriptContext): Promise<ScriptResult> {
  return runScript(async (out) => {
    const args = parseArgs(parser(), argv, terminalWidth(ctx));
    const root = await resolvePath(ctx.fs, args.project_root as string, ctx.cwd);
    const skill = await resolvePath(ctx.fs, args.skill as string, ctx.cwd);
    const [agents, agentsOk] = await loadAgents(ctx, root);
    const partySkill = await findPartySkill(ctx, root, skill);
    const workflow = partySkill !== undefined ? await partyWorkflow(ctx, root, partySkill) : await partyOverrides(ctx, root);
    const pool = buildPool(agents, get(workflow, "party_members", []));
    const defaultParty = get(workflow, "default_party", "");
    const result = new Map<string, PyValue>([
      ["agents", pool.installed.map((c) => brief(pool.entries.get(c)!))],
      ["members", pool.custom.map((c) => brief(pool.entries.get(c)!))],
      ["parties", resolveParties(get(workflow, "party_groups", [])!, pool)],
      ["default_party", truthy(defaultParty) ? defaultParty! : ""],
      ["party_mode_found", partySkill !== undefined],
      ["agents_resolved", agentsOk],
    ]);
    out.stdout += `${dumps(result, { indent: 2, ensureAscii: false })}\n`;
    return 0;
  });
}
