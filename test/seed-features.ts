// Every feature the seeds (../shared/seeds/000-004) name, with a verdict per front door and the test that proves it.
// docs/seeds.md is generated from this list (npm run docs); test/node/seed-features.test.ts checks that the table is
// current, that each proof names a test that exists, and that every verdict short of "works" says why.
// Ids are stable: a new feature takes the next id of its seed, never a number in between.

export type Status = "works" | "refused" | "partial" | "missing";
/** A test file (from the repository root) and its title, or a part of the title no other test in that file has. */
export type Proof = { file: string; test: string };
/** "refused" is refused by construction: the reason says why and where it can be done instead. */
export type Verdict = { status: Status; reason?: string; proof?: Proof };
export type Seed = "000" | "001" | "002" | "003" | "004";
export type SeedFeature = { id: string; seed: Seed; feature: string; remote: Verdict; bridge: Verdict };

const works = (file: string, test: string): Verdict => ({ status: "works", proof: { file, test } });
const refused = (reason: string, proof?: Proof): Verdict => ({ status: "refused", reason, ...(proof ? { proof } : {}) });
const partial = (reason: string, proof?: Proof): Verdict => ({ status: "partial", reason, ...(proof ? { proof } : {}) });
const missing = (reason: string): Verdict => ({ status: "missing", reason });
const proof = (file: string, test: string): Proof => ({ file, test });

// Test files, named once.
const W = {
  surface: "test/worker/surface.test.ts",
  badInput: "test/worker/bad-input.test.ts",
  sessions: "test/worker/sessions.test.ts",
  sessionProject: "test/worker/session-project.test.ts",
  memory: "test/worker/memory.test.ts",
  skills: "test/worker/skills.test.ts",
  configSecrets: "test/worker/config-secrets.test.ts",
  runtime: "test/worker/workspace-runtime.test.ts",
  workspace: "test/worker/workspace.test.ts",
  seedRows: "test/worker/seed-rows.test.ts",
};
const N = {
  bridge: "test/node/bridge.test.ts",
  roots: "test/node/bridge-roots.test.ts",
  memory: "test/node/bridge-memory.test.ts",
  contract: "test/node/bridge-contract.test.ts",
  runtime: "test/node/bridge-runtime.test.ts",
  safety: "test/node/bridge-safety.test.ts",
  servedConfig: "test/node/bridge-served-config.test.ts",
  listChanged: "test/node/bridge-list-changed.test.ts",
  remote: "test/node/bridge-remote.test.ts",
  fileSessions: "test/node/file-session-store.test.ts",
  delivery: "test/node/bridge-delivery.test.ts",
  contentRoots: "test/node/content-roots.test.ts",
  git: "test/node/bridge-git.test.ts",
  http: "test/node/bridge-http.test.ts",
  selfTest: "test/node/bridge-self-test.test.ts",
  placeholders: "test/node/render-classic-placeholders.test.ts",
  priority: "test/node/priority-surface.test.ts",
  promptNames: "test/node/prompt-names.test.ts",
  buildClassic: "test/node/build-classic.test.ts",
  buildErrors: "test/node/build-errors.test.ts",
  buildGit: "test/node/build-git.test.ts",
  budgets: "test/node/budgets.test.ts",
  conformance: "test/node/conformance.test.ts",
  coreSurface: "test/node/core-surface.test.ts",
  npmPackage: "test/node/npm-package.test.ts",
  authOidc: "test/node/auth-oidc.test.ts",
  deploy: "test/node/deploy.test.ts",
  seedRows: "test/node/bridge-seed-rows.test.ts",
  faults: "test/node/faults.test.ts",
};
/** The bridge's delivery walk, the proof of several bmad-task rows. */
const DELIVERY_WALK_BRIDGE = "walks a delivery session: both engines, confirm_save, approval, sprint scope, earlier artifacts, status and the answer fields";

// Reasons said more than once.
const NO_PROJECT_DISK = "the Worker has no user's file system";
const CONTRACT_REMOTE = "the Worker cannot run bash or the project's code: run_completion_contract runs on the bridge (bmad-mcp), in the project, and the Worker's answer says so";
const BUILD_TIME = (flag: string) => `${NO_PROJECT_DISK} or command line: a deployment adds such a tree when it builds its bundle (npm run bundle -- --source ${flag}), served by origin and priority`;
const NO_GIT = "the Worker clones nothing (no git, no disk): a deployment builds git sources into its bundle (npm run bundle -- --source git+https://…), where git runs";

export const SEED_FEATURES: SeedFeature[] = [
  // Seed 000: the master manifest, priority resolution, module-qualified names.
  {
    id: "000-01", seed: "000", feature: "`bmad architect`: load an agent by name",
    remote: works(W.surface, "loads an agent by short, full and module-qualified name and says which origin won"),
    bridge: works(N.bridge, "serves the project's own agent over the embedded one, and picks up an edit on the next call"),
  },
  {
    id: "000-02", seed: "000", feature: "Module-qualified agent names (`bmm/architect`)",
    remote: works(W.surface, "loads an agent by short, full and module-qualified name and says which origin won"),
    bridge: works(N.contentRoots, "serves a ~/.bmad that is the BMAD folder itself (seed 000), and one holding bmad/ (seed 002)"),
  },
  {
    id: "000-03", seed: "000", feature: "`bmad *party-mode`: load a workflow with `*`",
    remote: works(W.surface, "runs workflows with * and lists everything on an empty command"),
    bridge: works(N.runtime, "puts a runtime block of at most 1.75 KB in front of bmad *prd"),
  },
  {
    id: "000-04", seed: "000", feature: "Module-qualified workflows (`*core/brainstorming`)",
    remote: works(W.surface, "runs workflows with * and lists everything on an empty command"),
    bridge: works(N.placeholders, "renders {{user_name}} and {{project_name}} whole in every 6.0.4 workflow"),
  },
  {
    id: "000-05", seed: "000", feature: "An empty command lists everything the master manifest holds",
    remote: works(W.surface, "runs workflows with * and lists everything on an empty command"),
    bridge: works(N.contentRoots, "are found by name and said in the list, on both doors"),
  },
  {
    id: "000-06", seed: "000", feature: "Priority: project > cli > env > user > package (lower number wins)",
    remote: works(N.priority, "loads the project's agent and names the package candidate it overrode"),
    bridge: works(N.bridge, "ranks project > --path > BMAD_ROOT > ~/.bmad > embedded, showing every candidate"),
  },
  {
    id: "000-07", seed: "000", feature: "The answer names the winning origin, its priority and version",
    remote: works(W.surface, "loads an agent by short, full and module-qualified name and says which origin won"),
    bridge: works(N.bridge, "ranks project > --path > BMAD_ROOT > ~/.bmad > embedded, showing every candidate"),
  },
  {
    id: "000-08", seed: "000", feature: "Not flattened: every candidate from every origin is kept and shown (\"Also available\")",
    remote: works(N.priority, "loads the project's agent and names the package candidate it overrode"),
    bridge: works(N.bridge, "ranks project > --path > BMAD_ROOT > ~/.bmad > embedded, showing every candidate"),
  },
  {
    id: "000-09", seed: "000", feature: "Project root: `./_bmad`, `./bmad`, `./.bmad-core` (and installed skills) override the rest",
    remote: refused(BUILD_TIME("project=DIR"), proof("test/node/build-skills.test.ts", "keeps both records when a project tree overrides the package")),
    bridge: works(N.bridge, "serves the project's own agent over the embedded one, and picks up an edit on the next call"),
  },
  {
    id: "000-10", seed: "000", feature: "`--path DIR` roots (cli), repeatable, ranked in the order given",
    remote: refused(BUILD_TIME("DIR")),
    bridge: works(N.roots, "serves several --path roots, ranked in the order given"),
  },
  {
    id: "000-11", seed: "000", feature: "`BMAD_ROOT` root (env)",
    remote: refused(BUILD_TIME("env=DIR")),
    bridge: works(N.bridge, "ranks project > --path > BMAD_ROOT > ~/.bmad > embedded, showing every candidate"),
  },
  {
    id: "000-12", seed: "000", feature: "`~/.bmad` root (user)",
    remote: refused(BUILD_TIME("user=DIR")),
    bridge: works(N.bridge, "ranks project > --path > BMAD_ROOT > ~/.bmad > embedded, showing every candidate"),
  },
  {
    id: "000-13", seed: "000", feature: "The embedded package (priority 5) when no other root has it",
    remote: works(W.surface, "loads an agent by short, full and module-qualified name and says which origin won"),
    bridge: works(N.roots, "serves a --project that holds only the kit's memory, or no BMAD folder at all, from the embedded bundle"),
  },
  {
    id: "000-14", seed: "000", feature: "Seed-shaped roots: `BMAD_ROOT=/path/bmad`, a `~/.bmad` that is the BMAD folder or holds `bmad/`",
    remote: works(N.contentRoots, "serves the same folder from the remote bundle"),
    bridge: works(N.contentRoots, "serves BMAD_ROOT pointing at the bmad folder itself, with nothing on stderr"),
  },
  {
    id: "000-15", seed: "000", feature: "A root that yields nothing is said where the client sees it, not only on stderr",
    remote: refused("a bundle is never built from a tree that yields nothing: npm run bundle stops and names it, so the Worker has no such root to warn about", proof(N.buildErrors, "refuses a named source whose tree yields nothing")),
    bridge: works(N.contentRoots, "is in the instructions and the first bmad answer, not only on stderr"),
  },
  {
    id: "000-16", seed: "000", feature: "A named root (`--path`, `--project`) without a BMAD tree is a clear error",
    remote: refused("no roots are named at request time; npm run bundle fails naming what it looked for", proof(N.buildErrors, "names what it looked for in an empty dir")),
    bridge: works(N.roots, "stops with exit 2 when --path holds no BMAD tree, saying what was looked for"),
  },
  {
    id: "000-17", seed: "000", feature: "v6 inventory from `_cfg/*-manifest.csv` (v6 alpha `bmad/`)",
    remote: works(N.contentRoots, "serves the same folder from the remote bundle"),
    bridge: works(N.contentRoots, "serves a ~/.bmad that is the BMAD folder itself (seed 000), and one holding bmad/ (seed 002)"),
  },
  {
    id: "000-18", seed: "000", feature: "Classic v6 installed (`_bmad/_config/*-manifest.csv`): every agent and workflow of its manifests",
    remote: works(N.placeholders, "renders {{user_name}} and {{project_name}} whole in every 6.0.4 workflow"),
    bridge: works(N.bridge, "serves a classic 6.0.4 installed project: every agent of its manifest"),
  },
  {
    id: "000-19", seed: "000", feature: "v4 inventory (`.bmad-core/`, expansion packs)",
    remote: works(N.placeholders, "leaves no braced config value in any v4 workflow"),
    bridge: works(N.placeholders, "leaves no braced config value in any v4 workflow"),
  },
  {
    id: "000-20", seed: "000", feature: "Only existing files are served: a manifest row whose file is missing is not (status no-file-found)",
    remote: works(N.contentRoots, "are found by name and said in the list, on both doors"),
    bridge: works(N.contentRoots, "are found by name and said in the list, on both doors"),
  },
  {
    id: "000-21", seed: "000", feature: "Files outside the manifests inventoried by their frontmatter (not-in-manifest: `bmad orphan`, `*orphanflow`)",
    remote: works(N.contentRoots, "are found by name and said in the list, on both doors"),
    bridge: works(N.contentRoots, "are found by name and said in the list, on both doors"),
  },
  {
    id: "000-22", seed: "000", feature: "A warning when a manifest and its folder disagree",
    remote: works(N.contentRoots, "are found by name and said in the list, on both doors"),
    bridge: works(N.contentRoots, "are found by name and said in the list, on both doors"),
  },
  {
    id: "000-23", seed: "000", feature: "Supporting files (templates, configs) read from the highest-priority root that has them (FileReader)",
    remote: works(N.priority, "serves the winning file for a path both trees have"),
    bridge: works(N.seedRows, "serves the project's copy of a supporting file over the embedded one"),
  },
  {
    id: "000-24", seed: "000", feature: "User-level `customize.yaml` fallback for a project agent that has none (`_cfg/agents/bmm-architect.customize.yaml`)",
    remote: works(N.contentRoots, "applies the user's customize.yaml to a project agent whose own is the empty template, on both doors"),
    bridge: works(N.contentRoots, "applies the user's customize.yaml to a project agent whose own is the empty template, on both doors"),
  },
  {
    id: "000-25", seed: "000", feature: "Customizations applied to the agent, as BMAD's classic installer did (seed 002 FR1.4: YAML overrides markdown)",
    remote: works(N.contentRoots, "applies the user's customize.yaml to a project agent whose own is the empty template, on both doors"),
    bridge: works(N.contentRoots, "lets the project's own customization win, and says nothing the compiled agent holds already"),
  },
  {
    id: "000-26", seed: "000", feature: "One name in two origins or modules: the winner keeps the short name, the others are module-qualified",
    remote: works(N.promptNames, "gives a multi-source bundle's short names to its highest-priority source"),
    bridge: works(N.seedRows, "keeps the short names for the project's agents and qualifies bmad-core's by module"),
  },
  {
    id: "000-27", seed: "000", feature: "Resource browser: every record with its origins (`bmad-mcp --list`)",
    remote: refused("a command-line flag of the local CLI; on the remote the bmad tool with an empty command lists the same records", proof(W.surface, "runs workflows with * and lists everything on an empty command")),
    bridge: works(N.bridge, "prints help, version and what it sees"),
  },

  // Seed 001: the custom kit (French): project context, completion contract, runs, memory, sampling.
  {
    id: "001-01", seed: "001", feature: "`get_project_context`: `shared-context.md` + `project-context.yaml` as structured JSON",
    remote: works(W.memory, "serves get_project_context from the workspace's memory files and remembered decisions"),
    bridge: works(N.bridge, "returns the project context by section"),
  },
  {
    id: "001-02", seed: "001", feature: "`get_project_context` `section` (all, stack, agents, decisions, architecture)",
    remote: works(W.memory, "serves get_project_context from the workspace's memory files and remembered decisions"),
    bridge: works(N.bridge, "returns the project context by section"),
  },
  {
    id: "001-03", seed: "001", feature: "`get_agent_memory` reads `_bmad/_memory/agent-learnings/{agent}.md`",
    remote: works(W.memory, "indexes hand-edited learnings and the failure museum, again when they change, reporting broken lines"),
    bridge: works(N.memory, "serves an agent's learnings file, newest first or by query, and reads it again when it changes"),
  },
  {
    id: "001-04", seed: "001", feature: "`get_agent_memory` `last_n`: the N newest learnings",
    remote: works(W.seedRows, "gives get_agent_memory's last_n newest learnings"),
    bridge: works(N.memory, "serves an agent's learnings file, newest first or by query, and reads it again when it changes"),
  },
  {
    id: "001-05", seed: "001", feature: "`get_agent_memory` `query`: search in an agent's learnings",
    remote: works(W.memory, "indexes hand-edited learnings and the failure museum, again when they change, reporting broken lines"),
    bridge: works(N.memory, "serves an agent's learnings file, newest first or by query, and reads it again when it changes"),
  },
  {
    id: "001-06", seed: "001", feature: "`run_completion_contract`: runs `_bmad/_config/custom/cc-verify.sh`, answers PASS/FAIL, output, duration_ms",
    remote: refused(CONTRACT_REMOTE, proof(W.sessions, "say where they run: the contract on the bridge, the context in a workspace")),
    bridge: works(N.bridge, "runs the completion contract: PASS, FAIL with output, killed at the timeout"),
  },
  {
    id: "001-07", seed: "001", feature: "`run_completion_contract` `stack` (auto, go, typescript, …) given to the script",
    remote: refused(CONTRACT_REMOTE),
    bridge: works(N.bridge, "runs the completion contract: PASS, FAIL with output, killed at the timeout"),
  },
  {
    id: "001-08", seed: "001", feature: "`run_completion_contract` `working_dir` (default: the project root), never outside the project",
    remote: refused(CONTRACT_REMOTE),
    bridge: works(N.bridge, "keeps working_dir inside the project"),
  },
  {
    id: "001-09", seed: "001", feature: "The contract's 120 s timeout: the script and what it started are killed",
    remote: refused(CONTRACT_REMOTE),
    bridge: works(N.contract, "answers at the timeout plus a short grace and kills a child that left its session"),
  },
  {
    id: "001-10", seed: "001", feature: "A failed contract goes into the failure museum as CC-FAIL",
    remote: refused(CONTRACT_REMOTE),
    bridge: works(N.memory, "records a failed completion contract in the failure museum as CC-FAIL"),
  },
  {
    id: "001-11", seed: "001", feature: "`get_workflow_status` reads `_bmad-output/.runs/{branch}/{run_id}/state.json` (newest run, branch main by default)",
    remote: works(W.memory, "reads seed 001's runs from every workspace the caller can see"),
    bridge: works(N.memory, "lists seed 001's runs on every branch and reads a run's state by branch and id, newest by default"),
  },
  {
    id: "001-12", seed: "001", feature: "`get_workflow_status` of the newest `bmad-task` session, with its role prompt to resume from",
    remote: works(W.sessions, "show status, the newest session and queued sub-tasks"),
    bridge: works(N.seedRows, DELIVERY_WALK_BRIDGE),
  },
  {
    id: "001-13", seed: "001", feature: "`list_sessions` with `status` (all, active, completed, failed)",
    remote: works(W.memory, "reads seed 001's runs from every workspace the caller can see"),
    bridge: works(N.memory, "lists seed 001's runs on every branch and reads a run's state by branch and id, newest by default"),
  },
  {
    id: "001-14", seed: "001", feature: "`get_failure_museum` with `category` (CC-FAIL, WRONG-ASSUMPTION, CONTEXT-LOSS, HALLUCINATION, ARCH-MISTAKE, PROCESS-SKIP)",
    remote: works(W.memory, "indexes hand-edited learnings and the failure museum, again when they change, reporting broken lines"),
    bridge: works(N.memory, "orders the failure museum by severity, then recency"),
  },
  {
    id: "001-15", seed: "001", feature: "`get_failure_museum` `top_n`: the most critical first",
    remote: works(W.seedRows, "gives get_failure_museum's top_n most critical failures first"),
    bridge: works(N.memory, "orders the failure museum by severity, then recency"),
  },
  {
    id: "001-16", seed: "001", feature: "`spawn_subagent_task` queues a sub-task (agent, task, context_files, output_key, run_id)",
    remote: works(W.sessions, "show status, the newest session and queued sub-tasks"),
    bridge: works(N.fileSessions, "queues sub-tasks on the session"),
  },
  {
    id: "001-17", seed: "001", feature: "`remember_structured` into typed collections (shared-context, decisions, agent-learnings, failures, stories), idempotent by UUIDv5",
    remote: works(W.memory, "stores the same memory once with the same id, and keeps it across a restart"),
    bridge: works(N.memory, "stores the same memory once, with the same id, as one sorted JSON line"),
  },
  {
    id: "001-18", seed: "001", feature: "`remember_structured` `tags`",
    remote: works(W.memory, "writes remembered memories into the workspace's structured files, which bmad-files and pull serve"),
    bridge: works(N.memory, "stores the same memory once, with the same id, as one sorted JSON line"),
  },
  {
    id: "001-19", seed: "001", feature: "`recall_structured`: ranked search across collections, with `type`, `agent` and `limit` (default 5)",
    remote: works(W.memory, "reaches precision@5 of at least 0.8 on the labelled recall set"),
    bridge: works(N.memory, "reaches precision@5 of at least 0.8 on the labelled recall set"),
  },
  {
    id: "001-20", seed: "001", feature: "Semantic recall (the seed's Qdrant/mem0 vectors)",
    remote: works(W.memory, "fuses BM25 with vector similarity, and says when it fell back to BM25 alone"),
    bridge: refused("offline, with no embedding model or vector store on the machine: recall ranks by BM25 and says so (mode bm25); vector recall is the remote's, where Vectorize and Workers AI are bound", proof(N.memory, "stores the same memory once, with the same id, as one sorted JSON line")),
  },
  {
    id: "001-21", seed: "001", feature: "Memory kept with the project (`_bmad/_memory/`), travelling with it",
    remote: works(W.memory, "writes remembered memories into the workspace's structured files, which bmad-files and pull serve"),
    bridge: works(N.memory, "stores the same memory once, with the same id, as one sorted JSON line"),
  },
  {
    id: "001-22", seed: "001", feature: "`delegate_to_agent` through MCP sampling, the agent's persona as system prompt",
    remote: works(W.memory, "asks a 2026-07-28 client that answers sampling, with the persona from the bundle"),
    bridge: works(N.memory, "asks a client that offers sampling, with the agent's persona from the bundle as the system prompt"),
  },
  {
    id: "001-23", seed: "001", feature: "`delegate_to_agent` without sampling: the persona-framed task for the caller to run",
    remote: works(W.memory, "gives a 2025-era client, which a stateless server cannot ask, the persona-framed task"),
    bridge: works(N.memory, "returns the persona-framed task to a client without sampling, and says so"),
  },
  {
    id: "001-24", seed: "001", feature: "`delegate_to_agent` `max_tokens` (default 2048)",
    remote: works(W.memory, "asks a 2026-07-28 client that answers sampling, with the persona from the bundle"),
    bridge: works(N.memory, "asks a client that offers sampling, with the agent's persona from the bundle as the system prompt"),
  },
  {
    id: "001-25", seed: "001", feature: "`delegate_to_agent` `agent_id` analyst, architect, qa, sm, tech-writer",
    remote: works(W.seedRows, "delegates to the seed's analyst, architect, qa, sm and tech-writer"),
    bridge: works(N.seedRows, "delegates to the seed's analyst, architect, qa, sm and tech-writer"),
  },
  {
    id: "001-26", seed: "001", feature: "stdio transport (the default)",
    remote: refused("a remote server is reached over HTTP; `bmad-mcp --remote URL` gives a stdio client the remote's content and sessions", proof(N.remote, "signs in through the browser, keeps sessions on the remote and runs file-system tools locally")),
    bridge: works(N.bridge, "serves a 2026-07-28 client as well as a 2025 one"),
  },
  {
    id: "001-27", seed: "001", feature: "HTTP transport for several IDEs at once (roadmap v1.1)",
    remote: works(N.conformance, "passes %s"),
    bridge: works(N.http, "serves two clients at once, 2025 and 2026-07-28, with the stdio bridge's tools"),
  },
  {
    id: "001-28", seed: "001", feature: "HTTP: Host and Origin checked (DNS rebinding)",
    remote: works(W.badInput, "refuses a foreign Origin or Host with 403"),
    bridge: works(N.http, "answers a loopback Origin and refuses a foreign Origin or Host with 403"),
  },
  {
    id: "001-29", seed: "001", feature: "`BMAD_PROJECT_ROOT` names the project (Claude Desktop `env`)",
    remote: refused("no project folder on the Worker: the project tools take `project`, a workspace (bmad-project)", proof(W.memory, "uses the only project the caller owns when none is named")),
    bridge: works(N.memory, "takes the project root from BMAD_PROJECT_ROOT and says so on stderr"),
  },
  {
    id: "001-30", seed: "001", feature: "Set up in an MCP client (`mcpServers` command and args)",
    remote: works(N.authOidc, "signs a user in through the provider, serves MCP under their identity, and refreshes"),
    bridge: works(N.npmPackage, "answers tools/list and prompts/list over stdio through `npx bmad-mcp`"),
  },
  {
    id: "001-31", seed: "001", feature: "`--test`: check the server and the project, exit non-zero naming what is wrong",
    remote: refused("a check of a local project by the local CLI; a deployment is checked by npm run deploy's dry run", proof(N.deploy, "writes the Worker script with wrangler deploy --dry-run --outdir")),
    bridge: works(N.selfTest, "fails with exit 1 naming a manifest row whose skill is gone and a changed BMAD script"),
  },
  {
    id: "001-32", seed: "001", feature: "`search_codebase` (roadmap v1.2)",
    remote: refused(`${NO_PROJECT_DISK}: it never sees the project's code`),
    bridge: missing("a roadmap line in seed 001 with no specification beyond its name; not built"),
  },
  {
    id: "001-33", seed: "001", feature: "`create_delivery_contract` (roadmap v1.3)",
    remote: missing("a roadmap line in seed 001 with no specification beyond its name; not built (bmad-task's artifacts hold a session's outputs)"),
    bridge: missing("a roadmap line in seed 001 with no specification beyond its name; not built (bmad-task's artifacts hold a session's outputs)"),
  },
  {
    id: "001-34", seed: "001", feature: "Agent2Agent protocol (roadmap v2.2)",
    remote: missing("a roadmap line in seed 001 with no specification beyond its name; not built"),
    bridge: missing("a roadmap line in seed 001 with no specification beyond its name; not built"),
  },

  // Seed 002: the file proxy: prompts, the six proxy tools, manifest resources, path and secret rules.
  {
    id: "002-01", seed: "002", feature: "A prompt per agent, `/bmad-{agent}` (`/bmad-analyst`)",
    remote: works(W.surface, "offers bmad-{agent} for the 6.12 agents and one prompt per workflow"),
    bridge: works(N.bridge, "serves a 2026-07-28 client as well as a 2025 one"),
  },
  {
    id: "002-02", seed: "002", feature: "A prompt serves the agent's raw files with loading instructions (no parsing, no merging)",
    remote: works(W.surface, "serves the raw agent files with loading instructions and the optional message"),
    bridge: works(N.bridge, "writes each response as one ASCII line that decodes to the files' own characters"),
  },
  {
    id: "002-03", seed: "002", feature: "`list_workflows` (name, description, module, category)",
    remote: works(W.surface, "lists workflows with structured content, filtered by module and category"),
    bridge: works(N.contentRoots, "goes into the bundle manifest and every workflow answer, on both doors"),
  },
  {
    id: "002-04", seed: "002", feature: "`list_workflows` `category` (analysis, planning, solutioning, implementation)",
    remote: works(W.surface, "lists workflows with structured content, filtered by module and category"),
    bridge: works(N.seedRows, "lists workflows by category, details one, and executes it from its raw files with its params"),
  },
  {
    id: "002-05", seed: "002", feature: "`list_workflows` `module` (core, bmm); an unknown module names the ones there are",
    remote: works(W.badInput, "agents, workflows and tasks"),
    bridge: works(N.contentRoots, "goes into the bundle manifest and every workflow answer, on both doors"),
  },
  {
    id: "002-06", seed: "002", feature: "Workflow metadata carries `author` and `path` (FR2.3)",
    remote: works(N.contentRoots, "goes into the bundle manifest and every workflow answer, on both doors"),
    bridge: works(N.contentRoots, "goes into the bundle manifest and every workflow answer, on both doors"),
  },
  {
    id: "002-07", seed: "002", feature: "`get_workflow_details(workflow_name)`",
    remote: works(W.surface, "details and executes a workflow from its raw files"),
    bridge: works(N.contentRoots, "goes into the bundle manifest and every workflow answer, on both doors"),
  },
  {
    id: "002-08", seed: "002", feature: "`execute_workflow`: the raw workflow files with execution instructions",
    remote: works(W.surface, "details and executes a workflow from its raw files"),
    bridge: works(N.seedRows, "lists workflows by category, details one, and executes it from its raw files with its params"),
  },
  {
    id: "002-09", seed: "002", feature: "`execute_workflow` `params` passed on",
    remote: works(W.surface, "details and executes a workflow from its raw files"),
    bridge: works(N.seedRows, "lists workflows by category, details one, and executes it from its raw files with its params"),
  },
  {
    id: "002-10", seed: "002", feature: "Classic and v6-alpha workflows come with the engine file (`core/tasks/workflow.xml`)",
    remote: works(N.contentRoots, "comes with a v6-alpha workflow rendered for a workspace, and on the bridge where the project lacks it"),
    bridge: works(N.contentRoots, "comes with a v6-alpha workflow rendered for a workspace, and on the bridge where the project lacks it"),
  },
  {
    id: "002-11", seed: "002", feature: "Variables and paths resolved for the project (FR3.4: `{project-root}`, config values)",
    remote: works(W.runtime, "renders every prompt, and every deprecated shim by name, with the project, with no placeholder left"),
    bridge: works(N.runtime, "renders every prompt for %s with no placeholder left"),
  },
  {
    id: "002-12", seed: "002", feature: "Lazy loading: deeper files are `bmad://` links, loaded when needed",
    remote: works(W.surface, "lists deeper files as bmad:// links instead of inlining them"),
    bridge: works(N.seedRows, "lists deeper files as bmad:// links instead of inlining them"),
  },
  {
    id: "002-13", seed: "002", feature: "`list_tasks` (task-manifest.csv)",
    remote: works(W.seedRows, "lists the bundle's tasks and runs one with its params, and reads bmad://manifests/tasks"),
    bridge: works(N.seedRows, "lists the tasks of the project's task manifest and runs one with its params"),
  },
  {
    id: "002-14", seed: "002", feature: "`execute_task(task_name, params)`",
    remote: works(W.seedRows, "lists the bundle's tasks and runs one with its params, and reads bmad://manifests/tasks"),
    bridge: works(N.seedRows, "lists the tasks of the project's task manifest and runs one with its params"),
  },
  {
    id: "002-15", seed: "002", feature: "`get_knowledge(domain)`: testarch, architecture, patterns",
    remote: works(W.seedRows, "loads a knowledge domain, and names the domains there are for one it lacks"),
    bridge: works(N.seedRows, "loads a knowledge domain, and names the domains there are for one it lacks"),
  },
  {
    id: "002-16", seed: "002", feature: "`bmad://manifests/agents` (CSV, classic columns, every layout)",
    remote: works(W.surface, "generates classic CSV manifests for the skills layout"),
    bridge: works(N.seedRows, "lists every file once across pages after the generated resources, and reads the manifests and the config"),
  },
  {
    id: "002-17", seed: "002", feature: "`bmad://manifests/workflows`",
    remote: works(W.seedRows, "reads bmad://manifests/workflows: a classic row per workflow"),
    bridge: works(N.seedRows, "lists every file once across pages after the generated resources, and reads the manifests and the config"),
  },
  {
    id: "002-18", seed: "002", feature: "`bmad://manifests/tasks`",
    remote: works(W.seedRows, "lists the bundle's tasks and runs one with its params, and reads bmad://manifests/tasks"),
    bridge: works(N.seedRows, "lists the tasks of the project's task manifest and runs one with its params"),
  },
  {
    id: "002-19", seed: "002", feature: "`bmad://config/current`: the active configuration",
    remote: works(W.surface, "serves the configuration as JSON"),
    bridge: works(N.seedRows, "lists every file once across pages after the generated resources, and reads the manifests and the config"),
  },
  {
    id: "002-20", seed: "002", feature: "Configuration sanitised: secret-looking keys (api_key, token, password) removed",
    remote: works(W.configSecrets, "without its secrets, through resources/read and bmad-resources"),
    bridge: works(N.servedConfig, "serves every config-shaped project file without its secrets"),
  },
  {
    id: "002-21", seed: "002", feature: "Path validation: a path that leaves the BMAD root is refused",
    remote: works(W.badInput, "via resources/read and bmad-resources"),
    bridge: works(N.bridge, "refuses a symlink that leaves the project, naming it, and still serves the rest of the project"),
  },
  {
    id: "002-22", seed: "002", feature: "Fail-safe: a missing or broken manifest gives empty lists and a clear message, never a crash",
    remote: works(W.surface, "says plainly when a bundle has no tasks or knowledge"),
    bridge: works(N.bridge, "skips a malformed customize.toml with a warning naming it, serving everything else"),
  },
  {
    id: "002-23", seed: "002", feature: "Read-only BMAD access: the server never writes BMAD's own files",
    remote: works(W.seedRows, "are never written: not by bmad-files, not by a script bmad-run runs, not by a skill-root path"),
    bridge: partial("BMAD 6.12's skills write into _bmad/ themselves (memlogs, custom/), so bmad-files and bmad-run may; scripts and the install record that vouches for them are never written", proof(N.safety, "never writes a script or what vouches for one")),
  },
  {
    id: "002-24", seed: "002", feature: "Command execution: no workflow or model-written command runs",
    remote: works(W.runtime, "runs brain.py's library commands here, and answers other own scripts with where they run and the skill's fallback"),
    bridge: works(N.safety, "runs a script with no port only when BMAD vouches for its bytes, or the user allowed their own"),
  },
  {
    id: "002-25", seed: "002", feature: "Manifest-driven discovery: the lists follow the content, nothing hard-coded",
    remote: works(W.surface, "offers bmad-{agent} for the 6.12 agents and one prompt per workflow"),
    bridge: works(N.bridge, "serves a classic 6.0.4 installed project: every agent of its manifest"),
  },
  {
    id: "002-26", seed: "002", feature: "Caching: a rendered prompt or answer is kept and served again",
    remote: works(W.surface, "renders a prompt without a message once, and serves it again from the isolate's cache"),
    bridge: works(N.bridge, "serves the project's own agent over the embedded one, and picks up an edit on the next call"),
  },
  {
    id: "002-27", seed: "002", feature: "Hot reload: an edited BMAD file is served without a restart",
    remote: works(N.faults, "serves the old bundle or the new one whole while its pointer flips"),
    bridge: works(N.bridge, "serves the project's own agent over the embedded one, and picks up an edit on the next call"),
  },
  {
    id: "002-28", seed: "002", feature: "Clients told when the lists change (`notifications/*/list_changed`)",
    remote: refused("the Worker answers each request statelessly, with no standing stream to notify on; a new bundle shows in the next list"),
    bridge: works(N.listChanged, "declares listChanged, tells of a new skill once, and says nothing of an edited body"),
  },
  {
    id: "002-29", seed: "002", feature: "Performance targets (list_prompts < 100 ms, get_prompt < 1 s, list_workflows < 500 ms, execute_workflow < 2 s)",
    remote: works(N.budgets, "meets seed 002's performance targets for prompts and workflows"),
    bridge: works(N.budgets, "meets seed 002's performance targets for prompts and workflows"),
  },

  // Seed 003: bmad-task, the PO -> Architect -> SM -> Dev -> Review -> QA delivery session.
  {
    id: "003-01", seed: "003", feature: "`start`: session_id, task_name, the stage's role prompt and engines",
    remote: works(W.sessions, "walks all six stages with clarification, both engines at po, approval and artifacts"),
    bridge: works(N.bridge, "keeps offline sessions in the project, with artifacts where seed 003 puts them"),
  },
  {
    id: "003-02", seed: "003", feature: "Task names: the objective slugged (lower case, at most 50 characters), made unique with -1, -2",
    remote: works(W.sessions, "give each owner unique task names"),
    bridge: works(N.fileSessions, "makes task names unique and resolves them"),
  },
  {
    id: "003-03", seed: "003", feature: "Role prompts built from the real agent and workflow files",
    remote: works(W.sessions, "walks all six stages with clarification, both engines at po, approval and artifacts"),
    bridge: works(N.bridge, "keeps offline sessions in the project, with artifacts where seed 003 puts them"),
  },
  {
    id: "003-04", seed: "003", feature: "`submit` with `claude_result` and/or `codex_result`; with both, the higher score wins",
    remote: works(W.sessions, "walks all six stages with clarification, both engines at po, approval and artifacts"),
    bridge: works(N.fileSessions, "walks all six stages and leaves the seed 003 layout on disk"),
  },
  {
    id: "003-05", seed: "003", feature: "Engines per stage: both at PO and Architect when the objective says codex, codex for Dev, Review, QA",
    remote: works(W.sessions, "walks all six stages with clarification, both engines at po, approval and artifacts"),
    bridge: works(N.seedRows, DELIVERY_WALK_BRIDGE),
  },
  {
    id: "003-06", seed: "003", feature: "Score extraction: JSON `quality_score`, then `Quality Score: N/100`, then an estimate of at most 85",
    remote: works(W.sessions, "walks all six stages with clarification, both engines at po, approval and artifacts"),
    bridge: works(N.fileSessions, "walks all six stages and leaves the seed 003 layout on disk"),
  },
  {
    id: "003-07", seed: "003", feature: "Clarification: questions, `answer` with matching ids, then `refining`",
    remote: works(W.sessions, "walks all six stages with clarification, both engines at po, approval and artifacts"),
    bridge: works(N.fileSessions, "walks all six stages and leaves the seed 003 layout on disk"),
  },
  {
    id: "003-08", seed: "003", feature: "Quality gate: a score of 90 or more reaches `awaiting_confirmation`",
    remote: works(W.sessions, "walks all six stages with clarification, both engines at po, approval and artifacts"),
    bridge: works(N.fileSessions, "walks all six stages and leaves the seed 003 layout on disk"),
  },
  {
    id: "003-09", seed: "003", feature: "`confirm` saves the artifact and moves to the next stage in one step",
    remote: works(W.sessions, "walks all six stages with clarification, both engines at po, approval and artifacts"),
    bridge: works(N.bridge, "keeps offline sessions in the project, with artifacts where seed 003 puts them"),
  },
  {
    id: "003-10", seed: "003", feature: "`confirm_save`, the legacy alias of `confirm`",
    remote: works(W.sessions, "walks all six stages with clarification, both engines at po, approval and artifacts"),
    bridge: works(N.seedRows, DELIVERY_WALK_BRIDGE),
  },
  {
    id: "003-11", seed: "003", feature: "`reject` with the user's reason: back to drafting, the rejected draft kept as a version",
    remote: works(W.sessions, "sends a draft back with the user's reason, shows it in the next prompt and keeps the draft as a version"),
    bridge: works(N.delivery, "rejects a draft with the user's reason, revises it, and keeps the rejected draft out of .claude/specs"),
  },
  {
    id: "003-12", seed: "003", feature: "`approve` at the SM stage (`awaiting_approval`)",
    remote: works(W.sessions, "walks all six stages with clarification, both engines at po, approval and artifacts"),
    bridge: works(N.fileSessions, "walks all six stages and leaves the seed 003 layout on disk"),
  },
  {
    id: "003-13", seed: "003", feature: "Dev waits for the sprint scope (`specify_sprint_scope_then_generate`), with the plan's sprints listed",
    remote: works(W.sessions, "walks all six stages with clarification, both engines at po, approval and artifacts"),
    bridge: works(N.seedRows, DELIVERY_WALK_BRIDGE),
  },
  {
    id: "003-14", seed: "003", feature: "Each stage reads the earlier stages' artifacts",
    remote: works(W.sessions, "walks all six stages with clarification, both engines at po, approval and artifacts"),
    bridge: works(N.seedRows, DELIVERY_WALK_BRIDGE),
  },
  {
    id: "003-15", seed: "003", feature: "`status`: the session's light state",
    remote: works(W.sessions, "show status, the newest session and queued sub-tasks"),
    bridge: works(N.seedRows, DELIVERY_WALK_BRIDGE),
  },
  {
    id: "003-16", seed: "003", feature: "Answer fields: requires_user_confirmation, interaction_type, user_message, pending_user_actions, current_state",
    remote: works(W.sessions, "walks all six stages with clarification, both engines at po, approval and artifacts"),
    bridge: works(N.seedRows, DELIVERY_WALK_BRIDGE),
  },
  {
    id: "003-17", seed: "003", feature: "An action the state does not allow is refused, naming the allowed ones",
    remote: works(W.sessions, "refuses actions the state does not allow, naming the allowed ones"),
    bridge: works(N.fileSessions, "walks all six stages and leaves the seed 003 layout on disk"),
  },
  {
    id: "003-18", seed: "003", feature: "`completed` after QA",
    remote: works(W.sessions, "walks all six stages with clarification, both engines at po, approval and artifacts"),
    bridge: works(N.fileSessions, "walks all six stages and leaves the seed 003 layout on disk"),
  },
  {
    id: "003-19", seed: "003", feature: "Artifacts `01-product-requirements.md` … `05-qa-report.md` under `.claude/specs/{task_name}/`",
    remote: works(W.sessionProject, "writes each confirmed artifact into the project as well, by the one who confirmed it"),
    bridge: works(N.bridge, "keeps offline sessions in the project, with artifacts where seed 003 puts them"),
  },
  {
    id: "003-20", seed: "003", feature: "Session state in `.bmad-task/session-{id}.json`, names in `task-mapping.json`",
    remote: refused(`${NO_PROJECT_DISK}: each session is a Durable Object (SQLite) and an index per owner maps task names; bmad-task status and get_workflow_status show the state`, proof(W.sessions, "show status, the newest session and queued sub-tasks")),
    bridge: works(N.fileSessions, "walks all six stages and leaves the seed 003 layout on disk"),
  },
  {
    id: "003-21", seed: "003", feature: "Content references: large results kept in `.bmad-task/temp/{session_id}/`, the state holding references",
    remote: refused(`${NO_PROJECT_DISK}: results are kept in the session's Durable Object; artifacts are resources (bmad://sessions/{id}/artifacts/{file})`, proof(W.sessions, "walks all six stages with clarification, both engines at po, approval and artifacts")),
    bridge: works(N.fileSessions, "walks all six stages and leaves the seed 003 layout on disk"),
  },
  {
    id: "003-22", seed: "003", feature: "Gap analysis: a draft below 90 gets its missing and weak sections with their point values",
    remote: works(W.sessions, "answers a draft stuck below the gate with no gaps of its own with the rubric's missing and weak sections"),
    bridge: works(N.delivery, "answers an architecture draft below the gate with the architect rubric's missing and weak sections"),
  },

  // Seed 004: API contracts: agent tools, bmad-workflow, bmad-resources, bmad:// resources, git sources, errors.
  {
    id: "004-01", seed: "004", feature: "A tool per agent (`{module}-{agent}` / `bmad-{agent}`) taking `message` (opt-in `agents` toolset)",
    remote: works(W.surface, "adds one tool per agent, named like its prompt, with ?toolsets=agents"),
    bridge: works(N.seedRows, "adds one tool per agent, named like its prompt, each taking a message"),
  },
  {
    id: "004-02", seed: "004", feature: "`bmad-workflow` runs a workflow by name (without `*`)",
    remote: works(W.runtime, "fills in the project's config and tells the model where to write"),
    bridge: works(N.seedRows, "runs a workflow by name with bmad-workflow, its context under a Context heading"),
  },
  {
    id: "004-03", seed: "004", feature: "`bmad-workflow` `context`",
    remote: works(W.seedRows, "runs a workflow for a workspace with bmad-workflow, its context under a Context heading"),
    bridge: works(N.seedRows, "runs a workflow by name with bmad-workflow, its context under a Context heading"),
  },
  {
    id: "004-04", seed: "004", feature: "`bmad-resources` `read` a `bmad://` URI",
    remote: works(W.surface, "reads files, lists by glob and shows modules, agents and workflows"),
    bridge: works(N.servedConfig, "serves every config-shaped project file without its secrets"),
  },
  {
    id: "004-05", seed: "004", feature: "`bmad-resources` `list` with a glob `pattern`",
    remote: works(W.surface, "reads files, lists by glob and shows modules, agents and workflows"),
    bridge: works(N.servedConfig, "serves every config-shaped project file without its secrets"),
  },
  {
    id: "004-06", seed: "004", feature: "`bmad-resources` `modules`",
    remote: works(W.surface, "reads files, lists by glob and shows modules, agents and workflows"),
    bridge: works(N.seedRows, "shows modules with bmad-resources"),
  },
  {
    id: "004-07", seed: "004", feature: "`bmad-resources` `agents`",
    remote: works(W.surface, "reads files, lists by glob and shows modules, agents and workflows"),
    bridge: works(N.bridge, "serves a classic 6.0.4 installed project: every agent of its manifest"),
  },
  {
    id: "004-08", seed: "004", feature: "`bmad-resources` `workflows`",
    remote: works(W.surface, "reads files, lists by glob and shows modules, agents and workflows"),
    bridge: works(N.contentRoots, "goes into the bundle manifest and every workflow answer, on both doors"),
  },
  {
    id: "004-09", seed: "004", feature: "`bmad-resources` `search` by name, title and description (and body)",
    remote: works(W.surface, "finds prd for 'product requirements'"),
    bridge: works(N.bridge, "serves the project's own agent over the embedded one, and picks up an edit on the next call"),
  },
  {
    id: "004-10", seed: "004", feature: "`resources/list`: every file as `bmad://{path}`, paginated",
    remote: works(W.surface, "lists every bundle file once, across pages, after the generated resources"),
    bridge: works(N.seedRows, "lists every file once across pages after the generated resources"),
  },
  {
    id: "004-11", seed: "004", feature: "`resources/read` with the MIME type by extension (md, yaml, json, xml, csv, else text/plain)",
    remote: works(W.surface, "reads a file with its MIME type"),
    bridge: works(N.bridge, "writes each response as one ASCII line that decodes to the files' own characters"),
  },
  {
    id: "004-12", seed: "004", feature: "Errors with suggestions: unknown agents, workflows, prompts, URIs answer with the closest names",
    remote: works(W.skills, "answers skills/get, resources/read and directory reads with data.suggestions"),
    bridge: works(N.bridge, "serves a 2026-07-28 client as well as a 2025 one"),
  },
  {
    id: "004-13", seed: "004", feature: "URI sanitising: `..`, encoded escapes and foreign schemes refused",
    remote: works(W.badInput, "via resources/read and bmad-resources"),
    bridge: works(N.seedRows, "via resources/read and bmad-resources"),
  },
  {
    id: "004-14", seed: "004", feature: "Git sources `git+https://…#ref:/subpath`",
    remote: works(N.buildGit, "builds from file://repo.git#tag:/subdir"),
    bridge: works(N.git, "serves the tree at the ref and subdir, caches it, and lists and clears the cache"),
  },
  {
    id: "004-15", seed: "004", feature: "A git source with a bad URL or ref is refused clearly",
    remote: works(N.buildGit, "fails clearly on a bad ref"),
    bridge: works(N.git, "stops with exit 2 naming a ref the repository lacks"),
  },
  {
    id: "004-16", seed: "004", feature: "Git cache: list and clear",
    remote: refused(NO_GIT),
    bridge: works(N.git, "serves the tree at the ref and subdir, caches it, and lists and clears the cache"),
  },
  {
    id: "004-17", seed: "004", feature: "Git operations time out (configurable)",
    remote: refused(NO_GIT),
    bridge: works(N.git, "kills a fetch that hangs at --git-timeout, with everything git started"),
  },
  {
    id: "004-18", seed: "004", feature: "Content tools are read-only (`readOnlyHint`)",
    remote: works(W.surface, "serves exactly the default toolsets' tools, read-only unless they change state, within 8 KB"),
    bridge: works(N.seedRows, "marks content tools read-only and the tools that change state not"),
  },
  {
    id: "004-19", seed: "004", feature: "JSON-RPC 2.0 and the MCP protocol (initialize, lists, errors, notifications)",
    remote: works(N.conformance, "passes %s"),
    bridge: works(N.bridge, "writes each response as one ASCII line that decodes to the files' own characters"),
  },
];
