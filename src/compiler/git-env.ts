// The environment of every git this project starts (git sources' cache, the bridge's read-only git): none of the
// caller's GIT_* variables, which point git at another repository, index, object store, config or program folder.
// A pre-commit hook runs with GIT_INDEX_FILE set and vcsh exports GIT_DIR: a cache fetch then staged 235 foreign files
// in the user's index, or deleted their committed files (review 214).

/** How a user reaches their git servers (an ssh key or command, a password prompt program, a proxy, a company's
 *  certificate authority): kept for fetches only, which would otherwise fail where plain `git fetch` works. */
export const GIT_TRANSPORT_ENV = ["GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT", "GIT_ASKPASS", "GIT_PROXY_COMMAND", "GIT_SSL_CAINFO", "GIT_SSL_CAPATH"] as const;

/** Overrides for the process environment: every GIT_* variable removed (undefined), but those in `keep`, then `set`. */
export function gitEnvironment(set: Record<string, string>, keep: readonly string[] = []): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const name of Object.keys(process.env)) if (name.toUpperCase().startsWith("GIT_") && !keep.includes(name)) env[name] = undefined;
  return { ...env, ...set };
}
