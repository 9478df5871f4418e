// Sign-in for --remote: an OAuth client the SDK drives (discovery, registration, PKCE, refresh), with
// credentials kept in the user's config folder (0600) and the browser brought back to a loopback port.
import { randomBytes } from "node:crypto";
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import type { OAuthClientProvider } from "@modelcontextprotocol/client";

type Stored = { client?: unknown; tokens?: unknown };

/** `$XDG_CONFIG_HOME/bmad-mcp/credentials.json` (or ~/.config/...), one entry per remote URL. */
export function credentialsFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(env.HOME ?? homedir(), ".config"), "bmad-mcp", "credentials.json");
}

function readAll(file: string): Record<string, Stored> {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Record<string, Stored>;
  } catch {
    return {};
  }
}

function writeEntry(file: string, key: string, patch: Stored): void {
  const all = readAll(file);
  all[key] = { ...all[key], ...patch };
  mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(tmp, JSON.stringify(all, null, 2), { mode: 0o600 });
  renameSync(tmp, file); // atomic: never a torn credentials file
}

/** The loopback page the browser returns to; resolves with the callback's query. */
export class LoopbackCallback {
  private server?: Server;
  private waiting?: { resolve: (p: URLSearchParams) => void };
  url = "";

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (url.pathname !== "/callback") return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><title>bmad-mcp</title><p>Signed in. You can close this tab.</p>");
      this.waiting?.resolve(url.searchParams);
    });
    await new Promise<void>((ok) => this.server!.listen(0, "127.0.0.1", ok));
    this.server.unref(); // waiting for a browser must not keep the bridge alive once its client has gone
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/callback`;
  }

  next(): Promise<URLSearchParams> {
    return new Promise((resolve) => (this.waiting = { resolve }));
  }

  close(): void {
    this.server?.close();
  }
}

/** Opens the system browser (argument array, no shell); BMAD_MCP_BROWSER=none only prints the URL. */
function openBrowser(url: string, env: NodeJS.ProcessEnv): void {
  if (env.BMAD_MCP_BROWSER === "none") return;
  const command = env.BMAD_MCP_BROWSER || (process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open");
  execFile(command, [url], () => undefined);
}

export class FileOAuthProvider implements OAuthClientProvider {
  private verifier = "";
  private readonly expectedState = randomBytes(16).toString("hex");

  constructor(
    private readonly remote: string,
    private readonly callback: LoopbackCallback,
    private readonly log: (m: string) => void,
    private readonly file = credentialsFile(),
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  get redirectUrl(): string {
    return this.callback.url;
  }

  get clientMetadata() {
    return { client_name: "bmad-mcp", redirect_uris: [this.callback.url], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }

  state(): string {
    return this.expectedState;
  }

  /** The callback's query, refused unless its state is ours (CSRF). */
  checkCallback(params: URLSearchParams): URLSearchParams {
    if (params.get("state") !== this.expectedState) throw new Error("The sign-in callback's state does not match this sign-in; start again.");
    const error = params.get("error");
    if (error) throw new Error(`Sign-in refused: ${error}${params.get("error_description") ? ` (${params.get("error_description")})` : ""}.`);
    return params;
  }

  clientInformation() {
    return readAll(this.file)[this.remote]?.client as ReturnType<OAuthClientProvider["clientInformation"]>;
  }

  saveClientInformation(client: unknown): void {
    writeEntry(this.file, this.remote, { client });
  }

  tokens() {
    return readAll(this.file)[this.remote]?.tokens as ReturnType<OAuthClientProvider["tokens"]>;
  }

  saveTokens(tokens: unknown): void {
    writeEntry(this.file, this.remote, { tokens });
  }

  /** The server says a credential no longer works: forget it, so the next attempt signs in afresh. */
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "tokens") writeEntry(this.file, this.remote, { tokens: undefined });
    if (scope === "all" || scope === "client") writeEntry(this.file, this.remote, { client: undefined });
    if (scope === "all" || scope === "verifier") this.verifier = "";
  }

  redirectToAuthorization(url: URL): void {
    this.log(`sign in to ${this.remote} in your browser: ${url.href}`);
    openBrowser(url.href, this.env);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }
}
