// The loopback page a browser sign-in comes back to (RFC 8252): it takes only the answer of the sign-in waited for,
// finishes that sign-in, and only then tells the browser's tab how it went.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { loopbackRefusal } from "../core/loopback.js";

/** A sign-in that ended without tokens, said whole in its message: the user refused it in the browser (`refused`), the
 *  browser never came back, the code could not be traded, or the server's sign-in details cannot be used. Not an
 *  outage, and not said as one ("unreachable"). */
export class SignInError extends Error {
  constructor(
    message: string,
    readonly refused = false,
  ) {
    super(message);
  }
}

/** How long a sign-in waits for the browser by default: a person signs in within minutes, and a command nobody
 *  answers (a CI job, a forgotten terminal, a server that never sends the user back) must end rather than hang. */
const SIGN_IN_WAIT_SECONDS = 600;

/** The wait for the browser: `BMAD_MCP_SIGN_IN_SECONDS` when it is a whole number of seconds, else ten minutes. */
export function signInWaitMs(env: NodeJS.ProcessEnv = process.env): number {
  const seconds = env.BMAD_MCP_SIGN_IN_SECONDS;
  return (seconds !== undefined && /^[1-9]\d{0,5}$/.test(seconds) ? Number(seconds) : SIGN_IN_WAIT_SECONDS) * 1000;
}

/** What the browser's tab says: how the sign-in it came back from ended, or that it is not the one waited for. */
const PAGES = {
  signedIn: "Signed in. You can close this tab.",
  refused: "Sign-in was refused, so bmad-mcp is not signed in. You can close this tab.",
  failed: "The sign-in failed: the terminal says why. You can close this tab.",
  notWaited: "This is not the sign-in bmad-mcp is waiting for: it comes from an older sign-in tab, or from another program. Use the newest sign-in tab, the one at the link bmad-mcp printed last.",
  notGet: "This page takes only the browser coming back from a sign-in (a GET).",
  badTarget: "This address is not one this page can read.",
  broken: "This page failed to answer: the terminal may say why. You can close this tab.",
};

/** The page, kept by no cache and its address (which carries the sign-in's code and state) sent to no other site. It
 *  has no form and no link, so no-referrer costs it nothing. */
function answer(res: ServerResponse, status: number, page: string, headers: Record<string, string> = {}): void {
  const escaped = page.replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`);
  res
    .writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "referrer-policy": "no-referrer", ...headers })
    .end(`<!doctype html><title>bmad-mcp</title><p>${escaped}</p>`);
}

/** The loopback page the browser returns to: it finishes the sign-in waited for, then says how that went. */
export class LoopbackCallback {
  private server?: Server;
  private waiting?: { state: string; finish: (query: URLSearchParams) => Promise<void> };
  url = "";

  constructor(private readonly waitMs = signInWaitMs()) {}

  /** `keepAlive`: hold the process open while waiting for the browser (a command with nothing else to wait on). */
  async start(options: { keepAlive?: boolean } = {}): Promise<void> {
    // Whatever a request holds, it is answered and the bridge goes on (review 437: a target `new URL` threw on, sent
    // by any local program, ended the bridge).
    this.server = createServer((req, res) => {
      this.respond(req, res).catch(() => (res.headersSent ? res.destroy() : answer(res, 500, PAGES.broken)));
    });
    await new Promise<void>((ok) => this.server!.listen(0, "127.0.0.1", ok));
    // Waiting for a browser must not keep the stdio bridge alive once its client has gone.
    if (!options.keepAlive) this.server.unref();
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/callback`;
  }

  private async respond(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A page under a rebound name is refused (review 437). No Origin is checked: a browser may name the sign-in page's
    // when that page's form redirects it here. Nor whose program connects, as --http judges it: the browser may come
    // through a relay another user runs (WSL's localhost forwarding, a container's forwarded port), and only the sign-in
    // waited for, by its state, ends the wait.
    const refused = loopbackRefusal(req.headers.host, undefined);
    if (refused) return answer(res, 403, refused);
    if (req.method !== "GET") return answer(res, 405, PAGES.notGet, { allow: "GET" });
    const url = URL.parse(req.url ?? "/", "http://127.0.0.1");
    if (!url) return answer(res, 400, PAGES.badTarget);
    if (url.pathname !== "/callback") return void res.writeHead(404).end();
    const waiting = this.waiting;
    // Only the sign-in this process waits for ends the wait: another program or page that found the port cannot end
    // it with a callback of its own (review 72), nor can the tab of an earlier sign-in, whose state was another.
    if (!waiting || url.searchParams.get("state") !== waiting.state) return answer(res, 400, PAGES.notWaited);
    this.waiting = undefined;
    // The tab says how the sign-in ended once it has: it said "Signed in" before the code was traded, and that failed
    // (review 210). A refusal's reason is not echoed into the page; the terminal says it.
    await waiting.finish(url.searchParams).then(
      () => answer(res, 200, PAGES.signedIn),
      (error: unknown) => answer(res, 200, error instanceof SignInError && error.refused ? PAGES.refused : PAGES.failed),
    );
  }

  /** Waits for the callback that carries `state` and runs `finish` on its query; settles as `finish` does, or with an
   *  error once the wait is over. */
  next(state: string, finish: (query: URLSearchParams) => Promise<void>): Promise<void> {
    return new Promise((resolve, reject) => {
      const seconds = Math.round(this.waitMs / 1000);
      const [count, unit] = seconds % 60 === 0 ? [seconds / 60, "minute"] : [seconds, "second"];
      const wait = `${count} ${unit}${count === 1 ? "" : "s"}`;
      const timer = setTimeout(() => {
        if (this.waiting?.state === state) this.waiting = undefined;
        reject(new SignInError(`no sign-in came back from the browser within ${wait}; run the command again and open the link it prints (BMAD_MCP_SIGN_IN_SECONDS sets the wait)`));
      }, this.waitMs);
      // The timer alone does not hold a stdio bridge open whose client has gone.
      timer.unref();
      this.waiting = {
        state,
        finish: (query) => {
          clearTimeout(timer);
          const done = finish(query);
          done.then(resolve, reject);
          return done;
        },
      };
    });
  }

  close(): void {
    this.server?.close();
  }
}
