// The bridge's own credentials in its environment, named once: read by the remote's clients, and kept from every
// process the bridge starts (run-bounded.ts), none of which signs in as the bridge.

/** The environment variable headless use takes its access token from (an argument would show in `ps`). */
export const TOKEN_ENV = "BMAD_MCP_TOKEN";

/** Every variable that holds a credential of the bridge's. */
export const BRIDGE_CREDENTIAL_ENV = [TOKEN_ENV] as const;

/** Whether `token` is what a request header carries as a token: printable ASCII, no spaces. */
export const isHeaderToken = (token: string): boolean => /^[\x21-\x7e]+$/.test(token);

/** Why the token in TOKEN_ENV cannot be sent, or undefined; never quoting it (review 102: a line break in it came back
 *  whole in an HTTP library's error, to the model and on stderr). A token is printable ASCII, no spaces. */
export function tokenProblem(token: string): string | undefined {
  if (!token.trim()) return `${TOKEN_ENV} is set but empty: give it an access token, or unset it to sign in through the browser.`;
  if (!isHeaderToken(token.trim())) return `${TOKEN_ENV} holds characters no access token has (a line break, a space, a control character: two lines of a file?): give it the token alone.`;
  return undefined;
}
