// This user's secret on this machine: 32 random bytes made on first need and kept in their private folder (0600 in a
// 0700 folder, file-lock.ts privateFolder), the same for every bridge of theirs whatever HOME or XDG_* an MCP client
// starts it with. What is keyed with it (a config file's version, kept-versions.ts; a folder's sync record, sync-state.ts)
// nothing else can make: not the model, not a repository, not another user of the machine. Their delivery sessions'
// owner is drawn from it too (sessionOwner).
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { linkSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { privateFolder } from "./file-lock.js";

let key: Buffer | undefined;

/** The key: made once, by whichever bridge of the user's needs it first. */
export function userKey(): Buffer {
  if (key) return key;
  // Named as when only config versions used it, so the key a user has stays theirs.
  const file = join(privateFolder("kept"), "version-key");
  // Put in place whole (a link of a file written first), so that another bridge never reads it half written.
  const temp = `${file}.${randomUUID()}.tmp`;
  writeFileSync(temp, randomBytes(32), { mode: 0o600 });
  try {
    linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    rmSync(temp, { force: true });
  }
  const read = readFileSync(file);
  if (read.length !== 32) throw new Error(`${file} is not bmad-mcp's key (32 bytes): remove it, and bmad-mcp makes a new one.`);
  return (key = read);
}

/** The owner of the delivery sessions this user's bridges make (a project's .bmad-task/, file-session-store.ts): one
 *  name per install, drawn from the key, so a session file made elsewhere (committed to a repository, copied, or by a
 *  bmad-mcp from before sessions had owners, all "local") is never resumed as theirs, nor its text read as their words
 *  (review 426). Not the key's own bytes: the owner is written into files others may see. */
export function sessionOwner(): string {
  return (owner ??= `local-${createHmac("sha256", userKey()).update("bmad-mcp session owner").digest("hex").slice(0, 32)}`);
}
let owner: string | undefined;
