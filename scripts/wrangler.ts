// Runs wrangler's JS entry under Node 22 (wrangler needs >= 22.12): the `node` devDependency when present.
// An argument array, never a shell string; telemetry and network lookups off.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");

/** The Node and wrangler entry to run, and its environment. */
export function wranglerCommand(): { node: string; entry: string; env: NodeJS.ProcessEnv } {
  const node22 = join(ROOT, "node_modules", "node", "bin", "node");
  return {
    node: existsSync(node22) ? node22 : process.execPath,
    entry: join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js"),
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  };
}

/** Resolves with what wrangler printed on stdout. */
export function runWrangler(args: string[]): Promise<string> {
  const { node, entry, env } = wranglerCommand();
  return new Promise((ok, fail) => {
    execFile(node, [entry, ...args], { cwd: ROOT, maxBuffer: 16 << 20, env }, (err, stdout, stderr) => {
      if (err) fail(new Error(`wrangler ${args.slice(0, 3).join(" ")} failed: ${(stderr || err.message).trim().split("\n").slice(-3).join(" ")}`));
      else ok(stdout);
    });
  });
}
