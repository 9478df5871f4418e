// server.json, the MCP registry's entry for this server: valid against the registry's published schema
// (vendored in test/fixtures/mcp-registry/), and in step with package.json and the bridge's options.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { TOOLSET_NAMES } from "../../src/core/surface/toolsets.js";
import { ROOT } from "./helpers";

const read = (file: string) => JSON.parse(readFileSync(join(ROOT, file), "utf8")) as Record<string, any>;
const schema = read("test/fixtures/mcp-registry/server.schema.json");
const server = read("server.json");
const pkg = read("package.json");

function validator() {
  // Strict, so an unknown keyword is an error, except the schema's documentation keyword `example`, and its
  // `required` inside an `anyOf` branch naming a property the sibling `properties` define (valid draft-07).
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
  addFormats.default(ajv);
  ajv.addKeyword("example");
  return ajv.compile(schema);
}

describe("server.json", () => {
  const validate = validator();

  it("follows the registry's published schema, the one it names", () => {
    expect(server.$schema).toBe(schema.$id);
    expect(validate(server), JSON.stringify(validate.errors)).toBe(true);
  });

  it("fails that schema when broken, so the check above can fail", () => {
    const broken = structuredClone(server);
    broken.packages[0].version = "latest";
    broken.remotes[0].url = "bmad.example.com/mcp";
    delete broken.description;
    expect(validate(broken)).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath).sort()).toEqual(expect.arrayContaining(["", "/packages/0/version", "/remotes/0/url"]));
  });

  it("has package.json's version, name and mcpName (the registry checks mcpName against the npm package)", () => {
    expect(server.version).toBe(pkg.version);
    expect(server.name).toBe(pkg.mcpName);
    expect(server.packages).toEqual([expect.objectContaining({ registryType: "npm", identifier: pkg.name, version: pkg.version, transport: { type: "stdio" } })]);
  });

  it("describes a remote endpoint at /mcp on the host a user deploys to", () => {
    expect(server.remotes).toEqual([{ type: "streamable-http", url: "https://{host}/mcp", variables: { host: expect.objectContaining({ isRequired: true }) } }]);
  });

  describe("against the bridge", () => {
    let help = "";
    beforeAll(async () => {
      help = (await promisify(execFile)(process.execPath, [inject("bridge"), "--help"])).stdout;
    }, 60_000);

    it("names only options and variables the bridge reads, and every toolset", () => {
      const [npm] = server.packages;
      for (const arg of npm.packageArguments) expect(help).toContain(`${arg.name} `);
      for (const env of npm.environmentVariables) expect(help).toContain(env.name);
      const toolsets = npm.packageArguments.find((a: { name: string }) => a.name === "--toolsets").description;
      for (const name of TOOLSET_NAMES) expect(toolsets).toContain(name);
    });
  });
});
