// Port of BMAD 6.12 bmad-party-mode's scripts/resolve_party.py, for where its Python cannot run (the remote): the
// roster from the installed agents and the skill's party members and groups (roster.ts runs the resolvers it
// shells out to).
import { addArgument, createParser, parseArgs } from "./argparse.js";
import type { ScriptContext, ScriptResult } from "./context.js";
import { dumps, isDict, PyError, type PyDict, type PyValue, typeName } from "./py-json.js";
import { get, iterate, len, lower, truthy } from "./py-ops.js";
import { joinPath, resolvePath } from "./py-path.js";
import { alias, customMember, installedAgents, installedEntry, resolvedWorkflow, tomlTable } from "./roster.js";
import { runScript, terminalWidth } from "./process.js";

function parser() {
  const p = createParser("resolve_party.py", "Resolve the party-mode roster, lazily.");
  addArgument(p, ["--project-root"], { required: true });
  addArgument(p, ["--skill"], { required: true, help: "Path to the bmad-party-mode skill dir" });
  addArgument(p, ["--party"], { help: "Resolve full detail for this group id" });
  addArgument(p, ["--list-groups"], { kind: "store_true", help: "Group names only" });
  return p;
}

async function loadAgents(ctx: ScriptContext, root: string): Promise<[PyValue, boolean]> {
  const data = await installedAgents(ctx, root);
  if (data === undefined) return [new Map(), false];
  const agents = get(data, "agents", new Map());
  return [truthy(agents) ? agents! : new Map(), true];
}

async function loadWorkflow(ctx: ScriptContext, root: string, skill: string): Promise<PyValue> {
  const data = await resolvedWorkflow(ctx, root, skill);
  if (data !== undefined && isDict(data) && data.has("workflow")) return data.get("workflow")!;
  // The fallback: the skill's base customize.toml, no override merge.
  return (await tomlTable(ctx, joinPath(skill, "customize.toml"))).get("workflow") ?? new Map();
}

interface Collective {
  members: Map<string, PyDict>;
  index: Map<string, string>;
  installed: string[];
}

function buildCollective(agents: PyValue, partyMembers: PyValue | undefined): Collective {
  const members = new Map<string, PyDict>();
  const index = new Map<string, string>();
  const installed: string[] = [];
  const register = (code: string, entry: PyDict) => {
    members.set(code, entry);
    index.set(code, code);
    index.set(code.toLowerCase(), code);
    index.set(alias(code).toLowerCase(), code);
    const name = entry.get("name");
    if (truthy(name)) index.set(lower(name!), code);
  };
  if (!isDict(agents)) throw new PyError("AttributeError", `'${typeName(agents)}' object has no attribute 'items'`);
  for (const [code, info] of agents) {
    register(code, installedEntry(code, info, ["icon", "title", "description", "module", "team"]));
    installed.push(code);
  }
  for (const m of Array.isArray(partyMembers) ? partyMembers : []) {
    const custom = customMember(m, members, index);
    if (custom) register(...custom); // an override keeps the installed slot; a new member does not join it
  }
  return { members, index, installed };
}

function resolveMembers(tokens: PyValue, c: Collective): [PyValue[], PyValue[]] {
  const resolved: PyValue[] = [];
  const unresolved: PyValue[] = [];
  for (const token of truthy(tokens) ? iterate(tokens) : []) {
    if (typeof token !== "string") {
      unresolved.push(token);
      continue;
    }
    const code = c.index.get(token) ?? c.index.get(token.toLowerCase());
    if (code && c.members.has(code)) resolved.push(c.members.get(code)!);
    else unresolved.push(token);
  }
  return [resolved, unresolved];
}

function groupMenu(groups: PyValue): PyValue[] {
  const out: PyValue[] = [];
  for (const g of truthy(groups) ? iterate(groups) : []) {
    if (!isDict(g) || !truthy(g.get("id"))) continue;
    const members = g.get("members");
    const list = truthy(members) ? members! : [];
    const entry: PyDict = new Map([["id", g.get("id")!], ["name", g.has("name") ? g.get("name")! : g.get("id")!], ["member_count", len(list)]]);
    if (!truthy(list)) entry.set("open_cast", true);
    out.push(entry);
  }
  return out;
}

function findGroup(groups: PyValue, id: PyValue): PyDict | undefined {
  for (const g of truthy(groups) ? iterate(groups) : []) if (isDict(g) && g.get("id") === id && typeof id === "string") return g;
  return undefined;
}

function groupDetail(g: PyDict, c: Collective): PyDict {
  const raw = truthy(g.get("members")) ? g.get("members")! : [];
  const [members, unresolved] = resolveMembers(raw, c);
  const detail: PyDict = new Map<string, PyValue>([
    ["active", g.get("id")!],
    ["name", g.has("name") ? g.get("name")! : g.get("id")!],
    ["members", members],
    ["unresolved", unresolved],
    ["memory_enabled", truthy(g.has("memory") ? g.get("memory") : false)],
  ]);
  if (truthy(g.get("scene"))) detail.set("scene", g.get("scene")!);
  if (!truthy(raw)) detail.set("open_cast", true);
  return detail;
}

export function main(argv: string[], ctx: ScriptContext): Promise<ScriptResult> {
  return runScript(async (out) => {
    const args = parseArgs(parser(), argv, terminalWidth(ctx));
    const root = await resolvePath(ctx.fs, args.project_root as string, ctx.cwd);
    const skill = await resolvePath(ctx.fs, args.skill as string, ctx.cwd);
    const emit = (value: PyDict) => (out.stdout += `${dumps(value, { indent: 2, ensureAscii: false })}\n`);

    const workflow = await loadWorkflow(ctx, root, skill);
    const or = (key: string, fallback: PyValue) => {
      const v = get(workflow, key, fallback);
      return truthy(v) ? v! : fallback;
    };
    const groups = or("party_groups", []);
    const defaultParty = or("default_party", "");
    const partyMode = or("party_mode", "session");
    const partyMemory = truthy(get(workflow, "party_memory", true));

    if (args.list_groups !== undefined) {
      emit(new Map<string, PyValue>([["party_mode", partyMode], ["default_party", defaultParty], ["groups", groupMenu(groups)]]));
      return 0;
    }
    const [agents, agentsOk] = await loadAgents(ctx, root);
    const collective = buildCollective(agents, get(workflow, "party_members", []));
    // Python's `if args.party:` reads an empty --party as none given.
    if (args.party) {
      const g = findGroup(groups, args.party as string);
      if (!g) emit(new Map<string, PyValue>([["error", "unknown_group"], ["requested", args.party as string], ["available", groupMenu(groups)]]));
      else emit(new Map([...groupDetail(g, collective), ["party_mode", partyMode]]));
      return 0;
    }
    const result: PyDict = new Map<string, PyValue>([["party_mode", partyMode], ["groups", groupMenu(groups)], ["installed_agents_resolved", agentsOk]]);
    const g = truthy(defaultParty) ? findGroup(groups, defaultParty) : undefined;
    const active: PyDict = g
      ? groupDetail(g, collective)
      : new Map<string, PyValue>([["active", "installed"], ["members", collective.installed.map((code) => collective.members.get(code)!)], ["memory_enabled", partyMemory]]);
    for (const [k, v] of active) result.set(k, v);
    emit(result);
    return 0;
  });
}
