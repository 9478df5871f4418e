// CLI: npm run bundle -- [--source SPEC]... [--out DIR] [--no-default]
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBundle, summarize } from "../src/compiler/build";
import { buildViews } from "./build-views.js";

const USAGE = `usage: npm run bundle -- [--source [origin=]LOCATION]... [--out DIR] [--no-default]
  LOCATION: a directory, an npm package name in node_modules, or a git URL
            (git+https://host/repo.git#ref:/sub/dir, file:///path/repo.git, ./repo.git)
  origin:   project | cli | env | user | package (default: cli; package for npm names)
  --out     output directory (default: bmad-bundle)
  --no-default  leave out the bmad-method package (priority 5)`;

export interface CliArgs {
  sources: string[];
  out: string;
  includeDefault: boolean;
}

export function parseCli(argv: string[]): CliArgs {
  const args: CliArgs = { sources: [], out: "bmad-bundle", includeDefault: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] = a.startsWith("--") && a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "") throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag === "--source") args.sources.push(value());
    else if (flag === "--out") args.out = value();
    else if (flag === "--no-default" && inline === undefined) args.includeDefault = false;
    else if (flag === "--help" || flag === "-h") throw new Error("help");
    else throw new Error(`Unknown argument "${a}"`);
  }
  return args;
}

async function main(): Promise<void> {
  let args: CliArgs;
  try {
    args = parseCli(process.argv.slice(2));
  } catch (err) {
    const msg = (err as Error).message;
    if (msg === "help") {
      console.log(USAGE);
      return;
    }
    console.error(`${msg}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  try {
    const result = await buildBundle({
      sources: args.sources,
      outDir: args.out,
      includeDefault: args.includeDefault,
      views: await buildViews(),
      log: (line) => console.log(line),
      warn: (message) => console.warn(`warning: ${message}`),
    });
    for (const line of summarize(result)) console.log(line);
    console.log(`wrote ${args.out}/`);
  } catch (err) {
    console.error(`bundle failed: ${(err as Error).message}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
