// A loopback HTTP proxy that adds a bearer token to /mcp requests, so tools that cannot sign in
// (the MCP conformance suite) test the real, OAuth-protected Worker. Headers, Host included, pass through.
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface BearerProxy {
  url: string;
  setToken(token: string): void;
  close(): Promise<void>;
}

export async function startBearerProxy(target: URL): Promise<BearerProxy> {
  let token = "";
  const server: Server = createServer((req, res) => {
    const headers = { ...req.headers };
    if (token && req.url?.startsWith("/mcp") && !headers.authorization) headers.authorization = `Bearer ${token}`;
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setToken: (t) => (token = t),
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}
