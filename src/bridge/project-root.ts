// Which folder may be served as the project when no one named it. MCP clients start a stdio server wherever they
// like (some in the home folder or in /): taken as the project, every file below it was the model's to read
// (~/.config/gh/hosts.yml, ~/.claude.json, shell history; /etc/shadow as root, review 27).
import { realpathSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import { dirname } from "node:path";
import { isInside } from "./confined-fs.js";

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Why `project` is too broad to be a project (the file system's root, the home folder or a folder holding it), or
 *  undefined. The home folder is the environment's (where tools keep credentials) and the user database's (the
 *  environment may name another); a folder holding the latter holds every user's. */
export function tooBroadForProject(project: string): string | undefined {
  const at = real(project);
  if (dirname(at) === at) return "the file system's root";
  if (at === real(homedir())) return "your home folder";
  let home: string | undefined;
  try {
    home = real(userInfo().homedir);
  } catch {
    return undefined; // no entry in the user database (a container's arbitrary uid)
  }
  if (at === home) return "your home folder";
  return isInside(at, home) ? "a folder holding your home folder" : undefined;
}
