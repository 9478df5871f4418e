import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { nodeProject, timedProject } from "./vitest.node.config.ts";
import workerd from "./vitest.worker.config.ts";

// `npm test`: both suites in one run. The node files run first, side by side; then the workerd files, in one
// worker (vitest runs projects with different numbers of workers one after the other); then, alone, the node
// files that hold a wall-clock budget (see vitest.node.config.ts). Each suite also runs alone with its own config.
const after = (base: TestProjectInlineConfiguration, groupOrder: number): TestProjectInlineConfiguration => ({ ...base, test: { ...base.test, sequence: { groupOrder } } });

export default defineConfig({
  test: {
    projects: [nodeProject, after(workerd as TestProjectInlineConfiguration, 1), timedProject(2)],
  },
});
