// Sign-in for --remote: an OAuth client the SDK drives (discovery, registration, PKCE, refresh), with
// credentials kept in the user's config folder (0600) and the browser brought back to a loopback port.
// A saved sign-in is bound to the authorization server that issued it: when the server's metadata names
// another one, or the saved sign-in does not say which issued it, it is dropped and the user signs in
// again, so a refresh token or client id never reaches a server it did not come from. A refresh is sent under the
// file's cross-process lock, so bridges sharing the file never send one refresh token twice.
// A logout (logout.ts) reads and deletes a sign-in under that lock too, and every save changes the file under it.
import { randomBytes } from "node:crypto";
import { execFile } from "node:child_process";
import { homedir, tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join } from "node:path";
import { type OAuthClientInformationContext, type OAuthClientProvider, type OAuthDiscoveryState, OAuthError, OAuthErrorCode } from "@modelcontextprotocol/client";
import { isLoopbackHost } from "../core/loopback.js";
import { remoteText } from "./bounded-fetch.js";
import { isObject, readAll, type Stored, writeAll, writeEntry } from "./credentials-file.js";
import { parseJsonText } from "./json-text.js";
import { LockBusyError, withFileLock } from "./file-lock.js";
import { findProgram } from "./find-program.js";
import { type LoopbackCallback, SignInError } from "./loopback-callback.js";
import { childEnvironment } from "./run-bounded.js";
import { isHeaderToken } from "./token-env.js";

/** The longest sign-in page address opened or shown: an OAuth authorize URL with its query is a few hundred characters. */
const MAX_SIGN_IN_URL_CHARS = 8192;

type ClientInformation = Awaited<ReturnType<OAuthClientProvider["clientInformation"]>>;
type Tokens = Awaited<ReturnType<OAuthClientProvider["tokens"]>>;

/** `$XDG_CONFIG_HOME/bmad-mcp/credentials.json` (or ~/.config/...), one entry per remote URL. */
export function credentialsFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(env.HOME ?? homedir(), ".config"), "bmad-mcp", "credentials.json");
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

/**
 * The credentials file's lock held past the wait by another bridge or a logout: nothing was read, refreshed or changed
 * here, and the saved sign-in stays. An OAuth error the SDK does not retry ("temporarily_unavailable"), so its auth()
 * rethrows it as is: a refresh failing any other way made it start a new sign-in in the browser, for which `pull` with
 * no browser waited forever (review 257).
 */
export class CredentialsBusyError extends OAuthError {
  constructor(message: string) {
    super(OAuthErrorCode.TemporarilyUnavailable, message);
  }
}

/** How long the credentials lock is waited for: file-lock.ts's wait, unless BMAD_MCP_TEST_LOCK_WAIT_MS (for tests
 *  alone, which meet a busy lock without waiting 11 s) sets another. */
function credentialsWaitMs(env: NodeJS.ProcessEnv): number | undefined {
  const ms = env.BMAD_MCP_TEST_LOCK_WAIT_MS;
  return ms !== undefined && /^[0-9]{1,6}$/.test(ms) ? Number(ms) : undefined;
}

/** Runs `work` holding the credentials file's cross-process lock (file-lock.ts): every change of the file, and a refresh
 *  or a logout whole. Throws CredentialsBusyError when another holds it past the wait. */
export async function withCredentialsLock<T>(file: string, work: () => Promise<T>): Promise<T> {
  try {
    return await withFileLock(dirname(file), basename(file), work, credentialsWaitMs(process.env));
  } catch (error) {
    throw error instanceof LockBusyError ? new CredentialsBusyError(error.message) : error;
  }
}

/** What a logout revokes: a remote's saved sign-in as the server knows it. */
export interface SavedSignIn {
  issuer?: string;
  clientId?: string;
  clientSecret?: string;
  refreshToken?: string;
  accessToken?: string;
}

/** The saved sign-in for `remote`, or undefined when the file holds none for it. */
export function savedSignIn(file: string, remote: string): SavedSignIn | undefined {
  const entry = readAll(file).get(remote);
  if (!entry) return undefined;
  const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
  const client = isObject(entry.client) ? entry.client : {};
  const tokens = isObject(entry.tokens) ? entry.tokens : {};
  return { issuer: boundIssuer(entry), clientId: text(client.client_id), clientSecret: text(client.client_secret), refreshToken: text(tokens.refresh_token), accessToken: text(tokens.access_token) };
}

/** Deletes `remote`'s saved sign-in from the file (call under withCredentialsLock). */
export function forgetSignIn(file: string, remote: string): void {
  const all = readAll(file);
  if (all.delete(remote)) writeAll(file, all);
}

/** Whether a token answer's access and refresh tokens are what a header carries: printable ASCII, nothing else. */
function headerSafe(tokens: unknown): boolean {
  if (!tokens || typeof tokens !== "object") return false;
  return (["access_token", "refresh_token"] as const).every((key) => {
    const value = (tokens as Record<string, unknown>)[key];
    return value === undefined || (typeof value === "string" && isHeaderToken(value));
  });
}

/** Opens the system browser (argument array, no shell); BMAD_MCP_BROWSER=none only prints the URL. The opener is found
 *  as every program the bridge starts is (find-program.ts), never in `project`, the folder the bridge serves or syncs
 *  (a committed ./xdg-open ran through an empty PATH entry, review 327; judged against the folder it started in, a
 *  planted opener ran when that was elsewhere, and none opened when it was `/`: review 338), and runs from the temp folder with no credentials
 *  of the bridge's. BMAD_MCP_BROWSER is the user's choice: a path runs as given, a bare name is found the same way.
 *  Why it was not opened, or undefined. */
function openBrowser(url: string, project: string, env: NodeJS.ProcessEnv): string | undefined {
  if (env.BMAD_MCP_BROWSER === "none") return undefined;
  const name = env.BMAD_MCP_BROWSER || (process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open");
  const program = isAbsolute(name) ? { path: name } : name.includes("/") ? undefined : findProgram(name, project);
  if (!program) return `no browser opened: ${name} is not a program on PATH's absolute entries (BMAD_MCP_BROWSER names another)`;
  if ("inside" in program) return `no browser opened: ${program.inside} is inside the project, and the bridge runs no program from there (BMAD_MCP_BROWSER names another)`;
  execFile(program.path, [url], { cwd: tmpdir(), env: childEnvironment() }, () => undefined);
  return undefined;
}

const newState = () => randomBytes(16).toString("hex");

/** How long a refresh sent under the credentials file's lock may take: less than another bridge waits for it. */
const REFRESH_MS = 8_000;

export class FileOAuthProvider implements OAuthClientProvider {
  private verifier = "";
  /** The state of the sign-in under way, or of the next: each gets its own, so an older tab's answer is told apart (review
   *  210: a tab left from a sign-in that timed out carried the next one's state; its Allow was taken, and failed). */
  private expectedState = newState();
  /** Where this sign-in was sent (kept for the callback, so the code goes back to the same server). */
  private discovery?: OAuthDiscoveryState;
  /** The page the user was sent to sign in at, while the browser has not come back: a second authorization meanwhile
   *  (a call retried before the user approved) keeps it and its verifier, and opens no other tab (review 209: it
   *  overwrote the first's verifier, and the user's Allow there failed while both tabs said "Signed in"). */
  private pending?: string;
  /** The access token guardRefresh last answered with, saved under the credentials lock: the SDK's own save of it,
   *  after the lock is let go, is not made (it could land over a newer refresh by another bridge). */
  private savedUnderLock?: string;

  /** The user was sent to sign in and the browser has not come back yet. */
  get awaitingCallback(): boolean {
    return this.pending !== undefined;
  }

  /** The wait for the browser is over (it came back, or never will): the next sign-in opens its own page, with its own state. */
  endSignIn(): void {
    this.pending = undefined;
    this.expectedState = newState();
  }

  constructor(
    private readonly remote: string,
    private readonly callback: LoopbackCallback,
    private readonly log: (m: string) => void,
    /** The folder the bridge serves or syncs: no browser opener is run from it. */
    private readonly project: string,
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

  /** The callback's query, refused unless its state is ours (CSRF); it ends the sign-in. */
  checkCallback(params: URLSearchParams): URLSearchParams {
    const ours = params.get("state") === this.expectedState;
    this.endSignIn();
    if (!ours) throw new SignInError("the sign-in callback's state does not match this sign-in; start again");
    const error = params.get("error");
    // The user's Deny, said as such (the description adds nothing to it); any other error is the server's.
    if (error === "access_denied") throw new SignInError(`the sign-in to ${this.remote} was refused in the browser`, true);
    if (error) throw new SignInError(`the authorization server of ${this.remote} ended the sign-in with ${remoteText(`${error}${params.get("error_description") ? ` (${params.get("error_description")})` : ""}`)}`);
    return params;
  }

  private entry(): Stored {
    return readAll(this.file).get(this.remote) ?? {};
  }

  /** Changes this remote's entry under the credentials lock, from the entry as saved then (read before, another bridge's
   *  save or a logout in between was undone). */
  private change(next: (entry: Stored) => Stored): Promise<void> {
    return withCredentialsLock(this.file, async () => writeEntry(this.file, this.remote, next(this.entry()), this.log));
  }

  /**
   * The saved sign-in, if it may be used with the authorization server the SDK resolved (`ctx.issuer`).
   * One from another issuer, or one that does not say which issued it, is dropped from disk (with a line
   * saying why) and reads as absent: the SDK then registers and signs in afresh at the server named now.
   * Without `ctx` (the bearer token for the MCP server itself, which the tokens were issued for) it is as saved.
   */
  private async usable(ctx: OAuthClientInformationContext | undefined): Promise<Stored> {
    const entry = this.entry();
    if (!ctx?.issuer || (entry.client === undefined && entry.tokens === undefined)) return entry;
    const bound = boundIssuer(entry);
    if (bound !== undefined && sameIssuer(bound, ctx.issuer)) return entry;
    // Dropped if still the one read: a sign-in saved meanwhile is another's to judge.
    await this.change((now) => (boundIssuer(now) === bound ? {} : now));
    this.log(
      bound === undefined
        ? `the saved sign-in for ${this.remote} does not record which authorization server issued it; signing in again`
        : `the saved sign-in for ${this.remote} was issued by ${bound}, but the server now names ${ctx.issuer}; signing in again`,
    );
    return {};
  }

  /** `entry` with part of the sign-in set, bound to the issuer the SDK resolved for it. */
  private withPart(entry: Stored, part: "client" | "tokens", value: unknown, ctx: OAuthClientInformationContext | undefined): Stored {
    const issuer = ctx?.issuer ?? boundIssuer({ [part]: value });
    const old = boundIssuer(entry);
    // Parts bound to different issuers (or one bound, one not) never share an entry: the new one stays alone.
    const same = old === undefined || issuer === undefined ? old === issuer : sameIssuer(old, issuer);
    return { ...(same ? entry : {}), ...(issuer !== undefined ? { issuer } : {}), [part]: value };
  }

  async clientInformation(ctx?: OAuthClientInformationContext): Promise<ClientInformation> {
    return (await this.usable(ctx)).client as ClientInformation;
  }

  saveClientInformation(client: unknown, ctx?: OAuthClientInformationContext): Promise<void> {
    return this.change((entry) => this.withPart(entry, "client", client, ctx));
  }

  async tokens(ctx?: OAuthClientInformationContext): Promise<Tokens | undefined> {
    const tokens = (await this.usable(ctx)).tokens as Tokens | undefined;
    // One saved before this check is forgotten: the next run signs in again.
    return tokens && headerSafe(tokens) ? tokens : undefined;
  }

  async saveTokens(tokens: unknown, ctx?: OAuthClientInformationContext): Promise<void> {
    // A token no request header can carry is never kept (review 125: saved, every later run failed, quoting it).
    if (!headerSafe(tokens)) throw new Error("The remote's sign-in gave a token with characters no request header carries (a line break, a space, a control character): it was not saved. That authorization server is broken, or not to be trusted.");
    if (isObject(tokens) && typeof tokens.access_token === "string" && tokens.access_token === this.savedUnderLock) return;
    await this.change((entry) => this.withPart(entry, "tokens", tokens, ctx));
  }

  /**
   * `base`, sending each refresh of this remote's sign-in under the credentials file's lock (file-lock.ts, taken over
   * from a holder that died). Bridges sharing the file (an editor's windows, each with its own) refreshed one token at
   * once, and the server, seeing it used twice, revoked the sign-in (review 210). Under the lock the saved tokens are
   * read again: when another bridge has refreshed meanwhile, its tokens are the answer and nothing is sent; otherwise
   * the server's answer is saved before the lock is let go.
   */
  guardRefresh(base: typeof fetch): typeof fetch {
    return async (input, init) => {
      const form = init?.method === "POST" && init.body instanceof URLSearchParams ? init.body : undefined;
      const sent = form?.get("grant_type") === "refresh_token" ? form.get("refresh_token") : null;
      if (sent === null) return base(input, init);
      return withCredentialsLock(this.file, async () => {
        const entry = this.entry();
        const saved = entry.tokens;
        if (isObject(saved) && typeof saved.access_token === "string" && saved.refresh_token !== sent && headerSafe(saved)) {
          this.savedUnderLock = saved.access_token;
          return Response.json(saved);
        }
        // Bounded: other bridges wait for this lock 11 s at most (file-lock.ts), and a token endpoint that never
        // answered held it for Node's 300 s (review 217).
        const bounded = AbortSignal.timeout(REFRESH_MS);
        const response = await base(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, bounded]) : bounded });
        if (!response.ok) return response;
        const text = await response.text();
        const tokens = parseJsonText(text);
        if (isObject(tokens) && typeof tokens.access_token === "string" && headerSafe(tokens)) {
          // Bound to the issuer the refreshed sign-in was (a token answer does not choose its own), as the SDK saves it.
          const { issuer: _claimed, ...fresh } = tokens;
          const issuer = boundIssuer(entry);
          writeEntry(this.file, this.remote, this.withPart(entry, "tokens", { refresh_token: sent, ...fresh, ...(issuer !== undefined ? { issuer } : {}) }, undefined), this.log);
          this.savedUnderLock = tokens.access_token;
        }
        return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
      });
    };
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  /** The server says a credential no longer works: forget it, so the next attempt signs in afresh. */
  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "all" || scope === "verifier") this.verifier = "";
    // A verifier or a client given up (its code refused, its registration gone) ends the sign-in it was for: the next
    // one opens its own page.
    if (scope === "all" || scope === "verifier" || scope === "client") this.endSignIn();
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
    if (scope === "all") await this.change(() => ({}));
    else if (scope === "tokens" || scope === "client") await this.change(({ [scope]: _forgotten, ...rest }) => rest);
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
    const notOpened = openBrowser(url.href, this.project, this.env);
    if (notOpened) this.log(`${notOpened}; open the link above yourself.`);
  }

  saveCodeVerifier(verifier: string): void {
    if (this.pending === undefined) this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }
}
