// Bundle paths and bmad:// URIs. Anything that could leave the bundle is refused, never normalised.
import type { Result } from "../result.js";

export const BMAD_SCHEME = "bmad://";

export type PathCheck = Result<{ path: string }>;

const SEGMENT_DENY = new Set(["", ".", ".."]);

/** Validates a bundle-relative path: POSIX, no traversal, no absolute, no backslash, no NUL or control chars. */
export function checkBundlePath(raw: string): PathCheck {
  if (raw.length === 0 || raw.length > 1024) return { ok: false, error: "Path must be 1-1024 characters." };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\\]/.test(raw)) return { ok: false, error: "Path contains a backslash or control character; use forward slashes." };
  if (raw.startsWith("/") || /^[a-zA-Z]:/.test(raw)) return { ok: false, error: "Absolute paths are refused; give a path inside the bundle, e.g. bmm/bmad-prd/SKILL.md." };
  if (raw.split("/").some((s) => SEGMENT_DENY.has(s))) return { ok: false, error: "Paths with '.', '..' or empty segments are refused." };
  return { ok: true, path: raw };
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
