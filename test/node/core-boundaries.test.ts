// Dependencies point inward: src/core is runtime-free (the Worker and the bridge both build on it); the
// Worker and the bridge never import each other; product code never reaches into scripts/, and scripts/
// (thin CLIs) never import the Worker or the bridge. Static, side-effect, dynamic and type imports all count.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
}

/** Every module specifier in `source`: `from "x"`, `import "x"`, `import("x")`, `require("x")`. */
function specifiers(source: string): string[] {
  const found = source.matchAll(/\bfrom\s+["']([^"']+)["']|\bimport\s+["']([^"']+)["']|\b(?:import|require)\s*\(\s*["']([^"']+)["']/g);
  return [...found].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

/** `file: specifier` for each import under `dir` that matches one of `forbidden`. */
function offenders(dir: string, forbidden: RegExp[]): string[] {
  return files(dir).flatMap((file) => specifiers(readFileSync(file, "utf8")).filter((spec) => forbidden.some((re) => re.test(spec))).map((spec) => `${file}: ${spec}`));
}

it("reads every kind of import", () => {
  const source = `import a from "a";\nimport type { B } from "b";\nexport * from "c";\nimport "d";\nconst e = await import(\n  "e"\n);\ntype F = import("f").F;\nconst g = require('g');`;
  expect(specifiers(source)).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
});

it("src/core imports no runtime, Worker, bridge or scripts module", () => {
  expect(offenders("src/core", [/^node:/, /^cloudflare:/, /^agents(\/|$)/, /\/worker\//, /\/bridge\//, /^hono/, /\/scripts\//])).toEqual([]);
});

it("the Worker and the bridge never import each other", () => {
  expect(offenders("src/worker", [/\/bridge\//])).toEqual([]);
  expect(offenders("src/bridge", [/\/worker\//])).toEqual([]);
});

it("product code never reaches into scripts/, and scripts/ never imports the Worker or the bridge", () => {
  expect(offenders("src", [/\/scripts\//])).toEqual([]);
  expect(offenders("scripts", [/src\/worker\//, /src\/bridge\//])).toEqual([]);
});
