import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
const t = new StdioClientTransport({ command: "/usr/bin/node", args: ["/tmp/review143/dist/bridge.js", "--project", "/tmp/review143/proj"], cwd: "/tmp/review143/proj", env: { PATH: process.env.PATH, HOME: "/tmp/review143/home" }, stderr: "pipe" });
const c = new Client({ name: "claude-ai", version: "1" }); await c.connect(t);
const i = c.getInstructions() ?? ""; console.log("instructions bytes", Buffer.byteLength(i)); console.log(i.slice(0, 3000));
const p = await c.listPrompts().catch(e => ({prompts: []})); console.log("prompts", p.prompts.length, Buffer.byteLength(JSON.stringify(p)));
const r = await c.listResources().catch(e => ({resources: []})); console.log("resources", r.resources.length, Buffer.byteLength(JSON.stringify(r)));
await c.close();
