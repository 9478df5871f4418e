// What a tool handler may use: the bundle, the caller's identity and, where the front door has them,
// sessions and the project's own files.
import type { SessionStore } from "../delivery/store.js";
import type { ProjectMemory } from "../memory/store.js";
import type { ProjectRuntime } from "../runtime/project.js";
import type { WorkspaceFiles, WorkspaceStore } from "../workspace/store.js";
import type { BundleReader } from "./reader.js";
import type { Result } from "../result.js";

export const CONTEXT_SECTIONS = ["all", "stack", "agents", "decisions", "architecture"] as const;
export type ContextSection = (typeof CONTEXT_SECTIONS)[number];

export const STACKS = ["auto", "go", "typescript", "python", "terraform", "ansible", "docker", "k8s"] as const;
export type Stack = (typeof STACKS)[number];

export interface ContractRun {
  status: "PASS" | "FAIL";
  output: string;
  duration_ms: number;
}

/** The project's files: only the bridge, which runs beside them, has this. */
export interface ProjectFiles {
  /** `signal` aborts when the client cancels: the script and everything it started must be killed. */
  runCompletionContract(stack: Stack, workingDir?: string, signal?: AbortSignal): Promise<Result<{ value: ContractRun }>>;
  /** `remembers`: the caller has remember_structured, which an empty context's note then names. */
  projectContext(section: ContextSection, remembers: boolean): Promise<Result<{ value: Record<string, unknown> }>>;
}

/** A project's memory and files (seed 001's `_bmad/_memory/`, `_bmad-output/.runs/`). */
export type MemoryAccess = Result<{ project: string; memory: ProjectMemory; files: WorkspaceFiles; /** Whose it is, when shared with the caller. */ owner?: string }>;

export interface SurfaceDeps {
  /** Read on every request: a front door may swap it (the bridge, after a project file changes). */
  reader: BundleReader;
  /** The signed-in user; a fixed local owner where there is no sign-in. */
  owner: string;
  /** The caller's token may change nothing (the remote, without bmad:write): the views offer no changes. */
  readOnly?: boolean;
  sessions?: SessionStore;
  project?: ProjectFiles;
  /** The project a skill runs in: `{project-root}`, its files and BMAD's scripts. The bridge has one
   *  (its project directory; `project` is ignored); the remote has one per workspace, by name, checked first
   *  unless `lazy` (then the runtime's `refused` tells whether a file call found no such project); `preload`: project
   *  paths a render reads, fetched with that check in one call where the store can. */
  runtime?: (project: string | undefined, options?: { lazy?: boolean; preload?: string[] }) => Promise<Result<{ runtime: ProjectRuntime }>>;
  /** The caller's project workspaces (the remote); the bridge has none: its project is a directory. */
  workspaces?: WorkspaceStore;
  /** Project memory: the bridge's project folder (`project` is ignored); on the remote a workspace by name,
   *  or the caller's only one. */
  memory?: (project: string | undefined) => Promise<MemoryAccess>;
  /** Awaited before each request, e.g. to finish reloading edited project files. */
  ready?: () => Promise<void>;
  /** Calls `listener` with the bundle before and after each reload (the bridge, after project files change);
   *  returns what stops it. A server given this tells its client when a reload changes its lists. */
  onReload?: (listener: (before: BundleReader, after: BundleReader) => void) => () => void;
}
