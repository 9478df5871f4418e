import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { nodeProject, timedProject } from "./vitest.node.config.ts";
import workerd, { FUZZ } from "./vitest.worker.config.ts";

// `npm test`: both suites in one run. The node files run first, side by side; then the workerd files, in one
// worker (vitest runs projects with different numbers of workers one after the other); then, alone, the node
// files that hold a wall-clock budget (see vitest.node.config.ts). Each suite also runs alone with its own config.
// The workerd fuzz file runs in a worker of its own, after the other workerd files (see FUZZ).
const after = (base: TestProjectInlineConfiguration, groupOrder: number): TestProjectInlineConfiguration => ({ ...base, test: { ...base.test, sequence: { groupOrder } } });
const workerdFiles = { ...workerd, test: { ...workerd.test, exclude: [...configDefaults.exclude, FUZZ] } } as TestProjectInlineConfiguration;
const workerdFuzz = { ...workerd, test: { ...workerd.test, name: "workerd (fuzz)", include: [FUZZ] } } as TestProjectInlineConfiguration;

export default defineConfig({
  test: {
    projects: [nodeProject, after(workerdFiles, 1), after(workerdFuzz, 2), timedProject(3)],
  },
});
