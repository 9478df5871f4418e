// Deploying, checked offline: `wrangler deploy --dry-run --outdir` builds the Worker exactly as `npm run deploy`
// would upload it, within 450 KiB gzip, and `wrangler check startup` profiles its startup within 100 ms of CPU.
// Built without esbuild's keep_names, it answers a tool call as the unminified Worker does.
// The README's walk-through names every KV namespace, bucket and secret the Worker binds.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { parse as parseToml } from "smol-toml";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { checkDeploy, DEPLOY_FLAGS, SCRIPT_GZIP_BUDGET, STARTUP_BUDGET_MS, type DeployCheck } from "../../scripts/deploy-check.js";
import { signIn } from "../../scripts/oauth-client.js";
import { TOOL } from "../../src/core/surface/names.js";
import { localWorker, ROOT, toolText } from "./helpers";

const text = (file: string) => readFileSync(join(ROOT, file), "utf8");

describe("npm run deploy, dry", () => {
  let check: DeployCheck;
  beforeAll(async () => {
    // The run's Worker (global-setup.ts), built as npm run deploy builds it.
    check = await checkDeploy({ enough: STARTUP_BUDGET_MS, built: dirname(inject("workerScript")) });
  }, 120_000);

  it("writes the Worker script with wrangler deploy --dry-run --outdir", () => {
    expect(check.modules).toContain("index.js");
    expect(check.scriptBytes).toBeGreaterThan(100_000);
  });

  it("keeps the script within 450 KiB gzip", () => {
    expect(check.gzipBytes).toBeLessThanOrEqual(SCRIPT_GZIP_BUDGET);
  });

  it("starts within 100 ms of CPU by wrangler check startup", () => {
    expect(check.startupMs, `runs: ${check.startupRuns.join(", ")} ms`).toBeLessThanOrEqual(STARTUP_BUDGET_MS);
  });

  it("ships no esbuild keep_names helper, which renamed every function and class at startup (27 KiB gzip)", () => {
    // esbuild's __name(fn, "name"), minified: wrangler.toml's keep_names = false leaves it out.
    const helper = /"name",\{value:[\w$]+,configurable:!0\}/.exec(readFileSync(inject("workerScript"), "utf8"));
    expect(helper?.[0]).toBeUndefined();
  });

  it("measures the flags npm run deploy passes", () => {
    const pkg = JSON.parse(text("package.json")) as { scripts: Record<string, string> };
    expect(pkg.scripts.deploy).toMatch(new RegExp(`wrangler deploy ${DEPLOY_FLAGS.join(" ")}$`));
  });
});

describe("the Worker as deployed, its names minified", () => {
  it("still refuses a bad tool argument with the field and its hint, and answers a good one with structured content", async () => {
    const worker = await localWorker();
    const client = new Client({ name: "deploy-test", version: "1.0.0" });
    try {
      const { access_token } = await signIn(fetch, worker.url.origin);
      await client.connect(new StreamableHTTPClientTransport(new URL("/mcp?toolsets=proxy", worker.url), { requestInit: { headers: { authorization: `Bearer ${access_token}` } } }));
      const refused = await client.callTool({ name: TOOL.listWorkflows, arguments: { module: 5 } });
      expect(refused.isError).toBe(true);
      expect(toolText(refused)).toBe('Invalid arguments for list_workflows: "module": Invalid input: expected string, received number (Filter by module, e.g. core, bmm).');
      // The tools advertise no outputSchema (tool.ts): a good call's structuredContent is what a program reads.
      const listed = await client.callTool({ name: TOOL.listWorkflows, arguments: { module: "core" } });
      expect(listed.isError).toBeFalsy();
      expect((listed.structuredContent as { workflows: Array<{ module: string }> }).workflows).toContainEqual(expect.objectContaining({ module: "core" }));
    } finally {
      await client.close();
      await worker.dispose();
    }
  }, 120_000);
});

describe("the docs' deploy walk-through", () => {
  const deploy = text("docs/deploy.md");
  const toml = parseToml(text("wrangler.toml")) as { kv_namespaces: Array<{ binding: string }>; r2_buckets: Array<{ bucket_name: string }> };

  it("creates every KV namespace and R2 bucket wrangler.toml binds", () => {
    for (const { binding } of toml.kv_namespaces) expect(deploy).toContain(`kv namespace create ${binding}`);
    for (const { bucket_name } of toml.r2_buckets) expect(deploy).toContain(`r2 bucket create ${bucket_name}`);
  });

  it("stores every secret the Worker reads with wrangler secret put", () => {
    const secrets = [...text("src/worker/env.ts").matchAll(/^\s+(\w+_SECRET)\??:/gm)].map((m) => m[1]!);
    expect(secrets.sort()).toEqual(["GITHUB_CLIENT_SECRET", "OIDC_CLIENT_SECRET"]);
    for (const secret of secrets) expect(deploy).toContain(`secret put ${secret}`);
  });
});
