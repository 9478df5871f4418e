import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import node from "./vitest.node.config.ts";
import workerd from "./vitest.worker.config.ts";

// `npm test`: both suites in one run. The node files run first, side by side; then the workerd files, two at a time
// (vitest runs projects with different numbers of workers one after the other). Files that hold a wall-clock
// budget (the budgets themselves, the completion contract's timeouts, the Worker's startup profile) run last, one
// at a time, so that the run's own load does not spend it. Each suite also runs alone with its own config file.
const TIMED = ["test/node/budgets.test.ts", "test/node/bridge-contract.test.ts", "test/node/deploy.test.ts"];

const order = (base: TestProjectInlineConfiguration, groupOrder: number): TestProjectInlineConfiguration => ({ ...base, test: { ...base.test, sequence: { groupOrder } } });
const nodeTest = node.test!;

export default defineConfig({
  test: {
    projects: [
      { ...node, test: { ...nodeTest, exclude: [...configDefaults.exclude, ...TIMED] } },
      order(workerd, 1),
      { ...node, test: { ...nodeTest, name: "node (timed)", include: TIMED, maxWorkers: 1, sequence: { groupOrder: 2 } } },
    ],
  },
});
