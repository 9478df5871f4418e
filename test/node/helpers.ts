// Shared test helpers: temp dirs, the offline BMAD installers, counting things in real trees.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { csv } from "../../scripts/bundle/parse";

const run = promisify(execFile);
export const ROOT = resolve(import.meta.dirname, "../..");
export const PKG = join(ROOT, "node_modules");

export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `bmad-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs a BMAD installer into `dir` (argument array, stdin ignored). */
export async function install(kind: "v6.12" | "v6.0" | "v4", dir: string): Promise<void> {
  const argv =
    kind === "v6.12"
      ? [join(PKG, "bmad-method/tools/installer/bmad-cli.js"), "install", "--directory", dir, "--modules", "bmm", "--tools", "claude-code", "--yes"]
      : kind === "v6.0"
        ? [join(PKG, "bmad-v6-classic/tools/cli/bmad-cli.js"), "install", "--directory", dir, "--modules", "bmm", "--tools", "claude-code", "--yes"]
        : [join(PKG, "bmad-v4/tools/installer/bin/bmad.js"), "install", "--full", "--directory", dir, "--ide", "claude-code"];
  mkdirSync(dir, { recursive: true });
  const child = run(process.execPath, argv, { cwd: dir, maxBuffer: 16 << 20 });
  child.child.stdin?.end();
  await child;
}

export function csvRows(file: string): Array<Record<string, string>> {
  const parsed = csv(readFileSync(file, "utf8"));
  if (!parsed.ok) throw new Error(`${file}: ${parsed.error}`);
  return parsed.value;
}

/** Every file named `name` below `dir` (skipping __pycache__). */
export function findFiles(dir: string, name: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === "__pycache__" || entry === "node_modules") continue;
    const p = join(dir, entry);
    if (statSync(p).isDirectory()) out.push(...findFiles(p, name));
    else if (entry === name) out.push(p);
  }
  return out;
}
