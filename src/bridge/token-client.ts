// Pull and push signed in with a bearer token from the environment (CI, scripts): no browser, no credentials
// file. Only from the environment: a token on the command line is in `ps` for every user of the machine.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SERVER_INFO } from "../core/surface/server-info.js";

/** A client connected to `url` that sends `token` with every request. A refusal of the token (401), or of a call
 *  it does not allow (403 insufficient_scope), fails the request with a sentence naming `variable`. */
export async function tokenClient(url: URL, token: string, variable: string): Promise<Client> {
  const withToken: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    const response = await fetch(input, { ...init, headers });
    if (response.status === 401) throw new Error(`the server refused the token in ${variable} (expired, revoked, or issued by another server): get a new one`);
    const challenge = response.headers.get("www-authenticate") ?? "";
    if (response.status === 403 && challenge.includes("insufficient_scope")) {
      const scope = /scope="([^"]*)"/.exec(challenge)?.[1];
      throw new Error(`the token in ${variable} does not allow this${scope ? `: it needs the scopes ${scope}` : ""} (a push needs bmad:write)`);
    }
    return response;
  };
  const client = new Client({ name: "bmad-mcp-bridge", version: SERVER_INFO.version });
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: withToken }));
  return client;
}
