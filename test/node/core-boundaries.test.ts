// src/core is runtime-free: the Worker and the bridge both build on it.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
}

const FORBIDDEN = [/^node:/, /^cloudflare:/, /^agents(\/|$)/, /\/worker\//, /\/bridge\//, /^hono/];

it("src/core imports no runtime, Worker or bridge module", () => {
  const offenders: string[] = [];
  for (const file of files("src/core")) {
    for (const [, spec] of readFileSync(file, "utf8").matchAll(/from\s+"([^"]+)"/g)) {
      if (FORBIDDEN.some((re) => re.test(spec!))) offenders.push(`${file}: ${spec}`);
    }
  }
  expect(offenders).toEqual([]);
});

it("src/worker never imports the bridge, and scripts never import the worker entry", () => {
  const bad = files("src/worker").filter((f) => /from\s+"[^"]*\/bridge\//.test(readFileSync(f, "utf8")));
  expect(bad).toEqual([]);
});
