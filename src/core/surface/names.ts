// Tool, prompt and resource names are constants: tests and descriptions import them.
export const TOOL = {
  bmad: "bmad",
  listWorkflows: "list_workflows",
  getWorkflowDetails: "get_workflow_details",
  executeWorkflow: "execute_workflow",
  listTasks: "list_tasks",
  executeTask: "execute_task",
  getKnowledge: "get_knowledge",
  bmadWorkflow: "bmad-workflow",
  bmadResources: "bmad-resources",
  bmadTask: "bmad-task",
  getWorkflowStatus: "get_workflow_status",
  listSessions: "list_sessions",
  spawnSubagentTask: "spawn_subagent_task",
  getProjectContext: "get_project_context",
  runCompletionContract: "run_completion_contract",
  getAgentMemory: "get_agent_memory",
  getFailureMuseum: "get_failure_museum",
  rememberStructured: "remember_structured",
  recallStructured: "recall_structured",
  delegateToAgent: "delegate_to_agent",
  bmadRun: "bmad-run",
  bmadProject: "bmad-project",
  bmadFiles: "bmad-files",
  bmadMap: "bmad-map",
  bmadDoc: "bmad-doc",
  bmadBoard: "bmad-board",
  bmadSession: "bmad-session",
  bmadBrainstorm: "bmad-brainstorm",
} as const;

export const RESOURCE = {
  configCurrent: "bmad://config/current",
  manifestPrefix: "bmad://manifests/",
} as const;

/** How the user starts the bridge, wherever an answer names it: the npm name `bmad-mcp` is not this project's yet, so
 *  `npx bmad-mcp` would run a stranger's package (review 333; docs/bridge.md). Where it comes from in words no model
 *  reads as the user's project or a bmad:// file (review 470: "a clone of this project: docs/bridge.md" was looked for
 *  in the workspace and as bmad://docs/bridge.md). */
export const BRIDGE = {
  command: "node /path/to/bmad-mcp/dist/bridge.js",
  from: "built from this MCP server's source (its docs/bridge.md, not a file here)",
} as const;
