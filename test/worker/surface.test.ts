import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { connect } from "./client.js";
import { seedBundle } from "./seed.js";
import type { Env } from "../../src/worker/env.js";

let client: Client;

beforeAll(async () => {
  await seedBundle(env as unknown as Env, inject("bundle"));
  client = await connect();
});

describe("the MCP surface", () => {
  it("lists the default toolsets' tools", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("bmad");
  });
});
