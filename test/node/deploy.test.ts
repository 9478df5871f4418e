// Deploying, checked offline: `wrangler deploy --dry-run --outdir` builds the Worker exactly as `npm run deploy`
// would upload it, within 450 KiB gzip, and `wrangler check startup` profiles its startup within 100 ms of CPU.
// The README's walk-through names every KV namespace, bucket and secret the Worker binds.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { checkDeploy, DEPLOY_FLAGS, SCRIPT_GZIP_BUDGET, STARTUP_BUDGET_MS, type DeployCheck } from "../../scripts/deploy-check.js";
import { ROOT } from "./helpers";

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

  it("measures the flags npm run deploy passes", () => {
    const pkg = JSON.parse(text("package.json")) as { scripts: Record<string, string> };
    expect(pkg.scripts.deploy).toMatch(new RegExp(`wrangler deploy ${DEPLOY_FLAGS.join(" ")}$`));
  });
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
