// One way to write each of these, so that nobody writes a second: the result of a step that can fail, a YAML parse,
// the server's version, and the SDK's own types where a cast used to stand in for them.
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, inject, it } from "vitest";
import { SERVER_INFO } from "../../src/core/surface/server.js";
import { ROOT } from "./helpers";

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
}
const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

it("declares the { ok } | { ok: false, error } shape once, in src/core/result.ts", () => {
  const own = files(join(ROOT, "src"))
    .filter((f) => !f.endsWith("src/core/result.ts"))
    .filter((f) => /\{\s*ok:\s*false;\s*(\w+[?]?:[^;]+;\s*)*error:\s*string/.test(readFileSync(f, "utf8")));
  expect(own.map((f) => f.slice(ROOT.length + 1))).toEqual([]);
});

it("parses YAML in one bounded way, src/core/yaml.ts (review 14: two parsers of their own expanded aliases and checked keys in quadratic time)", () => {
  const own = files(join(ROOT, "src"))
    .filter((f) => !f.endsWith("src/core/yaml.ts"))
    .filter((f) => /import \{[^}]*\b(parse|parseAllDocuments|load)\b[^}]*\} from "yaml"/.test(readFileSync(f, "utf8")));
  expect(own.map((f) => f.slice(ROOT.length + 1))).toEqual([]);
});

it("parses TOML bounded wherever it parses it (review 19: dotted keys 20,000 levels deep overflowed the stack)", () => {
  const own = files(join(ROOT, "src"))
    .filter((f) => /import \{[^}]*\bparse\b[^}]*\} from "smol-toml"/.test(readFileSync(f, "utf8")))
    .filter((f) => !readFileSync(f, "utf8").includes("parseBoundedToml("));
  expect(own.map((f) => f.slice(ROOT.length + 1))).toEqual([]);
});

it("reads what a request sends through one capped reader, src/worker/read-capped.ts (reviews 15 and 19: bodies of any size were buffered whole)", () => {
  // The incoming request's body, read any other way (a clone, formData, json, text, arrayBuffer, Hono's c.req.*).
  const own = files(join(ROOT, "src/worker"))
    .filter((f) => !f.endsWith("src/worker/read-capped.ts"))
    .filter((f) => /\b(request|req|c\.req|c\.req\.raw)\.(clone\(\)|formData\(|json\(|text\(|arrayBuffer\(|blob\(|parseBody\()/.test(readFileSync(f, "utf8")));
  expect(own.map((f) => f.slice(ROOT.length + 1))).toEqual([]);
});

it("uses the SDK's types instead of casts that undo them", () => {
  for (const file of ["src/core/surface/tool.ts", "src/core/surface/server.ts", "src/worker/index.ts", "src/worker/mcp.ts", "src/core/surface/tools/delivery.tools.ts"]) {
    expect(readFileSync(join(ROOT, file), "utf8"), file).not.toMatch(/ as unknown as | as never\b/);
  }
});

it("takes its version from package.json, and the bridge says it", async () => {
  expect(SERVER_INFO.version).toBe(version);
  expect(readFileSync(join(ROOT, "src/core/surface/server.ts"), "utf8")).not.toMatch(/version:\s*"/);
  const { stdout } = await promisify(execFile)(process.execPath, [inject("bridge"), "--version"]);
  expect(stdout.trim()).toBe(version);
});
