// The npm scripts' command lines: `npm run dev -- ...` hands wrangler's own flags to wrangler dev, and
// `npm run token -- ...` takes --help, --port or a URL.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { localOrigin, parseDevArgs } from "../../scripts/dev.js";
import { parseTokenArgs } from "../../scripts/token.js";
import { ROOT } from "./helpers";

const run = promisify(execFile);

it("passes --port, --ip, --persist-to and every other flag to wrangler dev", () => {
  expect(parseDevArgs(["--port", "8813", "--ip", "0.0.0.0", "--local-protocol", "https"], {}, 'AUTH_UPSTREAM = "oidc"\n')).toEqual({
    port: 8813,
    ip: "0.0.0.0",
    persistTo: ".wrangler/state",
    keepBundle: false,
    wrangler: ["dev", "--ip", "0.0.0.0", "--port", "8813", "--persist-to", ".wrangler/state", "--local-protocol", "https"],
  });
  expect(parseDevArgs(["--port=8814", "--persist-to=/tmp/s", "--keep-bundle"], {})).toMatchObject({ port: 8814, persistTo: "/tmp/s", keepBundle: true });
  expect(parseDevArgs([], { BMAD_DEV_PORT: "9000" })).toMatchObject({ port: 9000, ip: "127.0.0.1" });
  expect(parseDevArgs(["--port", "9001"], { BMAD_DEV_PORT: "9000" })).toMatchObject({ port: 9001 });
  expect(parseDevArgs(["-h"], {})).toBe("help");
  // Past loopback the local sign-in would serve anyone (review 95): only with a real identity provider.
  expect(() => parseDevArgs(["--ip", "0.0.0.0"], {}, "")).toThrow(/--ip 0\.0\.0\.0 would let anyone who reaches it sign in as any local user/);
  expect(() => parseDevArgs(["--ip", "192.0.2.2"], {}, "AUTH_UPSTREAM=local\n")).toThrow(/set AUTH_UPSTREAM to oidc or github in \.dev\.vars/);
  expect(parseDevArgs(["--ip", "0.0.0.0", "--var", "AUTH_UPSTREAM:github"], {}, "")).toMatchObject({ ip: "0.0.0.0" });
  expect(parseDevArgs(["--ip", "127.0.0.2"], {}, "")).toMatchObject({ ip: "127.0.0.2" });
  expect(parseDevArgs(["--ip", "::1"], {}, "")).toMatchObject({ ip: "::1" });
  expect(() => parseDevArgs(["--port", "http"], {})).toThrow(/--port must be a number from 1 to 65535 \(got "http"\)/);
  expect(() => parseDevArgs(["--port"], {})).toThrow(/--port needs a value/);
  expect(localOrigin("0.0.0.0", 8813)).toBe("http://127.0.0.1:8813");
  expect(localOrigin("::1", 8813)).toBe("http://[::1]:8813");
});

it("takes --port or a loopback URL for the token, and refuses anything else", () => {
  expect(parseTokenArgs([], {})).toBe("http://127.0.0.1:8787");
  expect(parseTokenArgs(["--port", "8813"], {})).toBe("http://127.0.0.1:8813");
  expect(parseTokenArgs(["--port=8813"], { BMAD_DEV_PORT: "9000" })).toBe("http://127.0.0.1:8813");
  expect(parseTokenArgs([], { BMAD_DEV_PORT: "9000" })).toBe("http://127.0.0.1:9000");
  expect(parseTokenArgs(["http://localhost:8788/mcp"], {})).toBe("http://localhost:8788");
  expect(() => parseTokenArgs(["--port", "x"], {})).toThrow(/--port must be a number/);
  expect(() => parseTokenArgs(["--url"], {})).toThrow(/Unknown option "--url"/);
  expect(() => parseTokenArgs(["https://bmad.example.com/mcp"], {})).toThrow(/only signs in to loopback servers/);
});

it("prints usage for npm run token -- --help and npm run dev -- --help", async () => {
  const token = await run("npm", ["run", "-s", "token", "--", "--help"], { cwd: ROOT });
  expect(token.stdout).toMatch(/^usage: npm run token \[-- --port N \| URL\]/);
  const dev = await run("npm", ["run", "-s", "dev", "--", "--help"], { cwd: ROOT });
  expect(dev.stdout).toMatch(/^usage: npm run dev -- \[--port N\]/);
}, 30_000);
