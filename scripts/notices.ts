// The licence texts of the npm packages a build bundled: MIT and its kin ask for the notice to travel with
// every copy, and esbuild drops the comments that carried it (legalComments: "none").
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** `inputs` are paths relative to `root` (esbuild's metafile keys); each package under node_modules counts once. */
export function thirdPartyNotices(root: string, inputs: string[]): string {
  const dirs = new Set<string>();
  for (const input of inputs) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) dirs.add(m[1]!);
  }
  const sections = [...dirs].sort().map((dir) => {
    const pkg = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as { name: string; version: string; license?: string };
    const file = readdirSync(join(root, dir)).find((f) => /^(licen[cs]e|copying)(\.(md|txt))?$/i.test(f));
    const text = file ? readFileSync(join(root, dir, file), "utf8").trim() : `License: ${pkg.license ?? "see the package"}`;
    return `## ${pkg.name}@${pkg.version} (${pkg.license ?? "unknown"})\n\n${text}\n`;
  });
  return `# Third-party notices\n\nbmad-mcp bundles the following packages (and serves bmad-method's content).\n\n${sections.join("\n")}`;
}
