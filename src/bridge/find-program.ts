// The one way the bridge finds a program it starts (git, uv or python3 for a script, the browser opener): on PATH's
// absolute entries, an executable file, and never one from the project's own folders, where a tool or a cloned
// repository may have put it (an activated `.venv/bin` first on PATH ran a planted `git`: review 327).
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { basename, delimiter, dirname, isAbsolute, join, relative } from "node:path";
import { isInside } from "./confined-fs.js";

/** The program to run, or the first one found, in the project (`inside`, from the project's real path): never run. */
export type FoundProgram = { path: string } | { inside: string };

/** The first `name` on PATH, or undefined where there is none; one in `project` is told as such, never given to run. */
export function findProgram(name: string, project: string): FoundProgram | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    // Absolute entries only: a relative one is judged here against the bridge's folder, but run from the project.
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    // And executable: a plain file a tool wrote there (every one is 0644) is no program, and shadows none.
    if (!isProgram(candidate)) continue;
    const inside = insideProject(candidate, project);
    return inside === undefined ? { path: candidate } : { inside };
  }
  return undefined;
}

/** Where `program` is in `project`, or undefined when it is outside. Both by their folders' real paths (the project may
 *  be named through a link), the program's own name kept: a venv's python is a link out of it, and it is the venv that loads. */
export function insideProject(program: string, project: string): string | undefined {
  const [realProject, realDir] = [realOr(project), realOr(dirname(program))];
  return isInside(realProject, realDir) ? relative(realProject, join(realDir, basename(program))) : undefined;
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function isProgram(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
