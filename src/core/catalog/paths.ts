// Bundle paths and bmad:// URIs. Anything that could leave the bundle is refused, never normalised.
import { showName, UNSHOWABLE } from "../lines.js";
import type { Result } from "../result.js";

export const BMAD_SCHEME = "bmad://";

export type PathCheck = Result<{ path: string }>;

const SEGMENT_DENY = new Set(["", ".", ".."]);

/** Validates a bundle-relative path: POSIX, no traversal, no absolute, no backslash, no control, format or
 *  line-separating character (UNSHOWABLE, as a record's name: a listing showed `readme\u202Edm.exe.md` as it is, review 422). */
export function checkBundlePath(raw: string): PathCheck {
  if (raw.length === 0 || raw.length > 1024) return { ok: false, error: "Path must be 1-1024 characters." };
  if (raw.includes("\\")) return { ok: false, error: "Path contains a backslash; use forward slashes." };
  const unshown = UNSHOWABLE.exec(raw);
  if (unshown) return { ok: false, error: `Path holds ${showName(unshown[0])}, a control, format or line-separating character: a listing would show it as another name or break its line.` };
  if (raw.startsWith("/") || /^[a-zA-Z]:/.test(raw)) return { ok: false, error: "Absolute paths are refused; give a path inside the bundle, e.g. bmm/bmad-prd/SKILL.md." };
  if (raw.split("/").some((s) => SEGMENT_DENY.has(s))) return { ok: false, error: "Paths with '.', '..' or empty segments are refused." };
  return { ok: true, path: raw };
}

/** What a refused `a/steps/../b.md` (a step file's relative link) names, when it stays inside the bundle: for the
 *  refusal to name, not to serve. */
export function lexicallyResolved(uri: string): string | undefined {
  if (!uri.startsWith(BMAD_SCHEME)) return undefined;
  const parts: string[] = [];
  for (const segment of uri.slice(BMAD_SCHEME.length).split("/")) {
    if (segment === ".." && !parts.pop()) return undefined;
    if (segment !== ".." && segment !== "." && segment !== "") parts.push(segment);
  }
  const checked = checkBundlePath(parts.join("/"));
  return checked.ok ? checked.path : undefined;
}

/** Parses `bmad://{path}`; percent-escapes are decoded once and the result is checked again. */
export function parseBmadUri(uri: string): PathCheck {
  if (!uri.startsWith(BMAD_SCHEME)) return { ok: false, error: `URI must start with ${BMAD_SCHEME}.` };
  let decoded: string;
  try {
    decoded = decodeURIComponent(uri.slice(BMAD_SCHEME.length));
  } catch {
    return { ok: false, error: "URI has a malformed percent-escape." };
  }
  return checkBundlePath(decoded);
}

export function bmadUri(path: string): string {
  return BMAD_SCHEME + path.split("/").map(encodeURIComponent).join("/");
}
