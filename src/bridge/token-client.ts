// Pull and push signed in with a bearer token from the environment (CI, scripts): no browser, no credentials
// file. Only from the environment: a token on the command line is in `ps` for every user of the machine.
import { SdkErrorCode, SdkHttpError, StreamableHTTPClientTransport, type Client } from "@modelcontextprotocol/client";
import { bridgeClient } from "./remote-link.js";
import type { Result } from "../core/result.js";
import { boundedFetch, remoteText } from "./bounded-fetch.js";
import { BriefConnection } from "./brief-connection.js";
import { TOKEN_ENV } from "./token-env.js";

export { TOKEN_ENV } from "./token-env.js";

/** A client connected to `url` that sends `token` with every request. A refusal of the token (401), or of a call
 *  it does not allow (403 insufficient_scope), fails the request with a sentence naming `variable`, as the HTTP
 *  error it is: the server answered, and nothing it was asked to change changed. */
export async function tokenClient(url: URL, token: string, variable: string, asks = false): Promise<Client> {
  const bounded = boundedFetch();
  const withToken: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    const response = await bounded(input, { ...init, headers });
    if (response.status === 401) throw new SdkHttpError(SdkErrorCode.ClientHttpAuthentication, `the server refused the token in ${variable} (expired, revoked, or issued by another server): get a new one`, { status: 401 });
    const challenge = response.headers.get("www-authenticate") ?? "";
    if (response.status === 403 && challenge.includes("insufficient_scope")) {
      const scope = /scope="([^"]*)"/.exec(challenge)?.[1];
      throw new SdkHttpError(SdkErrorCode.ClientHttpForbidden, `the token in ${variable} does not allow this${scope ? `: it needs the scopes ${scope}` : ""} (a push needs bmad:write): get one that allows it`, { status: 403 });
    }
    return response;
  };
  const client = bridgeClient(asks);
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: withToken }));
  return client;
}

/** The --remote proxy's link when a token is given: connects with it alone (no browser, nothing saved), waiting as
 *  briefly as the browser's link does, and after a failed request connects again on the next call. */
export class TokenLink {
  private readonly plain: BriefConnection<Client>;
  /** One that declares the user can be asked (RemoteLink.current). */
  private readonly asking: BriefConnection<Client>;
  private reason: string;

  constructor(
    private readonly url: URL,
    token: string,
    private readonly log: (m: string) => void,
  ) {
    const connection = (asks: boolean) => new BriefConnection(() => tokenClient(url, token, TOKEN_ENV, asks), (error) => void this.lost(error));
    this.plain = connection(false);
    this.asking = connection(true);
    this.reason = `${url.href} has not answered yet`;
  }

  async current(asks = false): Promise<Result<{ client: Client }>> {
    const client = await (asks ? this.asking : this.plain).current();
    return client ? { ok: true, client } : { ok: false, error: this.reason };
  }

  /** Why a request failed, as the proxy says it and on stderr; the next call connects again. */
  lost(error: unknown): string {
    this.plain.forget();
    this.asking.forget();
    const message = remoteText((error as Error).message);
    // tokenClient's own refusals name the variable: the server answered, and said no.
    this.reason = message.includes(TOKEN_ENV) ? `${this.url.href} cannot be used: ${message}` : `${this.url.href} is unreachable (${message})`;
    this.log(this.reason);
    return this.reason;
  }
}
