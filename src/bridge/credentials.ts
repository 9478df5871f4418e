// Sign-in for --remote: an OAuth client the SDK drives (discovery, registration, PKCE, refresh), with
// credentials kept in the user's config folder (0600) and the browser brought back to a loopback port.
// A saved sign-in is bound to the authorization server that issued it: when the server's metadata names
// another one, or the saved sign-in does not say which issued it, it is dropped and the user signs in
// again, so a refresh token or client id never reaches a server it did not come from.
import { randomBytes } from "node:crypto";
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import type { OAuthClientInformationContext, OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/client";
import { isLoopbackHost } from "../core/loopback.js";
import { isHeaderToken } from "./token-env.js";

/** The longest sign-in page address opened or shown: an OAuth authorize URL with its query is a few hundred characters. */
const MAX_SIGN_IN_URL_CHARS = 8192;

/** One remote's saved sign-in: the issuer it is bound to, the registered client, the tokens. */
type Stored = { issuer?: string; client?: unknown; tokens?: unknown };
type ClientInformation = ReturnType<OAuthClientProvider["clientInformation"]>;
type Tokens = ReturnType<OAuthClientProvider["tokens"]>;

/** `$XDG_CONFIG_HOME/bmad-mcp/credentials.json` (or ~/.config/...), one entry per remote URL. */
export function credentialsFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(env.HOME ?? homedir(), ".config"), "bmad-mcp", "credentials.json");
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every remote's entry, by URL (a Map: the keys come from a file). A missing or broken file holds none. */
function readAll(file: string): Map<string, Stored> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return new Map();
  }
  return new Map(isObject(parsed) ? Object.entries(parsed).filter((e): e is [string, Stored] => isObject(e[1])) : []);
}

function writeEntry(file: string, key: string, entry: Stored): void {
  const all = readAll(file);
  all.set(key, entry);
  mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(tmp, JSON.stringify(Object.fromEntries(all), null, 2), { mode: 0o600 });
  renameSync(tmp, file); // atomic: never a torn credentials file
}

/** The issuer a saved sign-in is bound to: recorded beside it, or the SDK's stamp on the tokens or client. */
function boundIssuer(entry: Stored): string | undefined {
  const stamp = (v: unknown) => (isObject(v) && typeof v.issuer === "string" ? v.issuer : undefined);
  return entry.issuer ?? stamp(entry.tokens) ?? stamp(entry.client);
}

/** Issuer identifiers as the SDK compares them: equal but for one trailing slash. */
function sameIssuer(a: string, b: string): boolean {
  return a === b || a === `${b}/` || b === `${a}/`;
}

/** Whether a token answer's access and refresh tokens are what a header carries: printable ASCII, nothing else. */
function headerSafe(tokens: unknown): boolean {
  if (!tokens || typeof tokens !== "object") return false;
  return (["access_token", "refresh_token"] as const).every((key) => {
    const value = (tokens as Record<string, unknown>)[key];
    return value === undefined || (typeof value === "string" && isHeaderToken(value));
  });
}

/** How long a sign-in waits for the browser by default: a person signs in within minutes, and a command nobody
 *  answers (a CI job, a forgotten terminal, a server that never sends the user back) must end rather than hang. */
const SIGN_IN_WAIT_SECONDS = 600;

/** The wait for the browser: `BMAD_MCP_SIGN_IN_SECONDS` when it is a whole number of seconds, else ten minutes. */
export function signInWaitMs(env: NodeJS.ProcessEnv = process.env): number {
  const seconds = env.BMAD_MCP_SIGN_IN_SECONDS;
  return (seconds !== undefined && /^[1-9]\d{0,5}$/.test(seconds) ? Number(seconds) : SIGN_IN_WAIT_SECONDS) * 1000;
}

/** The loopback page the browser returns to; resolves with the callback's query. */
export class LoopbackCallback {
  private server?: Server;
  private waiting?: { state: string; resolve: (p: URLSearchParams) => void };
  url = "";

  constructor(private readonly waitMs = signInWaitMs()) {}

  /** `keepAlive`: hold the process open while waiting for the browser (a command with nothing else to wait on). */
  async start(options: { keepAlive?: boolean } = {}): Promise<void> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (url.pathname !== "/callback") return void res.writeHead(404).end();
      // Only the sign-in this process waits for ends the wait: another program or page that found the port cannot end
      // it with a callback of its own (review 72).
      if (!this.waiting || url.searchParams.get("state") !== this.waiting.state) return void res.writeHead(400, { "content-type": "text/plain; charset=utf-8" }).end("This is not the sign-in bmad-mcp is waiting for.");
      // A refusal is not reported as a sign-in; the terminal says why (the reason is not echoed into the page).
      const page = url.searchParams.has("error") ? "Sign-in was refused: the terminal says why. You can close this tab." : "Signed in. You can close this tab.";
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(`<!doctype html><title>bmad-mcp</title><p>${page}</p>`);
      this.waiting?.resolve(url.searchParams);
    });
    await new Promise<void>((ok) => this.server!.listen(0, "127.0.0.1", ok));
    // Waiting for a browser must not keep the stdio bridge alive once its client has gone.
    if (!options.keepAlive) this.server.unref();
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/callback`;
  }

  /** The query of the next callback that carries `state`; an error once the wait is over. */
  next(state: string): Promise<URLSearchParams> {
    return new Promise((resolve, reject) => {
      const seconds = Math.round(this.waitMs / 1000);
      const [count, unit] = seconds % 60 === 0 ? [seconds / 60, "minute"] : [seconds, "second"];
      const wait = `${count} ${unit}${count === 1 ? "" : "s"}`;
      const timer = setTimeout(() => {
        if (this.waiting?.state === state) this.waiting = undefined;
        reject(new Error(`no sign-in came back from the browser within ${wait}; run the command again and open the link it prints (BMAD_MCP_SIGN_IN_SECONDS sets the wait)`));
      }, this.waitMs);
      // The timer alone does not hold a stdio bridge open whose client has gone.
      timer.unref();
      this.waiting = {
        state,
        resolve: (params) => {
          clearTimeout(timer);
          resolve(params);
        },
      };
    });
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
  /** Where this sign-in was sent (kept for the callback, so the code goes back to the same server). */
  private discovery?: OAuthDiscoveryState;
  /** The page the user was sent to sign in at, while the browser has not come back: a second authorization meanwhile
   *  (a call retried before the user approved) keeps it and its verifier, and opens no other tab (review 209: it
   *  overwrote the first's verifier, and the user's Allow there failed while both tabs said "Signed in"). */
  private pending?: string;

  /** The user was sent to sign in and the browser has not come back yet. */
  get awaitingCallback(): boolean {
    return this.pending !== undefined;
  }

  /** The wait for the browser is over (it came back, or never will): the next sign-in opens its own page. */
  endSignIn(): void {
    this.pending = undefined;
  }

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
    this.endSignIn();
    if (params.get("state") !== this.expectedState) throw new Error("The sign-in callback's state does not match this sign-in; start again.");
    const error = params.get("error");
    if (error) throw new Error(`Sign-in refused: ${error}${params.get("error_description") ? ` (${params.get("error_description")})` : ""}.`);
    return params;
  }

  private entry(): Stored {
    return readAll(this.file).get(this.remote) ?? {};
  }

  /**
   * The saved sign-in, if it may be used with the authorization server the SDK resolved (`ctx.issuer`).
   * One from another issuer, or one that does not say which issued it, is dropped from disk (with a line
   * saying why) and reads as absent: the SDK then registers and signs in afresh at the server named now.
   * Without `ctx` (the bearer token for the MCP server itself, which the tokens were issued for) it is as saved.
   */
  private usable(ctx: OAuthClientInformationContext | undefined): Stored {
    const entry = this.entry();
    if (!ctx?.issuer || (entry.client === undefined && entry.tokens === undefined)) return entry;
    const bound = boundIssuer(entry);
    if (bound !== undefined && sameIssuer(bound, ctx.issuer)) return entry;
    writeEntry(this.file, this.remote, {});
    this.log(
      bound === undefined
        ? `the saved sign-in for ${this.remote} does not record which authorization server issued it; signing in again`
        : `the saved sign-in for ${this.remote} was issued by ${bound}, but the server now names ${ctx.issuer}; signing in again`,
    );
    return {};
  }

  /** Saves part of the sign-in, bound to the issuer the SDK resolved for it. */
  private save(part: "client" | "tokens", value: unknown, ctx: OAuthClientInformationContext | undefined): void {
    const entry = this.entry();
    const issuer = ctx?.issuer ?? boundIssuer({ [part]: value });
    const old = boundIssuer(entry);
    // Parts bound to different issuers (or one bound, one not) never share an entry: the new one stays alone.
    const same = old === undefined || issuer === undefined ? old === issuer : sameIssuer(old, issuer);
    writeEntry(this.file, this.remote, { ...(same ? entry : {}), ...(issuer !== undefined ? { issuer } : {}), [part]: value });
  }

  clientInformation(ctx?: OAuthClientInformationContext): ClientInformation {
    return this.usable(ctx).client as ClientInformation;
  }

  saveClientInformation(client: unknown, ctx?: OAuthClientInformationContext): void {
    this.save("client", client, ctx);
  }

  tokens(ctx?: OAuthClientInformationContext): Tokens | undefined {
    const tokens = this.usable(ctx).tokens as Tokens | undefined;
    // One saved before this check is forgotten: the next run signs in again.
    return tokens && headerSafe(tokens) ? tokens : undefined;
  }

  saveTokens(tokens: unknown, ctx?: OAuthClientInformationContext): void {
    // A token no request header can carry is never kept (review 125: saved, every later run failed, quoting it).
    if (!headerSafe(tokens)) throw new Error("The remote's sign-in gave a token with characters no request header carries (a line break, a space, a control character): it was not saved. That authorization server is broken, or not to be trusted.");
    this.save("tokens", tokens, ctx);
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  /** The server says a credential no longer works: forget it, so the next attempt signs in afresh. */
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all") writeEntry(this.file, this.remote, {});
    else if (scope === "tokens" || scope === "client") {
      const { [scope]: _forgotten, ...rest } = this.entry();
      writeEntry(this.file, this.remote, rest);
    }
    if (scope === "all" || scope === "verifier") this.verifier = "";
    // A verifier or a client given up (its code refused, its registration gone) ends the sign-in it was for: the next
    // one opens its own page.
    if (scope === "all" || scope === "verifier" || scope === "client") this.pending = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }

  redirectToAuthorization(url: URL): void {
    // The server names this page: only a web page is opened (a file:, search-ms: or app: URL handed to the system's
    // opener could start a program), over https, or plain http on this machine.
    if (!(url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname)))) {
      throw new Error(`${this.remote} named a sign-in page that is not a web address over https (${url.protocol}//…); refused to open it. Check the --remote URL.`);
    }
    // Its own metadata names it: a 15 MB address went to the terminal on one line (review 31). Real ones are well under this.
    if (url.href.length > MAX_SIGN_IN_URL_CHARS) {
      throw new Error(`${this.remote} named a sign-in page ${url.href.length} characters long, more than a sign-in address needs (${MAX_SIGN_IN_URL_CHARS}); refused to open it. Check the --remote URL.`);
    }
    if (this.pending !== undefined) {
      this.log(`still waiting for the sign-in to ${this.remote} in your browser, at ${this.pending}`);
      return;
    }
    this.pending = url.href;
    this.log(`sign in to ${this.remote} in your browser: ${url.href}`);
    openBrowser(url.href, this.env);
  }

  saveCodeVerifier(verifier: string): void {
    if (this.pending === undefined) this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }
}
