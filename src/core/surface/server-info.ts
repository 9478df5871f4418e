// Who this server is. The version is package.json's: the one place it is written.
import pkg from "../../../package.json" with { type: "json" };

export const SERVER_INFO = { name: "bmad-mcp", version: pkg.version };
