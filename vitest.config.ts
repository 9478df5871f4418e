import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import node from "./vitest.node.config.ts";
import workerd from "./vitest.worker.config.ts";

// `npm test`: both suites in one run, their files side by side. Files that hold a tight time budget (a hostile
// glob within 100 ms, a bundle build within 3 s, a timed-out contract answered within 1.5 s of its limit) run
// afterwards, one at a time, so the run's own parallel files do not spend their budget; so do the Worker's startup
// profile, and the npm package and .mcpb tests, which rebuild dist/ that the other files run. Each suite also
// runs alone with its own config file, budgets included.
const TIMED = {
  node: [
    "test/node/build-skills.test.ts",
    "test/node/bridge-served-config.test.ts",
    "test/node/bridge-contract.test.ts",
    "test/node/deploy.test.ts",
    "test/node/npm-package.test.ts",
    "test/node/mcpb.test.ts",
  ],
  workerd: ["test/worker/bad-input.test.ts"],
};

function split(base: TestProjectInlineConfiguration, timed: string[], after: number): TestProjectInlineConfiguration[] {
  const test = base.test!;
  return [
    { ...base, test: { ...test, exclude: [...configDefaults.exclude, ...timed] } },
    { ...base, test: { ...test, name: `${test.name} (timed)`, include: timed, maxWorkers: 1, sequence: { groupOrder: after } } },
  ];
}

export default defineConfig({
  test: {
    projects: [...split(node, TIMED.node, 1), ...split(workerd, TIMED.workerd, 2)],
  },
});
