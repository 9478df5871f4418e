// `bmad-mcp logout --remote URL`: ends this machine's sign-in to a remote, at the server and here. Its refresh and access
// tokens are revoked (RFC 7009) at the revocation endpoint its issuer's metadata names, so a copy of the credentials
// file stops working, then its entry is deleted. All under the credentials file's lock: no bridge refreshes the token
// meanwhile, which would leave a newer one alive. A server that cannot be reached cannot revoke it: the entry is
// deleted all the same, and the user is told the server takes the sign-in as valid until it expires.
import { assertSecureTokenEndpoint, discoverAuthorizationServerMetadata } from "@modelcontextprotocol/client";
import { parseArgs } from "node:util";
import type { Result } from "../core/result.js";
import { boundedFetch, remoteText } from "./bounded-fetch.js";
import { CredentialsBusyError, credentialsFile, forgetSignIn, type SavedSignIn, savedSignIn, withCredentialsLock } from "./credentials.js";
import { parseRemoteUrl } from "./remote-url.js";
import { writeErr, writeOut } from "./terminal.js";

export const LOGOUT_USAGE = `Usage: bmad-mcp logout --remote URL

Signs this machine out of a bmad-mcp server: the saved sign-in's tokens are revoked at the server, so
no copy of them works any more, then the sign-in is deleted from the credentials file. When the server
cannot be reached, the sign-in is deleted here all the same, and the server takes it as valid until it
expires (30 days after its last refresh, on a bmad-mcp server); end it sooner on the server's
/connections page. The next pull, push or --remote signs in again through the browser.

Options:
  --remote URL   the server's MCP endpoint, as it was given to pull, push or --remote
  --help         this text
Exit status: 0 signed out (or no sign-in was saved); 1 deleted here, but not revoked at the server;
2 a usage error; 3 nothing done, as another bmad-mcp held the credentials file (run it again);
70 an unexpected failure, said on stderr.`;

/** Another bridge or logout held the credentials file past the wait: nothing was revoked or deleted. */
const BUSY = 3;

/** How long the revocation may take in all: other bridges wait for the credentials lock 11 s at most (file-lock.ts). */
const REVOKE_MS = 8_000;

/** Runs the command; resolves with the exit status. */
export async function runLogout(argv: string[], file = credentialsFile()): Promise<number> {
  let args;
  try {
    args = parseArgs({ args: argv, options: { remote: { type: "string" }, help: { type: "boolean" } }, strict: true }).values;
  } catch (error) {
    return usageError((error as Error).message);
  }
  if (args.help) return void writeOut(`${LOGOUT_USAGE}\n`), 0;
  if (args.remote === undefined) return usageError("--remote is required.");
  const remote = parseRemoteUrl(args.remote);
  if (!remote.ok) return usageError(remote.error);
  // Saved under the URL as parsed (pull, push and --remote key the file by it): `https://HOST` and `https://host/` are one
  // sign-in (review 237: one written otherwise was "nothing to do", its tokens left working).
  const key = sameServer(remote.url).find((href) => savedSignIn(file, href)) ?? remote.url.href;
  if (!savedSignIn(file, key)) return void writeOut(`No sign-in to ${key} is saved in ${file}; nothing to do.\n`), 0;
  try {
    return await withCredentialsLock(file, async () => {
      const saved = savedSignIn(file, key);
      if (!saved) return void writeOut(`No sign-in to ${key} is saved in ${file}; nothing to do.\n`), 0;
      const revoked = await revoke(saved);
      forgetSignIn(file, key);
      if (revoked.ok && revoked.tokens.length) writeOut(`Revoked at ${saved.issuer}: the ${revoked.tokens.join(" and the ")}; no copy of them works any more.\n`);
      writeOut(`Deleted the saved sign-in to ${key} from ${file}.\n`);
      if (revoked.ok) return 0;
      writeErr(`bmad-mcp logout: ${revoked.error}; the server takes this sign-in as valid until it expires. End it sooner on the server's /connections page.\n`);
      return 1;
    });
  } catch (error) {
    // Said, not thrown: it died on a stack, with the status of "deleted here" though nothing was (review 257).
    if (!(error instanceof CredentialsBusyError)) throw error;
    writeErr(`bmad-mcp logout: ${error.message} Nothing was revoked or deleted; run the logout again once it is done.\n`);
    return BUSY;
  }
}

/** The URL as parsed, then with its path's last slash taken off or put on: `/mcp` and `/mcp/` name one server
 *  (review 242: one typed with the slash was "nothing to do", the tokens left working). */
function sameServer(url: URL): string[] {
  const other = new URL(url.href);
  other.pathname = url.pathname.endsWith("/") ? url.pathname.slice(0, -1) || "/" : `${url.pathname}/`;
  return [url.href, other.href];
}

function usageError(message: string): number {
  writeErr(`bmad-mcp logout: ${message}\n\n${LOGOUT_USAGE}\n`);
  return 2;
}

/** Revokes the sign-in's tokens, refresh token first (it outlives the other), as the client they were issued to. */
async function revoke(saved: SavedSignIn): Promise<Result<{ tokens: string[] }>> {
  const tokens: Array<[string, string]> = [];
  if (saved.refreshToken) tokens.push(["refresh_token", saved.refreshToken]);
  if (saved.accessToken) tokens.push(["access_token", saved.accessToken]);
  if (!tokens.length) return { ok: true, tokens: [] };
  // Bound to the server that issued them: sent nowhere else (a sign-in saved before issuers were recorded names none).
  const { issuer, clientId } = saved;
  if (!issuer || !clientId) return { ok: false, error: "the saved sign-in does not record which server and client it was issued to, so it was not sent anywhere to be revoked" };
  const signal = AbortSignal.timeout(REVOKE_MS);
  const bounded = boundedFetch();
  const fetchFn: typeof fetch = (input, init) => bounded(input, { ...init, signal });
  try {
    const metadata = await discoverAuthorizationServerMetadata(issuer, { fetchFn });
    // OpenID Connect's metadata (the other shape the SDK reads) defines no revocation endpoint.
    const named = metadata && "revocation_endpoint" in metadata ? metadata.revocation_endpoint : undefined;
    if (!named) return { ok: false, error: `${issuer} names no revocation endpoint in its metadata` };
    // https, or http on this machine: a refresh token never crosses the network in the clear.
    const endpoint = assertSecureTokenEndpoint(named);
    const done: string[] = [];
    for (const [hint, token] of tokens) {
      const body = new URLSearchParams({ token, token_type_hint: hint, client_id: clientId, ...(saved.clientSecret ? { client_secret: saved.clientSecret } : {}) });
      const response = await fetchFn(endpoint, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
      const answer = await response.text();
      if (!response.ok) return { ok: false, error: `${endpoint.href} refused to revoke the ${hint.replace("_", " ")} (${response.status} ${remoteText(answer)})` };
      done.push(hint.replace("_", " "));
    }
    return { ok: true, tokens: done };
  } catch (error) {
    return { ok: false, error: `${issuer} could not be reached to revoke the sign-in (${remoteText(signal.aborted ? `no answer within ${REVOKE_MS / 1000} s` : (error as Error).message)})` };
  }
}
