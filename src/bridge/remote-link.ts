// The connection to a remote bmad-mcp server, signing in through the browser when it asks: the --remote proxy and
// pull/push share it. Kept apart from the proxy so that pull and push load the MCP client alone, not the server.
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import * as z from "zod";
import type { Result } from "../core/result.js";
import { boundedFetch } from "./bounded-fetch.js";
import { SERVER_INFO } from "../core/surface/server-info.js";
import { CredentialsBusyError, type FileOAuthProvider } from "./credentials.js";
import { type LoopbackCallback, SignInError } from "./loopback-callback.js";
import { remoteText } from "./bounded-fetch.js";
import { BriefConnection } from "./brief-connection.js";

type Link = Result<{ client: Client }>;

/** The bridge's client of a remote. `asks`: it declares elicitation, for a proxy whose own client asks its user: the
 *  remote then puts its consent questions (a share, an accept) to the user through the proxy, not to the model. A
 *  remote asks in the 2026-07-28 protocol only (its 2025 era is stateless: no request can come back to a client), so
 *  that client offers it, falling back to the 2025 handshake with a remote that has only that. */
export function bridgeClient(asks: boolean): Client {
  const info = { name: "bmad-mcp-bridge", version: SERVER_INFO.version };
  return new Client(info, asks ? { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } } : undefined);
}

/** `error`, or for the SDK's refusal of what a server sent for sign-in (its metadata, a registration or token answer)
 *  one sentence naming the field: `pull` printed the validator's JSON dump (review 210). */
function schemaErrorAsSentence(url: URL, error: unknown): unknown {
  if (!(error instanceof z.ZodError)) return error;
  const issue = error.issues[0];
  const what = issue ? `${issue.path.join(".") || "the answer"}: ${issue.message}` : "not the shape OAuth asks for";
  return new SignInError(`${url.href} sent sign-in details bmad-mcp cannot use (${remoteText(what)}); check the --remote URL`);
}

export class RemoteLink {
  private readonly plain = new BriefConnection(
    () => this.connect(),
    (error) => void (this.reason = this.failed(error)),
  );
  /** A second client that declares the user can be asked, for calls from a client that can (current). */
  private readonly asking = new BriefConnection(
    async () => {
      const client = bridgeClient(true);
      await client.connect(this.transport());
      return client;
    },
    (error) => void this.lost(error),
  );
  /** The one browser sign-in being waited for (the callback answers one waiter). */
  private signingIn?: Promise<void>;
  private reason: string;

  constructor(
    private readonly url: URL,
    private readonly provider: FileOAuthProvider,
    private readonly callback: LoopbackCallback,
    private readonly log: (m: string) => void,
  ) {
    this.reason = `${url.href} has not answered yet`;
  }

  /** A transport to the remote, signing in with the saved credentials. */
  private transport(): StreamableHTTPClientTransport {
    return new StreamableHTTPClientTransport(this.url, { authProvider: this.provider, fetch: this.provider.guardRefresh(boundedFetch()) });
  }

  /** A connected client, or why there is none; waits briefly, never for the user. `asks`: for a call from a client
   *  that can ask its user, one that says so to the remote (signed in as the other, once that is). */
  async current(asks = false): Promise<Link> {
    const plain = await this.plain.current();
    const client = plain && asks ? await this.asking.current() : plain;
    return client ? { ok: true, client } : { ok: false, error: this.reason };
  }

  /** A connected client for a command the user runs and watches (pull, push): waits as long as sign-in takes. */
  connected(): Promise<Client> {
    return this.connect();
  }

  /** Why a connection failed, as the proxy's answers say it, and on stderr too, where the browser's tab says to look
   *  (review 210: a Deny was never said there). A failed sign-in is no outage (review 209: "unreachable (Sign-in
   *  refused: access_denied.)"), nor is a refresh that waited for another bridge's hold of the credentials file. */
  private failed(error: unknown): string {
    const problem = schemaErrorAsSentence(this.url, error);
    const reason =
      problem instanceof SignInError
        ? `${problem.message}; the next call ${problem.refused ? "asks" : "tries"} again`
        : problem instanceof CredentialsBusyError
          ? `the saved sign-in to ${this.url.href} was not refreshed (${problem.message.replace(/\.$/, "")}); the next call tries again`
          : `${this.url.href} is unreachable (${remoteText((problem as Error).message)})`;
    this.log(reason);
    return reason;
  }

  /** After a request failed: forget the connection so the next call reconnects (and signs in again). */
  lost(error: unknown): string {
    this.plain.forget();
    this.asking.forget();
    if (error instanceof UnauthorizedError) {
      // The SDK sent the user to sign in (an expired sign-in, or a call that needs bmad:write when the sign-in
      // allowed bmad:read): wait for the browser in the background, so the next call has the new tokens.
      if (this.provider.awaitingCallback) this.signIn().catch((e: unknown) => this.failed(e));
      // Refused with no sign-in under way: read the server's metadata afresh next time, it may name another
      // authorization server now (the saved sign-in is bound to the one that issued it, and is not sent to another).
      else void this.provider.invalidateCredentials("discovery");
    }
    this.reason =
      error instanceof UnauthorizedError
        ? `${this.url.href} needs you to sign in again (an expired sign-in, or a call that needs write access): open the link on stderr, then retry`
        : this.failed(error);
    return this.reason;
  }

  private async connect(): Promise<Client> {
    const attempt = async () => {
      const transport = this.transport();
      const client = bridgeClient(false);
      await client.connect(transport);
      return client;
    };
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw schemaErrorAsSentence(this.url, error);
      await this.signIn();
      return await attempt();
    }
  }

  /**
   * After the SDK sent the user to sign in (no usable sign-in, or a call that needs more scope, e.g. bmad:write
   * when the sign-in allowed bmad:read): waits for the browser to come back and trades its code for tokens.
   */
  signIn(): Promise<void> {
    return (this.signingIn ??= this.finishSignIn().finally(() => (this.signingIn = undefined)));
  }

  private async finishSignIn(): Promise<void> {
    this.reason = `waiting for you to sign in to ${this.url.href} (the link is on stderr)`;
    let cameBack = false;
    try {
      // The browser's tab answers once the code is traded, saying how that went.
      await this.callback.next(this.provider.state(), async (query) => {
        cameBack = true;
        const params = this.provider.checkCallback(query);
        await this.transport()
          .finishAuth(params)
          .catch((e: unknown) => {
            const problem = schemaErrorAsSentence(this.url, e);
            throw problem instanceof SignInError ? problem : new SignInError(`the sign-in to ${this.url.href} failed as the browser's answer was traded for a token: ${remoteText((problem as Error).message)}`);
          });
      });
    } catch (error) {
      // The wait is over with no answer: the next refusal sends the user a fresh link.
      if (!cameBack) this.provider.endSignIn();
      throw error;
    }
    this.log(`signed in to ${this.url.href}`);
  }
}
